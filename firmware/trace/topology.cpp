// SPDX-License-Identifier: BSD-2-Clause
// One walk over the device tree, then only lookups local to the component
// nodes: libfdt's parent and phandle searches walk the blob from its start
// each time, which made the scan quadratic in the number of components.
#include "topology.hpp"
#include "tci.hpp"
#include <libfdt.h>
#include <string.h>
#include "fdt_walk.hpp"

namespace trace {
namespace {

constexpr const char *kCompatible = "riscv,trace-component";
constexpr unsigned kMaxComponents = kMaxSlots + kMaxFunnels + 4;
// Input endpoints of all funnels (16 inputs each) and sinks, those of
// harts without a slot included.
constexpr unsigned kMaxInputs = kMaxFunnels * 16 + 8;

uint64_t read_cells(const fdt32_t *p, int cells) {
    uint64_t v = 0;
    for (int i = 0; i < cells; i++) v = (v << 32) | fdt32_to_cpu(p[i]);
    return v;
}

bool get_u32(const void *fdt, int node, const char *name, uint32_t &v) {
    int len;
    auto *p = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, name, &len));
    if (!p || len < 4) return false;
    v = fdt32_to_cpu(*p);
    return true;
}

struct Node {
    int offset, parent;
    uint32_t type;
    uint64_t base;
};

// An input endpoint of a funnel or sink: its phandle, the component (index
// into the node table) and the port's reg (the input number).
struct Input {
    uint32_t phandle;
    unsigned comp, port;
};

struct Cpu {
    uint32_t phandle, hartid;
};
// Enabled cpu nodes the scan keeps: every hart ID below FW_HARTID_LIMIT,
// so an encoder of a hart past the slots is known as one (and closed).
constexpr unsigned kMaxCpus = FW_HARTID_LIMIT;

// The scan's tables, about 25 KiB with 512 harts: in cold-boot scratch
// memory (scan_scratch), not in the image's bss for every boot.
struct Scratch {
    Node nodes[kMaxComponents];
    Cpu cpus[kMaxCpus];
    Input inputs[kMaxInputs];
};

} // namespace

bool component_node(const void *fdt, int node, int parent, uint64_t &base) {
    if (fdt_node_check_compatible(fdt, node, kCompatible) != 0) return false;
    int ac = fdt_address_cells(fdt, parent), sc = fdt_size_cells(fdt, parent);
    if (ac < 1 || ac > 2 || sc < 0 || sc > 2) return false;
    int len;
    auto *reg = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, "reg", &len));
    if (!reg || len < (ac + sc) * 4) return false;
    base = read_cells(reg, ac);
    // A component is one 4 KiB register block (TCI 1.0 "Trace Components").
    uint64_t size = sc ? read_cells(reg + ac, sc) : 0;
    return (base & (TCI_COMPONENT_SIZE - 1)) == 0 && size >= TCI_COMPONENT_SIZE;
}

unsigned disable_components_in(void *fdt, const Region *r, unsigned n) {
    if (!n) return 0;
    unsigned failed = 0;
    int stack[kMaxDepth + 1] = {-1};
    // Setting a property moves only what follows it inside this node: the
    // walk's offsets (this node and its ancestors) stay valid.
    for (int node = 0, depth = 0; node >= 0 && depth >= 0; node = fdt_next_node(fdt, node, &depth)) {
        if (depth > kMaxDepth) continue;
        stack[depth] = node;
        uint64_t base;
        if (!depth || !component_node(fdt, node, stack[depth - 1], base)) continue;
        for (unsigned i = 0; i < n; i++)
            if (base - r[i].base < r[i].size) {
                failed += fdt_setprop_string(fdt, node, "status", "disabled") != 0;
                break;
            }
    }
    return failed;
}

bool any_component(const void *fdt) {
    // One walk that reads each property once (include/fdt_walk.hpp), where
    // the scan asks libfdt for every node's compatible, at a cost that
    // grows with the harts. It skips /cpus: components are MMIO blocks (4 KiB
    // of reg), and /cpus has #size-cells = 0 and holds cpu nodes.
    struct Any {
        bool found = false;
        bool begin(int, int depth, const char *name) { return !found && !fdtw::is_cpus(depth, name); }
        void prop(int, int, const fdtw::Prop &p) {
            if (!found && fdtw::name_is(p, "compatible") && fdtw::stringlist_has(p, kCompatible)) found = true;
        }
        void end(int, int) {}
    } any;
    return !fdtw::walk(fdt, 0, any) || any.found;
}

