// SPDX-License-Identifier: BSD-2-Clause
// Inter-hart work in M-mode: S-mode IPIs, remote fences and HSM wake-ups all
// travel as a bit in the target's ipi_pending plus an M-level interrupt:
// the machine software interrupt (CLINT, ACLINT MSWI), or on AIA machines
// the machine external interrupt of the hart's IMSIC file
// (platform::ipi_irq_bit). Remote fences need no lock: each sender publishes one request in
// its own HartState, marks itself in each target's fence_from bitmap and waits
// until every target has processed it, serving its own incoming requests
// meanwhile (so two harts fencing each other cannot deadlock).
#include "hart.hpp"
#include "subsystems.hpp"
#include "platform.hpp"
#include "riscv/csr.hpp"

namespace fw {

void send_ipi_at(unsigned index, unsigned long why) {
    HartState &h = hart_at(index);
    h.ipi_pending.fetch_or(why, fw::memory_order_release);
    platform::ipi_send(h.hartid);
}

void send_ipi(unsigned long hartid, unsigned long why) { send_ipi_at(hart_index(hartid), why); }

// Above this many pages a full flush is cheaper than page-by-page fences.
unsigned long max_page_fences = 64;

namespace {

constexpr unsigned long kPage = 4096;

// The pages a fence covers: `count` pages from `first`, or the whole address
// space (ext-rfence.adoc: start and size both 0, or size 2^XLEN-1). Counting
// pages instead of comparing addresses against an end keeps the loops finite
// for a range in the last page of the address space, where `first + kPage`
// wraps to 0 (sbi::rfence() already refuses ranges whose last byte wraps;
// one that would still is flushed whole).
struct PageSpan {
    bool all;
    unsigned long first, count;
};
PageSpan fence_pages(const FenceRequest &r) {
    if ((r.start == 0 && r.size == 0) || r.size == ~0ul) return {true, 0, 0};
    if (r.size == 0) return {false, 0, 0};
    unsigned long last = r.start + (r.size - 1);
    if (last < r.start) return {true, 0, 0};
    unsigned long first = r.start & ~(kPage - 1);
    unsigned long count = (last / kPage) - (first / kPage) + 1;
    if (count > max_page_fences) return {true, 0, 0};
    return {false, first, count};
}

void execute_fence(const FenceRequest &r) {
    using fw::FwEvent;
    if (r.kind == FenceKind::fence_i) { // the whole hart: no range to work out
        subsystems::fw_event(FwEvent::fence_i_received);
        asm volatile("fence.i" ::: "memory");
        return;
    }
    const PageSpan span = fence_pages(r);
    const bool all = span.all;
    switch (r.kind) {
    case FenceKind::fence_i: break; // above
    case FenceKind::sfence_vma:
        subsystems::fw_event(FwEvent::sfence_vma_received);
        if (all)
            asm volatile("sfence.vma" ::: "memory");
        else
            for (unsigned long i = 0, a = span.first; i < span.count; i++, a += kPage)
                asm volatile("sfence.vma %0" ::"r"(a) : "memory");
        break;
    case FenceKind::sfence_vma_asid:
        subsystems::fw_event(FwEvent::sfence_vma_asid_received);
        if (all)
            asm volatile("sfence.vma zero, %0" ::"r"(r.id) : "memory");
        else
            for (unsigned long i = 0, a = span.first; i < span.count; i++, a += kPage)
                asm volatile("sfence.vma %0, %1" ::"r"(a), "r"(r.id) : "memory");
        break;
    // Hypervisor fences (H extension). Encodings: hfence.gvma rs1, rs2 =
    // 0x62000073 | rs2 << 20 | rs1 << 15; hfence.vvma = 0x22000073 | ...
    // (written as .insn so no H-aware assembler is needed). The gvma address
    // operand is a guest physical address shifted right by 2.
    case FenceKind::hfence_gvma_vmid:
    case FenceKind::hfence_gvma: {
        bool vmid = r.kind == FenceKind::hfence_gvma_vmid;
        subsystems::fw_event(vmid ? FwEvent::hfence_gvma_vmid_received
                                  : FwEvent::hfence_gvma_received);
        unsigned long id = vmid ? r.id : 0;
        if (all) {
            if (vmid)
                asm volatile(".insn r 0x73, 0, 0x31, x0, x0, %0" ::"r"(id) : "memory");
            else
                asm volatile(".insn r 0x73, 0, 0x31, x0, x0, x0" ::: "memory");
        } else {
            for (unsigned long i = 0, a = span.first; i < span.count; i++, a += kPage) {
                unsigned long ga = a >> 2;
                if (vmid)
                    asm volatile(".insn r 0x73, 0, 0x31, x0, %0, %1" ::"r"(ga), "r"(id) : "memory");
                else
                    asm volatile(".insn r 0x73, 0, 0x31, x0, %0, x0" ::"r"(ga) : "memory");
            }
        }
        break;
    }
    case FenceKind::hfence_vvma_asid:
    case FenceKind::hfence_vvma: {
        bool asid = r.kind == FenceKind::hfence_vvma_asid;
        subsystems::fw_event(asid ? FwEvent::hfence_vvma_asid_received
                                  : FwEvent::hfence_vvma_received);
        // hfence.vvma applies to the VMID in hgatp: use the caller's VMID
        // (SBI RFENCE: "the current VMID of the calling hart").
        constexpr unsigned long kVmid = csr::atp::VMID_MASK << csr::atp::VMID_SHIFT;
        unsigned long saved = csr_read(csr::hgatp);
        csr_write(csr::hgatp, (saved & ~kVmid) | (r.vmid << csr::atp::VMID_SHIFT));
        if (all) {
            if (asid)
                asm volatile(".insn r 0x73, 0, 0x11, x0, x0, %0" ::"r"(r.id) : "memory");
            else
                asm volatile(".insn r 0x73, 0, 0x11, x0, x0, x0" ::: "memory");
        } else {
            for (unsigned long i = 0, a = span.first; i < span.count; i++, a += kPage) {
                if (asid)
                    asm volatile(".insn r 0x73, 0, 0x11, x0, %0, %1" ::"r"(a), "r"(r.id) : "memory");
                else
                    asm volatile(".insn r 0x73, 0, 0x11, x0, %0, x0" ::"r"(a) : "memory");
            }
        }
        csr_write(csr::hgatp, saved);
        break;
    }
    }
}

void process_fences(HartState &self) {
    for (unsigned w = 0, n = hart_words(); w < n; w++) {
        unsigned long from = self.fence_from[w].exchange(0, fw::memory_order_acquire);
        while (from) {
            unsigned bit = __builtin_ctzl(from);
            from &= from - 1;
            HartState &sender = hart_at(w * kXlen + bit);
            execute_fence(sender.fence_req);
            sender.fence_waiting.fetch_sub(1, fw::memory_order_release);
        }
    }
}

} // namespace

void process_ipis() {
    HartState &self = hart_at(this_index());
    platform::ipi_clear(self.hartid);
    unsigned long why = self.ipi_pending.exchange(0, fw::memory_order_acquire);
    if (why & IPI_FENCE) process_fences(self);
    if (why & IPI_SMODE) {
        subsystems::fw_event(fw::FwEvent::ipi_received);
        csr_set(csr::mip, 1ul << csr::irq::SSI);
    }
}

void process_timer() {
    // Without Sstc the S-mode timer is forwarded: stop the machine timer
    // interrupt and raise STIP; sbi_set_timer re-arms it.
    csr_clear(csr::mie, 1ul << csr::irq::MTI);
    csr_set(csr::mip, 1ul << csr::irq::STI);
}

namespace {
// remote_fence() for a request some other hart must run too: publish it,
// signal each of `others`, run it here if `local`, and wait for them all.
// Kept out of line so the common case, a fence for the calling hart alone,
// saves no registers for it.
[[gnu::noinline]] void fence_with_others(const FenceRequest &req, const unsigned long *others,
                                         bool local) {
    const unsigned self_index = this_index(), words = hart_words();
    HartState &self = hart_at(self_index);
    unsigned count = 0;
    for (unsigned w = 0; w < words; w++) count += __builtin_popcountl(others[w]);
    self.fence_req = req;
    self.fence_waiting.store(count, fw::memory_order_relaxed);
    const unsigned self_word = self_index / kXlen;
    const unsigned long self_bit = 1ul << (self_index % kXlen);
    for (unsigned w = 0; w < words; w++) {
        for (unsigned long m = others[w]; m; m &= m - 1) {
            const unsigned h = w * kXlen + __builtin_ctzl(m);
            hart_at(h).fence_from[self_word].fetch_or(self_bit, fw::memory_order_release);
            send_ipi_at(h, IPI_FENCE);
        }
    }
    if (local) execute_fence(req);
    while (self.fence_waiting.load(fw::memory_order_acquire)) {
        if (self.ipi_pending.load(fw::memory_order_relaxed) & IPI_FENCE) {
            self.ipi_pending.fetch_and(~IPI_FENCE, fw::memory_order_acquire);
            process_fences(self);
        }
    }
}
} // namespace

void local_fence(const FenceRequest &req) { execute_fence(req); }

// Runs `req` on every hart of `targets` (a bitmap of hart indices,
// XLEN-wide words), on this hart directly and on the others through IPIs,
// and waits for them.
void remote_fence(const FenceRequest &req, const unsigned long *targets) {
    const unsigned self = this_index();
    const bool local = is_target(targets, self);
    unsigned long others[kHartWords];
    if (others_than(targets, self, others))
        fence_with_others(req, others, local);
    else if (local) // only this hart: no request to publish
        execute_fence(req);
}

} // namespace fw
