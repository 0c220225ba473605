// SPDX-License-Identifier: BSD-2-Clause
// Payload traced by the tvtrace plugin (suite 56-tv): every record kind the
// plugin writes happens at least once — integer, compressed, loads and
// stores of each width, AMO and lr/sc, floating point that sets fcsr flags,
// CSR writes, exceptions (ecall from M and from S; an illegal instruction
// in S-mode, delegated to S), an interrupt (machine timer, after wfi), mret
// to M and to S, sret. It reads marchid once, at the global label tv_read_marchid, so a
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

#define MCAUSE_ECALL_S 9
#define MSTATUS_MPP_MASK (3ull << 11)
#define MEDELEG_ILLEGAL (1ull << 2)

static volatile uint64_t words[8];
uint64_t tv_saved_ra;
void tv_enter_smode(void);
void tv_smode_done(void);

/* A visit to S-mode: tv_enter_smode (M) mrets to tv_smode (S), which takes a
 * delegated illegal-instruction exception (an M-only CSR read; its S handler
 * skips it with sret), then ecalls into M-mode; tv_trap returns from that to
 * tv_smode_done in M-mode, which returns to the caller. PMP entry 0 opens all
 * memory to S-mode (QEMU denies S-mode access when no entry matches). */
asm(".text\n"
    ".globl tv_enter_smode\n"
    "tv_enter_smode:\n"
    "  la t0, tv_saved_ra\n"
    "  sd ra, 0(t0)\n"
    "  li t0, -1\n"
    "  csrw pmpaddr0, t0\n"
    "  li t0, 0x1f\n"
    "  csrw pmpcfg0, t0\n"
    "  csrs medeleg, 4\n"
    "  la t0, tv_stvec\n"
    "  csrw stvec, t0\n"
    "  li t0, 0x1800\n"
    "  csrc mstatus, t0\n"
    "  li t0, 0x800\n"
    "  csrs mstatus, t0\n"
    "  la t0, tv_smode\n"
    "  csrw mepc, t0\n"
    "  mret\n"
    "tv_smode:\n"
    "  li a0, 5\n"
    ".globl tv_s_illegal\n"
    "tv_s_illegal:\n"
    "  csrr a1, mscratch\n"
    "  ecall\n"
    "  .align 2\n"
    "tv_stvec:\n"
    "  csrr t0, sepc\n"
    "  addi t0, t0, 4\n"
    "  csrw sepc, t0\n"
    "  sret\n"
    ".globl tv_smode_done\n"
    "tv_smode_done:\n"
    "  la t0, tv_saved_ra\n"
    "  ld ra, 0(t0)\n"
    "  ret\n");
static volatile uint64_t ecalls, ticks;

static uint64_t tv_trap(uint64_t mcause, uint64_t mepc)
{
    if (mcause == MCAUSE_ECALL_M) {
        ecalls++;
        return mepc + 4;
    }
    if (mcause == MCAUSE_ECALL_S) {
        /* Back to M-mode, at tv_smode_done. */
        asm volatile("csrs mstatus, %0" ::"r"(MSTATUS_MPP_MASK));
        ecalls++;
        return (uint64_t)(uintptr_t)tv_smode_done;
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
    tv_enter_smode();
    *(volatile uint64_t *)CLINT_MTIMECMP = *(volatile uint64_t *)CLINT_MTIME + 100;
    asm volatile("csrs mie, %0" ::"r"(MIE_MTIE));
    asm volatile("csrs mstatus, %0" ::"r"(MSTATUS_MIE));
    while (!ticks) {
        asm volatile("wfi");
    }
    asm volatile("csrc mstatus, %0" ::"r"(MSTATUS_MIE));
    check("ecall trapped twice (M-mode, S-mode)", ecalls == 2);
    check("the timer interrupt came", ticks == 1);
    check("amoadd and sc stored", words[2] == old + sum && words[3] == old);
    return 0;
}
