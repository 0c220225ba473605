// SPDX-License-Identifier: BSD-2-Clause
// Recording rules of the emulation against the specification's tables:
// "Trap and Trap Return Recording", "External Trap Enable Requirements",
// transfer type filtering, RAS emulation, freeze, cycle counting.
#include "fixture.hpp"

using namespace ctr;
using namespace ctrtest;
namespace rc = ratified::ctl;
namespace rs = ratified::status;
namespace dc = draft::ctl;

namespace {
constexpr unsigned long kEpc = 0x80201000, kTvec = 0x80202000, kPc = 0x80203000;

struct Rec {
    bool present;
    unsigned long src, tgt;
    unsigned type;
};
Rec newest(Emu &e) {
    unsigned long s = e.entry(0, 0);
    return {(s & 1) != 0, s & ~1ul, e.entry(0, 1), unsigned(e.entry(0, 2) & 0xF)};
}
// Runs `f` on a fresh emulated hart with mctrctl/vsctrctl set and reports
// the single record it made, if any.
template <typename F> Rec one(uint64_t mctl, uint64_t vsctl, F f, ctr::Config c = with_h()) {
    Emu e(c);
    e.wr(ratified::mctrctl, mctl, kM);
    e.wr(ratified::vsctrctl, vsctl, kM);
    f(e);
    unsigned w = e.wrptr();
    Rec r = newest(e);
    if (w == 0) REQUIRE(!r.present);
    else REQUIRE(w == 1);
    return r;
}
uint64_t enable_bit(Mode m) {
    switch (m) {
    case MODE_U: case MODE_VU: return rc::U;
    case MODE_S: case MODE_VS: return rc::S;
    default: return rc::M;
    }
}
} // namespace

TEST_CASE("record: table Trap and Trap Return Recording (V=0 modes)") {
    // Source/target enabled or not; a trap or a trap return.
    struct Pair {
        Mode lo, hi;
    } pairs[] = {{MODE_U, MODE_S}, {MODE_S, MODE_M}, {MODE_U, MODE_M}};
    for (auto p : pairs) {
        for (int src_on = 0; src_on < 2; src_on++) {
            for (int dst_on = 0; dst_on < 2; dst_on++) {
                CAPTURE(p.lo);
                CAPTURE(p.hi);
                CAPTURE(src_on);
                CAPTURE(dst_on);
                uint64_t ctl = (src_on ? enable_bit(p.lo) : 0) | (dst_on ? enable_bit(p.hi) : 0);
                // Trap lo -> hi.
                Rec t = one(ctl, 0, [&](Emu &e) { e.trap(p.lo, p.hi, kEpc, kTvec, false, 2); });
                if (src_on && dst_on) {
                    CHECK((t.present && t.src == kEpc && t.tgt == kTvec));
                } else if (!src_on && dst_on) {
                    CHECK((t.present && t.src == 0 && t.tgt == kTvec)); // "ctrsource.PC is 0"
                } else {
                    CHECK(!t.present); // external (not enabled by default) or neither
                }
                if (t.present) CHECK(t.type == TYPE_EXCEPTION);
                // Trap return hi -> lo.
                Rec r = one(ctl, 0, [&](Emu &e) { e.xret(p.hi, p.lo, kPc, kEpc); });
                if (dst_on && src_on) {
                    CHECK((r.present && r.src == kPc && r.tgt == kEpc));
                } else if (dst_on && !src_on) {
                    CHECK((r.present && r.src == kPc && r.tgt == 0)); // "ctrtarget.PC is 0"
                } else {
                    CHECK(!r.present);
                }
                if (r.present) CHECK(r.type == TYPE_TRAP_RETURN);
            }
        }
    }
}

