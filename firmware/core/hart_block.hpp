// SPDX-License-Identifier: BSD-2-Clause
// All per-hart state of the core and the SBI extensions in one struct, one
// HartBlock per hart (issue 29, plan step 4 in core/README.md "Harts and
// their memory"). Today the blocks are a static array indexed by hart ID;
// the plan carves them at boot for the harts present and finds the calling
// hart's block from its stack pointer, which only changes block_of() and
// this_block(). Included at the end of hart.hpp.
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

extern HartBlock blocks[kMaxHarts];

inline HartBlock &block_of(unsigned long hartid) { return blocks[hartid]; }
inline HartState &hart_state(unsigned long hartid) { return blocks[hartid].core; }

inline HartBlock &this_block() {
#ifdef __riscv
    return blocks[current_hartid()];
#else
    return blocks[0];
#endif
}
inline HartState &this_hart() { return this_block().core; }

inline bool hart_has(unsigned long hartid, Ext e) { return (hart_state(hartid).isa >> e) & 1; }

} // namespace fw
