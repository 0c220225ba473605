// SPDX-License-Identifier: BSD-2-Clause
// 16550-compatible UART, polled. Registers per the 16550 data sheet.
#include "drivers.hpp"
#include <libfdt.h>

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

bool ns16550_init(const void *fdt, int node) {
    int len;
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
