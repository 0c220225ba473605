// SPDX-License-Identifier: BSD-2-Clause
// RISC-V implementation of the PMU hardware interface (hw.hpp), included by
// hw.hpp on the target only. CSR numbers are immediates in the instruction,
// so the accesses indexed by a run-time counter number jump into a table of
// fixed-size "csrr/csrw; ret" pairs (hw_csr.cpp). On RV64 those tables are
// called with a private convention (index in a0, value in a1, only ra and
// t0 clobbered), so that calling them does not make the caller save
// registers; this is what keeps counter_start/counter_stop short.
#pragma once
#include "../include/fw.hpp"
#include "../include/riscv/csr.hpp"
#if __riscv_xlen == 32
#include "hw_rv32.hpp"
#endif

namespace pmu::hw {

inline Probe probe_read(unsigned csr) {
    csr::SafeResult r = csr::csr_read_safe_num(csr);
    return {r.value, r.trapped != 0};
}
inline bool probe_write(unsigned csr, unsigned long value) {
    return csr::csr_write_safe_num(csr, value).trapped != 0;
}

inline unsigned long hart_index() { return fw::this_index(); }

#if __riscv_xlen == 64
inline uint64_t counter_read(unsigned idx) {
    register unsigned long a0 asm("a0") = idx;
    asm volatile("call pmu_csr_counter_read" : "+r"(a0) : : "ra", "t0", "memory");
    return a0;
}
inline void counter_write(unsigned idx, uint64_t value) {
    register unsigned long a0 asm("a0") = idx;
    register unsigned long a1 asm("a1") = value;
    asm volatile("call pmu_csr_counter_write" : "+r"(a0) : "r"(a1) : "ra", "t0", "memory");
}
// Index 0 and 2 go to mcyclecfg/minstretcfg (Smcntrpmf only), 1 to nothing.
inline void event_write(unsigned idx, uint64_t value, bool) {
    register unsigned long a0 asm("a0") = idx;
    register unsigned long a1 asm("a1") = value;
    asm volatile("call pmu_csr_event_write" : "+r"(a0) : "r"(a1) : "ra", "t0", "memory");
}
#else
uint64_t counter_read_table(unsigned idx);
void counter_write_table(unsigned idx, uint64_t value);
void event_write_table(unsigned idx, uint64_t value, bool upper);
inline uint64_t counter_read(unsigned idx) { return counter_read_table(idx); }
inline void counter_write(unsigned idx, uint64_t v) { counter_write_table(idx, v); }
inline void event_write(unsigned idx, uint64_t v, bool upper) { event_write_table(idx, v, upper); }
#endif

inline void inhibit_set(uint32_t mask) { csr_set(csr::mcountinhibit, mask); }
inline void inhibit_clear(uint32_t mask) { csr_clear(csr::mcountinhibit, mask); }
inline uint32_t overflow_read() { return static_cast<uint32_t>(csr_read(csr::scountovf)); }
inline void counteren_set(uint32_t mask) { csr_set(csr::mcounteren, mask); }
inline void lcofi_delegate() { csr_set(csr::mideleg, 1ul << csr::irq::LCOFI); }
inline void thead_irq_enable(uint32_t mask) {
    // OF first: a set bit left from an earlier overflow would interrupt at
    // once (OpenSBI's thead_c9xx_pmu_ctr_enable_irq has the same order).
    csr_clear(csr::thead::mcounterof, mask);
    csr_set(csr::thead::mcounterwen, mask);
    csr_set(csr::thead::mcounterinten, mask);
}
inline void thead_irq_disable(uint32_t mask) { csr_clear(csr::thead::mcounterinten, mask); }
inline uint32_t thead_overflow_read() {
    return static_cast<uint32_t>(csr_read(csr::thead::mcounterof));
}
inline void thead_irq_delegate() { csr_set(csr::mideleg, 1ul << csr::thead::kIrqPmuOverflow); }

// M-mode runs with translation off: S-mode's physical addresses are ours.
inline uint32_t mem_read32(uintptr_t pa) { return *reinterpret_cast<const volatile uint32_t *>(pa); }
inline void mem_write32(uintptr_t pa, uint32_t value) {
    *reinterpret_cast<volatile uint32_t *>(pa) = value;
}
#if __riscv_xlen == 32
struct Mem32 {
    static uint32_t load32(uintptr_t pa) { return mem_read32(pa); }
    static void store32(uintptr_t pa, uint32_t v) { mem_write32(pa, v); }
};
inline uint64_t mem_read64(uintptr_t pa) { return rv32::mem_read64<Mem32>(pa); }
inline void mem_write64(uintptr_t pa, uint64_t value) { rv32::mem_write64<Mem32>(pa, value); }
#else
inline uint64_t mem_read64(uintptr_t pa) { return *reinterpret_cast<const volatile uint64_t *>(pa); }
inline void mem_write64(uintptr_t pa, uint64_t value) {
    *reinterpret_cast<volatile uint64_t *>(pa) = value;
}
#endif

} // namespace pmu::hw
