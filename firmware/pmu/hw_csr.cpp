// SPDX-License-Identifier: BSD-2-Clause
// The CSR tables behind hw_csr.hpp's accesses by run-time counter index:
// 32 fixed-size "csr access; return" pairs each, entered by computed jump.
// Position independent, one copy of each table.
#ifdef __riscv
#include "hw.hpp"

#if __riscv_xlen == 64
// Convention (hw_csr.hpp): a0 = counter index (< 32), a1 = value to write,
// a0 = value read; clobbers t0 only. mhpmeventN is at mcountinhibit + N for
// N >= 3; indices 0 and 2 are the fixed counters' filters (Smcntrpmf).
// clang-format off
asm(R"(
    .pushsection .text.pmu_csr, "ax", @progbits
    .option push
    .option norvc
    # Jumps to entry a0 of the table that follows: 8 bytes an entry, the
    # first 16 bytes after the auipc.
    .macro pmu_csr_dispatch
    auipc t0, 0
    slli  a0, a0, 3
    add   t0, t0, a0
    jr    16(t0)
    .endm
    # `count` entries "csr access of CSR first+i; ret" (read into a0, or
    # write a1).
    .macro pmu_csr_entries access, first, count
    .set .Lpmu_n, \first
    .rept \count
    .ifc \access, read
    csrr  a0, .Lpmu_n
    .else
    csrw  .Lpmu_n, a1
    .endif
    ret
    .set .Lpmu_n, .Lpmu_n + 1
    .endr
    .endm

    .balign 4
    .globl pmu_csr_counter_read
pmu_csr_counter_read:
    pmu_csr_dispatch
    pmu_csr_entries read, 0xB00, 32

    .globl pmu_csr_counter_write
pmu_csr_counter_write:
    pmu_csr_dispatch
    pmu_csr_entries write, 0xB00, 32

    .globl pmu_csr_event_write
pmu_csr_event_write:
    pmu_csr_dispatch
    csrw  0x321, a1     # mcyclecfg
    ret
    ret                 # index 1: time has no selector
    nop
    csrw  0x322, a1     # minstretcfg
    ret
    pmu_csr_entries write, 0x323, 29
    .purgem pmu_csr_dispatch
    .purgem pmu_csr_entries
    .option pop
    .popsection
)");
// clang-format on
static_assert(pmu::hw::kSlots == 32 && csr::mcycle == 0xB00 && csr::mcyclecfg == 0x321 &&
              csr::minstretcfg == 0x322 && csr::mhpmevent3 == 0x323);

#else // RV32: the same tables as C++ templates, through ordinary calls.

namespace pmu::hw {
namespace {

template <unsigned Base> [[gnu::always_inline]] inline unsigned long read_indexed(unsigned idx) {
    unsigned long v, t;
    asm volatile(".option push\n\t.option norvc\n\t"
                 "auipc %1, 0\n\t"
                 "slli %0, %2, 3\n\t"
                 "add %1, %1, %0\n\t"
                 "jalr zero, 16(%1)\n\t"
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

// RV32 upper halves: mhpmcounterNh = mhpmcounterN + 0x80, mhpmeventNh and
// mcyclecfgh/minstretcfgh = their low half + 0x400.
constexpr unsigned kCounterHi = 0x80, kEventHi = 0x400;

} // namespace

uint64_t counter_read_table(unsigned idx) {
    // The upper half may carry between the two reads: read it around the lower.
    uint32_t hi, lo;
    do {
        hi = read_indexed<csr::mcycle + kCounterHi>(idx);
        lo = read_indexed<csr::mcycle>(idx);
    } while (hi != read_indexed<csr::mcycle + kCounterHi>(idx));
    return (static_cast<uint64_t>(hi) << 32) | lo;
}

void counter_write_table(unsigned idx, uint64_t value) {
    // Zero the lower half first so that no carry reaches the new upper half,
    // and the upper half before it: with the old upper half the zeroed value
    // can be 2^63 (after Linux's half-range start), which on QEMU 7.2 (it
    // arms its overflow timer on every lower-half write) left a stale timer
    // remainder and lost the next overflow of an RV32 counter (README "RV32
    // gaps").
    write_indexed<csr::mcycle + kCounterHi>(idx, 0);
    write_indexed<csr::mcycle>(idx, 0);
    write_indexed<csr::mcycle + kCounterHi>(idx, static_cast<uint32_t>(value >> 32));
    write_indexed<csr::mcycle>(idx, static_cast<uint32_t>(value));
}

void event_write_table(unsigned idx, uint64_t value, bool upper) {
    if (idx == kCycle) {
        csr_write(csr::mcyclecfg, static_cast<uint32_t>(value));
        if (upper) csr_write(csr::mcyclecfg + kEventHi, static_cast<uint32_t>(value >> 32));
    } else if (idx == kInstret) {
        csr_write(csr::minstretcfg, static_cast<uint32_t>(value));
        if (upper) csr_write(csr::minstretcfg + kEventHi, static_cast<uint32_t>(value >> 32));
    } else if (idx >= kFirstHpm) {
        write_indexed<csr::mcountinhibit>(idx, static_cast<uint32_t>(value));
        if (upper)
            write_indexed<csr::mcountinhibit + kEventHi>(idx, static_cast<uint32_t>(value >> 32));
    }
}

} // namespace pmu::hw
#endif
#endif
