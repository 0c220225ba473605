// SPDX-License-Identifier: BSD-2-Clause
// The traced workload shared by the trace payloads (trace.cpp for the
// memory-mapped encoder, strc.cpp for self-hosted trace): calls, returns,
// indirect calls, a jump table, loops and an SBI call (a trap into the
// firmware and back) every eighth round, so a decoded trace exercises every
// message kind that S-mode control flow produces.
#pragma once

#include "payload.hpp"

namespace workload_detail {
inline volatile unsigned long sink;
__attribute__((noinline)) inline unsigned long fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__attribute__((noinline)) inline unsigned long op_a(unsigned long x) { return x * 3 + 1; }
__attribute__((noinline)) inline unsigned long op_b(unsigned long x) { return x ^ (x >> 3); }
inline unsigned long (*volatile ops[2])(unsigned long) = {op_a, op_b};
__attribute__((noinline)) inline unsigned long dispatch(unsigned k, unsigned long x) {
    switch (k & 7) {
    case 0: return x + 1;
    case 1: return x * 7;
    case 2: return x - 9;
    case 3: return x ^ 0x55;
    case 4: return x << 1;
    case 5: return x >> 2;
    case 6: return ~x;
    default: return x | 0x80;
    }
}
} // namespace workload_detail

// Runs `rounds` rounds; returns the SBI calls it made.
inline unsigned workload_rounds(unsigned rounds) {
    using namespace workload_detail;
    using namespace pl;
    unsigned calls = 0;
    for (unsigned i = 0; i < rounds; i++) {
        unsigned long x = fib(8 + (i & 1));
        for (unsigned j = 0; j < 8; j++) x = dispatch(i + j, ops[j & 1](x));
        sink = sink + x;
        if ((i & 7) == 0) {
            sbi_call(eid::base, fid::base::get_spec_version);
            calls++;
        }
    }
    return calls;
}
