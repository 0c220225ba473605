// SPDX-License-Identifier: BSD-2-Clause
// Cost of CTR records taken from the hart's N-Trace encoder (hart without
// Smctr), under QEMU -icount shift=0. Prints
//   "BENCH: <what> | <value>"
// for: M-mode instructions per recorded transfer (a tight call/return/branch
// loop, and a loop with 8 straight-line instructions per transfer, decoded
// at the freeze that ends the loop; bench firmware only: custom CSR 0x5C8,
// M-mode instructions retired inside the CTR hooks, which include collecting
// and decoding the trace), and the cost of reading one entry (select + 3
// registers) with recording on (each read sees every transfer before it)
// and frozen (Linux's pattern: nothing to collect): all instructions
// retired per entry / of which inside the CTR hooks ("-" without the bench
// firmware), over 16 entries read in a loop after a first one (counted
// apart: read_first_entry_*). On a hart with native Smctr only the entry reads are measured.
#include "ctr_pl.hpp"

PAYLOAD_NAME("ctr_trace_bench");

using namespace pl;
using namespace ctrpl;
namespace rc = ctr::ratified::ctl;
namespace rs = ctr::ratified::status;

namespace {

using bench_insns = Csr<0x5C8>;

// Unfreeze, n iterations of call/return/taken branch, freeze (WRPTR kept).
__attribute__((noinline)) void tight(unsigned long n) {
    unsigned long f = rs::FROZEN;
    asm volatile("   csrc 0x14F, %1\n"
                 "1: jal ra, 10f\n"
                 "   addi %0, %0, -1\n"
                 "   bnez %0, 1b\n"
                 "   csrs 0x14F, %1\n"
                 "   jal zero, 99f\n"
                 "10: jalr zero, 0(ra)\n"
                 "99:\n"
                 : "+r"(n)
                 : "r"(f)
                 : "ra", "memory");
}

// The same with 8 more instructions per transfer the decoder walks.
__attribute__((noinline)) void straight(unsigned long n) {
    unsigned long f = rs::FROZEN, t = 0;
    asm volatile("   csrc 0x14F, %2\n"
                 "1: jal ra, 10f\n"
                 "   addi %1, %1, 1\n addi %1, %1, 1\n addi %1, %1, 1\n addi %1, %1, 1\n"
                 "   addi %1, %1, 1\n addi %1, %1, 1\n addi %1, %1, 1\n"
                 "   addi %0, %0, -1\n"
                 "   bnez %0, 1b\n"
                 "   csrs 0x14F, %2\n"
                 "   jal zero, 99f\n"
                 "10: addi %1, %1, 1\n addi %1, %1, 1\n addi %1, %1, 1\n addi %1, %1, 1\n"
                 "   addi %1, %1, 1\n addi %1, %1, 1\n addi %1, %1, 1\n addi %1, %1, 1\n"
                 "   jalr zero, 0(ra)\n"
                 "99:\n"
                 : "+r"(n), "+r"(t)
                 : "r"(f)
                 : "ra", "memory");
}

// M-mode instructions inside the CTR hooks for one run of fn(n).
unsigned long hook_insns(void (*fn)(unsigned long), unsigned long n) {
    unsigned long c0 = bench_insns::read().value;
    fn(n);
    return bench_insns::read().value - c0;
}

void per_transfer(const char *name, void (*fn)(unsigned long)) {
    constexpr unsigned long kN = 20000;
    fn(kN); // warm up
    unsigned long base = hook_insns(fn, 1), many = hook_insns(fn, kN + 1);
    // kN more iterations: 3 transfers each (call, return, taken branch).
    unsigned long per100 = (many - base) * 100 / (3 * kN);
    printf("BENCH: per_transfer_%s | %lu.%02lu\n", name, per100 / 100, per100 % 100);
}

void read_entries(const char *name, bool counted) {
    // One entry read first, counted apart: while recording it decodes what
    // the bench itself ran since recording started (the sctrstatus write's
    // helper returning, the call into this function: transfers through code
    // the decoder has not seen yet, the per-transfer cost above), so that
    // each of the 16 reads that follow sees only the transfers of the loop
    // before it, as when Linux reads entry after entry.
    unsigned long f0 = rdinstret();
    read_entry(0);
    unsigned long f1 = rdinstret();
    unsigned long c0 = counted ? bench_insns::read().value : 0, t0 = rdinstret();
    read_16_entries();
    unsigned long t1 = rdinstret(), c1 = counted ? bench_insns::read().value : 0;
    printf("BENCH: read_first_entry_%s | %lu\n", name, f1 - f0);
    if (counted)
        printf("BENCH: read_entry_%s(select+3_regs) | %lu / %lu\n", name, (t1 - t0) / 16, (c1 - c0) / 16);
    else
        printf("BENCH: read_entry_%s(select+3_regs) | %lu / -\n", name, (t1 - t0) / 16);
}

} // namespace

void payload_main() {
    if (!expect_eq(sctrctl::read().cause, kNone, "ctr_present")) finish();
    const bool counted = bench_insns::read().cause == kNone;
    // Native Smctr: a read of sctrctl retires as one instruction (and the
    // payload's exception catching around it), where the emulation takes a
    // trap into M-mode and over a hundred.
    unsigned long t0 = rdinstret();
    (void)sctrctl::read();
    const bool native = rdinstret() - t0 < 100;
    sctrdepth::write(0);
    sctrstatus::write(rs::FROZEN);
    sctrctl::write(rc::S);
    if (counted && !native) {
        per_transfer("tight_loop", tight);
        per_transfer("8_more_insns", straight);
    }
    sctrstatus::write(rs::FROZEN);
    read_entries("frozen", counted);
    sctrstatus::write(0);
    read_entries("recording", counted);
    sctrctl::write(0);
    sctrstatus::write(0);
    finish();
}
