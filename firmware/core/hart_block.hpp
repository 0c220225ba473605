// SPDX-License-Identifier: BSD-2-Clause
// All per-hart state of the core and the SBI extensions in one struct, one
// HartBlock per hart (issue 29, core/README.md "Harts and their memory").
// The blocks are carved at cold boot, one per hart index below hart_count()
// (core/init.cpp); block_of(hartid) looks the index up, so it takes only a
// hart the firmware serves (hart_valid(), or the calling hart).
// Included at the end of hart.hpp.
#pragma once
#include "hart.hpp"
#include "sbi/hart_sbi.hpp"

namespace fw {

// A power of two, so a hart ID becomes a block address with one shift.
constexpr unsigned long kHartBlockSize = 512;

struct alignas(kHartBlockSize) HartBlock {
    HartState core;             // HSM, IPIs, remote fences (hart.hpp)
    sbi::HartFeatures fwft;     // sbi/fwft.cpp
    sbi::HartTriggers dbtr;     // sbi/dbtr.cpp
    sbi::HartSse sse;           // sbi/sse.cpp
    bool keep_a0;               // sbi/ecall.cpp: the next a0 outside the error codes is a value
};
static_assert(sizeof(HartBlock) == kHartBlockSize, "the members outgrew the block");

extern HartBlock *blocks; // hart_count() of them; null before the carve

// unsigned long: an unsigned index costs RV64 a zero-extension per use.
inline HartBlock &block_at(unsigned long index) { return blocks[index]; }
inline HartState &hart_at(unsigned long index) { return blocks[index].core; }
inline HartBlock &block_of(unsigned long hartid) { return blocks[hart_index(hartid)]; }
inline HartState &hart_state(unsigned long hartid) { return blocks[hart_index(hartid)].core; }
// hart_index() for a hot path: false when the firmware does not serve
// hart `hartid`, else its index in `index`. In contiguous mode (index = ID,
// below id_limit = n) no compare against kNoHart, which only the table
// holds; and no pointer for the caller to test for null.
inline bool served_index(unsigned long hartid, unsigned long &index) {
    if (hartid >= fw_hart_map.id_limit) return false;
    if (const uint16_t *t = fw_hart_map.table; __builtin_expect(t != nullptr, 0)) {
        hartid = t[hartid];
        if (hartid == kNoHart) return false;
    }
    index = hartid;
    return true;
}

inline HartBlock &this_block() {
#ifdef __riscv
    return blocks[this_index()];
#else
    return blocks[0];
#endif
}
inline HartState &this_hart() { return this_block().core; }

inline bool hart_has(unsigned long hartid, Ext e) { return (hart_state(hartid).isa >> e) & 1; }
// The calling hart's: no hart-ID look-up with its bound check (this_index()).
// The bit moved to the sign: a shift and a branch on the sign, where
// (isa >> e) & 1 costs a shift, an AND and a branch (the set_timer path).
inline bool this_has(Ext e) { return static_cast<int64_t>(this_hart().isa << (63 - e)) < 0; }

} // namespace fw
