/* SPDX-License-Identifier: BSD-2-Clause */
/* Boot-cost probe (README.md here): the first instruction of the next stage
 * reads the time CSR, which under QEMU -icount shift=0 counts 100
 * instructions a tick from reset (instret would be simpler, but a firmware's
 * PMU may reset it, ours does). Secondary harts do the same at their HSM
 * start address. */
    .option norvc
    .section .text.entry, "ax"
    .globl _start
_start:
    rdtime  t0
    la      t1, boot_ticks
    sd      t0, 0(t1)
    la      sp, stack_top
    call    bootcost_main
1:  wfi
    j       1b

    .text
    .globl secondary_entry
secondary_entry:
    rdtime  t0
    la      t1, sec_ticks
    sd      t0, 0(t1)
    fence   rw, rw
    /* Tell the boot hart (sbi_send_ipi to it, mask in a1 = opaque = its
     * hart ID), then stop. */
    li      a7, 0x735049            /* IPI */
    li      a6, 0
    li      a0, 1
    /* a1 = boot hart ID (the opaque argument) */
    ecall
    li      a7, 0x48534D            /* HSM */
    li      a6, 1                   /* hart_stop */
    ecall
2:  wfi
    j       2b

    .bss
    .align 12
    .space 4096
stack_top:
