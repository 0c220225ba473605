// SPDX-License-Identifier: BSD-2-Clause
// Host model of hart performance counters (see pmu_hart.hpp).
#include "pmu_hart.hpp"

#include <cstring>

namespace hart_model {
namespace {
constexpr uint64_t kOF = 1ull << 63;
constexpr uint64_t kInhibitBits = 0x1full << 58; // VUINH..MINH
constexpr uint64_t kSelectorMask = (1ull << 56) - 1;
constexpr uint64_t kLow = 0xffffffffull; // an RV32 CSR's half
constexpr unsigned kCycle = 0, kTime = 1, kInstret = 2, kFirstHpm = 3;
} // namespace

PmuHart::PmuHart(const PmuHartConfig &c) : cfg(c) {}

bool PmuHart::exists(unsigned idx) const {
    return idx < 32 && idx != kTime && ((cfg.counters >> idx) & 1);
}

uint64_t PmuHart::width_mask(unsigned idx) const {
    unsigned w = idx < kFirstHpm ? 64 : cfg.hpm_width;
    return w >= 64 ? ~0ull : (1ull << w) - 1;
}

PmuHart::Reg PmuHart::decode(unsigned csr) const {
    bool upper = false;
    if (cfg.xlen == 32) {
        if (csr >= csrno::mcycleh && csr < csrno::mcycleh + 32) {
            upper = true;
            csr -= csrno::mcycleh - csrno::mcycle;
        } else if (csr >= csrno::mcyclecfgh && csr < csrno::mhpmevent3h + 29) {
            upper = true;
            csr -= csrno::mcyclecfgh - csrno::mcyclecfg;
        }
    }
    if (csr >= csrno::mcycle && csr < csrno::mcycle + 32) return {Reg::Counter, csr - csrno::mcycle, upper};
    if (csr >= csrno::mhpmevent3 && csr < csrno::mcountinhibit + 32)
        return {Reg::Event, csr - csrno::mcountinhibit, upper};
    if (csr == csrno::mcyclecfg || csr == csrno::minstretcfg)
        return {Reg::Cfg, csr == csrno::mcyclecfg ? kCycle : kInstret, upper};
    return {Reg::None, 0, false};
}

bool PmuHart::read(unsigned csr, uint64_t &v) const {
    v = 0;
    Reg r = decode(csr);
    switch (r.kind) {
    case Reg::Counter:
        if (!exists(r.idx)) return false;
        v = counter[r.idx];
        break;
    case Reg::Event:
        if (r.upper && !cfg.sscofpmf) return false;
        v = selector[r.idx];
        break;
    case Reg::Cfg:
        if (!cfg.smcntrpmf) return false;
        v = r.idx == kCycle ? cyclecfg : instretcfg;
        break;
    case Reg::None:
        switch (csr) {
        case csrno::mcountinhibit:
            if (!cfg.mcountinhibit) return false;
            v = inhibit;
            return true;
        case csrno::scountovf:
            if (!cfg.sscofpmf) return false;
            // M-mode sees every OF bit; mcounteren masks only lower modes.
            for (unsigned i = kFirstHpm; i < 32; i++)
                if (exists(i) && (selector[i] & kOF)) v |= 1ull << i;
            return true;
        case csrno::mcounteren: v = counteren; return true;
        case csrno::mideleg: v = mideleg; return true;
        case csrno::th_mcounterwen: v = th_wen; return cfg.thead_c9xx;
        case csrno::th_mcounterinten: v = th_inten; return cfg.thead_c9xx;
        case csrno::th_mcounterof: v = th_of; return cfg.thead_c9xx;
        default: return false;
        }
    }
    if (cfg.xlen == 32) v = r.upper ? v >> 32 : v & kLow;
    return true;
}

bool PmuHart::write(unsigned csr, uint64_t v) {
    if (cfg.xlen == 32 && (v >> 32)) return false; // no RV32 instruction writes 64 bits
    Reg r = decode(csr);
    // The register's new 64-bit value: on RV32 one half replaced.
    auto merged = [&](uint64_t old) {
        if (cfg.xlen != 32) return v;
        return r.upper ? (old & kLow) | (v << 32) : (old & ~kLow) | v;
    };
    switch (r.kind) {
    case Reg::Counter:
        if (!exists(r.idx)) return false;
        counter[r.idx] = merged(counter[r.idx]) & width_mask(r.idx);
        return true;
    case Reg::Event: {
        if (r.upper && !cfg.sscofpmf) return false;
        if (!exists(r.idx)) return true; // read-only zero
        uint64_t s = merged(selector[r.idx]);
        if (!cfg.sscofpmf) s &= kSelectorMask;
        selector[r.idx] = s;
        // QEMU maps the event the (lower) selector CSR's write names.
        if (cfg.qemu_event_map && !r.upper) {
            if (v == 0) {
                for (auto it = qemu_map_.begin(); it != qemu_map_.end();)
                    it = it->second == r.idx ? qemu_map_.erase(it) : std::next(it);
            } else {
                qemu_map_.emplace(v & kSelectorMask, r.idx); // no-op when already mapped
            }
        }
        return true;
    }
    case Reg::Cfg: {
        if (!cfg.smcntrpmf) return false;
        uint64_t &f = r.idx == kCycle ? cyclecfg : instretcfg;
        f = merged(f) & kInhibitBits;
        return true;
    }
    case Reg::None: break;
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
    case csrno::mcounteren: counteren = static_cast<uint32_t>(v); return true;
    case csrno::mideleg: mideleg = v; return true;
    case csrno::th_mcounterwen: th_wen = static_cast<uint32_t>(v); return cfg.thead_c9xx;
    case csrno::th_mcounterinten: th_inten = static_cast<uint32_t>(v); return cfg.thead_c9xx;
    case csrno::th_mcounterof: th_of = static_cast<uint32_t>(v); return cfg.thead_c9xx;
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
    if (overflow && cfg.thead_c9xx) {
        uint32_t bit = 1u << idx;
        if (th_wen & bit) th_of |= bit;
        if (th_inten & bit) {
            th_irq = true;
            th_irq_raised++;
        }
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
    : harts(n, PmuHart(c)), xlen(c.xlen), ram_base(base), fw_end(base + fw_size), ram(size, 0) {}

bool Machine::in_ram(uint64_t pa, uint64_t size) const {
    return pa >= ram_base && size <= ram.size() && pa - ram_base <= ram.size() - size;
}

void Machine::fault(const std::string &what) {
    faults++;
    fault_log.push_back(what);
}

uint64_t Machine::load(uint64_t pa, unsigned size) {
    if (size * 8 > xlen) {
        fault("load of " + std::to_string(size) + " bytes on RV" + std::to_string(xlen));
        return 0;
    }
    if (!in_ram(pa, size) || pa % size) {
        fault("load from " + std::to_string(pa));
        return 0;
    }
    return load_s(pa, size);
}

void Machine::store(uint64_t pa, uint64_t value, unsigned size) {
    if (size * 8 > xlen) {
        fault("store of " + std::to_string(size) + " bytes on RV" + std::to_string(xlen));
        return;
    }
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
