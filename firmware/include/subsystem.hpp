// SPDX-License-Identifier: BSD-2-Clause
// What the firmware core asks of an optional subsystem (PMU, CTR, trace): a
// descriptor whose members are the calls the subsystem answers, null where it
// has nothing to do. Each subsystem defines its descriptor constexpr in its
// own subsystem.hpp; firmware/core/subsystems.hpp is the one list of them and
// the only place the core calls through. A member's type is its signature, so
// a subsystem whose function drifts from it does not compile, and a call the
// core makes with a result (csr_read, m_interrupt, ...) returns it to the core.
#pragma once
#include <stdint.h>

namespace fw {

struct TrapFrame; // core/trap.hpp

// SBI PMU firmware event codes (ext-pmu.adoc, "Event: Firmware (Type #15)").
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

// The answer to an emulated CSR access or instruction: not this subsystem's,
// done, illegal-instruction or virtual-instruction exception.
enum class CsrResult { NotMine, Done, Illegal, Virtual };

// An MMIO region only M-mode may access.
struct MmioRange {
    uint64_t base, size;
};

struct Subsystem {
    const char *name;
    // --- boot hart ---------------------------------------------------------
    // Once the platform and the device tree are known: `fdt` is the device
    // tree before fix-up, `next_addr` the next stage's entry.
    void (*cold_init)(const void *fdt, unsigned long next_addr);
    // The device-tree fix-up before hand-off.
    void (*fdt_fixup)(void *fdt);
    // MMIO regions (and buffers) the PMP keeps from S-mode, at most `max`
    // written to `out`; returns how many.
    unsigned (*mmode_regions)(MmioRange *out, unsigned max);
    // --- the current hart's life cycle -------------------------------------
    // Every hart once at boot, after the core's own set-up.
    void (*hart_init)();
    // A hart that HSM starts again, before S-mode: its state starts afresh.
    void (*hart_restart)();
    // The hart enters S-mode (boot, HSM start, resume) or leaves it for good
    // or for a while (HSM stop, suspend).
    void (*smode_enter)();
    void (*smode_leave)();
    // HSM stop: everything of this hart stopped and released.
    void (*hart_stop)();
    // Around a non-retentive suspend (M-mode CSRs may be lost).
    void (*hart_suspend)();
    void (*hart_resume)();
    // Before a system reset or shutdown.
    void (*system_reset)();
    // --- traps -------------------------------------------------------------
    // One occurrence of a firmware event on the current hart.
    void (*fw_event)(FwEvent e);
    // An S/U/VS-mode access to a CSR the hart lacks: `mode` is the trapping
    // privilege (0 U, 1 S), `virt` whether V was 1. For a read-modify-write
    // instruction the core calls read_csr then write_csr with the new value.
    CsrResult (*read_csr)(unsigned csr, unsigned mode, bool virt, unsigned long &value);
    CsrResult (*write_csr)(unsigned csr, unsigned mode, bool virt, unsigned long value);
    // The same instruction offered first, whole, on the trap entry's fast
    // path (core/README.md "Trap entry"): `insn` a CSR instruction whose rd
    // and rs1 are registers the frame holds (ra, t0-t2, a0-a7, t3-t6),
    // `mstatus` as the trap left it. True: served in full, rd's slot of the
    // frame written (the core advances mepc by 4 and counts the firmware
    // event once); a subsystem that also served instructions right after
    // it, in the same trap, has moved mepc past all but the trapping one
    // itself (CTR's entry rows, firmware/ctr/README.md "Entry accesses in
    // one trap"). False: not taken here, the core goes on as usual
    // (read_csr/write_csr, or the full path, which also raises any
    // exception).
    bool (*csr_fast)(TrapFrame &f, uint32_t insn, unsigned long mstatus);
    // The CSR numbers csr_fast takes: [csr_fast_first, + csr_fast_count). The
    // core offers it nothing else, so other CSRs pay no call for it.
    unsigned csr_fast_first, csr_fast_count;
    // The SCTRCLR instruction (ctr::ratified::sctrclr_insn) trapped as illegal.
    CsrResult (*sctrclr)(unsigned mode, bool virt);
    // An M-level interrupt the core does not handle itself (mcause code
    // without the interrupt bit); returns true when this subsystem handled it.
    bool (*m_interrupt)(unsigned long code);
    // A trap the firmware redirects to S-mode: privileges as in mstatus.MPP
    // (0 U, 1 S, 3 M), plus 4 when the trap came from a virtualised mode.
    void (*record_trap)(unsigned long from_pc, unsigned long to_pc, unsigned long cause,
                        unsigned from_priv, unsigned to_priv);
    // Bytes per hart cold_init carves (fw::carve_per_hart): the core leaves
    // room for them when it decides how many harts fit below the next stage.
    // Asked before cold_init, with the device tree cold_init gets.
    unsigned long (*per_hart_bytes)(const void *fdt);
    // Bytes fdt_fixup may add to the device tree, at most (core/README.md
    // "Device-tree fix-ups: their room"): asked after cold_init, which has
    // parsed the tree, with the tree before fix-up. The core opens the tree
    // with the sum of every subsystem's room and its own, or stops the boot
    // when the memory after the tree cannot hold it.
    unsigned long (*fdt_room)(const void *fdt);
};

} // namespace fw
