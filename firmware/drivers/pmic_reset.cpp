// SPDX-License-Identifier: BSD-2-Clause
// Power-off and reboot through a PMIC or board controller on I2C: the
// device-tree node is a child of its I2C controller's node, its reg the
// 7-bit address. Controllers: DesignWare ("snps,designware-i2c",
// dw_i2c.cpp) and SiFive/OpenCores ("sifive,i2c0", sifive_i2c.cpp). Chips,
// with the register facts of OpenSBI's drivers for the same boards:
// - X-Powers AXP15060 ("x-powers,axp15060", the JH7110 boards): register
//   0x32, bit 7 powers off, bit 6 resets, read-modify-write
//   (platform/generic/starfive/jh7110.c). Linux may have gated the
//   controller's APB clock: on a JH7110 the controller's first clock is a
//   register of the system clock generator ("starfive,jh7110-syscrg":
//   clock N at base + 4N, bit 31 enables), enabled first, as OpenSBI does.
// - Dialog DA9063 ("dlg,da9063", the HiFive Unmatched): after checking the
//   chip (PAGE_CON = 2 reads back, DEVICE_ID 0x81 = 0x61), page 0;
//   power-off writes CONTROL_F.SHUTDOWN; reboot stops the watchdog
//   (CONTROL_D.TWDSCALE = 0), writes CONTROL_F.WAKEUP, then CONTROL_A =
//   M_POWER1_EN | M_POWER_EN | STANDBY (platform/generic/sifive/fu740.c).
// - The Milk-V Pioneer's board MCU ("sophgo,sg2042-hwmon-mcu"): command
//   register 0x03, 0x02 powers off, 0x07 reboots
//   (lib/utils/reset/fdt_reset_sg2042_hwmon_mcu.c).
// A board whose tree also has a GPIO or syscon reset keeps using that one
// (reset.cpp asks this driver last), as OpenSBI ranks its PMIC resets low.
#include "drivers.hpp"
#include <libfdt.h>

namespace drivers {
namespace {
enum class Bus { DesignWare, Sifive };
enum class Chip { Axp15060, Da9063, Sg2042Mcu };
struct Controller {
    const char *compat;
    Bus bus;
};
constexpr Controller kControllers[] = {{"snps,designware-i2c", Bus::DesignWare},
                                       {"sifive,i2c0", Bus::Sifive}};
struct Kind {
    const char *compat;
    Chip chip;
};
constexpr Kind kKinds[] = {{"x-powers,axp15060", Chip::Axp15060},
                           {"dlg,da9063", Chip::Da9063},
                           {"sophgo,sg2042-hwmon-mcu", Chip::Sg2042Mcu}};

constexpr uint8_t AXP15060_POWER = 0x32;
constexpr uint8_t AXP15060_POWER_OFF = 1u << 7, AXP15060_RESET = 1u << 6;
constexpr uint32_t JH7110_CLK_ENABLE = 1u << 31;

constexpr uint8_t DA9063_PAGE_CON = 0x00, DA9063_CONTROL_A = 0x0e, DA9063_CONTROL_D = 0x11,
                  DA9063_CONTROL_F = 0x13, DA9063_DEVICE_ID = 0x81;
constexpr uint8_t DA9063_CONTROL_A_M_POWER1_EN = 1u << 6, DA9063_CONTROL_A_M_POWER_EN = 1u << 5,
                  DA9063_CONTROL_A_STANDBY = 1u << 3, DA9063_CONTROL_D_TWDSCALE = 0x07,
                  DA9063_CONTROL_F_WAKEUP = 1u << 2, DA9063_CONTROL_F_SHUTDOWN = 1u << 1;
constexpr uint8_t DA9063_ID = 0x61, DA9063_CHECK_PAGE = 0x02;

constexpr uint8_t SG2042_MCU_CMD = 0x03, SG2042_MCU_POWEROFF = 0x02, SG2042_MCU_REBOOT = 0x07;

struct Pmic {
    uintptr_t i2c;   // controller registers; 0: none found
    Bus bus;
    Chip chip;
    uint8_t addr;    // 7-bit target address
    uintptr_t clock; // clock-enable register of the controller, 0 if none
};
Pmic pmic;

bool wr(uint8_t reg, uint8_t v) {
    return pmic.bus == Bus::DesignWare ? dw_i2c_write_reg(pmic.i2c, pmic.addr, reg, v)
                                       : sifive_i2c_write_reg(pmic.i2c, pmic.addr, reg, v);
}
bool rd(uint8_t reg, uint8_t &v) {
    return pmic.bus == Bus::DesignWare ? dw_i2c_read_reg(pmic.i2c, pmic.addr, reg, v)
                                       : sifive_i2c_read_reg(pmic.i2c, pmic.addr, reg, v);
}

bool parse(const void *fdt, const Kind &k) {
    // The drivers' index (fdt_helpers.cpp): libfdt's look-ups each walk the
    // whole tree, and this runs once per kind at every boot, PMIC or not.
    int node = fdt_find_compatible(fdt, -1, k.compat);
    if (node < 0) return false;
    int ctrl = fdt_find_parent(fdt, node);
    const Controller *c = nullptr;
    for (const Controller &cc : kControllers)
        if (ctrl >= 0 && !fdt_node_check_compatible(fdt, ctrl, cc.compat)) c = &cc;
    if (!c) return false;
    int len;
    auto *reg = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, "reg", &len));
    if (!reg || len < 4 || fdt32_to_cpu(*reg) > 0x7f) return false;
    uint64_t base, size;
    if (!fdt_get_reg(fdt, ctrl, 0, base, size)) return false;
    pmic = {static_cast<uintptr_t>(base), c->bus, k.chip, static_cast<uint8_t>(fdt32_to_cpu(*reg)), 0};
    auto *clk = static_cast<const fdt32_t *>(fdt_getprop(fdt, ctrl, "clocks", &len));
    if (clk && len >= 8) {
        int crg = fdt_find_phandle(fdt, fdt32_to_cpu(clk[0]));
        uint64_t cbase, csize;
        uint32_t idx = fdt32_to_cpu(clk[1]);
        if (crg >= 0 && !fdt_node_check_compatible(fdt, crg, "starfive,jh7110-syscrg") &&
            fdt_get_reg(fdt, crg, 0, cbase, csize) && 4ull * idx + 4 <= csize)
            pmic.clock = static_cast<uintptr_t>(cbase + 4ull * idx);
    }
    return true;
}

