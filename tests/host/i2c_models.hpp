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
// - Ocores: the OpenCores I2C master core as SiFive's "sifive,i2c0" (8-bit
//   registers at 4-byte strides), also infinitely fast: a CR command is
//   done when written (TIP never set); an address no target answers is
//   not acknowledged (SR.RXACK); commands need CTR.EN.
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

// What both controller models share: their targets by 7-bit address and a
// count of the bus commands they were given.
struct Controller : mmio_fake::Device {
    std::map<unsigned, RegTarget *> targets;
    unsigned commands = 0;
    bool in_transfer = false;
};

struct DwI2c : Controller {
    static constexpr unsigned IC_TAR = 0x04, IC_DATA_CMD = 0x10, IC_RAW_INTR_STAT = 0x34,
                              IC_CLR_INTR = 0x40, IC_ENABLE = 0x6c, IC_STATUS = 0x70,
                              IC_ENABLE_STATUS = 0x9c;
    static constexpr uint32_t READ = 1u << 8, STOP = 1u << 9, TFE = 1u << 2, RFNE = 1u << 3,
                              TX_ABRT = 1u << 6, STOP_DET = 1u << 9;
    bool enabled = false;
    unsigned tar = 0x55;
    RegTarget *cur = nullptr; // the transaction's target
    bool aborted = false;
    uint32_t raw = 0;
    std::deque<uint8_t> rx;
    std::map<unsigned, uint32_t> other;
    unsigned tar_ignored = 0; // IC_TAR writes while enabled (a driver bug)

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

struct Ocores : Controller {
    static constexpr unsigned CTR = 0x08, TXR = 0x0c, CR = 0x10;
    static constexpr uint32_t CTR_EN = 1u << 7, IACK = 1u << 0, WR = 1u << 4, RD = 1u << 5,
                              STO = 1u << 6, STA = 1u << 7, IF = 1u << 0, BUSY = 1u << 6,
                              RXNACK = 1u << 7;
    uint32_t ctr = CTR_EN, txr = 0, rxr = 0, sr = 0;
    RegTarget *cur = nullptr;
    bool reading = false;
    std::map<unsigned, uint32_t> other;

    uint32_t peek(unsigned off) override {
        switch (off) {
        case CTR: return ctr;
        case TXR: return rxr; // RXR on reads
        case CR: return sr;   // SR on reads
        default: return other[off];
        }
    }
    uint32_t read(unsigned off) override { return peek(off); }
    void write(unsigned off, uint32_t v) override {
        v &= 0xff;
        switch (off) {
        case CTR: ctr = v; break;
        case TXR: txr = v; break;
        case CR: command(v); break;
        default: other[off] = v;
        }
    }
    void command(uint32_t v) {
        if (v & IACK) sr &= ~IF;
        if (!(ctr & CTR_EN) || !(v & (STA | WR | RD | STO))) return;
        commands++;
        if (v & STA) { // START or repeated START: the byte is the address
            auto it = targets.find(txr >> 1);
            cur = it == targets.end() ? nullptr : it->second;
            reading = txr & 1;
            if (cur && !reading) cur->start();
            in_transfer = true;
            sr = (sr & ~RXNACK) | BUSY | IF | (cur ? 0 : RXNACK);
        } else if (v & WR) {
            if (cur && in_transfer && !reading) cur->write(static_cast<uint8_t>(txr));
            else sr |= RXNACK;
            sr |= IF;
        } else if (v & RD) {
            rxr = cur && in_transfer && reading ? cur->read() : 0xff;
            sr |= IF;
        }
        if (v & STO) {
            in_transfer = false;
            cur = nullptr;
            sr &= ~BUSY;
        }
    }
};

} // namespace i2c_model
