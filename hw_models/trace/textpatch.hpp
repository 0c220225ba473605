// SPDX-License-Identifier: BSD-2-Clause
// Code that the traced program rewrites while it runs, for the decoder. Each site has
// two versions (as in the image, and patched). A site is either
//   - scheduled: it changes once, at a known point of the program's own flow (the
//     n-th retirement of a trigger instruction applies the n-th scheduled site), used
//     where the two versions cannot be told apart from the trace (same control flow,
//     different instruction boundaries: Linux's ftrace nops); or
//   - free: the decoder takes the version it last saw live and, when the trace
//     contradicts it inside a message's instruction block, backtracks and takes the
//     other one (Linux's static keys and alternatives: nop against a jump).
// The state lives here, not in the decoder, so that decoding one hart after another
// carries the text's state forward (a secondary hart starts after the boot hart has
// patched most of the text).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "rvinsn.hpp"

namespace trace {

struct PatchSite {
    uint64_t off = 0;   // offset in the text (the same for every alias)
    uint8_t len = 0;    // bytes, even, at most kMaxLen
    bool scheduled = false;
    static constexpr unsigned kMaxLen = 16;
    std::array<std::array<uint8_t, kMaxLen>, 2> bytes{};
    // Per version, per halfword: the instruction starting there (size 0: none).
    std::array<std::array<rv::Insn, kMaxLen / 2>, 2> insn{};
};

class TextPatches {
  public:
    // The same text may be executed at several addresses (Linux: physical before the
    // MMU is on, virtual after); size is the text's length.
    std::vector<uint64_t> aliases;
    uint64_t size = 0;

    // A site's two versions classified; false when malformed (odd length, an
    // instruction running past the end).
    static bool make(uint64_t off, const uint8_t *before, const uint8_t *after, unsigned len, bool scheduled,
                     const rv::Options &o, PatchSite &s);
    // Both versions have the same instruction boundaries and no control transfer: the
    // decoded addresses do not depend on the version.
    static bool flow_neutral(const PatchSite &s);
    // Adds a site; returns false when it overlaps another one or is malformed.
    bool add(uint64_t off, const uint8_t *before, const uint8_t *after, unsigned len, bool scheduled,
             const rv::Options &o);
    // Scheduled sites, in the order the trigger applies them.
    void schedule(uint32_t site) { sched_pos_[site] = uint32_t(order_.size()), order_.push_back(site); }
    // The instruction whose retirement applies the next scheduled site (an address).
    void add_trigger(uint64_t addr) { triggers_.push_back(addr); }

    // The site covering pc (any alias): its index and the halfword inside it.
    bool find(uint64_t pc, uint32_t &site, unsigned &hw) const {
        for (uint64_t b : aliases) {
            const uint64_t off = pc - b;
            if (off < size) {
                auto it = by_hw_.find(off >> 1);
                if (it == by_hw_.end()) return false;
                site = it->second;
                hw = unsigned((off - sites_[site].off) >> 1);
                return true;
            }
        }
        return false;
    }
    bool is_trigger(uint64_t pc) const {
        for (uint64_t t : triggers_)
            if (t == pc) return true;
        return false;
    }
    // Every address the decoder must not take from the image's instruction cache.
    std::vector<uint64_t> volatile_halfwords() const;

    const PatchSite &site(uint32_t i) const { return sites_[i]; }
    size_t count() const { return sites_.size(); }
    size_t scheduled_count() const { return order_.size(); }

    // Mutable state, shared by the decoders that use this object one after another.
    uint8_t version(uint32_t i) const {
        return sites_[i].scheduled ? uint8_t(sched_pos_[i] < applied) : belief[i];
    }
    std::vector<uint8_t> belief; // free sites: the version seen live last
    size_t applied = 0;          // scheduled sites applied so far
    uint64_t switches = 0;       // free sites whose version changed (statistics)
    uint64_t backtracks = 0;     // decoder retries (statistics)

  private:
    std::vector<PatchSite> sites_;
    std::unordered_map<uint64_t, uint32_t> by_hw_; // halfword index in the text -> site
    std::vector<uint32_t> sched_pos_;
    std::vector<uint32_t> order_;
    std::vector<uint64_t> triggers_;
};

} // namespace trace
