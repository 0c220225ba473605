// SPDX-License-Identifier: BSD-2-Clause
// The hardware the PMU service drives, as a thin interface: counters and their
// event selectors by counter index (the CSR offset: 0 cycle, 2 instret,
// 3..31 mhpmcounterN), mcountinhibit, mcounteren, the Sscofpmf overflow bits
// and the S-mode memory the snapshot and event-info calls use.
//
// On the RISC-V target the functions are CSR accesses: the simple ones inline
// (hw_csr.hpp), the ones indexed by a run-time counter number in hw_csr.cpp.
// On the host the same declarations are implemented by the hart model in
// hw_models/hart/, so the service logic runs unchanged in host tests.
#pragma once
#include <stdint.h>

namespace pmu::hw {

// Counter indices with a fixed event (Zicntr), and the one that is `time`.
constexpr unsigned kCycle = 0, kTime = 1, kInstret = 2, kFirstHpm = 3, kSlots = 32;
constexpr uint32_t kFixedMask = (1u << kCycle) | (1u << kInstret);
constexpr uint32_t kHpmMask = ~((1u << kFirstHpm) - 1);

// mhpmeventN bits defined by Sscofpmf, and the same inhibit bits in
// mcyclecfg/minstretcfg (Smcntrpmf): privileged spec, "Count Overflow
// Control" / "Cycle and Instret Privilege Mode Filtering".
constexpr uint64_t kEventOF = 1ull << 63;
constexpr uint64_t kEventMINH = 1ull << 62;
constexpr uint64_t kEventSINH = 1ull << 61;
constexpr uint64_t kEventUINH = 1ull << 60;
constexpr uint64_t kEventVSINH = 1ull << 59;
constexpr uint64_t kEventVUINH = 1ull << 58;
constexpr unsigned kEventInhShift = 58; // VUINH, VSINH, UINH, SINH, MINH upwards
// Bits below the Sscofpmf field that carry the event selector.
constexpr uint64_t kEventSelectorMask = (1ull << 56) - 1;

struct Probe {
    unsigned long value;
    bool trapped;
};

// --- used once per boot, on the boot hart ----------------------------------
// Access to a CSR by number that may not exist (no trap taken on the way out).
Probe probe_read(unsigned csr);
bool probe_write(unsigned csr, unsigned long value); // true if it trapped

// --- used on every call ------------------------------------------------------
unsigned long hart_index(); // the calling hart's dense index (fw::hart_index), below fw::hart_count()
uint64_t counter_read(unsigned idx);
void counter_write(unsigned idx, uint64_t value);
// mhpmeventN for idx >= 3, mcyclecfg (idx 0) / minstretcfg (idx 2) with
// Smcntrpmf. `upper` says whether bits 63:32 exist (RV32: mhpmeventNh with
// Sscofpmf, mcyclecfgh with Smcntrpmf); ignored on RV64.
void event_write(unsigned idx, uint64_t value, bool upper);
void inhibit_set(uint32_t mask);
void inhibit_clear(uint32_t mask);
uint32_t overflow_read(); // scountovf as M-mode reads it (Sscofpmf only)
void counteren_set(uint32_t mask);
void lcofi_delegate(); // mideleg.LCOFI (Sscofpmf only)
// T-Head C9xx overflow interrupt (csr.hpp, csr::thead), a bit per counter:
// enable clears mcounterof and sets mcounterwen and mcounterinten, disable
// clears mcounterinten; delegate sets mideleg bit 17.
void thead_irq_enable(uint32_t mask);
void thead_irq_disable(uint32_t mask);
uint32_t thead_overflow_read(); // mcounterof
void thead_irq_delegate();

// Physical memory S-mode handed over, already validated by the caller.
uint64_t mem_read64(uintptr_t pa);
void mem_write64(uintptr_t pa, uint64_t value);
uint32_t mem_read32(uintptr_t pa);
void mem_write32(uintptr_t pa, uint32_t value);

} // namespace pmu::hw

#if defined(__riscv) && !defined(PMU_HW_MODEL)
#include "hw_csr.hpp"
#endif
