// SPDX-License-Identifier: BSD-2-Clause
// Host model of hart performance counters (see pmu_hart.hpp).
#include "pmu_hart.hpp"

#include <cstring>

namespace hart_model {
namespace {
constexpr uint64_t kOF = 1ull << 63;
constexpr uint64_t kInhibitBits = 0x1full << 58; // VUINH..MINH
constexpr uint64_t kSelectorMask = (1ull << 56) - 1;
constexpr unsigned kTime = 1, kFirstHpm = 3;
} // namespace

PmuHart::PmuHart(const PmuHartConfig &c) : cfg(c) {}

bool PmuHart::exists(unsigned idx) const {
    return idx < 32 && idx != kTime && ((cfg.counters >> idx) & 1);
}

uint64_t PmuHart::width_mask(unsigned idx) const {
    unsigned w = idx < kFirstHpm ? 64 : cfg.hpm_width;
    return w >= 64 ? ~0ull : (1ull << w) - 1;
}

bool PmuHart::read(unsigned csr, uint64_t &v) const {
    v = 0;
    if (csr >= csrno::mcycle && csr < csrno::mcycle + 32) {
        unsigned idx = csr - csrno::mcycle;
        if (!exists(idx)) return false;
        v = counter[idx];
        return true;
    }
    if (csr >= csrno::mhpmevent3 && csr < csrno::mcountinhibit + 32) {
        v = selector[csr - csrno::mcountinhibit];
        return true;
    }
    switch (csr) {
    case csrno::mcountinhibit:
        if (!cfg.mcountinhibit) return false;
        v = inhibit;
        return true;
    case csrno::mcyclecfg:
    case csrno::minstretcfg:
        if (!cfg.smcntrpmf) return false;
        v = csr == csrno::mcyclecfg ? cyclecfg : instretcfg;
        return true;
    case csrno::scountovf:
        if (!cfg.sscofpmf) return false;
        // M-mode sees every OF bit; mcounteren masks only lower modes.
        for (unsigned i = kFirstHpm; i < 32; i++)
            if (exists(i) && (selector[i] & kOF)) v |= 1ull << i;
        return true;
    case csrno::mcounteren: v = counteren; return true;
    case csrno::mideleg: v = mideleg; return true;
    default: return false;
    }
}

bool PmuHart::write(unsigned csr, uint64_t v) {
    if (csr >= csrno::mcycle && csr < csrno::mcycle + 32) {
        unsigned idx = csr - csrno::mcycle;
        if (!exists(idx)) return false;
        counter[idx] = v & width_mask(idx);
        return true;
    }
    if (csr >= csrno::mhpmevent3 && csr < csrno::mcountinhibit + 32) {
        unsigned idx = csr - csrno::mcountinhibit;
        if (!exists(idx)) return true; // read-only zero
        if (!cfg.sscofpmf) v &= kSelectorMask;
        selector[idx] = v;
        if (cfg.qemu_event_map) {
            if (v == 0) {
                for (auto it = qemu_map_.begin(); it != qemu_map_.end();)
                    it = it->second == idx ? qemu_map_.erase(it) : std::next(it);
            } else {
                qemu_map_.emplace(v & kSelectorMask, idx); // no-op when already mapped
            }
        }
        return true;
    }
    switch (csr) {
    case csrno::mcountinhibit: {
        if (!cfg.mcountinhibit) return false;
        uint32_t m = 0;
        for (unsigned i = 0; i < 32; i++)
            if (exists(i)) m |= 1u << i;
        inhibit = static_cast<uint32_t>(v) & m;
        return true;
    }
    case csrno::mcyclecfg:
    case csrno::minstretcfg:
        if (!cfg.smcntrpmf) return false;
        (csr == csrno::mcyclecfg ? cyclecfg : instretcfg) = v & kInhibitBits;
        return true;
    case csrno::mcounteren: counteren = static_cast<uint32_t>(v); return true;
    case csrno::mideleg: mideleg = v; return true;
    default: return false; // scountovf is read-only, the rest absent
    }
}

bool PmuHart::filtered(uint64_t bits, Priv p) const {
    switch (p) {
    case Priv::M: return bits & (1ull << 62);
    case Priv::S: return bits & (1ull << 61);
    case Priv::U: return bits & (1ull << 60);
    }
    return false;
}

void PmuHart::add(unsigned idx, uint64_t n) {
    uint64_t mask = width_mask(idx), old = counter[idx];
    bool overflow = n > mask - old;
    counter[idx] = (old + n) & mask;
    if (overflow && idx >= kFirstHpm && cfg.sscofpmf && !(selector[idx] & kOF)) {
        selector[idx] |= kOF;
        lcofip = true;
        lcofi_raised++;
    }
}

void PmuHart::run(Priv p, uint64_t cycles, uint64_t instructions) {
    if (exists(0) && !(inhibit & 1) && !filtered(cyclecfg, p)) add(0, cycles);
    if (exists(2) && !(inhibit & 4) && !filtered(instretcfg, p)) add(2, instructions);
    event(event::cycles, p, cycles);
    event(event::instructions, p, instructions);
}

void PmuHart::event(uint64_t code, Priv p, uint64_t n) {
    auto counts = [&](unsigned i) {
        return exists(i) && !((inhibit >> i) & 1) && !filtered(selector[i], p);
    };
    if (cfg.qemu_event_map) {
        auto it = qemu_map_.find(code);
        if (it != qemu_map_.end() && counts(it->second)) add(it->second, n);
        return;
    }
    for (unsigned i = kFirstHpm; i < 32; i++)
        if ((selector[i] & kSelectorMask) == code && counts(i)) add(i, n);
}

Machine *Machine::active = nullptr;

Machine::Machine(unsigned n, const PmuHartConfig &c, uint64_t base, uint64_t size,
                 uint64_t fw_size)
    : harts(n, PmuHart(c)), ram_base(base), fw_end(base + fw_size), ram(size, 0) {}

bool Machine::in_ram(uint64_t pa, uint64_t size) const {
    return pa >= ram_base && size <= ram.size() && pa - ram_base <= ram.size() - size;
}

void Machine::fault(const std::string &what) {
    faults++;
    fault_log.push_back(what);
}

uint64_t Machine::load(uint64_t pa, unsigned size) {
    if (!in_ram(pa, size) || pa % size) {
        fault("load from " + std::to_string(pa));
        return 0;
    }
    return load_s(pa, size);
}

void Machine::store(uint64_t pa, uint64_t value, unsigned size) {
    if (!in_ram(pa, size) || pa % size) {
        fault("store to " + std::to_string(pa));
        return;
    }
    store_s(pa, value, size);
}

uint64_t Machine::load_s(uint64_t pa, unsigned size) const {
    uint64_t v = 0;
    std::memcpy(&v, &ram[pa - ram_base], size); // little-endian host, like RISC-V
    return v;
}

void Machine::store_s(uint64_t pa, uint64_t value, unsigned size) {
    std::memcpy(&ram[pa - ram_base], &value, size);
}

} // namespace hart_model
