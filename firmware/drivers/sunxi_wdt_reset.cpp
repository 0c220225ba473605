// SPDX-License-Identifier: BSD-2-Clause
// Reboot through the Allwinner D1 watchdog ("allwinner,sun20i-d1-wdt-reset",
// Linux binding watchdog/allwinner,sun4i-a10-wdt.yaml). The D1 device trees
// mark the node status = "reserved": operational, left to firmware (DT spec
// 2.3.4), so it is used here although Linux leaves it alone. Registers as
// OpenSBI's fdt_reset_sunxi_wdt.c writes them: a write takes effect only with
// the key 0x16aa in bits 31:16; MODE (+0x18) with the key alone stops the
// watchdog, SOFT_RST (+0x08) with the key and bit 0 resets the SoC.
#include "drivers.hpp"
#include <libfdt.h>
#include <string.h>

namespace drivers {
namespace {
constexpr unsigned SOFT_RST = 0x08, MODE = 0x18;
constexpr uint32_t KEY = 0x16aau << 16, SOFT_RST_EN = 1u << 0;
volatile uint32_t *wdt;

volatile uint32_t &reg(unsigned off) { return wdt[off / 4]; }
} // namespace

bool sunxi_wdt_reset_init_from_fdt(const void *fdt) {
    int node = fdt_find_compatible(fdt, -1, "allwinner,sun20i-d1-wdt-reset");
    if (node < 0) return false;
    auto *st = static_cast<const char *>(fdt_getprop(fdt, node, "status", nullptr));
    if (st && !strcmp(st, "disabled")) return false;
    uint64_t addr, size;
    if (!fdt_get_reg(fdt, node, 0, addr, size) || size < MODE + 4) return false;
    wdt = reinterpret_cast<volatile uint32_t *>(static_cast<uintptr_t>(addr));
    return true;
}

bool sunxi_wdt_reset_present() { return wdt != nullptr; }

void sunxi_wdt_reset() {
    if (!wdt) return;
    reg(MODE) = KEY;
    reg(SOFT_RST) = KEY | SOFT_RST_EN;
}

} // namespace drivers
