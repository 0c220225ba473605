// SPDX-License-Identifier: BSD-2-Clause
// CSR-level semantics of the emulated CTR registers for both layouts: WARL
// masks and discovery, depth, status, entries through the indirect
// interface, CLR / SCTRCLR, access control, vs* registers, RV32 halves.
#include "fixture.hpp"

using namespace ctr;
using namespace ctrtest;
namespace rc = ratified::ctl;
namespace rs = ratified::status;
namespace dc = draft::ctl;
namespace ds = draft::status;

// sctrctl with every standard field but M and MTE (ratified "sctrctl").
constexpr unsigned long kSctrctlAll = 0x0000FF3E00001983ul;
constexpr unsigned long kMctrctlAll = 0x0000FF3E00001B87ul;
// sctrcontrol with every field but M, MTE and CLR, DEPTH aside (draft table).
constexpr unsigned long kSctrcontrolAll = 0x0000FF7E00001E06ul;
constexpr unsigned long kMctrcontrolAll = 0x0000FF7E00001F07ul;

TEST_CASE("csr: ratified discovery by writing all-ones (WARL masks)") {
    Emu e(ratified_only());
    e.wr(ratified::sctrctl, ~0ul);
    CHECK(e.rd(ratified::sctrctl) == kSctrctlAll);
    e.wr(ratified::mctrctl, ~0ul, kM);
    CHECK(e.rd(ratified::mctrctl, kM) == kMctrctlAll);
    // M and MTE are not reachable through sctrctl: writes keep them.
    e.wr(ratified::sctrctl, 0);
    CHECK(e.rd(ratified::mctrctl, kM) == (rc::M | rc::MTE));
    CHECK(e.rd(ratified::sctrctl) == 0);
    // sctrdepth: all-ones selects the largest supported depth.
    e.wr(ratified::sctrdepth, ~0ul);
    CHECK(e.rd(ratified::sctrdepth) == kCapacityEnc);
    e.wr(ratified::sctrdepth, 0);
    CHECK(e.rd(ratified::sctrdepth) == 0);
    // sctrstatus: WRPTR within depth-1 and FROZEN; WPRI bits read 0.
    e.wr(ratified::sctrstatus, ~0ul);
    CHECK(e.rd(ratified::sctrstatus) == (rs::FROZEN | 0xF));
    // ctrdata: TYPE, CCV, CC[15:0] ("ctrdata" layout).
    e.set_entry(0, 2, ~0ul);
    CHECK(e.entry(0, 2) == 0xFFFF800Ful);
    e.set_entry(0, 0, ~0ul);
    CHECK(e.entry(0, 0) == ~0ul);
    e.set_entry(0, 1, ~0ul);
    CHECK(e.entry(0, 1) == ~0ul); // MISP implemented
}

TEST_CASE("csr: draft discovery by writing all-ones (WARL masks)") {
    Emu e(draft_only());
    e.wr(draft::sctrcontrol, ~0ul & ~dc::CLR);
    unsigned long maxdepth = draft::depth_code(kCapacityEnc) << dc::DEPTH_shift;
    CHECK(e.rd(draft::sctrcontrol) == (kSctrcontrolAll | maxdepth));
    e.wr(draft::mctrcontrol, ~0ul & ~dc::CLR, kM);
    CHECK(e.rd(draft::mctrcontrol, kM) == (kMctrcontrolAll | maxdepth));
    // "Write '0000 to ctrcontrol.DEPTH, then read back": the minimum.
    e.wr(draft::sctrcontrol, 0);
    CHECK(e.rd(draft::sctrcontrol) == 0);
    CHECK(e.rd(draft::mctrcontrol, kM) == (dc::M | dc::MTE));
    // mctrstatus and sctrstatus: WRPTR, WRAP, FROZEN.
    e.wr(draft::sctrstatus, ~0ul);
    CHECK(e.rd(draft::sctrstatus) == (ds::FROZEN | ds::WRAP | 0xF));
    CHECK(e.rd(draft::mctrstatus, kM) == (ds::FROZEN | ds::WRAP | 0xF));
}

