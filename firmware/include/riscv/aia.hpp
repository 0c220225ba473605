// SPDX-License-Identifier: BSD-2-Clause
// RISC-V Advanced Interrupt Architecture 1.0 (ratified 2023): the IMSIC and
// APLIC register fields the firmware uses, written once. Section numbers are
// the specification's.
#pragma once
#include <stdint.h>

namespace aia {

// Major interrupt numbers the controllers' device-tree nodes name in
// interrupts-extended (privileged spec mip/mie).
constexpr unsigned kIrqSupervisorExternal = 9, kIrqMachineExternal = 11;

// --- IMSIC (chapter 3) ---------------------------------------------------
// Each interrupt file is one 4 KiB page (3.5); its first register is
// seteipnum_le, the little-endian doorbell that makes an identity pending.
constexpr unsigned kPageShift = 12;
constexpr uint32_t kSeteipnumLe = 0x000;
// The identity M-mode's IPIs use, as OpenSBI does (imsic.c IMSIC_IPI_ID):
// identity 0 is never an interrupt (3.1), 1 is the lowest, so the highest
// priority.
constexpr uint32_t kIpiIdentity = 1;
// The default group index shift of the device-tree binding riscv,imsics
// (the bit of an address above which group numbers start).
constexpr uint32_t kGroupShiftDefault = 24;
// Registers reached through miselect/mireg (3.8, table "interrupt file
// registers").
namespace iselect {
constexpr unsigned EIDELIVERY = 0x70, EITHRESHOLD = 0x72, EIP0 = 0x80, EIE0 = 0xC0;
}
namespace eidelivery { // 3.8.1
constexpr unsigned long DISABLED = 0, ENABLED = 1;
}

// --- APLIC (chapter 4) ---------------------------------------------------
// Register offsets of one interrupt domain (4.5, table "APLIC memory-mapped
// control region"). Source i (1..1023) has sourcecfg[i] and target[i] at
// the base + 4 * (i - 1).
namespace aplic_reg {
constexpr uint32_t DOMAINCFG = 0x0000, SOURCECFG = 0x0004, MMSICFGADDR = 0x1BC0,
                   MMSICFGADDRH = 0x1BC4, SMSICFGADDR = 0x1BC8, SMSICFGADDRH = 0x1BCC,
                   CLRIE = 0x1F00, TARGET = 0x3004, IDC = 0x4000;
constexpr uint32_t IDC_SIZE = 32; // 4.8: one interrupt delivery control per hart
constexpr uint32_t IDELIVERY = 0x00, IFORCE = 0x04, ITHRESHOLD = 0x08;
constexpr unsigned kMaxSources = 1023;
} // namespace aplic_reg
namespace domaincfg { // 4.5.1
constexpr uint32_t IE = 1u << 8, DM = 1u << 2;
}
namespace sourcecfg { // 4.5.2
constexpr uint32_t D = 1u << 10, CHILD_INDEX_MASK = 0x3ff;
}
namespace msicfgaddrh { // 4.5.4
constexpr uint32_t L = 1u << 31;
constexpr unsigned HHXS_SHIFT = 24, LHXS_SHIFT = 20, HHXW_SHIFT = 16, LHXW_SHIFT = 12;
constexpr uint32_t HHXS_MASK = 0x1f, LHXS_MASK = 0x7, HHXW_MASK = 0x7, LHXW_MASK = 0xf,
                   BASE_PPN_HI_MASK = 0xfff;
} // namespace msicfgaddrh
namespace target { // 4.5.16: direct delivery mode's priority field
constexpr uint32_t IPRIO_DEFAULT = 1;
}
namespace idc { // 4.8.1
constexpr uint32_t IDELIVERY_OFF = 0, ITHRESHOLD_MASK_ALL = 1;
}

} // namespace aia
