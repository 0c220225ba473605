// SPDX-License-Identifier: BSD-2-Clause
// SiFive UART ("sifive,uart0"), polled. Registers per the SiFive FU540-C000
// manual, chapter "UART": txdata/rxdata with FULL/EMPTY in bit 31, txctrl and
// rxctrl with their enables in bit 0.
#include "drivers.hpp"
#include <libfdt.h>

namespace drivers {
namespace {
constexpr unsigned TXDATA = 0x00, RXDATA = 0x04, TXCTRL = 0x08, RXCTRL = 0x0C;
constexpr uint32_t DATA_FULL_EMPTY = 1u << 31, CTRL_EN = 1;
volatile uint32_t *base;

volatile uint32_t &reg(unsigned off) { return base[off / 4]; }
} // namespace

bool sifive_uart_init(const void *fdt, int node) {
    uint64_t addr, size;
    if (!fdt_get_reg(fdt, node, 0, addr, size)) return false;
    base = reinterpret_cast<volatile uint32_t *>(static_cast<uintptr_t>(addr));
    // The previous stage (or the machine) set the divisor; only make sure both
    // directions are on.
    reg(TXCTRL) = reg(TXCTRL) | CTRL_EN;
    reg(RXCTRL) = reg(RXCTRL) | CTRL_EN;
    return true;
}

void sifive_uart_putc(char c) {
    while (reg(TXDATA) & DATA_FULL_EMPTY) {
    }
    reg(TXDATA) = static_cast<uint8_t>(c);
}

int sifive_uart_getc() {
    uint32_t v = reg(RXDATA);
    return v & DATA_FULL_EMPTY ? -1 : static_cast<int>(v & 0xff);
}

} // namespace drivers