TEST_CASE("record: virtualization transitions use vsctrctl's S/U for VS/VU") {
    // VU -> HS trap with vsctrctl.U=1 and sctrctl.S=1: recorded.
    Rec t = one(rc::S, rc::U, [](Emu &e) { e.trap(MODE_VU, MODE_S, kEpc, kTvec, false, 8); });
    CHECK((t.present && t.src == kEpc && t.tgt == kTvec));
    // Filters come from vsctrctl (the ratified note's example).
    t = one(rc::S | rc::EXCINH, rc::U, [](Emu &e) { e.trap(MODE_VU, MODE_S, kEpc, kTvec, false, 8); });
    CHECK(t.present);
    t = one(rc::S, rc::U | rc::EXCINH, [](Emu &e) { e.trap(MODE_VU, MODE_S, kEpc, kTvec, false, 8); });
    CHECK(!t.present);
    // VS -> VS-level return with vsctrctl.S only: sret from VS to VU disabled.
    Rec r = one(0, rc::S, [](Emu &e) { e.xret(MODE_VS, MODE_VU, kPc, kEpc); });
    CHECK((r.present && r.tgt == 0));
    // mctrctl.U does not enable VU.
    t = one(rc::U | rc::S, 0, [](Emu &e) { e.trap(MODE_VU, MODE_VS, kEpc, kTvec, false, 8); });
    CHECK(!t.present);
}

TEST_CASE("record: table External Trap Enable Requirements") {
    struct Row {
        Mode src, dst;
        bool mte, ste, vste; // required enables
    } rows[] = {
        {MODE_U, MODE_S, false, true, false},  {MODE_U, MODE_M, true, true, false},
        {MODE_S, MODE_M, true, false, false},  {MODE_VU, MODE_VS, false, false, true},
        {MODE_VU, MODE_S, false, true, true},  {MODE_VU, MODE_M, true, true, true},
        {MODE_VS, MODE_S, false, true, false}, {MODE_VS, MODE_M, true, true, false},
    };
    for (auto row : rows) {
        for (unsigned en = 0; en < 8; en++) {
            bool mte = en & 1, ste = en & 2, vste = en & 4;
            CAPTURE(row.src);
            CAPTURE(row.dst);
            CAPTURE(en);
            // Source enabled, target disabled.
            uint64_t mctl = (mte ? rc::MTE : 0) | (ste ? rc::STE : 0);
            uint64_t vsctl = vste ? rc::STE : 0;
            if (mode_virt(row.src)) vsctl |= enable_bit(row.src);
            else mctl |= enable_bit(row.src);
            bool want = (!row.mte || mte) && (!row.ste || ste) && (!row.vste || vste);
            // Both exceptions and interrupts, and EXCINH/INTRINH do not matter.
            for (int irq = 0; irq < 2; irq++) {
                uint64_t inh = irq ? rc::INTRINH : rc::EXCINH;
                uint64_t m = mctl | inh, v = vsctl | inh;
                Rec t = one(m, v, [&](Emu &e) { e.trap(row.src, row.dst, kEpc, kTvec, irq, 9); });
                CHECK(t.present == want);
                if (t.present) {
                    CHECK(t.src == kEpc);
                    CHECK(t.tgt == 0); // "In records for external traps, the ctrtarget.PC is 0"
                    CHECK(t.type == (irq ? TYPE_INTERRUPT : TYPE_EXCEPTION));
                }
            }
        }
    }
}

TEST_CASE("record: draft external traps need ETEN and the target's xTE only") {
    ctr::Config c = draft_only();
    for (unsigned en = 0; en < 4; en++) {
        bool eten = en & 1, mte = en & 2;
        Emu e(c);
        e.wr(draft::mctrcontrol, dc::U | (eten ? dc::ETEN : 0) | (mte ? dc::MTE : 0), kM);
        // U -> M with STE clear: the draft does not ask for intervening modes.
        e.trap(MODE_U, MODE_M, kEpc, kTvec, false, 8);
        CHECK(e.wrptr() == ((eten && mte) ? 1u : 0u));
    }
}

