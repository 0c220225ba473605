// SPDX-License-Identifier: BSD-2-Clause
// Code that the traced program rewrites while it runs, for the decoder. Each site has
// two versions (as in the image, and patched). A site is either
//   - scheduled: it changes once, at a known point of the program's own flow: each
//     retirement of its trigger instruction applies the trigger's next `per_fire`
//     sites in order. Used where the trace cannot tell the versions apart (Linux's
//     ftrace nops: same control flow, other instruction boundaries; alternatives whose
//     two versions take equally long paths); or
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
    uint8_t trigger = 0; // scheduled: the trigger and the position in its order
    uint32_t pos = 0;
    static constexpr unsigned kMaxLen = 32;
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
    static constexpr unsigned kMaxTriggers = 4;
    // A trigger: the instruction (an address) whose retirement applies the next
    // per_fire of its sites. Returns its index.
    unsigned add_trigger(uint64_t addr, size_t per_fire) {
        triggers_.push_back({addr, per_fire, 0});
        return unsigned(triggers_.size() - 1);
    }
    // Scheduled sites, in the order their trigger applies them.
    void schedule(uint32_t site, unsigned trigger) {
        sites_[site].trigger = uint8_t(trigger), sites_[site].pos = uint32_t(triggers_[trigger].count++);
    }
    // A firing of the trigger that changes nothing the decoder tracks.
    void schedule_nothing(unsigned trigger) { triggers_[trigger].count++; }

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
    // Called for every retired instruction that is not taken from the image's cache.
    void retire(uint64_t pc) {
        for (size_t i = 0; i < triggers_.size(); i++)
            if (triggers_[i].addr == pc) {
                cursor[i] += triggers_[i].per_fire;
                if (cursor[i] > triggers_[i].count) cursor[i] = triggers_[i].count;
            }
    }
    // Every address the decoder must not take from the image's instruction cache.
    std::vector<uint64_t> volatile_halfwords() const;

    const PatchSite &site(uint32_t i) const { return sites_[i]; }
    size_t count() const { return sites_.size(); }
    size_t scheduled_count(unsigned trigger) const { return triggers_[trigger].count; }
    size_t triggers() const { return triggers_.size(); }

    // Mutable state, shared by the decoders that use this object one after another.
    uint8_t version(uint32_t i) const {
        const PatchSite &s = sites_[i];
        return s.scheduled ? uint8_t(s.pos < cursor[s.trigger]) : belief[i];
    }
    std::vector<uint8_t> belief;                 // free sites: the version seen live last
    // Free sites that always change together (the sites of one Linux static key):
    // group[site] indexes groups, kNoGroup for none. A decoder that sees one of them in
    // a version may take it for all (E-Trace, which cannot tell every site's versions
    // apart).
    static constexpr uint32_t kNoGroup = ~0u;
    std::vector<uint32_t> group;
    std::vector<std::vector<uint32_t>> groups;
    void join(uint32_t site, uint32_t g) {
        if (group.size() < sites_.size()) group.resize(sites_.size(), kNoGroup);
        if (groups.size() <= g) groups.resize(g + 1);
        group[site] = g;
        groups[g].push_back(site);
    }
    // Takes version v for site and the sites of its group.
    void believe(uint32_t site, uint8_t v) {
        if (belief[site] != v) switches++;
        if (site < group.size() && group[site] != kNoGroup)
            for (uint32_t m : groups[group[site]]) belief[m] = v;
        belief[site] = v;
    }
    std::array<size_t, kMaxTriggers> cursor{};   // per trigger: sites applied so far
    uint64_t switches = 0;       // free sites whose version changed (statistics)
    uint64_t backtracks = 0;     // decoder retries (statistics)

  private:
    std::vector<PatchSite> sites_;
    std::unordered_map<uint64_t, uint32_t> by_hw_; // halfword index in the text -> site
    struct Trigger {
        uint64_t addr;
        size_t per_fire, count;
    };
    std::vector<Trigger> triggers_;
};

} // namespace trace
