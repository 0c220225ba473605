// SPDX-License-Identifier: BSD-2-Clause
// Cost of CTR CSR accesses that the firmware serves (emulated CTR, or the
// draft layout on a ratified hart), run under QEMU -icount shift=0 with the
// bench firmware (tests/ctr/build.mk, TSBI_CTR_BENCH). For each operation,
// N accesses in a branch-only loop between two rdinstret reads:
//   roundtrip = M-mode instructions per access (trap entry, decode, CTR,
//               return), i.e. the loop's count minus its S-mode part;
//   ctr       = instructions inside the CTR hooks per access (custom CSR
//               0x5C8 of the bench firmware).
// Prints "BENCH: <op> | <roundtrip> | <ctr>".
#include "ctr_pl.hpp"

PAYLOAD_NAME("ctr_bench");

using namespace pl;
using namespace ctrpl;

namespace {

constexpr unsigned long kN = 512;
using bench_insns = Csr<0x5C8>;

// Loops of kN iterations: "<op>; addi; bnez".
#define LOOP(body)                                                                             \
    [] {                                                                                       \
        unsigned long n = kN, t;                                                               \
        asm volatile("1: " body "\n\taddi %0, %0, -1\n\tbnez %0, 1b"                           \
                     : "+r"(n), "=&r"(t)::"memory");                                           \
    }

struct Op {
    const char *name;
    void (*run)();
    bool needs_ratified, needs_draft;
};

const Op kOps[] = {
    {"native_csr_baseline(sscratch)", LOOP("csrr %1, sscratch"), false, false},
    {"read_sctrctl", LOOP("csrr %1, 0x14E"), true, false},
    {"write_sctrctl", LOOP("csrw 0x14E, zero"), true, false},
    {"read_sctrstatus", LOOP("csrr %1, 0x14F"), true, false},
    {"read_sireg(entry_source)", LOOP("csrr %1, 0x151"), false, false},
    {"read_sireg3(entry_data)", LOOP("csrr %1, 0x153"), false, false},
    {"write_siselect", LOOP("csrw 0x150, %1"), false, false},
    {"read_sctrcontrol(draft)", LOOP("csrr %1, 0x181"), false, true},
    {"write_sctrcontrol(draft)", LOOP("csrw 0x181, zero"), false, true},
    {"read_sctrstatus(draft)", LOOP("csrr %1, 0x183"), false, true},
};

} // namespace

void payload_main() {
    bool ratified = sctrctl::read().cause == kNone;
    bool draft = sctrcontrol::read().cause == kNone;
    bool counted = bench_insns::read().cause == kNone;
    expect_true(ratified || draft, "ctr_present");
    expect_true(counted, "bench_firmware");
    sctrctl::write(0);
    unsigned long base = 0;
    for (const Op &op : kOps) {
        if ((op.needs_ratified && !ratified) || (op.needs_draft && !draft)) continue;
        siselect::write(0x200);
        op.run(); // warm up (translation, caches)
        unsigned long c0 = bench_insns::read().value;
        unsigned long t0 = rdinstret();
        op.run();
        unsigned long t1 = rdinstret();
        unsigned long c1 = bench_insns::read().value;
        // Per iteration: the op's trap path plus 2 loop instructions (the
        // trapping instruction does not retire; a native one does).
        unsigned long per100 = (t1 - t0) * 100 / kN;
        if (!base) {
            base = per100;
            printf("BENCH: %s | %lu.%02lu | -\n", op.name, per100 / 100, per100 % 100);
            continue;
        }
        unsigned long rt100 = per100 - 200, ctr100 = (c1 - c0) * 100 / kN;
        printf("BENCH: %s | %lu.%02lu | %lu.%02lu\n", op.name, rt100 / 100, rt100 % 100,
               ctr100 / 100, ctr100 % 100);
    }
    // A whole entry the way Linux reads it: select, then three registers.
    {
        unsigned long c0 = bench_insns::read().value, t0 = rdinstret();
        read_16_entries();
        unsigned long t1 = rdinstret(), c1 = bench_insns::read().value;
        printf("BENCH: read_entry(select+3_regs) | %lu | %lu\n", (t1 - t0) / 16, (c1 - c0) / 16);
    }
    if (ratified) {
        unsigned long c0 = bench_insns::read().value, t0 = rdinstret();
        sctrclr();
        unsigned long t1 = rdinstret(), c1 = bench_insns::read().value;
        printf("BENCH: sctrclr | %lu | %lu\n", t1 - t0, c1 - c0);
    }
    finish();
}