TEST_CASE("record: transfer type filtering for every type") {
    const Type types[] = {TYPE_TAKEN_BRANCH,        TYPE_INDIRECT_CALL, TYPE_DIRECT_CALL,
                          TYPE_INDIRECT_JUMP,       TYPE_DIRECT_JUMP,   TYPE_COROUTINE_SWAP,
                          TYPE_FUNCTION_RETURN,     TYPE_OTHER_INDIRECT_JUMP,
                          TYPE_OTHER_DIRECT_JUMP};
    for (Type t : types) {
        CAPTURE(int(t));
        Rec r = one(rc::S, 0, [&](Emu &e) { e.transfer(MODE_S, kPc, kEpc, t); });
        CHECK((r.present && r.type == t && r.src == kPc && r.tgt == kEpc));
        r = one(rc::S | filter_bit(t), 0, [&](Emu &e) { e.transfer(MODE_S, kPc, kEpc, t); });
        CHECK(!r.present);
        // Another type's inhibit bit does not matter.
        r = one(rc::S | (rc::FILTERS & ~filter_bit(t) & ~rc::NTBREN), 0,
                [&](Emu &e) { e.transfer(MODE_S, kPc, kEpc, t); });
        CHECK(r.present);
        // Disabled mode: nothing.
        r = one(rc::U, 0, [&](Emu &e) { e.transfer(MODE_S, kPc, kEpc, t); });
        CHECK(!r.present);
    }
    // Not-taken branches are recorded only with NTBREN.
    Rec r = one(rc::S, 0, [](Emu &e) { e.transfer(MODE_S, kPc, kPc + 4, TYPE_NOT_TAKEN_BRANCH); });
    CHECK(!r.present);
    r = one(rc::S | rc::NTBREN, 0, [](Emu &e) { e.transfer(MODE_S, kPc, kPc + 4, TYPE_NOT_TAKEN_BRANCH); });
    CHECK((r.present && r.type == TYPE_NOT_TAKEN_BRANCH));
    // Traps and trap returns: EXCINH, INTRINH, TRETINH.
    r = one(rc::S | rc::U | rc::EXCINH, 0, [](Emu &e) { e.trap(MODE_U, MODE_S, kEpc, kTvec, false, 8); });
    CHECK(!r.present);
    r = one(rc::S | rc::U | rc::EXCINH, 0, [](Emu &e) { e.trap(MODE_U, MODE_S, kEpc, kTvec, true, 5); });
    CHECK((r.present && r.type == TYPE_INTERRUPT));
    r = one(rc::S | rc::U | rc::INTRINH, 0, [](Emu &e) { e.trap(MODE_U, MODE_S, kEpc, kTvec, true, 5); });
    CHECK(!r.present);
    r = one(rc::S | rc::U | rc::TRETINH, 0, [](Emu &e) { e.xret(MODE_S, MODE_U, kPc, kEpc); });
    CHECK(!r.present);
    // VS/VU transfers follow vsctrctl.
    r = one(0, rc::U, [](Emu &e) { e.transfer(MODE_VU, kPc, kEpc, TYPE_DIRECT_JUMP); });
    CHECK(r.present);
    r = one(rc::S | rc::U, rc::U | rc::DIRJMPINH, [](Emu &e) { e.transfer(MODE_VU, kPc, kEpc, TYPE_DIRECT_JUMP); });
    CHECK(!r.present);
}

TEST_CASE("record: WRPTR advances, wraps at depth, and the buffer keeps the newest") {
    Emu e;
    e.wr(ratified::sctrctl, rc::S);
    for (unsigned i = 0; i < 20; i++) e.transfer(MODE_S, 0x1000 + 4 * i, 0x2000 + 4 * i, TYPE_TAKEN_BRANCH);
    CHECK(e.wrptr() == 4);
    for (unsigned x = 0; x < 16; x++) {
        CHECK(e.entry(x, 0) == ((0x1000 + 4 * (19 - x)) | 1));
        CHECK(e.entry(x, 1) == 0x2000 + 4 * (19 - x));
        CHECK((e.entry(x, 2) & 0xF) == TYPE_TAKEN_BRANCH);
    }
    // Draft WRAP: set by the wrapping increment, sticky.
    CHECK((e.rd(draft::sctrstatus) & draft::status::WRAP) != 0);
    Emu f;
    f.wr(ratified::sctrctl, rc::S);
    for (unsigned i = 0; i < 15; i++) f.transfer(MODE_S, 0x1000, 0x2000, TYPE_TAKEN_BRANCH);
    CHECK((f.rd(draft::sctrstatus) & draft::status::WRAP) == 0);
    f.transfer(MODE_S, 0x1000, 0x2000, TYPE_TAKEN_BRANCH);
    CHECK(f.rd(draft::sctrstatus) == draft::status::WRAP);
}

