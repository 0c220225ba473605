// SPDX-License-Identifier: BSD-2-Clause
// SiFive I2C controller ("sifive,i2c0", the FU540/FU740's), which is the
// OpenCores I2C master core: 8-bit registers PRERlo, PRERhi, CTR, TXR/RXR,
// CR/SR at 4-byte strides (the device trees' reg-shift = 2), accessed as
// 32-bit words as OpenSBI's fdt_i2c_sifive.c does. Bits from the OpenCores
// "I2C-Master Core Specification". One 8-bit register of a target written
// or read, polled, for the PMIC resets (pmic_reset.cpp). The clock
// prescaler stays as the previous stage set it; a core Linux left disabled
// is enabled again. Every wait is bounded.
#include "drivers.hpp"

namespace drivers {
namespace {
constexpr unsigned CTR = 0x08, TXR = 0x0c, RXR = 0x0c, CR = 0x10, SR = 0x10;
constexpr uint32_t CTR_EN = 1u << 7;
constexpr uint32_t CR_IACK = 1u << 0, CR_NACK = 1u << 3, CR_WR = 1u << 4, CR_RD = 1u << 5,
                   CR_STO = 1u << 6, CR_STA = 1u << 7;
constexpr uint32_t SR_TIP = 1u << 1, SR_BUSY = 1u << 6, SR_RXNACK = 1u << 7;
constexpr uint8_t kRead = 1; // the R/W bit after the 7-bit address
constexpr unsigned kPolls = 1u << 20;

struct Regs {
    uintptr_t base;
    volatile uint32_t &operator[](unsigned off) const {
        return *reinterpret_cast<volatile uint32_t *>(base + off);
    }
};

bool wait_clear(const Regs &r, uint32_t bit) {
    for (unsigned i = 0; i < kPolls; i++)
        if (!(r[SR] & bit)) return true;
    return false;
}

// One byte out (with START if `start`); true if the target acknowledged.
bool send(const Regs &r, uint8_t byte, bool start) {
    r[TXR] = byte;
    r[CR] = (start ? CR_STA : 0) | CR_WR | CR_IACK;
    return wait_clear(r, SR_TIP) && !(r[SR] & SR_RXNACK);
}

bool stop(const Regs &r) {
    r[CR] = CR_STO | CR_IACK;
    bool ok = wait_clear(r, SR_BUSY);
    r[CR] = CR_IACK;
    return ok;
}

bool begin(const Regs &r, uint8_t target, uint8_t reg) {
    if (!(r[CTR] & CTR_EN)) r[CTR] = r[CTR] | CTR_EN;
    return send(r, static_cast<uint8_t>(target << 1), true) && send(r, reg, false);
}
} // namespace

bool sifive_i2c_write_reg(uintptr_t base, uint8_t target, uint8_t reg, uint8_t value) {
    Regs r{base};
    bool ok = begin(r, target, reg) && send(r, value, false);
    return stop(r) && ok;
}

bool sifive_i2c_read_reg(uintptr_t base, uint8_t target, uint8_t reg, uint8_t &value) {
    Regs r{base};
    bool ok = begin(r, target, reg) && send(r, static_cast<uint8_t>(target << 1 | kRead), true);
    if (ok) {
        r[CR] = CR_RD | CR_NACK | CR_IACK; // one byte, not acknowledged: the last
        ok = wait_clear(r, SR_TIP);
        if (ok) value = static_cast<uint8_t>(r[RXR]);
    }
    return stop(r) && ok;
}

} // namespace drivers
