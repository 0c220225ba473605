// SPDX-License-Identifier: BSD-2-Clause
// The trace service's descriptor in the core's list of subsystems
// (core/subsystems.hpp); the entries are defined in hooks.cpp.
#pragma once
#include "../include/subsystem.hpp"

namespace trace::subsystem {
// Finds and checks the trace components and reads the /chosen options; the
// boot-time trace buffer must not overlap the next stage (`next_addr`).
void cold_init(const void *fdt, unsigned long next_addr);
// Bytes per hart cold_init carves: the service's state of an encoder slot,
// none when the tree has no trace component.
unsigned long per_hart_bytes(const void *fdt);
// Reserves the boot-time trace buffer and, once reserved, starts that trace.
void fdt_fixup(void *fdt);
// What fdt_fixup adds at most: status = "disabled" on every component node
// when M-mode keeps them, the boot-time buffer's reservation.
unsigned long fdt_room(const void *fdt);
// The components (CTR's feed buffer is in the firmware's region).
unsigned mmode_regions(fw::MmioRange *out, unsigned max);
// Self-hosted trace's M-mode enables on the current hart (strc.hpp).
void hart_init();
// The current hart's encoder starts, or is flushed and stops.
void smode_enter();
void smode_leave();
// Everything flushed to the sink.
void system_reset();
} // namespace trace::subsystem

namespace trace {
inline constexpr fw::Subsystem kSubsystem = {
    .name = "trace",
    .cold_init = &subsystem::cold_init,
    .fdt_fixup = &subsystem::fdt_fixup,
    .mmode_regions = &subsystem::mmode_regions,
    .hart_init = &subsystem::hart_init,
    .hart_restart = &subsystem::hart_init,
    .smode_enter = &subsystem::smode_enter,
    .smode_leave = &subsystem::smode_leave,
    .system_reset = &subsystem::system_reset,
    .per_hart_bytes = &subsystem::per_hart_bytes,
    .fdt_room = &subsystem::fdt_room,
};
} // namespace trace
