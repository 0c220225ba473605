// SPDX-License-Identifier: BSD-2-Clause
// A long run of records taken from the hart's N-Trace encoder (hart without
// Smctr, tests/suites/26-ctr-trace.sh), with the access pattern of Linux's
// CTR driver: depth 16, recording left on, and on every "overflow" CTR is
// frozen and all 16 entries are read. More than 10^6 transfers in rounds of
// 1 to 150000 loop iterations, so the firmware's trace buffer (256 KiB)
// wraps and loses data between reads many times: the entries must always be
// the most recent transfers, in order, and never a transfer that did not
// happen. Also: the SBI trace service and the feed exclude each other.
#include "ctr_pl.hpp"

PAYLOAD_NAME("ctr_long");

using namespace pl;
using namespace ctrpl;
namespace rc = ctr::ratified::ctl;
namespace rs = ctr::ratified::status;

namespace {

constexpr long kTraceEid = 0x0A736269;
constexpr long kErrDenied = -4;

} // namespace

void payload_main() {
    if (!expect_eq(sctrctl::read().cause, kNone, "ctr_present")) finish();
    LoopLabels l{};
    // The feed holds the sink while S-mode records: S-mode's trace is refused.
    bool trace = sbi_probe(kTraceEid).value != 0;
    expect_true(trace, "trace_extension_present");
    sctrdepth::write(0);
    sctrstatus::write(rs::FROZEN);
    sctrclr();
    sctrctl::write(rc::S);
    freeze(false);
    expect_err(sbi_call(kTraceEid, 2, 0, 0, 0, 0), kErrDenied, "trace_set_sink_denied_while_feeding");
    expect_err(sbi_call(kTraceEid, 3, 1, 0), kErrDenied, "trace_start_denied_while_feeding");
    freeze(true);
    sctrclr(); // only the loop's records from here on

    static const unsigned long kRounds[] = {1, 7, 100, 1000, 5000, 20000, 60000, 150000, 3, 30000};
    unsigned long transfers = 0, rounds = 0, bad_rounds = 0, wrong = 0;
    for (unsigned r = 0; transfers < 1000000; r++) {
        unsigned long n = kRounds[r % (sizeof kRounds / sizeof kRounds[0])];
        round(n, l);
        transfers += 3 * n - 1;
        rounds++;
        bool ok = loop_entries_ok(l, wrong);
        if (!ok && bad_rounds++ < 3) {
            note("round %lu (n=%lu): entries do not follow the loop", rounds, n);
            for (unsigned i = 0; i < 16; i++)
                note("  %u: 0x%lx 0x%lx %lu", i, entry(i, 0), entry(i, 1), entry(i, 2) & 0xF);
        }
    }
    sctrctl::write(0);
    sctrstatus::write(0);
    note("%lu transfers in %lu rounds", transfers, rounds);
    expect_true(transfers >= 1000000, "million_transfers");
    expect_eq(wrong, 0, "no_wrong_record");
    expect_eq(bad_rounds, 0, "every_read_the_latest_in_order");

    // With recording off the sink is free again; while S-mode traces, CTR
    // takes no records from the encoder (traps the firmware redirects only).
    if (trace) {
        expect_err(sbi_call(kTraceEid, 1, 1, 0, 3 | (1u << 19)), 0, "trace_configure");
        expect_err(sbi_call(kTraceEid, 2, 0, 0, 0, 0), 0, "trace_set_sink_after_feed");
        expect_err(sbi_call(kTraceEid, 3, 1, 0), 0, "trace_start_after_feed");
        sctrclr();
        sctrctl::write(rc::S);
        round(10, l);
        sctrctl::write(0);
        expect_eq(entry(0, 0), 0, "no_feed_while_smode_traces");
        expect_err(sbi_call(kTraceEid, 4, 1, 0), 0, "trace_stop");
        sctrstatus::write(0);
    }
    finish();
}
