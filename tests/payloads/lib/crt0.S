/* SPDX-License-Identifier: BSD-2-Clause */
/* Entry points of every test payload: the boot entry the firmware jumps to
 * (a0 = hartid, a1 = FDT), the secondary entry passed to HSM hart_start, the
 * resume entry of a non-retentive HSM suspend, the S-mode trap vector and the
 * register-preservation probe. Layouts shared with C++ are defined in
 * payload_asm.h. */
#include "payload_asm.h"

    .section .text.entry, "ax"
    .globl _start
_start:
    /* Only one hart may enter here (the boot hart); a second entrant is a
     * firmware bug that the boot hart reports from pl_extra_entries. */
    la      t0, pl_boot_claim
    li      t1, 1
    amoswap.w.aq t1, t1, (t0)
    bnez    t1, .Lextra_entry
    li      t0, PL_MAX_HARTID
    bgeu    a0, t0, .Lextra_entry
    .option push
    .option norelax
    la      gp, __global_pointer$
    .option pop
    mv      tp, a0
    SET_STACK(zero)
    /* Clear .bss (the stacks are not in it: link.ld). */
    la      t0, __bss_start
    la      t1, __bss_end
1:  bgeu    t0, t1, 2f
    REG_S   zero, 0(t0)
    addi    t0, t0, SZREG
    j       1b
2:  la      t0, pl_trap_vector
    csrw    stvec, t0
    call    pl_boot
    j       pl_park

.Lextra_entry:
    la      t0, pl_extra_entries
    li      t1, 1
    amoadd.w t1, t1, (t0)
    la      t0, pl_extra_entry_hartid
    REG_S   a0, 0(t0)
    .globl pl_park
pl_park:
    csrw    sie, zero
1:  wfi
    j       1b

/* HSM hart_start target: a0 = hartid, a1 = opaque. satp and sstatus are
 * captured before anything can change them. */
    .text
    .align  2
    .globl pl_secondary_entry
pl_secondary_entry:
    csrr    a2, satp
    csrr    a3, sstatus
    li      t0, PL_MAX_HARTID
    bgeu    a0, t0, .Lbad_secondary
    la      t0, pl_hart_slot
    slli    t1, a0, 1
    add     t0, t0, t1
    lhu     t2, 0(t0)
    beqz    t2, .Lbad_secondary
    .option push
    .option norelax
    la      gp, __global_pointer$
    .option pop
    mv      tp, a0
    SET_STACK(t2)
    la      t0, pl_trap_vector
    csrw    stvec, t0
    call    pl_secondary
    j       pl_park
.Lbad_secondary:
    la      t0, pl_bad_entry_a0
    REG_S   a0, 0(t0)
    j       pl_park

/* Non-retentive suspend: long pl_suspend_nonret(unsigned long type,
 * ResumeCtx *ctx, unsigned long resume_addr, long eid, long fid). Saves the
 * callee-saved state in ctx and calls eid/fid(type, resume_addr, ctx): HSM
 * hart_suspend or SUSP system_suspend. Returns the sbiret error if the call
 * returns, 1 when the hart comes back through pl_resume_entry. */
    .globl pl_suspend_nonret
pl_suspend_nonret:
    REG_S   ra, RCTX_RA(a1)
    REG_S   sp, RCTX_SP(a1)
    REG_S   gp, RCTX_GP(a1)
    REG_S   tp, RCTX_TP(a1)
    REG_S   s0, RCTX_S(0)(a1)
    REG_S   s1, RCTX_S(1)(a1)
    REG_S   s2, RCTX_S(2)(a1)
    REG_S   s3, RCTX_S(3)(a1)
    REG_S   s4, RCTX_S(4)(a1)
    REG_S   s5, RCTX_S(5)(a1)
    REG_S   s6, RCTX_S(6)(a1)
    REG_S   s7, RCTX_S(7)(a1)
    REG_S   s8, RCTX_S(8)(a1)
    REG_S   s9, RCTX_S(9)(a1)
    REG_S   s10, RCTX_S(10)(a1)
    REG_S   s11, RCTX_S(11)(a1)
    mv      t0, a1
    mv      a1, a2
    mv      a2, t0
    mv      a7, a3
    mv      a6, a4
    ecall
    ret

/* Resume after a non-retentive suspend: a0 = hartid, a1 = opaque, which the
 * library sets to this hart's ResumeCtx. Anything else is recorded and the
 * hart parks (the waiting side reports it). */
    .align  2
    .globl pl_resume_entry
pl_resume_entry:
    csrr    a2, satp
    csrr    a3, sstatus
    la      t0, pl_resume_ctx
    li      t1, PL_MAX_HARTS * RCTX_SIZE
    sub     t2, a1, t0
    bgeu    t2, t1, .Lbad_resume
    andi    t1, t2, RCTX_SIZE - 1
    bnez    t1, .Lbad_resume
    REG_S   a0, RCTX_SEEN_A0(a1)
    REG_S   a1, RCTX_SEEN_A1(a1)
    REG_S   a2, RCTX_SEEN_SATP(a1)
    REG_S   a3, RCTX_SEEN_SSTATUS(a1)
    REG_L   ra, RCTX_RA(a1)
    REG_L   sp, RCTX_SP(a1)
    REG_L   gp, RCTX_GP(a1)
    REG_L   tp, RCTX_TP(a1)
    REG_L   s0, RCTX_S(0)(a1)
    REG_L   s1, RCTX_S(1)(a1)
    REG_L   s2, RCTX_S(2)(a1)
    REG_L   s3, RCTX_S(3)(a1)
    REG_L   s4, RCTX_S(4)(a1)
    REG_L   s5, RCTX_S(5)(a1)
    REG_L   s6, RCTX_S(6)(a1)
    REG_L   s7, RCTX_S(7)(a1)
    REG_L   s8, RCTX_S(8)(a1)
    REG_L   s9, RCTX_S(9)(a1)
    REG_L   s10, RCTX_S(10)(a1)
    REG_L   s11, RCTX_S(11)(a1)
    la      t0, pl_trap_vector
    csrw    stvec, t0
    li      a0, 1
    ret
.Lbad_resume:
    la      t0, pl_bad_resume_a1
    REG_S   a1, 0(t0)
    la      t0, pl_bad_resume_a0
    REG_S   a0, 0(t0)
    j       pl_park

/* S-mode trap vector (direct mode). Payloads never run in U-mode, so the
 * trap always arrives on the current kernel stack. */
    .align  2
    .globl pl_trap_vector
pl_trap_vector:
    addi    sp, sp, -TF_SIZE
    REG_S   x1, TF_X(1)(sp)
    REG_S   x3, TF_X(3)(sp)
    REG_S   x4, TF_X(4)(sp)
    REG_S   x5, TF_X(5)(sp)
    REG_S   x6, TF_X(6)(sp)
    REG_S   x7, TF_X(7)(sp)
    REG_S   x8, TF_X(8)(sp)
    REG_S   x9, TF_X(9)(sp)
    REG_S   x10, TF_X(10)(sp)
    REG_S   x11, TF_X(11)(sp)
    REG_S   x12, TF_X(12)(sp)
    REG_S   x13, TF_X(13)(sp)
    REG_S   x14, TF_X(14)(sp)
    REG_S   x15, TF_X(15)(sp)
    REG_S   x16, TF_X(16)(sp)
    REG_S   x17, TF_X(17)(sp)
    REG_S   x18, TF_X(18)(sp)
    REG_S   x19, TF_X(19)(sp)
    REG_S   x20, TF_X(20)(sp)
    REG_S   x21, TF_X(21)(sp)
    REG_S   x22, TF_X(22)(sp)
    REG_S   x23, TF_X(23)(sp)
    REG_S   x24, TF_X(24)(sp)
    REG_S   x25, TF_X(25)(sp)
    REG_S   x26, TF_X(26)(sp)
    REG_S   x27, TF_X(27)(sp)
    REG_S   x28, TF_X(28)(sp)
    REG_S   x29, TF_X(29)(sp)
    REG_S   x30, TF_X(30)(sp)
    REG_S   x31, TF_X(31)(sp)
    addi    t0, sp, TF_SIZE
    REG_S   t0, TF_X(2)(sp)
    csrr    t0, sepc
    REG_S   t0, TF_SEPC(sp)
    csrr    t0, sstatus
    REG_S   t0, TF_SSTATUS(sp)
    csrr    t0, scause
    REG_S   t0, TF_SCAUSE(sp)
    csrr    t0, stval
    REG_S   t0, TF_STVAL(sp)
    mv      a0, sp
    call    pl_trap
    REG_L   t0, TF_SEPC(sp)
    csrw    sepc, t0
    REG_L   x1, TF_X(1)(sp)
    REG_L   x3, TF_X(3)(sp)
    REG_L   x4, TF_X(4)(sp)
    REG_L   x5, TF_X(5)(sp)
    REG_L   x6, TF_X(6)(sp)
    REG_L   x7, TF_X(7)(sp)
    REG_L   x8, TF_X(8)(sp)
    REG_L   x9, TF_X(9)(sp)
    REG_L   x10, TF_X(10)(sp)
    REG_L   x11, TF_X(11)(sp)
    REG_L   x12, TF_X(12)(sp)
    REG_L   x13, TF_X(13)(sp)
    REG_L   x14, TF_X(14)(sp)
    REG_L   x15, TF_X(15)(sp)
    REG_L   x16, TF_X(16)(sp)
    REG_L   x17, TF_X(17)(sp)
    REG_L   x18, TF_X(18)(sp)
    REG_L   x19, TF_X(19)(sp)
    REG_L   x20, TF_X(20)(sp)
    REG_L   x21, TF_X(21)(sp)
    REG_L   x22, TF_X(22)(sp)
    REG_L   x23, TF_X(23)(sp)
    REG_L   x24, TF_X(24)(sp)
    REG_L   x25, TF_X(25)(sp)
    REG_L   x26, TF_X(26)(sp)
    REG_L   x27, TF_X(27)(sp)
    REG_L   x28, TF_X(28)(sp)
    REG_L   x29, TF_X(29)(sp)
    REG_L   x30, TF_X(30)(sp)
    REG_L   x31, TF_X(31)(sp)
    addi    sp, sp, TF_SIZE
    sret

