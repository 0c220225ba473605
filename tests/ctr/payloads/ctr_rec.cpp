// SPDX-License-Identifier: BSD-2-Clause
// CTR behaviour S-mode observes in the same way on a hart with ratified CTR
// and on one where the firmware emulates it: traps the firmware redirects to
// S-mode are recorded (synthesized records), traps into M-mode are not,
// breakpoints freeze with BPFRZ, and the Linux driver's sequence. Uses the
// ratified registers.
#include "ctr_pl.hpp"

PAYLOAD_NAME("ctr_rec");

using namespace pl;
using namespace ctrpl;
namespace rc = ctr::ratified::ctl;
namespace rs = ctr::ratified::status;

namespace {

// Records exceptions only: the trap handler's own transfers and sret are
// inhibited, so the buffer shows exactly the traps.
constexpr unsigned long kOnlyExc = rc::S | (rc::FILTERS & ~rc::EXCINH & ~rc::NTBREN);

unsigned wrptr() { return sctrstatus::read().value & rs::WRPTR; }
void reset() {
    sctrctl::write(0);
    sctrdepth::write(0);
    sctrstatus::write(0);
    sctrclr();
}
unsigned long stvec_base() {
    unsigned long v;
    asm volatile("csrr %0, stvec" : "=r"(v));
    return v & ~3ul;
}

volatile unsigned long g_pc;
// A CSR no hart implements (custom read-write range, 0x5C0): illegal, and
// the firmware redirects it to S-mode.
__attribute__((noinline)) void do_illegal(void *) {
    asm volatile("   lla t0, 1f\n"
                 "   sd t0, %0\n"
                 "1: csrr t1, 0x5C0\n"
                 : "=m"(g_pc)
                 :
                 : "t0", "t1", "memory");
}
__attribute__((noinline)) void do_ebreak(void *) {
    asm volatile("   lla t0, 1f\n"
                 "   sd t0, %0\n"
                 "1: ebreak\n"
                 : "=m"(g_pc)
                 :
                 : "t0", "memory");
}

void redirected_trap() {
    reset();
    sctrctl::write(kOnlyExc);
    unsigned long cause = catch_exception(do_illegal, nullptr);
    sctrctl::write(0);
    expect_eq(cause, kIllegal, "redirect/illegal_taken");
    expect_eq(wrptr(), 1, "redirect/one_record");
    unsigned long s = entry(0, 0), t = entry(0, 1), d = entry(0, 2);
    expect_eq(s, g_pc | ctr::entry::source_V, "redirect/source_is_epc");
    expect_eq(t, stvec_base(), "redirect/target_is_stvec");
    expect_eq(d & ctr::entry::data_TYPE, ctr::TYPE_EXCEPTION, "redirect/type_exception");
    // With EXCINH the same trap is not recorded.
    reset();
    sctrctl::write(kOnlyExc | rc::EXCINH);
    catch_exception(do_illegal, nullptr);
    sctrctl::write(0);
    expect_eq(wrptr(), 0, "redirect/excinh");
    // Source mode disabled (U only), target S disabled: nothing.
    reset();
    sctrctl::write(rc::U);
    catch_exception(do_illegal, nullptr);
    sctrctl::write(0);
    expect_eq(wrptr(), 0, "redirect/modes_disabled");
}

void ecall_not_recorded() {
    // S -> M is an external trap (M disabled, MTE=0); the mret from M is
    // not recorded either. Both hold for emulated and real CTR.
    reset();
    sctrctl::write(kOnlyExc | rc::STE);
    sbi_probe(sbi::eid::base);
    sctrctl::write(0);
    expect_eq(wrptr(), 0, "ecall/not_recorded");
}

void breakpoint_freeze() {
    reset();
    sctrctl::write(kOnlyExc | rc::BPFRZ);
    unsigned long cause = catch_exception(do_ebreak, nullptr);
    sctrctl::write(0);
    expect_eq(cause, 3, "bpfrz/ebreak_taken");
    expect_eq(sctrstatus::read().value, rs::FROZEN, "bpfrz/frozen");
    expect_eq(entry(0, 0), 0, "bpfrz/breakpoint_not_recorded");
    // Frozen: a redirected trap is not recorded.
    sctrctl::write(kOnlyExc);
    catch_exception(do_illegal, nullptr);
    sctrctl::write(0);
    expect_eq(sctrstatus::read().value, rs::FROZEN, "bpfrz/frozen_inhibits");
    // Unfrozen, BPFRZ clear: breakpoints are ordinary (not observable by the
    // emulation, so not checked); a redirected trap records again.
    sctrstatus::write(0);
    sctrctl::write(kOnlyExc);
    catch_exception(do_illegal, nullptr);
    sctrctl::write(0);
    expect_eq(wrptr(), 1, "bpfrz/unfrozen_records");
}

void linux_sequence() {
    // drivers/perf/riscv_ctr.c (reference linux.md): depth, filter probe.
    reset();
    sctrdepth::write(ctr::ratified::depth::DEPTH);
    unsigned depth = 16u << sctrdepth::read().value;
    expect_true(depth >= 32 && depth <= 256, "linux/depth_probe");
    unsigned long sup = sctrctl::probe(~0ul);
    expect_eq(sup & rc::FILTERS, rc::FILTERS, "linux/filters_all_supported");
    expect_eq(sup & (rc::LCOFIFRZ | rc::U | rc::S), rc::LCOFIFRZ | rc::U | rc::S,
              "linux/lcofifrz_supported");
    // Two redirected traps, read until V=0, unfreeze, clear.
    sctrctl::write(kOnlyExc | rc::LCOFIFRZ);
    catch_exception(do_illegal, nullptr);
    unsigned long first = g_pc;
    catch_exception(do_illegal, nullptr);
    sctrctl::write(0);
    unsigned n = 0;
    for (unsigned i = 0; i < depth; i++) {
        if (!(entry(i, 0) & ctr::entry::source_V)) break;
        n++;
    }
    expect_eq(n, 2, "linux/read_until_invalid");
    expect_eq(entry(1, 0), first | 1, "linux/older_entry_second");
    sctrstatus::write(sctrstatus::read().value & ~rs::FROZEN);
    expect_eq(sctrstatus::read().value & rs::FROZEN, 0, "linux/frozen_cleared");
    expect_eq(sctrclr(), kNone, "linux/sctrclr");
    expect_eq(entry(0, 0), 0, "linux/cleared");
}

} // namespace

void payload_main() {
    if (!expect_eq(sctrctl::read().cause, kNone, "ratified_ctr_present")) finish();
    // The CPU node says where records come from (tsbi,ctr-source); S-mode
    // (Linux's CTR driver) finds CTR in the device tree where something records,
    // natively or from the encoder, and not where only the registers are
    // (issue 30 item 3; /chosen/tsbi,ctr-registers-only is not set here).
    const char *isa = fdt_isa(), *src = fdt_first("tsbi,ctr-source");
    const bool records = !pl::strcmp(src, "native") || !pl::strcmp(src, "encoder");
    printf("ctr source: %s\n", src);
    expect_true(records || !pl::strcmp(src, "registers"), "dt/ctr_source_named");
    expect_true((isa_has(isa, "ssctr") && isa_has(isa, "sscsrind")) == records,
                records ? "dt/isa_lists_ssctr_sscsrind" : "dt/isa_omits_ssctr_without_source");
    redirected_trap();
    ecall_not_recorded();
    breakpoint_freeze();
    linux_sequence();
    reset();
    finish();
}
