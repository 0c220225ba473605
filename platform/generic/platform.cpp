// SPDX-License-Identifier: BSD-2-Clause
// QEMU `virt` machine: everything is found through the device tree with the
// generic drivers (ns16550 console, CLINT/ACLINT, syscon power-off/reboot).
#include "platform.hpp"
#include "drivers/drivers.hpp"

namespace platform {

using namespace sbi::srst;

bool cold_init(const void *fdt) {
    drivers::console_init_from_fdt(fdt);
    drivers::reset_init_from_fdt(fdt);
    return drivers::aclint_init_from_fdt(fdt);
}

void hart_init(unsigned long) {}

bool console_present() { return drivers::console_present(); }
void console_putc(char c) { drivers::console_putc(c); }
int console_getc() { return drivers::console_getc(); }

void ipi_send(unsigned long hartid) { drivers::aclint_ipi_send(hartid); }
void ipi_clear(unsigned long hartid) { drivers::aclint_ipi_clear(hartid); }

uint64_t timer_value() { return drivers::aclint_time(); }
void timer_set(unsigned long hartid, uint64_t deadline) {
    drivers::aclint_set_timecmp(hartid, deadline);
}

unsigned mmode_only_regions(MmioRegion *out, unsigned max) {
    drivers::AclintBlock b[8];
    unsigned n = drivers::aclint_blocks(b, max < 8 ? max : 8);
    for (unsigned i = 0; i < n; i++) out[i] = {b[i].base, b[i].size};
    return n;
}

bool system_reset_supported(uint32_t type) {
    switch (type) {
    case TYPE_SHUTDOWN: return drivers::poweroff_present();
    // QEMU's test device resets the whole machine; a warm reboot is served
    // by the same full reset (what OpenSBI does on virt as well).
    case TYPE_COLD_REBOOT:
    case TYPE_WARM_REBOOT: return drivers::reboot_present();
    default: return false;
    }
}

void system_reset(uint32_t type, uint32_t) {
    if (type == TYPE_SHUTDOWN)
        drivers::poweroff();
    else
        drivers::reboot();
}

} // namespace platform
