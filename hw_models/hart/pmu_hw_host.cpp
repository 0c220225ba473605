// SPDX-License-Identifier: BSD-2-Clause
// pmu::hw (firmware/pmu/hw.hpp) on the host: every access goes to the current
// hart of hart_model::Machine::active. An access the firmware makes without
// a trap-safe wrapper that would trap on the hart is recorded as a fault.
//
// Built for a 32-bit host (unsigned long of 32 bits, as the firmware's RV32
// build has it), the 64-bit values go through firmware/pmu/hw_rv32.hpp, the
// sequences of 32-bit CSR and memory accesses the RV32 firmware runs, on the
// model's RV32 hart.
#include "../../firmware/pmu/hw.hpp"
#include "../../firmware/pmu/hw_rv32.hpp"
#include "../../firmware/pmu/spec.hpp"
#include "pmu_hart.hpp"

using hart_model::Machine;
namespace csrno = hart_model::csrno;

namespace {
Machine &m() { return *Machine::active; }

// M-mode executes before each CSR access (PmuHartConfig::m_cycles_per_csr).
void m_step() {
    hart_model::PmuHart &h = m().hart();
    if (unsigned n = h.cfg.m_cycles_per_csr) h.run(hart_model::Priv::M, n, n);
}

uint64_t must_read(unsigned csr) {
    m_step();
    uint64_t v;
    if (!m().hart().read(csr, v)) m().fault("csrr " + std::to_string(csr));
    return v;
}
void must_write(unsigned csr, uint64_t v) {
    m_step();
    if (!m().hart().write(csr, v)) m().fault("csrw " + std::to_string(csr));
}

// hw_rv32.hpp's accessors on the model.
struct ModelCsr {
    template <unsigned Base> static uint32_t read(unsigned idx) {
        return static_cast<uint32_t>(must_read(Base + idx));
    }
    template <unsigned Base> static void write(unsigned idx, uint32_t v) { must_write(Base + idx, v); }
    template <unsigned Num> static void write_fixed(uint32_t v) { must_write(Num, v); }
};
struct ModelMem {
    static uint32_t load32(uintptr_t pa) { return static_cast<uint32_t>(m().load(pa, 4)); }
    static void store32(uintptr_t pa, uint32_t v) { m().store(pa, v, 4); }
};

constexpr bool kRv32 = pmu::spec::kXlen == 32;
} // namespace

namespace pmu::hw {

Probe probe_read(unsigned csr) {
    m_step();
    uint64_t v;
    bool ok = m().hart().read(csr, v);
    return {static_cast<unsigned long>(v), !ok};
}

bool probe_write(unsigned csr, unsigned long value) {
    m_step();
    return !m().hart().write(csr, value);
}

unsigned long hart_index() { return m().current; }

uint64_t counter_read(unsigned idx) {
    if constexpr (kRv32) return rv32::counter_read<ModelCsr>(idx);
    return must_read(csrno::mcycle + idx);
}
void counter_write(unsigned idx, uint64_t v) {
    if constexpr (kRv32) return rv32::counter_write<ModelCsr>(idx, v);
    must_write(csrno::mcycle + idx, v);
}

void event_write(unsigned idx, uint64_t v, bool upper) {
    if (idx == kTime) m().fault("event_write(time)");
    if constexpr (kRv32) return rv32::event_write<ModelCsr>(idx, v, upper);
    unsigned csr = idx == kCycle     ? csrno::mcyclecfg
                   : idx == kInstret ? csrno::minstretcfg
                                     : csrno::mcountinhibit + idx;
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
void thead_irq_enable(uint32_t mask) {
    must_write(csrno::th_mcounterof, must_read(csrno::th_mcounterof) & ~mask);
    must_write(csrno::th_mcounterwen, must_read(csrno::th_mcounterwen) | mask);
    must_write(csrno::th_mcounterinten, must_read(csrno::th_mcounterinten) | mask);
}
void thead_irq_disable(uint32_t mask) {
    must_write(csrno::th_mcounterinten, must_read(csrno::th_mcounterinten) & ~mask);
}
uint32_t thead_overflow_read() { return static_cast<uint32_t>(must_read(csrno::th_mcounterof)); }
void thead_irq_delegate() { must_write(csrno::mideleg, must_read(csrno::mideleg) | (1u << 17)); }

uint64_t mem_read64(uintptr_t pa) {
    if constexpr (kRv32) return rv32::mem_read64<ModelMem>(pa);
    return m().load(pa, 8);
}
void mem_write64(uintptr_t pa, uint64_t v) {
    if constexpr (kRv32) return rv32::mem_write64<ModelMem>(pa, v);
    m().store(pa, v, 8);
}
uint32_t mem_read32(uintptr_t pa) { return static_cast<uint32_t>(m().load(pa, 4)); }
void mem_write32(uintptr_t pa, uint32_t v) { m().store(pa, v, 4); }

} // namespace pmu::hw
