// SPDX-License-Identifier: BSD-2-Clause
// M-mode console output: a small printf (%s %c %d %u %x %p %% with an
// optional 'l' and zero-padded width) behind one lock, so lines from several
// harts do not interleave.
#include "fw.hpp"
#include "platform.hpp"
#include "atomic.hpp"
#include <stdarg.h>

namespace fw {
namespace {
fw::atomic<unsigned> console_lock; // word-sized: no libatomic needed

void lock() {
    while (console_lock.exchange(1, fw::memory_order_acquire)) {
    }
}
void unlock() { console_lock.store(0, fw::memory_order_release); }

void putc_raw(char c) {
    if (c == '\n') platform::console_putc('\r');
    platform::console_putc(c);
}

void put_num(unsigned long v, unsigned base, int width, char pad) {
    char buf[24];
    int n = 0;
    do {
        unsigned d = v % base;
        buf[n++] = static_cast<char>(d < 10 ? '0' + d : 'a' + d - 10);
        v /= base;
    } while (v);
    while (n < width--) putc_raw(pad);
    while (n) putc_raw(buf[--n]);
}
} // namespace

void puts(const char *s) {
    lock();
    while (*s) putc_raw(*s++);
    unlock();
}

void console_write(const volatile char *buf, unsigned long n) {
    lock();
    for (unsigned long i = 0; i < n; i++) platform::console_putc(buf[i]);
    unlock();
}

// Reads hold the lock too: a console device may answer reads and writes
// through one channel (HTIF's tohost/fromhost pair), where a read on one hart
// in the middle of another's write loses a command or takes its answer.
int console_getc() {
    lock();
    int c = platform::console_getc();
    unlock();
    return c;
}

unsigned long console_read(volatile char *buf, unsigned long n) {
    unsigned long i = 0;
    lock();
    for (int c; i < n && (c = platform::console_getc()) >= 0; i++) buf[i] = static_cast<char>(c);
    unlock();
    return i;
}

void printf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    lock();
    for (; *fmt; fmt++) {
        if (*fmt != '%') {
            putc_raw(*fmt);
            continue;
        }
        fmt++;
        char pad = ' ';
        int width = 0;
        if (*fmt == '0') pad = '0';
        while (*fmt >= '0' && *fmt <= '9') width = width * 10 + (*fmt++ - '0');
        bool is_long = false;
        while (*fmt == 'l') is_long = true, fmt++;
        switch (*fmt) {
        case 's': {
            const char *s = va_arg(ap, const char *);
            while (s && *s) putc_raw(*s++);
            break;
        }
        case 'c': putc_raw(static_cast<char>(va_arg(ap, int))); break;
        case 'd': {
            long v = is_long ? va_arg(ap, long) : va_arg(ap, int);
            if (v < 0) putc_raw('-'), v = -v;
            put_num(static_cast<unsigned long>(v), 10, width, pad);
            break;
        }
        case 'u':
            put_num(is_long ? va_arg(ap, unsigned long) : va_arg(ap, unsigned), 10, width, pad);
            break;
        case 'x':
            put_num(is_long ? va_arg(ap, unsigned long) : va_arg(ap, unsigned), 16, width, pad);
            break;
        case 'p':
            putc_raw('0'), putc_raw('x');
            put_num(reinterpret_cast<unsigned long>(va_arg(ap, void *)), 16, 0, ' ');
            break;
        case '%': putc_raw('%'); break;
        default: putc_raw('?'); break;
        }
    }
    unlock();
    va_end(ap);
}

} // namespace fw
