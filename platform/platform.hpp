// SPDX-License-Identifier: BSD-2-Clause
// The platform interface: everything the firmware needs from an SoC. A vendor
// port is one folder under platform/ implementing these functions (select it
// with `make PLATFORM=<folder>`). platform/generic is the reference port; it
// finds every device through the device tree with the generic drivers in
// firmware/drivers, which other ports may reuse.
#pragma once
#include <stdint.h>
#include "sbi/sbi.hpp" // SRST reset types

namespace platform {

// Boot hart, once, before any other hart leaves its wait loop. `fdt` is the
// device tree from the previous stage. Returns false on a fatal problem.
bool cold_init(const void *fdt);
// Every hart (including the boot hart) during its start-up, in M-mode.
void hart_init(unsigned long hartid);

// Console (may be absent: then putc drops and getc returns -1).
bool console_present();
void console_putc(char c);
int console_getc(); // -1 when no byte is waiting

// M-mode software interrupts between harts.
void ipi_send(unsigned long hartid);
void ipi_clear(unsigned long hartid);

// Machine timer (mtime/mtimecmp). Used when the hart lacks Sstc.
uint64_t timer_value();
void timer_set(unsigned long hartid, uint64_t deadline);

// MMIO that only M-mode may access (PMP closes it to S/U-mode), at most
// `max` regions; each should be a naturally aligned power of two.
struct MmioRegion {
    uint64_t base, size;
};
unsigned mmode_only_regions(MmioRegion *out, unsigned max);

// System reset, SBI SRST reset_type values. Returns only when the type is not
// supported or the reset failed.
bool system_reset_supported(uint32_t type);
void system_reset(uint32_t type, uint32_t reason);

} // namespace platform
