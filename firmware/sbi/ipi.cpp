// SPDX-License-Identifier: BSD-2-Clause
// IPI extension (ext-ipi.adoc, EID "sPI").
#include "ecall_list.hpp"
#include "subsystems.hpp"
#include "riscv/csr.hpp"
#include "services.hpp"

namespace sbi {

void send_ipi_many(const HartBitmap &targets) {
    constexpr unsigned xlen = sizeof(long) * 8;
    const unsigned long self = fw::current_hartid();
    const unsigned self_word = static_cast<unsigned>(self / xlen);
    const unsigned long self_bit = 1ul << (self % xlen);
    if (targets.w[self_word] & self_bit) {
        // No need for a round trip through the M-mode software interrupt to
        // reach ourselves: the IPI is sent and received here.
        fw::subsystems::fw_event(fw::FwEvent::ipi_sent);
        fw::subsystems::fw_event(fw::FwEvent::ipi_received);
        csr_set(csr::mip, 1ul << csr::irq::SSI);
    }
    for (unsigned w = 0; w < kMaskWords; w++) {
        unsigned long m = targets.w[w] & ~(w == self_word ? self_bit : 0);
        for (; m; m &= m - 1) {
            fw::subsystems::fw_event(fw::FwEvent::ipi_sent);
            fw::send_ipi(w * xlen + __builtin_ctzl(m), fw::IPI_SMODE);
        }
    }
}

namespace {
constexpr unsigned long SEND_IPI = 0;

SbiRet handle(unsigned long mask, unsigned long base, unsigned long, unsigned long,
              unsigned long, unsigned long, unsigned long fid) {
    if (fid != SEND_IPI) return err(Error::NotSupported);
    HartBitmap t;
    if (Error e = targets_from_mask(mask, base, t); e != Error::Success) return err(e);
    send_ipi_many(t);
    return ok();
}
} // namespace

extern const Extension sbi_ext_ipi = {nullptr, handle};
} // namespace sbi
