// SPDX-License-Identifier: BSD-2-Clause
// Self-hosted trace model test (draft Smstrcn/Ssstrcn + Ssamb, the project
// QEMU with -cpu rv64,smstrcn=true; hw_models/trace/strc_regs.h): M-mode,
// no firmware. Checks the CSRs' WARL and reset values, the enables the
// draft names (menvcfg.STRCS, mstateen0.STRC gating S-mode, LAMBI in
// mip/mie/mideleg), then traces itself through the CSRs into a buffer
// written by the AMB (menvcfg.STRCS=0: M-mode privilege, physical
// addresses) and writes the buffer to the host file trace.bin through
// semihosting; tests/suites/50-qemu.sh decodes it and compares it with the
// insnlog plugin's record between the labels strc_on and strc_off.
// Configuration word at 0x80ff0000 (set by the runner with -device loader):
//   CASE_ABSENT: the CPU has no Smstrcn: every CSR is an illegal instruction
//   CASE_SM: trace S and M (mstrcctl.S|M), 64 KiB buffer
//   CASE_S: trace S only (M-mode is filtered out)
//   CASE_WRAP: trace S and M into a 4 KiB buffer that wraps (WRAP=1)
//   CASE_BMI: as CASE_SM, 16 KiB, with a buffer management interrupt at half full
//   CASE_SOF: as CASE_WRAP with stop-on-full: the buffer keeps the head
//   CASE_SU: trace S and U (mstrcctl.S|U), the workload also in U-mode
#include "lib.h"
#include "workload.h"
#include "strc_regs.h"

#define CFG ((volatile uint32_t *)0x80ff0000UL)
#define CFG_MAGIC 0x53545243u     // "STRC"
#define CASE_ABSENT 0
#define CASE_SM 1
#define CASE_S 2
#define CASE_WRAP 3
#define CASE_BMI 4
#define CASE_SOF 5
#define CASE_SU 6

#define MCAUSE_INT (1UL << 63)
#define EXC_ILLEGAL 2
#define EXC_ECALL_U 8
#define EXC_ECALL_S 9
#define MSTATUS_MPP_M (3UL << 11)

#define csr_read(n) ({ unsigned long v_; __asm__ volatile("csrr %0, " #n : "=r"(v_)); v_; })
#define csr_write(n, v) __asm__ volatile("csrw " #n ", %0" ::"r"((unsigned long)(v)))
#define xstr(s) str(s)
#define str(s) #s
// The CSR numbers from the shared table, as assembler operands.
#define MSTRCCTL 0x346
#define SSTRCCTL 0x146
#define SAMBCS 0x147
#define SAMBADDR 0x148
_Static_assert(MSTRCCTL == STRC_CSR_MSTRCCTL && SSTRCCTL == STRC_CSR_SSTRCCTL &&
               SAMBCS == STRC_CSR_SSTRCAMBCS && SAMBADDR == STRC_CSR_SSTRCAMBADDR,
               "strc_regs.h numbers");

void run_in_smode(void (*fn)(void));
extern char smode_return[];
// run_in_umode(fn): fn in U-mode (MPP=0), back with an ecall from U (as
// work.S's run_in_smode does for S-mode).
void run_in_umode(void (*fn)(void));
extern char umode_return[];
unsigned long umode_saved_sp;
__asm__(".text\n"
        ".globl run_in_umode\nrun_in_umode:\n"
        "  csrci mstatus, 1 << 3\n"
        "  li t0, 1 << 7\n  csrs mstatus, t0\n"
        "  addi sp, sp, -16\n  sd ra, 0(sp)\n  sd s0, 8(sp)\n"
        "  la t1, umode_saved_sp\n  sd sp, 0(t1)\n"
        "  csrw mepc, a0\n"
        "  li t0, 3 << 11\n  csrc mstatus, t0\n"
        "  la ra, umode_exit\n"
        "  mret\n"
        "umode_exit:\n  ecall\n"
        ".globl umode_return\numode_return:\n"
        "  la t1, umode_saved_sp\n  ld sp, 0(t1)\n"
        "  ld ra, 0(sp)\n  ld s0, 8(sp)\n  addi sp, sp, 16\n  ret\n");

