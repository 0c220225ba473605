// SPDX-License-Identifier: BSD-2-Clause
// Hart State Management extension (ext-hsm.adoc, EID "HSM").
#include "ecall_list.hpp"
#include "subsystems.hpp"
#include "riscv/csr.hpp"
#include "platform.hpp"
#include "services.hpp"

namespace fw {
[[noreturn]] void resume_next_stage(unsigned long hartid, unsigned long pc, unsigned long arg1);
}

namespace sbi {
namespace {

using namespace fw;

enum : unsigned long {
    HART_START = 0,
    HART_STOP = 1,
    HART_GET_STATUS = 2,
    HART_SUSPEND = 3,
};
// Suspend types (ext-hsm.adoc, "HSM Hart Suspend Types").
constexpr uint32_t SUSPEND_DEFAULT_RETENTIVE = 0x00000000;
constexpr uint32_t SUSPEND_DEFAULT_NON_RETENTIVE = 0x80000000;

SbiRet hart_start(unsigned long hartid, unsigned long start_addr, unsigned long opaque) {
    if (!hart_valid(hartid)) return err(Error::InvalidParam);
    // The start address must be memory S-mode may execute: a DT memory range
    // outside the firmware.
    if (!smode_entry_ok(start_addr)) return err(Error::InvalidAddress);
    if (!request_start(hartid, start_addr, opaque, FW_DYNAMIC_NEXT_MODE_S)) return err(Error::AlreadyAvailable);
    return ok();
}

// S-level interrupts that end a suspend when pending and enabled.
constexpr unsigned long kWakeMask = (1ul << csr::irq::SSI) | (1ul << csr::irq::STI) |
                                    (1ul << csr::irq::SEI) | (1ul << csr::irq::LCOFI) |
                                    (1ul << csr::irq::VSSI) | (1ul << csr::irq::VSTI) |
                                    (1ul << csr::irq::VSEI) | (1ul << csr::irq::SGEI);

void wait_for_wakeup() {
    for (;;) {
        unsigned long pending = csr_read(csr::mip) & csr_read(csr::mie);
        if (pending & kWakeMask) return;
        if (pending & platform::ipi_irq_bit) {
            process_ipis();
            continue;
        }
        if (pending & (1ul << csr::irq::MTI)) {
            process_timer();
            continue;
        }
        asm volatile("wfi");
    }
}

SbiRet hart_suspend(uint32_t type, unsigned long resume_addr, unsigned long opaque) {
    bool non_retentive = type & SUSPEND_DEFAULT_NON_RETENTIVE;
    uint32_t kind = type & ~SUSPEND_DEFAULT_NON_RETENTIVE;
    // Reserved types and the platform-specific ones (we implement none) are
    // both INVALID_PARAM (ext-hsm.adoc, hart_suspend errors).
    if (kind != 0) return err(Error::InvalidParam);
    if (non_retentive && !smode_entry_ok(resume_addr)) return err(Error::InvalidAddress);
    return suspend_current_hart(non_retentive, resume_addr, opaque);
}

// The calls but get_status, out of line: they need callee-saved registers
// that get_status, which S-mode polls while starting and stopping harts,
// would otherwise save and restore too.
[[gnu::noinline]] SbiRet handle_start_stop(unsigned long a0, unsigned long a1, unsigned long a2,
                                           unsigned long fid) {
    switch (fid) {
    case HART_START: return hart_start(a0, a1, a2);
    case HART_STOP:
        hart_state(current_hartid()).hsm_state.store(HSM_STOP_PENDING, fw::memory_order_release);
        fw::subsystems::hart_stop();
        fw::subsystems::smode_leave();
        hart_stop_and_wait();
    // suspend_type is uint32_t: only its low 32 bits count (binary-encoding.adoc,
    // "higher privilege software must ensure that it only uses 32 bit data").
    case HART_SUSPEND: return hart_suspend(static_cast<uint32_t>(a0), a1, a2);
    default: return err(Error::NotSupported);
    }
}

SbiRet handle(unsigned long a0, unsigned long a1, unsigned long a2, unsigned long, unsigned long,
              unsigned long, unsigned long fid) {
    if (fid != HART_GET_STATUS) return handle_start_stop(a0, a1, a2, fid);
    // One return for both outcomes, the two words set apart (fewer
    // instructions than an SbiRet per path with GCC 12; bench 10).
    long error = static_cast<long>(Error::InvalidParam);
    unsigned long state = 0;
    unsigned long index;
    if (served_index(a0, index) && hart_at(index).present) { // present: hart_valid
        error = static_cast<long>(Error::Success);
        state = hart_at(index).hsm_state.load(fw::memory_order_acquire);
    }
    return {error, state};
}
} // namespace

bool smode_entry_ok(unsigned long addr) {
    unsigned long ialign_mask = (csr_read(csr::misa) & (1ul << ('c' - 'a'))) ? 1 : 3;
    return !(addr & ialign_mask) && fw::s_mode_range_ok(addr, 0, 4);
}

SbiRet suspend_current_hart(bool non_retentive, unsigned long resume_addr, unsigned long opaque) {
    using namespace fw;
    unsigned long hartid = current_hartid();
    HartState &h = hart_state(hartid);
    h.hsm_state.store(HSM_SUSPENDED, fw::memory_order_release);
    fw::subsystems::smode_leave();
    if (non_retentive) fw::subsystems::hart_suspend();
    wait_for_wakeup();
    if (non_retentive) fw::subsystems::hart_resume();
    fw::subsystems::smode_enter();
    h.hsm_state.store(HSM_STARTED, fw::memory_order_release);
    if (non_retentive) resume_next_stage(hartid, resume_addr, opaque);
    return ok();
}

extern const Extension sbi_ext_hsm = {nullptr, handle};
} // namespace sbi