void clock_on() {
    if (!pmic.clock) return;
    volatile uint32_t &c = *reinterpret_cast<volatile uint32_t *>(pmic.clock);
    if (!(c & JH7110_CLK_ENABLE)) c = c | JH7110_CLK_ENABLE;
}

void axp15060_set(uint8_t bit) {
    uint8_t v;
    if (rd(AXP15060_POWER, v)) wr(AXP15060_POWER, v | bit);
}

bool da9063_is_one() {
    uint8_t v;
    return wr(DA9063_PAGE_CON, DA9063_CHECK_PAGE) && rd(DA9063_PAGE_CON, v) &&
           v == DA9063_CHECK_PAGE && rd(DA9063_DEVICE_ID, v) && v == DA9063_ID &&
           wr(DA9063_PAGE_CON, 0);
}

void da9063_reboot() {
    uint8_t d;
    if (!rd(DA9063_CONTROL_D, d)) return;
    if ((d & DA9063_CONTROL_D_TWDSCALE) && !wr(DA9063_CONTROL_D, d & ~DA9063_CONTROL_D_TWDSCALE))
        return;
    if (!wr(DA9063_CONTROL_F, DA9063_CONTROL_F_WAKEUP)) return;
    wr(DA9063_CONTROL_A,
       DA9063_CONTROL_A_M_POWER1_EN | DA9063_CONTROL_A_M_POWER_EN | DA9063_CONTROL_A_STANDBY);
}

void reset(bool off) {
    if (!pmic.i2c) return;
    clock_on();
    switch (pmic.chip) {
    case Chip::Axp15060: axp15060_set(off ? AXP15060_POWER_OFF : AXP15060_RESET); break;
    case Chip::Da9063:
        if (!da9063_is_one()) return;
        if (off) wr(DA9063_CONTROL_F, DA9063_CONTROL_F_SHUTDOWN);
        else da9063_reboot();
        break;
    case Chip::Sg2042Mcu: wr(SG2042_MCU_CMD, off ? SG2042_MCU_POWEROFF : SG2042_MCU_REBOOT); break;
    }
}
} // namespace

bool pmic_reset_init_from_fdt(const void *fdt) {
    for (const Kind &k : kKinds)
        if (parse(fdt, k)) return true;
    return false;
}
bool pmic_poweroff_present() { return pmic.i2c != 0; }
bool pmic_reboot_present() { return pmic.i2c != 0; }
void pmic_poweroff() { reset(true); }
void pmic_reboot() { reset(false); }

} // namespace drivers
