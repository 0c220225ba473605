// SPDX-License-Identifier: BSD-2-Clause
// RISC-V IMSIC (AIA specification 1.0, chapter 3 "Incoming MSI Controller"),
// the M-level interrupt files only: M-mode's IPIs where the machine has no
// ACLINT MSWI or CLINT (QEMU virt with aia=aplic-imsic,aclint=on has only an
// MTIMER), and the MSI target of the root APLIC domain (aplic.cpp). As
// OpenSBI's lib/utils/irqchip/imsic.c does, an IPI is identity 1 of the
// target hart's M-level file, written to its seteipnum_le register, and the
// M-level IMSIC is M-mode's: PMP closes it and the next stage's device tree
// says it is disabled. The S-level (and guest) files are S-mode's.
#include "drivers.hpp"
#include "riscv/aia.hpp"
#include "fw.hpp"
#include <libfdt.h>
#ifdef __riscv
#include "riscv/csr.hpp"
#include "riscv/csr_safe.hpp"
#endif

namespace drivers {
namespace {
using namespace aia;

// Per hart, by dense hart index: its M-level file's seteipnum_le.
volatile uint32_t *seteipnum[fw::kMaxHarts];
bool any_file;
// The M-level IMSIC nodes' register blocks (PMP, and the fix-up that
// disables them), and the geometry the root APLIC's mmsicfgaddr needs.
constexpr unsigned kMaxBlocks = 8;
AclintBlock blocks[kMaxBlocks];
unsigned nblocks;
ImsicGeometry m_geometry, s_geometry;
bool have_m, have_s;
unsigned ignored; // nodes whose geometry cannot be used
IntcMap intc_map; // filled by imsic_init_from_fdt

// The level of the files an IMSIC node describes: the interrupt its
// interrupts-extended entries name (all the same, per the binding
// riscv,imsics.yaml): MEI (11) for M-level, SEI (9) for S-level.
unsigned node_level(const void *fdt, int node, unsigned &nfiles) {
    int len;
    auto *ie = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, "interrupts-extended", &len));
    nfiles = ie ? static_cast<unsigned>(len) / 8 : 0;
    return nfiles ? fdt32_to_cpu(ie[1]) : 0;
}
} // namespace

bool imsic_geometry(const void *fdt, int node, ImsicGeometry &g) {
    unsigned nfiles;
    node_level(fdt, node, nfiles);
    uint64_t size;
    if (!nfiles || !fdt_get_reg(fdt, node, 0, g.base, size)) return false;
    // Defaults of the binding riscv,imsics.yaml: no guest files, hart index
    // bits enough for the files listed, one group at bit 24.
    unsigned hart_bits = 0;
    while ((1u << hart_bits) < nfiles) hart_bits++;
    g.guest_bits = fdt_get_u32(fdt, node, "riscv,guest-index-bits", 0);
    g.hart_bits = fdt_get_u32(fdt, node, "riscv,hart-index-bits", hart_bits);
    g.group_bits = fdt_get_u32(fdt, node, "riscv,group-index-bits", 0);
    g.group_shift = fdt_get_u32(fdt, node, "riscv,group-index-shift", kGroupShiftDefault);
    // The limits of the APLIC's msicfgaddrh fields (AIA 4.5.4) and of an
    // address: what cannot be described there is refused.
    return g.guest_bits <= msicfgaddrh::LHXS_MASK && g.hart_bits <= msicfgaddrh::LHXW_MASK &&
           g.group_bits <= msicfgaddrh::HHXW_MASK && g.group_shift >= 2 * kPageShift &&
           g.group_shift - 2 * kPageShift <= msicfgaddrh::HHXS_MASK &&
           kPageShift + g.guest_bits + g.hart_bits <= 56;
}

