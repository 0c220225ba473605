// SPDX-License-Identifier: BSD-2-Clause
// Hooks the firmware core calls into optional subsystems (PMU, CTR). Each has
// a weak default in firmware/core/hooks_default.cpp that is correct when the
// subsystem is absent; the subsystem's own file overrides it.
#pragma once
#include <stdint.h>

namespace hooks {

// --- PMU (firmware/sbi/pmu*.cpp) ---------------------------------------
// SBI PMU firmware event codes (SBI spec, PMU chapter, "Firmware Events").
enum class FwEvent : unsigned {
    misaligned_load = 0,
    misaligned_store = 1,
    access_load = 2,
    access_store = 3,
    illegal_insn = 4,
    set_timer = 5,
    ipi_sent = 6,
    ipi_received = 7,
    fence_i_sent = 8,
    fence_i_received = 9,
    sfence_vma_sent = 10,
    sfence_vma_received = 11,
    sfence_vma_asid_sent = 12,
    sfence_vma_asid_received = 13,
    hfence_gvma_sent = 14,
    hfence_gvma_received = 15,
    hfence_gvma_vmid_sent = 16,
    hfence_gvma_vmid_received = 17,
    hfence_vvma_sent = 18,
    hfence_vvma_received = 19,
    hfence_vvma_asid_sent = 20,
    hfence_vvma_asid_received = 21,
};
// Counts one occurrence of `e` on the current hart.
void pmu_fw_event(FwEvent e);
// Called on the boot hart once the platform and the device tree are known
// (fdt = the device tree before fix-up), and on every hart when it starts.
void pmu_cold_init(const void *fdt);
void pmu_hart_init();
// HSM: the current hart stops; enters and leaves a non-retentive suspend
// (counter state is saved and restored around it).
void pmu_hart_stop();
void pmu_hart_suspend();
void pmu_hart_resume();
// Device-tree fix-up before hand-off (remove private PMU properties).
void pmu_fdt_fixup(void *fdt);

// --- CTR emulation (firmware/ctr/*) -------------------------------------
enum class CsrResult { NotMine, Done, Illegal, Virtual };
// Emulates an S/U/VS-mode access to `csr`: `mode` is the trapping privilege
// (0 U, 1 S), `virt` whether V was 1. For a read-modify-write instruction the
// dispatcher calls csr_read then csr_write with the new value.
CsrResult ctr_csr_read(unsigned csr, unsigned mode, bool virt, unsigned long &value);
CsrResult ctr_csr_write(unsigned csr, unsigned mode, bool virt, unsigned long value);
// The SCTRCLR instruction (ctr::ratified::sctrclr_insn) trapped as illegal.
CsrResult ctr_sctrclr(unsigned mode, bool virt);
void ctr_cold_init(const void *fdt);
void ctr_hart_init();
// Device-tree fix-up before hand-off (e.g. advertise emulated Ssctr).
void ctr_fdt_fixup(void *fdt);
// After a non-retentive HSM suspend, before returning to S-mode.
void ctr_hart_resume();
// An M-level interrupt the core does not handle itself (mcause code without
// the interrupt bit), e.g. an LCOFI kept in M-mode for LCOFIFRZ emulation.
// Returns true when CTR handled it.
bool ctr_m_interrupt(unsigned long code);
// A trap passing through M-mode to S-mode (redirected by the firmware), for
// emulated recording: privileges as in mstatus.MPP (0 U, 1 S, 3 M), plus 4
// when the trap came from a virtualised mode (V=1).
void ctr_record_trap(unsigned long from_pc, unsigned long to_pc, unsigned long cause,
                     unsigned from_priv, unsigned to_priv);

// --- N-Trace (firmware/trace/*) ------------------------------------------
// Boot hart, before the device-tree fix-up: finds and checks the trace
// components and reads the /chosen options. `next_addr` is the next stage's
// entry (the boot-time trace buffer must not overlap it).
void trace_cold_init(const void *fdt, unsigned long next_addr);
// Reserves the boot-time trace buffer and, once reserved, starts that trace.
void trace_fdt_fixup(void *fdt);
// The current hart enters S-mode (boot, HSM start, resume) or leaves it for
// good or for a while (HSM stop, suspend): its encoder starts or flushes.
void trace_hart_start();
void trace_hart_stop();
// Before a system reset or shutdown: everything flushed to the sink.
void trace_system_reset();
// MMIO regions only M-mode may access (trace components), at most `max`.
struct MmioRange {
    uint64_t base, size;
};
unsigned trace_mmode_regions(MmioRange *out, unsigned max);

} // namespace hooks
