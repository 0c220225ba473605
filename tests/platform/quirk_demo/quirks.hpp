// SPDX-License-Identifier: BSD-2-Clause
// A quirk-only port, kept outside platform/ as a vendor's out-of-tree port
// would be (make firmware PLATFORM=quirk_demo
// PLATFORM_DIR=tests/platform/quirk_demo). It proves the mechanism on QEMU
// virt (suite 24): boot and per-hart hooks, and a reset quirk wrapping the
// device tree's power-off.
#pragma once
#include "platform.hpp"

namespace quirk_demo {
bool cold_init(const void *fdt);
void hart_init(unsigned long hartid);
bool reset_supported(uint32_t type);
void reset(uint32_t type, uint32_t reason);
} // namespace quirk_demo

namespace platform {
inline constexpr Quirks kQuirks{
    .cold_init = quirk_demo::cold_init,
    .hart_init = quirk_demo::hart_init,
    .system_reset_supported = quirk_demo::reset_supported,
    .system_reset = quirk_demo::reset,
};
} // namespace platform
