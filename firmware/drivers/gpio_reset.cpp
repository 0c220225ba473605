// SPDX-License-Identifier: BSD-2-Clause
// "gpio-restart" and "gpio-poweroff" (Linux DT bindings
// power/reset/gpio-restart.yaml, gpio-poweroff.yaml): either drives its line
// to the active level (GPIO_ACTIVE_LOW in the flags cell inverts it), as
// Linux's drivers do. QEMU's sifive_u resets the machine when its line 10
// goes low, the HiFive Unmatched powers off on line 2, the JH7110 boards
// reset on line 35, the JH7100 VisionFive on line 63. Three GPIO
// controllers, each with #gpio-cells = 2 (pin, flags):
// - "sifive,gpio0" (FU540-C000 manual, chapter "GPIO"): a bit per pin in
//   input_en 0x04, output_en 0x08, output_val 0x0C;
// - "starfive,jh7110-sys-pinctrl" (Linux pinctrl-starfive-jh7110-sys.c, and
//   OpenSBI's fdt_gpio_starfive.c): a byte per pin, four to a 32-bit word,
//   in DOEN at 0x00 (0 enables the output) and DOUT at 0x40 (the level);
// - "starfive,jh7100-pinctrl" (Linux pinctrl-starfive-jh7100.c, JH7100 data
//   sheet section 12.2): a 32-bit word pair per GPIO, GPOn_DOUT_CFG at
//   0x50 + 8n (the level) and GPOn_DOEN_CFG at 0x54 + 8n (0 enables the
//   output), in the controller's first reg ("gpio").
#include "drivers.hpp"
#include <libfdt.h>

namespace drivers {
namespace {
constexpr unsigned INPUT_EN = 0x04, OUTPUT_EN = 0x08, OUTPUT_VAL = 0x0C;
constexpr unsigned JH7110_DOEN = 0x00, JH7110_DOUT = 0x40;
constexpr uint32_t JH7110_DOEN_ENABLE = 0;
constexpr unsigned JH7100_DOUT_CFG = 0x50, JH7100_DOEN_CFG = 0x54, JH7100_STRIDE = 8;
constexpr uint32_t JH7100_DOEN_ENABLE = 0;
constexpr uint32_t GPIO_ACTIVE_LOW = 1;

enum class Ctrl { Sifive, Jh7110, Jh7100 };
struct GpioController {
    const char *compat;
    Ctrl ctrl;
    unsigned pins;
};
constexpr GpioController kControllers[] = {
    {"sifive,gpio0", Ctrl::Sifive, 32},
    {"starfive,jh7110-sys-pinctrl", Ctrl::Jh7110, 64},
    {"starfive,jh7100-pinctrl", Ctrl::Jh7100, 64},
};

struct GpioLine {
    volatile uint32_t *gpio;
    unsigned pin;
    bool active_low;
    Ctrl ctrl;
};
GpioLine restart_line, poweroff_line;

bool parse(const void *fdt, const char *compat, GpioLine &l) {
    int node = fdt_find_compatible(fdt, -1, compat);
    if (node < 0) return false;
    int len;
    auto *g = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, "gpios", &len));
    if (!g || len < 12) return false;
    int ctrl = fdt_find_phandle(fdt, fdt32_to_cpu(g[0]));
    uint32_t pin = fdt32_to_cpu(g[1]);
    for (const GpioController &c : kControllers) {
        if (ctrl < 0 || !fdt_is_compatible(fdt, ctrl, c.compat) || pin >= c.pins) continue;
        uint64_t addr, size;
        if (!fdt_get_reg(fdt, ctrl, 0, addr, size)) return false;
        l = {reinterpret_cast<volatile uint32_t *>(static_cast<uintptr_t>(addr)), pin,
             (fdt32_to_cpu(g[2]) & GPIO_ACTIVE_LOW) != 0, c.ctrl};
        return true;
    }
    return false;
}

void fire_sifive(const GpioLine &l) {
    auto reg = [&](unsigned off) -> volatile uint32_t & { return l.gpio[off / 4]; };
    const uint32_t mask = 1u << l.pin;
    // Inactive level first, then enable the output, then the active level: an
    // edge even if the line floated at the active level.
    auto level = [&](bool active) {
        if (active != l.active_low) reg(OUTPUT_VAL) = reg(OUTPUT_VAL) | mask;
        else reg(OUTPUT_VAL) = reg(OUTPUT_VAL) & ~mask;
    };
    level(false);
    reg(INPUT_EN) = reg(INPUT_EN) & ~mask;
    reg(OUTPUT_EN) = reg(OUTPUT_EN) | mask;
    level(true);
}

void fire_jh7110(const GpioLine &l) {
    // The pin's byte in the word of its bank (4 pins a word).
    auto set = [&](unsigned bank, uint32_t v) {
        volatile uint32_t &w = l.gpio[(bank + (l.pin & ~3u)) / 4];
        const unsigned shift = (l.pin & 3) * 8;
        w = (w & ~(0xffu << shift)) | v << shift;
    };
    set(JH7110_DOUT, l.active_low ? 1 : 0);
    set(JH7110_DOEN, JH7110_DOEN_ENABLE);
    set(JH7110_DOUT, l.active_low ? 0 : 1);
}

void fire_jh7100(const GpioLine &l) {
    auto reg = [&](unsigned off) -> volatile uint32_t & {
        return l.gpio[(off + JH7100_STRIDE * l.pin) / 4];
    };
    reg(JH7100_DOUT_CFG) = l.active_low ? 1 : 0;
    reg(JH7100_DOEN_CFG) = JH7100_DOEN_ENABLE;
    reg(JH7100_DOUT_CFG) = l.active_low ? 0 : 1;
}

void fire(const GpioLine &l) {
    if (!l.gpio) return;
    switch (l.ctrl) {
    case Ctrl::Sifive: fire_sifive(l); break;
    case Ctrl::Jh7110: fire_jh7110(l); break;
    case Ctrl::Jh7100: fire_jh7100(l); break;
    }
}
} // namespace

bool gpio_reset_init_from_fdt(const void *fdt) {
    bool r = parse(fdt, "gpio-restart", restart_line);
    bool p = parse(fdt, "gpio-poweroff", poweroff_line);
    return r || p;
}

bool gpio_restart_present() { return restart_line.gpio != nullptr; }
bool gpio_poweroff_present() { return poweroff_line.gpio != nullptr; }
void gpio_restart() { fire(restart_line); }
void gpio_poweroff() { fire(poweroff_line); }

} // namespace drivers
