// SPDX-License-Identifier: BSD-2-Clause
// The trace service in the firmware core: device-tree options, the
// boot-time trace buffer, HSM and reset hooks, PMP regions.
//
// /chosen options (README "N-Trace"):
//   tsbi,trace = "htm" | "btm"      trace S-mode on every hart from hand-off
//   tsbi,trace-size = <MiB>         boot-time buffer size (default 64)
//   tsbi,trace-format = "etrace"    boot-time trace in E-Trace (default
//                                   "ntrace")
//   tsbi,trace-data                 with "etrace": E-Trace data trace too
//   tsbi,trace-owner = "s-mode"     (the default) components belong to
//                                   S-mode: reset, the funnels passing
//                                   through, not PMP-protected, no SBI
//                                   trace service
//   tsbi,trace-owner = "m-mode"     the firmware keeps them (PMP-closed,
//                                   disabled in the tree handed on): the
//                                   SBI trace service and CTR's feed;
//                                   implied by tsbi,trace
//   tsbi,trace-allow-mmode          platform opt-in: encoders without a
//                                   privilege filter may trace (M-mode too)
#include "core/dt.hpp"
#include "core/hart.hpp"
#include "driver.hpp"
#include "service.hpp"
#include "strc.hpp"
#include "subsystem.hpp" // trace/subsystem.hpp: the entries defined here
#include "tci.hpp"
#include <libfdt.h>
#include "fdt_walk.hpp"

namespace trace {

bool hart_is_stopped(unsigned long hartid) {
    // Anything but STARTED: the hart enters S-mode through trace_hart_start.
    return fw::hart_index(hartid) != fw::kNoHart &&
           fw::hart_state(hartid).hsm_state.load(fw::memory_order_acquire) != fw::HSM_STARTED;
}

// Whether the tree has a trace component (any_component), -1 before it is asked.
int components = -1;

void *scan_scratch(unsigned long bytes, unsigned long align) { return fw::cold_scratch(bytes, align); }

bool s_mode_range_ok(uint64_t addr, uint64_t size) {
    if (sizeof(long) == 4 && (addr >> 32 || size >> 32)) return false;
    return fw::s_mode_range_ok(static_cast<unsigned long>(addr), 0, static_cast<unsigned long>(size));
}

namespace {

constexpr uint64_t kBootAlign = 2ull << 20; // 2 MiB: a huge page Linux maps around
constexpr uint32_t kDefaultMiB = 64;
BootOptions boot;
HartMask boot_harts;
// What the fix-up may edit (fdt_room): every component node, and with a
// boot-time trace the syscon-poweroff/-reboot nodes it disables.
unsigned component_nodes, syscon_nodes;
constexpr const char *kSyscons[] = {"syscon-poweroff", "syscon-reboot"};

bool str_prop(const void *fdt, int node, const char *name, const char *want) {
    int len;
    auto *p = static_cast<const char *>(fdt_getprop(fdt, node, name, &len));
    return p && len > 0 && strcmp(p, want) == 0;
}

bool overlaps(uint64_t a, uint64_t asize, uint64_t b, uint64_t bsize) {
    return a < b + bsize && b < a + asize;
}

// CTR's feed buffer (README "CTR from the encoder"): a power of two,
// naturally aligned (what the RAM sink's wrap needs), in the firmware's own
// region (fw::carve_fw_memory), so the firmware's PMP entry and device-tree
// reservation cover it. At the top of RAM it was where boot loaders
// relocate themselves (U-Boot on QEMU 10, issue 26).
constexpr uint64_t kCtrBufferSize = 256ull << 10;

// A buffer at the top of the first /memory range, below the device tree
// (QEMU puts it in the last 2 MiB of RAM), `align` aligned.
bool place_buffer(const void *fdt, unsigned long next_addr, uint64_t size, uint64_t align, uint64_t &out) {
    fw::dt::Memory mem;
    if (!fw::dt::scan_memory(fdt, mem) || !mem.count) return false;
    uint64_t lo = mem.r[0].base, hi = mem.r[0].base + mem.r[0].size;
    uint64_t fdt_at = reinterpret_cast<uintptr_t>(fdt);
    if (fdt_at >= lo && fdt_at < hi) hi = fdt_at;
    // Below the harts' region, which the firmware put there first.
    const uint64_t h0 = fw::fw_hart_region_start(), h1 = fw::fw_hart_region_end();
    if (h1 > h0 && h0 >= lo && h0 < hi) hi = h0;
    if (hi - lo < size) return false;
    uint64_t base = (hi - size) & ~(align - 1);
    if (base < lo) return false;
    // Not the firmware, the next stage's first 64 MiB (a kernel and its
    // early allocations) or the initrd.
    uint64_t fw0 = fw::fw_region_start(), fw1 = fw::fw_region_end();
    if (overlaps(base, size, fw0, fw1 - fw0) || overlaps(base, size, next_addr, 64ull << 20))
        return false;
    int chosen = fdtw::root_child(fdt, "chosen");
    int l0, l1;
    auto *s = static_cast<const fdt32_t *>(fdt_getprop(fdt, chosen, "linux,initrd-start", &l0));
    auto *e = static_cast<const fdt32_t *>(fdt_getprop(fdt, chosen, "linux,initrd-end", &l1));
    if (s && e) {
        uint64_t a = l0 == 8 ? fdt64_to_cpu(*reinterpret_cast<const fdt64_t *>(s)) : fdt32_to_cpu(*s);
        uint64_t b = l1 == 8 ? fdt64_to_cpu(*reinterpret_cast<const fdt64_t *>(e)) : fdt32_to_cpu(*e);
        if (b > a && overlaps(base, size, a, b - a)) return false;
    }
    out = base;
    return true;
}

// PMP entries mmode_regions asks for: one for the encoders, one for the
// funnels with the sink.
unsigned component_entries(const Topology &t) {
    return (t.encoders != 0) + (t.funnels != 0 || t.sink.present);
}

} // namespace
} // namespace trace

