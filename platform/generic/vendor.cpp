// SPDX-License-Identifier: BSD-2-Clause
// Vendor quirks chosen at run time (vendor.hpp). Each row says which device
// tree asks for it and what it does; the facts are the SoC vendors' and the
// OpenSBI platform/generic overrides' for the same parts.
#include "vendor.hpp"
#include "drivers/drivers.hpp"
#include "fdt_edit.hpp"
#include "fw.hpp"
#include "pmu/service.hpp"
#include <libfdt.h>
#include <string.h>
#ifdef __riscv
#include "riscv/csr.hpp"
extern "C" char trap_entry_tlb_flush[]; // entry.S
#endif

namespace platform::vendor {
namespace {

// T-Head C9xx PLIC ("thead,c900-plic"): S-mode may touch the PLIC only once
// M-mode sets S_PER, bit 0 of the PLIC control register at +0x1ffffc
// (OpenSBI's plic.c, THEAD_PLIC_CTRL_REG; Linux's irq-sifive-plic.c relies
// on it). Without it Linux gets no device interrupt.
constexpr uint64_t THEAD_PLIC_CTRL = 0x1ffffc;
constexpr uint32_t THEAD_PLIC_CTRL_S_PER = 1u << 0;
bool thead_plic_smode(const void *fdt) {
    int node = -1;
    while ((node = drivers::fdt_find_compatible(fdt, node, "thead,c900-plic")) >= 0) {
        uint64_t base, size;
        if (!drivers::fdt_get_reg(fdt, node, 0, base, size) || size <= THEAD_PLIC_CTRL) continue;
        *reinterpret_cast<volatile uint32_t *>(static_cast<uintptr_t>(base + THEAD_PLIC_CTRL)) =
            THEAD_PLIC_CTRL_S_PER;
    }
    return true;
}

// T-Head C910/C920 erratum (TH1520, SG2042): the TLB needs an sfence.vma at
// every entry to M-mode, which OpenSBI gives with a trap vector that fences
// and then takes its usual one (thead_c9xx_tlb_trap_handler.S). The vector
// is entry.S's trap_entry_tlb_flush; every other SoC keeps trap_entry.
void thead_tlb_flush_hart_init(unsigned long) {
#ifdef __riscv
    csr_write(csr::mtvec, reinterpret_cast<unsigned long>(trap_entry_tlb_flush));
#endif
}

// SiFive FU540/FU740 erratum CIP-1200: sfence.vma with an address may leave
// stale entries, so every remote fence flushes the whole TLB (OpenSBI's
// fu540.c/fu740.c set their TLB flush limit to 0).
bool sifive_cip_1200(const void *) {
    fw::max_page_fences = 0;
    return true;
}

// T-Head C9xx cores without Sscofpmf (C906 in D1 and CV18xx, C910 in
// TH1520, C920 in SG2042): the PMU's overflow interrupt is IRQ 17 with the
// vendor's enable and status CSRs (csr::thead), armed by the PMU service at
// counter start and delegated to S-mode, where Linux's THEAD_PMU erratum
// takes it (OpenSBI's thead_c9xx_pmu.c, registered for the same SoCs). The
// service checks the CSRs exist before it uses them.
bool thead_c9xx_pmu(const void *) {
#if !defined(TSBI_SUBSYSTEMS) || TSBI_SUBSYSTEMS
    pmu::use_thead_c9xx_overflow();
#endif
    // The core-only image (FW_SUBSYSTEMS=0) has no PMU service to arm.
    return true;
}

// Where a row's compatible is looked for: the root (the SoC), a /cpus/cpu
// node (the core), any node (a device).
enum class Where { Root, Cpu, AnyNode };
struct Quirk {
    const char *name;
    Where where;
    const char *compat[4];
    bool (*cold_init)(const void *fdt);
    void (*hart_init)(unsigned long hartid);
};
constexpr Quirk kQuirks[] = {
    {"thead-plic-smode", Where::AnyNode, {"thead,c900-plic"}, thead_plic_smode, nullptr},
    {"thead-c9xx-pmu", Where::Cpu, {"thead,c906", "thead,c910", "thead,c920"}, thead_c9xx_pmu,
     nullptr},
    {"thead-c910-tlb-flush", Where::Root, {"thead,th1520", "sophgo,sg2042"}, nullptr,
     thead_tlb_flush_hart_init},
    {"sifive-cip-1200", Where::Root, {"sifive,fu540-c000", "sifive,fu540", "sifive,fu740-c000", "sifive,fu740"},
     sifive_cip_1200, nullptr},
};
constexpr unsigned kCount = sizeof kQuirks / sizeof kQuirks[0];
static_assert(kCount <= 32, "one bit per quirk in `chosen`");
unsigned chosen; // bit i: kQuirks[i] applies

// A CPU node (a child of /cpus with device_type "cpu") lists one of the
// row's strings. One walk of /cpus reads every node's properties once
// (fdtw::walk; its compatible and device_type alone): the drivers' index leaves /cpus out (it grows
// with the harts), libfdt's search by compatible walks the whole tree once
// per string, and libfdt's per-node look-ups cost thousands of instructions
// a hart.
bool cpu_matches(const void *fdt, const Quirk &q) {
    int cpus = drivers::fdt_find_path(fdt, "/cpus");
    if (cpus < 0) return false;
    struct Visitor {
        const Quirk &q;
        bool found = false, cpu, match;
        bool begin(int, int depth, const char *) {
            if (depth == 1) cpu = match = false;
            return depth <= 1 && !found;
        }
        void prop(int, int depth, const fdtw::Prop &p) {
            if (depth != 1) return;
            if (fdtw::is_cpu_type(p)) cpu = true;
            else if (fdtw::name_is(p, "compatible"))
                for (const char *c : q.compat)
                    if (c && fdtw::stringlist_has(p, c)) match = true;
        }
        void end(int, int depth) {
            if (depth == 1 && cpu && match) found = true;
        }
    } v{q};
    fdtw::walk(fdt, cpus, v);
    return v.found;
}

bool matches(const void *fdt, const Quirk &q) {
    if (q.where == Where::Cpu) return cpu_matches(fdt, q);
    for (const char *c : q.compat) {
        if (!c) break;
        if (q.where == Where::Root) {
            if (!fdt_node_check_compatible(fdt, 0, c)) return true;
            continue;
        }
        if (drivers::fdt_find_compatible(fdt, -1, c) >= 0) return true; // Where::AnyNode
    }
    return false;
}
} // namespace

bool cold_init(const void *fdt) {
    for (unsigned i = 0; i < kCount; i++) {
        if (!matches(fdt, kQuirks[i])) continue;
        chosen |= 1u << i;
        if (kQuirks[i].cold_init && !kQuirks[i].cold_init(fdt)) return false;
    }
    return true;
}

void hart_init(unsigned long hartid) {
    for (unsigned i = 0; i < kCount; i++)
        if (chosen >> i & 1 && kQuirks[i].hart_init) kQuirks[i].hart_init(hartid);
}

unsigned active(const char **names, unsigned max) {
    unsigned n = 0;
    for (unsigned i = 0; i < kCount && n < max; i++)
        if (chosen >> i & 1) names[n++] = kQuirks[i].name;
    return n;
}

} // namespace platform::vendor
