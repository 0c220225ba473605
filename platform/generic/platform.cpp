// SPDX-License-Identifier: BSD-2-Clause
// The platform interface for every SoC: devices come from the device tree
// through firmware/drivers (console by /chosen/stdout-path, CLINT/ACLINT,
// syscon/HTIF/GPIO/watchdog resets), the vendor quirks the tree names are
// chosen at run time (vendor.cpp), and the selected port's kQuirks (its
// quirks.hpp, found through -I$(PLATFORM_DIR)) adds or replaces what the tree
// cannot say. kQuirks is constexpr: an absent quirk compiles to nothing.
#include "platform.hpp"
#include "drivers/drivers.hpp"
#include "fw.hpp"
#include "generic/vendor.hpp"
#include "riscv/csr.hpp"
#include <quirks.hpp>

namespace platform {

using namespace sbi::srst;
constexpr const Quirks &Q = kQuirks;
// Whether the port gives a quirk (a function, not a comparison GCC warns about).
consteval bool has(auto f) { return f != nullptr; }
static_assert(has(Q.console_putc) == has(Q.console_getc), "a console quirk gives putc and getc");
static_assert(has(Q.ipi_send) == has(Q.ipi_clear), "an IPI quirk gives send and clear");
static_assert(has(Q.timer_value) == has(Q.timer_set), "a timer quirk gives value and set");
static_assert(has(Q.system_reset_supported) == has(Q.system_reset), "a reset quirk gives both functions");

namespace {
// The CLINT/ACLINT blocks and the M-level APLIC and IMSIC as PMP NAPOT
// regions, in at most half of the entries setup_pmp has for MMIO
// (firmware/core/init.cpp: 6), so trace and quirk regions keep theirs.
constexpr unsigned kAclintPmpEntries = 3, kMaxMmode = 24;
drivers::AclintBlock mmode[kMaxMmode];
unsigned n_mmode;
bool use_imsic; // IPIs through the M-level IMSIC files
} // namespace

unsigned ipi_irq_bit = 1u << csr::irq::MSI;

bool cold_init(const void *fdt) {
    // One walk of the tree for the drivers' look-ups (drivers.hpp, "device
    // index"); core/init.cpp drops it before the fix-ups edit the tree.
    drivers::fdt_index_build(fdt);
    drivers::console_init_from_fdt(fdt);
    drivers::reset_init_from_fdt(fdt);
    bool clint = drivers::aclint_init_from_fdt(fdt);
    // IPIs through the harts' M-level IMSIC files where there are some, as
    // OpenSBI does (its IMSIC, set up before the IPI drivers, becomes the
    // IPI device first: lib/sbi/sbi_init.c, sbi_ipi_set_device), else the
    // CLINT/ACLINT MSWI. The root APLIC domain after the IMSIC: its MSI
    // addresses are the IMSICs'.
    use_imsic = drivers::imsic_init_from_fdt(fdt) && !has(Q.ipi_send);
    if (use_imsic) ipi_irq_bit = 1u << csr::irq::MEI;
    drivers::aplic_init_from_fdt(fdt);
    if (unsigned k = drivers::imsic_ignored())
        fw::printf("tsbi: %u IMSIC node(s) with an unusable geometry ignored\n", k);
    drivers::AplicSummary a;
    if (drivers::aplic_summary(a))
        fw::printf("tsbi: APLIC %s: %s mode, %u of %u sources delegated to S-mode%s\n", a.name,
                   a.msi ? "MSI" : "direct", a.delegated, a.sources,
                   a.skipped ? " (unusable delegation entries skipped)" : "");
    unsigned nblocks = drivers::aclint_blocks(mmode, kMaxMmode);
    nblocks += drivers::aplic_blocks(mmode + nblocks, kMaxMmode - nblocks);
    nblocks += drivers::imsic_blocks(mmode + nblocks, kMaxMmode - nblocks);
    n_mmode = drivers::napot_cover(fdt, mmode, nblocks, kAclintPmpEntries);
    if (!vendor::cold_init(fdt)) return false;
    // The run-time quirks chosen, for whoever reads the boot log.
    const char *q[8];
    for (unsigned i = 0, n = vendor::active(q, 8); i < n; i++)
        fw::printf("%s%s%s", i ? ", " : "tsbi: vendor quirks: ", q[i], i + 1 == n ? "\n" : "");
    if constexpr (has(Q.cold_init))
        if (!Q.cold_init(fdt)) return false;
    // IPIs and the timer need a CLINT/ACLINT unless the port gives both.
    return clint || (has(Q.ipi_send) && has(Q.timer_value));
}

void hart_init(unsigned long hartid) {
    if (use_imsic && !drivers::imsic_hart_init(hartid))
        fw::printf("tsbi: hart %lu: no M-level IMSIC file it can use: it receives no IPIs\n", hartid);
    vendor::hart_init(hartid);
    if constexpr (has(Q.hart_init)) Q.hart_init(hartid);
}

bool console_present() {
    if constexpr (has(Q.console_putc)) return true;
    return drivers::console_present();
}
void console_putc(char c) {
    if constexpr (has(Q.console_putc)) Q.console_putc(c);
    else drivers::console_putc(c);
}
int console_getc() {
    if constexpr (has(Q.console_getc)) return Q.console_getc();
    return drivers::console_getc();
}

void ipi_send(unsigned long hartid) {
    if constexpr (has(Q.ipi_send)) Q.ipi_send(hartid);
    else if (use_imsic) drivers::imsic_ipi_send(hartid);
    else drivers::aclint_ipi_send(hartid);
}
void ipi_clear(unsigned long hartid) {
    if constexpr (has(Q.ipi_clear)) Q.ipi_clear(hartid);
    else if (use_imsic) drivers::imsic_ipi_clear(hartid);
    else drivers::aclint_ipi_clear(hartid);
}
bool ipi_present() {
    if constexpr (has(Q.ipi_send)) return true;
    return use_imsic || drivers::aclint_ipi_present();
}

unsigned fdt_fixup_nodes() { return drivers::aplic_fdt_nodes() + drivers::imsic_fdt_nodes(); }

int fdt_fixup(void *fdt) {
    int err = drivers::aplic_fdt_fixup(fdt);
    return err ? err : drivers::imsic_fdt_fixup(fdt);
}

uint64_t timer_value() {
    if constexpr (has(Q.timer_value)) return Q.timer_value();
    return drivers::aclint_time();
}
void timer_set(unsigned long hartid, uint64_t deadline) {
    if constexpr (has(Q.timer_set)) Q.timer_set(hartid, deadline);
    else drivers::aclint_set_timecmp(hartid, deadline);
}

unsigned mmode_only_regions(MmioRegion *out, unsigned max) {
    unsigned n = n_mmode < max ? n_mmode : max;
    for (unsigned i = 0; i < n; i++) out[i] = {mmode[i].base, mmode[i].size};
    if constexpr (has(Q.mmode_only_regions)) n += Q.mmode_only_regions(out + n, max - n);
    return n;
}

namespace {
bool dt_reset_supported(uint32_t type) {
    switch (type) {
    case TYPE_SHUTDOWN: return drivers::poweroff_present();
    // QEMU's test device resets the whole machine; a warm reboot is served
    // by the same full reset (what OpenSBI does on virt as well).
    case TYPE_COLD_REBOOT:
    case TYPE_WARM_REBOOT: return drivers::reboot_present();
    default: return false;
    }
}
} // namespace

bool system_reset_supported(uint32_t type) {
    if constexpr (has(Q.system_reset_supported))
        if (Q.system_reset_supported(type)) return true;
    return dt_reset_supported(type);
}

void system_reset(uint32_t type, uint32_t reason) {
    if constexpr (has(Q.system_reset_supported))
        if (Q.system_reset_supported(type)) return Q.system_reset(type, reason);
    if (type == TYPE_SHUTDOWN)
        drivers::poweroff();
    else
        drivers::reboot();
}

} // namespace platform
