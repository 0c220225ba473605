// SPDX-License-Identifier: BSD-2-Clause
// RV32: the 64-bit counter and selector values of hw.hpp held in two 32-bit
// CSRs each, as sequences of XLEN-wide accesses, written once. Privileged
// spec, "Hardware Performance Monitor": mcycleh/minstreth/mhpmcounterNh hold
// bits 63:32 of the counters; Sscofpmf adds mhpmeventNh (bits 63:32 of
// mhpmeventN: OF and the inhibit bits), Smcntrpmf mcyclecfgh/minstretcfgh.
//
// The target instantiates them with its CSR tables (hw_csr.cpp), the host
// tests' 32-bit build with the hart model's CSRs (hw_models/hart/
// pmu_hw_host.cpp), so the model checks the order of these very accesses.
// `Csr` provides
//   template <unsigned Base> static uint32_t read(unsigned idx);   // CSR Base + idx
//   template <unsigned Base> static void write(unsigned idx, uint32_t v);
//   template <unsigned Num> static void write_fixed(uint32_t v);   // CSR Num
// and `Mem` the 32-bit loads and stores of S-mode memory
//   static uint32_t load32(uintptr_t pa); static void store32(uintptr_t pa, uint32_t v);
#pragma once
#include <stdint.h>

#include "../include/riscv/csr.hpp"
#include "hw.hpp"

namespace pmu::hw::rv32 {

// Upper halves: mhpmcounterNh = mhpmcounterN + 0x80; mhpmeventNh and
// mcyclecfgh/minstretcfgh = their lower half + 0x400.
constexpr unsigned kCounterHi = csr::mcycleh - csr::mcycle;
constexpr unsigned kEventHi = csr::mhpmevent3h - csr::mhpmevent3;
static_assert(kCounterHi == 0x80 && kEventHi == 0x400);

template <class Csr> [[gnu::always_inline]] inline uint64_t counter_read(unsigned idx) {
    // The upper half may carry between the two reads: read it around the lower.
    uint32_t hi, lo;
    do {
        hi = Csr::template read<csr::mcycle + kCounterHi>(idx);
        lo = Csr::template read<csr::mcycle>(idx);
    } while (hi != Csr::template read<csr::mcycle + kCounterHi>(idx));
    return (static_cast<uint64_t>(hi) << 32) | lo;
}

template <class Csr> [[gnu::always_inline]] inline void counter_write(unsigned idx, uint64_t value) {
    // Zero the lower half first so that no carry reaches the new upper half,
    // and the upper half before it: with the old upper half the zeroed value
    // can be 2^63 (after Linux's half-range start), which on QEMU 7.2 (it
    // arms its overflow timer on every lower-half write) left a stale timer
    // remainder and lost the next overflow of an RV32 counter (README "RV32
    // gaps").
    Csr::template write<csr::mcycle + kCounterHi>(idx, 0);
    Csr::template write<csr::mcycle>(idx, 0);
    Csr::template write<csr::mcycle + kCounterHi>(idx, static_cast<uint32_t>(value >> 32));
    Csr::template write<csr::mcycle>(idx, static_cast<uint32_t>(value));
}

// `upper`: the upper half exists (mhpmeventNh with Sscofpmf, mcyclecfgh/
// minstretcfgh with Smcntrpmf); without it the CSR is 32 bits wide.
template <class Csr>
[[gnu::always_inline]] inline void event_write(unsigned idx, uint64_t value, bool upper) {
    const uint32_t lo = static_cast<uint32_t>(value), hi = static_cast<uint32_t>(value >> 32);
    if (idx == kCycle) {
        Csr::template write_fixed<csr::mcyclecfg>(lo);
        if (upper) Csr::template write_fixed<csr::mcyclecfg + kEventHi>(hi);
    } else if (idx == kInstret) {
        Csr::template write_fixed<csr::minstretcfg>(lo);
        if (upper) Csr::template write_fixed<csr::minstretcfg + kEventHi>(hi);
    } else if (idx >= kFirstHpm) {
        Csr::template write<csr::mcountinhibit>(idx, lo);
        if (upper) Csr::template write<csr::mcountinhibit + kEventHi>(idx, hi);
    }
}

// RV32 has no 64-bit load or store: the low word first (little-endian, as the
// snapshot and event-info layouts are).
template <class Mem> [[gnu::always_inline]] inline uint64_t mem_read64(uintptr_t pa) {
    uint32_t lo = Mem::load32(pa);
    return lo | (static_cast<uint64_t>(Mem::load32(pa + 4)) << 32);
}
template <class Mem> [[gnu::always_inline]] inline void mem_write64(uintptr_t pa, uint64_t value) {
    Mem::store32(pa, static_cast<uint32_t>(value));
    Mem::store32(pa + 4, static_cast<uint32_t>(value >> 32));
}

} // namespace pmu::hw::rv32