#define BUF_SIZE 0x10000UL
static uint8_t buf[BUF_SIZE] __attribute__((aligned(BUF_SIZE)));
static uint8_t dump[BUF_SIZE];

static volatile unsigned illegal_traps, lambi_seen;
static volatile unsigned long sink;

static uint64_t on_trap(uint64_t mcause, uint64_t mepc)
{
    if (mcause == EXC_ILLEGAL) {
        illegal_traps++;
        return mepc + 4;
    }
    if (mcause == EXC_ECALL_S) {
        // back from run_in_smode: continue in M-mode
        __asm__ volatile("csrs mstatus, %0" ::"r"(MSTATUS_MPP_M));
        return (uint64_t)(uintptr_t)smode_return;
    }
    if (mcause == EXC_ECALL_U) {
        __asm__ volatile("csrs mstatus, %0" ::"r"(MSTATUS_MPP_M));
        return (uint64_t)(uintptr_t)umode_return;
    }
    puts_("FAIL: strc: unexpected trap ");
    puthex(mcause);
    puts_(" at ");
    puthex(mepc);
    puts_("\n");
    test_failures++;
    poweroff();
    return mepc;
}

// ---- workload: calls, returns, a jump table, indirect calls, S-mode -------
static void workload_once(unsigned i)
{
    unsigned long x = fib(8 + (i & 1));
    for (unsigned j = 0; j < 12; j++) {
        x = ops[(i + j) & 3](x);
        x = dispatch(i * 7 + j, x);
    }
    sink += x;
}

static void smode_work(void)
{
    for (unsigned i = 0; i < 3; i++) {
        workload_once(i);
    }
}

static int with_umode;

static void workload(unsigned rounds)
{
    for (unsigned r = 0; r < rounds; r++) {
        workload_once(r);
        run_in_smode(smode_work);
        if (with_umode) {
            run_in_umode(smode_work);
        }
    }
}

// ---- S-mode access to the S-level CSRs ------------------------------------
static void smode_read_sstrcctl(void)
{
    __asm__ volatile("csrr t0, " xstr(SSTRCCTL) ::: "t0");
    __asm__ volatile("csrr t0, " xstr(SAMBCS) ::: "t0");
}

// ---- registers --------------------------------------------------------------
static void check_absent(void)
{
    illegal_traps = 0;
    __asm__ volatile("csrr t0, " xstr(MSTRCCTL) ::: "t0");
    __asm__ volatile("csrr t0, " xstr(SSTRCCTL) ::: "t0");
    __asm__ volatile("csrr t0, " xstr(SAMBCS) ::: "t0");
    __asm__ volatile("csrr t0, " xstr(SAMBADDR) ::: "t0");
    check_eq("strc: without smstrcn the four CSRs are illegal instructions", illegal_traps, 4);
    csr_write(mideleg, 1UL << STRC_IRQ_LAMBI);
    check_eq("strc: without smstrcn mideleg.LAMBI stays 0",
             csr_read(mideleg) & (1UL << STRC_IRQ_LAMBI), 0);
    csr_write(0x7a8, ~0UL);
    check_eq("strc: without smstrcn hcontext (mcontext with H) keeps 14 bits", csr_read(0x7a8), 0x3fff);
    csr_write(0x7a8, 0);
}

