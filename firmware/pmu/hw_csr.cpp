// SPDX-License-Identifier: BSD-2-Clause
// RISC-V implementation of the PMU hardware accesses indexed by a run-time
// counter number. CSR numbers are immediates in the instruction, so each
// access jumps into a table of 32 fixed-size "csrr/csrw; j done" pairs built
// by the assembler: position independent, no function pointers, one copy.
#ifdef __riscv
#include "hw.hpp"

namespace pmu::hw {
namespace {

// Reads CSR `Base + idx` (idx < 32).
template <unsigned Base> [[gnu::always_inline]] inline unsigned long read_indexed(unsigned idx) {
    unsigned long v, t;
    asm volatile(".option push\n\t.option norvc\n\t"
                 "auipc %1, 0\n\t"
                 "slli %0, %2, 3\n\t"
                 "add %1, %1, %0\n\t"
                 "jalr zero, 16(%1)\n\t" // the table starts 16 bytes after auipc
                 ".set .Lpmu_csr%=, %3\n\t"
                 ".rept 32\n\t"
                 "csrr %0, .Lpmu_csr%=\n\t"
                 "j 1f\n\t"
                 ".set .Lpmu_csr%=, .Lpmu_csr%= + 1\n\t"
                 ".endr\n"
                 "1:\n\t"
                 ".option pop"
                 : "=&r"(v), "=&r"(t)
                 : "r"(idx), "i"(Base)
                 : "memory");
    return v;
}

// Writes `value` to CSR `Base + idx` (idx < 32).
template <unsigned Base>
[[gnu::always_inline]] inline void write_indexed(unsigned idx, unsigned long value) {
    unsigned long t, o;
    asm volatile(".option push\n\t.option norvc\n\t"
                 "auipc %0, 0\n\t"
                 "slli %1, %2, 3\n\t"
                 "add %0, %0, %1\n\t"
                 "jalr zero, 16(%0)\n\t"
                 ".set .Lpmu_csr%=, %4\n\t"
                 ".rept 32\n\t"
                 "csrw .Lpmu_csr%=, %3\n\t"
                 "j 1f\n\t"
                 ".set .Lpmu_csr%=, .Lpmu_csr%= + 1\n\t"
                 ".endr\n"
                 "1:\n\t"
                 ".option pop"
                 : "=&r"(t), "=&r"(o)
                 : "r"(idx), "r"(value), "i"(Base)
                 : "memory");
}

// mhpmeventN is at mcountinhibit + N for N >= 3; the fixed counters'
// filters (Smcntrpmf) are mcyclecfg and minstretcfg, right after it.
constexpr unsigned kEventBase = csr::mcountinhibit;
// RV32 upper halves: mhpmcounterNh = mhpmcounterN + 0x80, mhpmeventNh and
// mcyclecfgh/minstretcfgh = their low half + 0x400.
constexpr unsigned kCounterHi = 0x80, kEventHi = 0x400;

unsigned event_csr_fixed(unsigned idx) { return idx == kCycle ? csr::mcyclecfg : csr::minstretcfg; }

} // namespace

uint64_t counter_read(unsigned idx) {
#if __riscv_xlen == 32
    // The upper half may carry between the two reads: read it around the lower.
    uint32_t hi, lo;
    do {
        hi = read_indexed<csr::mcycle + kCounterHi>(idx);
        lo = read_indexed<csr::mcycle>(idx);
    } while (hi != read_indexed<csr::mcycle + kCounterHi>(idx));
    return (static_cast<uint64_t>(hi) << 32) | lo;
#else
    return read_indexed<csr::mcycle>(idx);
#endif
}

void counter_write(unsigned idx, uint64_t value) {
#if __riscv_xlen == 32
    // Zero the lower half first so that no carry reaches the new upper half.
    write_indexed<csr::mcycle>(idx, 0);
    write_indexed<csr::mcycle + kCounterHi>(idx, static_cast<uint32_t>(value >> 32));
    write_indexed<csr::mcycle>(idx, static_cast<uint32_t>(value));
#else
    write_indexed<csr::mcycle>(idx, value);
#endif
}

void event_write(unsigned idx, uint64_t value, [[maybe_unused]] bool upper) {
#if __riscv_xlen == 32
    if (idx < kFirstHpm) {
        unsigned n = event_csr_fixed(idx);
        if (n == csr::mcyclecfg) {
            csr_write(csr::mcyclecfg, static_cast<uint32_t>(value));
            if (upper) csr_write(csr::mcyclecfg + kEventHi, static_cast<uint32_t>(value >> 32));
        } else {
            csr_write(csr::minstretcfg, static_cast<uint32_t>(value));
            if (upper) csr_write(csr::minstretcfg + kEventHi, static_cast<uint32_t>(value >> 32));
        }
        return;
    }
    write_indexed<kEventBase>(idx, static_cast<uint32_t>(value));
    if (upper) write_indexed<kEventBase + kEventHi>(idx, static_cast<uint32_t>(value >> 32));
#else
    if (idx < kFirstHpm) {
        if (event_csr_fixed(idx) == csr::mcyclecfg)
            csr_write(csr::mcyclecfg, value);
        else
            csr_write(csr::minstretcfg, value);
        return;
    }
    write_indexed<kEventBase>(idx, value);
#endif
}

} // namespace pmu::hw
#endif