bool imsic_init_from_fdt(const void *fdt) {
    for (int node = fdt_next_device(fdt, -1); node >= 0; node = fdt_next_device(fdt, node)) {
        if (!fdt_is_compatible(fdt, node, "riscv,imsics")) continue;
        unsigned nfiles;
        const unsigned level = node_level(fdt, node, nfiles);
        ImsicGeometry g;
        if (!imsic_geometry(fdt, node, g)) {
            ignored++;
            continue;
        }
        if (level == kIrqSupervisorExternal && !have_s) {
            s_geometry = g;
            have_s = true;
        }
        if (level != kIrqMachineExternal) continue;
        if (!have_m) {
            m_geometry = g;
            have_m = true;
        }
        // File k (the k-th interrupts-extended entry) is 2^guest_bits pages
        // after file 0, counted through the reg entries in order (the
        // binding; OpenSBI's imsic_ipi_send walks them the same way).
        uint64_t reg_base[kMaxBlocks], reg_size[kMaxBlocks];
        unsigned nregs = 0;
        while (nregs < kMaxBlocks && fdt_get_reg(fdt, node, static_cast<int>(nregs), reg_base[nregs], reg_size[nregs]))
            nregs++;
        for (unsigned r = 0; r < nregs && nblocks < kMaxBlocks; r++)
            if (reg_size[r]) blocks[nblocks++] = {reg_base[r], reg_size[r]};
        intc_map.init(fdt);
        int len;
        auto *ie = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, "interrupts-extended", &len));
        for (unsigned k = 0; k < nfiles; k++) {
            const long hartid = intc_map.hartid(fdt32_to_cpu(ie[2 * k]));
            const unsigned index = hartid >= 0 ? fw::hart_index(static_cast<unsigned long>(hartid)) : fw::kNoHart;
            if (index >= fw::kMaxHarts) continue;
            uint64_t off = static_cast<uint64_t>(k) << (g.guest_bits + kPageShift);
            unsigned r = 0;
            while (r < nregs && off >= reg_size[r]) off -= reg_size[r++];
            if (r == nregs) continue; // beyond the node's registers: no file
            seteipnum[index] = reinterpret_cast<volatile uint32_t *>(
                static_cast<uintptr_t>(reg_base[r] + off + kSeteipnumLe));
            any_file = true;
        }
    }
    return any_file;
}

bool imsic_m_geometry(ImsicGeometry &g) {
    g = m_geometry;
    return have_m;
}
bool imsic_s_geometry(ImsicGeometry &g) {
    g = s_geometry;
    return have_s;
}

bool imsic_ipi_present() { return any_file; }
unsigned imsic_ignored() { return ignored; }

bool imsic_hart_has_file(unsigned long hartid) {
    const unsigned i = fw::hart_index(hartid);
    return i < fw::kMaxHarts && seteipnum[i];
}

unsigned imsic_blocks(AclintBlock *out, unsigned max) {
    unsigned n = nblocks < max ? nblocks : max;
    for (unsigned i = 0; i < n; i++) out[i] = blocks[i];
    return n;
}

void imsic_ipi_send(unsigned long hartid) {
    const unsigned i = fw::hart_index(hartid);
    if (i < fw::kMaxHarts && seteipnum[i]) *seteipnum[i] = kIpiIdentity;
}

#ifdef __riscv
namespace {
// eip/eie: 32 identities per register on RV32, 64 on RV64, and RV64 uses
// only the even-numbered registers (AIA 3.8.4).
constexpr unsigned kIpiWord = kIpiIdentity / (sizeof(long) * 8) * (sizeof(long) / 4);
constexpr unsigned long kIpiBit = 1ul << (kIpiIdentity % (sizeof(long) * 8));
} // namespace

// This hart's M-level file: interrupts above threshold 0 (none masked by
// priority), delivery on, identity 1 enabled. A pending IPI stays pending.
// Trap-safe, as OpenSBI's imsic_local_irqchip_init checks mtopi first: a
// hart without Smaia, or without the file the tree names, traps on the
// access and is left alone. False then.
bool imsic_hart_init(unsigned long hartid) {
    static_assert(csr::safe_listed(csr::miselect, 2));
    if (!imsic_hart_has_file(hartid)) return false;
    const csr::SafeResult saved = csr::csr_read_safe_num(csr::miselect);
    if (saved.trapped || csr::csr_write_safe_num(csr::miselect, iselect::EITHRESHOLD).trapped ||
        csr::csr_write_safe_num(csr::mireg, 0).trapped)
        return false;
    csr_write(csr::miselect, iselect::EIE0 + kIpiWord);
    csr_set(csr::mireg, kIpiBit);
    csr_write(csr::miselect, iselect::EIDELIVERY);
    csr_write(csr::mireg, eidelivery::ENABLED);
    csr_write(csr::miselect, saved.value);
    return true;
}

// Called on the hart itself (process_ipis): clears identity 1's pending bit.
void imsic_ipi_clear(unsigned long) {
    const unsigned long saved = csr_read(csr::miselect);
    csr_write(csr::miselect, iselect::EIP0 + kIpiWord);
    csr_clear(csr::mireg, kIpiBit);
    csr_write(csr::miselect, saved);
}
#else
// Host builds (tests/host, tests/boards) have no hart CSRs to program.
bool imsic_hart_init(unsigned long) { return false; }
void imsic_ipi_clear(unsigned long) {}
#endif

unsigned imsic_fdt_nodes() { return nblocks; }
int imsic_fdt_fixup(void *fdt) { return fdt_disable_covered(fdt, "riscv,imsics", blocks, nblocks); }

} // namespace drivers
