// SPDX-License-Identifier: BSD-2-Clause
// Benchmark cases for tests/payloads/bench (the "bench" payload). Each case
// is one SBI call (or one fixed group of calls, e.g. a start+stop pair); the
// payload runs it kIterations times between two reads of an instruction
// counter and prints
//   BENCH: <name> | <per iteration> | <per iteration minus empty loop> | <counter>
// tests/bench/10-sbi.sh runs it with -icount shift=0 on each firmware.
//
// Add a case in any tests/payloads/bench/*.cpp:
//   BENCH_CASE(my_case) = {"pmu num_counters", pmu_present, [] {
//       pl::sbi_call(pl::eid::pmu, pl::fid::pmu::num_counters);
//   }};
// `prepare` (may be nullptr) runs once before the measurement and returns
// false when the case does not apply (printed as "BENCH-SKIP: <name>").
// Cases run in link order: main.cpp's first, then other files by name.
#pragma once
// Calls without the conformance skip check (lib/payload.hpp): instructions
// per call must not include it.
#define PL_NO_SKIP
#include "payload.hpp"

struct BenchCase {
    const char *name;
    bool (*prepare)();
    void (*body)();
};

#define BENCH_CASE(ident)                                                                     \
    extern const BenchCase ident;                                                             \
    __attribute__((section(".bench_cases"), used)) const BenchCase ident
