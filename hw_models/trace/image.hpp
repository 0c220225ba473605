// SPDX-License-Identifier: BSD-2-Clause
// Program image for trace decoding: executable bytes by address (from an ELF file via
// libelf, or a raw binary at a load address) with a per-halfword cache of classified
// instructions, so a decoder walks code at table-lookup speed.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "rvinsn.hpp"

namespace trace {

class Image {
  public:
    // Adds bytes at an address (later segments win on overlap lookups in order added).
    void add(uint64_t base, std::vector<uint8_t> bytes);
    // Loads PT_LOAD segments (executable ones, or all when none is marked executable);
    // sets xlen from the ELF class. Returns false and sets err on failure.
    bool load_elf(const std::string &path, std::string &err);
    bool load_raw(const std::string &path, uint64_t base, std::string &err);
    // Writes the segments as an executable RISC-V ELF (ELFCLASS by opts.xlen).
    bool write_elf(const std::string &path, std::string &err) const;

    bool read(uint64_t addr, void *dst, unsigned n) const;
    uint64_t read_xlen(uint64_t addr, bool &ok) const;

    // Classified instruction at pc, or nullptr when pc is outside the image, odd, or
    // the instruction does not fit.
    const rv::Insn *at(uint64_t pc) const {
        if (last_ && pc - last_->base < last_->bytes.size()) return lookup(*last_, pc);
        return slow_at(pc);
    }

    // Addresses whose instruction must not be cached: code the program rewrites
    // (TextPatches), whose classification depends on the decoder's state.
    void set_volatile(const std::vector<uint64_t> &addrs) {
        volatile_.insert(addrs.begin(), addrs.end());
        for (Seg &s : segs_)
            for (uint64_t a : addrs)
                if (a - s.base < s.bytes.size() && s.cache.size() > (a - s.base) / 2) s.cache[(a - s.base) / 2] = {};
    }

    rv::Options opts;
    uint64_t jvt = 0; // Zcmt jump table base (JVT.base), 0 = unknown
    bool has_jvt = false;
    uint64_t entry = 0;

    struct Seg {
        uint64_t base;
        std::vector<uint8_t> bytes;
        mutable std::vector<rv::Insn> cache; // size 0 => not classified yet
    };
    const std::vector<Seg> &segments() const { return segs_; }
    const Seg *segment_of(uint64_t pc) const {
        for (const Seg &s : segs_)
            if (pc - s.base < s.bytes.size()) return &s;
        return nullptr;
    }

  private:
    const rv::Insn *lookup(const Seg &s, uint64_t pc) const {
        uint64_t off = pc - s.base;
        if (off & 1) return nullptr;
        const rv::Insn &c = s.cache[off >> 1];
        if (c.size) return &c;
        return classify_at(s, off);
    }
    const rv::Insn *classify_at(const Seg &s, uint64_t off) const;
    const rv::Insn *slow_at(uint64_t pc) const;
    std::vector<Seg> segs_;
    mutable const Seg *last_ = nullptr;
    std::unordered_set<uint64_t> volatile_;
    mutable rv::Insn scratch_; // a volatile address's classification, not cached
};

} // namespace trace
