// SPDX-License-Identifier: BSD-2-Clause
// HSM extension (ext-hsm.adoc): hart_start with its register contract and
// every error, hart_stop and restart, get_status through the state machine,
// retentive and non-retentive hart_suspend woken by timer and IPI, reserved
// suspend types and invalid resume addresses.
#include "payload.hpp"
#include "riscv/csr.hpp"

using namespace pl;

PAYLOAD_NAME("hsm");

namespace {

namespace S = hsm_state;
constexpr unsigned long kSie = csr::mstatus_bits::SIE;
constexpr unsigned long kSsip = 1ul << csr::irq::SSI, kStip = 1ul << csr::irq::STI;

SbiRet status(unsigned long h) { return sbi_hart_get_status(h); }

bool wait_status(unsigned long h, long want, unsigned long timeout_us = kPatience) {
    return wait_until([&] { return status(h).value == (unsigned long)want; }, timeout_us);
}

// Addresses hart_start/hart_suspend must refuse with INVALID_ADDRESS.
struct BadAddr {
    const char *name;
    unsigned long addr;
};
unsigned n_bad;
BadAddr bad[5];
void collect_bad_addresses() {
    const Platform &p = platform();
    const unsigned long ram_end = p.ram_base + p.ram_size;
    bad[n_bad++] = {"fw_region_start", p.fw_base};
    bad[n_bad++] = {"fw_region_last_word", p.fw_base + p.fw_size - 4};
    bad[n_bad++] = {"ram_end", ram_end};
    bad[n_bad++] = {"far_above_ram", kFarAboveRam};
    bad[n_bad++] = {"top_of_address_space", ~0ul - 3};
}
// Also refused for a resume address: an odd one (cannot be executed).
BadAddr bad_resume[6];
unsigned n_bad_resume;

void entry_contract(unsigned long h, unsigned long opaque, const char *what) {
    clause("hsm/hart_start/register_state");
    EntryState e = entry_state(h);
    expect_eq(e.a0, h, "%s/hart%lu/a0_is_hartid", what, h);
    expect_eq(e.a1, opaque, "%s/hart%lu/a1_is_opaque", what, h);
    expect_eq(e.satp, 0, "%s/hart%lu/satp_zero", what, h);
    expect_eq(e.sstatus & kSie, 0, "%s/hart%lu/sstatus_sie_zero", what, h);
}

bool start(unsigned long h, unsigned long opaque, const char *what) {
    reset_checkin(h);
    clause("hsm/hart_start/starts");
    SbiRet r = sbi_hart_start(h, secondary_entry(), opaque);
    if (!expect_err(r, SUCCESS, "%s/hart%lu/error", what, h)) return false;
    bool up = wait_until([&] { return secondary_checked_in(h); }, kPatience);
    if (!expect_true(up, "%s/hart%lu/runs", what, h)) return false;
    entry_contract(h, opaque, what);
    clause("hsm/hart_get_status/states");
    expect_true(wait_status(h, S::started), "%s/hart%lu/status_started", what, h);
    return true;
}

void status_basics() {
    const Platform &p = platform();
    clause("hsm/hart_get_status/states");
    expect_ret(status(hartid()), SUCCESS, S::started, "get_status/self_started");
    for (unsigned i = 0; i < p.nharts; i++)
        if (p.hartids[i] != hartid())
            expect_ret(status(p.hartids[i]), SUCCESS, S::stopped,
                       "get_status/hart%lu_stopped_at_boot", p.hartids[i]);
    const unsigned long invalid[] = {p.max_hartid + 1, 4096, ~0ul, static_cast<unsigned long>(1ull << (kXlen == 64 ? 32 : 31))};
    for (unsigned long h : invalid) {
        clause("hsm/hart_get_status/INVALID_PARAM");
        expect_err(status(h), ERR_INVALID_PARAM, "get_status/invalid_0x%lx", h);
        // Bits above 31 are kept on the boot hart's ID, so a firmware that
        // truncates hart IDs to 32 bits answers ALREADY_AVAILABLE instead of
        // starting some other hart.
        unsigned long target = upper32(h) ? h | hartid() : h;
        clause("hsm/hart_start/INVALID_PARAM");
        expect_err(sbi_hart_start(target, secondary_entry(), 0), ERR_INVALID_PARAM,
                   "hart_start/invalid_hartid_0x%lx", h);
    }
    clause("hsm/hart_start/ALREADY_AVAILABLE");
    expect_err(sbi_hart_start(hartid(), secondary_entry(), 0), ERR_ALREADY_AVAILABLE,
               "hart_start/self_already_available");
    expect_alive("invalid_hartids");
}

void start_first(unsigned long h) {
    if (!start(h, secondary_opaque(h), "hart_start")) return;
    clause("hsm/hart_start/ALREADY_AVAILABLE");
    expect_err(sbi_hart_start(h, secondary_entry(), 0), ERR_ALREADY_AVAILABLE,
               "hart_start/hart%lu/again_already_available", h);
}

// hart_start of stopped hart h with addresses it must refuse. Accepting one
// loses the hart (it runs where nothing is), so this is part of the final
// hostile phase. The odd address comes last: an instruction cannot start
// there (IALIGN >= 16, mepc bit 0 is always zero); brief: "validate
// addresses: alignment".
void bad_start_addresses(unsigned long h) {
    BadAddr all[8];
    unsigned n = 0;
    for (unsigned i = 0; i < n_bad; i++) all[n++] = bad[i];
    all[n++] = {"odd", secondary_entry() + 1};
    for (unsigned i = 0; i < n; i++) {
        bool odd = i == n - 1;
        clause(odd ? "hsm/hart_start/odd_address" : "hsm/hart_start/INVALID_ADDRESS");
        SbiRet r = sbi_hart_start(h, all[i].addr, secondary_opaque(h));
        expect_err(r, ERR_INVALID_ADDRESS, "hart_start/hart%lu/addr_%s", h, all[i].name);
        if (r.error == SUCCESS) {
            note("hart %lu was started at 0x%lx and is lost", h, all[i].addr);
            return;
        }
        expect_ret(status(h), SUCCESS, S::stopped, "hart_start/hart%lu/addr_%s/still_stopped",
                   h, all[i].name);
    }
    expect_alive("hart_start/hart%lu/bad_addresses", h);
}

// --- stop ----------------------------------------------------------------------------------
struct StopJob {
    volatile bool returned;
    volatile long error;
};
void stop_job(void *arg) {
    auto *s = static_cast<StopJob *>(arg);
    irq_enable(false); // "must be called with supervisor-mode interrupts disabled"
    SbiRet r = sbi_call(eid::hsm, fid::hsm::hart_stop);
    s->error = r.error;
    s->returned = true;
    irq_enable(true);
}

bool stop(unsigned long h, const char *what) {
    clause("hsm/hart_stop/stops");
    StopJob s{false, 0};
    post_job(h, stop_job, &s);
    bool stopped = wait_status(h, S::stopped);
    if (!expect_true(stopped, "%s/hart%lu/status_stopped", what, h)) {
        if (s.returned) note("hart_stop on hart %lu returned error %ld", h, s.error);
        return false;
    }
    expect_true(!s.returned, "%s/hart%lu/does_not_return", what, h);
    return true;
}

void stop_restart(unsigned long h) {
    if (!stop(h, "hart_stop")) return;
    unsigned long count = entry_state(h).count;
    if (start(h, static_cast<unsigned long>(0x0123456789abcdefull) ^ h, "restart"))
        expect_eq(entry_state(h).count, count + 1, "restart/hart%lu/entered_once", h);
}

// All secondaries stop and start together, a few rounds.
void stop_start_rounds() {
    const Platform &p = platform();
    clause("hsm/hart_stop/stops");
    bool ok = true;
    for (int round = 0; round < 3 && ok; round++) {
        StopJob jobs[kMaxHarts]{};
        for (unsigned i = 0; i < p.nharts; i++)
            if (p.hartids[i] != hartid()) post_job(p.hartids[i], stop_job, &jobs[i]);
        for (unsigned i = 0; i < p.nharts; i++) {
            unsigned long h = p.hartids[i];
            if (h == hartid()) continue;
            ok &= wait_status(h, S::stopped);
            reset_checkin(h);
            ok &= sbi_hart_start(h, secondary_entry(), secondary_opaque(h)).error == SUCCESS;
        }
        for (unsigned i = 0; i < p.nharts; i++) {
            unsigned long h = p.hartids[i];
            if (h != hartid()) ok &= wait_until([&] { return secondary_checked_in(h); }, kPatience);
        }
    }
    expect_true(ok, "stop_start_rounds/all_harts");
}

// --- suspend -------------------------------------------------------------------------------
// Arms a wake-up timer for a suspend that follows. S-mode interrupts go off
// first: otherwise the timer may fire (and the handler mask STIE) before
// the suspend, leaving the hart with nothing to wake it. Callers restore.
bool arm_timer(unsigned long us) {
    bool was = irq_enable(false);
    sbi_set_timer(rdtime() + us_to_ticks(us));
    sie_set(kStip);
    return was;
}

// suspend_type is uint32_t: bits above 31 must be ignored (binary-encoding.adoc:
// "higher privilege software must ensure that it only uses 32 bit data").

void retentive_on_boot_hart() {
    HartIrq &irq = irq_state(hartid());
    struct Variant {
        const char *name;
        unsigned long type, addr;
    };
    // resume_addr "is unused during retentive suspend": a firmware address
    // there must not matter.
    const Variant variants[] = {
        {"suspend_retentive_timer", suspend_type::default_retentive, 0},
        {"suspend_retentive_timer_fw_resume_addr", suspend_type::default_retentive,
         platform().fw_base},
        {"suspend_retentive_timer_type_upper_bits", kUpper32 | suspend_type::default_retentive, 0},
    };
    for (const Variant &v : variants) {
        const char *name = v.name;
        clause(upper32(v.type) ? "encoding/32bit_args/suspend_type" : "hsm/hart_suspend/retentive");
        bool was = irq_enable(false);
        unsigned long before = irq.sti;
        unsigned long deadline = rdtime() + us_to_ticks(3000);
        sbi_set_timer(deadline);
        sie_set(kStip);
        SbiRet r = sbi_hart_suspend(v.type, v.addr, 0);
        unsigned long now = rdtime();
        expect_err(r, SUCCESS, "%s/error", name);
        char why[96];
        snprintf(why, sizeof why, "returned at %lu, timer due %lu", now, deadline);
        if (now >= deadline) pass("%s/slept_until_interrupt", name);
        else fail(why, "%s/slept_until_interrupt", name);
        irq_enable(was);
        expect_true(wait_until([&] { return irq.sti != before; }, kPatience),
                    "%s/interrupt_taken_after", name);
        sbi_set_timer(~0ull);
    }
}

void non_retentive_on_boot_hart(const char *name, unsigned long type) {
    clause(upper32(type) ? "encoding/32bit_args/suspend_type" : "hsm/hart_suspend/non_retentive");
    HartIrq &irq = irq_state(hartid());
    unsigned long before = irq.sti;
    bool was = irq_enable(false);
    unsigned long deadline = rdtime() + us_to_ticks(3000);
    sbi_set_timer(deadline);
    sie_set(kStip);
    EntryState seen{};
    long r = suspend_non_retentive(type, &seen);
    unsigned long now = rdtime();
    irq_enable(was);
    clause("hsm/hart_suspend/resume_register_state");
    if (expect_resume_contract(r, seen, name))
        expect_true(now >= deadline, "%s/slept_until_interrupt", name);
    expect_true(wait_until([&] { return irq.sti != before; }, kPatience), "%s/interrupt_taken_after",
                name);
    sbi_set_timer(~0ull);
    expect_alive("%s", name);
}

// The wake-up interrupt is already pending (timer in the past) when the
// hart suspends: the call must come back at once (WFI does not wait with an
// interrupt pending). On a secondary when there is one, so a hang costs only
// that hart.
struct PendingJob {
    bool non_retentive;
    volatile long result;
};
void pending_job(void *arg) {
    auto *j = static_cast<PendingJob *>(arg);
    bool was = irq_enable(false);
    sbi_set_timer(0);
    sie_set(kStip);
    wait_until([] { return (csr_read(csr::sip) & kStip) != 0; }, kPatience);
    if (j->non_retentive)
        j->result = suspend_non_retentive(suspend_type::default_non_retentive, nullptr);
    else
        j->result = sbi_hart_suspend(suspend_type::default_retentive, 0, 0).error;
    sie_clear(kStip);
    sbi_set_timer(~0ull);
    irq_enable(was);
}
void suspend_with_pending_interrupt() {
    unsigned long h = platform().nharts > 1 ? last_secondary() : hartid();
    clause("hsm/hart_suspend/pending_interrupt");
    for (int nr = 0; nr < 2; nr++) {
        const char *name = nr ? "suspend_non_retentive_timer_already_pending"
                              : "suspend_retentive_timer_already_pending";
        PendingJob j{nr != 0, -99};
        if (!run_on(h, pending_job, &j, kPatience)) {
            fail("the suspend call did not come back", "%s/hart%lu/returns", name, h);
            return;
        }
        expect_eq(j.result, nr ? 1 : 0, "%s/hart%lu/returns", name, h);
    }
}

// Reserved and unimplemented platform-specific types are INVALID_PARAM. A
// timer is armed and the library's resume entry passed, so a firmware that
// wrongly suspends still comes back (and the case fails instead of hanging).
void invalid_suspends() {
    const unsigned long types[] = {0x00000001, 0x0FFFFFFF, 0x10000000, 0x7FFFFFFF,
                                   0x80000001, 0x8FFFFFFF, 0x90000000, 0xFFFFFFFF,
                                   kUpper32 | 0x00000001, kUpper32 | 0x90000000};
    for (unsigned long t : types) {
        // 0x10000000-0x7FFFFFFF and 0x90000000-0xFFFFFFFF are platform
        // specific (table "HSM Hart Suspend Types"): another firmware may
        // implement one (then it suspends and resumes) or lack a dependency
        // (NOT_SUPPORTED); tsbi implements none on QEMU virt.
        const unsigned long low = t & 0xFFFFFFFFul;
        const bool platform_specific = (low >= 0x10000000 && low <= 0x7FFFFFFF) || low >= 0x90000000;
        clause(platform_specific ? "hsm/hart_suspend/platform_specific" : "hsm/hart_suspend/INVALID_PARAM");
        bool was = arm_timer(5000);
        long r = suspend_non_retentive(t, nullptr);
        irq_enable(was);
        if (platform_specific && conformance_mode() &&
            (r == ERR_NOT_SUPPORTED || r == SUCCESS || r == 1))
            pass("suspend_type_0x%lx/invalid_param", t);
        else
            expect_eq(r, ERR_INVALID_PARAM, "suspend_type_0x%lx/invalid_param", t);
    }
    sie_clear(kStip);
    sbi_set_timer(~0ull);
    expect_alive("suspend_invalid");
}

// Resume addresses the firmware must refuse (an odd one included).
// Accepting one loses the hart (it resumes where nothing runs).
struct BadResume {
    volatile unsigned done;
    volatile long result[8];
};
void bad_resume_job(void *arg) {
    auto *b = static_cast<BadResume *>(arg);
    for (unsigned i = 0; i < n_bad_resume; i++) {
        clause(i == n_bad_resume - 1 ? "hsm/hart_suspend/odd_address"
                                     : "hsm/hart_suspend/INVALID_ADDRESS");
        bool was = arm_timer(5000);
        b->result[i] = suspend_non_retentive_at(suspend_type::default_non_retentive,
                                                bad_resume[i].addr, nullptr);
        irq_enable(was);
        expect_eq(b->result[i], ERR_INVALID_ADDRESS, "suspend_non_retentive/resume_addr_%s",
                  bad_resume[i].name);
        b->done = i + 1;
        sie_clear(kStip);
        sbi_set_timer(~0ull);
    }
}

// Returns whether the hart survived (it refused every address).
bool bad_resume_addresses(unsigned long h) {
    for (unsigned i = 0; i < n_bad; i++) bad_resume[n_bad_resume++] = bad[i];
    bad_resume[n_bad_resume++] = {"odd", resume_entry() + 1};
    BadResume b{};
    if (h == hartid()) {
        bad_resume_job(&b);
    } else {
        post_job(h, bad_resume_job, &b);
        wait_job(h, kPatience);
    }
    for (unsigned i = b.done; i < n_bad_resume; i++) {
        clause(i == n_bad_resume - 1 ? "hsm/hart_suspend/odd_address"
                                     : "hsm/hart_suspend/INVALID_ADDRESS");
        if (i > b.done) note("not run: resume_addr_%s", bad_resume[i].name);
        else
            fail("hart lost: the firmware suspended it with this resume address",
                 "suspend_non_retentive/resume_addr_%s", bad_resume[i].name);
    }
    expect_alive("suspend_bad_resume");
    return b.done == n_bad_resume;
}

// Hostile cases that lose a hart when the firmware wrongly accepts them run
// last, on sacrificial secondaries.
void final_hostile() {
    const Platform &p = platform();
    if (p.nharts < 2) {
        note("one hart: bad hart_start addresses need -smp 2 or more");
        bad_resume_addresses(hartid());
        return;
    }
    unsigned long h1 = last_secondary();
    unsigned long h2 = h1;
    if (!secondary_checked_in(h1) || !bad_resume_addresses(h1)) {
        if (p.nharts < 3) return;
        h2 = secondary_hartid(p.nharts - 3);
    }
    if (secondary_checked_in(h2) && stop(h2, "final_stop")) bad_start_addresses(h2);
}

struct SuspendJob {
    bool non_retentive;
    volatile long result;
    EntryState seen;
    volatile unsigned long ssi_after, sip_at_return;
};
void suspend_job(void *arg) {
    auto *s = static_cast<SuspendJob *>(arg);
    sie_set(kSsip);
    bool was = irq_enable(false);
    if (s->non_retentive) {
        s->result = suspend_non_retentive(suspend_type::default_non_retentive, &s->seen);
    } else {
        s->result = sbi_hart_suspend(suspend_type::default_retentive, 0, 0).error;
    }
    s->sip_at_return = csr_read(csr::sip);
    irq_enable(was);
    s->ssi_after = irq_state(hartid()).ssi;
}

// A secondary suspends; get_status shows SUSPENDED; an IPI wakes it.
void suspend_secondary(unsigned long h, bool non_retentive) {
    const char *name = non_retentive ? "suspend_non_retentive_ipi" : "suspend_retentive_ipi";
    clause(non_retentive ? "hsm/hart_suspend/non_retentive" : "hsm/hart_suspend/retentive");
    SuspendJob s{non_retentive, -99, {}, 0, 0};
    unsigned long ssi_before = irq_state(h).ssi;
    post_job(h, suspend_job, &s);
    bool suspended = wait_status(h, S::suspended);
    expect_true(suspended, "%s/hart%lu/status_suspended", name, h);
    if (suspended) {
        // Still suspended a moment later: it waits for the interrupt.
        delay_us(2000);
        expect_ret(status(h), SUCCESS, S::suspended, "%s/hart%lu/stays_suspended", name, h);
    }
    expect_err(sbi_send_ipi(1, h), SUCCESS, "%s/hart%lu/ipi_sent", name, h);
    bool back = wait_job(h, kPatience);
    if (!expect_true(back, "%s/hart%lu/woke", name, h)) return;
    expect_eq(s.result, non_retentive ? 1 : 0, "%s/hart%lu/result", name, h);
    if (non_retentive && s.result == 1) {
        expect_eq(s.seen.a0, h, "%s/hart%lu/a0_is_hartid", name, h);
        expect_eq(s.seen.satp, 0, "%s/hart%lu/satp_zero", name, h);
        expect_eq(s.seen.sstatus & kSie, 0, "%s/hart%lu/sstatus_sie_zero", name, h);
    }
    // The IPI that woke the hart is a supervisor software interrupt
    // (ext-ipi): it must still be pending when S-mode runs again.
    clause("hsm/hart_suspend/wakeup_interrupt_pending");
    bool taken = wait_until([&] { return irq_state(h).ssi != ssi_before; }, kPatience);
    char why[96];
    snprintf(why, sizeof why, "no SSI after the wake-up (sip when the call returned: 0x%lx)",
             s.sip_at_return);
    if (taken) pass("%s/hart%lu/ipi_taken_after", name, h);
    else fail(why, "%s/hart%lu/ipi_taken_after", name, h);
    expect_ret(status(h), SUCCESS, S::started, "%s/hart%lu/status_started_again", name, h);
}

} // namespace

