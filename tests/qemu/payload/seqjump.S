/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Register jumps whose target the instruction retired just before loaded
 * (N-Trace 1.0 "Sequential Jump Optimization"), for the trace validation:
 * auipc + jalr as a call through ra and through t0, as a jump linking a
 * register that is no link register, as a plain jump; one auipc/addi/jr
 * that is not sequential; and one auipc + jalr pair split by a page
 * boundary, which QEMU translates in two blocks and so reports uninferable
 * (the encoder may choose that; the decoder sees it from the message).
 * lui/c.lui cannot form the payload's addresses (0x80000000 and up
 * sign-extend on RV64); the decoder's doctest covers them.
 *
 * unsigned long seqjump_work(unsigned long x): returns x + 16.
 */
	.option push
	.option norvc
	.option norelax
	.text
	.balign 4
	.globl seqjump_work
seqjump_work:
	addi	sp, sp, -16
	sd	ra, 0(sp)
1:	auipc	ra, %pcrel_hi(sj_inc_ra)	/* call through ra */
	jalr	ra, %pcrel_lo(1b)(ra)
2:	auipc	t2, %pcrel_hi(sj_inc_t0)	/* call through t0 */
	jalr	t0, %pcrel_lo(2b)(t2)
3:	auipc	t1, %pcrel_hi(sj_inc_a1)	/* jump linking a1 */
	jalr	a1, %pcrel_lo(3b)(t1)
4:	auipc	t1, %pcrel_hi(sj_plain)		/* not sequential: addi between */
	addi	t1, t1, %pcrel_lo(4b)
	jr	t1
	unimp
sj_plain:
5:	auipc	t1, %pcrel_hi(sj_page_end)	/* plain jump */
	jalr	zero, %pcrel_lo(5b)(t1)
	unimp
sj_inc_ra:
	addi	a0, a0, 1
	ret
sj_inc_t0:
	addi	a0, a0, 3
	jr	t0
sj_inc_a1:
	addi	a0, a0, 5
	jr	a1

	/* the auipc is the last instruction of a page, its jump the first of the next */
	.balign 4096
	.skip 4096 - 8
sj_page_end:
	addi	a0, a0, 7
6:	auipc	t1, %pcrel_hi(sj_done)
	jalr	zero, %pcrel_lo(6b)(t1)
	unimp
sj_done:
	ld	ra, 0(sp)
	addi	sp, sp, 16
	ret
	.option pop