TEST_CASE("record: RAS emulation") {
    Emu e;
    e.wr(ratified::sctrctl, rc::S | rc::RASEMU | rc::RETINH | rc::DIRCALLINH | rc::STE);
    // Calls are recorded as normal (filter bits ignored).
    e.transfer(MODE_S, 0x100, 0x1000, TYPE_DIRECT_CALL);
    e.transfer(MODE_S, 0x1010, 0x2000, TYPE_INDIRECT_CALL);
    e.transfer(MODE_S, 0x2010, 0x3000, TYPE_DIRECT_CALL);
    CHECK(e.wrptr() == 3);
    // Other transfer types, traps and external traps are inhibited.
    e.transfer(MODE_S, 0x3004, 0x3010, TYPE_TAKEN_BRANCH);
    e.transfer(MODE_S, 0x3004, 0x3010, TYPE_DIRECT_JUMP);
    e.trap(MODE_S, MODE_S, 0x3008, 0x9000, false, 2);
    e.trap(MODE_S, MODE_M, 0x3008, 0x9000, false, 9);
    e.xret(MODE_S, MODE_S, 0x9004, 0x300C);
    CHECK(e.wrptr() == 3);
    // A return pops: WRPTR decrements and that entry's V clears; logical 0
    // moves to depth-1.
    e.transfer(MODE_S, 0x3020, 0x2014, TYPE_FUNCTION_RETURN);
    CHECK(e.wrptr() == 2);
    CHECK(e.entry(0, 0) == (0x1010 | 1));
    CHECK(e.entry(15, 0) == 0x2010); // invalidated
    CHECK(e.entry(1, 0) == (0x100 | 1));
    // A co-routine swap overwrites logical 0, WRPTR unchanged.
    e.transfer(MODE_S, 0x2018, 0x5000, TYPE_COROUTINE_SWAP);
    CHECK(e.wrptr() == 2);
    CHECK(e.entry(0, 0) == (0x2018 | 1));
    CHECK((e.entry(0, 2) & 0xF) == TYPE_COROUTINE_SWAP);
    CHECK(e.entry(1, 0) == (0x100 | 1));
    // Pops past the bottom wrap WRPTR to depth-1 and clear the draft WRAP.
    e.transfer(MODE_S, 0, 0, TYPE_FUNCTION_RETURN);
    e.transfer(MODE_S, 0, 0, TYPE_FUNCTION_RETURN);
    CHECK(e.wrptr() == 0);
    e.wr(draft::sctrstatus, draft::status::WRAP);
    e.transfer(MODE_S, 0, 0, TYPE_FUNCTION_RETURN);
    CHECK(e.wrptr() == 15);
    CHECK((e.rd(draft::sctrstatus) & draft::status::WRAP) == 0);
    // After a pop the next call's cycle count is not exact (CCV=0).
    e.transfer(MODE_S, 0x100, 0x1000, TYPE_DIRECT_CALL);
    e.transfer(MODE_S, 0x100, 0x1000, TYPE_DIRECT_CALL);
    CHECK((e.entry(0, 2) & entry::data_CCV) != 0);
    e.transfer(MODE_S, 0, 0, TYPE_FUNCTION_RETURN);
    e.transfer(MODE_S, 0x100, 0x1000, TYPE_DIRECT_CALL);
    CHECK((e.entry(0, 2) & entry::data_CCV) == 0);
}

TEST_CASE("record: FROZEN inhibits recording") {
    Emu e;
    e.wr(ratified::sctrctl, rc::S | rc::U);
    e.wr(ratified::sctrstatus, rs::FROZEN);
    e.transfer(MODE_S, 0x100, 0x200, TYPE_DIRECT_CALL);
    e.trap(MODE_U, MODE_S, kEpc, kTvec, false, 8);
    e.xret(MODE_S, MODE_U, kPc, kEpc);
    CHECK(e.wrptr() == 0);
    CHECK(e.entry(0, 0) == 0);
    e.wr(ratified::sctrstatus, 0);
    e.transfer(MODE_S, 0x100, 0x200, TYPE_DIRECT_CALL);
    CHECK(e.wrptr() == 1);
}

