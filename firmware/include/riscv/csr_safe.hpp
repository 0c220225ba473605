// SPDX-License-Identifier: BSD-2-Clause
// The CSRs the firmware accesses by a number known only at run time, through
// csr::csr_read_safe_num / csr_write_safe_num (csr.hpp). A CSR number is an
// immediate in the instruction, so firmware/core/csr_safe.cpp assembles, at
// build time, one "csrr a0, N; ret" and one "csrw N, a1; ret" per number
// listed here (8 bytes each, 120 numbers: 1,920 bytes). Nothing is written
// into code at run time: a per-hart stub rewritten at run time could run
// stale on QEMU's multi-threaded TCG (firmware/core/README.md, "Trap-safe
// CSR access").
//
// A number not listed gets csr::kSafeUnlisted, never a crash; every caller
// checks its numbers at compile time with csr::safe_listed (static_assert
// next to the call), and tests/host/test_core.cpp checks the lookup.
// Host-side code includes this header for the list and the lookup alone.
#pragma once
#include "csr.hpp"

namespace csr {

// The list, as literals (the assembler needs them as text) with the csr.hpp
// name each range starts at, checked equal in csr_safe.cpp. Ordered by how
// often a range is used after boot, since the lookup is a linear scan:
// Sdtrig (SBI DBTR calls), menvcfg (SBI FWFT calls), mtinst (misaligned
// emulation), then the ones only probed or set at boot.
// X(first, count, name of first, what)
#define TSBI_SAFE_CSR_RANGES(X)                                                                 \
    X(0x7A0, 5, tselect, "tselect, tdata1-3, tinfo (Sdtrig)")                             \
    X(0x30A, 6, menvcfg, "menvcfg, 0x30b, mstateen0-3")                                        \
    X(0x34A, 5, mtinst, "mtinst, mtval2, 0x34c-0x34d, mctrctl (Smctr)")                        \
    X(0x310, 19, mstatush, "mstatush .. menvcfgh, mstateen0h-3h, mcountinhibit, mcyclecfg, "   \
                           "minstretcfg")                                                      \
    X(0x3A0, 32, pmpcfg0, "pmpcfg0-15, pmpaddr0-15")                                           \
    X(0xB00, 32, mcycle, "mcycle, 0xb01, minstret, mhpmcounter3-31")                           \
    X(0x10C, 4, sstateen0, "sstateen0-3")                                                      \
    X(0x14D, 1, stimecmp, "stimecmp (Sstc)")                                                   \
    X(0x150, 1, siselect, "siselect (Sscsrind)")                                               \
    X(0x15F, 1, sctrdepth, "sctrdepth (Ssctr)")                                                \
    X(0x60C, 4, hstateen0, "hstateen0-3")                                                      \
    X(0x61C, 4, hstateen0h, "hstateen0h-3h (RV32)")                                            \
    X(0x346, 1, mstrcctl, "mstrcctl (Smstrcn, self-hosted trace draft)")                       \
    X(0x747, 1, mseccfg, "mseccfg")                                                            \
    X(0x350, 2, miselect, "miselect, mireg (Smaia/Smcsrind: a hart's M-level IMSIC file)")      \
    X(0x7CA, 1, thead::mcounterinten, "T-Head C9xx mcounterinten")                              \
    X(0xDA0, 1, scountovf, "scountovf (Sscofpmf)")

// First numbers of ranges above that csr.hpp does not name: the Debug
// Specification's tselect (sbi/dbtr.cpp names the others), Sscsrind's
// siselect and Smctr's sctrdepth (ctr/ctr_spec.hpp, which checks them).
constexpr unsigned tselect = 0x7A0, siselect = 0x150, sctrdepth = 0x15F;

// trapped for a number that is not in the list: no mcause has every bit set
// (it would be an interrupt with cause code 2^(XLEN-1) - 1).
constexpr unsigned long kSafeUnlisted = ~0ul;

struct SafeCsrRange {
    unsigned first, count;
};
#define TSBI_SAFE_CSR_RANGE(first, count, name, what) {first, count},
inline constexpr SafeCsrRange kSafeCsrRanges[] = {TSBI_SAFE_CSR_RANGES(TSBI_SAFE_CSR_RANGE)};
#undef TSBI_SAFE_CSR_RANGE

constexpr unsigned safe_csr_total() {
    unsigned n = 0;
    for (const SafeCsrRange &r : kSafeCsrRanges) n += r.count;
    return n;
}

// Position of `num` in the assembled tables (ranges in list order), or -1.
constexpr int safe_csr_index(unsigned num) {
    unsigned base = 0;
    for (const SafeCsrRange &r : kSafeCsrRanges) {
        if (num - r.first < r.count) return static_cast<int>(base + (num - r.first));
        base += r.count;
    }
    return -1;
}

// True if every number in [first, first + count) is listed: callers
// static_assert it for the numbers they pass.
constexpr bool safe_listed(unsigned first, unsigned count = 1) {
    for (unsigned i = 0; i < count; i++)
        if (safe_csr_index(first + i) < 0) return false;
    return true;
}

} // namespace csr
