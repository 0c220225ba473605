// SPDX-License-Identifier: BSD-2-Clause
// "syscon-poweroff" / "syscon-reboot" (Linux DT bindings power/reset/):
// write `value` (under `mask`) to regmap + offset.
#include "drivers.hpp"
#include <libfdt.h>

namespace drivers {
namespace {
struct SysconAction {
    volatile uint32_t *reg;
    uint32_t value, mask;
};
SysconAction off_action, reboot_action;

bool parse(const void *fdt, const char *compat, SysconAction &a) {
    int node = fdt_find_compatible(fdt, -1, compat);
    if (node < 0) return false;
    int len;
    auto *rm = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, "regmap", &len));
    int syscon = rm ? fdt_find_phandle(fdt, fdt32_to_cpu(*rm)) : fdt_find_parent(fdt, node);
    if (syscon < 0) return false;
    uint64_t addr, size;
    if (!fdt_get_reg(fdt, syscon, 0, addr, size)) return false;
    auto *off = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, "offset", &len));
    auto *val = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, "value", &len));
    auto *mask = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, "mask", &len));
    if (!off || (!val && !mask)) return false;
    a.reg = reinterpret_cast<volatile uint32_t *>(static_cast<uintptr_t>(addr + fdt32_to_cpu(*off)));
    a.mask = mask ? fdt32_to_cpu(*mask) : 0xffffffffu;
    // Binding: with only `mask`, the value written is the mask itself.
    a.value = val ? fdt32_to_cpu(*val) : a.mask;
    return true;
}

void fire(const SysconAction &a) {
    if (!a.reg) return;
    uint32_t v = a.mask == 0xffffffffu ? a.value : ((*a.reg & ~a.mask) | (a.value & a.mask));
    *a.reg = v;
}
} // namespace

bool syscon_reset_init_from_fdt(const void *fdt) {
    bool p = parse(fdt, "syscon-poweroff", off_action);
    bool r = parse(fdt, "syscon-reboot", reboot_action);
    return p || r;
}
bool syscon_poweroff_present() { return off_action.reg != nullptr; }
bool syscon_reboot_present() { return reboot_action.reg != nullptr; }
void syscon_poweroff() { fire(off_action); }
void syscon_reboot() { fire(reboot_action); }

} // namespace drivers
