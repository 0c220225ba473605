// SPDX-License-Identifier: BSD-2-Clause
// Self-hosted trace (the draft Smstrcn/Ssstrcn with Ssamb,
// hw_models/trace/strc_regs.h): whether S-mode gets the hart's trace CSRs,
// and the per-hart M-mode enables that hand them over (README
// "Self-hosted trace").
#pragma once

namespace trace::strc {
// Decided once at cold boot from /chosen: `boot_trace` (tsbi,trace holds
// every encoder from the hand-off) and tsbi,strc = "off" keep the CSRs
// from S-mode. Sets fw::strc_offered, which the core's device-tree fix-up
// reads.
void decide(const void *fdt, bool boot_trace);
// Every hart with Smstrcn, at boot and at each HSM start: mstrcctl (with M,
// which only M-mode can set) and the buffer reset, mstateen0.STRC opened
// when offered and closed otherwise.
void hart_init();
} // namespace trace::strc
