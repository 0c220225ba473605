// SPDX-License-Identifier: BSD-2-Clause
// CTR records from the hart's N-Trace encoder on a hart without Smctr
// (README "CTR from the encoder"): while S-mode records S-mode and CTR is
// not frozen, the encoder traces S-mode (BTM) into the firmware's buffer and
// the messages are turned into records by the shared decoding core
// (hw_models/trace/ntrace_core.hpp) through record_transfer/record_trap.
#pragma once
#include "ctr_emul.hpp"
#include "ntrace_core.hpp"

namespace ctr::feed {

// Per-hart decoding state (zero: not feeding). It lives in CTR's per-hart
// slot, carved at boot for the harts present (ctr_hooks.cpp, Slot): the
// caller, which holds the slot already, passes it, so no access looks the
// hart up (README "CTR from the encoder", "Cost"). 80 bytes on both XLENs.
struct State {
    bool possible;      // the hart's encoder can feed CTR
    bool on;            // the feed runs
    bool resync;        // the next data follows a gap: start at a message boundary
    bool time_open;     // cycle counts: inside a stretch of S-mode trace (ts known)
    unsigned slot;      // the trace service's slot of the hart's encoder (trace/topology.hpp)
    unsigned long hartid; // the messages' SRC
    // Cycle counts (TSTAMP in the messages, trace::ctr_cycles): the hart's
    // cycle count at its last message, known while time_open (a stretch
    // starts with a synchronizing message and ends where S-mode traps into
    // M-mode: ProgTraceCorrelation).
    uint64_t ts;
    ntrace::FlowState flow;
};

// Whether hart `hartid`'s encoder can feed CTR (trace::ctr_feed_possible):
// any hart the firmware serves, whatever its ID.
bool possible(unsigned long hartid);
// Hart start: stops a feed left running; whether this hart's encoder can
// feed CTR.
bool hart_init(State &s, unsigned long hartid);
// Before anything that reads or changes CTR state or records itself: turns
// the trace written since the last call into records (nothing unless s.on).
void sync(const Config &c, Hart &h, State &s);
// After CTR state changed: starts or stops the feed as recording S-mode
// (S enabled, not frozen) needs it.
void update(const Config &c, Hart &h, State &s);
// Boot: cycle counts from the encoder's timestamps where it has them
// (/chosen/tsbi,ctr-cycles; README "Cycle counts").
void set_cycles(bool on);
// Whether the feed runs with cycle counts: the records it made are dated up
// to the hart's last trap into M-mode (README "Cycle counts").
bool timed(const State &s);

} // namespace ctr::feed
