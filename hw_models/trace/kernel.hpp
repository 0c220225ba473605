// SPDX-License-Identifier: BSD-2-Clause
// Linux kernel inputs of the decoder: symbols (System.map / kallsyms format) and the
// code a riscv64 kernel rewrites while it boots, taken from the kernel's own patch
// tables in the raw Image (textpatch.hpp):
//   - ftrace: every __mcount_loc site (4 c.nop at a function's entry) becomes 2 nop in
//     ftrace_init(); the trace cannot tell the two apart (same control flow, 8 bytes
//     of I-CNT either way), so the sites are scheduled: ftrace_init_nop() patches
//     them in __mcount_loc order, the n-th return from its patch_insn_write() call
//     applies the n-th site;
//   - alternatives (.alternative entries of CPU features, the replacement moved as the
//     kernel does it: jal and auipc+jalr offsets fixed): riscv_cpufeature_patch_func()
//     patches the entries of the features the harts have, in table order, each with
//     patch_text_nosync() then riscv_alternative_fix_offsets(); the n-th return from
//     the latter applies the n-th such entry. Which features the harts have is read
//     from the final text (the guest RAM after power-off) at the entries outside the
//     init text (freed and poisoned by then);
//   - static keys (__jump_table: nop against "j target"): changed at any time, so they
//     are free sites, the decoder follows the trace; the final text limits them to
//     the keys whose state differs at the end (and every one in the init text).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "textpatch.hpp"

namespace kernel {

struct Symbols {
    struct Sym {
        uint64_t addr;
        std::string name;
    };
    std::vector<Sym> syms; // sorted by address
    bool load(const std::string &path, std::string &err);
    bool find(const std::string &name, uint64_t &addr) const;
    // Index of the symbol containing addr (the last one at or below it), -1 if none.
    long lookup(uint64_t addr) const;
};

struct PatchSummary {
    size_t ftrace = 0, jump = 0, alternative = 0, alternative_free = 0, skipped = 0, features = 0;
    uint64_t ftrace_trigger = 0, alt_trigger = 0;
    // Static keys (free sites) outside the init text whose final text is the toggled
    // version: a decoder that cannot tell every site's versions apart (E-Trace has no
    // instruction counts) may start from that version.
    std::vector<uint32_t> final_toggled;
};

// Adds the patch sites of the riscv64 Image `img` (linked at virt) to tp; tp.size and
// tp.aliases are set by the caller. fin: the same range of memory at the end of the
// run (nullptr: unknown; then every alternative and static key is free). Returns
// false with err when a table or symbol is missing or malformed.
bool riscv_patches(const std::vector<uint8_t> &img, const uint8_t *fin, uint64_t virt, const Symbols &syms,
                   const rv::Options &o, trace::TextPatches &tp, PatchSummary &sum, std::string &err);

} // namespace kernel
