// SPDX-License-Identifier: BSD-2-Clause
// pmu::hw (firmware/pmu/hw.hpp) on the host: every access goes to the current
// hart of hart_model::Machine::active. An access the firmware makes without
// a trap-safe wrapper that would trap on the hart is recorded as a fault.
#include "../../firmware/pmu/hw.hpp"
#include "pmu_hart.hpp"

using hart_model::Machine;
namespace csrno = hart_model::csrno;

namespace {
Machine &m() { return *Machine::active; }

uint64_t must_read(unsigned csr) {
    uint64_t v;
    if (!m().hart().read(csr, v)) m().fault("csrr " + std::to_string(csr));
    return v;
}
void must_write(unsigned csr, uint64_t v) {
    if (!m().hart().write(csr, v)) m().fault("csrw " + std::to_string(csr));
}
} // namespace

namespace pmu::hw {

Probe probe_read(unsigned csr) {
    uint64_t v;
    bool ok = m().hart().read(csr, v);
    return {static_cast<unsigned long>(v), !ok};
}

bool probe_write(unsigned csr, unsigned long value) { return !m().hart().write(csr, value); }

unsigned long hart_index() { return m().current; }

uint64_t counter_read(unsigned idx) { return must_read(csrno::mcycle + idx); }
void counter_write(unsigned idx, uint64_t v) { must_write(csrno::mcycle + idx, v); }

void event_write(unsigned idx, uint64_t v, bool) {
    unsigned csr = idx == kCycle     ? csrno::mcyclecfg
                   : idx == kInstret ? csrno::minstretcfg
                                     : csrno::mcountinhibit + idx;
    if (idx == kTime) m().fault("event_write(time)");
    must_write(csr, v);
}

void inhibit_set(uint32_t mask) {
    must_write(csrno::mcountinhibit, must_read(csrno::mcountinhibit) | mask);
}
void inhibit_clear(uint32_t mask) {
    must_write(csrno::mcountinhibit, must_read(csrno::mcountinhibit) & ~mask);
}
uint32_t overflow_read() { return static_cast<uint32_t>(must_read(csrno::scountovf)); }
void counteren_set(uint32_t mask) {
    must_write(csrno::mcounteren, must_read(csrno::mcounteren) | mask);
}
void lcofi_delegate() { must_write(csrno::mideleg, must_read(csrno::mideleg) | (1u << 13)); }

uint64_t mem_read64(uintptr_t pa) { return m().load(pa, 8); }
void mem_write64(uintptr_t pa, uint64_t v) { m().store(pa, v, 8); }
uint32_t mem_read32(uintptr_t pa) { return static_cast<uint32_t>(m().load(pa, 4)); }
void mem_write32(uintptr_t pa, uint32_t v) { m().store(pa, v, 4); }

} // namespace pmu::hw
