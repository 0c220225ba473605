// SPDX-License-Identifier: BSD-2-Clause
// Legacy extensions (ext-legacy.adoc, EIDs 0x00..0x08): console putchar and
// getchar (required here), and whichever of clear_ipi, send_ipi, the remote
// fences and shutdown the firmware probes as present; an absent one must
// answer NOT_SUPPORTED. Legacy calls return only a0: a1 must be preserved.
// Faults on the hart-mask pointer are "redirected back to the supervisor"
// (or refused with an error without touching it). Ends with the legacy
// shutdown when it is present (the runner checks the power-off).
#include "payload.hpp"
#include "riscv/csr.hpp"

using namespace pl;

PAYLOAD_NAME("legacy");

namespace {

constexpr unsigned long kSsip = 1ul << csr::irq::SSI;

bool present(long e) { return sbi_probe(e).value != 0; }

void console() {
    clause("legacy/console_putchar/writes");
    if (!extension_present(eid::legacy_console_putchar, "putchar/present")) return;
    expect_console_line("putchar/console_text", "legacy-putchar-ok");
    bool zero = true;
    for (const char *s = "legacy-putchar-ok\n"; *s; s++)
        zero &= sbi_legacy(eid::legacy_console_putchar, static_cast<unsigned char>(*s)) == 0;
    expect_true(zero, "putchar/returns_0");

    clause("legacy/console_getchar/reads");
    if (!extension_present(eid::legacy_console_getchar, "getchar/present")) return;
    bool empty = true;
    for (int i = 0; i < 5; i++) empty &= sbi_legacy(eid::legacy_console_getchar) == -1;
    expect_true(empty, "getchar/no_input_returns_minus_1");

    request_input("g!");
    long c1 = -1, c2 = -1;
    wait_until([&] { return (c1 = sbi_legacy(eid::legacy_console_getchar)) != -1; }, kPatience);
    wait_until([&] { return (c2 = sbi_legacy(eid::legacy_console_getchar)) != -1; }, kPatience);
    expect_eq(c1, 'g', "getchar/first_byte");
    expect_eq(c2, '!', "getchar/second_byte");
    expect_eq(sbi_legacy(eid::legacy_console_getchar), (unsigned long)-1,
              "getchar/drained_returns_minus_1");

    clause("legacy/encoding/a1_preserved");
    unsigned long m = pl_ecall_clobbers(eid::legacy_console_getchar, 0, 1, 2, 3, 4, 5, 6);
    expect_eq(m, 0, "getchar/registers_preserved_incl_a1");
}

unsigned long mask_word;

// The legacy hart mask is one XLEN-wide bit-vector from hart 0 (v0.1
// "sbi_send_ipi"): a hart ID of XLEN or more cannot be named (0 then).
unsigned long legacy_bit(unsigned long h) { return h < kXlen ? 1ul << h : 0; }

void ipi() {
    const unsigned long me = hartid();
    clause("legacy/send_ipi/sends");
    if (!present(eid::legacy_send_ipi)) {
        mask_word = legacy_bit(me);
        expect_eq(sbi_legacy(eid::legacy_send_ipi, reinterpret_cast<uintptr_t>(&mask_word)), ERR_NOT_SUPPORTED,
                  "send_ipi/absent_not_supported");
    } else if (me >= kXlen) {
        not_applicable("the boot hart's ID is XLEN or more: the legacy mask cannot name it",
                       "send_ipi/self");
    } else {
        HartIrq &irq = irq_state(me);
        unsigned long before = irq.ssi;
        mask_word = legacy_bit(me);
        expect_eq(sbi_legacy(eid::legacy_send_ipi, reinterpret_cast<uintptr_t>(&mask_word)), 0,
                  "send_ipi/self/returns_0");
        expect_true(wait_until([&] { return irq.ssi != before; }, kPatience), "send_ipi/self/delivered");
        for (unsigned i = 0; i < platform().nharts; i++) {
            unsigned long h = platform().hartids[i];
            if (h == me || h >= kXlen) continue;
            unsigned long b = irq_state(h).ssi;
            mask_word = legacy_bit(h);
            expect_eq(sbi_legacy(eid::legacy_send_ipi, reinterpret_cast<uintptr_t>(&mask_word)),
                      0, "send_ipi/hart%lu/returns_0", h);
            expect_true(wait_until([&] { return irq_state(h).ssi != b; }, kPatience),
                        "send_ipi/hart%lu/delivered", h);
        }
        mask_word = legacy_bit(me);
        unsigned long m = pl_ecall_clobbers(eid::legacy_send_ipi, 0,
                                            reinterpret_cast<uintptr_t>(&mask_word), 2, 3, 4, 5, 6);
        clause("legacy/encoding/a1_preserved");
        expect_eq(m, 0, "send_ipi/registers_preserved_incl_a1");
    }
    clause("legacy/clear_ipi/clears");
    if (!present(eid::legacy_clear_ipi)) {
        expect_eq(sbi_legacy(eid::legacy_clear_ipi), ERR_NOT_SUPPORTED,
                  "clear_ipi/absent_not_supported");
        return;
    }
    // "returns 0 if no IPI had been pending, or an implementation specific
    // positive value if an IPI had been pending".
    bool was = irq_enable(false);
    sbi_send_ipi(1, me);
    wait_until([] { return (csr_read(csr::sip) & kSsip) != 0; }, kPatience);
    long r = sbi_legacy(eid::legacy_clear_ipi);
    expect_true(r > 0, "clear_ipi/positive_when_pending");
    expect_true((csr_read(csr::sip) & kSsip) == 0, "clear_ipi/clears_ssip");
    expect_eq(sbi_legacy(eid::legacy_clear_ipi), 0, "clear_ipi/zero_when_none");
    irq_enable(was);
}

struct FenceEid {
    const char *name;
    long eid;
};
const FenceEid kFences[] = {{"remote_fence_i", eid::legacy_remote_fence_i},
                            {"remote_sfence_vma", eid::legacy_remote_sfence_vma},
                            {"remote_sfence_vma_asid", eid::legacy_remote_sfence_vma_asid}};

void fences() {
    unsigned long all = 0;
    for (unsigned i = 0; i < platform().nharts; i++) all |= legacy_bit(platform().hartids[i]);
    for (const FenceEid &f : kFences) {
        clause("legacy/%s/returns", f.name);
        mask_word = all;
        unsigned long p = reinterpret_cast<uintptr_t>(&mask_word);
        if (!present(f.eid)) {
            expect_eq(sbi_legacy(f.eid, p, 0, 0, 1), ERR_NOT_SUPPORTED, "%s/absent_not_supported",
                      f.name);
            continue;
        }
        expect_eq(sbi_legacy(f.eid, p, 0, 0, 1), 0, "%s/all_harts/returns_0", f.name);
        expect_eq(sbi_legacy(f.eid, p, 0x1000, 0x2000, 1), 0, "%s/range/returns_0", f.name);
        expect_eq(sbi_legacy(f.eid, p, 0, ~0ul, 1), 0, "%s/size_max/returns_0", f.name);
    }
}

// The hart-mask pointer points outside RAM or is misaligned: the firmware
// must not read it for S-mode. Either the access fault is redirected to
// S-mode at the ecall, or the call fails without access.
struct PtrCall {
    long eid;
    unsigned long ptr;
    long ret;
};
void call_with_ptr(void *arg) {
    auto *c = static_cast<PtrCall *>(arg);
    c->ret = sbi_legacy(c->eid, c->ptr, 0, 0, 1);
}
void bad_pointers() {
    const Platform &p = platform();
    struct Ptr {
        const char *name;
        unsigned long addr;
    };
    const Ptr ptrs[] = {{"ram_end", p.ram_base + p.ram_size},
                        {"misaligned", reinterpret_cast<uintptr_t>(&mask_word) + 1}};
    const long eids[] = {eid::legacy_send_ipi, eid::legacy_remote_fence_i,
                         eid::legacy_remote_sfence_vma, eid::legacy_remote_sfence_vma_asid};
    clause("legacy/hart_mask/bad_pointer");
    for (long e : eids) {
        if (!present(e)) continue;
        for (const Ptr &q : ptrs) {
            PtrCall c{e, q.addr, 0x7777};
            unsigned long tval = 0;
            unsigned long cause = catch_exception(call_with_ptr, &c, &tval);
            bool redirected = cause == csr::cause::load_access || cause == csr::cause::load_misaligned;
            bool refused = cause == ~0ul && c.ret < 0;
            // A misaligned mask read that the firmware performs correctly
            // (byte-wise or by emulation) is also fine.
            bool handled = cause == ~0ul && c.ret == 0 &&
                           !strcmp(q.name, "misaligned");
            char why[120];
            snprintf(why, sizeof why, "exception cause 0x%lx tval 0x%lx, a0 %ld", cause, tval,
                     c.ret);
            if (redirected || refused || handled) pass("bad_pointer/eid%ld/%s", e, q.name);
            else fail(why, "bad_pointer/eid%ld/%s", e, q.name);
        }
        expect_alive("bad_pointer/eid%ld", e);
    }
}

// A hart-mask pointer into firmware memory must look exactly like memory
// S-mode cannot access: the load access fault redirected to S-mode at the
// ecall, with the pointer as stval, never an error code computed from the
// bytes (issue 13: on QEMU 7.2 the page holding the firmware's MPRV load
// routine was readable that way). One pointer per page of the firmware
// region, at varying 8-byte-aligned offsets, for every legacy call that
// takes a hart mask.
void firmware_pointers() {
    const Platform &p = platform();
    const long eids[] = {eid::legacy_send_ipi, eid::legacy_remote_fence_i,
                         eid::legacy_remote_sfence_vma, eid::legacy_remote_sfence_vma_asid};
    clause("isolation/firmware_memory/legacy_hart_mask");
    for (long e : eids) {
        if (!present(e)) continue;
        unsigned long bad = 0, first_ptr = 0, first_cause = 0, first_tval = 0;
        long first_ret = 0;
        for (unsigned long off = 0, i = 0; off < p.fw_size; off += 4096, i++) {
            unsigned long ptr = p.fw_base + off + ((i * 0x238) & 0xff8);
            PtrCall c{e, ptr, 0x7777};
            unsigned long tval = 0;
            unsigned long cause = catch_exception(call_with_ptr, &c, &tval);
            if (cause == csr::cause::load_access && tval == ptr) continue;
            if (!bad++) first_ptr = ptr, first_cause = cause, first_tval = tval, first_ret = c.ret;
        }
        char why[160];
        snprintf(why, sizeof why, "%lu pages; first 0x%lx: cause 0x%lx tval 0x%lx a0 %ld", bad,
                 first_ptr, first_cause, first_tval, first_ret);
        if (bad) fail(why, "fw_pointer/eid%ld/every_page_access_fault", e);
        else pass("fw_pointer/eid%ld/every_page_access_fault", e);
        expect_alive("fw_pointer/eid%ld", e);
    }
}

} // namespace

void payload_main() {
    if (platform().nharts > 1) start_secondaries();
    console();
    ipi();
    fences();
    bad_pointers();
    firmware_pointers();
    if (present(eid::legacy_shutdown)) {
        note("ending with the legacy shutdown (EID 0x08)");
        finish(Shutdown::legacy);
    }
    note("legacy shutdown not probed; ending with SRST");
}
