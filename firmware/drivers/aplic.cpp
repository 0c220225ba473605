// SPDX-License-Identifier: BSD-2-Clause
// RISC-V APLIC (AIA specification 1.0, chapter 4), the root (M-level)
// interrupt domain: M-mode takes no wired interrupts, so it hands every
// source the device tree delegates (riscv,delegation, or the older
// riscv,delegate: <child-phandle first last> triples) to the S-level child
// domain Linux's APLIC driver runs, sets the root's MSI addresses (only the
// root domain has mmsicfgaddr and smsicfgaddr, 4.5.4: the S-level domain's
// MSIs go to the address the root's smsicfgaddr names) and enables the
// domain. The same steps as OpenSBI's lib/utils/irqchip/aplic.c aplic_init
// and fdt_helper.c fdt_parse_aplic_node. The root domain is M-mode's: PMP
// closes it and the next stage's device tree says it is disabled.
#include "drivers.hpp"
#include "riscv/aia.hpp"
#include <libfdt.h>

namespace drivers {
namespace {
using namespace aia;
using namespace aia::aplic_reg;

constexpr unsigned kMaxBlocks = 4;
AclintBlock blocks[kMaxBlocks];
unsigned nblocks;
AplicSummary summary; // the last root domain set up

void wr(uint64_t base, uint32_t off, uint32_t v) {
    *reinterpret_cast<volatile uint32_t *>(static_cast<uintptr_t>(base + off)) = v;
}
uint32_t rd(uint64_t base, uint32_t off) {
    return *reinterpret_cast<volatile uint32_t *>(static_cast<uintptr_t>(base + off));
}

// The IMSIC node a domain's msi-parent names, and its level.
int msi_parent(const void *fdt, int node) {
    int len;
    auto *p = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, "msi-parent", &len));
    return p && len >= 4 ? fdt_find_phandle(fdt, fdt32_to_cpu(*p)) : -1;
}
unsigned first_irq(const void *fdt, int node) {
    int len;
    auto *p = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, "interrupts-extended", &len));
    return p && len >= 8 ? fdt32_to_cpu(p[1]) : 0;
}

// M-level: its IDCs deliver machine external interrupts (direct mode), or
// its MSIs go to an M-level IMSIC (MSI mode).
bool is_m_level(const void *fdt, int node) {
    if (first_irq(fdt, node) == kIrqMachineExternal) return true;
    const int imsic = msi_parent(fdt, node);
    return imsic >= 0 && first_irq(fdt, imsic) == kIrqMachineExternal;
}

// xmsicfgaddr/xmsicfgaddrh for an IMSIC's geometry (4.5.4): the base PPN
// with the guest, hart and group index fields cleared.
void write_msicfg(uint64_t base, uint32_t lo_off, uint32_t hi_off, const ImsicGeometry &g) {
    using namespace msicfgaddrh;
    const unsigned hhxs = g.group_shift - 2 * kPageShift;
    uint64_t ppn = g.base >> kPageShift;
    ppn &= ~((1ull << g.guest_bits) - 1);
    ppn &= ~(((1ull << g.hart_bits) - 1) << g.guest_bits);
    ppn &= ~(((1ull << g.group_bits) - 1) << (hhxs + kPageShift));
    wr(base, lo_off, static_cast<uint32_t>(ppn));
    wr(base, hi_off,
       (static_cast<uint32_t>(ppn >> 32) & BASE_PPN_HI_MASK) | (g.hart_bits & LHXW_MASK) << LHXW_SHIFT |
           (g.group_bits & HHXW_MASK) << HHXW_SHIFT | (g.guest_bits & LHXS_MASK) << LHXS_SHIFT |
           (hhxs & HHXS_MASK) << HHXS_SHIFT);
}

// The S-level IMSIC a child domain (or its children) sends to.
bool child_s_imsic(const void *fdt, int node, ImsicGeometry &g) {
    int len;
    auto *kids = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, "riscv,children", &len));
    for (int i = 0; kids && i < len / 4; i++) {
        const int child = fdt_find_phandle(fdt, fdt32_to_cpu(kids[i]));
        if (child < 0) continue;
        const int imsic = msi_parent(fdt, child);
        if (imsic >= 0 && first_irq(fdt, imsic) == kIrqSupervisorExternal && imsic_geometry(fdt, imsic, g))
            return true;
    }
    return false;
}

