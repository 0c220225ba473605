// SPDX-License-Identifier: BSD-2-Clause
// PMU counter overflow and CTR freeze together (Smctr 1.0 "Freeze",
// LCOFIFRZ): an HPM counter configured through the SBI PMU extension
// overflows, the local counter overflow interrupt (LCOFI, Sscofpmf) traps to
// S-mode, and with sctrctl.LCOFIFRZ=1 that trap sets sctrstatus.FROZEN and is
// not recorded; recording stays off until S-mode clears FROZEN. With
// LCOFIFRZ=0 nothing freezes. Runs on a hart with ratified CTR (QEMU 10
// smctr=true; the project QEMU makes LCOFIP visible in sip/sie) and on one
// where the firmware emulates CTR (LCOFI routed through M-mode while the
// freeze is armed, firmware/ctr/README.md "Freeze").
//
// What S-mode can see recorded on both kinds of hart: traps the firmware
// redirects (an illegal CSR). On a native hart also branches and the LCOFI
// trap itself (interrupt records).
#include "../../pmu/payloads/pmu_util.hpp"
#include "ctr_pl.hpp"

PAYLOAD_NAME("ctr_lcofifrz");

using namespace pl;
using namespace ctrpl;
namespace rc = ctr::ratified::ctl;
namespace rs = ctr::ratified::status;

// Filled in by the LCOFI trap vector below.
extern "C" {
volatile unsigned long ctrf_irq_count;  // LCOFIs taken in S-mode
volatile unsigned long ctrf_irq_sip;    // sip at the last one
volatile unsigned long ctrf_irq_status; // sctrstatus at the last one
void ctrf_vector();
void pl_trap_vector();
}

// S-mode trap vector: an LCOFI is counted, sip and sctrstatus sampled,
// sip.LCOFIP cleared (Sscofpmf: S-mode clears it when delegated), and sret;
// everything else goes to the payload library's vector. Only t0/t1 are
// used, saved on the stack.
asm(R"(
    .text
    .align 2
    .globl ctrf_vector
ctrf_vector:
    addi    sp, sp, -16
    sd      t0, 0(sp)
    sd      t1, 8(sp)
    csrr    t0, scause
    li      t1, 0x800000000000000d
    bne     t0, t1, 1f
    csrr    t0, sip
    sd      t0, ctrf_irq_sip, t1
    csrr    t0, 0x14F
    sd      t0, ctrf_irq_status, t1
    ld      t0, ctrf_irq_count
    addi    t0, t0, 1
    sd      t0, ctrf_irq_count, t1
    li      t0, 0x2000
    csrc    sip, t0
    ld      t0, 0(sp)
    ld      t1, 8(sp)
    addi    sp, sp, 16
    sret
1:  ld      t0, 0(sp)
    ld      t1, 8(sp)
    addi    sp, sp, 16
    j       pl_trap_vector
)");

