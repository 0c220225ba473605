// SPDX-License-Identifier: BSD-2-Clause
// IPI extension (ext-ipi.adoc, EID "sPI").
#include "ecall_list.hpp"
#include "subsystems.hpp"
#include "riscv/csr.hpp"
#include "services.hpp"

namespace sbi {

namespace {
// The IPIs of send_ipi_many() to other harts, out of line so that an IPI
// to the calling hart alone saves no registers for this loop.
[[gnu::noinline]] void send_ipi_others(const unsigned long *others) {
    constexpr unsigned xlen = sizeof(long) * 8;
    for (unsigned w = 0, n = fw::hart_words(); w < n; w++) {
        for (unsigned long m = others[w]; m; m &= m - 1) {
            fw::subsystems::fw_event(fw::FwEvent::ipi_sent);
            fw::send_ipi_at(w * xlen + __builtin_ctzl(m), fw::IPI_SMODE);
        }
    }
}

// No need for a round trip through the M-mode software interrupt to reach
// the calling hart: the IPI is sent and received here.
void send_ipi_self() {
    fw::subsystems::fw_event(fw::FwEvent::ipi_sent);
    fw::subsystems::fw_event(fw::FwEvent::ipi_received);
    csr_set(csr::mip, 1ul << csr::irq::SSI);
}
} // namespace

void send_ipi_many(const HartBitmap &targets) {
    const unsigned self = fw::this_index();
    if (fw::is_target(targets.w, self)) send_ipi_self();
    unsigned long others[kMaskWords];
    if (fw::others_than(targets.w, self, others)) send_ipi_others(others);
}

namespace {
constexpr unsigned long SEND_IPI = 0;

SbiRet handle(unsigned long mask, unsigned long base, unsigned long, unsigned long,
              unsigned long, unsigned long, unsigned long fid) {
    if (fid != SEND_IPI) return err(Error::NotSupported);
    // The calling hart alone: no bitmap to build and walk (hartmask.hpp).
    if (mask_is_only(mask, base, fw::current_hartid())) {
        if (!fw::this_hart().present) return err(Error::InvalidParam);
        send_ipi_self();
        return ok();
    }
    HartBitmap t;
    if (Error e = targets_from_mask(mask, base, t); e != Error::Success) return err(e);
    send_ipi_many(t);
    return ok();
}
} // namespace

extern const Extension sbi_ext_ipi = {nullptr, handle};
} // namespace sbi
