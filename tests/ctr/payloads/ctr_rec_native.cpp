// SPDX-License-Identifier: BSD-2-Clause
// Recording on a hart with ratified CTR (QEMU 10, smctr=true): branches,
// calls, returns, jumps, traps, filters, RAS emulation and freeze, read
// back through the entry registers the firmware opened to S-mode. Each
// recorded window is a branch-free enable ... disable sequence in assembly so
// the records are exactly the ones listed.
#include "ctr_pl.hpp"

PAYLOAD_NAME("ctr_rec_native");

using namespace pl;
using namespace ctrpl;
namespace rc = ctr::ratified::ctl;
namespace rs = ctr::ratified::status;

namespace {

struct Rec {
    unsigned long src, tgt, data;
};
Rec rec(unsigned i) { return {entry(i, 0), entry(i, 1), entry(i, 2)}; }

unsigned wrptr() { return sctrstatus::read().value & rs::WRPTR; }

void reset() {
    sctrctl::write(0);
    sctrdepth::write(0);
    sctrstatus::write(0);
    sctrclr();
}

bool is(const Rec &r, unsigned long src, unsigned long tgt, unsigned type) {
    return r.src == (src | ctr::entry::source_V) && r.tgt == tgt &&
           (r.data & ctr::entry::data_TYPE) == type;
}

void check_rec(unsigned i, unsigned long src, unsigned long tgt, unsigned type, const char *name) {
    Rec r = rec(i);
    if (!expect_true(is(r, src, tgt, type), "%s", name))
        note("entry %u: source 0x%lx target 0x%lx data 0x%lx; want 0x%lx 0x%lx type %u", i, r.src,
             r.tgt, r.data, src | 1, tgt, type);
}

void basic() {
    reset();
    Labels l = window(rc::S);
    expect_eq(wrptr(), 4, "basic/four_records");
    check_rec(0, l.jump, l.after_jump, ctr::TYPE_DIRECT_JUMP, "basic/direct_jump");
    check_rec(1, l.branch, l.after_branch, ctr::TYPE_TAKEN_BRANCH, "basic/taken_branch");
    check_rec(2, l.func, l.after_call, ctr::TYPE_FUNCTION_RETURN, "basic/function_return");
    check_rec(3, l.call, l.func, ctr::TYPE_DIRECT_CALL, "basic/direct_call");
    expect_eq(entry(4, 0), 0, "basic/older_entries_empty");
}

void filters() {
    reset();
    Labels l = window(rc::S | rc::DIRCALLINH | rc::RETINH | rc::TKBRINH);
    expect_eq(wrptr(), 1, "filter/inhibits_call_return_branch");
    check_rec(0, l.jump, l.after_jump, ctr::TYPE_DIRECT_JUMP, "filter/jump_kept");
    reset();
    l = window(rc::S | rc::NTBREN | rc::DIRCALLINH | rc::RETINH | rc::TKBRINH | rc::DIRJMPINH);
    expect_eq(wrptr(), 1, "filter/ntbren_only");
    Rec r = rec(0);
    expect_true(r.src == (l.ntb | 1) && (r.data & 0xF) == ctr::TYPE_NOT_TAKEN_BRANCH,
                "filter/not_taken_branch");
    // U-mode only: S-mode transfers are not recorded.
    reset();
    window(rc::U);
    expect_eq(wrptr(), 0, "filter/mode_disabled");
}

void ras() {
    reset();
    // RASEMU: the call is pushed, the return pops it (WRPTR back, V clear);
    // branches and jumps are inhibited.
    Labels l = window(rc::S | rc::RASEMU);
    expect_eq(wrptr(), 0, "rasemu/call_popped_by_return");
    expect_eq(entry(15, 0), l.call, "rasemu/popped_entry_invalid");
}

void depth_wrap() {
    reset();
    sctrdepth::write(0);
    for (int i = 0; i < 5; i++) window(rc::S); // 20 records into 16 entries
    expect_eq(wrptr(), 4, "depth/wrptr_wraps");
    bool valid = true;
    for (unsigned i = 0; i < 16; i++) valid &= (entry(i, 0) & 1) != 0;
    expect_true(valid, "depth/full_buffer_valid");
    sctrclr();
    expect_eq(entry(0, 0), 0, "depth/sctrclr");
}

volatile unsigned long g_fault_pc;
__attribute__((noinline)) void do_ebreak(void *) {
    asm volatile("   lla t0, 1f\n"
                 "   sd t0, %0\n"
                 "1: ebreak\n"
                 : "=m"(g_fault_pc)
                 :
                 : "t0", "memory");
}

void traps() {
    // Only exceptions recorded: the trap handler's own transfers and its
    // sret are inhibited.
    const unsigned long only_exc = rc::S | (rc::FILTERS & ~rc::EXCINH & ~rc::NTBREN);
    unsigned long stvec;
    asm volatile("csrr %0, stvec" : "=r"(stvec));
    reset();
    sctrctl::write(only_exc);
    unsigned long cause = catch_exception(do_ebreak, nullptr);
    sctrctl::write(0);
    expect_eq(cause, 3, "trap/ebreak_taken");
    expect_eq(wrptr(), 1, "trap/one_record");
    check_rec(0, g_fault_pc, stvec & ~3ul, ctr::TYPE_EXCEPTION, "trap/exception_s_to_s");
    // An SBI call traps to M-mode: an external trap, not recorded (MTE=0),
    // and the mret from M (disabled) is not recorded either.
    reset();
    sctrctl::write(rc::S | rc::STE);
    asm volatile("" ::: "memory");
    sbi_probe(sbi::eid::base);
    sctrctl::write(0);
    unsigned n = wrptr();
    bool ext = false;
    for (unsigned i = 0; i < n; i++) ext |= (entry(i, 2) & 0xF) == ctr::TYPE_EXCEPTION;
    expect_true(!ext, "trap/ecall_to_m_not_recorded");
    // Freeze on breakpoint: FROZEN set, the ebreak not recorded.
    reset();
    sctrctl::write(only_exc | rc::BPFRZ);
    catch_exception(do_ebreak, nullptr);
    sctrctl::write(0);
    expect_eq(sctrstatus::read().value, rs::FROZEN, "trap/bpfrz_freezes");
    expect_eq(entry(0, 0), 0, "trap/bpfrz_not_recorded");
    // Recording stays off while frozen.
    sctrstatus::write(rs::FROZEN);
    window(rc::S);
    expect_eq(sctrstatus::read().value, rs::FROZEN, "trap/frozen_inhibits");
    sctrstatus::write(0);
}

} // namespace

void payload_main() {
    if (!expect_eq(sctrctl::read().cause, kNone, "native_ctr_present")) finish();
    basic();
    filters();
    ras();
    depth_wrap();
    traps();
    reset();
    finish();
}
