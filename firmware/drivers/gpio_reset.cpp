// SPDX-License-Identifier: BSD-2-Clause
// "gpio-restart" and "gpio-poweroff" (Linux DT bindings
// power/reset/gpio-restart.yaml, gpio-poweroff.yaml) on a SiFive GPIO
// controller ("sifive,gpio0"; FU540-C000 manual, chapter "GPIO": input_en
// 0x04, output_en 0x08, output_val 0x0C). Either drives its line to the
// active level (GPIO_ACTIVE_LOW in the flags cell inverts it), as Linux's
// drivers do; QEMU's sifive_u resets the machine when its line 10 goes low,
// the HiFive Unmatched powers off on line 2.
#include "drivers.hpp"
#include <libfdt.h>

namespace drivers {
namespace {
constexpr unsigned INPUT_EN = 0x04, OUTPUT_EN = 0x08, OUTPUT_VAL = 0x0C;
constexpr uint32_t GPIO_ACTIVE_LOW = 1;
struct GpioLine {
    volatile uint32_t *gpio;
    uint32_t pin_mask;
    bool active_low;
};
GpioLine restart_line, poweroff_line;

bool parse(const void *fdt, const char *compat, GpioLine &l) {
    int node = fdt_node_offset_by_compatible(fdt, -1, compat);
    if (node < 0) return false;
    int len;
    auto *g = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, "gpios", &len));
    if (!g || len < 12) return false;
    int ctrl = fdt_node_offset_by_phandle(fdt, fdt32_to_cpu(g[0]));
    if (ctrl < 0 || fdt_node_check_compatible(fdt, ctrl, "sifive,gpio0")) return false;
    // The controller's #gpio-cells is 2 (pin, flags) for sifive,gpio0.
    uint32_t pin = fdt32_to_cpu(g[1]);
    if (pin >= 32) return false;
    uint64_t addr, size;
    if (!fdt_get_reg(fdt, ctrl, 0, addr, size)) return false;
    l = {reinterpret_cast<volatile uint32_t *>(static_cast<uintptr_t>(addr)), 1u << pin,
         (fdt32_to_cpu(g[2]) & GPIO_ACTIVE_LOW) != 0};
    return true;
}

void fire(const GpioLine &l) {
    if (!l.gpio) return;
    auto reg = [&](unsigned off) -> volatile uint32_t & { return l.gpio[off / 4]; };
    // Inactive level first, then enable the output, then the active level: an
    // edge even if the line floated at the active level.
    auto level = [&](bool active) {
        if (active != l.active_low) reg(OUTPUT_VAL) = reg(OUTPUT_VAL) | l.pin_mask;
        else reg(OUTPUT_VAL) = reg(OUTPUT_VAL) & ~l.pin_mask;
    };
    level(false);
    reg(INPUT_EN) = reg(INPUT_EN) & ~l.pin_mask;
    reg(OUTPUT_EN) = reg(OUTPUT_EN) | l.pin_mask;
    level(true);
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
