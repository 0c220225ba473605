// SPDX-License-Identifier: BSD-2-Clause
// The platform interface: everything the firmware needs from an SoC. It is
// implemented once, in platform/generic/platform.cpp, which finds every device
// through the device tree with the drivers in firmware/drivers. A vendor port
// is a folder with a quirks.hpp defining `kQuirks` (select it with
// `make PLATFORM=<folder>`): only what the device tree cannot say, each member
// optional (see Quirks below and platform/README.md).
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
// Whether cold_init found a device that interrupts another hart, and the
// mip/mie bit an IPI raises: the machine software interrupt (CLINT, ACLINT
// MSWI), or the machine external interrupt (an AIA IMSIC's M-level file).
bool ipi_present();
extern unsigned ipi_irq_bit;

// Device-tree fix-ups for the next stage (M-mode's own interrupt controllers
// marked disabled); a libfdt error or 0.
int fdt_fixup(void *fdt);
// The nodes fdt_fixup may mark disabled, at most: the room it needs
// (core/README.md "Device-tree fix-ups: their room").
unsigned fdt_fixup_nodes();

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

// What a port may add or replace, checked when platform/generic/platform.cpp
// is compiled against the port's `inline constexpr platform::Quirks kQuirks`
// (its quirks.hpp): a member left null keeps the device-tree behaviour and
// costs nothing at run time. A function of the wrong type does not compile.
struct Quirks {
    // After the device-tree drivers are set up (fixed devices the tree lacks,
    // errata); false stops the boot.
    bool (*cold_init)(const void *fdt) = nullptr;
    // Every hart's start-up after the core's own (vendor CSRs).
    void (*hart_init)(unsigned long hartid) = nullptr;
    // A console, IPI or timer device the tree cannot describe replaces the
    // device-tree driver (both functions of a pair are given).
    void (*console_putc)(char c) = nullptr;
    int (*console_getc)() = nullptr;
    void (*ipi_send)(unsigned long hartid) = nullptr;
    void (*ipi_clear)(unsigned long hartid) = nullptr;
    uint64_t (*timer_value)() = nullptr;
    void (*timer_set)(unsigned long hartid, uint64_t deadline) = nullptr;
    // More M-mode-only MMIO, added after the device tree's.
    unsigned (*mmode_only_regions)(MmioRegion *out, unsigned max) = nullptr;
    // A reset the tree cannot describe; return false from `supported` to
    // fall back to the device-tree devices for that type.
    bool (*system_reset_supported)(uint32_t type) = nullptr;
    void (*system_reset)(uint32_t type, uint32_t reason) = nullptr;
};

} // namespace platform
