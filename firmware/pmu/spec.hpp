// SPDX-License-Identifier: BSD-2-Clause
// SBI PMU extension encodings (SBI spec, chapter "Performance Monitoring Unit
// Extension", ext-pmu.adoc), written once and shared by the firmware service,
// the host tests and the S-mode payloads. No behaviour here, only numbers.
#pragma once
#include <stdint.h>

namespace pmu::spec {

constexpr unsigned kXlen = sizeof(unsigned long) * 8;

// --- Function IDs ("Function Listing") -----------------------------------
enum Fid : unsigned long {
    NUM_COUNTERS = 0,
    COUNTER_GET_INFO = 1,
    COUNTER_CONFIG_MATCHING = 2,
    COUNTER_START = 3,
    COUNTER_STOP = 4,
    COUNTER_FW_READ = 5,
    COUNTER_FW_READ_HI = 6,
    SNAPSHOT_SET_SHMEM = 7,
    EVENT_GET_INFO = 8,
};

// --- event_idx ("event_idx[19:16] = type, event_idx[15:0] = code") -------
constexpr unsigned kEventIdxBits = 20;
constexpr unsigned kEventTypeShift = 16;
constexpr unsigned long kEventCodeMask = 0xffff;
constexpr unsigned event_type(unsigned long idx) { return (idx >> kEventTypeShift) & 0xf; }
constexpr unsigned event_code(unsigned long idx) { return idx & kEventCodeMask; }
constexpr unsigned long event_idx(unsigned type, unsigned code) {
    return (static_cast<unsigned long>(type) << kEventTypeShift) | code;
}

// Table "PMU Event Type".
enum EventType : unsigned {
    TYPE_HW = 0,
    TYPE_CACHE = 1,
    TYPE_RAW = 2,    // deprecated: mhpmevent bits [47:0] from event_data
    TYPE_RAW_V2 = 3, // mhpmevent bits [55:0] from event_data
    TYPE_FW = 15,
};
// Bits of event_data a raw event may use on a 64-bit mhpmevent; a 32-bit
// mhpmevent takes the whole 32-bit value.
constexpr unsigned kRawBits = kXlen == 32 ? 32 : 48;
constexpr unsigned kRawV2Bits = kXlen == 32 ? 32 : 56;

// Table "PMU Hardware Events" (type 0).
enum HwEvent : unsigned {
    HW_NO_EVENT = 0,
    HW_CPU_CYCLES = 1,
    HW_INSTRUCTIONS = 2,
    HW_CACHE_REFERENCES = 3,
    HW_CACHE_MISSES = 4,
    HW_BRANCH_INSTRUCTIONS = 5,
    HW_BRANCH_MISSES = 6,
    HW_BUS_CYCLES = 7,
    HW_STALLED_CYCLES_FRONTEND = 8,
    HW_STALLED_CYCLES_BACKEND = 9,
    HW_REF_CPU_CYCLES = 10,
};
constexpr unsigned kHwEventLast = HW_REF_CPU_CYCLES;

// Type 1 code: code[15:3] = cache_id, code[2:1] = op_id, code[0] = result_id.
enum CacheId : unsigned { L1D = 0, L1I = 1, LL = 2, DTLB = 3, ITLB = 4, BPU = 5, NODE = 6 };
enum CacheOp : unsigned { OP_READ = 0, OP_WRITE = 1, OP_PREFETCH = 2 };
enum CacheResult : unsigned { RESULT_ACCESS = 0, RESULT_MISS = 1 };
constexpr unsigned kCacheIdLast = NODE, kCacheOpLast = OP_PREFETCH;
constexpr unsigned cache_id(unsigned code) { return code >> 3; }
constexpr unsigned cache_op(unsigned code) { return (code >> 1) & 3; }
constexpr unsigned cache_code(unsigned id, unsigned op, unsigned result) {
    return (id << 3) | (op << 1) | result;
}

// Table "PMU Firmware Events" (type 15): codes 0..21 are the standard events
// (fw::FwEvent in include/subsystem.hpp spells them), 22..255 reserved,
// 256..65534 implementation specific, 65535 platform specific with the
// encoding in event_data.
constexpr unsigned kFwStandardCount = 22;
constexpr unsigned kFwImplFirst = 256, kFwImplLast = 65534;
constexpr unsigned kFwPlatform = 65535;

// --- counter_info (FID 1) ------------------------------------------------
constexpr unsigned long kInfoCsrMask = 0xfff;
constexpr unsigned kInfoWidthShift = 12;
constexpr unsigned long kInfoWidthMask = 0x3f;
constexpr unsigned long kInfoTypeFw = 1ul << (kXlen - 1);
constexpr unsigned long counter_info_hw(unsigned csr, unsigned bits) {
    return (csr & kInfoCsrMask) | (static_cast<unsigned long>(bits - 1) << kInfoWidthShift);
}

// --- config_flags (FID 2), table "PMU Counter Config Match Flags" --------
enum CfgFlag : unsigned long {
    CFG_SKIP_MATCH = 1ul << 0,
    CFG_CLEAR_VALUE = 1ul << 1,
    CFG_AUTO_START = 1ul << 2,
    CFG_SET_VUINH = 1ul << 3,
    CFG_SET_VSINH = 1ul << 4,
    CFG_SET_UINH = 1ul << 5,
    CFG_SET_SINH = 1ul << 6,
    CFG_SET_MINH = 1ul << 7,
};
constexpr unsigned long kCfgFlagsValid = 0xff;
constexpr unsigned kCfgInhShift = 3; // VUINH..MINH are bits 3..7, in mhpmevent order
constexpr unsigned long kCfgInhMask = 0x1ful << kCfgInhShift;

// --- start_flags (FID 3) / stop_flags (FID 4) ------------------------------
enum StartFlag : unsigned long { START_SET_INIT_VALUE = 1ul << 0, START_INIT_SNAPSHOT = 1ul << 1 };
constexpr unsigned long kStartFlagsValid = 0x3;
enum StopFlag : unsigned long { STOP_RESET = 1ul << 0, STOP_TAKE_SNAPSHOT = 1ul << 1 };
constexpr unsigned long kStopFlagsValid = 0x3;

// --- snapshot shared memory (FID 7), table "SBI PMU Snapshot shared memory layout"
constexpr unsigned long kShmemDisable = ~0ul; // both halves all-ones
constexpr unsigned long kSnapshotSize = 4096;
constexpr unsigned long kSnapshotAlign = 4096;
constexpr unsigned kSnapshotOverflowOff = 0x0;
constexpr unsigned kSnapshotValuesOff = 0x8;
constexpr unsigned kSnapshotValues = 64;

// --- event_get_info (FID 8), table "Event info entry format" --------------
constexpr unsigned long kEventInfoAlign = 16;
constexpr unsigned kEventInfoEntrySize = 16;
constexpr unsigned kEventInfoIdxOff = 0;    // word 0: event_idx, bits 31:20 reserved
constexpr unsigned kEventInfoOutputOff = 4; // word 1: bit 0 = supported
constexpr unsigned kEventInfoDataOff = 8;   // words 2-3: event_data
constexpr uint32_t kEventInfoIdxReserved = ~((1u << kEventIdxBits) - 1);
constexpr uint32_t kEventInfoSupported = 1;

} // namespace pmu::spec
