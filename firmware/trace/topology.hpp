// SPDX-License-Identifier: BSD-2-Clause
// Trace components from the device tree, in the binding of Linux's posted
// rvtrace series (riscv,trace-component.yaml; hw_models/qemu/README.md
// "Device-tree binding"): nodes compatible with "riscv,trace-component",
// typed by their tr??Impl CompType, an encoder linked to its hart by
// `cpus`, connected by OF-graph endpoints. Host-testable (libfdt, and the
// type through a function the caller gives).
#pragma once
#include <stdint.h>
#include "fw.hpp"

namespace trace {

// 512 harts on the project QEMU 10: 32 leaf funnels of 16 harts, 2 above
// them and the top-level one (hw_models/qemu/README.md, a third level above
// 256 harts); 64 harts: the top-level and four leaf funnels.
constexpr unsigned kMaxFunnels = 40;

// Where a component's output goes: a funnel (index into Topology::funnel)
// or the sink, and the input number there (its bit in trFunnelDisInput).
struct Link {
    int funnel; // -1: the sink
    unsigned port;
};

struct Encoder {
    bool present;
    uint32_t hartid; // the hart it traces (its `cpus`; below FW_HARTID_LIMIT)
    uint64_t base;
    Link out;
    uint64_t sink;   // the RAM sink its trace reaches
};
static_assert(sizeof(Encoder) == 32, "a power of two: CTR's feed indexes it per entry read");

struct Funnel {
    uint64_t base;
    Link out;
    unsigned depth; // 0: feeds the sink; enabling runs in depth order
};

struct Sink {
    bool present;
    uint64_t base;
};

// Harts the trace service serves: every hart with an encoder the firmware
// can serve (fw::kMaxHarts, 512 on QEMU virt), any hart IDs below
// FW_HARTID_LIMIT, each in a slot 0..kMaxSlots-1 (one bit of the service's
// HartMask). A hart's slot is its rank among the enabled hart IDs (hart
// IDs 0..n-1: slot = hart ID); harts past kMaxSlots get none and their
// encoders are not used (README "Harts").
constexpr unsigned kMaxSlots = FW_MAX_HARTS;
constexpr unsigned kNoSlot = ~0u;

struct Topology {
    Encoder encoder[kMaxSlots]; // by slot: encoder[0 .. encoders-1], `present` where one is
    Funnel funnel[kMaxFunnels];
    unsigned funnels;
    Sink sink;
    unsigned encoders;
    // The RAM sinks the encoders reach: the one above, and with no funnel
    // between them (one RAM sink per hart, as the E-Trace model posted for
    // upstream QEMU has it) the others. The firmware's service runs on one
    // sink: with more, the components are S-mode's (hooks.cpp).
    uint64_t sink_base[kMaxSlots];
    unsigned sinks;
    // The encoders of enabled harts past the kMaxSlots slots: [lo, hi)
    // (0, 0 without), closed to S-mode with the components M-mode keeps
    // (service.cpp mmode_regions).
    uint64_t unslotted_lo, unslotted_hi;
    // Every trace component node of the tree (component_node), enabled or
    // not, connected or not: what disable_components_in may edit, and so
    // what the trace fix-up sizes its room by (hooks.cpp fdt_room).
    unsigned nodes;
};

// The slot of hart `hartid`'s encoder, kNoSlot when it has none. One
// comparison when the hart IDs are 0..n-1.
inline unsigned slot_of(const Topology &t, unsigned long hartid) {
    if (hartid < t.encoders && t.encoder[hartid].hartid == hartid) return static_cast<unsigned>(hartid);
    for (unsigned s = 0; s < t.encoders; s++)
        if (t.encoder[s].present && t.encoder[s].hartid == hartid) return s;
    return kNoSlot;
}

// A component's type (TCI_COMPTYPE_*) from the registers at `base`, 0 when
// it has none the scan can use (the firmware's: component_type, driver.hpp).
using ComponentType = unsigned (*)(uint64_t base);

// `bytes` of memory aligned to `align` for the scan's tables, valid until
// scan_topology returns; null when there is none (then the scan finds no
// component). The firmware's: cold-boot scratch after its carved memory
// (hooks.cpp, fw::cold_scratch); host tests: their own.
void *scan_scratch(unsigned long bytes, unsigned long align);

// The tree has a node compatible with "riscv,trace-component" outside
// /cpus (one walk that reads each property once).
bool any_component(const void *fdt);

// Fills `t` from the device tree. Components that are not connected to the
// first RAM sink (through funnels) are left out, except encoders feeding
// another RAM sink directly (Topology::sinks). Returns the number of
// encoders that reach the sink; 0 means no trace (not an error).
unsigned scan_topology(const void *fdt, Topology &t, ComponentType type_of);

// Nodes are at most this deep in a tree the scan walks.
constexpr int kMaxDepth = 16;

// `node` (a child of `parent`) is a trace component, enabled or not: it is
// compatible with "riscv,trace-component" and its reg is one 4 KiB-aligned
// register block at `base`.
bool component_node(const void *fdt, int node, int parent, uint64_t &base);

// A register range, naturally aligned (a PMP region).
struct Region {
    uint64_t base, size;
};

// Sets status = "disabled" on every trace component node whose registers
// lie in one of the `n` regions `r`, enabled or not, connected or not.
// Returns how many could not be changed (no room in the blob).
unsigned disable_components_in(void *fdt, const Region *r, unsigned n);

} // namespace trace
