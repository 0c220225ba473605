// SPDX-License-Identifier: BSD-2-Clause
// Two harts record at once from their encoders (harts without Smctr,
// tests/suites/26-ctr-trace.sh): they share the RAM sink, and each hart's
// collect pauses it, so the other hart's stream loses data now and then.
// A loss may leave a read without the latest transfers (a gap), but no
// entry may ever be a transfer that did not happen; most reads are whole.
#include "ctr_pl.hpp"

PAYLOAD_NAME("ctr_smp");

using namespace pl;
using namespace ctrpl;
namespace rc = ctr::ratified::ctl;
namespace rs = ctr::ratified::status;

namespace {

struct Result {
    unsigned long rounds, whole, wrong;
};
Result g_res[2];

void run(void *arg) {
    Result &r = *static_cast<Result *>(arg);
    static const unsigned long kRounds[] = {1, 7, 100, 1000, 5000, 20000, 60000, 3, 300};
    LoopLabels l{};
    sctrdepth::write(0);
    sctrstatus::write(rs::FROZEN);
    sctrclr();
    sctrctl::write(rc::S);
    unsigned long transfers = 0;
    for (unsigned i = 0; transfers < 300000; i++) {
        unsigned long n = kRounds[i % (sizeof kRounds / sizeof kRounds[0])];
        round(n, l);
        transfers += 3 * n - 1;
        r.rounds++;
        r.whole += loop_entries_ok(l, r.wrong);
    }
    sctrctl::write(0);
    sctrstatus::write(0);
}

} // namespace

void payload_main() {
    if (!expect_eq(sctrctl::read().cause, kNone, "ctr_present")) finish();
    if (!expect_true(platform().nharts >= 2, "two_harts") || !start_secondaries()) finish();
    unsigned long other = secondary_hartid(0);
    post_job(other, run, &g_res[1]);
    run(&g_res[0]);
    expect_true(wait_job(other, 120000000), "secondary_done");
    for (unsigned h = 0; h < 2; h++) {
        note("hart %u: %lu rounds, %lu whole reads, %lu wrong entries", h, g_res[h].rounds, g_res[h].whole,
             g_res[h].wrong);
        expect_eq(g_res[h].wrong, 0, "hart%u/no_wrong_record", h);
        expect_true(g_res[h].whole * 2 > g_res[h].rounds, "hart%u/most_reads_whole", h);
    }
    finish();
}