TEST_CASE("record: freeze on LCOFI and breakpoint (LCOFIFRZ, BPFRZ)") {
    constexpr unsigned long kLcofi = 13, kBreakpoint = 3;
    for (Mode to : {MODE_S, MODE_M}) {
        CAPTURE(to);
        Emu e(with_h());
        e.wr(ratified::mctrctl, rc::S | rc::U | rc::M | rc::LCOFIFRZ, kM);
        e.trap(MODE_U, to, kEpc, kTvec, true, kLcofi);
        CHECK(e.rd(ratified::sctrstatus) == rs::FROZEN); // set, the LCOFI not recorded
        Emu b(with_h());
        b.wr(ratified::mctrctl, rc::S | rc::U | rc::M | rc::BPFRZ, kM);
        b.trap(MODE_U, to, kEpc, kTvec, false, kBreakpoint);
        CHECK(b.rd(ratified::sctrstatus) == rs::FROZEN);
        // Without the freeze bits they are ordinary traps.
        Emu n(with_h());
        n.wr(ratified::mctrctl, rc::S | rc::U | rc::M, kM);
        n.trap(MODE_U, to, kEpc, kTvec, true, kLcofi);
        n.trap(MODE_U, to, kEpc, kTvec, false, kBreakpoint);
        CHECK(n.rd(ratified::sctrstatus) == 2);
    }
    // Freeze happens even when no mode is enabled for recording.
    Emu q;
    q.wr(ratified::sctrctl, rc::LCOFIFRZ);
    q.trap(MODE_U, MODE_S, kEpc, kTvec, true, kLcofi);
    CHECK(q.rd(ratified::sctrstatus) == rs::FROZEN);
    // Traps to VS freeze by vsctrctl's bits; to HS by sctrctl's.
    Emu v(with_h());
    v.wr(ratified::vsctrctl, rc::LCOFIFRZ);
    v.trap(MODE_VU, MODE_S, kEpc, kTvec, true, kLcofi);
    CHECK(v.rd(ratified::sctrstatus) == 0);
    v.trap(MODE_VU, MODE_VS, kEpc, kTvec, true, kLcofi);
    CHECK(v.rd(ratified::sctrstatus) == rs::FROZEN);
    // Other interrupts/exceptions do not freeze.
    Emu o;
    o.wr(ratified::sctrctl, rc::LCOFIFRZ | rc::BPFRZ);
    o.trap(MODE_U, MODE_S, kEpc, kTvec, true, 5);
    o.trap(MODE_U, MODE_S, kEpc, kTvec, false, 13);
    o.trap(MODE_U, MODE_S, kEpc, kTvec, true, 3);
    CHECK(o.rd(ratified::sctrstatus) == 0);
}

TEST_CASE("record: cycle counting fills CC and CCV, saturating") {
    Emu e;
    e.wr(ratified::sctrctl, rc::S);
    ctr::add_cycles(e.h, 100);
    e.transfer(MODE_S, 0x100, 0x200, TYPE_DIRECT_CALL); // first after the write: CCV=0
    unsigned long d = e.entry(0, 2);
    CHECK((d & entry::data_CCV) == 0);
    CHECK((d >> 16) == 100);
    ctr::add_cycles(e.h, 5000);
    e.transfer(MODE_S, 0x100, 0x200, TYPE_DIRECT_CALL);
    d = e.entry(0, 2);
    CHECK((d & entry::data_CCV) != 0);
    CHECK(cc::decode(uint32_t(d >> 16)) == 5000);
    ctr::add_cycles(e.h, 1ull << 40);
    e.transfer(MODE_S, 0x100, 0x200, TYPE_DIRECT_CALL);
    CHECK((e.entry(0, 2) >> 16) == 0xFFFF);
    // A feeder that lost count marks the next record inexact.
    ctr::add_cycles(e.h, 7);
    ctr::cycles_inexact(e.h);
    e.transfer(MODE_S, 0x100, 0x200, TYPE_DIRECT_CALL);
    CHECK((e.entry(0, 2) & entry::data_CCV) == 0);
    CHECK((e.entry(0, 2) >> 16) == 7);
    // With CCE unimplemented the count saturates at 4095.
    ctr::Config c;
    c.cce_bits = 0;
    Emu z(c);
    z.wr(ratified::sctrctl, rc::S);
    ctr::add_cycles(z.h, 1u << 20);
    z.transfer(MODE_S, 0x100, 0x200, TYPE_DIRECT_CALL);
    CHECK((z.entry(0, 2) >> 16) == 0x0FFF);
}

