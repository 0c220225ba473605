// SPDX-License-Identifier: BSD-2-Clause
// SBI "Hart list parameter" (binary-encoding.adoc): (hart_mask, hart_mask_base)
// to a bitmap of target harts. Header-only so host tests use the same code.
#pragma once
#include "fw.hpp"
#include "sbi/sbi.hpp"

namespace sbi {

constexpr unsigned kMaskWords = fw::kMaxHarts / (sizeof(long) * 8);
static_assert(fw::kMaxHarts % (sizeof(long) * 8) == 0, "the bitmap is whole XLEN-wide words");
struct HartBitmap {
    unsigned long w[kMaskWords];
};

// `valid` has bit h set when hart h is enabled and available to S-mode.
// base == -1: every valid hart (mask ignored). Otherwise each set bit i names
// hart base + i; any that is not valid (or overflows) -> INVALID_PARAM.
//
// Bit i of the mask is bit base + i of the bitmap, so the targets are the
// mask shifted left by base across the bitmap's words and one AND with the
// valid harts checks them all: no loop over the mask's bits, which would
// cost a bit scan per hart on harts without Zbb.
inline Error hartmask_to_bitmap(unsigned long mask, unsigned long base, HartBitmap &out,
                                const unsigned long (&valid)[kMaskWords]) {
    constexpr unsigned xlen = sizeof(long) * 8;
    if (base == ~0ul) {
        for (unsigned i = 0; i < kMaskWords; i++) out.w[i] = valid[i];
        return Error::Success;
    }
    for (auto &w : out.w) w = 0;
    if (!mask) return Error::Success;
    // Harts base + i at or above kMaxHarts (including base + i wrapping
    // past 2^XLEN, which needs base >= 2^XLEN - XLEN) are never valid.
    if (base >= fw::kMaxHarts) return Error::InvalidParam;
    const unsigned long room = fw::kMaxHarts - base; // mask bits that name a hart below kMaxHarts
    if (room < xlen && (mask >> room)) return Error::InvalidParam;
    const unsigned word = static_cast<unsigned>(base / xlen), shift = base % xlen;
    out.w[word] = mask << shift;
    // The bits shifted out of the last word were refused above (room).
    if (shift && word + 1 < kMaskWords) out.w[word + 1] = mask >> (xlen - shift);
    unsigned long invalid = 0;
    for (unsigned i = 0; i < kMaskWords; i++) invalid |= out.w[i] & ~valid[i];
    return invalid ? Error::InvalidParam : Error::Success;
}

} // namespace sbi
