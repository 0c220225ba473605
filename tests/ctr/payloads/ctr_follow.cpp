// SPDX-License-Identifier: BSD-2-Clause
// CTR entry accesses in a row (siselect written, then sireg, sireg2, sireg3
// read), which the firmware serves in the trap of the first one on a hart
// without Smctr (firmware/ctr README "Entry accesses in one trap"): each
// gives what the same access gives alone, whatever the layout of the code
// (a word or a half-word off, across a page, a register the trap frame does
// not hold, x0, a second select in the row, a select that is not CTR's
// before a read), a DBTR execute trigger on a later instruction of the row
// still fires, and while recording the first read sees the transfer just
// before the row. Passes alike on native Smctr, where nothing traps.
#include "ctr_pl.hpp"
#include "sbi/dbtr_logic.hpp"

PAYLOAD_NAME("ctr_follow");

using namespace pl;
using namespace ctrpl;
namespace rs = ctr::ratified::status;

// Each row: a0 = the select, a1 = where the three values go (a2: a second
// select where there is one); the labels *_r2 name the second instruction.
extern "C" {
void follow_word(unsigned long sel, unsigned long *out, unsigned long);
void follow_half(unsigned long sel, unsigned long *out, unsigned long);
void follow_saved(unsigned long sel, unsigned long *out, unsigned long);
void follow_x0(unsigned long sel, unsigned long *out, unsigned long);
void follow_two(unsigned long sel, unsigned long *out, unsigned long sel2);
void follow_bad(unsigned long sel, unsigned long *out, unsigned long sel2);
void follow_page(unsigned long sel, unsigned long *out, unsigned long);
extern char follow_word_r2[], follow_bad_read[];
}
// XLEN-bit stores of the values (out[0..2]).
#if __riscv_xlen == 64
#define FOLLOW_ST(r, i) "    sd " #r ", " #i "*8(a1)\n"
#else
#define FOLLOW_ST(r, i) "    sw " #r ", " #i "*4(a1)\n"
#endif
// The plain row (select, then the three reads) and the stores of its values.
#define FOLLOW_ROW "    csrw 0x150, a0\n    csrr t0, 0x151\n    csrr t1, 0x152\n    csrr t2, 0x153\n"
#define FOLLOW_OUT FOLLOW_ST(t0, 0) FOLLOW_ST(t1, 1) FOLLOW_ST(t2, 2) "    ret\n"
asm(
    "    .pushsection .text.ctr_follow, \"ax\"\n"
    "    .option push\n"
    "    .option norvc\n"
    "    .balign 8\n"
    "    .globl follow_word, follow_word_r2\n"
    "follow_word:\n"
    "    csrw 0x150, a0\n"
    "    csrr t0, 0x151\n"
    "follow_word_r2:\n"
    "    csrr t1, 0x152\n"
    "    csrr t2, 0x153\n"
    FOLLOW_OUT
    "    .balign 8\n"
    "    .globl follow_half\n"
    "follow_half:\n"
    "    .2byte 0x0001 /* c.nop: the row starts 2 bytes off a word */\n"
    FOLLOW_ROW
    FOLLOW_OUT
    "    .2byte 0 /* back on a word boundary */\n"
    "    .balign 8\n"
    "    .globl follow_saved\n"
    "follow_saved: /* s1: a register the trap frame of the fast path does not hold */\n"
    "    mv t3, s1\n"
    "    csrw 0x150, a0\n"
    "    csrr t0, 0x151\n"
    "    csrr s1, 0x152\n"
    "    csrr t2, 0x153\n"
    FOLLOW_ST(t0, 0)
    FOLLOW_ST(s1, 1)
    FOLLOW_ST(t2, 2)
    "    mv s1, t3\n"
    "    ret\n"
    "    .balign 8\n"
    "    .globl follow_x0\n"
    "follow_x0:\n"
    "    li t0, 0x5a5a\n"
    "    csrw 0x150, a0\n"
    "    csrr zero, 0x151\n"
    "    csrr t1, 0x152\n"
    "    csrr t2, 0x153\n"
    FOLLOW_OUT
    "    .balign 8\n"
    "    .globl follow_two\n"
    "follow_two: /* a second select in the row */\n"
    "    csrw 0x150, a0\n"
    "    csrr t0, 0x151\n"
    "    csrw 0x150, a2\n"
    "    csrr t1, 0x152\n"
    "    csrr t2, 0x153\n"
    FOLLOW_OUT
    "    .balign 8\n"
    "    .globl follow_bad, follow_bad_read\n"
    "follow_bad: /* a select that is not CTR's, then a read: illegal there */\n"
    "    csrw 0x150, a0\n"
    "    csrw 0x150, a2\n"
    "follow_bad_read:\n"
    "    csrr t0, 0x151\n"
    FOLLOW_ST(t0, 0)
    "    ret\n"
    "    .balign 4096\n"
    "    .skip 4096 - 8\n"
    "    .globl follow_page\n"
    "follow_page: /* the second read is on the next page */\n"
    FOLLOW_ROW
    FOLLOW_OUT
    "    .option pop\n"
    "    .popsection\n"
);

