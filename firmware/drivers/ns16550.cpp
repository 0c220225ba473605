// SPDX-License-Identifier: BSD-2-Clause
// 16550-compatible UART, polled. Registers per the 16550 data sheet.
#include "drivers.hpp"
#include <libfdt.h>
#include <string.h>

namespace drivers {
namespace {
constexpr unsigned RBR = 0, THR = 0, LSR = 5;
constexpr uint8_t LSR_DR = 0x01, LSR_THRE = 0x20;
volatile uint8_t *base;
unsigned shift, io_width = 1;

uint8_t rd(unsigned r) {
    volatile uint8_t *p = base + (r << shift);
    if (io_width == 4) return static_cast<uint8_t>(*reinterpret_cast<volatile uint32_t *>(p));
    return *p;
}
void wr(unsigned r, uint8_t v) {
    volatile uint8_t *p = base + (r << shift);
    if (io_width == 4)
        *reinterpret_cast<volatile uint32_t *>(p) = v;
    else
        *p = v;
}
} // namespace

bool ns16550_init_from_fdt(const void *fdt) {
    int chosen = fdt_path_offset(fdt, "/chosen");
    if (chosen < 0) return false;
    int len;
    auto *path = static_cast<const char *>(fdt_getprop(fdt, chosen, "stdout-path", &len));
    if (!path) return false;
    // "stdout-path" may carry ":<options>" after the path (DT spec 3.6).
    char buf[128];
    int n = 0;
    while (n < len && n < (int)sizeof(buf) - 1 && path[n] && path[n] != ':') {
        buf[n] = path[n];
        n++;
    }
    buf[n] = 0;
    int node = buf[0] == '/' ? fdt_path_offset(fdt, buf)
                             : fdt_path_offset(fdt, fdt_get_alias(fdt, buf) ?: "");
    if (node < 0) return false;
    if (fdt_node_check_compatible(fdt, node, "ns16550a") &&
        fdt_node_check_compatible(fdt, node, "ns16550"))
        return false;
    uint64_t addr, size;
    if (!fdt_get_reg(fdt, node, 0, addr, size)) return false;
    auto *p = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, "reg-shift", &len));
    shift = p ? fdt32_to_cpu(*p) : 0;
    p = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, "reg-io-width", &len));
    io_width = p ? fdt32_to_cpu(*p) : 1;
    base = reinterpret_cast<volatile uint8_t *>(static_cast<uintptr_t>(addr));
    // QEMU and previous boot stages leave the UART configured; we do not
    // reprogram the baud rate.
    return true;
}

bool ns16550_present() { return base != nullptr; }

void ns16550_putc(char c) {
    if (!base) return;
    while (!(rd(LSR) & LSR_THRE)) {
    }
    wr(THR, static_cast<uint8_t>(c));
}

int ns16550_getc() {
    if (!base || !(rd(LSR) & LSR_DR)) return -1;
    return rd(RBR);
}

} // namespace drivers
