// SPDX-License-Identifier: BSD-2-Clause
// Draft software on a ratified hart: the translation in ctr_native.hpp over
// the host model of a ratified hart (hw_models/ctr) must behave like the
// emulated draft layout, except the documented WRAP approximation.
#include "ctr_native.hpp"
#include "fixture.hpp"
#include "ratified_hart.hpp"

using namespace ctr;
using namespace ctrtest;
namespace rc = ratified::ctl;
namespace dc = draft::ctl;
namespace ds = draft::status;

namespace {

// Draft software's view of a hart with ratified CTR.
struct Native {
    hwmodel::RatifiedCtrHart hw;
    native::Shadow sh{};
    ctr::Config c = [] {
        ctr::Config c = with_h(draft_only());
        c.finish();
        return c;
    }();
    CsrResult try_read(unsigned csr, const Access &a, unsigned long &v) {
        return native::draft_read(hw, sh, c, csr, a, v);
    }
    unsigned long rd(unsigned csr, const Access &a = kS) {
        unsigned long v = 0xDEAD;
        CHECK(try_read(csr, a, v) == CsrResult::Done);
        return v;
    }
    void wr(unsigned csr, unsigned long v, const Access &a = kS) {
        CHECK(native::draft_write(hw, sh, c, csr, a, v) == CsrResult::Done);
    }
    // What runs without trapping on the real hart: S-mode entry access.
    unsigned long entry(unsigned i, unsigned reg) {
        unsigned long v = 0;
        ctr::write_csr(hw.cfg, hw.state, ind::siselect, kS, ind::ctr_first + i);
        ctr::read_csr(hw.cfg, hw.state, reg == 0 ? ind::sireg : reg == 1 ? ind::sireg2 : ind::sireg3,
                      kS, v);
        return v;
    }
    void set_entry(unsigned i, unsigned reg, unsigned long v) {
        ctr::write_csr(hw.cfg, hw.state, ind::siselect, kS, ind::ctr_first + i);
        ctr::write_csr(hw.cfg, hw.state, reg == 0 ? ind::sireg : reg == 1 ? ind::sireg2 : ind::sireg3,
                       kS, v);
    }
};

uint64_t rng(uint64_t &s) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
}

} // namespace

TEST_CASE("native: draft control register reads back like the emulated draft layout") {
    Emu e(with_h(draft_only()));
    Native n;
    const unsigned long vals[] = {0, ~0ul & ~dc::CLR, dc::S | dc::U, dc::STE, dc::STE | dc::ETEN,
                                  dc::RASEMU | dc::BPFRZ | dc::LCOFIFRZ, dc::M | dc::MTE,
                                  0x0000FF3E00000000ul, dc::DEPTH, 0x30000, 0x10000, 0x70000};
    for (unsigned long v : vals) {
        CAPTURE(v);
        e.wr(draft::sctrcontrol, v);
        n.wr(draft::sctrcontrol, v);
        CHECK(n.rd(draft::sctrcontrol) == e.rd(draft::sctrcontrol));
        e.wr(draft::vsctrcontrol, v);
        n.wr(draft::vsctrcontrol, v);
        CHECK(n.rd(draft::vsctrcontrol) == e.rd(draft::vsctrcontrol));
    }
    // The ratified hart sees STE only when the draft asked for ETEN too.
    n.wr(draft::sctrcontrol, dc::S | dc::STE);
    CHECK((n.hw.state.mctl & rc::STE) == 0);
    n.wr(draft::sctrcontrol, dc::S | dc::STE | dc::ETEN);
    CHECK((n.hw.state.mctl & rc::STE) != 0);
    CHECK(n.hw.faults == 0);
}

TEST_CASE("native: CLR, status and depth go to the real registers") {
    Native n;
    n.wr(draft::sctrcontrol, dc::S | (draft::depth_code(1) << dc::DEPTH_shift));
    CHECK(n.hw.state.depth == 1);
    CHECK((n.hw.state.mctl & rc::S) != 0);
    for (unsigned i = 0; i < 5; i++)
        ctr::record_transfer(n.hw.cfg, n.hw.state, MODE_S, 0x100 + 4 * i, 0x200, TYPE_DIRECT_CALL);
    CHECK(n.rd(draft::sctrstatus) == 5);
    n.wr(draft::sctrstatus, ds::FROZEN | 9);
    CHECK(n.rd(draft::sctrstatus) == (ds::FROZEN | 9));
    CHECK(n.hw.state.status == (ratified::status::FROZEN | 9));
    n.wr(draft::sctrcontrol, dc::S | dc::CLR);
    CHECK(n.rd(draft::sctrstatus) == 0);
    CHECK(n.hw.state.depth == 0);
    for (unsigned i = 0; i < 256; i++) CHECK(n.hw.state.src[i] == 0);
    // WRAP: reported once the oldest entry is valid.
    for (unsigned i = 0; i < 15; i++)
        ctr::record_transfer(n.hw.cfg, n.hw.state, MODE_S, 0x100, 0x200, TYPE_DIRECT_CALL);
    CHECK((n.rd(draft::sctrstatus) & ds::WRAP) == 0);
    ctr::record_transfer(n.hw.cfg, n.hw.state, MODE_S, 0x100, 0x200, TYPE_DIRECT_CALL);
    CHECK(n.rd(draft::sctrstatus) == ds::WRAP);
    // The WRAP probe leaves S-mode's siselect as it was.
    ctr::write_csr(n.hw.cfg, n.hw.state, ind::siselect, kS, 0x123);
    n.rd(draft::sctrstatus);
    unsigned long sel = 0;
    ctr::read_csr(n.hw.cfg, n.hw.state, ind::siselect, kS, sel);
    CHECK(sel == 0x123);
    CHECK(n.hw.faults == 0);
}