TEST_CASE("csr: draft CLR reads 0, clears entries and mctrstatus") {
    Emu e(draft_only());
    e.wr(draft::sctrcontrol, dc::S);
    e.transfer(MODE_S, 0x1000, 0x2000, TYPE_DIRECT_CALL);
    e.transfer(MODE_S, 0x1004, 0x3000, TYPE_DIRECT_CALL);
    e.wr(draft::sctrstatus, ds::FROZEN | 2);
    CHECK(e.entry(0, 0) == (0x1004 | entry::source_V));
    e.wr(draft::sctrcontrol, dc::S | dc::CLR);
    CHECK(e.rd(draft::sctrcontrol) == dc::S);
    CHECK(e.rd(draft::sctrstatus) == 0);
    for (unsigned i = 0; i < 16; i++)
        for (unsigned r = 0; r < 3; r++) CHECK(e.entry(i, r) == 0);
}

TEST_CASE("csr: SCTRCLR zeroes every entry for all depths but not sctrstatus") {
    Emu e(ratified_only());
    e.wr(ratified::sctrdepth, 4);
    for (unsigned i = 0; i < 256; i++) e.set_entry(i, 0, 0x100 + i * 4);
    e.wr(ratified::sctrstatus, 7);
    e.wr(ratified::sctrdepth, 0); // entries 16..255 become unreachable
    CHECK(ctr::sctrclr(e.c, e.h, kS) == CsrResult::Done);
    CHECK(e.rd(ratified::sctrstatus) == 7);
    e.wr(ratified::sctrdepth, 4);
    for (unsigned i = 0; i < 256; i++) CHECK(e.entry(i, 0) == 0);
    // "SCTRCLR raises an illegal-instruction exception in U-mode, and a
    // virtual-instruction exception in VU-mode".
    CHECK(ctr::sctrclr(e.c, e.h, kU) == CsrResult::Illegal);
    CHECK(ctr::sctrclr(e.c, e.h, kVU) == CsrResult::Virtual);
    CHECK(ctr::sctrclr(e.c, e.h, kVS) == CsrResult::Done);
    ctr::Access vs_off = kVS;
    vs_off.hstateen_ctr = false;
    CHECK(ctr::sctrclr(e.c, e.h, vs_off) == CsrResult::Virtual);
    // An illegal instruction on a draft-only hart.
    Emu d(draft_only());
    CHECK(ctr::sctrclr(d.c, d.h, kS) == CsrResult::NotMine);
}

TEST_CASE("csr: entries beyond the depth read 0 and ignore writes") {
    Emu e(ratified_only());
    for (unsigned i = 0; i < 16; i++) e.set_entry(i, 0, 0x8000 + i);
    for (unsigned i = 16; i < 256; i++) {
        e.set_entry(i, 0, 0x1234);
        e.set_entry(i, 2, 0x5);
        CHECK(e.entry(i, 0) == 0);
        CHECK(e.entry(i, 1) == 0);
        CHECK(e.entry(i, 2) == 0);
    }
    for (unsigned i = 0; i < 16; i++) CHECK(e.entry(i, 0) == 0x8000 + i);
}

TEST_CASE("csr: sireg4..6 read 0 for CTR selects; other selects are not CTR's") {
    Emu e;
    e.set_entry(3, 0, 0x4001);
    e.wr(ind::siselect, 0x203);
    CHECK(e.rd(ind::sireg4) == 0);
    CHECK(e.rd(ind::sireg5) == 0);
    CHECK(e.rd(ind::sireg6) == 0);
    e.wr(ind::sireg4, ~0ul);
    CHECK(e.rd(ind::sireg4) == 0);
    CHECK(e.rd(ind::sireg) == 0x4001);
    // siselect keeps 12 bits (Smcsrind minimum).
    e.wr(ind::siselect, 0x12345);
    CHECK(e.rd(ind::siselect) == 0x345);
    unsigned long v;
    e.wr(ind::siselect, 0x1FF);
    CHECK(e.try_read(ind::sireg, kS, v) == CsrResult::NotMine);
    e.wr(ind::siselect, 0x300);
    CHECK(e.try_read(ind::sireg, kS, v) == CsrResult::NotMine);
    e.wr(ind::siselect, 0x2FF);
    CHECK(e.try_read(ind::sireg, kS, v) == CsrResult::Done);
}

