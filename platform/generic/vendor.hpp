// SPDX-License-Identifier: BSD-2-Clause
// Vendor quirks the one generic image chooses at run time, from the device
// tree the previous stage passes: by the root compatible (the SoC), by a
// device's compatible, as OpenSBI's platform/generic overrides choose theirs
// for the same SoCs. A build-time port (quirks.hpp, platform.hpp's Quirks)
// stays for what no device tree can say.
#pragma once

namespace platform::vendor {

// Chooses the quirks `fdt` asks for and runs their boot-time part (boot
// hart, after the device-tree drivers). False stops the boot.
bool cold_init(const void *fdt);
// Every hart's start-up: the per-hart part of the chosen quirks.
void hart_init(unsigned long hartid);
// The names of the chosen quirks, at most `max`; returns how many.
unsigned active(const char **names, unsigned max);

} // namespace platform::vendor
