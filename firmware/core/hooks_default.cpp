// SPDX-License-Identifier: BSD-2-Clause
// Defaults for hooks.hpp, used when a subsystem is not linked in. Each is the
// correct behaviour without that subsystem.
#include "hooks.hpp"

namespace hooks {
__attribute__((weak)) void pmu_fw_event(FwEvent) {}
__attribute__((weak)) void pmu_cold_init(const void *) {}
__attribute__((weak)) void pmu_hart_init() {}
__attribute__((weak)) void pmu_hart_stop() {}
__attribute__((weak)) void pmu_hart_suspend() {}
__attribute__((weak)) void pmu_hart_resume() {}
__attribute__((weak)) void pmu_fdt_fixup(void *) {}

__attribute__((weak)) CsrResult ctr_csr_read(unsigned, unsigned, bool, unsigned long &) {
    return CsrResult::NotMine;
}
__attribute__((weak)) CsrResult ctr_csr_write(unsigned, unsigned, bool, unsigned long) {
    return CsrResult::NotMine;
}
__attribute__((weak)) CsrResult ctr_sctrclr(unsigned, bool) { return CsrResult::NotMine; }
__attribute__((weak)) void ctr_cold_init(const void *) {}
__attribute__((weak)) void ctr_hart_init() {}
__attribute__((weak)) void ctr_fdt_fixup(void *) {}
__attribute__((weak)) void ctr_hart_resume() {}
__attribute__((weak)) bool ctr_m_interrupt(unsigned long) { return false; }
__attribute__((weak)) void ctr_record_trap(unsigned long, unsigned long, unsigned long, unsigned,
                                           unsigned) {}

__attribute__((weak)) void trace_cold_init(const void *, unsigned long) {}
__attribute__((weak)) void trace_fdt_fixup(void *) {}
__attribute__((weak)) void trace_hart_start() {}
__attribute__((weak)) void trace_hart_stop() {}
__attribute__((weak)) void trace_system_reset() {}
__attribute__((weak)) unsigned trace_mmode_regions(MmioRange *, unsigned) { return 0; }
} // namespace hooks
