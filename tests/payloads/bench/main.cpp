// SPDX-License-Identifier: BSD-2-Clause
// Instruction-count benchmark of SBI calls (see bench.hpp). The counter is
// instret when S-mode may read it (mcounteren.IR), else cycle, else time
// scaled to instructions (-icount shift=0 retires one instruction per ns).
// instret and cycle count every privilege mode, so the M-mode path of each
// call is inside the difference.
#include "bench.hpp"
#include "riscv/csr.hpp"

using namespace pl;

PAYLOAD_NAME("bench");

extern "C" const BenchCase __bench_cases_start[], __bench_cases_end[];

namespace {

constexpr unsigned long kIterations = 2000;
constexpr unsigned long kSsip = 1ul << csr::irq::SSI;

enum class Counter { instret, cycle, time };
Counter counter;

unsigned long read_counter() {
    unsigned long v;
    switch (counter) {
    case Counter::instret: asm volatile("rdinstret %0" : "=r"(v)); break;
    case Counter::cycle: asm volatile("rdcycle %0" : "=r"(v)); break;
    default: v = rdtime() * (1000000000ul / platform().timebase_hz); break;
    }
    return v;
}

void try_instret(void *) { asm volatile("rdinstret t0" ::: "t0"); }
void try_cycle(void *) { asm volatile("rdcycle t0" ::: "t0"); }

const char *choose_counter() {
    if (catch_exception(try_instret, nullptr) == ~0ul) {
        counter = Counter::instret;
        return "instret";
    }
    if (catch_exception(try_cycle, nullptr) == ~0ul) {
        counter = Counter::cycle;
        return "cycle";
    }
    counter = Counter::time;
    return "time";
}

__attribute__((noinline)) unsigned long measure(void (*body)()) {
    unsigned long best = ~0ul;
    // Best of three: the first pass also warms QEMU's translation cache.
    for (int pass = 0; pass < 3; pass++) {
        unsigned long t0 = read_counter();
        for (unsigned long i = 0; i < kIterations; i++) body();
        unsigned long t1 = read_counter();
        if (t1 - t0 < best) best = t1 - t0;
    }
    return best;
}

void empty_body() { asm volatile("" ::: "memory"); }

// Hundredths, printed as N.NN.
void print_case(const char *name, unsigned long total, unsigned long empty, const char *ctr) {
    unsigned long per = total * 100 / kIterations;
    long net = static_cast<long>(total - empty) * 100 / static_cast<long>(kIterations);
    printf("BENCH: %s | %lu.%02lu | %ld.%02ld | %s\n", name, per / 100, per % 100, net / 100,
           (net < 0 ? -net : net) % 100, ctr);
}

} // namespace

// --- the core cases ------------------------------------------------------------------------
BENCH_CASE(bench_spec_version) = {"base get_spec_version", nullptr, [] {
    sbi_call(eid::base, fid::base::get_spec_version);
}};
BENCH_CASE(bench_probe) = {"base probe_extension(TIME)", nullptr, [] { sbi_probe(eid::time); }};
BENCH_CASE(bench_probe_pmu) = {"base probe_extension(PMU)", nullptr, [] { sbi_probe(eid::pmu); }};
BENCH_CASE(bench_unknown) = {"unknown EID (NOT_SUPPORTED)", nullptr, [] {
    sbi_call(0x12345678, 0);
}};
BENCH_CASE(bench_set_timer) = {"time set_timer", nullptr, [] {
    sbi_set_timer(~0ull - 1);
}};
BENCH_CASE(bench_send_ipi) = {"ipi send_ipi(self)", nullptr, [] {
    sbi_send_ipi(1, hartid());
}};
BENCH_CASE(bench_fence_i) = {"rfence remote_fence_i(self)", nullptr, [] {
    sbi_call(eid::rfence, fid::rfence::remote_fence_i, 1, hartid());
}};
BENCH_CASE(bench_sfence) = {"rfence remote_sfence_vma(self, all)", nullptr, [] {
    sbi_call(eid::rfence, fid::rfence::remote_sfence_vma, 1, hartid(), 0, 0);
}};
BENCH_CASE(bench_hart_status) = {"hsm hart_get_status(self)", nullptr, [] {
    sbi_hart_get_status(hartid());
}};

void payload_main() {
    const char *ctr = choose_counter();
    // Interrupts off for the whole run: a self IPI stays pending in sip
    // instead of entering the S-mode handler on every iteration.
    irq_enable(false);
    sie_clear(kSsip);
    unsigned long empty = measure(empty_body);
    print_case("empty loop", empty, empty, ctr);
    for (const BenchCase *c = __bench_cases_start; c < __bench_cases_end; c++) {
        if (c->prepare && !c->prepare()) {
            printf("BENCH-SKIP: %s\n", c->name);
            continue;
        }
        print_case(c->name, measure(c->body), empty, ctr);
        csr_clear(csr::sip, kSsip);
    }
    sbi_set_timer(~0ull);
    pass("ran");
}