TEST_CASE("csr: logical entries map to physical ones through WRPTR") {
    Emu e(ratified_only());
    // Logical entry X is physical (WRPTR - X - 1) mod depth.
    for (unsigned p = 0; p < 16; p++) e.h.src[p] = 0x100 * p;
    for (unsigned w = 0; w < 16; w++) {
        e.wr(ratified::sctrstatus, w);
        for (unsigned x = 0; x < 16; x++) CHECK(e.entry(x, 0) == 0x100 * ((w - x - 1) & 15));
    }
}

TEST_CASE("csr: depth changes keep entries (unless cleared) and a legal WRPTR") {
    Emu e(ratified_only());
    e.wr(ratified::sctrctl, rc::S);
    e.wr(ratified::sctrdepth, 1); // 32
    for (unsigned i = 0; i < 20; i++) e.transfer(MODE_S, 0x1000 + 4 * i, 0x2000, TYPE_DIRECT_CALL);
    CHECK(e.wrptr() == 20);
    e.wr(ratified::sctrdepth, 0); // 16: WRPTR legalised
    CHECK(e.wrptr() < 16);
    e.wr(ratified::sctrdepth, 1); // back to 32, no clear: legal values only
    for (unsigned i = 0; i < 32; i++) {
        unsigned long s = e.entry(i, 0);
        CHECK((s == 0 || (s & 1)));
    }
    // Draft: depth lives in sctrcontrol; the CLR write clears at the new depth.
    Emu d(draft_only());
    d.wr(draft::sctrcontrol, dc::S | (draft::depth_code(2) << dc::DEPTH_shift));
    CHECK(d.h.depth == 2);
    for (unsigned i = 0; i < 40; i++) d.transfer(MODE_S, 0x1000 + 4 * i, 0x2000, TYPE_DIRECT_CALL);
    CHECK(d.rd(draft::sctrstatus) == 40);
    d.wr(draft::sctrcontrol, dc::S | dc::CLR);
    CHECK(d.h.depth == 0);
    CHECK(d.rd(draft::sctrstatus) == 0);
    d.wr(draft::sctrcontrol, dc::S | (draft::depth_code(2) << dc::DEPTH_shift));
    for (unsigned i = 0; i < 64; i++) CHECK(d.entry(i, 0) == 0);
}

TEST_CASE("csr: depth WARL honours the implemented range") {
    ctr::Config c;
    c.depth_min = 1;
    c.depth_max = 3;
    Emu e(c);
    CHECK(e.rd(ratified::sctrdepth) == 1);
    e.wr(ratified::sctrdepth, 0);
    CHECK(e.rd(ratified::sctrdepth) == 1);
    e.wr(ratified::sctrdepth, 7); // reserved '11x
    CHECK(e.rd(ratified::sctrdepth) == 3);
    e.wr(ratified::sctrdepth, 2);
    CHECK(e.rd(ratified::sctrdepth) == 2);
    // Draft discovery: '0000 reads back the minimum, '1111 the maximum.
    e.wr(draft::sctrcontrol, 0);
    CHECK((e.rd(draft::sctrcontrol) & dc::DEPTH) == (draft::depth_code(1) << dc::DEPTH_shift));
    e.wr(draft::sctrcontrol, dc::DEPTH);
    CHECK((e.rd(draft::sctrcontrol) & dc::DEPTH) == (draft::depth_code(3) << dc::DEPTH_shift));
}

TEST_CASE("csr: optional fields absent read 0 (reduced configuration)") {
    ctr::Config c;
    c.views = VIEW_RATIFIED;
    c.ctl_impl = rc::U | rc::S | rc::M | rc::BPFRZ; // the required ones only
    c.cycle_counting = false;
    c.misp = false;
    Emu e(c);
    e.wr(ratified::sctrctl, ~0ul);
    CHECK(e.rd(ratified::sctrctl) == (rc::U | rc::S | rc::BPFRZ));
    e.set_entry(0, 2, ~0ul);
    CHECK(e.entry(0, 2) == 0xF);
    e.set_entry(0, 1, ~0ul);
    CHECK(e.entry(0, 1) == (~0ul & ~1ul));
    // Required fields are implemented whatever the configuration says.
    ctr::Config none;
    none.ctl_impl = 0;
    Emu n(none);
    n.wr(ratified::mctrctl, ~0ul, kM);
    CHECK(n.rd(ratified::mctrctl, kM) == rc::REQUIRED);
    // Fewer CCE bits: the unimplemented exponent bits are read-only 0.
    ctr::Config cce;
    cce.cce_bits = 2;
    Emu k(cce);
    k.set_entry(0, 2, ~0ul);
    CHECK(k.entry(0, 2) == 0x3FFF800Ful);
}

