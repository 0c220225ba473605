// SPDX-License-Identifier: BSD-2-Clause
// Per-hart state of the firmware core: HSM state, pending IPIs and the
// outgoing remote-fence request, in each hart's HartBlock (hart_block.hpp:
// block_of(hartid).core, block_at(index).core, this_hart()).
#pragma once
#include "fw.hpp"
#include "atomic.hpp"

namespace fw {

constexpr unsigned kXlen = sizeof(long) * 8;

// SBI HSM hart states (ext-hsm.adoc, "HSM Hart States").
enum HsmState : unsigned {
    HSM_STARTED = 0,
    HSM_STOPPED = 1,
    HSM_START_PENDING = 2,
    HSM_STOP_PENDING = 3,
    HSM_SUSPENDED = 4,
    HSM_SUSPEND_PENDING = 5,
    HSM_RESUME_PENDING = 6,
};

// IPI reasons, bits of HartState::ipi_pending.
constexpr unsigned long IPI_SMODE = 1; // raise SSIP for S-mode (sbi_send_ipi)
constexpr unsigned long IPI_FENCE = 2; // remote fence requests in fence_from
constexpr unsigned long IPI_WAKE = 4;  // HSM start: leave the stopped loop
constexpr unsigned long IPI_SSE = 8;   // SSE injection: deliver on the way out of M-mode

enum class FenceKind : unsigned {
    fence_i,
    sfence_vma,
    sfence_vma_asid,
    hfence_gvma_vmid,
    hfence_gvma,
    hfence_vvma_asid,
    hfence_vvma,
};

struct FenceRequest {
    FenceKind kind;
    unsigned long start, size, id; // id: ASID or VMID
    unsigned long vmid;            // caller's VMID for the hfence.vvma kinds
};

struct alignas(64) HartState {
    fw::atomic<unsigned> hsm_state;
    unsigned long hartid;          // of this index (fw::hart_index)
    bool present;                  // enabled in the DT and served by us
    uint64_t isa;                  // ISA extension bits (fw::Ext)
    unsigned long next_addr, next_arg1, next_mode; // for HSM start / resume
    unsigned long suspend_type;
    unsigned long asid_max, vmid_max; // largest ASID / VMID the hart implements
    fw::atomic<unsigned> start_ready;    // next_* written for a pending HSM start
    fw::atomic<unsigned long> ipi_pending;
    fw::atomic<unsigned long> fence_from[kHartWords]; // senders (bit = index) with a request for us
    FenceRequest fence_req;                // our outgoing request
    fw::atomic<unsigned> fence_waiting;   // targets still to process fence_req
};

// Self-hosted trace (Smstrcn/Ssstrcn, Ssamb) is S-mode's: set at cold boot
// by the trace subsystem (trace/strc.hpp) only. Otherwise mstateen0.STRC
// stays closed and the device tree handed on lists neither ssstrcn nor
// ssamb (enables::kWithheldStrc).
extern bool strc_offered;

// ISA extensions the firmware cares about (from the DT, confirmed by probing).
enum Ext : unsigned {
    EXT_H,
    EXT_SSTC,
    EXT_SSCOFPMF,
    EXT_SMSTATEEN,
    EXT_SMCNTRPMF,
    EXT_SMCTR,
    EXT_SSCTR,
    EXT_SMCSRIND,
    EXT_SSCSRIND,
    EXT_SVPBMT,
    EXT_ZICBOM,
    EXT_ZICBOZ,
    EXT_ZKR,
    EXT_SMAIA,
    EXT_SSAIA,
    EXT_SVADU,
    EXT_SVADE,
    EXT_SMDBLTRP,
    EXT_SMCDELEG,
    EXT_SSCCFG,
    // Self-hosted trace draft (hw_models/trace/strc_regs.h): the M-level
    // CSRs, the S-level ones, and the asynchronous memory buffer.
    EXT_SMSTRCN,
    EXT_SSSTRCN,
    EXT_SSAMB,
    EXT_COUNT
};
static_assert(EXT_COUNT <= 64, "HartState::isa holds one bit per extension");

// For a bitmap of target harts (bit = hart index, XLEN-wide words, as
// sbi::HartBitmap; hart_words() of them hold harts): the calling hart is
// served in place, the others through IPIs, and a call for the calling hart
// alone skips the latter. is_target: whether index `self` is in it;
// others_than: `others` = the targets but `self`, and whether any.
inline bool is_target(const unsigned long *targets, unsigned self) {
    return (targets[self / kXlen] >> (self % kXlen)) & 1;
}
inline bool others_than(const unsigned long *targets, unsigned self, unsigned long *others) {
    unsigned long any = 0;
    for (unsigned w = 0, n = hart_words(); w < n; w++) {
        others[w] = targets[w] & ~(w == self / kXlen ? 1ul << (self % kXlen) : 0);
        any |= others[w];
    }
    return any != 0;
}

// Processes this hart's pending M-mode software/timer work (IPIs, fences,
// timer forwarding). Called from the trap handler and from wait loops.
void process_ipis();
void process_timer();
// Sends IPI reason `why` to `hartid`, or to the hart of index `index`
// (sets the bit, raises MSIP).
void send_ipi(unsigned long hartid, unsigned long why);
void send_ipi_at(unsigned index, unsigned long why);
// Privilege of a next stage (OpenSBI's fw_dynamic_info next_mode values).
constexpr unsigned long FW_DYNAMIC_NEXT_MODE_U = 0, FW_DYNAMIC_NEXT_MODE_S = 1;
// HSM start of a STOPPED hart: it leaves its stopped loop and enters `addr` in
// `mode` (FW_DYNAMIC_NEXT_MODE_*) with a0 = its hart ID, a1 = `arg1`. False
// (nothing changed) when the hart is not STOPPED.
bool request_start(unsigned long hartid, unsigned long addr, unsigned long arg1, unsigned long mode);

} // namespace fw

// The blocks holding each hart's HartState, this_hart() and hart_has().
#include "hart_block.hpp"
