// SPDX-License-Identifier: BSD-2-Clause
// System Suspend extension (ext-sys-suspend.adoc, EID "SUSP").
// SUSPEND_TO_RAM on a machine without a power controller (QEMU virt): the
// other harts are already STOPPED (the entry criterion), so the system is
// quiet; the calling hart sleeps in WFI as in a non-retentive HSM suspend
// until an interrupt S-mode enabled is pending (its wake-up device), then
// resumes at resume_addr. RAM keeps its contents, as suspend to RAM
// requires.
#include "ecall_list.hpp"
#include "services.hpp"

namespace sbi {
namespace {

enum : unsigned long { SYSTEM_SUSPEND = 0 };
// Table "SUSP System Sleep Types".
constexpr uint32_t SUSPEND_TO_RAM = 0;

// "Entry requires all but the calling hart be in the HSM STOPPED state."
// Only the caller can start one of them meanwhile (all others are
// stopped), so the answer cannot change before the suspend.
bool others_stopped(unsigned long self) {
    for (unsigned i = 0; i < fw::hart_count(); i++)
        if (fw::index_valid(i) && fw::hart_at(i).hartid != self &&
            fw::hart_at(i).hsm_state.load(fw::memory_order_acquire) != fw::HSM_STOPPED)
            return false;
    return true;
}

SbiRet system_suspend(uint32_t sleep_type, unsigned long resume_addr, unsigned long opaque) {
    // Reserved types and platform-specific ones (we implement none).
    if (sleep_type != SUSPEND_TO_RAM) return err(Error::InvalidParam);
    // Entry criteria before the address, as OpenSBI orders them (README).
    if (!others_stopped(fw::current_hartid())) return err(Error::Denied);
    if (!smode_entry_ok(resume_addr)) return err(Error::InvalidAddress);
    return suspend_current_hart(true, resume_addr, opaque);
}

SbiRet handle(unsigned long a0, unsigned long a1, unsigned long a2, unsigned long,
              unsigned long, unsigned long, unsigned long fid) {
    switch (fid) {
    // sleep_type is uint32_t: only its low 32 bits count (binary-encoding.adoc).
    case SYSTEM_SUSPEND: return system_suspend(static_cast<uint32_t>(a0), a1, a2);
    default: return err(Error::NotSupported);
    }
}
} // namespace

extern const Extension sbi_ext_susp = {nullptr, handle};
} // namespace sbi
