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
    li      t0, PL_MAX_HARTS
    bgeu    a0, t0, .Lextra_entry
    .option push
    .option norelax
    la      gp, __global_pointer$
    .option pop
    mv      tp, a0
    SET_STACK(a0)
    /* Clear .bss (stacks included; we run on one of them, which is still
     * empty). */
    la      t0, __bss_start
    la      t1, __bss_end
1:  bgeu    t0, t1, 2f
    sd      zero, 0(t0)
    addi    t0, t0, 8
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
    sd      a0, 0(t0)
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
    li      t0, PL_MAX_HARTS
    bgeu    a0, t0, .Lbad_secondary
    .option push
    .option norelax
    la      gp, __global_pointer$
    .option pop
    mv      tp, a0
    SET_STACK(a0)
    la      t0, pl_trap_vector
    csrw    stvec, t0
    call    pl_secondary
    j       pl_park
.Lbad_secondary:
    la      t0, pl_bad_entry_a0
    sd      a0, 0(t0)
    j       pl_park

/* Non-retentive suspend: long pl_suspend_nonret(unsigned long type,
 * ResumeCtx *ctx, unsigned long resume_addr, long eid, long fid). Saves the
 * callee-saved state in ctx and calls eid/fid(type, resume_addr, ctx): HSM
 * hart_suspend or SUSP system_suspend. Returns the sbiret error if the call
 * returns, 1 when the hart comes back through pl_resume_entry. */
    .globl pl_suspend_nonret
pl_suspend_nonret:
    sd      ra, RCTX_RA(a1)
    sd      sp, RCTX_SP(a1)
    sd      gp, RCTX_GP(a1)
    sd      tp, RCTX_TP(a1)
    sd      s0, RCTX_S(0)(a1)
    sd      s1, RCTX_S(1)(a1)
    sd      s2, RCTX_S(2)(a1)
    sd      s3, RCTX_S(3)(a1)
    sd      s4, RCTX_S(4)(a1)
    sd      s5, RCTX_S(5)(a1)
    sd      s6, RCTX_S(6)(a1)
    sd      s7, RCTX_S(7)(a1)
    sd      s8, RCTX_S(8)(a1)
    sd      s9, RCTX_S(9)(a1)
    sd      s10, RCTX_S(10)(a1)
    sd      s11, RCTX_S(11)(a1)
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
    sd      a0, RCTX_SEEN_A0(a1)
    sd      a1, RCTX_SEEN_A1(a1)
    sd      a2, RCTX_SEEN_SATP(a1)
    sd      a3, RCTX_SEEN_SSTATUS(a1)
    ld      ra, RCTX_RA(a1)
    ld      sp, RCTX_SP(a1)
    ld      gp, RCTX_GP(a1)
    ld      tp, RCTX_TP(a1)
    ld      s0, RCTX_S(0)(a1)
    ld      s1, RCTX_S(1)(a1)
    ld      s2, RCTX_S(2)(a1)
    ld      s3, RCTX_S(3)(a1)
    ld      s4, RCTX_S(4)(a1)
    ld      s5, RCTX_S(5)(a1)
    ld      s6, RCTX_S(6)(a1)
    ld      s7, RCTX_S(7)(a1)
    ld      s8, RCTX_S(8)(a1)
    ld      s9, RCTX_S(9)(a1)
    ld      s10, RCTX_S(10)(a1)
    ld      s11, RCTX_S(11)(a1)
    la      t0, pl_trap_vector
    csrw    stvec, t0
    li      a0, 1
    ret
.Lbad_resume:
    la      t0, pl_bad_resume_a1
    sd      a1, 0(t0)
    la      t0, pl_bad_resume_a0
    sd      a0, 0(t0)
    j       pl_park

/* S-mode trap vector (direct mode). Payloads never run in U-mode, so the
 * trap always arrives on the current kernel stack. */
    .align  2
    .globl pl_trap_vector