void trace::subsystem::cold_init(const void *fdt, unsigned long next_addr) {
    using namespace trace;
    static Topology topo; // large: not on the boot stack
    int chosen = fdtw::root_child(fdt, "chosen");
    // S-mode owns the components unless /chosen asks the firmware to keep
    // them (README "Ownership and security"): a kernel with its own trace
    // driver (Linux's rvtrace) then traces as on OpenSBI, which leaves them
    // open. The firmware's features need M-mode: tsbi,trace-owner =
    // "m-mode", or a boot-time trace (tsbi,trace), which implies it.
    const bool boot_req = chosen >= 0 && fdt_getprop(fdt, chosen, "tsbi,trace", nullptr);
    const bool owner_set = chosen >= 0 && fdt_getprop(fdt, chosen, "tsbi,trace-owner", nullptr);
    const bool want_m = owner_set ? str_prop(fdt, chosen, "tsbi,trace-owner", "m-mode") : boot_req;
    // Self-hosted trace needs no component in the device tree: the CSRs
    // reach the hart's own encoder.
    strc::decide(fdt, boot_req && want_m);
    if (components < 0) components = any_component(fdt);
    const unsigned found = components ? scan_topology(fdt, topo, component_type) : 0;
    component_nodes = topo.nodes;
    if (!found) return;
    if (owner_set && !want_m && !str_prop(fdt, chosen, "tsbi,trace-owner", "s-mode"))
        fw::printf("tsbi: trace: tsbi,trace-owner must be \"m-mode\" or \"s-mode\": S-mode owns them\n");
    if (boot_req && !want_m)
        fw::printf("tsbi: trace: tsbi,trace needs tsbi,trace-owner = \"m-mode\": no boot-time trace\n");
    bool smode = !want_m;
    bool allow_m = chosen >= 0 && fdt_getprop(fdt, chosen, "tsbi,trace-allow-mmode", nullptr);
    // The SBI trace service and CTR's feed rely on S-mode not reaching the
    // components: without the PMP entries to close them, the components are
    // S-mode's after all (core/README.md "Without PMP").
    // One RAM sink per hart (no funnel): the service, boot-time trace and
    // CTR's feed run on one sink that every traced hart reaches, so the
    // components are S-mode's (README "One RAM sink per hart").
    if (!smode && topo.sinks > 1) {
        fw::printf("tsbi: trace: %u RAM sinks, one per hart: components handed to S-mode\n", topo.sinks);
        smode = true;
    }
    const unsigned spare = fw::pmp_spare_entries();
    if (!smode && component_entries(topo) > spare) {
        fw::printf("tsbi: trace: %u PMP entries to spare, %u needed: components handed to S-mode\n",
                   spare, component_entries(topo));
        smode = true;
    }
    // The slots' state, carved per hart (subsystem.hpp's per_hart_bytes):
    // every slot is an enabled hart's, so the harts served hold them all
    // unless some harts were left out (then their slots are not served).
    auto *slots = static_cast<SlotState *>(fw::carve_per_hart(sizeof(SlotState), alignof(SlotState)));
    if (!slots) fw::printf("tsbi: trace: no room for the encoders' state below the next stage\n");
    bool ok = init(topo, smode, allow_m, slots, slots ? fw::hart_count() : 0);
    fw::printf("tsbi: trace: %u encoder(s), %u funnel(s), RAM sink at 0x%lx%s\n", found,
               topo.funnels, static_cast<unsigned long>(topo.sink.base),
               !smode ? (ok ? ", kept by the firmware" : ", not usable")
               : want_m ? ", handed to S-mode"
                        : ", handed to S-mode (the default; tsbi,trace-owner = \"m-mode\" keeps them)");
    if (smode)
        fw::printf("tsbi: trace: M-mode kept out of the trace of %u of them\n", smode_encoders_without_mmode());
    if (!ok) return;
    uint32_t mode = str_prop(fdt, chosen, "tsbi,trace", "htm")   ? TCI_INSTMODE_HTM
                    : str_prop(fdt, chosen, "tsbi,trace", "btm") ? TCI_INSTMODE_BTM
                                                                 : 0;
    if (!mode) {
        if (chosen >= 0 && fdt_getprop(fdt, chosen, "tsbi,trace", nullptr))
            fw::printf("tsbi: trace: tsbi,trace must be \"htm\" or \"btm\"\n");
        // No boot-time trace: the sink is free for CTR's feed.
        if (uintptr_t b = fw::carve_fw_memory(kCtrBufferSize)) set_ctr_buffer(b, kCtrBufferSize);
        else fw::printf("tsbi: trace: no room in the firmware's region for CTR's feed buffer\n");
        return;
    }
    int len;
    auto *mib = static_cast<const fdt32_t *>(fdt_getprop(fdt, chosen, "tsbi,trace-size", &len));
    uint64_t size = (mib && len == 4 ? fdt32_to_cpu(*mib) : kDefaultMiB) * (1ull << 20);
    if (size <= kBootHeaderSize || !place_buffer(fdt, next_addr, size, kBootAlign, boot.buffer)) {
        fw::printf("tsbi: trace: no room for a %lu MiB boot-time trace buffer\n",
                   static_cast<unsigned long>(size >> 20));
        return;
    }
    // tsbi,trace-format = "etrace": E-Trace 2.0 instead of N-Trace (the
    // header's trTeControl.Format tells a decoder which).
    const bool etrace = str_prop(fdt, chosen, "tsbi,trace-format", "etrace");
    if (!etrace && fdt_getprop(fdt, chosen, "tsbi,trace-format", nullptr) &&
        !str_prop(fdt, chosen, "tsbi,trace-format", "ntrace"))
        fw::printf("tsbi: trace: tsbi,trace-format must be \"ntrace\" or \"etrace\": N-Trace\n");
    // S-mode only: the kernel (U-mode and M-mode are filtered out).
    boot.size = size;
    // tsbi,trace-data (with E-Trace): every load, store and atomic as well.
    const bool data = etrace && fdt_getprop(fdt, chosen, "tsbi,trace-data", nullptr);
    boot.config = mode | cfg::PRIV_S | (etrace ? cfg::ETRACE : 0) | (data ? cfg::DATA : 0);
    // Every served hart with an encoder slot (topology.hpp).
    for (unsigned i = 0; i < fw::hart_count(); i++) {
        if (!fw::index_valid(i)) continue;
        const unsigned s = slot(fw::hart_at(i).hartid);
        if (s != kNoSlot) boot_harts.set(s);
    }
    for (const char *compat : kSyscons)
        for (int n = fdt_node_offset_by_compatible(fdt, -1, compat); n >= 0;
             n = fdt_node_offset_by_compatible(fdt, n, compat))
            syscon_nodes++;
}

