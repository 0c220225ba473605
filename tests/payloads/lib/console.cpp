// SPDX-License-Identifier: BSD-2-Clause
// Console output of the payload library: a small printf over the SBI debug
// console (DBCN write, one call per line) or, when DBCN is absent, the legacy
// console putchar. Lines from different harts never interleave.
#include <stdarg.h>

#include "internal.hpp"

namespace pl {

namespace {

enum class Backend { unknown, dbcn, legacy };
Backend backend = Backend::unknown;
volatile unsigned long dbcn_failures; // DBCN writes that erred or made no progress

// Recursive spinlock: the owner is hartid + 1, so a trap handler that prints
// on a hart already printing does not deadlock.
volatile unsigned long lock_owner;
unsigned long lock_depth; // the owner's alone touches it

void lock() {
    unsigned long me = hartid() + 1;
    if (lock_owner == me) {
        lock_depth++;
        return;
    }
    unsigned long expected;
    do {
        expected = 0;
    } while (!__atomic_compare_exchange_n(&lock_owner, &expected, me, false, __ATOMIC_ACQUIRE,
                                          __ATOMIC_RELAXED));
    lock_depth = 1;
}

void unlock() {
    if (--lock_depth == 0) __atomic_store_n(&lock_owner, 0, __ATOMIC_RELEASE);
}

void legacy_write(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        sbi_call_raw(eid::legacy_console_putchar, 0, (unsigned char)s[i]);
}

void raw_write(const char *s, size_t n) {
    if (backend == Backend::dbcn) {
        // DBCN write is non-blocking and may write less; a call that makes no
        // progress or errs hands the rest to putchar so the line still shows.
        while (n > 0) {
            SbiRet r =
                sbi_call_raw(eid::dbcn, fid::dbcn::write, n, reinterpret_cast<uintptr_t>(s), 0);
            if (r.error != 0 || r.value == 0 || r.value > n) {
                dbcn_failures = dbcn_failures + 1;
                break;
            }
            s += r.value;
            n -= r.value;
        }
    }
    legacy_write(s, n);
}

// --- formatting ------------------------------------------------------------
struct Out {
    char *buf;
    size_t size, len;
    void put(char c) {
        if (len + 1 < size) buf[len] = c;
        len++;
    }
};

void put_num(Out &o, unsigned long v, unsigned base, bool neg, int width, char pad) {
    char tmp[24];
    int n = 0;
    do {
        unsigned d = v % base;
        tmp[n++] = static_cast<char>(d < 10 ? '0' + d : 'a' + d - 10);
        v /= base;
    } while (v);
    if (neg) {
        if (pad == '0') {
            o.put('-');
            width--;
        } else {
            tmp[n++] = '-';
        }
    }
    for (int i = n; i < width; i++) o.put(pad);
    while (n) o.put(tmp[--n]);
}

int vformat(char *buf, size_t size, const char *fmt, va_list ap) {
    Out o{buf, size, 0};
    for (; *fmt; fmt++) {
        if (*fmt != '%') {
            o.put(*fmt);
            continue;
        }
        fmt++;
        char pad = ' ';
        int width = 0;
        if (*fmt == '0') {
            pad = '0';
            fmt++;
        }
        while (*fmt >= '0' && *fmt <= '9') width = width * 10 + (*fmt++ - '0');
        int longs = 0;
        while (*fmt == 'l') {
            longs++;
            fmt++;
        }
        switch (*fmt) {
        case 'd':
        case 'i': {
            long v = longs ? va_arg(ap, long) : va_arg(ap, int);
            put_num(o, v < 0 ? 0ul - static_cast<unsigned long>(v) : v, 10, v < 0, width, pad);
            break;
        }
        case 'u':
        case 'x': {
            unsigned long v = longs ? va_arg(ap, unsigned long) : va_arg(ap, unsigned);
            put_num(o, v, *fmt == 'u' ? 10 : 16, false, width, pad);
            break;
        }
        case 'p':
            o.put('0');
            o.put('x');
            put_num(o, reinterpret_cast<uintptr_t>(va_arg(ap, void *)), 16, false, width, pad);
            break;
        case 'c':
            o.put(static_cast<char>(va_arg(ap, int)));
            break;
        case 's': {
            const char *s = va_arg(ap, const char *);
            if (!s) s = "(null)";
            while (*s) o.put(*s++);
            break;
        }
        case '%':
            o.put('%');
            break;
        default:
            o.put('%');
            if (*fmt) o.put(*fmt);
            else fmt--;
        }
    }
    if (size) buf[o.len < size ? o.len : size - 1] = 0;
    return static_cast<int>(o.len < size ? o.len : (size ? size - 1 : 0));
}

} // namespace

void console_init() {
    if (sbi_probe(eid::dbcn).value != 0) backend = Backend::dbcn;
    else backend = Backend::legacy;
}

bool console_uses_dbcn() { return backend == Backend::dbcn; }
unsigned long console_failures() { return dbcn_failures; }

void console_write(const char *s, size_t n) {
    lock();
    raw_write(s, n);
    unlock();
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap) {
    return vformat(buf, size, fmt, ap);
}

int snprintf(char *buf, size_t size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vformat(buf, size, fmt, ap);
    va_end(ap);
    return n;
}

void vprintf(const char *fmt, va_list ap) {
    char buf[512];
    int n = vformat(buf, sizeof buf, fmt, ap);
    console_write(buf, static_cast<size_t>(n));
}

void printf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
}

void note(const char *fmt, ...) {
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vformat(msg, sizeof msg, fmt, ap);
    va_end(ap);
    printf("NOTE: %s: %s\n", pl_payload_name, msg);
}

void request_input(const char *text) { printf("TSBI-SEND: %s\n", text); }

void expect_console_line(const char *case_name, const char *text) {
    printf("TSBI-EXPECT: %s/%s %s\n", pl_payload_name, case_name, text);
}

} // namespace pl
