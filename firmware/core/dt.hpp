// SPDX-License-Identifier: BSD-2-Clause
// Device-tree handling of the firmware core (libfdt): harts and their ISA
// extensions, memory, and the fix-ups made before hand-off. Host-testable.
#pragma once
#include <stdint.h>

namespace fw::dt {

struct MemRegion {
    uint64_t base, size;
};
constexpr unsigned kMaxMemRegions = 8;
struct Memory {
    MemRegion r[kMaxMemRegions];
    unsigned count;
};

struct HartDesc {
    unsigned long hartid;
    uint64_t isa; // bits of fw::Ext
    // The node has "mmu-type": a hart an S-mode kernel can run on (Linux's
    // riscv_early_of_processor_hartid skips the others, e.g. the FU540's E51).
    bool smode;
};

// Marks the /cpus node of every enabled hart that `served` refuses (no
// S-mode, or left out by the firmware: parked) status = "disabled", so the
// next stage does not try to use it.
int fixup_disable_harts(void *fdt, bool (*served)(uint64_t hartid));

// Removes extension `ext` from a `riscv,isa-extensions` string list of
// `len` bytes, in place; returns the new length.
int isa_list_remove(char *list, int len, const char *ext);
// Removes the multi-letter extension `ext` ("_ext") from a NUL-terminated
// `riscv,isa` string of `len` bytes (NUL included), in place; returns the
// new length (NUL included).
int isa_string_remove(char *isa, int len, const char *ext);
// An extension the next stage must not find on a hart unless the hart has
// another (`unless`, an fw::Ext bit number): the one whose M-mode enable
// it needs (enables::kWithheld).
struct Withhold {
    const char *ext;
    unsigned unless;
};
// Takes each of the `n` extensions out of every /cpus node's
// riscv,isa-extensions and riscv,isa where the node (its
// riscv,isa-extensions, else its riscv,isa) lacks its `unless` extension,
// so the next stage does not use what the firmware did not enable.
// Returns 0 or a libfdt error.
int fixup_withhold_extensions(void *fdt, const Withhold *w, unsigned n);

// ISA extension bits from a `riscv,isa` string ("rv64imafdch_zicsr_sstc...").
uint64_t parse_isa_string(const char *s, int len);
// ... and from a `riscv,isa-extensions` string list.
uint64_t parse_isa_extensions(const char *list, int len);

// Enabled CPU nodes scan_harts leaves out of its list, their hart ID at
// or above `limit` or past its `max`: their count and the first kNamed IDs.
struct Beyond {
    static constexpr unsigned kNamed = 16;
    unsigned long limit;
    unsigned count;
    unsigned long ids[kNamed];
};
// Enabled CPU nodes (status absent or "okay"), at most `max`, in one pass
// over each node's properties. Returns the count. With `beyond`, the harts
// with IDs at or above beyond->limit, and those past `max`, go there instead.
unsigned scan_harts(const void *fdt, HartDesc *out, unsigned max, Beyond *beyond = nullptr);
// /memory nodes (device_type = "memory"), at most kMaxMemRegions ranges.
bool scan_memory(const void *fdt, Memory &m);

// True when [addr, addr + size) lies inside one memory region and does not
// overlap [excl_start, excl_end); size 0 checks addr alone; wrap-around fails.
bool range_in_memory(const Memory &m, uint64_t excl_start, uint64_t excl_end, uint64_t addr,
                     uint64_t size);

// Adds /reserved-memory/<prefix>@<base> { reg = <base size>; no-map; } so
// the next stage never uses that memory (the firmware's: "mmode_resv"), as
// the first child where libfdt's fdt_add_subnode would put it, with one move
// of the rest of the tree. Returns 0 or a libfdt error.
int fixup_reserve(void *fdt, uint64_t base, uint64_t size, const char *prefix = "mmode_resv");

// Sets `node`'s reg to <base size> in `ac` address and `sc` size cells (1 or
// 2 each: the parent's). Returns 0 or a libfdt error.
int setprop_reg(void *fdt, int node, int ac, int sc, uint64_t base, uint64_t size);

// Grows the blob in place by `extra` bytes so fix-ups have room.
int open_for_fixup(void *fdt, unsigned extra);

} // namespace fw::dt

namespace fw {
// The harts of the boot device tree, as cold boot read them (scan_harts):
// their count, and `descs` pointed at them. Subsystems read this instead of
// walking /cpus again.
unsigned device_tree_harts(const dt::HartDesc *&descs);
} // namespace fw
