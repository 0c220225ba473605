// SPDX-License-Identifier: BSD-2-Clause
#include "drivers.hpp"
#include <libfdt.h>
#include <string.h>

namespace drivers {

static uint64_t read_cells(const fdt32_t *p, int cells) {
    uint64_t v = 0;
    for (int i = 0; i < cells; i++) v = (v << 32) | fdt32_to_cpu(p[i]);
    return v;
}

namespace {
struct IndexEntry {
    int node, parent;
    uint32_t phandle;
    int compat_len;
    const char *compat;
};
// QEMU virt has about 30 device nodes, whatever the hart count.
constexpr unsigned kIndexMax = 128;
constexpr int kIndexDepth = 16;
struct Index {
    const void *fdt; // null: no index
    unsigned count;
    IndexEntry e[kIndexMax];
} g_index;

const IndexEntry *indexed(const void *fdt, int node) {
    if (!g_index.fdt || fdt != g_index.fdt) return nullptr;
    unsigned lo = 0, hi = g_index.count; // entries are in offset order
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        if (g_index.e[mid].node < node) lo = mid + 1;
        else hi = mid;
    }
    return lo < g_index.count && g_index.e[lo].node == node ? &g_index.e[lo] : nullptr;
}
} // namespace

void fdt_index_build(const void *fdt) {
    g_index.fdt = nullptr;
    g_index.count = 0;
    int parents[kIndexDepth];
    int depth = 0, cpus_depth = -1;
    for (int node = 0; node >= 0 && depth >= 0; node = fdt_next_node(fdt, node, &depth)) {
        if (cpus_depth >= 0 && depth > cpus_depth) continue; // inside /cpus
        cpus_depth = -1;
        if (depth >= kIndexDepth || g_index.count == kIndexMax) return; // libfdt's look-ups then
        parents[depth] = node;
        if (depth == 1) {
            const char *name = fdt_get_name(fdt, node, nullptr);
            if (name && !strcmp(name, "cpus")) {
                cpus_depth = depth;
                continue;
            }
        }
        IndexEntry &e = g_index.e[g_index.count++];
        e.node = node;
        e.parent = depth ? parents[depth - 1] : -FDT_ERR_NOTFOUND;
        e.phandle = fdt_get_phandle(fdt, node);
        e.compat = static_cast<const char *>(fdt_getprop(fdt, node, "compatible", &e.compat_len));
        if (!e.compat) e.compat_len = 0;
    }
    g_index.fdt = fdt;
}

void fdt_index_drop() { g_index.fdt = nullptr; }

int fdt_find_compatible(const void *fdt, int from, const char *compat) {
    if (!g_index.fdt || fdt != g_index.fdt) return fdt_node_offset_by_compatible(fdt, from, compat);
    for (unsigned i = 0; i < g_index.count; i++) {
        const IndexEntry &e = g_index.e[i];
        if (e.node > from && e.compat_len && fdt_stringlist_contains(e.compat, e.compat_len, compat))
            return e.node;
    }
    return -FDT_ERR_NOTFOUND;
}

int fdt_find_phandle(const void *fdt, uint32_t phandle) {
    if (!g_index.fdt || fdt != g_index.fdt) return fdt_node_offset_by_phandle(fdt, phandle);
    if (phandle == 0 || phandle == ~0u) return -FDT_ERR_BADPHANDLE;
    for (unsigned i = 0; i < g_index.count; i++)
        if (g_index.e[i].phandle == phandle) return g_index.e[i].node;
    // A phandle inside /cpus (not indexed): libfdt's walk.
    return fdt_node_offset_by_phandle(fdt, phandle);
}

int fdt_next_device(const void *fdt, int node) {
    if (!g_index.fdt || fdt != g_index.fdt) return fdt_next_node(fdt, node, nullptr);
    for (unsigned i = 0; i < g_index.count; i++)
        if (g_index.e[i].node > node) return g_index.e[i].node;
    return -FDT_ERR_NOTFOUND;
}

bool fdt_is_compatible(const void *fdt, int node, const char *compat) {
    if (const IndexEntry *e = indexed(fdt, node))
        return e->compat_len && fdt_stringlist_contains(e->compat, e->compat_len, compat);
    return fdt_node_check_compatible(fdt, node, compat) == 0;
}

int fdt_find_parent(const void *fdt, int node) {
    if (const IndexEntry *e = indexed(fdt, node)) return e->parent;
    return fdt_parent_offset(fdt, node);
}

bool fdt_get_reg(const void *fdt, int node, int index, uint64_t &addr, uint64_t &size) {
    int parent = fdt_find_parent(fdt, node);
    if (parent < 0) return false;
    int ac = fdt_address_cells(fdt, parent), sc = fdt_size_cells(fdt, parent);
    if (ac < 1 || ac > 2 || sc < 0 || sc > 2) return false;
    int len;
    auto *reg = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, "reg", &len));
    if (!reg) return false;
    int stride = ac + sc;
    if (len < (index + 1) * stride * 4) return false;
    reg += index * stride;
    addr = read_cells(reg, ac);
    size = sc ? read_cells(reg + ac, sc) : 0;
    return true;
}

void IntcMap::init(const void *fdt) {
    count_ = next_ = 0;
    // One walk of /cpus: each cpu node's interrupt-controller child
    // (riscv,cpu-intc binding) and its phandle. Looking a phandle up with
    // fdt_node_offset_by_phandle and fdt_parent_offset walks the whole tree
    // twice per lookup, and a CLINT lists two per hart: quadratic in harts.
    int cpus = fdt_path_offset(fdt, "/cpus");
    if (cpus < 0) return;
    int ac = fdt_address_cells(fdt, cpus);
    if (ac < 1 || ac > 2) return;
    int cpu;
    fdt_for_each_subnode(cpu, fdt, cpus) {
        int len;
        auto *reg = static_cast<const fdt32_t *>(fdt_getprop(fdt, cpu, "reg", &len));
        if (!reg || len < ac * 4) continue;
        const uint64_t hartid = read_cells(reg, ac);
        if (hartid > 0xffffffffu) continue;
        int intc;
        fdt_for_each_subnode(intc, fdt, cpu) {
            const uint32_t ph = fdt_get_phandle(fdt, intc);
            if (!ph || !fdt_getprop(fdt, intc, "interrupt-controller", nullptr)) continue;
            if (count_ == kMax) return;
            e_[count_++] = {ph, static_cast<uint32_t>(hartid)};
        }
    }
}

long IntcMap::hartid(uint32_t phandle) {
    // interrupts-extended lists the harts in /cpus order, as QEMU and the
    // vendors' trees do: the next entry is almost always the one asked for.
    for (unsigned k = 0; k < count_; k++) {
        unsigned i = (next_ + k) % count_;
        if (e_[i].phandle == phandle) {
            next_ = i + 1 == count_ ? 0 : i + 1;
            return static_cast<long>(e_[i].hartid);
        }
    }
    return -1;
}

} // namespace drivers
