/* SPDX-License-Identifier: BSD-2-Clause */
/* Layouts shared by crt0.S and the C++ side of the payload library. The C++
 * side static_asserts its structs against these numbers. */
#pragma once

/* Harts a payload serves (QEMU virt's -smp limit) and the hart IDs they may
 * have (sparse, below this). Per-hart state is by hart index: the position
 * of the ID in platform().hartids, ascending. */
#define PL_MAX_HARTS 512
#define PL_MAX_HARTID 4096

/* XLEN: the same sources build RV64 and RV32 payloads (PL_XLEN in build.mk).
 * PAT_TOP is the top byte of pl_ecall_checked's register pattern.
 * PL_ASM_XLEN_MACROS: SZREG, REG_S and REG_L for a payload's top-level
 * asm() (asm(PL_ASM_XLEN_MACROS) once, before the first use). */
#if __riscv_xlen == 64
#define SZREG 8
#define REG_S sd
#define REG_L ld
#define PAT_TOP 0x5A00000000000000
#define PL_ASM_XLEN_MACROS ".equ SZREG, 8\n.macro REG_S r, m\nsd \\r, \\m\n.endm\n" \
                           ".macro REG_L r, m\nld \\r, \\m\n.endm\n"
#else
#define SZREG 4
#define REG_S sw
#define REG_L lw
#define PAT_TOP 0x5A000000
#define PL_ASM_XLEN_MACROS ".equ SZREG, 4\n.macro REG_S r, m\nsw \\r, \\m\n.endm\n" \
                           ".macro REG_L r, m\nlw \\r, \\m\n.endm\n"
#endif
#define PL_STACK_SIZE 16384

/* sp = pl_stacks + (slot + 1) * PL_STACK_SIZE. Slot 0 is the boot hart's
 * (it enters before the device tree tells the indices), slot index + 1
 * another hart's: pl_hart_slot[hartid] (0: no hart the payload serves). */
#define SET_STACK(slot)             \
    addi    t0, slot, 1;            \
    li      t1, PL_STACK_SIZE;      \
    mul     t0, t0, t1;             \
    la      sp, pl_stacks;          \
    add     sp, sp, t0

/* Trap frame: x0..x31 by register number (x0 unused, x2 = sp at the trap),
 * then sepc, sstatus, scause, stval. */
#define TF_X(n) ((n) * SZREG)
#define TF_SEPC (32 * SZREG)
#define TF_SSTATUS (33 * SZREG)
#define TF_SCAUSE (34 * SZREG)
#define TF_STVAL (35 * SZREG)
#define TF_SIZE (36 * SZREG)

/* Non-retentive suspend context, one per hart. */
#define RCTX_RA 0
#define RCTX_SP SZREG
#define RCTX_GP (2 * SZREG)
#define RCTX_TP (3 * SZREG)
#define RCTX_S(n) ((4 + (n)) * SZREG)
#define RCTX_SEEN_A0 (16 * SZREG)
#define RCTX_SEEN_A1 (17 * SZREG)
#define RCTX_SEEN_SATP (18 * SZREG)
#define RCTX_SEEN_SSTATUS (19 * SZREG)
#define RCTX_SIZE 256