/* void pl_ecall_checked(const unsigned long in[8], PlEcallOutcome *out):
 * see payload.hpp. in = a0..a5, a6 (FID), a7 (EID). Every other register
 * holds a pattern across the ecall; out gets a0, a1, the mask of changed
 * registers and scause/stval/sepc of an exception the firmware redirected
 * to S-mode during the call (scause 0 if none). stvec points at
 * pl_ecall_trap for the call: it records the exception and resumes after
 * the ecall without touching any other register. S-mode interrupts are off
 * for the window (tp and gp hold patterns); sp is kept in sscratch, which
 * M-mode firmware has no reason to touch, and the trap entry uses the
 * stack below it. */
#define PAT(n) (PAT_TOP + ((n) << 8) + (n))
#define CHECK_REG(reg, n)       \
    li      a1, PAT(n);         \
    beq     reg, a1, 1f;        \
    li      a1, 1 << (n);       \
    or      a0, a0, a1;         \
1:
#define CHECK_ARG(reg, n, off)  \
    REG_L   a1, off(t0);        \
    beq     reg, a1, 1f;        \
    li      a1, 1 << (n);       \
    or      a0, a0, a1;         \
1:
    .globl pl_ecall_checked
pl_ecall_checked:
    addi    sp, sp, -22 * SZREG
    REG_S   ra, 0(sp)
    REG_S   gp, SZREG(sp)
    REG_S   tp, 2 * SZREG(sp)
    REG_S   s0, 3 * SZREG(sp)
    REG_S   s1, 4 * SZREG(sp)
    REG_S   s2, 5 * SZREG(sp)
    REG_S   s3, 6 * SZREG(sp)
    REG_S   s4, 7 * SZREG(sp)
    REG_S   s5, 8 * SZREG(sp)
    REG_S   s6, 9 * SZREG(sp)
    REG_S   s7, 10 * SZREG(sp)
    REG_S   s8, 11 * SZREG(sp)
    REG_S   s9, 12 * SZREG(sp)
    REG_S   s10, 13 * SZREG(sp)
    REG_S   s11, 14 * SZREG(sp)
    REG_S   a0, 15 * SZREG(sp)
    REG_S   a1, 16 * SZREG(sp)
    csrrci  t0, sstatus, 2
    REG_S   t0, 20 * SZREG(sp)
    csrr    t0, stvec
    REG_S   t0, 17 * SZREG(sp)
    la      t0, pl_ecall_trap
    csrw    stvec, t0
    REG_S   zero, -2 * SZREG(sp)
    csrw    sscratch, sp
    mv      t0, a0
    REG_L   a0, 0(t0)
    REG_L   a1, SZREG(t0)
    REG_L   a2, 2 * SZREG(t0)
    REG_L   a3, 3 * SZREG(t0)
    REG_L   a4, 4 * SZREG(t0)
    REG_L   a5, 5 * SZREG(t0)
    REG_L   a6, 6 * SZREG(t0)
    REG_L   a7, 7 * SZREG(t0)
    li      ra, PAT(1)
    li      gp, PAT(3)
    li      tp, PAT(4)
    li      t1, PAT(6)
    li      t2, PAT(7)
    li      s0, PAT(8)
    li      s1, PAT(9)
    li      s2, PAT(18)
    li      s3, PAT(19)
    li      s4, PAT(20)
    li      s5, PAT(21)
    li      s6, PAT(22)
    li      s7, PAT(23)
    li      s8, PAT(24)
    li      s9, PAT(25)
    li      s10, PAT(26)
    li      s11, PAT(27)
    li      t3, PAT(28)
    li      t4, PAT(29)
    li      t5, PAT(30)
    li      t6, PAT(31)
    li      t0, PAT(5)
    .globl pl_ecall_insn
