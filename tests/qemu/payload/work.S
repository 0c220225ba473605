/* SPDX-License-Identifier: BSD-2-Clause */
/* Privilege switch and semihosting helpers for the trace payload. */
	.text
/* void run_in_smode(void (*fn)(void)): run fn in S-mode, back in M-mode after */
	.globl run_in_smode
run_in_smode:
	/*
	 * No M-mode interrupt between setting mepc/MPP and the mret: its
	 * handler would overwrite both (the mret would then run again in
	 * U-mode). MPIE=1: M-mode interrupts are enabled again on the way
	 * back (ecall from S, then mret to smode_return).
	 */
	csrci	mstatus, 1 << 3
	li	t0, 1 << 7
	csrs	mstatus, t0
	addi	sp, sp, -16
	sd	ra, 0(sp)
	sd	s0, 8(sp)
	csrr	t0, mhartid
	slli	t0, t0, 3
	la	t1, smode_saved_sp
	add	t1, t1, t0
	sd	sp, 0(t1)
	csrw	mepc, a0
	li	t0, 3 << 11
	csrc	mstatus, t0
	li	t0, 1 << 11
	csrs	mstatus, t0
	la	ra, smode_exit
	mret
smode_exit:
	ecall			/* mcause 9: trap_handler returns to smode_return in M-mode */
	.globl smode_return
smode_return:
	csrr	t0, mhartid
	slli	t0, t0, 3
	la	t1, smode_saved_sp
	add	t1, t1, t0
	ld	sp, 0(t1)
	ld	ra, 0(sp)
	ld	s0, 8(sp)
	addi	sp, sp, 16
	ret

/* long semihost(long op, void *arg) */
	.globl semihost
	.balign 16
semihost:
	.option push
	.option norvc
	slli	zero, zero, 0x1f
	ebreak
	srai	zero, zero, 7
	.option pop
	ret

	.bss
	.balign 8
smode_saved_sp:
	.space 8 * 32	/* up to 32 harts (trace.c MAX_HARTS) */
