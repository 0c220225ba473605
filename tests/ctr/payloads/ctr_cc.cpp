// SPDX-License-Identifier: BSD-2-Clause
// Cycle counts of records from the encoder (firmware/ctr README "Cycle
// counts"), run on QEMU 10 without Smctr under -icount shift=0, where the
// hart's cycle counter (mcycle, the encoder's Internal Core timestamp)
// advances by one per instruction: a dated record's CC is then the number of
// S-mode instructions retired after the previous recorded transfer, up to
// and including its own, which the code below fixes. Native Smctr on QEMU 10
// reports CCV=0 and CC=0 for every record (target/riscv/cpu_helper.c writes
// TYPE alone into ctrdata), so there is nothing to compare with there.
#include "ctr_pl.hpp"

PAYLOAD_NAME("ctr_cc");

using namespace pl;
using namespace ctrpl;
namespace rc = ctr::ratified::ctl;

namespace {

struct Rec {
    unsigned long src, tgt, data;
};

// Valid entries oldest first; how many.
unsigned records(Rec *out, unsigned max) {
    unsigned n = 16u << (sctrdepth::read().value & 7), k = 0;
    for (unsigned i = n; i-- > 0;) {
        unsigned long s = entry(i, 0);
        if (!(s & ctr::entry::source_V) || k == max) continue;
        out[k++] = {s, entry(i, 1), entry(i, 2)};
    }
    return k;
}

void reset() {
    sctrctl::write(0);
    sctrdepth::write(0);
    sctrstatus::write(0);
    sctrclr();
}

// Indirect calls and returns, taken branches (each a message of its own:
// dated), a not-taken branch (not recorded: the count runs on), then a
// direct jump with linkage (inferred from the code: no date of its own) and
// the records after it.
__attribute__((noinline)) void window_calls(unsigned long ctl) {
    asm volatile("   lla t2, 10f\n"
                 "   lla t3, 11f\n"
                 "   li t0, 3\n"
                 "   csrw 0x14E, %0\n"
                 "   jalr ra, 0(t2)\n" // 0: indirect call, first after the write: CCV=0
                 "   nop\n"
                 "   nop\n"
                 "   nop\n"
                 "   jalr ra, 0(t2)\n" // 2: 3 nops + jalr: CC 4
                 "1: addi t0, t0, -1\n"
                 "   bnez t0, 1b\n"    // 4, 5: taken, CC 2 (addi, bnez)
                 "   jalr ra, 0(t3)\n" // 6: addi, bnez not taken, jalr: CC 3
                 "   j 12f\n"          // 9: direct jump, inferred: CCV=0
                 "10: nop\n"
                 "   nop\n"
                 "   nop\n"
                 "   nop\n"
                 "   nop\n"
                 "   ret\n"            // 1, 3: 5 nops + ret: CC 6
                 "11: jal t1, 13f\n"   // 7: direct jump with linkage, inferred: CCV=0
                 "13: ret\n"           // 8: after an inferred record: CCV=0
                 "12: csrw 0x14E, zero\n" ::"r"(ctl)
                 : "t0", "t1", "t2", "t3", "ra", "memory");
}

// A call into M-mode (an SBI call) between a call and its return: only
// S-mode's cycles count ("qualified cycles are those executed within an
// enabled privilege mode"). The ecall itself is executed in S-mode and counts
// one, as in mcycle under -icount; what M-mode runs up to its mret does not.
__attribute__((noinline)) void window_ecall(unsigned long ctl) {
    asm volatile("   lla t2, 10f\n"
                 "   csrw 0x14E, %0\n"
                 "   jalr ra, 0(t2)\n" // 0: CCV=0
                 "   j 12f\n"
                 "10: li a7, 0x10\n"   // SBI base extension
                 "   li a6, 0\n"       // sbi_get_spec_version
                 "   ecall\n"
                 "   nop\n"
                 "   ret\n"            // 1: li, li, ecall, nop, ret: CC 5
                 "12: csrw 0x14E, zero\n" ::"r"(ctl)
                 : "t2", "ra", "a0", "a1", "a6", "a7", "memory");
}

unsigned long cc(const Rec &r) { return ctr::cc::decode(uint32_t(r.data >> ctr::entry::data_CC_shift)); }
bool ccv(const Rec &r) { return r.data & ctr::entry::data_CCV; }

void dump(const char *name, const Rec *r, unsigned n) {
    for (unsigned i = 0; i < n; i++)
        printf("CTRCC: %s %u 0x%lx 0x%lx type %lu ccv %d cc %lu\n", name, i, r[i].src, r[i].tgt,
               r[i].data & ctr::entry::data_TYPE, ccv(r[i]), cc(r[i]));
}

// Record i has CCV `v` and, when valid, CC `want`.
void check(const char *name, const Rec *r, unsigned n, unsigned i, bool v, unsigned long want) {
    if (i >= n) {
        fail("missing record", "%s/rec%u", name, i);
        return;
    }
    if (ccv(r[i]) != v) {
        fail(v ? "expected CCV=1, got 0" : "expected CCV=0, got 1", "%s/rec%u_ccv", name, i);
        return;
    }
    if (v && cc(r[i]) != want) {
        fail("wrong CC", "%s/rec%u_cc (expected %lu, got %lu)", name, i, want, cc(r[i]));
        return;
    }
    pass("%s/rec%u_%s", name, i, v ? "cc" : "ccv0");
}

} // namespace

void payload_main() {
    if (!expect_eq(sctrctl::read().cause, kNone, "ctr_present")) finish();
    Rec r[16];
    reset();
    window_calls(rc::S);
    unsigned n = records(r, 16);
    dump("calls", r, n);
    expect_eq(n, 10u, "calls/count");
    check("calls", r, n, 0, false, 0);
    check("calls", r, n, 1, true, 6);
    check("calls", r, n, 2, true, 4);
    check("calls", r, n, 3, true, 6);
    check("calls", r, n, 4, true, 2);
    check("calls", r, n, 5, true, 2);
    check("calls", r, n, 6, true, 3);
    check("calls", r, n, 7, false, 0);
    check("calls", r, n, 8, false, 0);
    check("calls", r, n, 9, false, 0);
    // No record has MISP: the model has no branch predictor.
    bool misp = false;
    for (unsigned i = 0; i < n; i++) misp |= r[i].tgt & ctr::entry::target_MISP;
    expect_true(!misp, "calls/misp0");

    reset();
    window_ecall(rc::S);
    n = records(r, 16);
    dump("ecall", r, n);
    expect_eq(n, 3u, "ecall/count");
    check("ecall", r, n, 0, false, 0);
    check("ecall", r, n, 1, true, 5);
    finish();
}