TEST_CASE("record: MISP and XLEN truncation of recorded addresses") {
    Emu e;
    e.wr(ratified::sctrctl, rc::S);
    ctr::record_transfer(e.c, e.h, MODE_S, 0x100, 0x201, TYPE_TAKEN_BRANCH, true);
    CHECK(e.entry(0, 1) == 0x201);
    ctr::Config c;
    c.misp = false;
    c.rv32 = true;
    Emu f(c);
    f.wr(ratified::sctrctl, rc::S);
    ctr::record_transfer(f.c, f.h, MODE_S, 0x1234567890ul, 0x201, TYPE_TAKEN_BRANCH, true);
    CHECK(f.entry(0, 0) == 0x34567891ul);
    CHECK(f.entry(0, 1) == 0x200);
}

TEST_CASE("record: TransferRun records what record_transfer after cycles_inexact records") {
    // Random controls (enables, RASEMU, every filter bit, FROZEN, depth, a
    // pending cycle count), the same transfers through both paths, then the
    // whole state compared.
    uint64_t x = 0x9E3779B97F4A7C15ull;
    auto rnd = [&x] {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        return x;
    };
    const Type types[] = {TYPE_NOT_TAKEN_BRANCH, TYPE_TAKEN_BRANCH, TYPE_INDIRECT_CALL,   TYPE_DIRECT_CALL,
                          TYPE_INDIRECT_JUMP,    TYPE_DIRECT_JUMP,  TYPE_COROUTINE_SWAP,  TYPE_FUNCTION_RETURN,
                          TYPE_OTHER_INDIRECT_JUMP, TYPE_OTHER_DIRECT_JUMP, TYPE_TRAP_RETURN};
    for (int round = 0; round < 400; round++) {
        CAPTURE(round);
        ctr::Config cfg = with_h();
        cfg.cycle_counting = round % 3 != 0;
        Emu a(cfg), b(cfg);
        uint64_t ctl = (rnd() & (rc::U | rc::S | rc::RASEMU)) | (rnd() & 0xFFFF00000000ull);
        Mode mode = round % 4 == 0 ? MODE_U : MODE_S;
        unsigned depth = unsigned(rnd() % 3);
        uint64_t cycles = round % 5 == 0 ? rnd() % 100000 : 0;
        uint32_t status = (round % 7 == 0 ? rs::FROZEN : 0) | unsigned(rnd() % 16);
        for (Emu *e : {&a, &b}) {
            e->wr(ratified::sctrdepth, depth, kM);
            e->wr(ratified::mctrctl, ctl, kM);
            e->wr(ratified::sctrstatus, status, kM);
            e->h.cycles = cycles;
        }
        TransferRun run(b.c, b.h, mode);
        for (int i = 0; i < 70; i++) {
            unsigned long src = rnd(), tgt = rnd();
            Type t = types[rnd() % (sizeof types / sizeof types[0])];
            cycles_inexact(a.h);
            record_transfer(a.c, a.h, mode, src, tgt, t);
            run.transfer(src, tgt, t);
        }
        CHECK(a.h.status == b.h.status);
        CHECK(a.h.cycles == b.h.cycles);
        CHECK(a.h.cycles_valid == b.h.cycles_valid);
        for (unsigned i = 0; i < kCapacity; i++) {
            CAPTURE(i);
            CHECK(a.h.src[i] == b.h.src[i]);
            CHECK(a.h.tgt[i] == b.h.tgt[i]);
            CHECK(a.h.data[i] == b.h.data[i]);
        }
    }
}
