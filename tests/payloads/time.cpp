// SPDX-License-Identifier: BSD-2-Clause
// TIME extension (ext-time.adoc): set_timer raises a supervisor timer
// interrupt at the programmed time, a deadline in the future clears a pending
// one whether or not it is masked, ~0 means "never". The runner also runs this
// payload with -cpu rv64,sstc=false so the firmware's M-mode timer path (MTIP
// forwarded as STIP) is covered besides its Sstc path; with Sstc in the ISA
// string, S-mode must be able to use stimecmp directly (Linux does).
#include "payload.hpp"
#include "riscv/csr.hpp"

using namespace pl;

PAYLOAD_NAME("time");

namespace {

constexpr unsigned long kStip = 1ul << csr::irq::STI;

bool stip_pending() { return csr_read(csr::sip) & kStip; }

// Arms the timer `us` from now with STIE on and SIE on; waits for the STI.
// Returns the deadline, 0 if no interrupt came.
unsigned long fire_once(SbiRet (*arm)(uint64_t), unsigned long us, const char *name) {
    HartIrq &irq = irq_state(hartid());
    unsigned long before = irq.sti;
    unsigned long deadline = rdtime() + us_to_ticks(us);
    SbiRet r = arm(deadline);
    expect_err(r, SUCCESS, "%s/error", name);
    sie_set(kStip);
    bool fired = wait_until([&] { return irq.sti != before; }, kPatience);
    expect_true(fired, "%s/fires", name);
    if (fired) {
        char why[96];
        snprintf(why, sizeof why, "taken at %lu, deadline %lu", irq.last_sti_time, deadline);
        if (irq.last_sti_time >= deadline) pass("%s/not_early", name);
        else fail(why, "%s/not_early", name);
    }
    expect_eq(irq.sti - before, fired ? 1 : 0, "%s/exactly_once", name);
    sbi_set_timer(~0ull);
    return fired ? deadline : 0;
}

SbiRet legacy_arm(uint64_t t) { return {sbi_legacy(eid::legacy_set_timer, t, arg_hi(t)), 0}; }

void basic() {
    clause("time/set_timer/programs_event");
    fire_once(sbi_set_timer, 1000, "set_timer");
    fire_once(sbi_set_timer, 0, "set_timer_now");

    // Masked (sie.STIE = 0): the interrupt becomes pending but is not taken.
    HartIrq &irq = irq_state(hartid());
    clause("time/set_timer/mask_stie");
    sie_clear(kStip);
    unsigned long before = irq.sti;
    sbi_set_timer(rdtime() + us_to_ticks(200));
    // Not taken means something only once the interrupt is pending.
    if (expect_true(wait_until(stip_pending, kPatience), "masked/becomes_pending"))
        expect_eq(irq.sti, before, "masked/not_taken");
    else
        not_applicable("the timer interrupt never became pending", "masked/not_taken");

    // "must clear the pending timer interrupt bit when stime_value is set to
    // some time in the future, regardless of whether timer interrupts are
    // masked or not" (masked here).
    clause("time/set_timer/future_clears_pending");
    sbi_set_timer(rdtime() + us_to_ticks(10000000));
    expect_true(!stip_pending(), "future_clears_pending/masked");

    // Same with STIE set and SIE clear, so the pending bit cannot be taken.
    bool was = irq_enable(false);
    sie_set(kStip);
    sbi_set_timer(0);
    expect_true(wait_until(stip_pending, kPatience), "past_deadline/pending");
    sbi_set_timer(rdtime() + us_to_ticks(10000000));
    expect_true(!stip_pending(), "future_clears_pending/enabled");
    sie_clear(kStip);
    irq_enable(was);

    // ~0: clears a pending interrupt and never fires.
    clause("time/set_timer/infinitely_far");
    sbi_set_timer(0);
    wait_until(stip_pending, kPatience);
    expect_err(sbi_set_timer(~0ull), SUCCESS, "max/error");
    expect_true(!stip_pending(), "max/clears_pending");
    delay_us(20000);
    expect_true(!stip_pending(), "max/never_fires");

    // A later call replaces the earlier deadline in both directions.
    clause("time/set_timer/programs_event");
    before = irq.sti;
    sbi_set_timer(rdtime() + us_to_ticks(10000000));
    unsigned long soon = rdtime() + us_to_ticks(1000);
    sbi_set_timer(soon);
    sie_set(kStip);
    const bool fires =
        expect_true(wait_until([&] { return irq.sti != before; }, kPatience), "rearm/earlier_wins");
    before = irq.sti;
    sbi_set_timer(rdtime() + us_to_ticks(1000));
    sbi_set_timer(rdtime() + us_to_ticks(10000000));
    sie_set(kStip);
    delay_us(20000);
    // No interrupt from the replaced deadline: only evidence where a timer
    // interrupt was just seen to arrive (rearm/earlier_wins).
    if (fires)
        expect_eq(irq.sti, before, "rearm/later_replaces");
    else
        not_applicable("no timer interrupt arrived in rearm/earlier_wins", "rearm/later_replaces");
    sie_clear(kStip);
    sbi_set_timer(~0ull);
    expect_alive("set_timer");
}

void legacy() {
    SbiRet p = sbi_probe(eid::legacy_set_timer);
    clause("legacy/set_timer/behaviour");
    if (p.value == 0) {
        note("legacy set_timer not probed; checking it answers NOT_SUPPORTED");
        expect_eq(sbi_legacy(eid::legacy_set_timer, ~0ul), ERR_NOT_SUPPORTED,
                  "legacy_set_timer/absent");
        return;
    }
    fire_once(legacy_arm, 1000, "legacy_set_timer");
    sie_clear(kStip);
    sbi_legacy(eid::legacy_set_timer, 0);
    wait_until(stip_pending, kPatience);
    expect_eq(sbi_legacy(eid::legacy_set_timer, rdtime() + us_to_ticks(10000000)), 0,
              "legacy_set_timer/returns_0");
    expect_true(!stip_pending(), "legacy_set_timer/clears_pending");
    sbi_set_timer(~0ull);
}

// stimecmp is 64 bits on every XLEN: RV32 writes the halves through
// stimecmp and stimecmph, the low half first set to all ones so that no
// intermediate value lies in the past (Sstc spec, "stimecmp").
void write_stimecmp(void *v) {
    uint64_t t = *static_cast<uint64_t *>(v);
    if constexpr (kXlen == 64) {
        asm volatile("csrw 0x14D, %0" ::"r"(static_cast<unsigned long>(t)));
    } else {
        asm volatile("csrw 0x14D, %0\n csrw 0x15D, %1\n csrw 0x14D, %2" ::"r"(~0ul),
                     "r"(static_cast<unsigned long>(t >> 32)), "r"(static_cast<unsigned long>(t)));
    }
}

// With Sstc in the ISA string the firmware must have set menvcfg.STCE,
// otherwise stimecmp traps and Linux (which uses Sstc when listed) breaks.
void sstc() {
    clause("platform/sstc/stce_enabled");
    if (!has_isa_ext("sstc")) {
        not_applicable("no sstc in riscv,isa", "sstc");
        note("no sstc in riscv,isa '%s': S-mode stimecmp not tested", platform().isa);
        return;
    }
    HartIrq &irq = irq_state(hartid());
    unsigned long before = irq.sti;
    uint64_t t = rdtime() + us_to_ticks(1000);
    unsigned long cause = catch_exception(write_stimecmp, &t);
    if (!expect_eq(cause, ~0ul, "sstc/stimecmp_writable")) return;
    sie_set(kStip);
    expect_true(wait_until([&] { return irq.sti != before; }, kPatience), "sstc/stimecmp_fires");
    uint64_t never = ~0ull;
    write_stimecmp(&never);
    expect_true(!stip_pending(), "sstc/stimecmp_max_clears");
    // The SBI call keeps working after S-mode used stimecmp itself.
    fire_once(sbi_set_timer, 1000, "sstc/set_timer_after_stimecmp");
}

struct HartResult {
    unsigned long sti_before, sti_after;
    bool fired;
};
void hart_timer_job(void *arg) {
    auto *r = static_cast<HartResult *>(arg);
    HartIrq &irq = irq_state(hartid());
    r->sti_before = irq.sti;
    sbi_set_timer(rdtime() + us_to_ticks(1000));
    sie_set(kStip);
    r->fired = wait_until([&] { return irq.sti != r->sti_before; }, kPatience);
    r->sti_after = irq.sti;
    sie_clear(kStip);
    sbi_set_timer(~0ull);
}

// Timers are per hart: arming one hart's timer interrupts only that hart.
void smp() {
    if (platform().nharts < 2 || !start_secondaries()) return;
    clause("time/set_timer/per_hart");
    HartIrq &mine = irq_state(hartid());
    sie_set(kStip);
    sbi_set_timer(~0ull);
    for (unsigned i = 0; i < platform().nharts; i++) {
        unsigned long h = platform().hartids[i];
        if (h == hartid()) continue;
        unsigned long my_before = mine.sti;
        HartResult r{};
        if (!run_on(h, hart_timer_job, &r)) {
            fail("job timed out", "smp/hart%lu/fires", h);
            continue;
        }
        expect_true(r.fired, "smp/hart%lu/fires", h);
        expect_eq(mine.sti, my_before, "smp/hart%lu/not_on_boot_hart", h);
    }
    sie_clear(kStip);
}

} // namespace

void payload_main() {
    if (!extension_present(eid::time, "present")) return;
    note("timebase %lu Hz, isa %s", platform().timebase_hz, platform().isa);
    basic();
    legacy();
    sstc();
    smp();
}
