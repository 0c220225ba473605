/* SPDX-License-Identifier: BSD-2-Clause */
/* Entry for every hart: a stack per hart, hart 0 runs main(), the others
   run secondary_main() (the test decides what they do). */
	.section .text.start, "ax"
	.globl _start
_start:
	csrr	a0, mhartid
	la	sp, __stack_base
	addi	t0, a0, 1
	slli	t0, t0, 14
	add	sp, sp, t0
	la	t0, trap_entry
	csrw	mtvec, t0
	bnez	a0, 1f
	la	t0, __bss_start
	la	t1, __bss_end
2:	bgeu	t0, t1, 3f
	sd	zero, 0(t0)
	addi	t0, t0, 8
	j	2b
3:	la	t0, boot_fdt
	sd	a1, 0(t0)
	call	main
	call	poweroff
1:	call	secondary_main
4:	wfi
	j	4b

/* Trap entry: save caller-saved registers, call trap_handler(mcause, mepc),
   whose return value becomes mepc. */
	.align 2
	.globl trap_entry
trap_entry:
	addi	sp, sp, -144
	sd	ra, 0(sp)
	sd	t0, 8(sp)
	sd	t1, 16(sp)
	sd	t2, 24(sp)
	sd	a0, 32(sp)
	sd	a1, 40(sp)
	sd	a2, 48(sp)
	sd	a3, 56(sp)
	sd	a4, 64(sp)
	sd	a5, 72(sp)
	sd	a6, 80(sp)
	sd	a7, 88(sp)
	sd	t3, 96(sp)
	sd	t4, 104(sp)
	sd	t5, 112(sp)
	sd	t6, 120(sp)
	csrr	a0, mcause
	csrr	a1, mepc
	call	trap_handler
	csrw	mepc, a0
	ld	ra, 0(sp)
	ld	t0, 8(sp)
	ld	t1, 16(sp)
	ld	t2, 24(sp)
	ld	a0, 32(sp)
	ld	a1, 40(sp)
	ld	a2, 48(sp)
	ld	a3, 56(sp)
	ld	a4, 64(sp)
	ld	a5, 72(sp)
	ld	a6, 80(sp)
	ld	a7, 88(sp)
	ld	t3, 96(sp)
	ld	t4, 104(sp)
	ld	t5, 112(sp)
	ld	t6, 120(sp)
	addi	sp, sp, 144
	mret

	.section .data
	.balign 8
	.globl boot_fdt
boot_fdt:
	.dword	0
