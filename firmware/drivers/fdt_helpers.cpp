// SPDX-License-Identifier: BSD-2-Clause
#include "drivers.hpp"
#include <libfdt.h>
#include <string.h>
#include "fdt_walk.hpp"

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
    const char *compat, *name;
};
// QEMU virt has about 30 device nodes, whatever the hart count.
constexpr unsigned kIndexMax = 128;
constexpr int kIndexDepth = 16;
struct Index {
    const void *fdt;      // the tree being indexed; null: none (libfdt's look-ups)
    bool current;         // built since the last fdt_index_drop
    bool complete;        // every device node fitted
    uint32_t struct_size; // size_dt_struct when built: an edit that moved nodes changed it
    unsigned count;
    IndexEntry e[kIndexMax];
} g_index;

// OF graph port containers (the graph binding's "ports"; "in-ports" and
// "out-ports" of trace components, as CoreSight's) hold endpoints, never a
// device, and on the project QEMU 10 grow with the harts (an encoder's
// out-ports, port@0 and endpoint per hart): left out of the index, which
// then holds QEMU virt's 64-hart tree (look-ups inside them are libfdt's).
bool graph_ports(const char *name) {
    return !strcmp(name, "ports") || !strcmp(name, "in-ports") || !strcmp(name, "out-ports");
}

struct IndexBuilder {
    int parents[kIndexDepth];
    bool begin(int node, int depth, const char *name) {
        if (depth && graph_ports(name)) return false;
        if (depth >= kIndexDepth || g_index.count == kIndexMax) {
            g_index.complete = false;
            return false;
        }
        parents[depth] = node;
        g_index.e[g_index.count++] = {node, depth ? parents[depth - 1] : -FDT_ERR_NOTFOUND, 0, 0, nullptr, name};
        // /cpus itself, not what is inside: it grows with the harts and
        // holds no device the drivers look for.
        return !(depth == 1 && !strcmp(name, "cpus"));
    }
    void prop(int node, int, const fdtw::Prop &p) {
        IndexEntry &e = g_index.e[g_index.count - 1];
        if (e.node != node) return; // a property after a skipped child: not ours
        if (fdtw::name_is(p, "compatible")) e.compat = static_cast<const char *>(p.data), e.compat_len = p.len;
        else if ((fdtw::name_is(p, "phandle") || (!e.phandle && fdtw::name_is(p, "linux,phandle"))) && p.len == 4)
            e.phandle = fdtw::be32(p.data);
    }
    void end(int, int) {}
};

// The index of `fdt`, rebuilt when an edit made it stale; null when
// look-ups must be libfdt's.
const Index *index_of(const void *fdt) {
    if (!g_index.fdt || fdt != g_index.fdt) return nullptr;
    if (!g_index.current || fdtw::header(fdt, fdtw::HDR_SIZE_STRUCT) != g_index.struct_size) {
        g_index.count = 0;
        g_index.complete = true;
        IndexBuilder b;
        if (!fdtw::walk(fdt, 0, b)) g_index.complete = false;
        g_index.current = true;
        g_index.struct_size = fdtw::header(fdt, fdtw::HDR_SIZE_STRUCT);
    }
    return g_index.complete ? &g_index : nullptr;
}

const IndexEntry *indexed(const void *fdt, int node) {
    const Index *ix = index_of(fdt);
    if (!ix) return nullptr;
    unsigned lo = 0, hi = ix->count; // entries are in offset order
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        if (ix->e[mid].node < node) lo = mid + 1;
        else hi = mid;
    }
    return lo < ix->count && ix->e[lo].node == node ? &ix->e[lo] : nullptr;
}
} // namespace

void fdt_index_build(const void *fdt) {
    g_index.fdt = fdtw::header_ok(fdt) ? fdt : nullptr;
    g_index.current = false;
}

void fdt_index_drop() { g_index.current = false; }

void fdt_index_close() {
    g_index.fdt = nullptr;
    g_index.current = false;
}

int fdt_find_path(const void *fdt, const char *path) {
    // An absolute path to a device node, component by component as
    // fdt_path_offset matches them (a component without a unit address
    // matches a node that has one). Aliases, and paths into /cpus, are
    // libfdt's.
    const Index *ix = path[0] == '/' ? index_of(fdt) : nullptr;
    if (!ix) return fdt_path_offset(fdt, path);
    int node = 0;
    for (const char *p = path + 1; *p;) {
        const char *q = strchr(p, '/');
        const size_t n = q ? size_t(q - p) : strlen(p);
        if (n == 0) break; // a trailing '/'
        int found = -FDT_ERR_NOTFOUND;
        for (unsigned i = 0; i < ix->count && found < 0; i++) {
            const IndexEntry &e = ix->e[i];
            if (e.parent == node && !strncmp(e.name, p, n) &&
                (e.name[n] == 0 || (e.name[n] == '@' && !memchr(p, '@', n))))
                found = e.node;
        }
        if (found < 0) return fdt_path_offset(fdt, path);
        node = found;
        p += n;
        if (*p == '/') p++;
    }
    return node;
}

