// SPDX-License-Identifier: BSD-2-Clause
// RISC-V implementation of the PMU hardware interface (hw.hpp): the accesses
// that take one instruction are inline here; the ones indexed by a run-time
// counter number live in hw_csr.cpp. Included by hw.hpp on the target only.
#pragma once
#include "../include/fw.hpp"
#include "../include/riscv/csr.hpp"

namespace pmu::hw {

inline Probe probe_read(unsigned csr) {
    csr::SafeResult r = csr::csr_read_safe_num(csr);
    return {r.value, r.trapped != 0};
}
inline bool probe_write(unsigned csr, unsigned long value) {
    return csr::csr_write_safe_num(csr, value).trapped != 0;
}

inline unsigned hart_index() { return static_cast<unsigned>(fw::current_hartid()); }

inline void inhibit_set(uint32_t mask) { csr_set(csr::mcountinhibit, mask); }
inline void inhibit_clear(uint32_t mask) { csr_clear(csr::mcountinhibit, mask); }
inline uint32_t overflow_read() { return static_cast<uint32_t>(csr_read(csr::scountovf)); }
inline void counteren_set(uint32_t mask) { csr_set(csr::mcounteren, mask); }
inline void lcofi_delegate() { csr_set(csr::mideleg, 1ul << csr::irq::LCOFI); }

// M-mode runs with translation off: S-mode's physical addresses are ours.
inline uint64_t mem_read64(uintptr_t pa) {
#if __riscv_xlen == 32
    // Two word loads: the snapshot area is only 4-byte aligned data for RV32 code.
    const volatile uint32_t *p = reinterpret_cast<const volatile uint32_t *>(pa);
    return p[0] | (static_cast<uint64_t>(p[1]) << 32);
#else
    return *reinterpret_cast<const volatile uint64_t *>(pa);
#endif
}
inline void mem_write64(uintptr_t pa, uint64_t value) {
#if __riscv_xlen == 32
    volatile uint32_t *p = reinterpret_cast<volatile uint32_t *>(pa);
    p[0] = static_cast<uint32_t>(value);
    p[1] = static_cast<uint32_t>(value >> 32);
#else
    *reinterpret_cast<volatile uint64_t *>(pa) = value;
#endif
}
inline uint32_t mem_read32(uintptr_t pa) { return *reinterpret_cast<const volatile uint32_t *>(pa); }
inline void mem_write32(uintptr_t pa, uint32_t value) {
    *reinterpret_cast<volatile uint32_t *>(pa) = value;
}

} // namespace pmu::hw