TEST_CASE("csr: both views share one state") {
    Emu e;
    e.wr(ratified::sctrctl, rc::U | rc::S | rc::RASEMU | rc::STE | rc::LCOFIFRZ);
    CHECK(e.rd(draft::sctrcontrol) == (dc::U | dc::S | dc::RASEMU | dc::STE | dc::LCOFIFRZ));
    // ETEN has no ratified position: ratified writes keep it.
    e.wr(draft::sctrcontrol, dc::ETEN);
    e.wr(ratified::sctrctl, rc::S);
    CHECK(e.rd(draft::sctrcontrol) == (dc::S | dc::ETEN));
    e.wr(draft::sctrcontrol, dc::S | dc::BPFRZ | (draft::depth_code(1) << dc::DEPTH_shift));
    CHECK(e.rd(ratified::sctrctl) == (rc::S | rc::BPFRZ));
    CHECK(e.rd(ratified::sctrdepth) == 1);
    e.wr(ratified::sctrstatus, rs::FROZEN | 3);
    CHECK(e.rd(draft::sctrstatus) == (ds::FROZEN | 3));
    e.wr(draft::sctrstatus, 5);
    CHECK(e.rd(ratified::sctrstatus) == 5);
}

TEST_CASE("csr: views off leave their CSRs to the caller") {
    unsigned long v;
    Emu r(ratified_only());
    for (unsigned csr : {draft::sctrcontrol, draft::sctrstatus, draft::mctrcontrol, draft::mctrstatus})
        CHECK(r.try_read(csr, kS, v) == CsrResult::NotMine);
    Emu d(draft_only());
    for (unsigned csr : {ratified::sctrctl, ratified::sctrstatus, ratified::sctrdepth, ratified::mctrctl})
        CHECK(d.try_read(csr, kS, v) == CsrResult::NotMine);
    // Unrelated CSRs are never CTR's.
    for (unsigned csr : {0x100u, 0x14Du, 0x180u, 0x184u, 0x15Eu, 0x24Fu})
        CHECK(r.try_read(csr, kS, v) == CsrResult::NotMine);
}

TEST_CASE("csr: access control by privilege and state enable") {
    unsigned long v;
    Emu e(with_h());
    // U-mode: supervisor CSRs are illegal; VU-mode: virtual-instruction.
    for (unsigned csr : {ratified::sctrctl, ratified::sctrstatus, ratified::sctrdepth,
                         draft::sctrcontrol, draft::sctrstatus}) {
        INFO("csr " << csr);
        CHECK(e.try_read(csr, kU, v) == CsrResult::Illegal);
        CHECK(e.try_read(csr, kVU, v) == CsrResult::Virtual);
        CHECK(e.try_write(csr, kU, 0) == CsrResult::Illegal);
    }
    // M-level registers from S-mode.
    for (unsigned csr : {ratified::mctrctl, draft::mctrcontrol, draft::mctrstatus})
        CHECK(e.try_read(csr, kS, v) == CsrResult::Illegal);
    // sctrdepth from VS-mode: virtual-instruction regardless of hstateen0.
    CHECK(e.try_read(ratified::sctrdepth, kVS, v) == CsrResult::Virtual);
    // vs* registers from VS-mode: virtual-instruction; from HS: fine.
    CHECK(e.try_read(ratified::vsctrctl, kVS, v) == CsrResult::Virtual);
    CHECK(e.try_read(draft::vsctrcontrol, kVS, v) == CsrResult::Virtual);
    CHECK(e.try_read(ratified::vsctrctl, kS, v) == CsrResult::Done);
    CHECK(e.try_read(ratified::vsctrctl, kU, v) == CsrResult::Illegal);
    // hstateen0.CTR=0: VS accesses to CTR state raise virtual-instruction.
    ctr::Access vs_off = kVS;
    vs_off.hstateen_ctr = false;
    CHECK(e.try_read(ratified::sctrctl, vs_off, v) == CsrResult::Virtual);
    CHECK(e.try_read(ratified::sctrstatus, vs_off, v) == CsrResult::Virtual);
    e.wr(ind::siselect, 0x200, vs_off);
    CHECK(e.try_read(ind::sireg, vs_off, v) == CsrResult::Virtual);
    CHECK(e.try_read(ratified::sctrctl, kVS, v) == CsrResult::Done);
    // mstateen0.CTR=0: every access below M is illegal.
    ctr::Config off = with_h();
    off.stateen_ctr = false;
    Emu o(off);
    for (const ctr::Access &a : {kS, kVS, kU, kVU}) {
        CHECK(o.try_read(ratified::sctrctl, a, v) == CsrResult::Illegal);
        CHECK(ctr::sctrclr(o.c, o.h, a) == CsrResult::Illegal);
    }
    CHECK(o.try_read(ratified::sctrctl, kM, v) == CsrResult::Done);
    // No H extension: the vs* registers do not exist.
    Emu noh;
    CHECK(noh.try_read(ratified::vsctrctl, kS, v) == CsrResult::NotMine);
    CHECK(noh.try_read(draft::vsctrcontrol, kS, v) == CsrResult::NotMine);
    CHECK(noh.try_read(ind::vsiselect, kS, v) == CsrResult::NotMine);
}

