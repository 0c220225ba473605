// SPDX-License-Identifier: BSD-2-Clause
// "gpio-restart" (Linux DT binding power/reset/gpio-restart.yaml) on a SiFive
// GPIO controller ("sifive,gpio0"; FU540-C000 manual, chapter "GPIO":
// input_en 0x04, output_en 0x08, output_val 0x0C). Restart drives the line to
// its active level (GPIO_ACTIVE_LOW in the flags cell inverts it), as Linux's
// driver does; QEMU's sifive_u resets the machine when its line 10 goes low.
#include "drivers.hpp"
#include <libfdt.h>

namespace drivers {
namespace {
constexpr unsigned INPUT_EN = 0x04, OUTPUT_EN = 0x08, OUTPUT_VAL = 0x0C;
constexpr uint32_t GPIO_ACTIVE_LOW = 1;
volatile uint32_t *gpio;
uint32_t pin_mask;
bool active_low;

volatile uint32_t &reg(unsigned off) { return gpio[off / 4]; }
} // namespace

bool gpio_restart_init_from_fdt(const void *fdt) {
    int node = fdt_node_offset_by_compatible(fdt, -1, "gpio-restart");
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
    gpio = reinterpret_cast<volatile uint32_t *>(static_cast<uintptr_t>(addr));
    pin_mask = 1u << pin;
    active_low = fdt32_to_cpu(g[2]) & GPIO_ACTIVE_LOW;
    return true;
}

bool gpio_restart_present() { return gpio != nullptr; }

void gpio_restart() {
    if (!gpio) return;
    // Inactive level first, then enable the output, then the active level: an
    // edge even if the line floated at the active level.
    auto level = [](bool active) {
        if (active != active_low) reg(OUTPUT_VAL) = reg(OUTPUT_VAL) | pin_mask;
        else reg(OUTPUT_VAL) = reg(OUTPUT_VAL) & ~pin_mask;
    };
    level(false);
    reg(INPUT_EN) = reg(INPUT_EN) & ~pin_mask;
    reg(OUTPUT_EN) = reg(OUTPUT_EN) | pin_mask;
    level(true);
}

} // namespace drivers
