// SPDX-License-Identifier: BSD-2-Clause
// Synopsys DesignWare APB I2C controller ("snps,designware-i2c"), as master:
// one 8-bit register of an I2C target written or read, polled, for the PMIC
// resets (pmic_reset.cpp). Register map and bits from the DW_apb_i2c
// databook as Linux's i2c-designware-core.h and OpenSBI's dw_i2c.c name
// them. The controller keeps the speed and timing the previous stage (or
// Linux) set; only the target address changes, with the controller off.
// Every wait is bounded: a controller that never answers makes the
// transaction fail, never hangs the firmware.
#include "drivers.hpp"

namespace drivers {
namespace {
constexpr unsigned IC_TAR = 0x04, IC_DATA_CMD = 0x10, IC_RAW_INTR_STAT = 0x34,
                   IC_CLR_INTR = 0x40, IC_ENABLE = 0x6c, IC_STATUS = 0x70,
                   IC_ENABLE_STATUS = 0x9c;
constexpr uint32_t DATA_CMD_READ = 1u << 8, DATA_CMD_STOP = 1u << 9;
constexpr uint32_t STATUS_RFNE = 1u << 3;           // receive FIFO not empty
constexpr uint32_t RAW_TX_ABRT = 1u << 6, RAW_STOP_DET = 1u << 9;
constexpr uint32_t ENABLE_STATUS_IC_EN = 1u << 0;
// At 100 kHz a 3-byte transaction takes about 300 us; each poll is one
// uncached load (well over 10 ns), so this bound is far above it.
constexpr unsigned kPolls = 1u << 20;

struct Regs {
    uintptr_t base;
    volatile uint32_t &operator[](unsigned off) const {
        return *reinterpret_cast<volatile uint32_t *>(base + off);
    }
    // A load for its side effect (the IC_CLR_* registers clear on read).
    void touch(unsigned off) const {
        uint32_t v = (*this)[off];
        asm volatile("" : : "r"(v));
    }
};

template <typename Done> bool poll(Done done) {
    for (unsigned i = 0; i < kPolls; i++)
        if (done()) return true;
    return false;
}

// Disabled, the target address set, enabled again, the interrupt status
// cleared (reading IC_CLR_INTR clears every clearable cause).
bool start(const Regs &r, uint8_t target) {
    r[IC_ENABLE] = 0;
    if (!poll([&] { return !(r[IC_ENABLE_STATUS] & ENABLE_STATUS_IC_EN); })) return false;
    r[IC_TAR] = target;
    r[IC_ENABLE] = 1;
    r.touch(IC_CLR_INTR);
    return true;
}

// Waits for the STOP condition; false if the target did not acknowledge
// (TX_ABRT) or nothing came.
bool finish(const Regs &r) {
    uint32_t raw = 0;
    if (!poll([&] { return ((raw = r[IC_RAW_INTR_STAT]) & (RAW_STOP_DET | RAW_TX_ABRT)) != 0; }))
        return false;
    r.touch(IC_CLR_INTR);
    return !(raw & RAW_TX_ABRT);
}
} // namespace

bool dw_i2c_write_reg(uintptr_t base, uint8_t target, uint8_t reg, uint8_t value) {
    Regs r{base};
    if (!start(r, target)) return false;
    r[IC_DATA_CMD] = reg;
    r[IC_DATA_CMD] = value | DATA_CMD_STOP;
    return finish(r);
}

bool dw_i2c_read_reg(uintptr_t base, uint8_t target, uint8_t reg, uint8_t &value) {
    Regs r{base};
    if (!start(r, target)) return false;
    r[IC_DATA_CMD] = reg;
    r[IC_DATA_CMD] = DATA_CMD_READ | DATA_CMD_STOP; // restart, one byte, stop
    uint32_t raw = 0;
    if (!poll([&] {
            return (r[IC_STATUS] & STATUS_RFNE) || ((raw = r[IC_RAW_INTR_STAT]) & RAW_TX_ABRT);
        }))
        return false;
    if (raw & RAW_TX_ABRT) {
        r.touch(IC_CLR_INTR);
        return false;
    }
    value = static_cast<uint8_t>(r[IC_DATA_CMD]);
    return finish(r);
}

} // namespace drivers
