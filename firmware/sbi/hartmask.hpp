// SPDX-License-Identifier: BSD-2-Clause
// SBI "Hart list parameter" (binary-encoding.adoc): (hart_mask, hart_mask_base)
// to a bitmap of target harts. Header-only so host tests use the same code.
#pragma once
#include "fw.hpp"
#include "sbi/sbi.hpp"
#include "core/hartmap.hpp"

namespace sbi {

constexpr unsigned kMaskWords = fw::kHartWords;
static_assert(fw::kMaxHarts % (sizeof(long) * 8) == 0, "the bitmap is whole XLEN-wide words");
// Target harts by dense hart index (core/hartmap.hpp): bit i of word i / XLEN.
struct HartBitmap {
    unsigned long w[kMaskWords];
};
// The parameter for per-hart state indexed by dense hart index
// (core/hartmap.hpp). A mask names
// at most XLEN consecutive hart IDs, so with contiguous IDs its harts lie in
// at most two dense words: `lo` (word `word`) and `hi` (word `word + 1`),
// and a caller loops over two words, not over every hart the build could
// serve. Only base == -1 (every valid hart) and table mode (sparse IDs, which
// XLEN bits may scatter over any word) use `many`, a bitmap of `words`
// words. W is the word (unsigned long; the host tests use uint32_t too).
template <typename W> struct HartSet {
    unsigned word;  // dense word of `lo`
    W lo, hi;       // words `word` and `word + 1`, when many is null
    const W *many;  // else: every word
};

template <typename W> inline bool hartset_has(const HartSet<W> &s, unsigned index) {
    constexpr unsigned bits = sizeof(W) * 8;
    if (s.many) return (s.many[index / bits] >> (index % bits)) & 1;
    const unsigned w = index / bits;
    const W v = w == s.word ? s.lo : w == s.word + 1 ? s.hi : 0;
    return (v >> (index % bits)) & 1;
}

// Calls f(index) for each dense index in the set, ascending; `words` is the
// width of the dense bitmaps (map.n rounded up to words).
template <typename W, typename F> inline void hartset_for_each(const HartSet<W> &s, unsigned words, F f) {
    constexpr unsigned bits = sizeof(W) * 8;
    auto each = [&](unsigned w, W v) {
        for (unsigned b = 0; v; b++, v >>= 1)
            if (v & 1) f(w * bits + b);
    };
    if (s.many) {
        for (unsigned w = 0; w < words; w++) each(w, s.many[w]);
        return;
    }
    each(s.word, s.lo);
    each(s.word + 1, s.hi);
}

// (mask, base) to dense indices. `valid`: bit i set when dense index i is a
// hart offered to S-mode (`words` words). base == -1: every valid hart.
// Otherwise bit i names hart ID base + i; one that is no hart, not valid,
// or past 2^XLEN -> INVALID_PARAM (and the set is empty). `scratch` (`words`
// words) holds the bitmap in table mode.
template <typename W>
inline Error hartmask_to_set(W mask, W base, const fw::hartmap::Map &map, const W *valid,
                             unsigned words, W *scratch, HartSet<W> &out) {
    constexpr unsigned bits = sizeof(W) * 8;
    out = {0, 0, 0, nullptr};
    if (base == static_cast<W>(~W(0))) {
        out.many = valid;
        return Error::Success;
    }
    if (!mask) return Error::Success;
    if (!map.table) {
        // Contiguous: index = ID, the shift of hartmask_to_bitmap against
        // the n harts present.
        if (base >= map.id_limit) return Error::InvalidParam;
        const W room = static_cast<W>(map.id_limit - base);
        if (room < bits && (mask >> room)) return Error::InvalidParam;
        const unsigned word = static_cast<unsigned>(base / bits), shift = base % bits;
        const W lo = mask << shift, hi = shift ? mask >> (bits - shift) : 0;
        // hi's bits name IDs below id_limit (room), so word + 1 < words then.
        const W bad = (lo & ~valid[word]) | (hi ? hi & ~valid[word + 1] : 0);
        if (bad) return Error::InvalidParam;
        out = {word, lo, hi, nullptr};
        return Error::Success;
    }
    for (unsigned w = 0; w < words; w++) scratch[w] = 0;
    for (unsigned i = 0; i < bits; i++) {
        if (!((mask >> i) & 1)) continue;
        const W id = base + i;
        if (id < base) return Error::InvalidParam; // wrapped past 2^XLEN
        const unsigned idx = fw::hartmap::index_of(map, id);
        if (idx == fw::hartmap::kNoIndex || !((valid[idx / bits] >> (idx % bits)) & 1))
            return Error::InvalidParam;
        scratch[idx / bits] |= W(1) << (idx % bits);
    }
    out.many = scratch;
    return Error::Success;
}

// Whether (mask, base) names hart ID `self` and no other: the common case
// (Linux's IPIs and fences to itself), which the IPI and RFENCE handlers
// serve without building a bitmap. Only the mask and base are compared, so
// it holds for sparse IDs too; the caller still checks that `self` is a
// hart offered to S-mode (INVALID_PARAM otherwise, as hartmask_to_set).
template <typename W> constexpr bool mask_is_only(W mask, W base, W self) {
    constexpr W bits = sizeof(W) * 8;
    // base > self: bit i names base + i, which reaches self only past
    // 2^XLEN (INVALID_PARAM: no wrap-around). base == -1: every hart,
    // whatever the mask.
    return base != static_cast<W>(~W(0)) && base <= self && self - base < bits &&
           mask == W(1) << (self - base);
}

// hartmask_to_set into a whole bitmap of dense indices: its first `words`
// words are written (the rest are not read by anyone: fw::hart_words()).
// base == -1: every valid hart (mask ignored). Otherwise each set bit i
// names hart ID base + i; one the firmware does not serve, not valid, or
// past 2^XLEN -> INVALID_PARAM (ext-base.adoc / binary-encoding.adoc,
// "Hart list parameter").
inline Error hartmask_to_bitmap(unsigned long mask, unsigned long base, HartBitmap &out,
                                const unsigned long *valid, const fw::hartmap::Map &map,
                                unsigned words) {
    HartSet<unsigned long> s;
    const Error e = hartmask_to_set<unsigned long>(mask, base, map, valid, words, out.w, s);
    if (e != Error::Success || s.many == out.w) return e;
    if (s.many) {
        for (unsigned w = 0; w < words; w++) out.w[w] = s.many[w];
        return e;
    }
    for (unsigned w = 0; w < words; w++) out.w[w] = 0;
    if (s.lo | s.hi) {
        out.w[s.word] = s.lo;
        if (s.hi) out.w[s.word + 1] = s.hi;
    }
    return e;
}

} // namespace sbi
