// SPDX-License-Identifier: BSD-2-Clause
// SBI "Hart list parameter" (binary-encoding.adoc): (hart_mask, hart_mask_base)
// to a bitmap of target harts. Header-only so host tests use the same code.
#pragma once
#include "fw.hpp"
#include "sbi/sbi.hpp"

namespace sbi {

constexpr unsigned kMaskWords = fw::kMaxHarts / (sizeof(long) * 8);
struct HartBitmap {
    unsigned long w[kMaskWords];
};

// `valid(hartid)` says whether a hart is enabled and available to S-mode.
// base == -1: every valid hart (mask ignored). Otherwise each set bit i names
// hart base + i; any that is not valid (or overflows) -> INVALID_PARAM.
template <typename Valid>
Error hartmask_to_bitmap(unsigned long mask, unsigned long base, HartBitmap &out, Valid valid) {
    constexpr unsigned xlen = sizeof(long) * 8;
    for (auto &w : out.w) w = 0;
    if (base == ~0ul) {
        for (unsigned long h = 0; h < fw::kMaxHarts; h++)
            if (valid(h)) out.w[h / xlen] |= 1ul << (h % xlen);
        return Error::Success;
    }
    for (; mask; mask &= mask - 1) {
        unsigned long h = base + __builtin_ctzl(mask);
        if (h < base || h >= fw::kMaxHarts || !valid(h)) return Error::InvalidParam;
        out.w[h / xlen] |= 1ul << (h % xlen);
    }
    return Error::Success;
}

} // namespace sbi
