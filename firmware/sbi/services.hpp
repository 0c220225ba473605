// SPDX-License-Identifier: BSD-2-Clause
// Core services shared by several SBI extensions (firmware/sbi/*.cpp).
#pragma once
#include "hart.hpp"
#include "hartmask.hpp"
#include "trap.hpp"
#include "sbi/sbi.hpp"

namespace fw {
// `targets`: a bitmap of hart indices (sbi::HartBitmap).
void remote_fence(const FenceRequest &req, const unsigned long *targets);
// `req` on the calling hart alone: no request published, nobody waited for.
void local_fence(const FenceRequest &req);
[[noreturn]] void hart_stop_and_wait();
} // namespace fw

namespace sbi {
// sbi_set_timer for the current hart (TIME and legacy).
void set_timer(uint64_t deadline);
// sbi_send_ipi / remote fences over a validated bitmap.
void send_ipi_many(const HartBitmap &targets);
inline Error targets_from_mask(unsigned long mask, unsigned long base, HartBitmap &out) {
    return hartmask_to_bitmap(mask, base, out, fw::hart_valid_bits, fw::fw_hart_map, fw::hart_words());
}
// Triggers a system reset and waits for it to take effect; returns only if
// it did not (SRST and the legacy shutdown).
void system_reset_and_wait(uint32_t type, uint32_t reason);
// FWFT: this hart's features back to their reset values, unlocked (a hart
// that starts is reset, ext-firmware-features.adoc).
void fwft_hart_reset();
// FWFT DOUBLE_TRAP: whether this hart has Ssdbltrp (menvcfg.DTE), and whether
// S-mode has turned it on.
bool fwft_double_trap_backed();
bool fwft_double_trap_enabled();
// DBTR: this hart's triggers uninstalled and its shared memory disabled (a
// hart that starts begins without S-mode triggers).
void dbtr_hart_reset();
// DBTR: whether S-mode has a trigger installed on this hart (enabled or
// not). Firmware that serves several S-mode instructions in one trap (CTR's
// entry rows, firmware/ctr README "Entry accesses in one trap") must not
// while one is: a trigger on a later instruction, or one counting them,
// would not fire. DBTR's own reader of its state (sbi/dbtr.cpp), inline for
// CTR's trap path, for the hart of index `index` (the caller's, which the
// trap path knows from its frame, fw::frame_index); before DBTR's first
// probe the count is 0.
inline bool dbtr_triggers_in_use(unsigned long index) {
    const HartTriggers &h = fw::blocks[index].dbtr;
    for (unsigned idx = 0; idx < h.count; idx++)
        if (h.state[idx] & dbtr::TS_MAPPED) return true;
    return false;
}
// An address S-mode can start executing at: memory S-mode may access (a DT
// memory range outside the firmware) aligned to IALIGN (2 bytes with the C
// extension, else 4). HSM start/resume and SUSP resume addresses.
bool smode_entry_ok(unsigned long addr);
// Suspends the calling hart (HSM SUSPENDED) until an enabled S-level
// interrupt is pending. Retentive: returns SUCCESS. Non-retentive: resumes
// S-mode at resume_addr with a0 = hart ID, a1 = opaque, satp = 0, SIE = 0
// (HSM "Resume Register State", SUSP "System Resume Register State").
SbiRet suspend_current_hart(bool non_retentive, unsigned long resume_addr, unsigned long opaque);
// SSE: the counter-overflow interrupt reached M-mode; true when SSE took it
// (its PMU overflow event is enabled on this hart).
bool sse_take_lcofi();
// SSE: on the way out of an M-mode interrupt, delivers a ready event into
// the interrupted context.
void sse_trap_exit(fw::TrapFrame &f);
// SSE: S-mode took a trap with SDT set (Ssdbltrp): delivers LOCAL_DOUBLE_TRAP
// into the trapped context; false when S-mode has no enabled handler ready to
// take it, and the trap cannot be served.
bool sse_double_trap(fw::TrapFrame &f);
// SSE: this hart's events back to their reset state (HSM start).
void sse_hart_reset();
// Remote fence with the range checks of ext-rfence.adoc; null `targets`:
// the calling hart alone (no bitmap walked, no request published).
SbiRet rfence(fw::FenceKind kind, const HartBitmap *targets, unsigned long start,
              unsigned long size, unsigned long id);
} // namespace sbi