pl_ecall_insn:
    ecall
    /* Back on our stack first (sscratch holds it; the firmware's sp goes to
     * sscratch). */
    csrrw   sp, sscratch, sp
    REG_S   a0, 18 * SZREG(sp)
    REG_S   a1, 19 * SZREG(sp)
    csrr    a1, sscratch
    li      a0, 0
    beq     sp, a1, 1f
    li      a0, 1 << 2
1:
    CHECK_REG(ra, 1)
    CHECK_REG(gp, 3)
    CHECK_REG(tp, 4)
    CHECK_REG(t0, 5)
    CHECK_REG(t1, 6)
    CHECK_REG(t2, 7)
    CHECK_REG(s0, 8)
    CHECK_REG(s1, 9)
    CHECK_REG(s2, 18)
    CHECK_REG(s3, 19)
    CHECK_REG(s4, 20)
    CHECK_REG(s5, 21)
    CHECK_REG(s6, 22)
    CHECK_REG(s7, 23)
    CHECK_REG(s8, 24)
    CHECK_REG(s9, 25)
    CHECK_REG(s10, 26)
    CHECK_REG(s11, 27)
    CHECK_REG(t3, 28)
    CHECK_REG(t4, 29)
    CHECK_REG(t5, 30)
    CHECK_REG(t6, 31)
    REG_L   t0, 15 * SZREG(sp)
    CHECK_ARG(a2, 12, 2 * SZREG)
    CHECK_ARG(a3, 13, 3 * SZREG)
    CHECK_ARG(a4, 14, 4 * SZREG)
    CHECK_ARG(a5, 15, 5 * SZREG)
    CHECK_ARG(a6, 16, 6 * SZREG)
    CHECK_ARG(a7, 17, 7 * SZREG)
    REG_L   t1, 17 * SZREG(sp)
    csrw    stvec, t1
    REG_L   t1, 16 * SZREG(sp)
    REG_L   t2, 18 * SZREG(sp)
    REG_S   t2, 0(t1)
    REG_L   t2, 19 * SZREG(sp)
    REG_S   t2, SZREG(t1)
    REG_S   a0, 2 * SZREG(t1)
    REG_L   t2, -2 * SZREG(sp)
    REG_S   t2, 3 * SZREG(t1)
    REG_L   t2, -3 * SZREG(sp)
    REG_S   t2, 4 * SZREG(t1)
    REG_L   t2, -4 * SZREG(sp)
    REG_S   t2, 5 * SZREG(t1)
    REG_L   ra, 0(sp)
    REG_L   gp, SZREG(sp)
    REG_L   tp, 2 * SZREG(sp)
    REG_L   s0, 3 * SZREG(sp)
    REG_L   s1, 4 * SZREG(sp)
    REG_L   s2, 5 * SZREG(sp)
    REG_L   s3, 6 * SZREG(sp)
    REG_L   s4, 7 * SZREG(sp)
    REG_L   s5, 8 * SZREG(sp)
    REG_L   s6, 9 * SZREG(sp)
    REG_L   s7, 10 * SZREG(sp)
    REG_L   s8, 11 * SZREG(sp)
    REG_L   s9, 12 * SZREG(sp)
    REG_L   s10, 13 * SZREG(sp)
    REG_L   s11, 14 * SZREG(sp)
    REG_L   t0, 20 * SZREG(sp)
    andi    t0, t0, 2
    csrs    sstatus, t0
    addi    sp, sp, 22 * SZREG
    ret

    .balign 4
pl_ecall_trap:
    csrrw   sp, sscratch, sp
    REG_S   t1, -SZREG(sp)
    csrr    t1, scause
    REG_S   t1, -2 * SZREG(sp)
    csrr    t1, stval
    REG_S   t1, -3 * SZREG(sp)
    csrr    t1, sepc
    REG_S   t1, -4 * SZREG(sp)
    addi    t1, t1, 4
    csrw    sepc, t1
    REG_L   t1, -SZREG(sp)
    csrrw   sp, sscratch, sp
    sret
