// SPDX-License-Identifier: BSD-2-Clause
// Hart State Management extension (ext-hsm.adoc, EID "HSM").
#include "ecall_list.hpp"
#include "hooks.hpp"
#include "riscv/csr.hpp"
#include "services.hpp"

namespace fw {
[[noreturn]] void enter_next_stage(unsigned long hartid, unsigned long pc, unsigned long arg1,
                                   unsigned long mode);
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
constexpr unsigned long SUSPEND_DEFAULT_RETENTIVE = 0x00000000;
constexpr unsigned long SUSPEND_DEFAULT_NON_RETENTIVE = 0x80000000;
constexpr unsigned long SUSPEND_PLATFORM_RETENTIVE_FIRST = 0x10000000;
constexpr unsigned long SUSPEND_PLATFORM_NON_RETENTIVE_FIRST = 0x90000000;
constexpr unsigned long NEXT_MODE_S = 1;

SbiRet hart_start(unsigned long hartid, unsigned long start_addr, unsigned long opaque) {
    if (!hart_valid(hartid)) return err(Error::InvalidParam);
    // The start address must be memory S-mode may execute: a DT memory range
    // outside the firmware.
    if (!s_mode_range_ok(start_addr, 0, 4)) return err(Error::InvalidAddress);
    HartState &h = harts[hartid];
    unsigned expected = HSM_STOPPED;
    if (!h.hsm_state.compare_exchange_strong(expected, HSM_START_PENDING,
                                             std::memory_order_acq_rel))
        return err(Error::AlreadyAvailable);
    h.next_addr = start_addr;
    h.next_arg1 = opaque;
    h.next_mode = NEXT_MODE_S;
    h.start_ready.store(1, std::memory_order_release);
    send_ipi(hartid, IPI_WAKE);
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
        if (pending & (1ul << csr::irq::MSI)) {
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

SbiRet hart_suspend(unsigned long type, unsigned long resume_addr, unsigned long opaque) {
    if (type > 0xffffffffu) return err(Error::InvalidParam);
    bool non_retentive = type & SUSPEND_DEFAULT_NON_RETENTIVE;
    unsigned long kind = type & ~SUSPEND_DEFAULT_NON_RETENTIVE;
    if (kind != 0) {
        // Platform-specific types (none implemented) vs reserved ones.
        unsigned long first = non_retentive ? SUSPEND_PLATFORM_NON_RETENTIVE_FIRST
                                            : SUSPEND_PLATFORM_RETENTIVE_FIRST;
        return err(type >= first ? Error::NotSupported : Error::InvalidParam);
    }
    if (non_retentive && !s_mode_range_ok(resume_addr, 0, 4)) return err(Error::InvalidAddress);
    unsigned long hartid = current_hartid();
    HartState &h = harts[hartid];
    h.hsm_state.store(HSM_SUSPENDED, std::memory_order_release);
    wait_for_wakeup();
    h.hsm_state.store(HSM_STARTED, std::memory_order_release);
    if (non_retentive) enter_next_stage(hartid, resume_addr, opaque, NEXT_MODE_S);
    return ok();
}

SbiRet handle(unsigned long a0, unsigned long a1, unsigned long a2, unsigned long, unsigned long,
              unsigned long, unsigned long fid) {
    switch (fid) {
    case HART_START: return hart_start(a0, a1, a2);
    case HART_STOP:
        harts[current_hartid()].hsm_state.store(HSM_STOP_PENDING, std::memory_order_release);
        hooks::pmu_hart_stop();
        hart_stop_and_wait();
    case HART_GET_STATUS:
        if (!hart_valid(a0)) return err(Error::InvalidParam);
        return ok(harts[a0].hsm_state.load(std::memory_order_acquire));
    case HART_SUSPEND: return hart_suspend(a0, a1, a2);
    default: return err(Error::NotSupported);
    }
}
} // namespace

extern const Extension sbi_ext_hsm = {eid::hsm, eid::hsm, nullptr, handle};
} // namespace sbi
