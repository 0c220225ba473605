// SPDX-License-Identifier: BSD-2-Clause
// The per-hart state of the SBI extensions that keep some (FWFT, DBTR, SSE,
// the ecall guard), as members of the hart's fw::HartBlock
// (core/hart_block.hpp). Each extension's .cpp is the only one that reads
// its member; they are declared here so one struct holds all per-hart state.
#pragma once
#include <stdint.h>
#include "atomic.hpp"
#include "sbi/dbtr_logic.hpp"
#include "sbi/sse_events.hpp"

namespace sbi {

// FWFT (sbi/fwft.cpp): what the hart's CSRs keep, probed once.
struct HartFeatures {
    bool probed;
    bool deleg_ok;           // medeleg keeps both misaligned bits
    uint64_t env_ok;         // menvcfg feature bits the hart keeps
    bool pmlen7, pmlen16;    // PMM encodings the hart keeps
    uint8_t locked;          // bit n: feature n locked until hart reset
};

// DBTR (sbi/dbtr.cpp): what the trigger CSRs cannot hold.
struct HartTriggers {
    bool probed;
    uint8_t count;                           // trig_max
    uint16_t types[dbtr::kMaxTriggers];      // tinfo.info of each trigger
    uint8_t state[dbtr::kMaxTriggers];       // trig_state (hw_trig_idx never reported)
    bool shmem_on;
    unsigned long shmem;
};

// SSE (sbi/sse.cpp): the hart's local events and what is running on it.
struct HartSse {
    sse::Event local[sse::kNumLocal];
    fw::atomic<unsigned> injected; // bit i: local event i injected by another hart
    uint8_t running[sse::kNumEvents]; // indices of events RUNNING here, innermost last
    uint8_t nrunning;
    bool unmasked;
    bool lcofi_taken; // mideleg.LCOFI cleared: overflows come to M-mode
    bool s_lcofie;    // S-mode's sie.LCOFIE while it is taken
};

} // namespace sbi