int fdt_find_compatible(const void *fdt, int from, const char *compat) {
    const Index *ix = index_of(fdt);
    if (!ix) return fdt_node_offset_by_compatible(fdt, from, compat);
    for (unsigned i = 0; i < ix->count; i++) {
        const IndexEntry &e = ix->e[i];
        if (e.node > from && e.compat_len && fdt_stringlist_contains(e.compat, e.compat_len, compat))
            return e.node;
    }
    return -FDT_ERR_NOTFOUND;
}

int fdt_find_phandle(const void *fdt, uint32_t phandle) {
    const Index *ix = index_of(fdt);
    if (!ix) return fdt_node_offset_by_phandle(fdt, phandle);
    if (phandle == 0 || phandle == ~0u) return -FDT_ERR_BADPHANDLE;
    for (unsigned i = 0; i < ix->count; i++)
        if (ix->e[i].phandle == phandle) return ix->e[i].node;
    // A phandle inside /cpus (not indexed): libfdt's walk.
    return fdt_node_offset_by_phandle(fdt, phandle);
}

int fdt_next_device(const void *fdt, int node) {
    const Index *ix = index_of(fdt);
    if (!ix) return fdt_next_node(fdt, node, nullptr);
    for (unsigned i = 0; i < ix->count; i++)
        if (ix->e[i].node > node) return ix->e[i].node;
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

uint32_t fdt_get_u32(const void *fdt, int node, const char *name, uint32_t dflt) {
    int len;
    auto *p = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, name, &len));
    return p && len >= 4 ? fdt32_to_cpu(*p) : dflt;
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
    int cpus = fdt_find_path(fdt, "/cpus");
    if (cpus < 0) return;
    struct Visitor {
        IntcMap &m;
        int ac = 2;      // /cpus #address-cells (libfdt's default when absent)
        uint64_t hartid; // of the cpu node open at depth 1
        bool has_reg, is_intc;
        uint32_t phandle;
        bool begin(int, int depth, const char *) {
            if (depth == 1) has_reg = false;
            if (depth == 2) is_intc = false, phandle = 0;
            return depth <= 2;
        }
        void prop(int, int depth, const fdtw::Prop &p) {
            if (depth == 0 && p.len == 4 && fdtw::name_is(p, "#address-cells")) ac = int(fdtw::be32(p.data));
            else if (depth == 1 && fdtw::name_is(p, "reg") && ac >= 1 && ac <= 2 && p.len >= ac * 4) {
                hartid = read_cells(static_cast<const fdt32_t *>(p.data), ac);
                has_reg = true;
            } else if (depth == 2 && fdtw::name_is(p, "interrupt-controller")) {
                is_intc = true;
            } else if (depth == 2 && p.len == 4 && (fdtw::name_is(p, "phandle") || (!phandle && fdtw::name_is(p, "linux,phandle")))) {
                phandle = fdtw::be32(p.data);
            }
        }
        void end(int, int depth) {
            if (depth != 2 || !is_intc || !phandle || !has_reg || hartid > 0xffffffffu || m.count_ == kMax) return;
            if (!m.count_ || phandle < m.lo_) m.lo_ = phandle;
            if (!m.count_ || phandle > m.hi_) m.hi_ = phandle;
            m.e_[m.count_++] = {phandle, static_cast<uint32_t>(hartid)};
        }
    } v{*this};
    fdtw::walk(fdt, cpus, v);
}

long IntcMap::hartid(uint32_t phandle) {
    // interrupts-extended lists the harts in /cpus order, each hart's
    // contexts together (QEMU's CLINT: <&intc0 3 &intc0 7 &intc1 3 ...>), as
    // the vendors' trees do: the entry found last or the one after it is
    // almost always the one asked for, so the search starts at the last.
    // A phandle outside the range held (a hart the map has no room for:
    // QEMU numbers the harts' controllers in order) is no hart's at once.
    if (phandle < lo_ || phandle > hi_) return -1;
    for (unsigned k = 0; k < count_; k++) {
        unsigned i = next_ + k < count_ ? next_ + k : next_ + k - count_;
        if (e_[i].phandle == phandle) {
            next_ = i;
            return static_cast<long>(e_[i].hartid);
        }
    }
    return -1;
}

} // namespace drivers

namespace drivers {
int fdt_disable_covered(void *fdt, const char *compat, const AclintBlock *own, unsigned n) {
    // No block of M-mode's: nothing to disable, and no walk of the whole
    // tree (libfdt's compatible search reads every node: about 570,000
    // instructions at 1 hart and 58,000 more a hart on QEMU virt, bench 18).
    if (!n) return 0;
    for (int node = fdt_node_offset_by_compatible(fdt, -1, compat); node >= 0;
         node = fdt_node_offset_by_compatible(fdt, node, compat)) {
        uint64_t a, s;
        if (!fdt_get_reg(fdt, node, 0, a, s)) continue;
        bool mine = false;
        for (unsigned i = 0; i < n && !mine; i++) mine = a >= own[i].base && a - own[i].base < own[i].size;
        if (!mine) continue;
        if (int err = fdt_setprop_string(fdt, node, "status", "disabled")) return err;
    }
    return 0;
}
} // namespace drivers