TEST_CASE("native: access control of the translated registers") {
    Native n;
    unsigned long v;
    CHECK(n.try_read(draft::sctrcontrol, kU, v) == CsrResult::Illegal);
    CHECK(n.try_read(draft::sctrcontrol, kVU, v) == CsrResult::Virtual);
    CHECK(n.try_read(draft::mctrcontrol, kS, v) == CsrResult::Illegal);
    CHECK(n.try_read(draft::mctrstatus, kS, v) == CsrResult::Illegal);
    CHECK(n.try_read(draft::vsctrcontrol, kVS, v) == CsrResult::Virtual);
    CHECK(n.try_read(draft::sctrcontrol, kVS, v) == CsrResult::Done);
    n.hw.hstateen0 = 0;
    CHECK(n.try_read(draft::sctrcontrol, kVS, v) == CsrResult::Virtual);
    CHECK(n.try_read(draft::sctrstatus, kVS, v) == CsrResult::Virtual);
    CHECK(n.try_read(draft::sctrcontrol, kS, v) == CsrResult::Done);
    // RV64: no *h registers; ratified-only profile: nothing translated.
    CHECK(n.try_read(draft::sctrcontrolh, kS, v) == CsrResult::NotMine);
    n.c.views = VIEW_RATIFIED;
    CHECK(n.try_read(draft::sctrcontrol, kS, v) == CsrResult::NotMine);
    CHECK(n.try_read(ratified::sctrctl, kS, v) == CsrResult::NotMine);
}

TEST_CASE("native: a direct ratified write of STE ends the draft external-trap rule") {
    Native n;
    Emu e(with_h());
    n.wr(draft::sctrcontrol, dc::U | dc::STE); // STE without ETEN: hardware STE=0
    e.wr(draft::sctrcontrol, dc::U | dc::STE);
    CHECK((n.rd(draft::sctrcontrol) & (dc::STE | dc::ETEN)) == dc::STE);
    CHECK((n.hw.state.mctl & rc::STE) == 0);
    // Draft rule: no external trap U -> S without ETEN.
    native::record_trap(n.hw, n.sh, MODE_U, MODE_S, 0x1000, 0x2000, false, 8, true);
    e.trap(MODE_U, MODE_S, 0x1000, 0x2000, false, 8);
    CHECK(n.hw.state.status == 0);
    CHECK(e.wrptr() == 0);
    // S-mode software writes sctrctl itself (no trap on a ratified hart).
    ctr::write_csr(n.hw.cfg, n.hw.state, ratified::sctrctl, kS, rc::U);
    ctr::write_csr(n.hw.cfg, n.hw.state, ratified::sctrctl, kS, rc::U | rc::STE);
    e.wr(ratified::sctrctl, rc::U);
    e.wr(ratified::sctrctl, rc::U | rc::STE);
    CHECK(n.rd(draft::sctrcontrol) == e.rd(draft::sctrcontrol));
    CHECK((n.rd(draft::sctrcontrol) & (dc::STE | dc::ETEN)) == dc::STE);
    // Ratified rule now: STE alone records the external trap.
    native::record_trap(n.hw, n.sh, MODE_U, MODE_S, 0x1000, 0x2000, false, 8, true);
    e.trap(MODE_U, MODE_S, 0x1000, 0x2000, false, 8);
    CHECK(n.hw.state.status == 1);
    CHECK(e.wrptr() == 1);
    CHECK(n.entry(0, 1) == 0);
    CHECK(e.entry(0, 1) == 0);
}

