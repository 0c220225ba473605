/* SPDX-License-Identifier: BSD-2-Clause */
/* Layouts shared by crt0.S and the C++ side of the payload library. The C++
 * side static_asserts its structs against these numbers. */
#pragma once

#define PL_MAX_HARTS 32
#define PL_STACK_SIZE 16384

/* sp = pl_stacks + (hartid + 1) * PL_STACK_SIZE */
#define SET_STACK(hart)             \
    addi    t0, hart, 1;            \
    li      t1, PL_STACK_SIZE;      \
    mul     t0, t0, t1;             \
    la      sp, pl_stacks;          \
    add     sp, sp, t0

/* Trap frame: x0..x31 by register number (x0 unused, x2 = sp at the trap),
 * then sepc, sstatus, scause, stval. */
#define TF_X(n) ((n) * 8)
#define TF_SEPC (32 * 8)
#define TF_SSTATUS (33 * 8)
#define TF_SCAUSE (34 * 8)
#define TF_STVAL (35 * 8)
#define TF_SIZE (36 * 8)

/* Non-retentive suspend context, one per hart. */
#define RCTX_RA 0
#define RCTX_SP 8
#define RCTX_GP 16
#define RCTX_TP 24
#define RCTX_S(n) (32 + (n) * 8)
#define RCTX_SEEN_A0 128
#define RCTX_SEEN_A1 136
#define RCTX_SEEN_SATP 144
#define RCTX_SEEN_SSTATUS 152
#define RCTX_SIZE 256
