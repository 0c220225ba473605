// SPDX-License-Identifier: BSD-2-Clause
// Firmware-side CTR entry points beyond those in hooks.hpp. The core calls
// them once wired (README "What the core must call"); until then CTR works
// without the features they bring.
#pragma once
#include "ctr_emul.hpp"

// Default register layouts offered to S-mode (README "Profiles"); the device
// tree's /chosen/tsbi,ctr-profile overrides it at boot.
#ifndef TSBI_CTR_PROFILE
#define TSBI_CTR_PROFILE ctr::VIEW_BOTH
#endif

namespace hooks {
// An M-level interrupt the core does not handle itself (mcause code without
// the interrupt bit). Returns true when CTR handled it (an LCOFI armed for
// LCOFIFRZ emulation); the core then returns from the trap.
bool ctr_m_interrupt(unsigned long code);
// After a non-retentive HSM suspend, before returning to S-mode.
void ctr_hart_resume();
// Device-tree fix-up before hand-off: lists ssctr/sscsrind on harts where
// CTR is emulated, so S-mode (Linux) finds it.
void ctr_fdt_fixup(void *fdt);
} // namespace hooks
