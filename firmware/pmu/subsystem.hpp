// SPDX-License-Identifier: BSD-2-Clause
// The PMU service's descriptor in the core's list of subsystems
// (core/subsystems.hpp): its life cycle (service.hpp), the device-tree fix-up
// (dt.hpp) and firmware event counting, inline at every event.
#pragma once
#include "../include/subsystem.hpp"
#include "dt.hpp"
#include "service.hpp"

namespace pmu {
inline constexpr fw::Subsystem kSubsystem = {
    .name = "pmu",
    .cold_init = [](const void *fdt, unsigned long) { cold_init(fdt); },
    .fdt_fixup = &fixup_pmu_node,
    .hart_init = &hart_init,
    .hart_stop = &hart_stop,
    .hart_suspend = &hart_suspend,
    .hart_resume = &hart_resume,
    .fw_event = [](fw::FwEvent e) { fw_event(static_cast<unsigned>(e)); },
    .per_hart_bytes = [](const void *) { return static_cast<unsigned long>(sizeof(HartState)); },
};
} // namespace pmu