TEST_CASE("csr: V=1 substitutes vsctrctl and vsiselect") {
    Emu e(with_h());
    e.wr(ratified::sctrctl, rc::S | rc::EXCINH);
    e.wr(ratified::sctrctl, rc::U | rc::STE, kVS);
    CHECK(e.rd(ratified::vsctrctl) == (rc::U | rc::STE));
    CHECK(e.rd(ratified::sctrctl) == (rc::S | rc::EXCINH));
    CHECK(e.rd(ratified::sctrctl, kVS) == (rc::U | rc::STE));
    // Draft: vsctrcontrol's VS/VU/VSTE at the S/U/STE positions; DEPTH a
    // read-only copy of mctrcontrol.DEPTH.
    e.wr(draft::sctrcontrol, dc::S | (draft::depth_code(1) << dc::DEPTH_shift));
    e.wr(draft::vsctrcontrol, dc::S | dc::U | dc::DEPTH);
    CHECK(e.rd(draft::vsctrcontrol) == (dc::S | dc::U | (draft::depth_code(1) << dc::DEPTH_shift)));
    CHECK(e.rd(draft::sctrcontrol, kVS) == e.rd(draft::vsctrcontrol));
    CHECK(e.h.depth == 1);
    // Entries: the same state through sireg (V=0), vsireg (HS) and sireg (V=1).
    e.wr(ind::siselect, 0x201);
    e.wr(ind::vsiselect, 0x202);
    e.wr(ind::sireg, 0x1111);
    e.wr(ind::vsireg, 0x2222);
    CHECK(e.rd(ind::siselect, kVS) == 0x202);
    CHECK(e.rd(ind::sireg, kVS) == 0x2222);
    e.wr(ind::siselect, 0x201, kVS);
    CHECK(e.rd(ind::vsiselect) == 0x201);
    CHECK(e.rd(ind::sireg, kVS) == 0x1111);
}

TEST_CASE("csr: draft vsctrcontrol.CLR clears only when written with V=1") {
    Emu e(with_h(draft_only()));
    e.set_entry(0, 0, 0x4001);
    e.wr(draft::vsctrcontrol, dc::CLR);
    CHECK(e.entry(0, 0) == 0x4001);
    e.wr(draft::sctrcontrol, dc::CLR, kVS);
    CHECK(e.entry(0, 0) == 0);
}

TEST_CASE("csr: sctrstatus WRPTR is WARL within the depth") {
    Emu e(ratified_only());
    e.wr(ratified::sctrstatus, 0x35);
    CHECK(e.rd(ratified::sctrstatus) == 0x5);
    e.wr(ratified::sctrdepth, 2);
    e.wr(ratified::sctrstatus, 0x35);
    CHECK(e.rd(ratified::sctrstatus) == 0x35);
    e.wr(ratified::sctrstatus, 0xFF);
    CHECK(e.rd(ratified::sctrstatus) == 0x3F);
}

