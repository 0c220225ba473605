// SPDX-License-Identifier: BSD-2-Clause
// M-mode trap handling for everything except supervisor ecalls (which take
// the short path in entry.S straight to the extension's handler, looked up
// in firmware/sbi/ecall.cpp's table).
#include "trap.hpp"
#include "hart.hpp"
#include "subsystems.hpp"
#include "riscv/csr.hpp"
#include "sbi/sbi.hpp"
#include "sbi/services.hpp"
#include "asm.h"
#include "platform.hpp"

#include <stddef.h>

// entry.S's numbers are preprocessor constants (asm.h); tie each to the C++
// definition it mirrors so that a change to one side fails to compile.
static_assert(FRAME_REG(1) == offsetof(fw::TrapFrame, x) + sizeof(long));
static_assert(FRAME_MEPC == offsetof(fw::TrapFrame, mepc));
static_assert(FRAME_MSTATUS == offsetof(fw::TrapFrame, mstatus));
static_assert(FRAME_WITNESS == offsetof(fw::TrapFrame, witness));
static_assert(FRAME_SIZE >= sizeof(fw::TrapFrame) && FRAME_SIZE % 16 == 0);
static_assert(REGBYTES == sizeof(long));
static_assert(SBI_LOWEST_ERROR == sbi::kLowestError);
static_assert(MSTATUSH_MDT == csr::mstatush_bits::MDT);
#if __riscv_xlen == 64
static_assert(1ull << MSTATUS_MDT_SHIFT == csr::mstatus_bits::MDT);
#endif

namespace fw {

using namespace csr;

MdtClearScope::MdtClearScope() : was_set_(false) {
    // Before the carve (cold boot's first probes) no hart has a block: the
    // extensions are not known yet, as with a zeroed block.
    const unsigned long id = current_hartid();
    if (hart_index(id) == kNoHart || !hart_has(id, EXT_SMDBLTRP)) return;
#if __riscv_xlen == 64
    was_set_ = csr_read(csr::mstatus) & mstatus_bits::MDT;
    if (was_set_) csr_clear(csr::mstatus, mstatus_bits::MDT);
#else
    was_set_ = csr_read(csr::mstatush) & mstatush_bits::MDT;
    if (was_set_) csr_clear(csr::mstatush, mstatush_bits::MDT);
#endif
}

MdtClearScope::~MdtClearScope() {
    if (!was_set_) return;
#if __riscv_xlen == 64
    csr_set(csr::mstatus, mstatus_bits::MDT);
#else
    csr_set(csr::mstatush, mstatush_bits::MDT);
#endif
}

TrapFrame &current_frame() {
    // entry.S puts the frame at the top of the hart's stack (FRAME_SIZE: the
    // frame rounded to the stack alignment).
    return *reinterpret_cast<TrapFrame *>(fw_stacks_base + (this_index() + 1) * kStackSize -
                                          FRAME_SIZE);
}

// Ssdbltrp (privileged spec, "Double Trap"): a trap into S-mode that finds
// sstatus.SDT set is a double trap, taken in M-mode. It becomes S-mode's SSE
// LOCAL_DOUBLE_TRAP event; without a handler ready for it the trapped
// software cannot continue, and the firmware stops with a message.
void take_double_trap(TrapFrame &f, unsigned long cause) {
    if (sbi::sse_double_trap(f)) return;
    printf("tsbi: hart %lu: double trap in S-mode (cause %lu at 0x%lx) and no SSE double-trap "
           "handler ready\n",
           current_hartid(), cause, f.mepc);
    fatal("unrecoverable S-mode double trap");
}

void redirect_to_smode(TrapFrame &f, unsigned long cause, unsigned long tval) {
    // A trap the firmware hands to S-mode behaves as one the hart delivers:
    // with menvcfg.DTE it sets SDT, or is a double trap if SDT is set.
    const bool dte = sbi::fwft_double_trap_enabled();
    if (dte && (f.mstatus & mstatus_bits::SDT)) return take_double_trap(f, cause);
    unsigned prev = trap_priv(f);
    bool virt = trap_virt(f);
    unsigned record_from = prev | (virt ? 4 : 0);
    if (virt) {
        // A trap from VS/VU that M-mode does not handle goes to HS-mode: the
        // hypervisor sees it as a trap from a guest (privileged spec 8.6.4).
        unsigned long hs = csr_read(hstatus);
        hs |= hstatus_bits::SPV;
        if (prev == PRV_S)
            hs |= hstatus_bits::SPVP;
        else
            hs &= ~hstatus_bits::SPVP;
        hs &= ~hstatus_bits::GVA;
        csr_write(hstatus, hs);
        csr_write(htval, 0);
        csr_write(htinst, 0);
#if __riscv_xlen == 64
        f.mstatus &= ~static_cast<unsigned long>(mstatus_bits::MPV | mstatus_bits::GVA);
#else
        csr_clear(0x310, (1ul << 7) | (1ul << 6));
#endif
        // From the HS view, the trap came from a mode below it.
        prev = PRV_U;
    }
    csr_write(stval, tval);
    csr_write(sepc, f.mepc);
    csr_write(scause, cause);
    unsigned long ms = f.mstatus;
    if (prev == PRV_S)
        ms |= mstatus_bits::SPP;
    else
        ms &= ~mstatus_bits::SPP;
    if (ms & mstatus_bits::SIE)
        ms |= mstatus_bits::SPIE;
    else
        ms &= ~mstatus_bits::SPIE;
    ms &= ~(mstatus_bits::SIE | mstatus_bits::MPP);
    if (dte) ms |= mstatus_bits::SDT;
    ms |= static_cast<unsigned long>(PRV_S) << mstatus_bits::MPP_SHIFT;
    f.mstatus = ms;
    // Exceptions always enter at the stvec base, whatever its MODE.
    unsigned long from_pc = f.mepc;
    f.mepc = csr_read(stvec) & ~3ul;
    subsystems::record_trap(from_pc, f.mepc, cause, record_from, PRV_S);
}

} // namespace fw

