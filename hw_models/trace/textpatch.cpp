// SPDX-License-Identifier: BSD-2-Clause
// Self-modifying text for the decoder (see textpatch.hpp).
#include "textpatch.hpp"

#include <cstring>

namespace trace {

bool TextPatches::make(uint64_t off, const uint8_t *before, const uint8_t *after, unsigned len, bool scheduled,
                       const rv::Options &o, PatchSite &s) {
    s = PatchSite{};
    if (!len || len > PatchSite::kMaxLen || (len | off) & 1) return false;
    s.off = off, s.len = uint8_t(len), s.scheduled = scheduled;
    memcpy(s.bytes[0].data(), before, len);
    memcpy(s.bytes[1].data(), after, len);
    for (int v = 0; v < 2; v++) {
        for (unsigned at = 0; at < len;) {
            uint32_t bits = 0;
            memcpy(&bits, s.bytes[v].data() + at, len - at >= 4 ? 4 : 2);
            rv::Insn in = rv::classify(bits, o);
            // An instruction running past the site's end is not part of either version
            // the patcher writes (patches replace whole instructions).
            if (!in.size || at + in.size > len) return false;
            s.insn[v][at / 2] = in;
            at += in.size;
        }
    }
    return true;
}

bool TextPatches::flow_neutral(const PatchSite &s) {
    for (unsigned h = 0; h < s.len / 2; h++) {
        const rv::Insn &a = s.insn[0][h], &b = s.insn[1][h];
        if (a.size != b.size) return false;
        if (a.size && (a.kind != rv::Kind::Linear || b.kind != rv::Kind::Linear)) return false;
    }
    return true;
}

bool TextPatches::add(uint64_t off, const uint8_t *before, const uint8_t *after, unsigned len, bool scheduled,
                      const rv::Options &o) {
    if (off + len > size) return false;
    for (unsigned h = 0; h < len / 2; h++)
        if (by_hw_.count((off >> 1) + h)) return false;
    PatchSite s;
    if (!make(off, before, after, len, scheduled, o, s)) return false;
    const uint32_t idx = uint32_t(sites_.size());
    sites_.push_back(s);
    for (unsigned h = 0; h < len / 2; h++) by_hw_[(off >> 1) + h] = idx;
    belief.push_back(0);
    return true;
}

std::vector<uint64_t> TextPatches::volatile_halfwords() const {
    std::vector<uint64_t> v;
    for (uint64_t b : aliases)
        for (const PatchSite &s : sites_)
            for (unsigned h = 0; h < s.len; h += 2) v.push_back(b + s.off + h);
    for (const Trigger &t : triggers_) v.push_back(t.addr);
    return v;
}

} // namespace trace