TEST_CASE("csr: RV32 draft *h CSRs carry bits 63:32; ratified sees bits 31:0") {
    ctr::Config c;
    c.rv32 = true;
    Emu e(c);
    e.wr(draft::sctrcontrolh, 0xFFFFFFFFul);
    CHECK(e.rd(draft::sctrcontrolh) == (kSctrcontrolAll >> 32));
    CHECK(e.rd(draft::sctrcontrol) == 0);
    e.wr(draft::sctrcontrol, dc::S | dc::U);
    CHECK(e.rd(draft::sctrcontrolh) == (kSctrcontrolAll >> 32));
    CHECK(e.rd(ratified::sctrctl) == (rc::S | rc::U));
    e.wr(ratified::sctrctl, 0xFFFFFFFFul);
    CHECK(e.rd(ratified::sctrctl) == (kSctrctlAll & 0xFFFFFFFFul));
    CHECK(e.rd(draft::sctrcontrolh) == (kSctrcontrolAll >> 32)); // upper half kept
    e.wr(draft::mctrcontrolh, 0, kM);
    CHECK(e.rd(draft::sctrcontrolh) == 0);
    // 32-bit entries.
    e.set_entry(0, 0, ~0ul);
    CHECK(e.entry(0, 0) == 0xFFFFFFFFul);
    // RV64 has no *h CSRs.
    Emu r;
    unsigned long v;
    CHECK(r.try_read(draft::sctrcontrolh, kS, v) == CsrResult::NotMine);
    CHECK(r.try_read(draft::mctrcontrolh, kM, v) == CsrResult::NotMine);
}

TEST_CASE("csr: draft mireg* reach the entries from M-mode; ratified does not") {
    Emu d(draft_only());
    d.set_entry(2, 0, 0x6001);
    d.wr(ind::miselect, 0x202, kM);
    CHECK(d.rd(ind::mireg, kM) == 0x6001);
    CHECK(d.rd(ind::mireg4, kM) == 0);
    unsigned long v;
    Emu r(ratified_only());
    CHECK(r.try_read(ind::miselect, kM, v) == CsrResult::NotMine);
    CHECK(r.try_read(ind::mireg, kM, v) == CsrResult::NotMine);
    CHECK(d.try_read(ind::mireg, kS, v) == CsrResult::NotMine);
}

TEST_CASE("csr: the hart's own siselect is used when the hart has Sscsrind") {
    ctr::Config c;
    c.emulate_iselect = false;
    Emu e(c);
    unsigned long v;
    CHECK(e.try_read(ind::siselect, kS, v) == CsrResult::NotMine);
    ctr::Access a = kS;
    a.select = 0x200;
    CHECK(e.try_write(ind::sireg, a, 0x7001) == CsrResult::Done);
    CHECK(e.try_read(ind::sireg, a, v) == CsrResult::Done);
    CHECK(v == 0x7001);
    a.select = 0x40;
    CHECK(e.try_read(ind::sireg, a, v) == CsrResult::NotMine);
}

TEST_CASE("csr: writes to the control register restart the cycle counter (CCV=0)") {
    Emu e;
    e.wr(ratified::sctrctl, rc::S);
    e.transfer(MODE_S, 0x100, 0x200, TYPE_DIRECT_CALL);
    ctr::add_cycles(e.h, 10);
    e.transfer(MODE_S, 0x104, 0x300, TYPE_DIRECT_CALL);
    CHECK((e.entry(0, 2) & entry::data_CCV) != 0);
    CHECK((e.entry(0, 2) >> 16) == 10);
    ctr::add_cycles(e.h, 10);
    e.wr(ratified::sctrctl, rc::S);
    ctr::add_cycles(e.h, 3);
    e.transfer(MODE_S, 0x108, 0x400, TYPE_DIRECT_CALL);
    CHECK((e.entry(0, 2) & entry::data_CCV) == 0);
    CHECK((e.entry(0, 2) >> 16) == 3);
    // Same for the draft control register and for SCTRCLR.
    e.transfer(MODE_S, 0x10C, 0x400, TYPE_DIRECT_CALL);
    CHECK((e.entry(0, 2) & entry::data_CCV) != 0);
    e.wr(draft::sctrcontrol, dc::S);
    e.transfer(MODE_S, 0x110, 0x400, TYPE_DIRECT_CALL);
    CHECK((e.entry(0, 2) & entry::data_CCV) == 0);
    CHECK(ctr::sctrclr(e.c, e.h, kS) == CsrResult::Done);
    e.transfer(MODE_S, 0x114, 0x400, TYPE_DIRECT_CALL);
    CHECK((e.entry(0, 2) & entry::data_CCV) == 0);
}
