/* SPDX-License-Identifier: BSD-2-Clause */
/* XLEN-generic assembler helpers. */
#pragma once
#include "fw_limits.h"
#if __riscv_xlen == 64
#define REG_S sd
#define REG_L ld
#define REGBYTES 8
#define LOG_REGBYTES 3
#else
#define REG_S sw
#define REG_L lw
#define REGBYTES 4
#define LOG_REGBYTES 2
#endif
/* Trap frame (firmware/core/trap.hpp): x0..x31 by register number (the x0
 * slot is unused), then mepc, mstatus and the full-path witness (zeroed by
 * every trap that takes the full path); trap.cpp checks these against
 * TrapFrame with static_asserts. */
#define FRAME_REG(n) ((n) * REGBYTES)
#define FRAME_MEPC (32 * REGBYTES)
#define FRAME_MSTATUS (33 * REGBYTES)
#define FRAME_WITNESS (34 * REGBYTES)
/* Rounded up to the psABI's 16-byte stack alignment (144 bytes on RV32). */
#define FRAME_SIZE ((35 * REGBYTES + 15) & ~15)
/* SBI binary encoding: error codes run from 0 down to the lowest one the
 * spec defines (sbi::kLowestError, checked in trap.cpp). */
#define SBI_LOWEST_ERROR (-14)
/* Smdbltrp's mstatus.MDT (RV64) and mstatush.MDT (RV32), as
 * csr::mstatus_bits::MDT / csr::mstatush_bits::MDT (checked in trap.cpp). */
#define MSTATUS_MDT_SHIFT 42
#define MSTATUSH_MDT (1 << 10)
#define SBI_ERR_NOT_SUPPORTED (-2)
/* mie/mip.MSIP (csr::irq::MSI, checked in init.cpp). */
#define MIP_MSIP (1 << 3)
#define MIP_MEIP (1 << 11)
/* Smaia's miselect/mireg and the IMSIC registers entry.S sets before a hart
 * waits (riscv/aia.hpp, checked in init.cpp). */
#define CSR_MISELECT 0x350
#define CSR_MIREG 0x351
#define AIA_EIDELIVERY 0x70
#define AIA_EITHRESHOLD 0x72
#define AIA_EIE0 0xC0
#define AIA_IPI_IDENTITY 1
/* fw_dynamic_info's magic, "OSBI" (OpenSBI's boot contract; init.cpp). */
#define FW_DYNAMIC_INFO_MAGIC 0x4942534f
/* fw::hartmap::kNoIndex: no hart at this ID in the hart-ID table. */
#define HARTMAP_NO_INDEX 0xffff
/* The SBI extension table entry.S dispatches with (sbi_ext_table,
 * firmware/sbi/ecall.cpp, which checks this layout): SBI_EXT_SLOTS slots
 * {EID, descriptor}, EID e in slot (e ^ (e >> SBI_EXT_HASH_SHIFT)) mod
 * SBI_EXT_SLOTS; the descriptor's handler at EXT_HANDLER. */
#define SBI_EXT_SLOTS 128
#define SBI_EXT_HASH_SHIFT 5
#define SBI_EXT_SLOT_SHIFT (LOG_REGBYTES + 1)
#define EXT_HANDLER REGBYTES
