// SPDX-License-Identifier: BSD-2-Clause
// Runtime for bare-metal test payloads: UART output, PASS/FAIL lines, power off.
#include "lib.h"

const char *test_prefix = "";
unsigned test_failures;
uint64_t (*trap_hook)(uint64_t mcause, uint64_t mepc);

// ns16550a: transmit holding register at +0, line status at +5 (bit 5 THR empty)
void putc_(char c)
{
    volatile uint8_t *u = (volatile uint8_t *)VIRT_UART0;
    while (!(u[5] & 0x20)) {
    }
    u[0] = (uint8_t)c;
}

void puts_(const char *s)
{
    while (*s) {
        putc_(*s++);
    }
}

void puthex(uint64_t v)
{
    char b[19];
    int i;
    b[0] = '0';
    b[1] = 'x';
    for (i = 0; i < 16; i++) {
        b[2 + i] = "0123456789abcdef"[(v >> (60 - 4 * i)) & 0xf];
    }
    b[18] = 0;
    puts_(b);
}

void putdec(uint64_t v)
{
    char b[24];
    int i = 23;
    b[i] = 0;
    do {
        b[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    puts_(&b[i]);
}

// sifive,test0: 0x5555 = pass/poweroff, 0x3333 | code << 16 = fail
void poweroff(void)
{
    wr32(VIRT_TEST, test_failures ? (0x3333u | (1u << 16)) : 0x5555u);
    for (;;) {
    }
}

void check(const char *name, int ok)
{
    puts_(ok ? "PASS: " : "FAIL: ");
    puts_(test_prefix);
    puts_(name);
    puts_("\n");
    if (!ok) {
        test_failures++;
    }
}

void check_eq(const char *name, uint64_t got, uint64_t want)
{
    check(name, got == want);
    if (got != want) {
        puts_("  got ");
        puthex(got);
        puts_(" want ");
        puthex(want);
        puts_("\n");
    }
}

uint64_t trap_handler(uint64_t mcause, uint64_t mepc)
{
    if (trap_hook) {
        return trap_hook(mcause, mepc);
    }
    puts_("FAIL: unexpected trap mcause=");
    puthex(mcause);
    puts_(" mepc=");
    puthex(mepc);
    puts_("\n");
    test_failures++;
    poweroff();
    return mepc;
}

static int wait_bits(uintptr_t reg, uint32_t mask, uint32_t want)
{
    for (int i = 0; i < 100000; i++) {
        if ((rd32(reg) & mask) == want) {
            return 1;
        }
    }
    return 0;
}

int tr_reset(uintptr_t base)
{
    wr32(base, 0);
    if (!wait_bits(base, TCI_BIT(trControl, Active), 0)) {
        return 0;
    }
    wr32(base, TCI_BIT(trControl, Active));
    return wait_bits(base, TCI_BIT(trControl, Active), TCI_BIT(trControl, Active));
}

int tr_disable(uintptr_t base)
{
    // InstStallOrOverflow is write-1-to-clear: keep it by writing 0 there
    wr32(base, rd32(base) & ~(TCI_BIT(trControl, Enable) | TCI_BIT(trTeControl, InstTracing) |
                              TCI_BIT(trTeControl, InstStallOrOverflow)));
    return wait_bits(base, TCI_BIT(trControl, Enable) | TCI_BIT(trControl, Empty),
                     TCI_BIT(trControl, Empty));
}

__attribute__((weak)) void secondary_main(void)
{
}

void write_host_file(const char *name, const uint8_t *p, uint32_t len)
{
    uintptr_t open_args[3] = { (uintptr_t)name, 5 /* "wb" */, 0 };
    const char *q = name;
    while (*q) {
        q++;
    }
    open_args[2] = (uintptr_t)(q - name);
    long fd = semihost(0x01 /* SYS_OPEN */, open_args);
    uintptr_t wargs[3] = { (uintptr_t)fd, (uintptr_t)p, len };
    check("semihosting open", fd >= 0);
    check("semihosting write", semihost(0x05 /* SYS_WRITE */, wargs) == 0);
    semihost(0x02 /* SYS_CLOSE */, &fd);
}
