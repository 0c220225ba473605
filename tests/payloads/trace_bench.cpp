// SPDX-License-Identifier: BSD-2-Clause
// Instructions per SBI trace start and stop (firmware/trace): instret over
// many start/stop pairs of this hart, and of every hart at once (per hart),
// with an empty loop subtracted. Run by tests/bench/52-trace-fw.sh with
// -icount shift=0 on the project QEMU 10; instret counts M-mode too.
#include "payload.hpp"
#include "trace/service.hpp"

using namespace pl;

PAYLOAD_NAME("trace_bench");

namespace {

constexpr long EID = sbi::eid::tsbi_trace;
enum : long { CONFIGURE = 1, SET_SINK = 2, START = 3, STOP = 4 };
constexpr unsigned long kPairs = 200;

unsigned long instret() {
    unsigned long v;
    asm volatile("rdinstret %0" : "=r"(v));
    return v;
}

// Instructions of `pairs` start/stop pairs for `mask`, best of three.
unsigned long measure(unsigned long mask, unsigned long base, bool calls) {
    unsigned long best = ~0ul;
    for (int pass = 0; pass < 3; pass++) {
        unsigned long t0 = instret();
        for (unsigned long i = 0; i < kPairs; i++) {
            if (!calls) {
                asm volatile("" ::: "memory");
                continue;
            }
            sbi_call(EID, START, mask, base);
            sbi_call(EID, STOP, mask, base);
        }
        unsigned long t = instret() - t0;
        if (t < best) best = t;
    }
    return best;
}

} // namespace

void payload_main() {
    if (!expect_eq(sbi_probe(EID).value, 1, "probe")) return;
    if (platform().nharts > 1 && !start_secondaries()) return;
    expect_err(sbi_call(EID, CONFIGURE, 0, ~0ul, 6 | trace::cfg::PRIV_S), SUCCESS, "configure");
    expect_err(sbi_call(EID, SET_SINK, 0), SUCCESS, "sink");
    const HartList me = hart_list(hartid());
    unsigned long empty = measure(me.mask, me.base, false);
    unsigned long self = measure(me.mask, me.base, true) - empty;
    // A pair starts and stops the sink and funnels too (the first start and
    // the last stop), as a single user of the service would.
    printf("BENCH: trace start+stop, 1 hart | %lu | per pair\n", self / kPairs);
    if (platform().nharts > 1) {
        unsigned long every = measure(0, ~0ul, true) - empty; // base -1: every hart
        printf("BENCH: trace start+stop, %u harts | %lu | per hart\n", platform().nharts,
               every / kPairs / platform().nharts);
    }
    expect_true(self / kPairs <= 2 * 2000, "start_stop_within_aim");
}
