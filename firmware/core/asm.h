/* SPDX-License-Identifier: BSD-2-Clause */
/* XLEN-generic assembler helpers. */
#pragma once
#if __riscv_xlen == 64
#define REG_S sd
#define REG_L ld
#define REGBYTES 8
#else
#define REG_S sw
#define REG_L lw
#define REGBYTES 4
#endif
/* Trap frame (firmware/core/trap.hpp): x0..x31 by register number (the x0
 * slot is unused), then mepc and mstatus. Keep in sync with TrapFrame. */
#define FRAME_REG(n) ((n) * REGBYTES)
#define FRAME_MEPC (32 * REGBYTES)
#define FRAME_MSTATUS (33 * REGBYTES)
#define FRAME_SIZE (34 * REGBYTES)
#define STACK_SIZE 4096
#define MAX_HARTS 64
