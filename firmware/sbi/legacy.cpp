// SPDX-License-Identifier: BSD-2-Clause
// Legacy extensions (ext-legacy.adoc, EIDs 0x00-0x08). a0 carries the result,
// every other register (a1 included) is preserved. Hart masks are passed as a
// pointer to S-mode (virtual) memory; a fault reading it goes back to S-mode
// with sepc at the ecall.
#include "ecall_list.hpp"
#include "platform.hpp"
#include "riscv/csr.hpp"
#include "services.hpp"
#include "trap.hpp"

namespace sbi {
namespace {

// Reads the unsigned long at S-mode virtual address `va`. On a fault, turns
// the ecall into that fault for S-mode and returns false.
bool read_smode_ulong(unsigned long va, unsigned long &out) {
    unsigned long ms = csr_read(csr::mstatus) | csr::mstatus_bits::MPRV;
    out = 0;
    for (unsigned i = 0; i < sizeof(long); i++) {
        fw::UnprivResult b = fw::unpriv_lbu(va + i, ms);
        if (b.trapped) {
            // The ecall path adds 4 to mepc on return; the fault must be
            // delivered with sepc = the ecall, and execution at stvec.
            fw::TrapFrame f{};
            f.mepc = csr_read(csr::mepc);
            f.mstatus = csr_read(csr::mstatus);
            fw::redirect_to_smode(f, b.trapped, va + i);
            csr_write(csr::mstatus, f.mstatus);
            csr_write(csr::mepc, f.mepc - 4);
            return false;
        }
        out |= b.value << (8 * i);
    }
    return true;
}

SbiRet legacy_ret(long v, unsigned long a1) { return {v, a1}; }

// One body for the nine EIDs; not inlined into each descriptor's handler.
[[gnu::noinline]] SbiRet handle(unsigned long a0, unsigned long a1, unsigned long a2,
                                unsigned long a3, unsigned long eid) {
    const long kFailed = static_cast<long>(Error::Failed);
    switch (static_cast<long>(eid)) {
    case eid::legacy_set_timer:
#if __riscv_xlen == 32
        set_timer(a0 | static_cast<uint64_t>(a1) << 32);
#else
        set_timer(a0);
#endif
        return legacy_ret(0, a1);
    case eid::legacy_console_putchar: {
        char c = static_cast<char>(a0);
        fw::console_write(&c, 1);
        return legacy_ret(0, a1);
    }
    case eid::legacy_console_getchar: return legacy_ret(fw::console_getc(), a1);
    case eid::legacy_clear_ipi: {
        // 0 if no IPI was pending, a positive value if one was.
        unsigned long was = csr_read(csr::mip) & (1ul << csr::irq::SSI);
        csr_clear(csr::mip, 1ul << csr::irq::SSI);
        return legacy_ret(was ? 1 : 0, a1);
    }
    case eid::legacy_shutdown:
        system_reset_and_wait(srst::TYPE_SHUTDOWN, srst::REASON_NONE);
        return legacy_ret(kFailed, a1);
    default: break;
    }
    // send_ipi and the remote fences: a0 points to the hart mask (NULL = all).
    unsigned long mask = 0, base = ~0ul;
    if (a0) {
        if (!read_smode_ulong(a0, mask)) return legacy_ret(0, a1);
        base = 0;
    }
    HartBitmap t;
    if (targets_from_mask(mask, base, t) != Error::Success)
        return legacy_ret(static_cast<long>(Error::InvalidParam), a1);
    SbiRet r = ok();
    switch (static_cast<long>(eid)) {
    case eid::legacy_send_ipi: send_ipi_many(t); break;
    case eid::legacy_remote_fence_i: r = rfence(fw::FenceKind::fence_i, &t, 0, 0, 0); break;
    case eid::legacy_remote_sfence_vma: r = rfence(fw::FenceKind::sfence_vma, &t, a1, a2, 0); break;
    default: r = rfence(fw::FenceKind::sfence_vma_asid, &t, a1, a2, a3); break;
    }
    return legacy_ret(r.error, a1);
}
// The handler of EID E: legacy calls have no FID (a6 is not an argument).
template <unsigned long E>
SbiRet handle_eid(unsigned long a0, unsigned long a1, unsigned long a2, unsigned long a3,
                  unsigned long, unsigned long, unsigned long) {
    return handle(a0, a1, a2, a3, E);
}
} // namespace

// EIDs 0x00-0x08, indexed by EID (ecall.cpp's table).
extern const Extension sbi_ext_legacy[kLegacyCount] = {
    {nullptr, handle_eid<eid::legacy_set_timer>},
    {nullptr, handle_eid<eid::legacy_console_putchar>},
    {nullptr, handle_eid<eid::legacy_console_getchar>},
    {nullptr, handle_eid<eid::legacy_clear_ipi>},
    {nullptr, handle_eid<eid::legacy_send_ipi>},
    {nullptr, handle_eid<eid::legacy_remote_fence_i>},
    {nullptr, handle_eid<eid::legacy_remote_sfence_vma>},
    {nullptr, handle_eid<eid::legacy_remote_sfence_vma_asid>},
    {nullptr, handle_eid<eid::legacy_shutdown>},
};
} // namespace sbi
