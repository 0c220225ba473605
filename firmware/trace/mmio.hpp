// SPDX-License-Identifier: BSD-2-Clause
// The trace driver's only access to hardware: 32-bit register reads and
// writes (TCI 1.0 registers are 32 bits wide). In the firmware these are
// volatile loads and stores; host tests link their own definitions that
// drive a register-level fake of the components (tests/trace_fw).
#pragma once
#include <stdint.h>

namespace trace::mmio {
#ifdef TSBI_TRACE_HOST
uint32_t read32(uint64_t addr);
void write32(uint64_t addr, uint32_t value);
#else
inline uint32_t read32(uint64_t addr) {
    return *reinterpret_cast<volatile uint32_t *>(static_cast<uintptr_t>(addr));
}
inline void write32(uint64_t addr, uint32_t value) {
    *reinterpret_cast<volatile uint32_t *>(static_cast<uintptr_t>(addr)) = value;
}
#endif
} // namespace trace::mmio
