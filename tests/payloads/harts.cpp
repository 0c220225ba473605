// SPDX-License-Identifier: BSD-2-Clause
// Many harts and sparse hart IDs (issue 29): every hart the device tree
// describes is started and stopped through HSM; IPIs and remote fences reach
// the hart with the highest ID and, where the machine has them, harts 63 and
// 64 together (one hart mask across an XLEN word boundary of the firmware's
// bitmaps on RV64; 31 and 32 on RV32); a PMU firmware counter on the last
// hart counts the fences it received; a hart ID the tree does not list is
// INVALID_PARAM (ext-hsm.adoc, ext-ipi.adoc, ext-rfence.adoc, ext-pmu.adoc,
// binary-encoding.adoc "Hart list parameter"). bootarg harts=N: the hart
// count the machine was given (the device tree must list them all).
// Cheap on hundreds of harts: at most three secondaries run at a time.
#include "payload.hpp"
#include "riscv/csr.hpp"
#include "workload.hpp"
#include "trace/service.hpp"

using namespace pl;

PAYLOAD_NAME("harts");

namespace {

bool is_hart(unsigned long id) { return hart_index(id) != ~0u; }

// Every secondary: STOPPED, started into the job loop, stopped again. One
// case per property, naming the first hart that broke it.
void start_stop_every_hart() {
    const Platform &p = platform();
    unsigned started = 0, stopped = 0;
    unsigned long bad_status = ~0ul, bad_start = ~0ul, bad_stop = ~0ul;
    clause("hsm/hart_start/starts");
    for (unsigned i = 0; i + 1 < p.nharts; i++) {
        const unsigned long h = secondary_hartid(i);
        if (sbi_hart_get_status(h).value != static_cast<unsigned long>(hsm_state::stopped) &&
            bad_status == ~0ul)
            bad_status = h;
        reset_checkin(h);
        const SbiRet r = sbi_hart_start(h, secondary_entry(), secondary_opaque(h));
        if (r.error == 0 && wait_until([&] { return secondary_checked_in(h); }, kPatience)) started++;
        else if (bad_start == ~0ul) bad_start = h;
        if (stop_secondary(h)) stopped++;
        else if (bad_stop == ~0ul) bad_stop = h;
    }
    char why[96];
    const unsigned want = p.nharts ? p.nharts - 1 : 0;
    snprintf(why, sizeof why, "hart %lu was not STOPPED before its start", bad_status);
    expect_true(bad_status == ~0ul, "hsm/every_hart_stopped_at_boot") || fail(why, "hsm/first_not_stopped");
    snprintf(why, sizeof why, "%u of %u started; first failure: hart %lu", started, want, bad_start);
    if (started == want) pass("hsm/every_hart_started");
    else fail(why, "hsm/every_hart_started");
    snprintf(why, sizeof why, "%u of %u stopped; first failure: hart %lu", stopped, want, bad_stop);
    if (stopped == want) pass("hsm/every_hart_stopped");
    else fail(why, "hsm/every_hart_stopped");
}

bool start(unsigned long h) {
    reset_checkin(h);
    return sbi_hart_start(h, secondary_entry(), secondary_opaque(h)).error == 0 &&
           wait_until([&] { return secondary_checked_in(h); }, kPatience);
}

// An IPI through (mask, base) reaches each of `targets` (started harts).
void ipi_reaches(unsigned long mask, unsigned long base, const unsigned long *targets, unsigned n,
                 const char *name) {
    unsigned long before[3];
    for (unsigned i = 0; i < n; i++) before[i] = irq_state(targets[i]).ssi;
    if (!expect_err(sbi_send_ipi(mask, base), SUCCESS, "%s/error", name)) return;
    const bool got = wait_until(
        [&] {
            for (unsigned i = 0; i < n; i++)
                if (irq_state(targets[i]).ssi == before[i]) return false;
            return true;
        },
        kPatience);
    expect_true(got, "%s/delivered", name);
}

// The PMU firmware event "fence.i received" (ext-pmu.adoc, "Event:
// Firmware", code 9) counted on the calling hart: a firmware counter
// configured and started here, its index in `cidx`.
struct FwCounter {
    long error;
    unsigned long cidx;
};
constexpr unsigned long kFwFenceIReceived = (0xful << 16) | 9;
constexpr unsigned long kCfgClearValue = 1ul << 1, kCfgAutoStart = 1ul << 2;
void config_fw_counter(void *arg) {
    auto *c = static_cast<FwCounter *>(arg);
    // The firmware counters: counter_get_info's type bit (XLEN-1) set.
    const SbiRet n = sbi_call(eid::pmu, fid::pmu::num_counters);
    unsigned long fw = 0;
    for (unsigned long i = 0; i < n.value && i < kXlen; i++) {
        const SbiRet info = sbi_call(eid::pmu, fid::pmu::counter_get_info, i);
        if (info.error == 0 && (info.value & kTopBit)) fw |= 1ul << i;
    }
    const SbiRet r = sbi_call(eid::pmu, fid::pmu::counter_config_matching, 0, fw,
                              kCfgClearValue | kCfgAutoStart, kFwFenceIReceived, 0);
    c->error = r.error;
    c->cidx = r.value;
}
void read_fw_counter(void *arg) {
    auto *c = static_cast<FwCounter *>(arg);
    const SbiRet r = sbi_call(eid::pmu, fid::pmu::counter_fw_read, c->cidx);
    c->error = r.error;
    c->cidx = r.value; // the count
}

void highest_hart() {
    const Platform &p = platform();
    const unsigned long last = last_secondary();
    if (last == ~0ul) {
        not_applicable("one hart", "highest/ipi");
        return;
    }
    info("highest", "hart %lu of %u", last, p.nharts);
    if (!expect_true(start(last), "highest/started")) return;
    clause("ipi/send_ipi/delivery");
    const unsigned long t[] = {last};
    ipi_reaches(1, last, t, 1, "highest/ipi_base");
    ipi_reaches(0, ~0ul, t, 1, "highest/ipi_base_minus_one");
    if (last < kXlen) ipi_reaches(1ul << last, 0, t, 1, "highest/ipi_mask");
    clause("ipi/send_ipi/INVALID_PARAM");
    expect_err(sbi_send_ipi(1, p.max_hartid + 1), ERR_INVALID_PARAM, "beyond_last/ipi");
    expect_err(sbi_send_ipi(0b11, last), ERR_INVALID_PARAM, "last_and_beyond/ipi");
    // A hart ID the tree does not list, below the highest (sparse IDs).
    unsigned long hole = ~0ul;
    for (unsigned long id = 0; id < p.max_hartid && hole == ~0ul; id++)
        if (!is_hart(id)) hole = id;
    if (hole != ~0ul) {
        info("hole", "hart ID %lu is not in the device tree", hole);
        expect_err(sbi_send_ipi(1, hole), ERR_INVALID_PARAM, "hole/ipi");
        expect_err(sbi_call(eid::rfence, fid::rfence::remote_fence_i, 1, hole), ERR_INVALID_PARAM,
                   "hole/remote_fence_i");
        clause("hsm/hart_get_status/INVALID_PARAM");
        expect_err(sbi_hart_get_status(hole), ERR_INVALID_PARAM, "hole/hart_get_status");
        expect_err(sbi_hart_start(hole, secondary_entry(), 0), ERR_INVALID_PARAM, "hole/hart_start");
    }
    clause("hsm/hart_get_status/INVALID_PARAM");
    expect_err(sbi_hart_get_status(p.max_hartid + 1), ERR_INVALID_PARAM, "beyond_last/hart_get_status");

    // Remote fences to the highest hart, counted there by a PMU firmware
    // counter (the last hart's own PMU state).
    FwCounter c{};
    const bool have_pmu = sbi_probe(eid::pmu).value != 0;
    if (have_pmu) {
        run_on(last, config_fw_counter, &c);
        if (!expect_err(SbiRet{c.error, c.cidx}, SUCCESS, "highest/pmu_fw_counter_config")) return;
    }
    clause("rfence/remote_fence_i/success");
    constexpr unsigned kFences = 3;
    for (unsigned k = 0; k < kFences; k++)
        expect_err(sbi_call(eid::rfence, fid::rfence::remote_fence_i, 1, last), SUCCESS,
                   "highest/remote_fence_i_%u", k);
    clause("rfence/remote_sfence_vma/success");
    expect_err(sbi_call(eid::rfence, fid::rfence::remote_sfence_vma, 1, last, 0, 0), SUCCESS,
               "highest/remote_sfence_vma");
    clause("rfence/remote_fence_i/INVALID_PARAM");
    expect_err(sbi_call(eid::rfence, fid::rfence::remote_fence_i, 0b11, last), ERR_INVALID_PARAM,
               "last_and_beyond/remote_fence_i");
    if (have_pmu) {
        run_on(last, read_fw_counter, &c);
        expect_ret(SbiRet{c.error, c.cidx}, SUCCESS, kFences, "highest/pmu_fence_i_received");
    } else {
        not_applicable("no PMU extension", "highest/pmu_fence_i_received");
    }
    stop_secondary(last);
}

// Harts xlen-1 and xlen (IDs, and indices on a machine numbered densely)
// in one mask: the firmware's bitmaps split them across two words.
void word_boundary() {
    const unsigned long lo = kXlen - 1, hi = kXlen;
    if (!is_hart(lo) || !is_hart(hi) || lo == hartid() || hi == hartid()) {
        not_applicable("no harts on both sides of the word boundary", "boundary/ipi");
        return;
    }
    if (!expect_true(start(lo) && start(hi), "boundary/started")) return;
    clause("ipi/send_ipi/delivery");
    const unsigned long t[] = {lo, hi};
    ipi_reaches(0b11, lo, t, 2, "boundary/ipi");
    clause("rfence/remote_fence_i/success");
    expect_err(sbi_call(eid::rfence, fid::rfence::remote_fence_i, 0b11, lo), SUCCESS,
               "boundary/remote_fence_i");
    expect_err(sbi_call(eid::rfence, fid::rfence::remote_sfence_vma, 0b11, lo, 0, 0), SUCCESS,
               "boundary/remote_sfence_vma");
    stop_secondary(lo);
    stop_secondary(hi);
}

void load_word(void *arg) {
    auto *p = static_cast<unsigned long *>(arg);
    *p = *reinterpret_cast<volatile unsigned long *>(*p);
}

// Every /reserved-memory no-map region (the firmware's, and with many harts
// its harts' region at the top of RAM: core/README.md "Harts and their
// memory") is closed to S-mode: a load from its first and last word faults
// (PMP), and a DBCN write from it is INVALID_PARAM (the firmware's own
// shared-memory check). INFO names them, for the suite.
void reserved_closed() {
    const Platform &p = platform();
    unsigned nomap = 0;
    for (unsigned i = 0; i < p.nreserved && i < 8; i++) {
        const Platform::Region &r = p.reserved[i];
        if (!r.no_map || !r.size) continue;
        nomap++;
        info("harts", "reserved no-map 0x%lx+0x%lx", r.base, r.size);
        clause("isolation/firmware_memory/protected");
        const unsigned long at[] = {r.base, r.base + r.size - sizeof(long)};
        for (unsigned long a : at) {
            unsigned long v = a, tval = 0;
            const unsigned long cause = catch_exception(load_word, &v, &tval);
            char why[96];
            snprintf(why, sizeof why, "load 0x%lx: scause 0x%lx stval 0x%lx", a, cause, tval);
            if (cause == csr::cause::load_access && tval == a) pass("reserved/0x%lx/load_faults", a);
            else fail(why, "reserved/0x%lx/load_faults", a);
        }
        if (sbi_probe(eid::dbcn).value) {
            clause("dbcn/console_write/INVALID_PARAM");
            expect_err_or(sbi_call(eid::dbcn, fid::dbcn::write, 1, r.base, 0), ERR_INVALID_PARAM,
                          ERR_FAILED, "reserved/0x%lx/dbcn_write", r.base);
        }
    }
    info("harts", "%u reserved no-map regions", nomap);
}

void traced_work(void *) { workload_rounds(2); }

// The firmware's trace service (firmware/trace/README.md) on harts past 63,
// where the machine has trace components the firmware owns (the project
// QEMU 10 with tsbi,trace-owner = "m-mode"): the two highest harts named by
// one hart list, their status words from a hart_base, and a trace of the
// highest one's S-mode work in the sink's SRAM.
void trace_high_harts() {
    constexpr long EID = sbi::eid::tsbi_trace;
    enum : long { GET_CAPS, CONFIGURE, SET_SINK, START, STOP, GET_STATUS };
    const Platform &p = platform();
    clause("tsbi_trace/hart_mask");
    if (sbi_probe(EID).value != 1) {
        not_applicable("no trace service", "trace/high_harts");
        return;
    }
    // The service serves every hart with an encoder up to the build's hart
    // limit (trace/README.md "Harts"): a hart past them has none (caps 0)
    // and is NOT_SUPPORTED.
    auto has_encoder = [&](unsigned long h) {
        SbiRet r = sbi_call(EID, GET_CAPS, h);
        return r.error == 0 && r.value != 0;
    };
    unsigned long found[2] = {~0ul, ~0ul};
    unsigned nfound = 0;
    for (unsigned i = p.nharts; i-- > 0 && nfound < 2;) {
        const unsigned long h = p.hartids[i];
        if (h == hartid()) continue;
        if (has_encoder(h)) found[nfound++] = h;
        else if (nfound == 0 && h == p.max_hartid) { // the highest hart only
            clause("tsbi_trace/NOT_SUPPORTED");
            expect_err(sbi_call(EID, CONFIGURE, hart_list(h).mask, hart_list(h).base, 6 | trace::cfg::PRIV_S),
                       ERR_NOT_SUPPORTED, "trace/no_encoder/hart%lu/configure", h);
        }
    }
    const unsigned long last = found[0], prev = found[1];
    if (nfound < 2 || last < kXlen) {
        not_applicable("no two secondaries with encoders, one past 63", "trace/high_harts");
        return;
    }
    clause("tsbi_trace/hart_mask");
    HartList l = hart_list(last);
    if (!hart_list_add(l, prev)) l = {1ul | 1ul << (last - prev), prev};
    if (last - prev >= kXlen) {
        not_applicable("the two highest harts are not in one XLEN window", "trace/high_harts");
        return;
    }
    const unsigned long cfg = 6 | trace::cfg::PRIV_S; // HTM of S-mode
    if (!expect_err(sbi_call(EID, GET_CAPS, last), SUCCESS, "trace/high/caps") ||
        !expect_err(sbi_call(EID, CONFIGURE, l.mask, l.base, cfg), SUCCESS, "trace/high/configure") ||
        !expect_err(sbi_call(EID, SET_SINK, 0, 0, 0, 0), SUCCESS, "trace/high/set_sink_sram") ||
        !expect_err(sbi_call(EID, START, l.mask, l.base), SUCCESS, "trace/high/start"))
        return;
    static trace::Status st;
    // Bit i of the status words: hart hart_base + i.
    const unsigned long base = prev & ~63ul;
    expect_err(sbi_call(EID, GET_STATUS, reinterpret_cast<unsigned long>(&st), 0, base), SUCCESS,
               "trace/high/status");
    const uint64_t want = (1ull << (prev - base)) | (last - base < 64 ? 1ull << (last - base) : 0);
    expect_eq(st.harts & want, want, "trace/high/status_names_both");
    expect_err(sbi_call(EID, GET_STATUS, reinterpret_cast<unsigned long>(&st), 0, 0), SUCCESS,
               "trace/high/status_base0");
    expect_eq(st.harts, prev < 64 ? 1ull << prev : 0, "trace/high/status_base0_below_64_only");
    // The highest hart runs S-mode code while it traces.
    if (expect_true(start(last), "trace/high/started")) {
        run_on(last, traced_work, nullptr);
        stop_secondary(last);
    }
    expect_err(sbi_call(EID, STOP, l.mask, l.base), SUCCESS, "trace/high/stop");
    sbi_call(EID, GET_STATUS, reinterpret_cast<unsigned long>(&st), 0, base);
    expect_eq(st.harts, 0, "trace/high/stopped");
    info("harts", "trace of harts %lu and %lu: %lu bytes in the SRAM", prev, last,
         static_cast<unsigned long>(st.bytes));
    expect_true(st.bytes > 0, "trace/high/trace_in_sram");
}

} // namespace

void payload_main() {
    const Platform &p = platform();
    const unsigned long want = bootarg("harts", 0);
    info("harts", "%u harts, highest hart ID %lu, boot hart %lu", p.nharts, p.max_hartid, hartid());
    if (want) expect_eq(p.nharts, want, "device_tree_lists_every_hart");
    start_stop_every_hart();
    highest_hart();
    word_boundary();
    reserved_closed();
    trace_high_harts();
}
