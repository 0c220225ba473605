// SPDX-License-Identifier: BSD-2-Clause
#include "topology.hpp"
#include "tci.hpp"
#include <libfdt.h>

namespace trace {
namespace {

constexpr const char *kCompatible = "riscv,trace-component";
constexpr unsigned kMaxComponents = fw::kMaxHarts + kMaxFunnels + 4;

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

bool get_base(const void *fdt, int node, uint64_t &base) {
    int parent = fdt_parent_offset(fdt, node);
    if (parent < 0) return false;
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

// The hart ID of the /cpus node `cpu` names.
bool get_hartid(const void *fdt, int node, unsigned long &hartid) {
    uint32_t ph;
    if (!get_u32(fdt, node, "cpu", ph)) return false;
    int cpu = fdt_node_offset_by_phandle(fdt, ph);
    if (cpu < 0) return false;
    int len;
    auto *reg = static_cast<const fdt32_t *>(fdt_getprop(fdt, cpu, "reg", &len));
    if (!reg || len < 4) return false;
    hartid = static_cast<unsigned long>(len >= 8 ? read_cells(reg, 2) : fdt32_to_cpu(reg[0]));
    return true;
}

// Follows out-ports/port@0/endpoint's remote-endpoint to the component node
// at the other end; `port` is the remote port's reg (its input number).
int remote_component(const void *fdt, int node, unsigned &port) {
    int ports = fdt_subnode_offset(fdt, node, "out-ports");
    if (ports < 0) return -1;
    int p = fdt_first_subnode(fdt, ports);
    if (p < 0) return -1;
    int ep = fdt_subnode_offset(fdt, p, "endpoint");
    uint32_t ph;
    if (ep < 0 || !get_u32(fdt, ep, "remote-endpoint", ph)) return -1;
    int rep = fdt_node_offset_by_phandle(fdt, ph);
    if (rep < 0) return -1;
    int rport = fdt_parent_offset(fdt, rep);
    if (rport < 0) return -1;
    uint32_t reg = 0;
    get_u32(fdt, rport, "reg", reg); // a single port may omit reg: input 0
    port = reg;
    int rports = fdt_parent_offset(fdt, rport);
    return rports < 0 ? -1 : fdt_parent_offset(fdt, rports);
}

struct Node {
    int offset;
    uint32_t type;
    uint64_t base;
};

} // namespace

unsigned scan_topology(const void *fdt, Topology &t) {
    t = Topology{};
    Node nodes[kMaxComponents];
    unsigned n = 0;
    for (int node = fdt_node_offset_by_compatible(fdt, -1, kCompatible); node >= 0;
         node = fdt_node_offset_by_compatible(fdt, node, kCompatible)) {
        uint32_t type;
        uint64_t base;
        if (n == kMaxComponents || !get_u32(fdt, node, "riscv,trace-component-type", type) ||
            !get_base(fdt, node, base))
            continue;
        const char *status = static_cast<const char *>(fdt_getprop(fdt, node, "status", nullptr));
        if (status && status[0] && !(status[0] == 'o' && status[1] == 'k')) continue;
        nodes[n++] = {node, type, base};
    }
    // The RAM sink (the first one; a second sink is not used).
    int sink_node = -1;
    for (unsigned i = 0; i < n; i++)
        if (nodes[i].type == TCI_COMPTYPE_RAMSINK) {
            sink_node = nodes[i].offset;
            t.sink = {true, nodes[i].base};
            break;
        }
    if (sink_node < 0) return 0;
    // Funnels, then where each one's output goes.
    int funnel_node[kMaxFunnels];
    for (unsigned i = 0; i < n && t.funnels < kMaxFunnels; i++)
        if (nodes[i].type == TCI_COMPTYPE_FUNNEL) {
            funnel_node[t.funnels] = nodes[i].offset;
            t.funnel[t.funnels++].base = nodes[i].base;
        }
    auto link_of = [&](int node, Link &l) {
        unsigned port;
        int to = remote_component(fdt, node, port);
        if (to < 0) return false;
        l.port = port;
        if (to == sink_node) {
            l.funnel = -1;
            return true;
        }
        for (unsigned f = 0; f < t.funnels; f++)
            if (funnel_node[f] == to) {
                l.funnel = static_cast<int>(f);
                return true;
            }
        return false;
    };
    bool linked[kMaxFunnels] = {};
    for (unsigned f = 0; f < t.funnels; f++) linked[f] = link_of(funnel_node[f], t.funnel[f].out);
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
        unsigned long hartid;
        Link l;
        if (!get_hartid(fdt, nodes[i].offset, hartid) || hartid >= fw::kMaxHarts ||
            t.encoder[hartid].present || !link_of(nodes[i].offset, l))
            continue;
        if (l.funnel >= 0 && t.funnel[l.funnel].depth >= kMaxFunnels) continue;
        t.encoder[hartid] = {true, nodes[i].base, l};
        t.encoders++;
    }
    return t.encoders;
}

} // namespace trace
