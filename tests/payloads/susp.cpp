// SPDX-License-Identifier: BSD-2-Clause
// SUSP extension (ext-sys-suspend.adoc): system_suspend to RAM with every
// other hart stopped, resuming at resume_addr with the spec's register
// state after the wake-up interrupt; reserved and platform-specific sleep
// types, DENIED while another hart runs, invalid resume addresses.
#include "payload.hpp"
#include "riscv/csr.hpp"

using namespace pl;

PAYLOAD_NAME("susp");

namespace {

constexpr unsigned long kSie = csr::mstatus_bits::SIE;
constexpr unsigned long kStip = 1ul << csr::irq::STI;
// Table "SUSP System Sleep Types".
constexpr unsigned long SUSPEND_TO_RAM = 0;
// sleep_type is 32 bits wide: bits above must be ignored (binary-encoding.adoc).

long system_suspend_at(unsigned long type, unsigned long addr, EntryState *seen) {
    return suspend_call(eid::susp, fid::susp::system_suspend, type, addr, seen);
}

// Arms a wake-up timer with S-mode interrupts off (the suspend must not
// miss it); returns the previous SIE.
bool arm_timer(unsigned long us) {
    bool was = irq_enable(false);
    sbi_set_timer(rdtime() + us_to_ticks(us));
    sie_set(kStip);
    return was;
}
void disarm_timer(bool was) {
    sie_clear(kStip);
    sbi_set_timer(~0ull);
    irq_enable(was);
}

// One call that must fail with `want` (a timer and the library's resume
// entry make a wrong suspend come back, so the case fails instead of hanging).
// In conformance mode `alt` is accepted too (the spec allows both).
long try_suspend(unsigned long type, unsigned long addr) {
    bool was = arm_timer(5000);
    long r = system_suspend_at(type, addr, nullptr);
    disarm_timer(was);
    return r;
}
void expect_refused(unsigned long type, unsigned long addr, long want, const char *name,
                    long alt = SUCCESS) {
    long r = try_suspend(type, addr);
    if (alt != SUCCESS && conformance_mode() && r == alt) r = want;
    expect_eq(r, want, "%s", name);
}

void invalid_types() {
    // Reserved types: INVALID_PARAM is the only answer.
    clause("susp/system_suspend/INVALID_PARAM");
    const unsigned long reserved[] = {0x00000001, 0x0FFFFFFF, 0x7FFFFFFF};
    char name[64];
    for (unsigned long t : reserved) {
        snprintf(name, sizeof name, "sleep_type_0x%lx/invalid_param", t);
        expect_refused(t, resume_entry(), ERR_INVALID_PARAM, name);
    }
    // Platform-specific types: INVALID_PARAM when unimplemented (tsbi, QEMU
    // virt), NOT_SUPPORTED when implemented but a dependency is missing; a
    // firmware that implements one may also suspend, and the library's
    // resume entry brings the call back as 1 (the timer wakes it).
    clause("susp/system_suspend/platform_specific");
    const unsigned long platform_types[] = {0x80000000, 0x8FFFFFFF, 0xFFFFFFFF};
    for (unsigned long t : platform_types) {
        snprintf(name, sizeof name, "sleep_type_0x%lx/invalid_param", t);
        long r = try_suspend(t, resume_entry());
        if (conformance_mode() && (r == ERR_NOT_SUPPORTED || r == 1)) {
            info(name, "platform-specific sleep type 0x%lx: %s", t,
                 r == 1 ? "suspended and resumed" : "NOT_SUPPORTED");
            continue;
        }
        expect_eq(r, ERR_INVALID_PARAM, "%s", name);
    }
    // sleep_type is uint32_t: garbage above bit 31 leaves a reserved type.
    clause("encoding/32bit_args/sleep_type");
    snprintf(name, sizeof name, "sleep_type_0x%lx/invalid_param", kUpper32 | 0x00000001);
    expect_refused(kUpper32 | 0x00000001, resume_entry(), ERR_INVALID_PARAM, name);
    snprintf(name, sizeof name, "sleep_type_0x%lx/invalid_param", kUpper32 | 0x80000000);
    expect_refused(kUpper32 | 0x80000000, resume_entry(), ERR_INVALID_PARAM, name,
                   ERR_NOT_SUPPORTED);
    clause("encoding/unknown_fid/not_supported");
    expect_err(sbi_call(eid::susp, 1, 0, resume_entry(), 0), ERR_NOT_SUPPORTED,
               "fid1_not_supported");
    expect_err(sbi_call(eid::susp, -1, 0, resume_entry(), 0), ERR_NOT_SUPPORTED,
               "fid_minus1_not_supported");
    expect_alive("invalid_types");
}

bool stop_secondaries(const char *when) {
    const Platform &p = platform();
    bool ok = true;
    for (unsigned i = 0; i < p.nharts; i++)
        if (p.hartids[i] != hartid()) ok &= stop_secondary(p.hartids[i]);
    return expect_true(ok, "%s/secondaries_stopped", when);
}

// Every other hart started, or one of them: DENIED, and before the address
// check (a bad address with running harts is DENIED too).
void denied_while_running(const char *when) {
    char name[80];
    clause("susp/system_suspend/DENIED");
    snprintf(name, sizeof name, "%s/denied/all_running", when);
    expect_refused(SUSPEND_TO_RAM, resume_entry(), ERR_DENIED, name);
    // The spec does not order its checks: which error wins when two apply
    // is tsbi's choice (the type first, then the entry criteria, then the
    // address), so any of them is information in a conformance run.
    clause("susp/system_suspend/check_order");
    snprintf(name, sizeof name, "%s/denied/before_invalid_address", when);
    expect_refused(SUSPEND_TO_RAM, platform().fw_base, ERR_DENIED, name);
    snprintf(name, sizeof name, "%s/denied/invalid_type_first", when);
    expect_refused(1, resume_entry(), ERR_INVALID_PARAM, name);
    clause("susp/system_suspend/DENIED");
    expect_alive("%s/denied", when);
}

// A retentive HSM suspend until the boot hart's IPI. A timer of 300 ms
// used to end it, and on a loaded host the hart woke before the boot hart
// saw it SUSPENDED; the timer now only ends a suspend whose IPI was lost.
void suspended_job(void *) {
    bool was = arm_timer(patience_us());
    sbi_hart_suspend(0, 0, 0);
    disarm_timer(was);
}

// One secondary left running (the last), the others stopped.
void denied_one_running() {
    const Platform &p = platform();
    unsigned long keep = last_secondary();
    for (unsigned i = 0; i < p.nharts; i++)
        if (p.hartids[i] != hartid() && p.hartids[i] != keep) stop_secondary(p.hartids[i]);
    clause("susp/system_suspend/DENIED");
    expect_refused(SUSPEND_TO_RAM, resume_entry(), ERR_DENIED, "denied/one_running");
    // A suspended hart is not STOPPED either ("all but the calling hart be
    // in the HSM STOPPED state").
    clause("susp/suspend_to_ram/entry_criteria");
    post_job(keep, suspended_job, nullptr);
    bool asleep = wait_until(
        [&] { return sbi_hart_get_status(keep).value == hsm_state::suspended; }, kPatience);
    if (expect_true(asleep, "denied/one_suspended/hart_suspended"))
        expect_refused(SUSPEND_TO_RAM, resume_entry(), ERR_DENIED, "denied/one_suspended");
    sbi_send_ipi(1, keep);
    expect_true(wait_job(keep, kPatience), "denied/one_suspended/hart_woke");
}

// The suspend itself: sleeps until the timer, resumes at resume_addr with
// a0 = hartid, a1 = opaque, satp = 0, sstatus.SIE = 0.
// `cl` names the clause of the resume itself.
void suspend_resume(const char *name, unsigned long type, const char *cl) {
    HartIrq &irq = irq_state(hartid());
    unsigned long before = irq.sti;
    bool was = irq_enable(false);
    unsigned long deadline = rdtime() + us_to_ticks(3000);
    sbi_set_timer(deadline);
    sie_set(kStip);
    EntryState seen{};
    clause("%s", cl);
    long r = system_suspend_at(type, resume_entry(), &seen);
    unsigned long now = rdtime();
    irq_enable(was);
    bool resumed = expect_resume_contract(r, seen, name);
    // Wake-up devices are platform specific; tsbi wakes on the S timer.
    clause("susp/system_suspend/wakeup_timer");
    if (resumed) {
        char why[96];
        snprintf(why, sizeof why, "resumed at %lu, timer due %lu", now, deadline);
        if (now >= deadline) pass("%s/slept_until_interrupt", name);
        else fail(why, "%s/slept_until_interrupt", name);
    }
    expect_true(wait_until([&] { return irq.sti != before; }, kPatience),
                "%s/interrupt_taken_after", name);
    sbi_set_timer(~0ull);
    clause("susp/system_suspend/resume");
    expect_ret(sbi_hart_get_status(hartid()), SUCCESS, hsm_state::started, "%s/status_started",
               name);
    expect_alive("%s", name);
}

// The wake-up interrupt already pending: the call comes back at once.
void suspend_with_pending_interrupt() {
    bool was = irq_enable(false);
    sbi_set_timer(0);
    sie_set(kStip);
    wait_until([] { return (csr_read(csr::sip) & kStip) != 0; }, kPatience);
    clause("susp/system_suspend/wakeup_timer");
    long r = system_suspend_at(SUSPEND_TO_RAM, resume_entry(), nullptr);
    disarm_timer(was);
    expect_eq(r, 1, "timer_already_pending/resumed");
}

// Resume addresses the firmware must refuse: firmware memory, end of RAM,
// far above, the top of the address space, an odd one. Accepting one loses
// the boot hart, so they run last.
void bad_resume_addresses() {
    const Platform &p = platform();
    struct {
        const char *name;
        unsigned long addr;
    } bad[] = {{"fw_region_start", p.fw_base},
               {"fw_region_last_word", p.fw_base + p.fw_size - 4},
               {"ram_end", p.ram_base + p.ram_size},
               {"far_above_ram", kFarAboveRam},
               {"top_of_address_space", ~0ul - 3},
               {"odd", resume_entry() + 1}};
    char name[64];
    for (auto &b : bad) {
        clause(b.addr & 1 ? "susp/system_suspend/odd_address" : "susp/system_suspend/INVALID_ADDRESS");
        snprintf(name, sizeof name, "resume_addr_%s/invalid_address", b.name);
        expect_refused(SUSPEND_TO_RAM, b.addr, ERR_INVALID_ADDRESS, name);
    }
    expect_alive("bad_resume_addresses");
}

} // namespace

void payload_main() {
    if (!extension_required(eid::susp)) return;
    invalid_types();
    bool smp = platform().nharts > 1;
    if (smp && start_secondaries()) {
        denied_while_running("before");
        denied_one_running();
        stop_secondaries("before");
    }
    suspend_resume("suspend_to_ram", SUSPEND_TO_RAM, "susp/system_suspend/resume");
    suspend_resume("suspend_to_ram_type_upper_bits", kUpper32 | SUSPEND_TO_RAM,
                   "encoding/32bit_args/sleep_type");
    suspend_with_pending_interrupt();
    if (smp) {
        // The system works on after the resume: the other harts start again.
        clause("susp/system_suspend/resume");
        expect_true(start_secondaries(), "secondaries_restart_after_resume");
        denied_while_running("after");
        stop_secondaries("after");
    }
    bad_resume_addresses();
}