namespace {

constexpr unsigned long kLcofip = 1ul << csr::irq::LCOFI;
constexpr unsigned long kIrqCause = csr::cause::interrupt_bit | csr::irq::LCOFI;
static_assert(kLcofip == 0x2000 && kIrqCause == 0x800000000000000dul, "ctrf_vector constants");
constexpr unsigned kH = 3; // QEMU's DT maps the TLB events on hpmcounter3..18
// Exceptions and interrupts recorded; branches, jumps, calls, returns and
// trap returns inhibited, so the buffer shows exactly the traps.
constexpr unsigned long kTraps = rc::S | (rc::FILTERS & ~rc::EXCINH & ~rc::INTRINH & ~rc::NTBREN);

bool native;

unsigned wrptr() { return sctrstatus::read().value & rs::WRPTR; }
unsigned long frozen() { return sctrstatus::read().value & rs::FROZEN; }
void reset() {
    sctrctl::write(0);
    sctrdepth::write(0);
    sctrstatus::write(0);
    sctrclr();
}

volatile unsigned long g_pc;
// A CSR no hart implements: illegal, redirected to S-mode by the firmware,
// recorded as an exception on both kinds of hart.
__attribute__((noinline)) void do_illegal(void *) {
    asm volatile("   lla t0, 1f\n"
                 "   sd t0, %0\n"
                 "1: csrr t1, 0x5C0\n"
                 : "=m"(g_pc)
                 :
                 : "t0", "t1", "memory");
}
unsigned long illegal_trap() { return catch_exception(do_illegal, nullptr); }

// Branch-free enable with `ctl`, a taken branch and a direct jump, disable:
// two records on a native hart when recording is on.
__attribute__((noinline)) void branches(unsigned long ctl) {
    asm volatile("   csrw 0x14E, %0\n"
                 "   beq zero, zero, 1f\n"
                 "   nop\n"
                 "1: jal zero, 2f\n"
                 "   nop\n"
                 "2: csrw 0x14E, zero\n" ::"r"(ctl)
                 : "memory");
}

unsigned long tlb_area() { return (image_end() + (1ul << 20)) & ~0xffful; }

// Lets counter kH overflow (DTLB read misses from just below 2^64) and waits
// for the LCOFI count to reach `want`.
bool overflow(unsigned long want) {
    pmupl::start(kH, 1, pmupl::START_SET_INIT_VALUE, ~0ull - 3);
    pmupl::touch_pages(tlb_area(), 1024);
    bool ok = wait_until([want] { return ctrf_irq_count >= want; }, kPatience);
    pmupl::stop(kH, 1);
    if (!ok)
        note("no LCOFI: sip 0x%lx sie 0x%lx sstatus 0x%lx scountovf 0x%lx counter 0x%lx",
             csr_read(csr::sip), csr_read(csr::sie), csr_read(csr::sstatus),
             csr_read(csr::scountovf), pmupl::read_counter(kH));
    return ok;
}

void freeze() {
    reset();
    unsigned long n0 = ctrf_irq_count;
    sctrctl::write(kTraps | rc::LCOFIFRZ);
    illegal_trap();
    unsigned long first = g_pc;
    expect_eq(wrptr(), 1, "frz/records_before_overflow");

    if (!expect_true(overflow(n0 + 1), "frz/lcofi_taken_in_smode")) return;
    expect_eq(ctrf_irq_count, n0 + 1, "frz/one_lcofi");
    expect_true(ctrf_irq_sip & kLcofip, "frz/handler_saw_sip_lcofip");
    expect_true(ctrf_irq_status & rs::FROZEN, "frz/frozen_in_handler");
    expect_eq(frozen(), rs::FROZEN, "frz/frozen");
    expect_eq(csr_read(csr::sip) & kLcofip, 0, "frz/lcofip_cleared_by_handler");
    // The LCOFI trap itself is not recorded (interrupts are not inhibited).
    expect_eq(wrptr(), 1, "frz/lcofi_trap_not_recorded");

    // Frozen: neither a trap nor (native) branches are recorded.
    illegal_trap();
    expect_eq(wrptr(), 1, "frz/trap_not_recorded_while_frozen");
    expect_eq(entry(0, 0), first | ctr::entry::source_V, "frz/entry_kept_while_frozen");
    if (native) {
        branches(rc::S | rc::LCOFIFRZ);
        expect_eq(wrptr(), 1, "frz/branches_not_recorded_while_frozen");
        sctrctl::write(kTraps | rc::LCOFIFRZ);
    }
    expect_eq(frozen(), rs::FROZEN, "frz/still_frozen");

    // Software clears FROZEN: recording resumes.
    sctrstatus::write(sctrstatus::read().value & ~rs::FROZEN);
    expect_eq(frozen(), 0, "frz/cleared");
    illegal_trap();
    expect_eq(wrptr(), 2, "frz/trap_recorded_after_clear");
    expect_eq(entry(0, 0), g_pc | ctr::entry::source_V, "frz/new_entry_after_clear");
    expect_eq(entry(1, 0), first | ctr::entry::source_V, "frz/old_entry_after_clear");
    if (native) {
        branches(rc::S | rc::LCOFIFRZ);
        expect_eq(wrptr(), 4, "frz/branches_recorded_after_clear");
        sctrctl::write(kTraps | rc::LCOFIFRZ);
    }

    // The freeze is armed again: the next overflow freezes again.
    unsigned w = wrptr();
    if (!expect_true(overflow(n0 + 2), "frz/second_lcofi_taken")) return;
    expect_true(ctrf_irq_status & rs::FROZEN, "frz/second_frozen_in_handler");
    expect_eq(frozen(), rs::FROZEN, "frz/refrozen");
    illegal_trap();
    expect_eq(wrptr(), w, "frz/second_freeze_inhibits");
    sctrstatus::write(0);
}

void no_freeze() {
    reset();
    unsigned long n0 = ctrf_irq_count;
    sctrctl::write(kTraps);
    if (!expect_true(overflow(n0 + 1), "nofrz/lcofi_taken_in_smode")) return;
    expect_true(ctrf_irq_sip & kLcofip, "nofrz/handler_saw_sip_lcofip");
    expect_eq(ctrf_irq_status & rs::FROZEN, 0, "nofrz/not_frozen_in_handler");
    expect_eq(frozen(), 0, "nofrz/not_frozen");
    unsigned w = wrptr();
    if (native) {
        // A native hart records the LCOFI trap: an interrupt into the vector.
        bool found = false;
        for (unsigned i = 0; i < w; i++) {
            unsigned long t = entry(i, 1), d = entry(i, 2);
            found |= (d & ctr::entry::data_TYPE) == ctr::TYPE_INTERRUPT &&
                     t == reinterpret_cast<unsigned long>(&ctrf_vector);
        }
        expect_true(found, "nofrz/lcofi_trap_recorded");
    }
    illegal_trap();
    expect_eq(wrptr(), w + 1, "nofrz/trap_recorded");
    // LCOFIFRZ set later without an overflow does not freeze either.
    sctrctl::write(kTraps | rc::LCOFIFRZ);
    illegal_trap();
    expect_eq(frozen(), 0, "nofrz/lcofifrz_alone_does_not_freeze");
    expect_eq(wrptr(), w + 2, "nofrz/lcofifrz_alone_records");
}

// What the test needs of the hart (Sscofpmf): sie.LCOFIE writable and
// sip.LCOFIP settable and clearable by S-mode while LCOFI is delegated.
// Checked with interrupts off, so a hart that fails cannot storm. Leaves
// sie.LCOFIE set when usable: it must be set before any LCOFIFRZ write, as
// while the emulated freeze is armed the firmware keeps LCOFI in M-mode and
// sie.LCOFIE reads 0 to S-mode.
bool lcofi_usable() {
    bool was_on = irq_enable(false);
    sie_set(kLcofip);
    bool ie = csr_read(csr::sie) & kLcofip;
    csr_set(csr::sip, kLcofip);
    bool set = csr_read(csr::sip) & kLcofip;
    csr_clear(csr::sip, kLcofip);
    bool cleared = !(csr_read(csr::sip) & kLcofip);
    if (!ie || !cleared) sie_clear(kLcofip);
    irq_enable(was_on);
    expect_true(ie, "hart/sie_lcofie_writable");
    expect_true(set && cleared, "hart/sip_lcofip_set_and_clear");
    return ie && cleared;
}

} // namespace

