// SPDX-License-Identifier: BSD-2-Clause
// CTR's descriptor in the core's list of subsystems (core/subsystems.hpp):
// the calls of include/subsystem.hpp it answers, defined in ctr_hooks.cpp.
#pragma once
#include "../include/subsystem.hpp"
#include "ctr_spec.hpp"

// Default register layouts offered to S-mode (README "Profiles"); the device
// tree's /chosen/tsbi,ctr-profile overrides it at boot.
#ifndef TSBI_CTR_PROFILE
#define TSBI_CTR_PROFILE ctr::VIEW_BOTH
#endif

namespace ctr::subsystem {
void cold_init(const void *fdt, unsigned long next_addr);
// Lists ssctr/sscsrind on harts where CTR is emulated, so S-mode (Linux) finds it.
void fdt_fixup(void *fdt);
// At boot and again at each HSM start: CTR starts afresh.
void hart_init();
// Re-opens CTR to S-mode after a non-retentive suspend.
void hart_resume();
fw::CsrResult read_csr(unsigned csr, unsigned mode, bool virt, unsigned long &value);
fw::CsrResult write_csr(unsigned csr, unsigned mode, bool virt, unsigned long value);
// siselect writes and sireg, sireg2, sireg3 reads from S-mode (an entry read).
bool csr_fast(fw::TrapFrame &f, uint32_t insn, unsigned long mstatus);
fw::CsrResult sctrclr(unsigned mode, bool virt);
// An LCOFI armed for LCOFIFRZ emulation (README "Freeze").
bool m_interrupt(unsigned long code);
void record_trap(unsigned long from_pc, unsigned long to_pc, unsigned long cause,
                 unsigned from_priv, unsigned to_priv);
unsigned long per_hart_bytes(const void *fdt);
// What fdt_fixup adds to the device tree at most (ctr_dt.hpp annotate_room).
unsigned long fdt_room(const void *fdt);
} // namespace ctr::subsystem

namespace ctr {
inline constexpr fw::Subsystem kSubsystem = {
    .name = "ctr",
    .cold_init = &subsystem::cold_init,
    .fdt_fixup = &subsystem::fdt_fixup,
    .hart_init = &subsystem::hart_init,
    .hart_restart = &subsystem::hart_init,
    .hart_resume = &subsystem::hart_resume,
    .read_csr = &subsystem::read_csr,
    .write_csr = &subsystem::write_csr,
    .csr_fast = &subsystem::csr_fast,
    .csr_fast_first = ind::siselect, // siselect, sireg, sireg2, sireg3
    .csr_fast_count = 4,
    .sctrclr = &subsystem::sctrclr,
    .m_interrupt = &subsystem::m_interrupt,
    .record_trap = &subsystem::record_trap,
    .per_hart_bytes = &subsystem::per_hart_bytes,
    .fdt_room = &subsystem::fdt_room,
};
} // namespace ctr