unsigned long trace::subsystem::fdt_room(const void *) {
    using namespace trace;
    namespace dt = fw::dt;
    // status = "disabled" on every component node where M-mode keeps any
    // (disable_components_in edits those in the kept regions: at most all).
    Region kept[2];
    unsigned long room = 0;
    if (trace::mmode_regions(kept, 2)) room += dt::kStatusNameBytes + dt::kDisabledBytes * component_nodes;
    // The boot-time trace buffer's reservation and the syscons it disables.
    if (boot.config) room += dt::kReserveBytes + dt::kStatusNameBytes + dt::kDisabledBytes * syscon_nodes;
    return room;
}

unsigned long trace::subsystem::per_hart_bytes(const void *fdt) {
    // Harts pay for the slots' state only on a machine with trace
    // components (one walk, remembered: cold_init skips the scan without).
    if (trace::components < 0) trace::components = trace::any_component(fdt);
    return trace::components ? sizeof(trace::SlotState) : 0;
}

void trace::subsystem::fdt_fixup(void *fdt) {
    using namespace trace;
    // A component M-mode keeps is not offered to the next stage: PMP closes
    // its registers, so a driver that matches "riscv,trace-component"
    // (Linux's rvtrace) would take an access fault in its probe. The core
    // opened the tree with the room fdt_room asked for, or stopped the boot:
    // an edit that fails here is a tree libfdt refuses or a room asked too
    // small, and the boot stops rather than offer S-mode those devices
    // (README "Ownership and security").
    Region kept[2];
    if (unsigned failed = disable_components_in(fdt, kept, mmode_regions(kept, 2))) {
        fw::printf("tsbi: trace: %u component(s) M-mode keeps could not be disabled in the device tree\n",
                   failed);
        fw::fatal("trace components PMP-closed would be offered to S-mode");
    }
    if (!boot.config) return;
    // Trace only into memory the next stage was told to keep away from.
    int err = fw::dt::fixup_reserve(fdt, boot.buffer, boot.size, "tsbi-trace");
    // The trace is flushed at SBI SRST: the next stage must power off and
    // reboot through it, not by writing the syscon itself (Linux prefers
    // the syscon-poweroff/-reboot drivers to SRST when both exist).
    for (const char *compat : kSyscons)
        for (int n = fdt_node_offset_by_compatible(fdt, -1, compat); !err && n >= 0;
             n = fdt_node_offset_by_compatible(fdt, n, compat))
            err = fdt_setprop_string(fdt, n, "status", "disabled");
    sbi::Error e = err ? sbi::Error::Failed : boot_trace(boot, boot_harts);
    if (e != sbi::Error::Success) {
        fw::printf("tsbi: trace: boot-time trace not started (%d)\n", err ? err : static_cast<int>(e));
        return;
    }
    fw::printf("tsbi: trace: %s%s%s of S-mode into 0x%lx-0x%lx\n",
               (boot.config & cfg::MODE_MASK) == TCI_INSTMODE_HTM ? "HTM" : "BTM",
               (boot.config & cfg::ETRACE) ? " E-Trace" : "",
               (boot.config & cfg::DATA) ? " with data trace" : "",
               static_cast<unsigned long>(boot.buffer),
               static_cast<unsigned long>(boot.buffer + boot.size));
}

void trace::subsystem::hart_init() { trace::strc::hart_init(); }
void trace::subsystem::smode_enter() { trace::hart_start(fw::current_hartid()); }
void trace::subsystem::smode_leave() { trace::hart_stop(fw::current_hartid()); }
void trace::subsystem::system_reset() { trace::system_reset(); }

unsigned trace::subsystem::mmode_regions(fw::MmioRange *out, unsigned max) {
    trace::Region r[2];
    unsigned n = trace::mmode_regions(r, max < 2 ? max : 2);
    for (unsigned i = 0; i < n; i++) out[i] = {r[i].base, r[i].size};
    return n;
}

