// SPDX-License-Identifier: BSD-2-Clause
// SBI PMU on several harts: counters are per hart, IPIs and remote fences
// are counted per target on the sender and once on each receiver, all harts
// use the PMU at the same time, HSM stop releases a hart's counters and a
// suspended hart keeps them.
#include "pmu_util.hpp"

using namespace pmupl;

PAYLOAD_NAME("pmu_smp");

namespace {

Counters C;
unsigned FB;
unsigned long fwmask;
constexpr unsigned kH = 3;

unsigned long fw_counter(unsigned code) {
    SbiRet r = match(FB, fwmask, CFG_CLEAR_VALUE | CFG_AUTO_START, fw_event(code));
    return r.error ? ~0ul : r.value;
}
void release_all() {
    for (unsigned i = 0; i < C.n; i++)
        if (((C.hw | C.fw) >> i) & 1) stop(i, 1, STOP_RESET);
}

// A job that runs `fn` on each started hart (the boot hart included) at once.
struct PerHart {
    volatile unsigned long v[kMaxHarts];
    volatile unsigned long w[kMaxHarts];
};
void on_all(JobFn fn, void *arg) {
    const Platform &p = platform();
    for (unsigned i = 0; i < p.nharts; i++)
        if (p.hartids[i] != hartid()) post_job(p.hartids[i], fn, arg);
    fn(arg);
    for (unsigned i = 0; i < p.nharts; i++)
        if (p.hartids[i] != hartid()) wait_job(p.hartids[i], kPatience);
}
unsigned me_idx() { return hart_index(hartid()); }

void release_job(void *) { release_all(); }

// --- per-hart state -------------------------------------------------------------------------
void per_hart_state() {
    const Platform &p = platform();
    on_all(release_job, nullptr);
    clause("pmu/per_hart/state");
    expect_ret(match(kH, 1, CFG_AUTO_START, kDtlbRdMiss), SUCCESS, kH, "per_hart/boot_configures");
    for (unsigned i = 0; i < p.nharts; i++) {
        unsigned long h = p.hartids[i];
        if (h == hartid()) continue;
        static volatile long r1, r2;
        run_on(h, [](void *) {
            r1 = start(kH, 1).error;
            r2 = match(kH, 1, 0, kDtlbRdMiss).value;
        }, nullptr);
        expect_eq(r1, ERR_INVALID_PARAM, "per_hart/hart%lu/unconfigured_there", h);
        expect_eq(r2, kH, "per_hart/hart%lu/same_counter_free_there", h);
    }
    expect_err(start(kH, 1), ERR_ALREADY_STARTED, "per_hart/boot_still_running");
    on_all(release_job, nullptr);
}

// --- IPIs and remote fences ------------------------------------------------------------------
struct Recv {
    unsigned code;
    volatile unsigned long counter[kMaxHarts];
    volatile unsigned long value[kMaxHarts];
};
void recv_setup(void *a) {
    auto *r = static_cast<Recv *>(a);
    r->counter[me_idx()] = fw_counter(r->code);
}
void recv_read(void *a) {
    auto *r = static_cast<Recv *>(a);
    r->value[me_idx()] = fw_read(r->counter[me_idx()]).value;
    stop(r->counter[me_idx()], 1, STOP_RESET);
}

void sent_received(const char *name, unsigned sent, unsigned received, void (*send)()) {
    const Platform &p = platform();
    Recv r{};
    r.code = received;
    on_all(recv_setup, &r);
    unsigned long s = fw_counter(sent);
    send();
    delay_us(5000);
    unsigned long sv = fw_read(s).value;
    stop(s, 1, STOP_RESET);
    on_all(recv_read, &r);
    // "Sent IPI to other HART", "Sent FENCE.I request to other HART": whether
    // a self-IPI counts and whether a fence counts once per target hart or
    // once per request is a reading (tsbi: once per target, self included).
    clause("pmu/firmware_events/remote_counts");
    expect_eq(sv, p.nharts, "%s/sent_once_per_target", name);
    unsigned wrong = 0;
    for (unsigned i = 0; i < p.nharts; i++)
        if (r.value[i] != 1) wrong++;
    expect_eq(wrong, 0, "%s/received_once_on_every_hart", name);
}

void fw_events_smp() {
    sent_received("ipi", IPI_SENT, IPI_RECEIVED, [] { sbi_send_ipi(0, ~0ul); });
    sent_received("fence_i", FENCE_I_SENT, FENCE_I_RECEIVED,
                  [] { sbi_call(eid::rfence, fid::rfence::remote_fence_i, 0, ~0ul); });
    sent_received("sfence_vma", SFENCE_VMA_SENT, SFENCE_VMA_RECEIVED,
                  [] { sbi_call(eid::rfence, fid::rfence::remote_sfence_vma, 0, ~0ul, 0, 0); });
    sent_received("sfence_vma_asid", SFENCE_VMA_ASID_SENT, SFENCE_VMA_ASID_RECEIVED, [] {
        sbi_call(eid::rfence, fid::rfence::remote_sfence_vma_asid, 0, ~0ul, 0, 0, 1);
    });
    if (has_isa_ext('h')) {
        sent_received("hfence_gvma", HFENCE_GVMA_SENT, HFENCE_GVMA_RECEIVED, [] {
            sbi_call(eid::rfence, fid::rfence::remote_hfence_gvma, 0, ~0ul, 0, 0);
        });
        sent_received("hfence_vvma_asid", HFENCE_VVMA_ASID_SENT, HFENCE_VVMA_ASID_RECEIVED, [] {
            sbi_call(eid::rfence, fid::rfence::remote_hfence_vvma_asid, 0, ~0ul, 0, 0, 1);
        });
    }
}

// --- all harts at once -----------------------------------------------------------------------
void hammer(void *a) {
    auto *r = static_cast<PerHart *>(a);
    unsigned long bad = 0;
    for (unsigned round = 0; round < 100; round++) {
        unsigned long f = fw_counter(SET_TIMER);
        unsigned n = 1 + (round + me_idx()) % 4;
        for (unsigned k = 0; k < n; k++) sbi_set_timer(~0ull);
        if (f == ~0ul || fw_read(f).value != n) bad++;
        SbiRet h = match(kH, 0xffff, CFG_CLEAR_VALUE, kDtlbRdMiss);
        if (h.error || start(h.value, 1, START_SET_INIT_VALUE, 1000 * me_idx()).error) bad++;
        if (!h.error && read_counter(h.value) < 1000 * me_idx()) bad++;
        if (stop(f, 1, STOP_RESET).error || (!h.error && stop(h.value, 1, STOP_RESET).error)) bad++;
    }
    r->v[me_idx()] = bad;
    r->w[me_idx()] = 1;
}

void concurrent() {
    const Platform &p = platform();
    PerHart r{};
    on_all(hammer, &r);
    for (unsigned i = 0; i < p.nharts; i++) {
        clause("pmu/harts/concurrent");
        expect_eq(r.w[i], 1, "concurrent/hart%lu/finished", p.hartids[i]);
        expect_eq(r.v[i], 0, "concurrent/hart%lu/no_errors", p.hartids[i]);
    }
}

// --- HSM ------------------------------------------------------------------------------------
alignas(4096) volatile uint64_t shmem[kMaxHarts][512];

struct StopJob {
    volatile bool returned;
};
void configure_and_stop(void *a) {
    auto *s = static_cast<StopJob *>(a);
    set_shmem(reinterpret_cast<unsigned long>(&shmem[me_idx()][0]));
    match(kH, 1, CFG_AUTO_START, kDtlbRdMiss);
    fw_counter(SET_TIMER);
    irq_enable(false);
    sbi_call(eid::hsm, fid::hsm::hart_stop);
    s->returned = true;
}
void hsm_stop_releases() {
    const Platform &p = platform();
    if (p.nharts < 2) return;
    unsigned long h = p.hartids[1];
    StopJob s{false};
    post_job(h, configure_and_stop, &s);
    bool stopped = wait_until(
        [&] { return sbi_hart_get_status(h).value == hsm_state::stopped; }, kPatience);
    clause("pmu/hsm/reset");
    if (!expect_true(stopped, "hsm_stop/hart%lu/stopped", h)) return;
    reset_checkin(h);
    expect_err(sbi_hart_start(h, secondary_entry(), secondary_opaque(h)), SUCCESS,
               "hsm_stop/hart%lu/restart", h);
    if (!expect_true(wait_until([&] { return secondary_checked_in(h); }, kPatience),
                     "hsm_stop/hart%lu/runs_again", h))
        return;
    static volatile long r_hw, r_fw, r_snap, r_cycle;
    run_on(h, [](void *) {
        r_hw = start(kH, 1).error;
        r_fw = fw_read(FB).error;
        match(kH, 1, 0, kDtlbRdMiss);
        r_snap = stop(kH, 1, STOP_TAKE_SNAPSHOT).error;
        stop(kH, 1, STOP_RESET);
        uint64_t c0 = read_counter(0);
        delay_us(100);
        r_cycle = read_counter(0) != c0;
    }, nullptr);
    expect_eq(r_hw, ERR_INVALID_PARAM, "hsm_stop/hart%lu/hw_counter_released", h);
    expect_eq(r_fw, ERR_INVALID_PARAM, "hsm_stop/hart%lu/fw_counter_released", h);
    expect_eq(r_snap, ERR_NO_SHMEM, "hsm_stop/hart%lu/snapshot_disabled", h);
    expect_eq(r_cycle, 1, "hsm_stop/hart%lu/cycle_counts_after_restart", h);
}

struct SuspendJob {
    bool non_retentive;
    volatile long result, after_start, after_fw;
    volatile unsigned long before_value, after_value, fw_counter;
};
void suspend_job(void *a) {
    auto *s = static_cast<SuspendJob *>(a);
    match(kH, 1, CFG_CLEAR_VALUE, kDtlbRdMiss);
    start(kH, 1, START_SET_INIT_VALUE, 5000);
    s->fw_counter = fw_counter(SET_TIMER);
    sbi_set_timer(~0ull);
    stop(kH, 1);
    s->before_value = read_counter(kH);
    sie_set(1ul << csr::irq::SSI);
    bool was = irq_enable(false);
    if (s->non_retentive)
        s->result = suspend_non_retentive(suspend_type::default_non_retentive, nullptr);
    else
        s->result = sbi_hart_suspend(suspend_type::default_retentive, 0, 0).error;
    irq_enable(was);
    s->after_value = read_counter(kH);
    s->after_start = start(kH, 1).error;
    s->after_fw = fw_read(s->fw_counter).value;
    release_all();
}
void suspend_keeps(bool non_retentive) {
    const Platform &p = platform();
    if (p.nharts < 2) return;
    unsigned long h = p.hartids[p.nharts - 1];
    const char *name = non_retentive ? "suspend_non_retentive" : "suspend_retentive";
    SuspendJob s{non_retentive, -99, -99, -99, 0, 0, 0};
    post_job(h, suspend_job, &s);
    bool suspended = wait_until(
        [&] { return sbi_hart_get_status(h).value == hsm_state::suspended; }, kPatience);
    clause("pmu/hsm/suspend_keeps");
    expect_true(suspended, "%s/hart%lu/suspended", name, h);
    sbi_send_ipi(1, h);
    if (!expect_true(wait_job(h, kPatience), "%s/hart%lu/woke", name, h)) return;
    expect_eq(s.result, non_retentive ? 1 : 0, "%s/hart%lu/result", name, h);
    // Kept: the value read after the suspend is the one before it, which
    // SET_INIT_VALUE put at 5000 or more (a counter that reads 0 throughout
    // would compare equal and prove nothing).
    if (s.before_value < 5000)
        fail("before the suspend the counter read less than its initial value 5000",
             "%s/hart%lu/hw_value_kept", name, h);
    else
        expect_eq(s.after_value, s.before_value, "%s/hart%lu/hw_value_kept", name, h);
    expect_eq(s.after_start, SUCCESS, "%s/hart%lu/hw_mapping_kept", name, h);
    expect_eq(s.after_fw, 1, "%s/hart%lu/fw_counter_kept", name, h);
}

} // namespace

void payload_main() {
    C = discover();
    FB = C.first_fw();
    fwmask = C.fw >> FB;
    if (!start_secondaries()) return;
    note("%u harts, %lu counters", platform().nharts, C.n);
    per_hart_state();
    fw_events_smp();
    concurrent();
    suspend_keeps(false);
    suspend_keeps(true);
    hsm_stop_releases();
}
