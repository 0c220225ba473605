// SPDX-License-Identifier: BSD-2-Clause
// Power-off and reboot through a PMIC on an I2C bus, the device tree's
// PMIC node a child of its controller node, its reg the 7-bit address:
// - X-Powers AXP15060 ("x-powers,axp15060", the JH7110 boards' PMIC on a
//   DesignWare controller): register 0x32, bit 7 powers off, bit 6 resets
//   (read-modify-write; OpenSBI's platform/generic/starfive/jh7110.c).
//   Linux may have gated the controller's APB clock: on a JH7110 the
//   controller's first clock is a register of the system clock generator
//   ("starfive,jh7110-syscrg": clock N at base + 4N, bit 31 enables), which
//   is enabled first, as OpenSBI does.
#include "drivers.hpp"
#include <libfdt.h>

namespace drivers {
namespace {
constexpr uint8_t AXP15060_POWER = 0x32;
constexpr uint8_t AXP15060_POWER_OFF = 1u << 7, AXP15060_RESET = 1u << 6;
constexpr uint32_t JH7110_CLK_ENABLE = 1u << 31;

struct Pmic {
    uintptr_t i2c;   // controller registers; 0: none found
    uint8_t addr;    // 7-bit target address
    uintptr_t clock; // clock-enable register of the controller, 0 if none
};
Pmic axp15060;

bool parse(const void *fdt, const char *compat, const char *ctrl_compat, Pmic &p) {
    int node = fdt_node_offset_by_compatible(fdt, -1, compat);
    if (node < 0) return false;
    int ctrl = fdt_parent_offset(fdt, node);
    if (ctrl < 0 || fdt_node_check_compatible(fdt, ctrl, ctrl_compat)) return false;
    int len;
    auto *reg = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, "reg", &len));
    if (!reg || len < 4 || fdt32_to_cpu(*reg) > 0x7f) return false;
    uint64_t base, size;
    if (!fdt_get_reg(fdt, ctrl, 0, base, size)) return false;
    p = {static_cast<uintptr_t>(base), static_cast<uint8_t>(fdt32_to_cpu(*reg)), 0};
    auto *clk = static_cast<const fdt32_t *>(fdt_getprop(fdt, ctrl, "clocks", &len));
    if (clk && len >= 8) {
        int crg = fdt_node_offset_by_phandle(fdt, fdt32_to_cpu(clk[0]));
        uint64_t cbase, csize;
        uint32_t idx = fdt32_to_cpu(clk[1]);
        if (crg >= 0 && !fdt_node_check_compatible(fdt, crg, "starfive,jh7110-syscrg") &&
            fdt_get_reg(fdt, crg, 0, cbase, csize) && 4ull * idx + 4 <= csize)
            p.clock = static_cast<uintptr_t>(cbase + 4ull * idx);
    }
    return true;
}

void axp15060_set(uint8_t bit) {
    const Pmic &p = axp15060;
    if (p.clock) {
        volatile uint32_t &c = *reinterpret_cast<volatile uint32_t *>(p.clock);
        if (!(c & JH7110_CLK_ENABLE)) c = c | JH7110_CLK_ENABLE;
    }
    uint8_t v;
    if (!dw_i2c_read_reg(p.i2c, p.addr, AXP15060_POWER, v)) return;
    dw_i2c_write_reg(p.i2c, p.addr, AXP15060_POWER, v | bit);
}
} // namespace

bool pmic_reset_init_from_fdt(const void *fdt) {
    return parse(fdt, "x-powers,axp15060", "snps,designware-i2c", axp15060);
}
bool pmic_poweroff_present() { return axp15060.i2c != 0; }
bool pmic_reboot_present() { return axp15060.i2c != 0; }
void pmic_poweroff() {
    if (axp15060.i2c) axp15060_set(AXP15060_POWER_OFF);
}
void pmic_reboot() {
    if (axp15060.i2c) axp15060_set(AXP15060_RESET);
}

} // namespace drivers