static void check_registers(void)
{
    const unsigned long stored = STRCCTL_IT | STRCCTL_CEN | STRCCTL_STEN | STRCCTL_SMOD |
                                 STRCCTL_SMAX | STRCCTL_ESJ | STRCCTL_EIR | STRCCTL_ERH |
                                 STRCCTL_EAJ | STRCCTL_EAM | STRCCTL_TSEN | STRCCTL_U |
                                 STRCCTL_S | STRCCTL_M;

    check_eq("strc: mstrcctl resets to 0 (EMPTY=1)", csr_read(0x346), STRCCTL_EMPTY);
    check_eq("strc: sstrcambcs resets to 0 (EMPTY=1, TRV=0)", csr_read(0x147), SAMBCS_EMPTY);
    check_eq("strc: sstrcambaddr resets to 0", csr_read(0x148), 0);
    // All ones but EN: the implemented fields; NTA, ITEN, EBP, ETC read 0
    // (not implemented), STOF ignores a 1, EMPTY reads 1.
    csr_write(0x346, ~STRCCTL_EN);
    check_eq("strc: mstrcctl WARL (all ones but EN)", csr_read(0x346), stored | STRCCTL_EMPTY);
    check_eq("strc: sstrcctl is mstrcctl without M (bit 63 reads 0)", csr_read(0x146),
             (stored | STRCCTL_EMPTY) & ~STRCCTL_M);
    csr_write(0x146, 0);
    check_eq("strc: sstrcctl writes leave mstrcctl.M alone", csr_read(0x346),
             STRCCTL_M | STRCCTL_EMPTY);
    csr_write(0x346, 0);
    // vsstrcctl: its own U and S (traced as VU and VS), the other fields
    // those of sstrcctl (smstrc.adoc "vsstrcctl")
    csr_write(0x246, STRCCTL_U | STRCCTL_S | STRCCTL_IT | STRCCTL_M);
    check_eq("strc: vsstrcctl holds its own U/S, M reads 0", csr_read(0x246),
             STRCCTL_U | STRCCTL_S | STRCCTL_IT | STRCCTL_EMPTY);
    check_eq("strc: mstrcctl shares vsstrcctl's other fields, not its U/S", csr_read(0x346),
             STRCCTL_IT | STRCCTL_EMPTY);
    csr_write(0x246, 0);
    // sambcs: SIZE is WARL 0..20 (all ones reads the maximum)
    csr_write(0x147, SAMBCS_SIZE);
    check_eq("strc: sambcs.SIZE all ones reads 20 (4 GiB)",
             (csr_read(0x147) & SAMBCS_SIZE) >> SAMBCS_SIZE_SHIFT, SAMBCS_SIZE_MAX);
    csr_write(0x147, ~SAMBCS_EN);
    check_eq("strc: sambcs WARL (all ones but EN: TRV 0)", csr_read(0x147),
             SAMBCS_TF | SAMBCS_BMI | ((unsigned long)SAMBCS_SIZE_MAX << SAMBCS_SIZE_SHIFT) |
                 SAMBCS_TFPTR | SAMBCS_BMITH | SAMBCS_BMIEN | SAMBCS_SOF | SAMBCS_WRAP |
                 SAMBCS_EMPTY);
    csr_write(0x147, 0);
    // The enables the draft names
    csr_write(0x30a, STRC_MENVCFG_STRCS);
    check_eq("strc: menvcfg.STRCS (bit 58) is writable", csr_read(0x30a) & STRC_MENVCFG_STRCS,
             STRC_MENVCFG_STRCS);
    csr_write(0x30a, 0);
    csr_write(mideleg, 1UL << STRC_IRQ_LAMBI);
    check_eq("strc: mideleg.LAMBI is writable", csr_read(mideleg) & (1UL << STRC_IRQ_LAMBI),
             1UL << STRC_IRQ_LAMBI);
    csr_write(mideleg, 0);
    csr_write(mie, 1UL << STRC_IRQ_LAMBI);
    check_eq("strc: mie.LAMBI is writable", csr_read(mie) & (1UL << STRC_IRQ_LAMBI),
             1UL << STRC_IRQ_LAMBI);
    csr_write(mie, 0);
    csr_write(mip, 1UL << STRC_IRQ_LAMBI);
    check_eq("strc: mip.LAMBI is writable", csr_read(mip) & (1UL << STRC_IRQ_LAMBI),
             1UL << STRC_IRQ_LAMBI);
    csr_write(mip, 0);
    // hcontext holds at least 22 bits (smstrc.adoc "hcontext"; mcontext is
    // hcontext on a hart with H, which rv64 has)
    csr_write(0x7a8, ~0UL);
    check_eq("strc: hcontext holds 22 bits", csr_read(0x7a8), (1UL << 22) - 1);
    csr_write(0x7a8, 0);
    // mstateen0.STRC gates S-mode: illegal while 0, accessible when 1
    csr_write(0x30c, 0);
    illegal_traps = 0;
    run_in_smode(smode_read_sstrcctl);
    check_eq("strc: S-mode access with mstateen0.STRC=0 is illegal", illegal_traps, 2);
    csr_write(0x30c, STRC_MSTATEEN0_STRC);
    check_eq("strc: mstateen0.STRC (bit 53) is writable", csr_read(0x30c) & STRC_MSTATEEN0_STRC,
             STRC_MSTATEEN0_STRC);
    illegal_traps = 0;
    run_in_smode(smode_read_sstrcctl);
    check_eq("strc: S-mode access with mstateen0.STRC=1 works", illegal_traps, 0);
    csr_write(0x30c, 0);
}

