// SPDX-License-Identifier: BSD-2-Clause
// Payload traced by the tvtrace plugin (suite 56-tv): every record kind the
// plugin writes happens at least once — integer, compressed, loads and
// stores of each width, AMO and lr/sc, floating point that sets fcsr flags,
// CSR writes, an exception (ecall), an interrupt (machine timer, after wfi),
// mret. It reads marchid once, at the global label tv_read_marchid, so a
// run with another -cpu marchid= differs from this one at exactly that
// instruction. Run with -smp 1 and -icount shift=0,sleep=off: mtime then
// counts instructions only (with sleep=on it also runs in host time while
// QEMU starts, and the mtime the payload reads differs between runs, as
// `tsbi-trace tv compare` showed), so the timer fires at the same
// instruction every run.
#include "lib.h"

#define MSTATUS_FS_INITIAL (1ull << 13)
#define MSTATUS_MIE (1ull << 3)
#define MIE_MTIE (1ull << 7)
#define MCAUSE_ECALL_M 11
#define MCAUSE_MTI ((1ull << 63) | 7)
#define CLINT_MTIMECMP (VIRT_CLINT + 0x4000)
#define CLINT_MTIME (VIRT_CLINT + 0xbff8)

static volatile uint64_t words[8];
static volatile uint64_t ecalls, ticks;

static uint64_t tv_trap(uint64_t mcause, uint64_t mepc)
{
    if (mcause == MCAUSE_ECALL_M) {
        ecalls++;
        return mepc + 4;
    }
    if (mcause == MCAUSE_MTI) {
        ticks++;
        *(volatile uint64_t *)CLINT_MTIMECMP = ~0ull;
        return mepc;
    }
    puts_("FAIL: tv: unexpected trap mcause=");
    puthex(mcause);
    puts_("\n");
    test_failures++;
    poweroff();
    return mepc;
}

int main(void)
{
    uint64_t sum = 0, v, old;

    trap_hook = tv_trap;
    asm volatile("csrs mstatus, %0" ::"r"(MSTATUS_FS_INITIAL));
    for (int i = 0; i < 8; i++) {
        words[i] = (uint64_t)i * 0x0101010101010101ull;
        sum += words[i];
    }
    ((volatile uint8_t *)words)[3] = 0xa5;
    ((volatile uint16_t *)words)[5] = 0xbeef;
    ((volatile uint32_t *)words)[5] = 0x12345678;
    asm volatile("amoadd.d %0, %2, (%1)" : "=r"(old) : "r"(&words[2]), "r"(sum) : "memory");
    asm volatile("1: lr.d %0, (%1)\n sc.d t0, %2, (%1)\n bnez t0, 1b"
                 : "=&r"(v) : "r"(&words[3]), "r"(old) : "t0", "memory");
    double a = (double)sum, z = 0.0, q;
    asm volatile("fdiv.d %0, %1, %2" : "=f"(q) : "f"(a), "f"(z));
    asm volatile("csrw fflags, zero");
    asm volatile("fsqrt.d %0, %1" : "=f"(q) : "f"(-a));
    words[4] = (uint64_t)q;
    asm volatile(".globl tv_read_marchid\ntv_read_marchid: csrr %0, marchid" : "=r"(v));
    words[5] = v;
    asm volatile("ecall" ::: "memory");
    *(volatile uint64_t *)CLINT_MTIMECMP = *(volatile uint64_t *)CLINT_MTIME + 100;
    asm volatile("csrs mie, %0" ::"r"(MIE_MTIE));
    asm volatile("csrs mstatus, %0" ::"r"(MSTATUS_MIE));
    while (!ticks) {
        asm volatile("wfi");
    }
    asm volatile("csrc mstatus, %0" ::"r"(MSTATUS_MIE));
    check("ecall trapped once", ecalls == 1);
    check("the timer interrupt came", ticks == 1);
    check("amoadd and sc stored", words[2] == old + sum && words[3] == old);
    return 0;
}