void init_root(const void *fdt, int node, uint64_t base) {
    const uint32_t sources = fdt_get_u32(fdt, node, "riscv,num-sources", 0);
    const unsigned n = sources <= kMaxSources ? sources : kMaxSources;
    int len;
    auto *ie = fdt_getprop(fdt, node, "interrupts-extended", &len);
    const unsigned idcs = ie ? static_cast<unsigned>(len) / 8 : 0;
    const bool msi = idcs == 0; // direct mode has IDCs (4.8), MSI mode none

    wr(base, DOMAINCFG, 0);
    for (unsigned i = 0; i <= n; i += 32) wr(base, CLRIE + i / 32 * 4, ~0u);
    for (unsigned i = 1; i <= n; i++) {
        wr(base, SOURCECFG + (i - 1) * 4, 0);
        wr(base, TARGET + (i - 1) * 4, target::IPRIO_DEFAULT);
    }
    // Delegation: each triple's child phandle is found in riscv,children;
    // its position there is the child index (4.5.2). A triple naming no
    // child, or sources the domain lacks, is skipped.
    auto *del = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, "riscv,delegation", &len));
    if (!del) del = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, "riscv,delegate", &len));
    const int ntriples = del ? len / 12 : 0;
    int klen;
    auto *kids = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, "riscv,children", &klen));
    unsigned delegated = 0;
    for (int t = 0; t < ntriples; t++) {
        int child = -1;
        for (int k = 0; kids && k < klen / 4; k++)
            if (kids[k] == del[3 * t]) {
                child = k;
                break;
            }
        uint32_t a = fdt32_to_cpu(del[3 * t + 1]), b = fdt32_to_cpu(del[3 * t + 2]);
        if (a > b) {
            const uint32_t s = a;
            a = b;
            b = s;
        }
        if (child < 0 || static_cast<uint32_t>(child) > sourcecfg::CHILD_INDEX_MASK || a == 0 || b > n) {
            summary.skipped++;
            continue;
        }
        for (uint32_t s = a; s <= b; s++) wr(base, SOURCECFG + (s - 1) * 4, sourcecfg::D | static_cast<uint32_t>(child));
        delegated += b - a + 1;
    }
    if (msi) {
        // Locked (L) by a previous stage: left as it is.
        ImsicGeometry g;
        if (!(rd(base, MMSICFGADDRH) & msicfgaddrh::L)) {
            if (imsic_m_geometry(g)) write_msicfg(base, MMSICFGADDR, MMSICFGADDRH, g);
            if (child_s_imsic(fdt, node, g) || imsic_s_geometry(g))
                write_msicfg(base, SMSICFGADDR, SMSICFGADDRH, g);
        }
    } else {
        for (unsigned i = 0; i < idcs; i++) {
            const uint64_t idc = base + IDC + i * IDC_SIZE;
            wr(idc, IDELIVERY, idc::IDELIVERY_OFF);
            wr(idc, IFORCE, 0);
            wr(idc, ITHRESHOLD, idc::ITHRESHOLD_MASK_ALL);
        }
    }
    wr(base, DOMAINCFG, domaincfg::IE | (msi ? domaincfg::DM : 0));
    summary.name = fdt_get_name(fdt, node, nullptr);
    summary.msi = msi;
    summary.delegated = delegated;
    summary.sources = n;
}
} // namespace

bool aplic_init_from_fdt(const void *fdt) {
    bool found = false;
    for (int node = fdt_next_device(fdt, -1); node >= 0; node = fdt_next_device(fdt, node)) {
        if (!fdt_is_compatible(fdt, node, "riscv,aplic") || !is_m_level(fdt, node)) continue;
        uint64_t base, size;
        if (!fdt_get_reg(fdt, node, 0, base, size) || !size) continue;
        if (nblocks < kMaxBlocks) blocks[nblocks++] = {base, size};
        init_root(fdt, node, base);
        found = true;
    }
    return found;
}

bool aplic_summary(AplicSummary &out) {
    out = summary;
    return summary.name != nullptr;
}

unsigned aplic_blocks(AclintBlock *out, unsigned max) {
    unsigned n = nblocks < max ? nblocks : max;
    for (unsigned i = 0; i < n; i++) out[i] = blocks[i];
    return n;
}

unsigned aplic_fdt_nodes() { return nblocks; }
int aplic_fdt_fixup(void *fdt) { return fdt_disable_covered(fdt, "riscv,aplic", blocks, nblocks); }

} // namespace drivers
