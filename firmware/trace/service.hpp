// SPDX-License-Identifier: BSD-2-Clause
// The firmware's trace service: which harts trace with which settings into
// which sink, following harts through HSM stop/start/suspend, the boot-time
// trace selected in /chosen, and the state behind the SBI trace extension
// (firmware/sbi/trace.cpp; the ABI is in firmware/trace/README.md).
#pragma once
#include <stdint.h>
#include "sbi/sbi.hpp"
#include "driver.hpp"
#include "topology.hpp"

namespace trace {

// Bits of the configuration word (trace_configure) and, where they match,
// of the capability word (trace_get_caps). README "SBI trace extension".
namespace cfg {
constexpr uint32_t MODE_MASK = 0x7;         // trTeInstMode: 3 BTM, 6 HTM
constexpr uint32_t TIMESTAMP = 1u << 3;
constexpr uint32_t IMPLICIT_RETURN = 1u << 4;
constexpr unsigned IRET_MODE_SHIFT = 5;     // 2 bits: trTeInstImplicitReturnMode
constexpr uint32_t REPEATED_HISTORY = 1u << 7;
constexpr uint32_t ALL_JUMPS = 1u << 8;
constexpr uint32_t SEQUENTIAL_JUMP = 1u << 9;
constexpr uint32_t EXTEND_ADDR_MSB = 1u << 10;
constexpr uint32_t CONTEXT = 1u << 11;
constexpr unsigned SYNC_MODE_SHIFT = 12;    // 2 bits: trTeInstSyncMode
constexpr unsigned SYNC_MAX_SHIFT = 14;     // 4 bits: trTeInstSyncMax
constexpr unsigned PRIV_SHIFT = 18;         // 4 bits: trace U, S, VU, VS
constexpr uint32_t PRIV_U = 1u << 18, PRIV_S = 1u << 19, PRIV_VU = 1u << 20, PRIV_VS = 1u << 21;
constexpr uint32_t PRIV_MASK = 0xfu << PRIV_SHIFT;
// trTeFormat E-Trace (TCI 1.0) instead of N-Trace: E-Trace 2.0 instruction
// trace, with no other option than the privileges (README "E-Trace").
constexpr uint32_t ETRACE = 1u << 22;
// With ETRACE: E-Trace data trace of every load, store and atomic (trTeDataTracing,
// README "E-Trace").
constexpr uint32_t DATA = 1u << 23;
constexpr uint32_t RESERVED = ~0u << 24;
} // namespace cfg
namespace caps {
constexpr unsigned long BTM = 1u << 0, HTM = 1u << 1;
// bits 3..11 as cfg (bits 6:5: the largest ImplicitReturnMode); bits
// 12..14: trTeInstSyncMode 1..3 available; bit 15: the sink has StopOnWrap
constexpr unsigned SYNC_MODES_SHIFT = 11;
constexpr unsigned long SINK_STOP_ON_WRAP = 1u << 15;
// bits 18..21 as cfg::PRIV_*: privileges that can be traced without M-mode
constexpr unsigned long SINK_SRAM = 1u << 22, SINK_SMEM = 1u << 23;
constexpr unsigned SRC_BITS_SHIFT = 24; // 4 bits: trTeSrcBits of the stream
constexpr unsigned long ETRACE = 1ul << 28; // the encoder speaks E-Trace too (cfg::ETRACE)
constexpr unsigned long DATA = 1ul << 29;   // and has E-Trace data trace (cfg::DATA)
// trace_set_filter (README "FID 7"): an address-range comparator in the
// privilege filter, and Sdtrig trace-on/off triggers (trTeInstTrigEnable)
constexpr unsigned long ADDR_RANGE = 1ul << 30;
constexpr unsigned long TRIGGERS = 1ul << 31;
} // namespace caps
// trace_set_filter flags.
namespace filterflag {
constexpr unsigned long ADDR_RANGE = 1ul << 0, TRIGGERS = 1ul << 1;
constexpr unsigned long RESERVED = ~3ul;
} // namespace filterflag
// trace_set_sink flags.
namespace sinkflag {
constexpr uint32_t SMEM = 1u << 0, STOP_ON_WRAP = 1u << 1;
constexpr uint32_t RESERVED = ~0u << 2;
} // namespace sinkflag

// trace_get_status output (eight little-endian 64-bit words in S-mode memory).
struct Status {
    uint64_t flags;         // STATUS_*
    uint64_t write_pointer; // trRamWP without Wrap (a physical address for SMEM)
    uint64_t bytes;         // bytes of trace in the buffer
    uint64_t start, limit;  // the buffer: trRamStart, trRamLimit (last word)
    uint64_t harts;         // harts with tracing on (bit i = hart hart_base + i)
    uint64_t lost_harts;    // harts whose encoder lost data since its start (as harts)
    uint64_t src_bits;      // trTeSrcBits of the stream; SrcID = hart ID
};
constexpr uint64_t STATUS_SINK_ENABLED = 1, STATUS_WRAPPED = 2, STATUS_LOST = 4,
                   STATUS_SMEM = 8;

using sbi::Error;
// A set of encoder slots (topology.hpp: Topology::encoder[slot].hartid):
// bit slot % 64 of word slot / 64, as many words as the build has slots.
struct HartMask {
    static constexpr unsigned kWords = (kMaxSlots + 63) / 64;
    uint64_t w[kWords] = {};
    constexpr HartMask() = default;
    // Slots 0..63 (a one-word mask, as the host tests write them).
    constexpr HartMask(uint64_t low) : w{low} {}
    void set(unsigned s) { w[s / 64] |= 1ull << (s % 64); }
    bool test(unsigned s) const { return s < kMaxSlots && (w[s / 64] >> (s % 64)) & 1; }
    bool none() const {
        uint64_t a = 0;
        for (uint64_t x : w) a |= x;
        return !a;
    }
};

// The service's state of one slot: carved per hart at boot (hooks.cpp,
// fw::carve_per_hart), so the firmware's region grows with the harts
// present, not with kMaxSlots. Every hart pays for it in the harts' memory
// (Subsystem::per_hart_bytes), trace hardware or not: kept small (88 bytes
// on RV64).
struct SlotState {
    bool usable;     // encoder passed the checks and can hold the stream's SrcBits
    bool configured; // trace_configure was called
    bool wanted;     // S-mode started tracing this hart
    bool running;    // encoder enabled (the hart is not stopped)
    bool lost;       // InstStallOrOverflow seen since the start
    bool ctr;        // the encoder feeds CTR (CTR feed)
    uint64_t ctr_pos; // CTR feed: the stream position decoded up to
    EncoderCaps caps;
    // trace_configure's programming, and in its range and triggers fields
    // trace_set_filter's (kept across a later trace_configure).
    EncoderConfig config;
};

bool available();
Error get_caps(unsigned long hartid, unsigned long &value);
Error configure(const HartMask &harts, uint32_t config);
// trace_set_filter: from the next start of the named harts, trace only
// instructions at lo <= address < hi (ADDR_RANGE) and/or start and stop
// the trace by Sdtrig trace-on/off triggers (TRIGGERS).
Error set_filter(const HartMask &harts, uint64_t lo, uint64_t hi, unsigned long flags);
Error set_sink(uint32_t flags, uint64_t addr, uint64_t size);
Error start(const HartMask &harts);
Error stop(const HartMask &harts);
// Status::harts and lost_harts name harts hart_base .. hart_base + 63.
Error get_status(Status &s, unsigned long hart_base = 0);
// The slot of hart `hartid`'s encoder (topology.hpp), kNoSlot when it has none.
unsigned slot(unsigned long hartid);
// Copies up to `size` bytes of the stopped SRAM's trace, from `offset`
// bytes after the oldest one, to `dst`; `copied` is how many there were.
Error read_sram(uint64_t offset, uint8_t *dst, uint64_t size, uint64_t &copied);

// Boot-time trace header at the start of the reserved buffer (README
// "Trace without an S-mode driver"); the trace follows at kBootHeaderSize.
struct BootHeader {
    uint64_t magic;
    uint32_t version, header_size;
    uint64_t data_start, data_limit, write_pointer;
    uint32_t state, flags;
    uint32_t inst_mode, src_bits, inst_features, te_control;
    uint64_t harts[FW_HARTID_LIMIT / 64]; // traced harts: bit id % 64 of word id / 64
};
static_assert(sizeof(BootHeader) <= 4096, "the header is 4 KiB");
constexpr uint64_t kBootMagic = 0x4543525449425354ull; // "TSBITRCE"
constexpr uint32_t kBootHeaderSize = 4096;
constexpr uint32_t BOOT_TRACING = 1, BOOT_STOPPED = 2;
constexpr uint32_t BOOT_WRAPPED = 1, BOOT_LOST = 2;

// Platform glue the service needs (firmware: firmware/trace/hooks.cpp;
// host tests: their own).
bool hart_is_stopped(unsigned long hartid);   // HSM stopped or suspended
bool s_mode_range_ok(uint64_t addr, uint64_t size);

// What the core calls (subsystem.hpp, defined in hooks.cpp) uses these.
struct BootOptions {
    uint32_t config;         // cfg word; 0: no boot-time trace
    uint64_t buffer, size;   // reserved buffer (header + trace)
};
// After scan_topology: checks and discovers every component. `smode_owner`:
// the components belong to S-mode (reset, the funnels enabled with every
// input, so they pass everything through, and M-mode kept out of what the
// encoders trace unless `allow_mmode`; no service). Returns false when
// there is no usable trace hardware or S-mode owns it.
// `slots`: the state of `room` slots (slots from `room` on are not used);
// `t` and `slots` stay the service's until the next init.
bool init(const Topology &t, bool smode_owner, bool allow_mmode, SlotState *slots, unsigned room);
// With S-mode the owner: the encoders that keep M-mode out of any trace
// (encoder_exclude_mmode; none with `allow_mmode`).
unsigned smode_encoders_without_mmode();
// Starts the boot-time trace of every hart in `harts` (they start tracing
// as they enter S-mode).
Error boot_trace(const BootOptions &o, const HartMask &harts);
void hart_start(unsigned long hartid);
void hart_stop(unsigned long hartid);
void system_reset();
// --- CTR feed (firmware/ctr, README "CTR from the encoder") ---------------
// The encoder of a hart without Smctr feeds that hart's emulated CTR: BTM of
// S-mode into a buffer in the firmware's region (`set_ctr_buffer`, PMP-protected,
// a power of two naturally aligned). While any hart feeds CTR the trace
// service's set_sink and start return DENIED; while S-mode traces (a sink
// is running) no feed starts.
void set_ctr_buffer(uint64_t base, uint64_t size);
// The hart can feed CTR: a usable encoder with BTM whose filter selects
// S-mode alone, an SMEM sink and the buffer.
bool ctr_feed_possible(unsigned long hartid);
// The hart's encoder also counts the hart's cycles (trTsMode Internal Core).
bool ctr_cycles_possible(unsigned long hartid);
// These take the hart's slot (trace::slot(hartid)), found once by the caller.
// `cycles`: with TSTAMP of the hart's cycles in every message, where the
// encoder can (decided by the first hart to start: one framing per stream).
bool ctr_feed_start(unsigned slot, bool cycles);
void ctr_feed_stop(unsigned slot);
// New trace of the hart since its last call, as up to two spans of the
// buffer (the second after the buffer's end), taken with the encoder
// flushed and the sink paused until `ctr_feed_release`. `lost`: data of
// this hart may be missing before the spans (a gap).
struct CtrSpans {
    const uint8_t *a, *b;
    uint64_t na, nb;
    bool lost;
};
bool ctr_feed_collect(unsigned slot, CtrSpans &s);
void ctr_feed_release();
// trTeSrcBits of the stream (the SRC field's width).
unsigned ctr_src_bits();
// The feed's messages carry TSTAMP: the hart's cycles (trTsMode Internal
// Core), absolute in synchronizing messages, relative otherwise.
bool ctr_cycles();

// NAPOT-able regions covering the components (for PMP), at most `max`.
unsigned mmode_regions(Region *out, unsigned max);

} // namespace trace
