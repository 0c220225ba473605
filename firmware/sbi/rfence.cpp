// SPDX-License-Identifier: BSD-2-Clause
// RFENCE extension (ext-rfence.adoc, EID "RFNC").
#include "ecall_list.hpp"
#include "subsystems.hpp"
#include "riscv/csr.hpp"
#include "services.hpp"

namespace sbi {

using fw::FenceKind;

namespace {
fw::FwEvent sent_event(FenceKind k) {
    using fw::FwEvent;
    switch (k) {
    case FenceKind::fence_i: return FwEvent::fence_i_sent;
    case FenceKind::sfence_vma: return FwEvent::sfence_vma_sent;
    case FenceKind::sfence_vma_asid: return FwEvent::sfence_vma_asid_sent;
    case FenceKind::hfence_gvma_vmid: return FwEvent::hfence_gvma_vmid_sent;
    case FenceKind::hfence_gvma: return FwEvent::hfence_gvma_sent;
    case FenceKind::hfence_vvma_asid: return FwEvent::hfence_vvma_asid_sent;
    case FenceKind::hfence_vvma: return FwEvent::hfence_vvma_sent;
    }
    return FwEvent::fence_i_sent;
}
} // namespace

SbiRet rfence(FenceKind kind, const HartBitmap *targets, unsigned long start, unsigned long size,
              unsigned long id) {
    // The whole address space when start and size are 0 or size is all-ones
    // (ext-rfence.adoc); otherwise the range's last byte must not wrap
    // around (a range may end exactly at 2^XLEN).
    bool all = (start == 0 && size == 0) || size == ~0ul;
    if (!all && size && start + (size - 1) < start) return err(Error::InvalidAddress);
    fw::FenceRequest req{kind, start, size, id, 0};
    if (kind == FenceKind::hfence_vvma || kind == FenceKind::hfence_vvma_asid) {
        req.vmid = (csr_read(csr::hgatp) >> csr::atp::VMID_SHIFT) & csr::atp::VMID_MASK;
    }
    // One "sent" firmware event per target hart, as for IPIs.
    const fw::FwEvent sent = sent_event(kind);
    if (!targets) { // the calling hart alone
        fw::subsystems::fw_event(sent);
        fw::local_fence(req);
        return ok();
    }
    for (unsigned w = 0, n = fw::hart_words(); w < n; w++)
        for (unsigned long m = targets->w[w]; m; m &= m - 1) fw::subsystems::fw_event(sent);
    fw::remote_fence(req, targets->w);
    return ok();
}

namespace {
enum : unsigned long {
    REMOTE_FENCE_I = 0,
    REMOTE_SFENCE_VMA = 1,
    REMOTE_SFENCE_VMA_ASID = 2,
    REMOTE_HFENCE_GVMA_VMID = 3,
    REMOTE_HFENCE_GVMA = 4,
    REMOTE_HFENCE_VVMA_ASID = 5,
    REMOTE_HFENCE_VVMA = 6,
};

SbiRet handle(unsigned long mask, unsigned long base, unsigned long start, unsigned long size,
              unsigned long id, unsigned long, unsigned long fid) {
    if (fid > REMOTE_HFENCE_VVMA) return err(Error::NotSupported);
    const fw::HartState &h = fw::this_hart();
    bool hyp = fid >= REMOTE_HFENCE_GVMA_VMID;
    // Hypervisor fences need the H extension on the calling hart.
    if (hyp && !fw::this_has(fw::EXT_H)) return err(Error::NotSupported);
    // The calling hart alone (hartmask.hpp): no bitmap to build and walk,
    // t stays null. `present` is the calling hart's bit of hart_valid_bits.
    HartBitmap bitmap;
    const HartBitmap *t = nullptr;
    if (!mask_is_only(mask, base, fw::current_hartid())) {
        if (Error e = targets_from_mask(mask, base, bitmap); e != Error::Success) return err(e);
        t = &bitmap;
    } else if (!h.present) {
        return err(Error::InvalidParam);
    }
    switch (fid) {
    case REMOTE_FENCE_I: return rfence(FenceKind::fence_i, t, 0, 0, 0);
    case REMOTE_SFENCE_VMA: return rfence(FenceKind::sfence_vma, t, start, size, 0);
    case REMOTE_SFENCE_VMA_ASID:
        if (id > h.asid_max) return err(Error::InvalidParam);
        return rfence(FenceKind::sfence_vma_asid, t, start, size, id);
    case REMOTE_HFENCE_GVMA_VMID:
        if (id > h.vmid_max) return err(Error::InvalidParam);
        return rfence(FenceKind::hfence_gvma_vmid, t, start, size, id);
    case REMOTE_HFENCE_GVMA: return rfence(FenceKind::hfence_gvma, t, start, size, 0);
    case REMOTE_HFENCE_VVMA_ASID:
        if (id > h.asid_max) return err(Error::InvalidParam);
        return rfence(FenceKind::hfence_vvma_asid, t, start, size, id);
    default: return rfence(FenceKind::hfence_vvma, t, start, size, 0);
    }
}
} // namespace

extern const Extension sbi_ext_rfence = {nullptr, handle};
} // namespace sbi