TEST_CASE("native: synthesized trap records follow the emulation's rules") {
    Native n;
    n.hw.write(ratified::sctrctl, rc::S | rc::U);
    native::record_trap(n.hw, n.sh, MODE_U, MODE_S, 0x1000, 0x2000, false, 2, true);
    CHECK(n.hw.state.status == 1);
    CHECK(n.entry(0, 0) == (0x1000 | 1));
    CHECK(n.entry(0, 1) == 0x2000);
    CHECK(n.entry(0, 2) == TYPE_EXCEPTION);
    // Idle CTR: nothing touched at all.
    Native idle;
    unsigned before = idle.hw.accesses;
    native::record_trap(idle.hw, idle.sh, MODE_U, MODE_S, 0x1000, 0x2000, false, 2, true);
    CHECK(idle.hw.accesses - before <= 2);
    CHECK(idle.hw.state.status == 0);
    // Breakpoint with BPFRZ: FROZEN.
    n.hw.write(ratified::sctrctl, rc::S | rc::BPFRZ);
    native::record_trap(n.hw, n.sh, MODE_S, MODE_S, 0x1000, 0x2000, false, 3, true);
    CHECK(n.hw.state.status == (ratified::status::FROZEN | 1));
    CHECK(n.hw.faults == 0);
}

TEST_CASE("native: random draft programs give the emulated draft results") {
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    for (int run = 0; run < 40; run++) {
        Emu e(with_h(draft_only()));
        Native n;
        const unsigned long bits[] = {dc::S, dc::U, dc::STE, dc::ETEN, dc::RASEMU, dc::BPFRZ,
                                      dc::LCOFIFRZ, dc::CLR, 0x10000, 0x30000, 0xF0000,
                                      rc::EXCINH, rc::TRETINH, rc::RETINH, rc::DIRCALLINH};
        for (int step = 0; step < 300; step++) {
            uint64_t r = rng(seed);
            CAPTURE(run);
            CAPTURE(step);
            switch (r % 9) {
            case 0: case 1: {
                unsigned long v = 0;
                for (unsigned b = 0; b < 15; b++)
                    if ((r >> (8 + b)) & 1 && ((r >> 30) % 4)) v |= bits[b];
                if ((r >> 40) % 8) v &= ~dc::CLR;
                unsigned csr = (r >> 44) & 1 ? draft::vsctrcontrol : draft::sctrcontrol;
                e.wr(csr, v);
                n.wr(csr, v);
                break;
            }
            case 2: {
                unsigned long v = (r >> 8) & (ds::FROZEN | 0xFF);
                e.wr(draft::sctrstatus, v);
                n.wr(draft::sctrstatus, v);
                break;
            }
            case 3: {
                unsigned i = (r >> 8) & 0xFF, reg = (r >> 16) % 3;
                unsigned long v = (r >> 20) & 0xFFFFFFF;
                e.set_entry(i, reg, v);
                n.set_entry(i, reg, v);
                break;
            }
            case 4: case 5: {
                const Type t[] = {TYPE_DIRECT_CALL, TYPE_INDIRECT_CALL, TYPE_FUNCTION_RETURN,
                                  TYPE_COROUTINE_SWAP, TYPE_TAKEN_BRANCH, TYPE_DIRECT_JUMP};
                Mode m = (r >> 8) & 1 ? MODE_S : MODE_U;
                unsigned long src = (r >> 12) & 0xFFFFFC, dst = (r >> 36) & 0xFFFFFC;
                ctr::record_transfer(e.c, e.h, m, src, dst, t[(r >> 60) % 6]);
                ctr::record_transfer(n.hw.cfg, n.hw.state, m, src, dst, t[(r >> 60) % 6]);
                break;
            }
            case 6: case 7: {
                const Mode modes[] = {MODE_U, MODE_S, MODE_M, MODE_VU, MODE_VS};
                Mode from = modes[(r >> 8) % 5], to = modes[(r >> 12) % 5];
                bool irq = (r >> 16) & 1;
                unsigned long code = (r >> 17) % 2 ? 3 : 13;
                if ((r >> 19) % 2) code = 8;
                e.trap(from, to, 0x4000, 0x8000, irq, code);
                native::record_trap(n.hw, n.sh, from, to, 0x4000, 0x8000, irq, code, true);
                break;
            }
            default: {
                CHECK(n.rd(draft::sctrcontrol) == e.rd(draft::sctrcontrol));
                CHECK(n.rd(draft::vsctrcontrol) == e.rd(draft::vsctrcontrol));
                CHECK((n.rd(draft::sctrstatus) & ~ds::WRAP) == (e.rd(draft::sctrstatus) & ~ds::WRAP));
                unsigned depth = ratified::depth::entries(e.h.depth);
                for (unsigned i = 0; i < 256; i++) {
                    CAPTURE(i);
                    REQUIRE(n.entry(i, 0) == e.entry(i, 0));
                    REQUIRE(n.entry(i, 1) == e.entry(i, 1));
                    // Synthesized records carry no cycle count (CCV=0).
                    REQUIRE((n.entry(i, 2) & 0xF) == (e.entry(i, 2) & 0xF));
                    if (i >= depth) REQUIRE(n.entry(i, 0) == 0);
                }
                break;
            }
            }
        }
        CHECK(n.hw.faults == 0);
    }
}