void payload_main() {
    if (!extension_present(eid::hsm, "present")) return;
    collect_bad_addresses();
    const Platform &p = platform();
    note("firmware region 0x%lx+0x%lx, RAM 0x%lx+0x%lx", p.fw_base, p.fw_size, p.ram_base,
         p.ram_size);
    status_basics();
    if (p.nharts < 2) {
        note("one hart: start/stop/secondary suspend cases need -smp 2 or more");
    } else {
        for (unsigned i = 0; i < p.nharts; i++)
            if (p.hartids[i] != hartid()) start_first(p.hartids[i]);
        for (unsigned i = 0; i < p.nharts; i++)
            if (p.hartids[i] != hartid()) stop_restart(p.hartids[i]);
        stop_start_rounds();
        for (unsigned i = 0; i < p.nharts; i++) {
            unsigned long h = p.hartids[i];
            if (h == hartid() || !secondary_checked_in(h)) continue;
            suspend_secondary(h, false);
            suspend_secondary(h, true);
        }
    }
    suspend_with_pending_interrupt();
    retentive_on_boot_hart();
    non_retentive_on_boot_hart("suspend_non_retentive_timer", suspend_type::default_non_retentive);
    non_retentive_on_boot_hart("suspend_non_retentive_timer_type_upper_bits",
                               kUpper32 | suspend_type::default_non_retentive);
    invalid_suspends();
    final_hostile();
}