using namespace fw;

extern "C" void trap_handler(TrapFrame *f) {
    unsigned long cause = csr_read(csr::mcause);
    if (cause & csr::cause::interrupt_bit) {
        switch (cause & ~csr::cause::interrupt_bit) {
        case csr::irq::MSI: process_ipis(); break;
        case csr::irq::MTI: process_timer(); break;
        case csr::irq::MEI: // an AIA IMSIC file's IPI (platform::ipi_irq_bit)
            if (platform::ipi_irq_bit == 1u << csr::irq::MEI) {
                process_ipis();
                break;
            }
            [[fallthrough]];
        default: {
            unsigned long code = cause & ~csr::cause::interrupt_bit;
            // A counter overflow is an SSE event while S-mode has it enabled,
            // else a subsystem's (CTR's LCOFIFRZ emulation).
            if (code == csr::irq::LCOFI && sbi::sse_take_lcofi()) break;
            if (subsystems::m_interrupt(code)) break;
            // Only interrupts some part of the firmware enabled in mie reach
            // M-mode; one nobody takes stays pending and would trap again
            // at once, forever. No spec behaviour applies: it is a firmware
            // bug, so stop with a word rather than hang silently.
            printf("tsbi: hart %lu: M-level interrupt %lu has no handler\n", current_hartid(),
                   code);
            fatal("unhandled M-level interrupt");
        }
        }
        sbi::sse_trap_exit(*f);
        return;
    }
    unsigned long tval = csr_read(csr::mtval);
    using fw::FwEvent;
    switch (cause) {
    case csr::cause::illegal_insn:
        subsystems::fw_event(FwEvent::illegal_insn);
        emulate_illegal_insn(*f, tval);
        break;
    case csr::cause::load_misaligned:
        subsystems::fw_event(FwEvent::misaligned_load);
        emulate_misaligned(*f, cause, tval);
        break;
    case csr::cause::store_misaligned:
        subsystems::fw_event(FwEvent::misaligned_store);
        emulate_misaligned(*f, cause, tval);
        break;
    case csr::cause::load_access:
        subsystems::fw_event(FwEvent::access_load);
        redirect_to_smode(*f, cause, tval);
        break;
    case csr::cause::store_access:
        subsystems::fw_event(FwEvent::access_store);
        redirect_to_smode(*f, cause, tval);
        break;
    case csr::cause::double_trap: take_double_trap(*f, cause); break;
    default: redirect_to_smode(*f, cause, tval); break;
    }
}

extern "C" void trap_from_m_fatal(unsigned long cause, unsigned long epc, unsigned long tval) {
    fw::printf("tsbi: hart %lu: unexpected M-mode trap: mcause 0x%lx mepc 0x%lx mtval 0x%lx\n",
               current_hartid(), cause, epc, tval);
}