pl_trap_vector:
    addi    sp, sp, -TF_SIZE
    sd      x1, TF_X(1)(sp)
    sd      x3, TF_X(3)(sp)
    sd      x4, TF_X(4)(sp)
    sd      x5, TF_X(5)(sp)
    sd      x6, TF_X(6)(sp)
    sd      x7, TF_X(7)(sp)
    sd      x8, TF_X(8)(sp)
    sd      x9, TF_X(9)(sp)
    sd      x10, TF_X(10)(sp)
    sd      x11, TF_X(11)(sp)
    sd      x12, TF_X(12)(sp)
    sd      x13, TF_X(13)(sp)
    sd      x14, TF_X(14)(sp)
    sd      x15, TF_X(15)(sp)
    sd      x16, TF_X(16)(sp)
    sd      x17, TF_X(17)(sp)
    sd      x18, TF_X(18)(sp)
    sd      x19, TF_X(19)(sp)
    sd      x20, TF_X(20)(sp)
    sd      x21, TF_X(21)(sp)
    sd      x22, TF_X(22)(sp)
    sd      x23, TF_X(23)(sp)
    sd      x24, TF_X(24)(sp)
    sd      x25, TF_X(25)(sp)
    sd      x26, TF_X(26)(sp)
    sd      x27, TF_X(27)(sp)
    sd      x28, TF_X(28)(sp)
    sd      x29, TF_X(29)(sp)
    sd      x30, TF_X(30)(sp)
    sd      x31, TF_X(31)(sp)
    addi    t0, sp, TF_SIZE
    sd      t0, TF_X(2)(sp)
    csrr    t0, sepc
    sd      t0, TF_SEPC(sp)
    csrr    t0, sstatus
    sd      t0, TF_SSTATUS(sp)
    csrr    t0, scause
    sd      t0, TF_SCAUSE(sp)
    csrr    t0, stval
    sd      t0, TF_STVAL(sp)
    mv      a0, sp
    call    pl_trap
    ld      t0, TF_SEPC(sp)
    csrw    sepc, t0
    ld      x1, TF_X(1)(sp)
    ld      x3, TF_X(3)(sp)
    ld      x4, TF_X(4)(sp)
    ld      x5, TF_X(5)(sp)
    ld      x6, TF_X(6)(sp)
    ld      x7, TF_X(7)(sp)
    ld      x8, TF_X(8)(sp)
    ld      x9, TF_X(9)(sp)
    ld      x10, TF_X(10)(sp)
    ld      x11, TF_X(11)(sp)
    ld      x12, TF_X(12)(sp)
    ld      x13, TF_X(13)(sp)
    ld      x14, TF_X(14)(sp)
    ld      x15, TF_X(15)(sp)
    ld      x16, TF_X(16)(sp)
    ld      x17, TF_X(17)(sp)
    ld      x18, TF_X(18)(sp)
    ld      x19, TF_X(19)(sp)
    ld      x20, TF_X(20)(sp)
    ld      x21, TF_X(21)(sp)
    ld      x22, TF_X(22)(sp)
    ld      x23, TF_X(23)(sp)
    ld      x24, TF_X(24)(sp)
    ld      x25, TF_X(25)(sp)
    ld      x26, TF_X(26)(sp)
    ld      x27, TF_X(27)(sp)
    ld      x28, TF_X(28)(sp)
    ld      x29, TF_X(29)(sp)
    ld      x30, TF_X(30)(sp)
    ld      x31, TF_X(31)(sp)
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
#define PAT(n) (0x5A00000000000000 + ((n) << 8) + (n))
#define CHECK_REG(reg, n)       \
    li      a1, PAT(n);         \
    beq     reg, a1, 1f;        \
    li      a1, 1 << (n);       \
    or      a0, a0, a1;         \
1:
#define CHECK_ARG(reg, n, off)  \
    ld      a1, off(t0);        \
    beq     reg, a1, 1f;        \
    li      a1, 1 << (n);       \
    or      a0, a0, a1;         \
1:
    .globl pl_ecall_checked
pl_ecall_checked:
    addi    sp, sp, -176
    sd      ra, 0(sp)
    sd      gp, 8(sp)
    sd      tp, 16(sp)
    sd      s0, 24(sp)
    sd      s1, 32(sp)
    sd      s2, 40(sp)
    sd      s3, 48(sp)
    sd      s4, 56(sp)
    sd      s5, 64(sp)
    sd      s6, 72(sp)
    sd      s7, 80(sp)
    sd      s8, 88(sp)
    sd      s9, 96(sp)
    sd      s10, 104(sp)
    sd      s11, 112(sp)
    sd      a0, 120(sp)
    sd      a1, 128(sp)
    csrrci  t0, sstatus, 2
    sd      t0, 160(sp)
    csrr    t0, stvec
    sd      t0, 136(sp)
    la      t0, pl_ecall_trap
    csrw    stvec, t0
    sd      zero, -16(sp)
    csrw    sscratch, sp
    mv      t0, a0
    ld      a0, 0(t0)
    ld      a1, 8(t0)
    ld      a2, 16(t0)
    ld      a3, 24(t0)
    ld      a4, 32(t0)
    ld      a5, 40(t0)
    ld      a6, 48(t0)
    ld      a7, 56(t0)
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
    sd      a0, 144(sp)
    sd      a1, 152(sp)
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
    ld      t0, 120(sp)
    CHECK_ARG(a2, 12, 16)
    CHECK_ARG(a3, 13, 24)
    CHECK_ARG(a4, 14, 32)
    CHECK_ARG(a5, 15, 40)
    CHECK_ARG(a6, 16, 48)
    CHECK_ARG(a7, 17, 56)
    ld      t1, 136(sp)
    csrw    stvec, t1
    ld      t1, 128(sp)
    ld      t2, 144(sp)
    sd      t2, 0(t1)
    ld      t2, 152(sp)
    sd      t2, 8(t1)
    sd      a0, 16(t1)
    ld      t2, -16(sp)
    sd      t2, 24(t1)
    ld      t2, -24(sp)
    sd      t2, 32(t1)
    ld      t2, -32(sp)
    sd      t2, 40(t1)
    ld      ra, 0(sp)
    ld      gp, 8(sp)
    ld      tp, 16(sp)
    ld      s0, 24(sp)
    ld      s1, 32(sp)
    ld      s2, 40(sp)
    ld      s3, 48(sp)
    ld      s4, 56(sp)
    ld      s5, 64(sp)
    ld      s6, 72(sp)
    ld      s7, 80(sp)
    ld      s8, 88(sp)
    ld      s9, 96(sp)
    ld      s10, 104(sp)
    ld      s11, 112(sp)
    ld      t0, 160(sp)
    andi    t0, t0, 2
    csrs    sstatus, t0
    addi    sp, sp, 176
    ret

    .balign 4
pl_ecall_trap:
    csrrw   sp, sscratch, sp
    sd      t1, -8(sp)
    csrr    t1, scause
    sd      t1, -16(sp)
    csrr    t1, stval
    sd      t1, -24(sp)
    csrr    t1, sepc
    sd      t1, -32(sp)
    addi    t1, t1, 4
    csrw    sepc, t1
    ld      t1, -8(sp)
    csrrw   sp, sscratch, sp
    sret
