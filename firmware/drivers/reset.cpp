// SPDX-License-Identifier: BSD-2-Clause
// System power-off and reboot from whichever device the device tree has:
// syscon-poweroff/-reboot (QEMU virt), HTIF (spike: power-off only),
// gpio-restart (sifive_u: reboot only), gpio-poweroff, the Allwinner D1
// watchdog (reboot only), a PMIC or board MCU on I2C (AXP15060, DA9063,
// SG2042 MCU), the last choice of each type. A machine without one of them does not
// offer that reset type (SRST answers NOT_SUPPORTED).
#include "drivers.hpp"
#include <libfdt.h>

namespace drivers {

bool reset_init_from_fdt(const void *fdt) {
    bool s = syscon_reset_init_from_fdt(fdt);
    bool g = gpio_reset_init_from_fdt(fdt);
    bool w = sunxi_wdt_reset_init_from_fdt(fdt);
    bool p = pmic_reset_init_from_fdt(fdt);
    int htif = fdt_find_compatible(fdt, -1, "ucb,htif0");
    bool h = htif >= 0 && (htif_present() || htif_init(fdt, htif));
    return s || g || w || h || p;
}

bool poweroff_present() {
    return syscon_poweroff_present() || htif_present() || gpio_poweroff_present() ||
           pmic_poweroff_present();
}
bool reboot_present() {
    return syscon_reboot_present() || gpio_restart_present() || sunxi_wdt_reset_present() ||
           pmic_reboot_present();
}

void poweroff() {
    if (syscon_poweroff_present()) syscon_poweroff();
    else if (htif_present()) htif_poweroff();
    else if (gpio_poweroff_present()) gpio_poweroff();
    else if (pmic_poweroff_present()) pmic_poweroff();
}

void reboot() {
    if (syscon_reboot_present()) syscon_reboot();
    else if (gpio_restart_present()) gpio_restart();
    else if (sunxi_wdt_reset_present()) sunxi_wdt_reset();
    else if (pmic_reboot_present()) pmic_reboot();
}

} // namespace drivers
