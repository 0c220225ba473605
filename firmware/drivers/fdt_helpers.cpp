// SPDX-License-Identifier: BSD-2-Clause
#include "drivers.hpp"
#include <libfdt.h>

namespace drivers {

static uint64_t read_cells(const fdt32_t *p, int cells) {
    uint64_t v = 0;
    for (int i = 0; i < cells; i++) v = (v << 32) | fdt32_to_cpu(p[i]);
    return v;
}

bool fdt_get_reg(const void *fdt, int node, int index, uint64_t &addr, uint64_t &size) {
    int parent = fdt_parent_offset(fdt, node);
    if (parent < 0) return false;
    int ac = fdt_address_cells(fdt, parent), sc = fdt_size_cells(fdt, parent);
    if (ac < 1 || ac > 2 || sc < 0 || sc > 2) return false;
    int len;
    auto *reg = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, "reg", &len));
    if (!reg) return false;
    int stride = ac + sc;
    if (len < (index + 1) * stride * 4) return false;
    reg += index * stride;
    addr = read_cells(reg, ac);
    size = sc ? read_cells(reg + ac, sc) : 0;
    return true;
}

long fdt_intc_phandle_to_hartid(const void *fdt, uint32_t phandle) {
    int intc = fdt_node_offset_by_phandle(fdt, phandle);
    if (intc < 0) return -1;
    int cpu = fdt_parent_offset(fdt, intc);
    if (cpu < 0) return -1;
    int len;
    auto *reg = static_cast<const fdt32_t *>(fdt_getprop(fdt, cpu, "reg", &len));
    if (!reg || len < 4) return -1;
    return static_cast<long>(len >= 8 ? read_cells(reg, 2) : fdt32_to_cpu(reg[0]));
}

} // namespace drivers
