// SPDX-License-Identifier: BSD-2-Clause
// Instructions per SBI PMU call, measured with instret around a loop of
// ecalls (the loop included, as in reference/peers.md). Meant for QEMU with
// -icount shift=0, where instret is exact; prints "BENCH: <name> <n>" lines
// that tests/bench/15-pmu.sh compares between firmware.
#include "pmu_util.hpp"

using namespace pmupl;

PAYLOAD_NAME("pmu_bench");

namespace {

constexpr unsigned kIter = 200;

inline unsigned long rdinstret() {
    unsigned long v;
    asm volatile("rdinstret %0" : "=r"(v)::"memory");
    return v;
}

// Average instructions of body() over kIter runs, in hundredths.
template <typename F> unsigned long measure(F body) {
    for (unsigned i = 0; i < 8; i++) body();
    unsigned long t0 = rdinstret();
    for (unsigned i = 0; i < kIter; i++) body();
    unsigned long t1 = rdinstret();
    return (t1 - t0) * 100 / kIter;
}

void report(const char *name, unsigned long hundredths) {
    printf("BENCH: %s %lu.%02lu\n", name, hundredths / 100, hundredths % 100);
}

} // namespace

void payload_main() {
    Counters C = discover();
    unsigned fb = C.first_fw();
    report("base_get_spec_version", measure([] { sbi_call(eid::base, fid::base::get_spec_version); }));
    report("base_probe_pmu", measure([] { sbi_probe(eid::pmu); }));
    report("pmu_num_counters", measure([] { num_counters(); }));
    report("pmu_get_info", measure([] { get_info(3); }));
    report("pmu_config_matching", measure([] { match(3, 1, 0, kDtlbRdMiss); }));
    stop(3, 1, STOP_RESET);
    unsigned long f = match(fb, C.fw >> fb, 0, fw_event(SET_TIMER)).value;
    report("pmu_fw_read", measure([f] { fw_read(f); }));
    match(3, 1, 0, kDtlbRdMiss);
    report("pmu_start_stop_pair", measure([] {
               start(3, 1, START_SET_INIT_VALUE, 0);
               stop(3, 1);
           }));
    report("time_set_timer", measure([] { sbi_set_timer(~0ull); }));
    pass("measured");
}