namespace {

using Row = void (*)(unsigned long, unsigned long *, unsigned long);
constexpr unsigned long kFirst = ctr::ind::ctr_first;
constexpr unsigned long kBreakpointCause = 3; // privileged spec, scause "Breakpoint"
constexpr unsigned kA = 3, kB = 7; // the entries set up

// The three registers of entry i, each access alone (catch_exception's
// function returns after it: nothing follows it).
struct Vals {
    unsigned long v[3];
};
Vals alone(unsigned i) { return {{entry(i, 0), entry(i, 1), entry(i, 2)}}; }

void expect_vals(const Vals &got, const Vals &want, const char *name) {
    static const char *const regs[] = {"sireg", "sireg2", "sireg3"};
    for (unsigned r = 0; r < 3; r++)
        expect_eq(got.v[r], want.v[r], "%s/%s", name, regs[r]);
}

struct RowArg {
    Row fn;
    unsigned long sel, sel2;
    Vals out;
};
void call_row(void *p) {
    RowArg &a = *static_cast<RowArg *>(p);
    a.fn(a.sel, a.out.v, a.sel2);
}
// Runs a row under catch_exception: the cause (kNone) and stval.
unsigned long run(RowArg &a, unsigned long *tval = nullptr) { return catch_exception(call_row, &a, tval); }
RowArg row(Row fn, unsigned long sel) {
    return {fn, sel, 0, {}};
}

void layouts(const Vals &a, const Vals &b) {
    const struct {
        Row fn;
        const char *name;
    } rows[] = {{follow_word, "word"}, {follow_half, "half"}, {follow_saved, "saved_reg"}, {follow_page, "page"}};
    for (auto &r : rows) {
        RowArg x = row(r.fn, kFirst + kA);
        expect_eq(run(x), kNone, "%s/no_exception", r.name);
        expect_vals(x.out, a, r.name);
    }
    // x0 as rd: the read happens, nothing is written.
    RowArg x = row(follow_x0, kFirst + kA);
    expect_eq(run(x), kNone, "x0/no_exception");
    expect_vals(x.out, {{0x5a5a, a.v[1], a.v[2]}}, "x0");
    // A second select inside the row: the reads after it read entry B.
    RowArg t{follow_two, kFirst + kA, kFirst + kB, {}};
    expect_eq(run(t), kNone, "two_selects/no_exception");
    expect_vals(t.out, {{a.v[0], b.v[1], b.v[2]}}, "two_selects");
    // A select CTR does not own, then a read: the read (only it) raises
    // illegal instruction, as alone.
    RowArg bad{follow_bad, kFirst + kA, 0x100, {}};
    unsigned long tval = 0;
    expect_eq(run(bad, &tval), kIllegal, "bad_select/illegal");
    expect_eq(tval, *reinterpret_cast<const uint32_t *>(follow_bad_read), "bad_select/at_the_read");
}

// A DBTR execute trigger on the row's second read fires there; removed,
// the row reads as before.
void trigger(const Vals &a) {
    namespace F = fid::dbtr;
    using namespace sbi::dbtr;
    alignas(64) static unsigned long shmem[4];
    if (!expect_err(sbi_call(eid::dbtr, F::set_shmem, reinterpret_cast<unsigned long>(shmem), 0, 0), SUCCESS,
                    "dbtr/set_shmem"))
        return;
    const unsigned long pc = reinterpret_cast<unsigned long>(follow_word_r2);
    long err = ERR_NOT_SUPPORTED;
    const unsigned long types[] = {TYPE_MCONTROL6, TYPE_MCONTROL};
    for (unsigned long type : types) {
        shmem[0] = ~0ul, shmem[1] = (type << kTypeShift) | EXECUTE | S, shmem[2] = pc, shmem[3] = 0;
        err = sbi_call(eid::dbtr, F::install_triggers, 1, 0, 0).error;
        if (err == SUCCESS) break;
    }
    if (!expect_eq(static_cast<unsigned long>(err), SUCCESS, "dbtr/install_execute_trigger")) return;
    const unsigned long idx = shmem[0];
    RowArg x = row(follow_word, kFirst + kA);
    unsigned long tval = 0;
    expect_eq(run(x, &tval), kBreakpointCause, "dbtr/trigger_fires");
    // stval holds the pc, or 0 where the hart does not write it (privileged
    // spec, "Supervisor Trap Value Register"; QEMU 7.2).
    expect_true(tval == pc || tval == 0, "dbtr/at_the_second_read (stval 0x%lx, read at 0x%lx)", tval, pc);
    // The handler skips the instruction that raised it: the first read
    // happened, the last one after it too.
    expect_eq(x.out.v[0], a.v[0], "dbtr/first_read_before_it");
    expect_eq(x.out.v[2], a.v[2], "dbtr/last_read_after_it");
    expect_err(sbi_call(eid::dbtr, F::uninstall_triggers, idx, 1), SUCCESS, "dbtr/uninstall");
    RowArg y = row(follow_word, kFirst + kA);
    expect_eq(run(y), kNone, "dbtr/after/no_exception");
    expect_vals(y.out, a, "dbtr/after");
}

// Recording S-mode: the row's first read sees the call into the row, the
// transfer just before it (entry 0 is the newest).
__attribute__((noinline)) void recent(Vals &out) {
    follow_word(kFirst, out.v, 0);
}
void recording() {
    const char *src = fdt_first("tsbi,ctr-source");
    const bool records = !pl::strcmp(src, "encoder") || !pl::strcmp(src, "native");
    if (!records) {
        note("no recording source (tsbi,ctr-source \"%s\"): recording row not checked", src);
        return;
    }
    sctrstatus::write(rs::FROZEN);
    sctrctl::write(ctr::ratified::ctl::S);
    Vals v{};
    freeze(false);
    recent(v);
    freeze(true);
    sctrctl::write(0);
    expect_eq(v.v[1], reinterpret_cast<unsigned long>(follow_word), "recording/newest_target_is_the_row");
    expect_eq(v.v[0] & ctr::entry::source_V, 1, "recording/newest_valid");
}

} // namespace

void payload_main() {
    if (!expect_eq(sctrctl::read().cause, kNone, "ctr_present")) finish();
    sctrctl::write(0);
    sctrstatus::write(rs::FROZEN);
    sctrdepth::write(0); // 16 entries
    sctrclr();
    const unsigned long ta = sizeof(long) == 8 ? 0x8000000012345679ul : 0x12345679ul;
    set_entry(kA, 0, ta);
    set_entry(kA, 1, 0x2468ace0);
    set_entry(kA, 2, 0x18008); // CC 1, CCV, TYPE 8
    set_entry(kB, 0, 0x13579bdf);
    set_entry(kB, 1, 0x7531);
    set_entry(kB, 2, 0x10003);
    const Vals a = alone(kA), b = alone(kB);
    expect_vals(a, {{ta, 0x2468ace0, 0x18008}}, "setup/a");
    expect_eq(b.v[0], 0x13579bdf, "setup/b_source");
    layouts(a, b);
    trigger(a);
    recording();
    sctrclr();
    finish();
}
