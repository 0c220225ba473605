// SPDX-License-Identifier: BSD-2-Clause
// Timer extension (ext-time.adoc, EID "TIME").
#include "ecall_list.hpp"
#include "subsystems.hpp"
#include "platform.hpp"
#include "riscv/csr.hpp"
#include "services.hpp"

namespace sbi {

namespace {
// Without Sstc: the platform's timer (the CLINT's mtimecmp) and STIP by hand.
// Out of line, so the Sstc path keeps the deadline where it arrived, in the
// argument registers (inline, GCC copies it out of them first on RV32).
[[gnu::noinline]] void set_machine_timer(uint64_t deadline) {
    platform::timer_set(fw::current_hartid(), deadline);
    csr_clear(csr::mip, 1ul << csr::irq::STI);
    csr_set(csr::mie, 1ul << csr::irq::MTI);
}
} // namespace

void set_timer(uint64_t deadline) {
    const bool sstc = fw::this_has(fw::EXT_SSTC);
    fw::subsystems::fw_event(fw::FwEvent::set_timer);
    if (!sstc) {
        set_machine_timer(deadline);
        return;
    }
    // With Sstc (menvcfg.STCE=1) STIP follows stimecmp directly.
#if __riscv_xlen == 32
    csr_write(0x15D /* stimecmph */, static_cast<unsigned long>(deadline >> 32));
#endif
    csr_write(csr::stimecmp, static_cast<unsigned long>(deadline));
}

namespace {
constexpr unsigned long SET_TIMER = 0;

// flatten: set_timer inlined, the hot path is a leaf with no frame.
[[gnu::flatten]] SbiRet handle(unsigned long a0, unsigned long a1, unsigned long, unsigned long,
                               unsigned long, unsigned long, unsigned long fid) {
    if (fid != SET_TIMER) return err(Error::NotSupported);
#if __riscv_xlen == 32
    set_timer(a0 | static_cast<uint64_t>(a1) << 32);
#else
    (void)a1;
    set_timer(a0);
#endif
    return ok();
}
} // namespace

extern const Extension sbi_ext_time = {nullptr, handle};
} // namespace sbi
