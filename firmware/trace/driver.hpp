// SPDX-License-Identifier: BSD-2-Clause
// Trace Control Interface 1.0 sequences for one component at a time: reset
// with the Active handshake, implementation checks, capability discovery by
// WARL write and read-back, programming, enabling and flushing. Register
// access goes through trace::mmio, so the host tests run this code against
// a register-level fake.
#pragma once
#include <stdint.h>

namespace trace {

// Reads of a status bit before a handshake or flush counts as timed out
// (TCI 1.0 leaves the time to the implementation; QEMU's model answers
// within a few reads, a remote hart's encoder within one of its blocks).
constexpr unsigned kPollBudget = 1000000;

// tr??Control = 0, wait Active = 0, tr??Control = Active, wait Active = 1
// (TCI 1.0 "Reset"). False on a timeout.
bool reset(uint64_t base);
// The component's type, tr??Impl CompType, after a reset (TCI 1.0: while
// Active = 0 other registers may be inaccessible); 0 when the reset times
// out or VerMajor is not 1. The component is left Active.
unsigned component_type(uint64_t base);
// Keeps M-mode out of everything the encoder traces from now until the
// machine resets, whoever programs it: the project QEMU encoder's vendor
// control trTeVendorControl.NoMmode (tci_regs.def; TCI 1.0 itself has no
// such control). False when the encoder does not have it.
bool encoder_exclude_mmode(uint64_t base);
// tr??Impl: version 1.x of the component type `comptype`; an encoder must
// also speak N-Trace 1.x (trTeProtocolMajor with trTeFormat = N-Trace).
bool impl_ok(uint64_t base, unsigned comptype);

// What an encoder can do, discovered by WARL write and read-back after a
// reset (never assumed from the model).
struct EncoderCaps {
    bool btm, htm;
    uint32_t features;     // writable trTeInstFeatures bits below SrcID
    unsigned src_bits_max; // largest trTeSrcBits that sticks
    uint32_t sync_modes;   // bit m: trTeInstSyncMode m sticks
    unsigned filters;      // trTeInstFilters bits that stick (filter count)
    uint32_t priv_choices; // ChoicePrivilege bits filter 0 can match (0: none)
    bool context, timestamp, stall;
    bool core_timestamp;   // trTsMode Internal Core (the hart's cycles) with trTsCount sticks
    bool etrace;           // trTeFormat E-Trace sticks (E-Trace 2.0 protocol)
    bool data;             // with E-Trace, trTeDataImplemented and trTeDataTracing
    bool comparators;      // comparator 0 takes an address range and filter 0 uses it
    bool triggers;         // trTeInstTrigEnable sticks (Sdtrig trace-on/off actions)
};
bool discover_encoder(uint64_t base, EncoderCaps &c);

// An encoder's programming (TCI 1.0 "Trace Encoder Control Interface").
struct EncoderConfig {
    uint32_t control;     // trTeControl without Active/Enable/InstTracing
    uint32_t features;    // trTeInstFeatures, SrcID and SrcBits included
    uint32_t priv_filter; // ChoicePrivilege of filter 0; 0: no filter
    uint32_t ts_control;  // trTsControl
    uint32_t data_control; // trTeDataControl (E-Trace data trace; 0: off)
    // Filter 0 also requires lo <= iaddr < hi (comparator 0: P >= lo && S < hi)
    bool range = false;
    // trTeInstTrigEnable, and enabled without InstTracing: triggers start it
    bool triggers = false;
    uint64_t range_lo = 0, range_hi = 0;
};
// Reset, program, then Enable and InstTracing (the order of TCI 1.0
// "Enabling and Disabling"). False on a timeout or a setting that did not
// stick (the caller validated it against the capabilities).
bool encoder_start(uint64_t base, const EncoderConfig &c);
// Clears InstTracing and Enable and waits for Empty: every message the
// encoder made has left it. `lost` reports trTeInstStallOrOverflow (and
// trTeDataStallOrOverflow).
bool encoder_stop(uint64_t base, bool &lost);
// Hands on every message the encoder holds while it keeps its programming:
// InstTracing = 0, wait for Empty, InstTracing = 1 (tracing restarts with a
// synchronizing message). `lost` reports and clears trTeInstStallOrOverflow.
bool encoder_flush(uint64_t base, bool &lost);
// trTeInstStallOrOverflow: the encoder lost data or stalled since its start.
bool encoder_lost(uint64_t base);

// Funnels: reset, all inputs on, the timestamp unit counting (the
// top-level funnel) or forwarding (lower ones), enabled.
bool funnel_start(uint64_t base, bool top);
// Enable = 0 and wait for Empty (flushes queued messages to the output).
bool disable_and_flush(uint64_t base);

struct SinkCaps {
    bool sram, smem, stop_on_wrap;
    uint64_t sram_limit; // last SRAM word address (Start is 0)
    uint64_t smem_mask;  // address bits trRamStart/Limit can hold
};
bool discover_sink(uint64_t base, SinkCaps &c);

struct SinkConfig {
    bool smem, stop_on_wrap;
    uint64_t start, limit; // word addresses; limit is the last word (inclusive)
};
bool sink_start(uint64_t base, const SinkConfig &c);
// trRamEnable: the sink is capturing (StopOnWrap clears it when full).
bool sink_enabled(uint64_t base);
// The write pointer (Wrap bit cleared) and whether the buffer wrapped.
uint64_t sink_write_pointer(uint64_t base, bool &wrapped);
// Pauses capture (Enable = 0, wait for Empty: a partial word is written
// padded with idle bytes), returns the write pointer and whether it wrapped
// since the last call, and clears Wrap (writing trRamWPLow does).
bool sink_pause(uint64_t base, uint64_t &wp, bool &wrapped);
// Capture again from the write pointer.
void sink_resume(uint64_t base);
// While paused: the write pointer to `wp` (a word address), Wrap cleared.
void sink_restart_at(uint64_t base, uint64_t wp);
// Copies SRAM words starting at word address `from` into `out` (`words`
// words); the sink must be disabled (trRamRP/trRamData).
void sram_read(uint64_t base, uint64_t from, uint32_t *out, unsigned words);

} // namespace trace