void payload_main() {
    if (!expect_eq(sctrctl::read().cause, kNone, "ratified_ctr_present")) finish();
    const char *isa = fdt_isa();
    if (!expect_true(isa_has(isa, "sscofpmf"), "dt/isa_lists_sscofpmf")) finish();
    native = isa_has(isa, "smctr");
    note("%s CTR", native ? "native" : "emulated");

    if (!expect_ret(pmupl::match(kH, 1, pmupl::CFG_CLEAR_VALUE, pmupl::kDtlbRdMiss), SUCCESS, kH,
                    "pmu/config_dtlb_read_miss"))
        finish();

    unsigned long old_stvec = csr_read(csr::stvec);
    csr_write(csr::stvec, reinterpret_cast<unsigned long>(&ctrf_vector));
    csr_clear(csr::sip, kLcofip);
    if (!lcofi_usable()) {
        csr_write(csr::stvec, old_stvec);
        finish();
    }
    bool was_on = irq_enable(true);

    freeze();
    no_freeze();

    reset();
    irq_enable(was_on);
    sie_clear(kLcofip);
    pmupl::stop(kH, 1, pmupl::STOP_RESET);
    csr_clear(csr::sip, kLcofip);
    csr_write(csr::stvec, old_stvec);
    expect_alive("alive/after_lcofifrz");
    finish();
}