unsigned scan_topology(const void *fdt, Topology &t, ComponentType type_of) {
    t = Topology{};
    // Most trees have no trace component: the walk says so cheaply.
    if (!any_component(fdt)) return 0;
    // Not on the stack (an M-mode stack is 4 KiB) nor in the bss: the scan
    // runs once, on the boot hart, before any other hart runs.
    auto *scratch = static_cast<Scratch *>(scan_scratch(sizeof(Scratch), alignof(Scratch)));
    if (!scratch) return 0;
    Node *nodes = scratch->nodes;
    Cpu *cpus = scratch->cpus;
    unsigned n = 0, ncpus = 0, nencoders = 0, found = 0;
    auto enabled = [&](int node) {
        const char *status = static_cast<const char *>(fdt_getprop(fdt, node, "status", nullptr));
        return !status || !strcmp(status, "okay") || !strcmp(status, "ok");
    };
    // The harts an encoder can serve: enabled cpu nodes with a hart ID
    // below FW_HARTID_LIMIT, before the components (the slots go to
    // encoders of these harts only).
    const int cpus_node = fdt_path_offset(fdt, "/cpus");
    int cpu;
    if (cpus_node >= 0)
        fdt_for_each_subnode(cpu, fdt, cpus_node) {
            int len;
            auto *reg = static_cast<const fdt32_t *>(fdt_getprop(fdt, cpu, "reg", &len));
            const uint32_t ph = fdt_get_phandle(fdt, cpu);
            const uint64_t id = !reg || len < 4 ? FW_HARTID_LIMIT
                                : len >= 8     ? read_cells(reg, 2)
                                               : fdt32_to_cpu(reg[0]);
            if (ph && id < FW_HARTID_LIMIT && ncpus < kMaxCpus && enabled(cpu))
                cpus[ncpus++] = {ph, static_cast<uint32_t>(id)};
        }
    // The slots go to the lowest hart IDs: encoders of harts above the
    // kMaxSlots-th enabled hart ID get none (in tree order they may come
    // first: QEMU lists its components from the highest hart down).
    static uint64_t seen[FW_HARTID_LIMIT / 64];
    memset(seen, 0, sizeof seen);
    for (unsigned c = 0; c < ncpus; c++) seen[cpus[c].hartid / 64] |= 1ull << (cpus[c].hartid % 64);
    // A hart's slot is its rank among the enabled hart IDs (below[w]: those
    // in words before w), so the slots follow the hart IDs and a hart the
    // firmware leaves out (the highest IDs, core/README.md) has a slot above
    // those of the harts it serves.
    uint16_t below[FW_HARTID_LIMIT / 64];
    for (unsigned w = 0, k = 0; w < FW_HARTID_LIMIT / 64; w++) {
        below[w] = static_cast<uint16_t>(k);
        k += static_cast<unsigned>(__builtin_popcountll(seen[w]));
    }
    auto rank = [&](uint32_t id) {
        return below[id / 64] + static_cast<unsigned>(__builtin_popcountll(seen[id / 64] & ((1ull << (id % 64)) - 1)));
    };
    uint32_t id_cut = FW_HARTID_LIMIT; // hart IDs at or above it get no slot
    for (unsigned w = 0, k = 0; w < FW_HARTID_LIMIT / 64 && id_cut == FW_HARTID_LIMIT; w++)
        for (uint64_t m = seen[w]; m; m &= m - 1)
            if (++k > kMaxSlots) {
                id_cut = w * 64 + static_cast<uint32_t>(__builtin_ctzll(m));
                break;
            }
    auto hart_of = [&](int node, uint32_t &id) {
        uint32_t ph;
        if (!get_u32(fdt, node, "cpus", ph)) return false;
        for (unsigned c = 0; c < ncpus; c++)
            if (cpus[c].phandle == ph) return id = cpus[c].hartid, true;
        return false;
    };
    int stack[kMaxDepth + 1] = {-1};
    for (int node = 0, depth = 0; node >= 0 && depth >= 0; node = fdt_next_node(fdt, node, &depth)) {
        if (depth > kMaxDepth) continue;
        stack[depth] = node;
        int parent = depth ? stack[depth - 1] : -1;
        if (parent == cpus_node && depth == 2) continue;
        Node c{node, parent, 0, 0};
        if (!component_node(fdt, node, parent, c.base)) continue;
        t.nodes++;
        if (n == kMaxComponents || !enabled(node)) continue;
        // The binding names no type: the component tells it (tr??Impl).
        c.type = type_of(c.base);
        // An encoder takes a node only for an enabled hart, and the first
        // kMaxSlots of them only: the funnels and sinks keep their room.
        uint32_t id;
        if (c.type == TCI_COMPTYPE_ENCODER) {
            if (!hart_of(node, id)) continue;
            if (nencoders == kMaxSlots || id >= id_cut) {
                // An enabled hart's encoder past the slots: no service, but
                // closed to S-mode with the others (its trace may reach the
                // sink M-mode keeps).
                if (!t.unslotted_hi || c.base < t.unslotted_lo) t.unslotted_lo = c.base;
                if (c.base + TCI_COMPONENT_SIZE > t.unslotted_hi) t.unslotted_hi = c.base + TCI_COMPONENT_SIZE;
                continue;
            }
        }
        nencoders += c.type == TCI_COMPTYPE_ENCODER;
        if (c.type) nodes[n++] = c;
    }
    // Input endpoints of funnels and sinks.
    Input *inputs = scratch->inputs;
    unsigned ninputs = 0;
    for (unsigned i = 0; i < n; i++) {
        int ports = fdt_subnode_offset(fdt, nodes[i].offset, "in-ports");
        // An encoder has none. (libfdt's fdt_first_subnode(fdt, -1) is the
        // root, whose "subnodes" loop walked the whole tree twice per
        // encoder: a cold boot quadratic in harts on the project QEMU 10.)
        if (ports < 0) continue;
        int port;
        fdt_for_each_subnode(port, fdt, ports) {
            uint32_t reg = 0;
            get_u32(fdt, port, "reg", reg); // a single port may omit reg: input 0
            int ep = fdt_subnode_offset(fdt, port, "endpoint");
            uint32_t ph = ep >= 0 ? fdt_get_phandle(fdt, ep) : 0;
            if (ph && ninputs < kMaxInputs) inputs[ninputs++] = {ph, i, reg};
        }
    }
    // Where out-ports/port@0/endpoint's remote-endpoint leads: a component
    // index and its input number, or -1.
    auto follow = [&](unsigned i, unsigned &port) -> int {
        int ports = fdt_subnode_offset(fdt, nodes[i].offset, "out-ports");
        int p = ports < 0 ? -1 : fdt_first_subnode(fdt, ports);
        int ep = p < 0 ? -1 : fdt_subnode_offset(fdt, p, "endpoint");
        uint32_t ph;
        if (ep < 0 || !get_u32(fdt, ep, "remote-endpoint", ph)) return -1;
        for (unsigned k = 0; k < ninputs; k++)
            if (inputs[k].phandle == ph) {
                port = inputs[k].port;
                return static_cast<int>(inputs[k].comp);
            }
        return -1;
    };
    // The RAM sink (the first one; a second sink is not used).
    int sink = -1;
    for (unsigned i = 0; i < n && sink < 0; i++)
        if (nodes[i].type == TCI_COMPTYPE_RAMSINK) {
            sink = static_cast<int>(i);
            t.sink = {true, nodes[i].base};
        }
    if (sink < 0) return 0;
    static int funnel_of[kMaxComponents]; // node index -> funnel index, or -1
    for (unsigned i = 0; i < n; i++) {
        funnel_of[i] = -1;
        if (nodes[i].type == TCI_COMPTYPE_FUNNEL && t.funnels < kMaxFunnels) {
            funnel_of[i] = static_cast<int>(t.funnels);
            t.funnel[t.funnels++].base = nodes[i].base;
        }
    }
    auto link_of = [&](unsigned i, Link &l) {
        int to = follow(i, l.port);
        if (to < 0) return false;
        l.funnel = to == sink ? -1 : funnel_of[to];
        return to == sink || l.funnel >= 0;
    };
    bool linked[kMaxFunnels] = {};
    for (unsigned i = 0; i < n; i++)
        if (funnel_of[i] >= 0) linked[funnel_of[i]] = link_of(i, t.funnel[funnel_of[i]].out);
    // Depth: distance from the sink. A funnel that does not reach the sink
    // (or a cycle) keeps depth kMaxFunnels and is dropped with its inputs.
    for (unsigned f = 0; f < t.funnels; f++) {
        unsigned d = 0;
        int g = static_cast<int>(f);
        while (g >= 0 && d < kMaxFunnels && linked[g]) {
            g = t.funnel[g].out.funnel;
            d++;
        }
        t.funnel[f].depth = g < 0 ? d - 1 : kMaxFunnels;
    }
    for (unsigned i = 0; i < n; i++) {
        if (nodes[i].type != TCI_COMPTYPE_ENCODER) continue;
        uint32_t hartid;
        if (!hart_of(nodes[i].offset, hartid) || hartid >= id_cut) continue;
        const unsigned slot = rank(hartid);
        if (t.encoder[slot].present) continue; // a second encoder of the hart
        Link l;
        uint64_t reached = t.sink.base;
        int to = follow(i, l.port);
        if (to >= 0 && to != sink && nodes[to].type == TCI_COMPTYPE_RAMSINK) {
            l.funnel = -1; // its own RAM sink
            reached = nodes[to].base;
        } else if (!link_of(i, l)) {
            continue;
        }
        if (l.funnel >= 0 && t.funnel[l.funnel].depth >= kMaxFunnels) continue;
        t.encoder[slot] = {true, hartid, nodes[i].base, l, reached};
        if (slot >= t.encoders) t.encoders = slot + 1;
        found++;
        unsigned k = 0;
        while (k < t.sinks && t.sink_base[k] != reached) k++;
        if (k == t.sinks && t.sinks < kMaxSlots) t.sink_base[t.sinks++] = reached;
    }
    return found;
}

} // namespace trace
