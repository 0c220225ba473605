// SPDX-License-Identifier: BSD-2-Clause
// Recording scenarios whose entries are printed, for an entry-by-entry
// comparison between two machines running this same program
// (tests/suites/26-ctr-trace.sh): QEMU 10 with native Smctr, and QEMU 10
// without it, where the firmware takes the records from the hart's N-Trace
// encoder. Each scenario clears CTR, records, disables recording and prints
// every entry as "CTRDUMP: <scenario> <index> <source> <target> <type>"
// (CC and CCV left out: they may differ), newest first.
// On a machine with several harts the scenarios run on the one with the
// highest hart ID, started alone with HSM (the suite's hart 71 of 72: the
// encoder feed serves every hart, not only hart IDs below 64).
#include "ctr_pl.hpp"

PAYLOAD_NAME("ctr_rec_cmp");

using namespace pl;
using namespace ctrpl;
namespace rc = ctr::ratified::ctl;
namespace rs = ctr::ratified::status;

namespace {

void reset(unsigned depth_enc) {
    sctrctl::write(0);
    sctrdepth::write(depth_enc);
    sctrstatus::write(0);
    sctrclr();
}

void dump(const char *name) {
    unsigned long st = sctrstatus::read().value;
    unsigned n = 16u << (sctrdepth::read().value & 7);
    printf("CTRDUMP: %s status 0x%lx depth %u\n", name, st, n);
    for (unsigned i = 0; i < n; i++) {
        unsigned long s = entry(i, 0), t = entry(i, 1), d = entry(i, 2);
        printf("CTRDUMP: %s %u 0x%lx 0x%lx %lu\n", name, i, s, t, d & ctr::entry::data_TYPE);
    }
    expect_true(sctrctl::read().value == 0, "%s/recording_off", name);
}

// Calls, returns, a taken and a not-taken branch, a direct jump (ctr_pl.hpp).
void window_basic(unsigned long ctl) { window(ctl); }

// Every transfer type of the CTR type table that a jump or branch makes,
// with the compressed forms: indirect call and jump, co-routine swap, other
// jumps with linkage, c.j, c.jr, c.jalr, c.beqz/c.bnez taken and not taken.
__attribute__((noinline)) void window_kinds(unsigned long ctl) {
    asm volatile("   lla t2, 20f\n"
                 "   lla t0, 30f\n"
                 "   li a5, 1\n"
                 "   csrw 0x14E, %0\n"
                 "   jalr ra, 0(t2)\n"          // indirect call (8), 20: returns (13)
                 "   lla t2, 21f\n"
                 "   jalr zero, 0(t2)\n"        // indirect jump (10)
                 "22: jal t1, 23f\n"            // other direct jump (15)
                 "23: lla t2, 24f\n"
                 "   jalr t1, 0(t2)\n"          // other indirect jump (14)
                 "24: jalr ra, 0(t0)\n"         // co-routine swap (12): rd=ra, rs1=t0
                 "25: .option push\n"
                 "   .option rvc\n"
                 "   c.beqz a5, 26f\n"          // not taken
                 "   c.bnez a5, 26f\n"          // taken
                 "   c.nop\n"
                 "26: c.j 27f\n"                // direct jump (11), compressed
                 "   c.nop\n"
                 "27: lla t2, 28f\n"
                 "   c.jr t2\n"                 // indirect jump (10), compressed
                 "28: lla t2, 20f\n"
                 "   c.jalr t2\n"               // indirect call (8), compressed
                 "   .option pop\n"
                 "   csrw 0x14E, zero\n"
                 "   jal zero, 99f\n"
                 "20: jalr zero, 0(ra)\n"       // return (13)
                 "21: jal zero, 22b\n"          // direct jump (11)
                 "30: jalr zero, 0(ra)\n"       // back to 25 (return, 13)
                 "99:\n" ::"r"(ctl)
                 : "ra", "t0", "t1", "t2", "a5", "memory");
}

// Compiled code with its calls, loops and compressed instructions.
__attribute__((noinline)) unsigned long sort_sum(unsigned long *v, unsigned n) {
    for (unsigned i = 1; i < n; i++) {
        unsigned long x = v[i];
        unsigned j = i;
        while (j > 0 && v[j - 1] > x) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
    unsigned long s = 0;
    for (unsigned i = 0; i < n; i++) s += v[i] * (i + 1);
    return s;
}
__attribute__((noinline)) void window_compiled(unsigned long ctl) {
    unsigned long v[12] = {9, 3, 7, 1, 12, 5, 11, 2, 8, 4, 10, 6};
    sctrctl::wr(&ctl);
    asm volatile("" ::: "memory");
    unsigned long s = sort_sum(v, 12);
    unsigned long zero = 0;
    sctrctl::wr(&zero);
    asm volatile("" ::"r"(s) : "memory");
}

volatile unsigned long g_sink;
__attribute__((noinline)) void do_ebreak(void *) {
    asm volatile("ebreak" ::: "memory");
    g_sink = 1;
}

void scenario(const char *name, unsigned depth_enc, void (*fn)(unsigned long), unsigned long ctl) {
    reset(depth_enc);
    fn(ctl);
    dump(name);
}

void scenarios() {
    if (!expect_eq(sctrctl::read().cause, kNone, "ctr_present")) return;
    scenario("basic", 0, window_basic, rc::S);
    scenario("basic_ntbren", 0, window_basic, rc::S | rc::NTBREN);
    scenario("filter_call_ret_br", 0, window_basic, rc::S | rc::DIRCALLINH | rc::RETINH | rc::TKBRINH);
    scenario("filter_ntb_only", 0, window_basic,
             rc::S | rc::NTBREN | rc::DIRCALLINH | rc::RETINH | rc::TKBRINH | rc::DIRJMPINH);
    scenario("mode_u_only", 0, window_basic, rc::U);
    scenario("rasemu", 0, window_basic, rc::S | rc::RASEMU);
    scenario("kinds", 0, window_kinds, rc::S | rc::NTBREN);
    scenario("kinds_rasemu", 0, window_kinds, rc::S | rc::RASEMU);
    scenario("kinds_no_indirect", 0, window_kinds, rc::S | rc::INDCALLINH | rc::INDJMPINH | rc::CORSWAPINH);
    scenario("compiled", 2, window_compiled, rc::S | rc::NTBREN);
    scenario("compiled_16", 0, window_compiled, rc::S);
    // 20 windows into 16 entries: WRPTR wraps.
    reset(0);
    for (int i = 0; i < 5; i++) window_basic(rc::S);
    dump("wrap");
    // Traps: an ebreak taken in S-mode (delegated), the handler's sret, and
    // then everything the payload library's handler does, at depth 64.
    reset(0);
    sctrctl::write(rc::S | (rc::FILTERS & ~rc::EXCINH & ~rc::NTBREN));
    catch_exception(do_ebreak, nullptr);
    sctrctl::write(0);
    dump("trap_exception_only");
    reset(2);
    sctrctl::write(rc::S | rc::NTBREN);
    catch_exception(do_ebreak, nullptr);
    sctrctl::write(0);
    dump("trap_everything");
    // Freeze on a breakpoint: the records up to it, then nothing.
    reset(0);
    sctrctl::write(rc::S | rc::BPFRZ);
    catch_exception(do_ebreak, nullptr);
    sctrctl::write(0);
    dump("bpfrz");
    expect_true(sctrstatus::read().value & rs::FROZEN, "bpfrz/frozen");
    reset(0);
}

} // namespace

void payload_main() {
    const unsigned long id = platform().nharts > 1 ? last_secondary() : hartid();
    if (id == hartid()) {
        scenarios();
        finish();
    }
    // The other hart alone (start_secondaries would start every hart).
    const SbiRet r = sbi_hart_start(id, secondary_entry(), secondary_opaque(id));
    if (!expect_eq(r.error, 0, "hart%lu/started", id) ||
        !expect_true(wait_until([&] { return secondary_checked_in(id); }, kPatience), "hart%lu/checked_in", id))
        finish();
    note("scenarios on hart %lu", id);
    post_job(id, [](void *) { scenarios(); }, nullptr);
    // Decoding on a loaded host takes a while: as long as the runner allows.
    expect_true(wait_job(id, 200000000), "hart%lu/scenarios_done", id);
    finish();
}
