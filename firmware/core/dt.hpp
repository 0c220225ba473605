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
    // What the tree keeps in memory besides (growth_limit): the bases of
    // /reserved-memory's children (resv_more: more than kMaxResv of them)
    // and /chosen's linux,initrd-start (0 without).
    static constexpr unsigned kMaxResv = 16;
    uint64_t resv[kMaxResv];
    unsigned resv_count;
    bool resv_more;
    uint64_t initrd;
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
    // Every cpu node of /cpus (device_type = "cpu"), enabled or not, listed
    // or not: the nodes a fix-up of every cpu node may edit.
    unsigned cpu_nodes;
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

// Room the fix-ups ask for (core/README.md "Device-tree fix-ups: their
// room"): each fix-up states the bytes it may add at most, from these.
// A property (Devicetree Specification v0.4, 5.4.1: FDT_PROP, its length,
// its name's offset, the value padded to 4 bytes) of `len` value bytes.
constexpr unsigned prop_bytes(unsigned len) { return 12 + ((len + 3) & ~3u); }
// status = "disabled" added to a node (at most: a node with "okay" or
// "ok" grows by less), and the name "status" in the strings block once.
constexpr unsigned kDisabledBytes = prop_bytes(sizeof "disabled");
constexpr unsigned kStatusNameBytes = sizeof "status";
// What fixup_reserve adds at most: the tokens of a new /reserved-memory
// and its child (built in a buffer of kReserveTokens bytes, which fails
// rather than grow) and the names of their properties.
constexpr unsigned kReserveTokens = 256;
constexpr unsigned kReserveBytes = kReserveTokens + sizeof "#address-cells" + sizeof "#size-cells" +
                                   sizeof "ranges" + sizeof "reg" + sizeof "no-map";

// The highest address the device tree at `at` may grow to in place: the
// end of the /memory range (of `m`, from scan_memory) that holds it, or
// before that the first region above it the tree itself reserves (a
// /memreserve/ entry, a /reserved-memory node's reg) or the initrd /chosen
// names. Its own end (no growth) when no /memory range holds it. The
// caller clips this to the firmware's own regions and the next stage.
uint64_t growth_limit(const void *fdt, uint64_t at, const Memory &m);

} // namespace fw::dt

namespace fw {
// The harts of the boot device tree, as cold boot read them (scan_harts):
// their count, and `descs` pointed at them. Subsystems read this instead of
// walking /cpus again.
unsigned device_tree_harts(const dt::HartDesc *&descs);
// Every cpu node of the boot device tree, enabled or not (Beyond::cpu_nodes):
// what a subsystem's fix-up of every cpu node sizes its room by.
unsigned device_tree_cpu_nodes();
} // namespace fw