// ---- trace ------------------------------------------------------------------
// The enabling and disabling CSR writes, at the labels the runner compares
// between: tracing starts with the instruction after the enabling write
// (strc_on) and ends with the disabling write (strc_off), as with the
// Trace Control Interface (hw_models/qemu/README.md, "Self-hosted trace").
void strc_write(unsigned long ctl);
void strc_stop(unsigned long ctl);
__asm__(".text\n"
        ".globl strc_write\nstrc_write:\n"
        "  csrw " xstr(MSTRCCTL) ", a0\n"
        ".globl strc_on\nstrc_on:\n"
        "  ret\n"
        ".globl strc_stop\nstrc_stop:\n"
        ".globl strc_off\nstrc_off:\n"
        "  csrw " xstr(MSTRCCTL) ", a0\n"
        "  ret\n");

static void run_trace(unsigned which)
{
    // 4 KiB (wraps), 16 KiB (about 10 KiB of trace: past half full), 64 KiB
    int small = which == CASE_WRAP || which == CASE_SOF;
    unsigned size_code = small ? 0 : which == CASE_BMI ? 2 : 4;
    unsigned long size = 0x1000UL << size_code, cs, ctl, off, i;
    unsigned rounds = small ? 12 : 6;
    int ok;

    // STRCS=0: the AMB writes with M-mode privilege at physical addresses
    csr_write(0x30a, 0);
    for (i = 0; i < size; i++) {
        buf[i] = 0;
    }
    csr_write(0x148, (uintptr_t)buf);
    cs = SAMBCS_EN | ((unsigned long)size_code << SAMBCS_SIZE_SHIFT);
    if (which == CASE_BMI) {
        cs |= SAMBCS_BMIEN | (2UL << SAMBCS_BMITH_SHIFT);     // half full
    }
    if (which == CASE_SOF) {
        cs |= SAMBCS_SOF;
    }
    csr_write(0x147, cs);
    check("strc: TRV=1 after sambcs.EN=1 (the page is translated)",
          (csr_read(0x147) & SAMBCS_TRV) != 0);
    ctl = STRCCTL_EN | STRCCTL_IT | STRCCTL_S;
    if (which == CASE_SU) {
        ctl |= STRCCTL_U;
        with_umode = 1;
    } else if (which != CASE_S) {
        ctl |= STRCCTL_M;
    }
    if (which == CASE_WRAP) {
        // A synchronizing message at least every 2^(2+4) messages (SMOD 1
        // counts messages): the oldest one left in the wrapped buffer is
        // where a decoder starts.
        ctl |= (1UL << STRCCTL_SMOD_SHIFT) | (2UL << STRCCTL_SMAX_SHIFT);
    }
    strc_write(ctl);
    workload(rounds);
    strc_stop(ctl & ~STRCCTL_EN);
    ok = 0;
    for (i = 0; i < 1000000 && !ok; i++) {
        ok = (csr_read(0x346) & STRCCTL_EMPTY) && (csr_read(0x147) & SAMBCS_EMPTY);
    }
    check("strc: EN=0 flushes (mstrcctl.EMPTY=1, sambcs.EMPTY=1)", ok);
    cs = csr_read(0x147);
    csr_write(0x147, cs & ~SAMBCS_EN);
    if (which == CASE_SOF) {
        // Full and stopped: WRAP, sambaddr at the base, the rest dropped
        // (STOF), whole messages only: the buffer ends with a message's last
        // byte (MSEO=11) or with idle bytes (0xFF) after it
        check("strc: stop-on-full: WRAP=1", (cs & SAMBCS_WRAP) != 0);
        check_eq("strc: stop-on-full: sambaddr holds the base", csr_read(0x148), (uintptr_t)buf);
        check("strc: stop-on-full: the rest was dropped (STOF=1)", (csr_read(0x346) & STRCCTL_STOF) != 0);
        check_eq("strc: stop-on-full: the buffer ends at a message end or in idle bytes",
                 buf[size - 1] & 3, 3);
        check_eq("strc: no translation fault (TF=0)", cs & SAMBCS_TF, 0);
        csr_write(0x346, 0);
        check_eq("strc: STOF clears on a write of 0", csr_read(0x346) & STRCCTL_STOF, 0);
        write_host_file("trace.bin", buf, size);
        return;
    }
    check_eq("strc: no trace was lost (STOF=0)", csr_read(0x346) & STRCCTL_STOF, 0);
    check_eq("strc: no translation fault (TF=0)", cs & SAMBCS_TF, 0);
    off = (csr_read(0x148) - (uintptr_t)buf) & (size - 1);
    check("strc: sambaddr stays inside the buffer",
          ((csr_read(0x148) - (uintptr_t)buf) & ~(size - 1)) == 0);
    if (which == CASE_WRAP) {
        check("strc: a 4 KiB buffer wraps (WRAP=1)", (cs & SAMBCS_WRAP) != 0);
        // oldest first: from sambaddr to the end, then from the base
        for (i = 0; i < size; i++) {
            dump[i] = buf[(off + i) & (size - 1)];
        }
        write_host_file("trace.bin", dump, size);
    } else {
        check_eq("strc: the buffer did not wrap (WRAP=0)", cs & SAMBCS_WRAP, 0);
        check("strc: the AMB holds trace", off > 0);
        if (which == CASE_BMI) {
            check("strc: BMI and LAMBI pending past half full",
                  off >= size / 2 && (cs & SAMBCS_BMI) &&
                      (csr_read(mip) & (1UL << STRC_IRQ_LAMBI)));
        } else {
            check_eq("strc: no buffer management interrupt (BMI=0)", cs & SAMBCS_BMI, 0);
        }
        write_host_file("trace.bin", buf, off);
    }
    puts_("strc: trace bytes ");
    putdec(which == CASE_WRAP ? size : off);
    puts_("\n");
}

int main(void)
{
    unsigned which = CFG[0] == CFG_MAGIC ? CFG[1] : CASE_SM;

    trap_hook = on_trap;
    // S-mode may access everything (PMP entry 0: NAPOT over the whole space)
    __asm__ volatile("csrw pmpaddr0, %0" ::"r"(~0UL));
    __asm__ volatile("csrw pmpcfg0, %0" ::"r"(0x1fUL));
    test_prefix = "";
    if (which == CASE_ABSENT) {
        check_absent();
    } else {
        check_registers();
        run_trace(which);
    }
    poweroff();
    return 0;
}
