// SPDX-License-Identifier: BSD-2-Clause
// Test rig implementation, plus the firmware-core services the PMU service
// uses (fw.hpp), implemented over the model machine.
#include "rig.hpp"

#include <libfdt.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace fw {
// /memory is the model's RAM; the firmware owns its first kFwSize bytes.
// The contract of fw.hpp as firmware/core/init.cpp keeps it: addr_hi must be
// 0 (M-mode reaches XLEN-bit addresses only) and the range must not run past
// 2^XLEN; one that ends exactly there is fine.
bool s_mode_range_ok(unsigned long lo, unsigned long hi, unsigned long size) {
    const rig::Machine &m = *rig::Machine::active;
    if (hi != 0) return false;
    const unsigned long last = lo + (size ? size - 1 : 0);
    if (last < lo) return false;
    if (!m.in_ram(lo, size ? size : 1)) return false;
    return lo >= m.fw_end;
}
// The rig's harts: kMaxHarts slots, fresh and zeroed at each cold_init, as
// the firmware carves them at cold boot.
void *carve_per_hart(unsigned long size, unsigned long align) {
    static std::vector<unsigned char> pool;
    pool.assign(size * kMaxHarts + align, 0);
    const uintptr_t p = reinterpret_cast<uintptr_t>(pool.data());
    return reinterpret_cast<void *>((p + align - 1) & ~(static_cast<uintptr_t>(align) - 1));
}
[[noreturn]] void fatal(const char *why) {
    std::fprintf(stderr, "fatal: %s\n", why);
    std::abort();
}
uintptr_t fw_region_start() { return rig::Machine::active->ram_base; }
uintptr_t fw_region_end() { return rig::Machine::active->fw_end; }
void puts(const char *s) { std::fputs(s, stdout); }
void printf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::vprintf(fmt, ap);
    va_end(ap);
}
} // namespace fw

namespace rig {

std::vector<uint8_t> make_fdt(const std::vector<Prop> &props, bool with_node) {
    std::vector<uint8_t> b(16384);
    void *f = b.data();
    REQUIRE(fdt_create(f, static_cast<int>(b.size())) == 0);
    REQUIRE(fdt_finish_reservemap(f) == 0);
    REQUIRE(fdt_begin_node(f, "") == 0);
    REQUIRE(fdt_property_u32(f, "#address-cells", 2) == 0);
    REQUIRE(fdt_begin_node(f, "soc") == 0);
    if (with_node) {
        REQUIRE(fdt_begin_node(f, "pmu") == 0);
        for (const Prop &p : props) {
            std::vector<fdt32_t> be;
            for (uint32_t c : p.cells) be.push_back(cpu_to_fdt32(c));
            REQUIRE(fdt_property(f, p.name.c_str(), be.data(),
                                 static_cast<int>(be.size() * sizeof(fdt32_t))) == 0);
        }
        REQUIRE(fdt_property_string(f, "compatible", "riscv,pmu") == 0);
        REQUIRE(fdt_end_node(f) == 0);
    }
    REQUIRE(fdt_end_node(f) == 0);
    REQUIRE(fdt_end_node(f) == 0);
    REQUIRE(fdt_finish(f) == 0);
    REQUIRE(fdt_open_into(f, f, static_cast<int>(b.size())) == 0);
    return b;
}

Rig::Rig(PmuHartConfig cfg, std::vector<Prop> props, unsigned harts, bool with_node,
         uint64_t ram_base)
    : m(harts, cfg, ram_base, kRamSize, kFwSize), fdt(make_fdt(props, with_node)) {
    // The hart model is as wide as the firmware build: RV32 on a 32-bit host.
    REQUIRE_EQ(cfg.xlen, kXlen);
    Machine::active = &m;
    // Firmware state starts zeroed, as .bss does.
    std::memset(static_cast<void *>(&pmu::g_config), 0, sizeof pmu::g_config);
    // The run-time quirk platform/generic/vendor.cpp chooses for T-Head
    // C9xx cores, asked for when the model hart is one.
    pmu::use_thead_c9xx_overflow(cfg.thead_c9xx);
    pmu::kSubsystem.cold_init(fdt.data(), 0);
    for (unsigned h = 0; h < harts; h++) {
        m.current = h;
        pmu::kSubsystem.hart_init();
    }
    m.current = 0;
}

Rig::~Rig() {
    CHECK_MESSAGE(m.faults == 0, "M-mode would have trapped: ",
                  m.fault_log.empty() ? std::string() : m.fault_log.front());
    Machine::active = nullptr;
}

} // namespace rig
