// SPDX-License-Identifier: BSD-2-Clause
// M-mode-only MMIO in as few PMP entries as it takes. A PMP NAPOT entry covers
// a naturally aligned power of two (privileged spec, "Physical Memory
// Protection"); CLINT blocks of 0xc000 bytes (PolarFire, D1) are not, and
// SG2042 has 17 ACLINT blocks for 6 free entries. A block is grown to the
// smallest NAPOT region around it, and neighbours merged into the NAPOT
// region around both, only over address space no other device-tree node's
// reg (memory included) claims: S-mode loses nothing it could use.
#include "drivers.hpp"
#include <libfdt.h>

namespace drivers {
namespace {

bool overlaps(uint64_t a, uint64_t as, uint64_t b, uint64_t bs) { return a < b + bs && b < a + as; }
bool inside(uint64_t a, uint64_t as, uint64_t b, uint64_t bs) { return a >= b && a + as <= b + bs; }
bool is_napot(const AclintBlock &r) { return r.size >= 8 && !(r.size & (r.size - 1)) && !(r.base & (r.size - 1)); }

// The smallest naturally aligned power-of-two region holding [base, base + size).
AclintBlock napot_around(uint64_t base, uint64_t size) {
    uint64_t s = 4096;
    while (s < size || (base & ~(s - 1)) + s < base + size) s <<= 1;
    return {base & ~(s - 1), s};
}

// True when no reg of the tree overlaps `r` except the blocks' own.
bool unclaimed(const void *fdt, const AclintBlock &r, const AclintBlock *own, unsigned nown) {
    for (int node = fdt_next_node(fdt, -1, nullptr); node >= 0; node = fdt_next_node(fdt, node, nullptr)) {
        for (int i = 0;; i++) {
            uint64_t a, s;
            if (!fdt_get_reg(fdt, node, i, a, s)) break;
            if (!s || !overlaps(a, s, r.base, r.size)) continue;
            bool mine = false;
            for (unsigned k = 0; k < nown && !mine; k++) mine = inside(a, s, own[k].base, own[k].size);
            if (!mine) return false;
        }
    }
    return true;
}

// By base, the larger first where bases are equal (so dedupe keeps it).
bool before(const AclintBlock &a, const AclintBlock &b) {
    return a.base < b.base || (a.base == b.base && a.size > b.size);
}
void sort(AclintBlock *r, unsigned n) {
    for (unsigned i = 1; i < n; i++)
        for (unsigned j = i; j > 0 && before(r[j], r[j - 1]); j--) {
            AclintBlock t = r[j];
            r[j] = r[j - 1];
            r[j - 1] = t;
        }
}

// Drops regions inside another (sorted by `before`).
unsigned dedupe(AclintBlock *r, unsigned n) {
    unsigned m = 0;
    for (unsigned i = 0; i < n; i++) {
        if (m && inside(r[i].base, r[i].size, r[m - 1].base, r[m - 1].size)) continue;
        r[m++] = r[i];
    }
    return m;
}
} // namespace

unsigned napot_cover(const void *fdt, AclintBlock *r, unsigned n, unsigned budget) {
    constexpr unsigned kMax = 32;
    AclintBlock in[kMax];
    if (n > kMax) n = kMax;
    const unsigned n_in = n;
    for (unsigned i = 0; i < n; i++) in[i] = r[i];
    for (unsigned i = 0; i < n; i++) {
        AclintBlock g = napot_around(in[i].base, in[i].size);
        if (!is_napot(in[i]) && unclaimed(fdt, g, in, n_in)) r[i] = g;
    }
    sort(r, n);
    n = dedupe(r, n);
    // Merge the neighbours whose common region is smallest, while more
    // regions than entries remain.
    while (n > budget) {
        unsigned best = n;
        AclintBlock merged{};
        for (unsigned i = 0; i + 1 < n; i++) {
            AclintBlock g = napot_around(r[i].base, r[i + 1].base + r[i + 1].size - r[i].base);
            if ((best == n || g.size < merged.size) && unclaimed(fdt, g, in, n_in)) best = i, merged = g;
        }
        if (best == n) break;
        r[best] = merged;
        for (unsigned i = best + 1; i + 1 < n; i++) r[i] = r[i + 1];
        n = dedupe(r, n - 1);
    }
    return n;
}

} // namespace drivers
