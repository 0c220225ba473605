// SPDX-License-Identifier: BSD-2-Clause
// CTR records from the hart's N-Trace encoder on a hart without Smctr
// (README "CTR from the encoder"): while S-mode records S-mode and CTR is
// not frozen, the encoder traces S-mode (BTM) into the firmware's buffer and
// the messages are turned into records by the shared decoding core
// (hw_models/trace/ntrace_core.hpp) through record_transfer/record_trap.
#pragma once
#include "ctr_emul.hpp"

namespace ctr::feed {

// Per-hart decoding state (zero: not feeding).
struct State;

// Whether hart `hartid`'s encoder can feed CTR: the trace service can
// (trace::ctr_feed_possible) and the feed keeps state for the hart (hart
// IDs below 64, README "CTR from the encoder").
bool possible(unsigned long hartid);
// Hart start: stops a feed left running; whether this hart's encoder can
// feed CTR.
bool hart_init(unsigned long hartid);
// Before anything that reads or changes CTR state or records itself: turns
// the trace written since the last call into records.
void sync(const Config &c, Hart &h);
// After CTR state changed: starts or stops the feed as recording S-mode
// (S enabled, not frozen) needs it.
void update(const Config &c, Hart &h);
// Whether the feed runs on the calling hart.
bool active();
// Boot: cycle counts from the encoder's timestamps where it has them
// (/chosen/tsbi,ctr-cycles; README "Cycle counts").
void set_cycles(bool on);
// Whether it runs with cycle counts: the records it made are dated up to
// the hart's last trap into M-mode (README "Cycle counts").
bool timed();

} // namespace ctr::feed
