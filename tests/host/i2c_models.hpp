// SPDX-License-Identifier: BSD-2-Clause
// Models for host tests of the I2C resets (firmware/drivers/dw_i2c.cpp,
// pmic_reset.cpp), used through mmio_fake.hpp:
// - RegTarget: an I2C target with 8-bit registers and a register pointer
//   (the AXP15060, DA9063 and most PMICs): the first byte written after a
//   START sets the pointer, further bytes write and reads read from it,
//   each moving it on; every access is logged.
// - DwI2c: a DesignWare APB I2C master (DW_apb_i2c databook register map)
//   on an infinitely fast bus: each IC_DATA_CMD write is done at once, so
//   the transmit FIFO is always empty; a command to an address with no
//   target ends in TX_ABRT (a NAK); IC_TAR is ignored while enabled, as
//   the hardware ignores it.
#pragma once
#include <cstdint>
#include <cstdio>
#include <deque>
#include <map>
#include <string>

#include "mmio_fake.hpp"

namespace i2c_model {

struct RegTarget {
    uint8_t regs[256] = {};
    uint8_t ptr = 0;
    bool have_ptr = false;
    std::string log; // "r 0x32=0x0 w 0x32=0x80 ..."
    unsigned writes = 0;

    void start() { have_ptr = false; }
    void write(uint8_t b) {
        if (!have_ptr) {
            ptr = b;
            have_ptr = true;
            return;
        }
        note("w", ptr, b);
        regs[ptr++] = b;
        writes++;
    }
    uint8_t read() {
        uint8_t b = regs[ptr];
        note("r", ptr++, b);
        return b;
    }
    void note(const char *what, unsigned reg, unsigned v) {
        char s[32];
        snprintf(s, sizeof s, "%s%s 0x%x=0x%x", log.empty() ? "" : " ", what, reg, v);
        log += s;
    }
};

struct DwI2c : mmio_fake::Device {
    static constexpr unsigned IC_TAR = 0x04, IC_DATA_CMD = 0x10, IC_RAW_INTR_STAT = 0x34,
                              IC_CLR_INTR = 0x40, IC_ENABLE = 0x6c, IC_STATUS = 0x70,
                              IC_ENABLE_STATUS = 0x9c;
    static constexpr uint32_t READ = 1u << 8, STOP = 1u << 9, TFE = 1u << 2, RFNE = 1u << 3,
                              TX_ABRT = 1u << 6, STOP_DET = 1u << 9;
    std::map<unsigned, RegTarget *> targets;
    bool enabled = false;
    unsigned tar = 0x55;
    RegTarget *cur = nullptr; // the transaction's target
    bool in_transfer = false, aborted = false;
    uint32_t raw = 0;
    std::deque<uint8_t> rx;
    std::map<unsigned, uint32_t> other;
    unsigned tar_ignored = 0; // IC_TAR writes while enabled (a driver bug)
    unsigned commands = 0;    // IC_DATA_CMD writes while enabled

    uint32_t peek(unsigned off) override {
        switch (off) {
        case IC_ENABLE: return enabled;
        case IC_ENABLE_STATUS: return enabled;
        case IC_TAR: return tar;
        case IC_STATUS: return TFE | (rx.empty() ? 0 : RFNE);
        case IC_RAW_INTR_STAT: return raw;
        case IC_DATA_CMD: return rx.empty() ? 0 : rx.front();
        default: return other[off];
        }
    }
    uint32_t read(unsigned off) override {
        uint32_t v = peek(off);
        if (off == IC_CLR_INTR) raw = 0;
        if (off == IC_DATA_CMD && !rx.empty()) rx.pop_front();
        return v;
    }
    void write(unsigned off, uint32_t v) override {
        switch (off) {
        case IC_ENABLE: enabled = v & 1; break;
        case IC_TAR:
            if (enabled) tar_ignored++;
            else tar = v & 0x3ff;
            break;
        case IC_DATA_CMD: command(v); break;
        default: other[off] = v;
        }
    }
    void command(uint32_t v) {
        if (!enabled) return;
        commands++;
        if (!in_transfer) {
            in_transfer = true;
            auto it = targets.find(tar & 0x7f);
            cur = it == targets.end() ? nullptr : it->second;
            aborted = !cur;
            if (aborted) raw |= TX_ABRT;
            else cur->start();
        }
        if (!aborted) {
            if (v & READ) rx.push_back(cur->read());
            else cur->write(static_cast<uint8_t>(v));
        }
        if (v & STOP) {
            in_transfer = false;
            if (!aborted) raw |= STOP_DET;
        }
    }
};

} // namespace i2c_model
