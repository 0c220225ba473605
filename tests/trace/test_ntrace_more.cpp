// SPDX-License-Identifier: BSD-2-Clause
// N-Trace decoder features: timestamps, SRC demultiplexing, Error + resynchronisation,
// Ownership, decoding from any synchronising message, Zcmt/Zcmp flow, traps.
#include <doctest/doctest.h>

#include "flow_env.hpp"
#include "ntrace_dec.hpp"
#include "ntrace_enc.hpp"
#include "progen.hpp"

using namespace ntrace;

namespace {
struct Sink : DecodeSink {
    std::vector<uint64_t> pcs;
    std::vector<Event> ev;
    size_t errors = 0;
    void insns(const uint64_t *a, size_t n) override { pcs.insert(pcs.end(), a, a + n); }
    void event(const Event &e) override {
        ev.push_back(e);
        if (e.kind == Event::Error) errors++;
    }
};
struct Raw : Callbacks {
    std::vector<Msg> v;
    void on_msg(const Msg &m) override { v.push_back(m); }
    void on_error(uint64_t, Err) override { FAIL("framing"); }
};
EncoderConfig cfg(unsigned mode, uint32_t features = 0) {
    EncoderConfig c;
    c.trTeControl = te_put(0, NT_TE(trTeControl, InstMode), mode);
    c.trTeInstFeatures = features;
    return c;
}
// Runs the generator into an encoder; returns the traced addresses.
std::vector<uint64_t> feed(trace::Program &p, Encoder &e, uint64_t n, uint64_t t0 = 0) {
    std::vector<uint64_t> pcs;
    uint64_t t = t0;
    p.run(n, [&](const trace::GenEvent &ev) {
        e.set_time(t += 7);
        switch (ev.kind) {
        case trace::GenEvent::Start: e.start(ev.addr); break;
        case trace::GenEvent::Stop: e.stop(ev.addr); break;
        case trace::GenEvent::Trap: e.trap(ev.addr, ev.target, ev.interrupt); break;
        case trace::GenEvent::Context: e.context(unsigned(ev.addr), false, 0); break;
        case trace::GenEvent::Retire:
            e.retire(ev.addr, ev.size, ev.itype);
            pcs.push_back(ev.addr);
            break;
        }
    });
    return pcs;
}
} // namespace

TEST_CASE("ntrace timestamps: absolute in sync messages, relative otherwise") {
    EncoderConfig c = cfg(TCI_INSTMODE_HTM);
    c.trTsControl = te_put(0, NT_TE(trTsControl, Enable), 1);
    Encoder e(c);
    e.set_time(1000);
    e.start(0x1000);
    e.set_time(1010);
    e.retire(0x1000, 4, NT_ITYPE_INDIRECT_JUMP);
    e.set_time(1025);
    e.retire(0x2000, 4, 0);
    e.set_time(1040);
    e.trap(0x2004, 0x3000, true);
    Raw r;
    parse(c.framing(), e.out(), r);
    REQUIRE(r.v.size() == 3);
    CHECK(r.v[0].get(Fld::TSTAMP) == 1000); // ProgTraceSync: absolute
    CHECK(r.v[1].get(Fld::TSTAMP) == 25);   // emitted when the target retired (1025)
    CHECK(r.v[2].get(Fld::TSTAMP) == 15);   // trap at 1040
    CHECK(r.v[2].get(Fld::BTYPE) == NT_BTYPE_INTERRUPT);
    trace::Image img;
    img.add(0x1000, std::vector<uint8_t>(0x3000, 0x13)); // addi: linear
    // 0x1000 holds a jalr so the first message is consistent.
    std::vector<uint8_t> code(0x3000, 0);
    for (size_t i = 0; i < code.size(); i += 4) code[i] = 0x13;
    code[0] = 0x67, code[1] = 0x80, code[2] = 0x07, code[3] = 0x00; // jalr zero, a5
    trace::Image img2;
    img2.add(0x1000, code);
    DecoderConfig dc;
    dc.fr = c.framing();
    Sink s;
    Decoder d(dc, img2, s);
    d.run(e.out());
    CHECK(s.errors == 0);
    CHECK(s.pcs == std::vector<uint64_t>{0x1000, 0x2000});
    bool trap_seen = false;
    for (const Event &ev : s.ev)
        if (ev.kind == Event::Trap) {
            trap_seen = true;
            CHECK(ev.has_tstamp);
            CHECK(ev.tstamp == 1040);
            CHECK(ev.addr == 0x3000);
            CHECK(ev.value == NT_BTYPE_INTERRUPT);
        }
    CHECK(trap_seen);
}

TEST_CASE("ntrace SRC demultiplexing of two interleaved encoders") {
    trace::GenConfig g1, g2;
    g1.seed = 5, g2.seed = 6;
    g2.base = 0x90000000;
    trace::Program p1(g1), p2(g2);
    auto make = [](unsigned id) {
        uint32_t f = te_put(0, NT_TE(trTeInstFeatures, SrcBits), 4);
        f = te_put(f, NT_TE(trTeInstFeatures, SrcID), id);
        return cfg(TCI_INSTMODE_HTM, f);
    };
    Encoder e1(make(1)), e2(make(2));
    auto pcs1 = feed(p1, e1, 30000), pcs2 = feed(p2, e2, 30000);
    // Interleave whole messages, as a funnel would.
    Raw r1, r2;
    parse(e1.config().framing(), e1.out(), r1);
    parse(e2.config().framing(), e2.out(), r2);
    std::vector<uint8_t> mixed;
    size_t i = 0, j = 0;
    while (i < r1.v.size() || j < r2.v.size()) {
        if (i < r1.v.size()) mixed.insert(mixed.end(), r1.v[i].raw.begin(), r1.v[i].raw.end()), i++;
        if (j < r2.v.size() && (i % 3 == 0 || i >= r1.v.size()))
            mixed.insert(mixed.end(), r2.v[j].raw.begin(), r2.v[j].raw.end()), j++;
    }
    // Both programs in one image.
    trace::Image img;
    for (auto *p : {&p1, &p2})
        for (const auto &s : p->image().segments()) img.add(s.base, s.bytes);
    for (int id : {1, 2}) {
        DecoderConfig dc;
        dc.fr = e1.config().framing();
        dc.src = id;
        Sink s;
        Decoder d(dc, img, s);
        d.run(mixed);
        CHECK(s.errors == 0);
        CHECK(s.pcs == (id == 1 ? pcs1 : pcs2));
    }
}

TEST_CASE("ntrace Error message: decoder stops, resynchronises at SYNC=7") {
    trace::GenConfig g;
    trace::Program p(g);
    Encoder e(cfg(TCI_INSTMODE_HTM));
    std::vector<uint64_t> before, after;
    uint64_t count = 0;
    p.run(20000, [&](const trace::GenEvent &ev) {
        switch (ev.kind) {
        case trace::GenEvent::Start: e.start(ev.addr); break;
        case trace::GenEvent::Stop: e.stop(ev.addr); break;
        case trace::GenEvent::Trap: e.trap(ev.addr, ev.target, ev.interrupt); break;
        case trace::GenEvent::Context: break;
        case trace::GenEvent::Retire:
            if (++count == 10000) e.overflow();
            e.retire(ev.addr, ev.size, ev.itype);
            (count >= 10000 ? after : before).push_back(ev.addr);
            break;
        }
    });
    Sink s;
    Decoder d({}, p.image(), s);
    d.run(e.out());
    CHECK(s.errors == 0);
    bool lost = false, resync = false;
    for (const Event &ev : s.ev) {
        if (ev.kind == Event::Lost) lost = true;
        if (ev.kind == Event::Sync && ev.value == NT_SYNC_FIFO_OVERRUN) resync = true;
    }
    CHECK(lost);
    CHECK(resync);
    // Everything after the resynchronisation decodes exactly; what was not yet sent
    // before the overrun is lost.
    REQUIRE(s.pcs.size() >= after.size());
    CHECK(std::equal(after.begin(), after.end(), s.pcs.end() - long(after.size())));
    CHECK(s.pcs.size() < before.size() + after.size());
}

TEST_CASE("ntrace Ownership PROCESS examples and messages after sync and privilege changes") {
    EncoderConfig c = cfg(TCI_INSTMODE_BTM);
    c.trTeControl = te_put(c.trTeControl, NT_TE(trTeControl, Context), 1);
    Encoder e(c);
    e.context(0, true, 0x1D); // VU-mode, scontext 0x1D
    e.start(0x1000);
    e.context(3, false, 0x1D); // M-mode
    Raw r;
    parse({}, e.out(), r);
    REQUIRE(r.v.size() == 3);
    CHECK(r.v[1].tcode == NT_TCODE_Ownership);
    CHECK(r.v[1].get(Fld::PROCESS) == 0x3B2); // 7.1 example
    CHECK(r.v[2].get(Fld::PROCESS) == 0xC);   // 7.1 example
}

TEST_CASE("ntrace decoding can start at any synchronising message") {
    trace::GenConfig g;
    g.seed = 9;
    trace::Program p(g);
    EncoderConfig c = cfg(TCI_INSTMODE_HTM, te_put(te_put(0, NT_TE(trTeInstFeatures, EnImplicitReturn), 1),
                                                  NT_TE(trTeInstFeatures, ImplicitReturnMode), 3));
    c.trTeControl = te_put(c.trTeControl, NT_TE(trTeControl, InstSyncMode), TCI_SYNCMODE_MESSAGES);
    c.trTeControl = te_put(c.trTeControl, NT_TE(trTeControl, InstSyncMax), 2);
    Encoder e(c);
    auto pcs = feed(p, e, 20000);
    Raw r;
    parse({}, e.out(), r);
    int starts = 0;
    for (const Msg &m : r.v) {
        if (!is_sync_tcode(m.tcode) || m.offset == 0) continue;
        DecoderConfig dc;
        dc.implicit_return = true;
        Sink s;
        Decoder d(dc, p.image(), s);
        d.run(std::span<const uint8_t>(e.out()).subspan(m.offset));
        CHECK(s.errors == 0);
        REQUIRE(s.pcs.size() <= pcs.size());
        CHECK(std::equal(s.pcs.begin(), s.pcs.end(), pcs.end() - long(s.pcs.size())));
        if (++starts == 20) break;
    }
    CHECK(starts >= 10);
}

TEST_CASE("ntrace decoder follows Zcmt jump tables and Zcmp returns") {
    // 0x100: cm.jalt 32 -> table[32] = 0x200 (call); 0x200: c.nop; 0x202: cm.popret
    // (returns to 0x102); 0x102: cm.jt 1 -> table[1] = 0x300; 0x300: jalr zero, a5.
    std::vector<uint8_t> m(0x400, 0);
    auto put16 = [&](size_t a, uint16_t v) { m[a] = uint8_t(v), m[a + 1] = uint8_t(v >> 8); };
    put16(0x100, 0xA000 | 32 << 2 | 2);
    put16(0x102, 0xA000 | 1 << 2 | 2);
    put16(0x200, 0x0001);
    put16(0x202, 0xBE42);
    put16(0x300, 0x8782); // c.jr a5
    auto put64 = [&](size_t a, uint64_t v) {
        for (int i = 0; i < 8; i++) m[a + i] = uint8_t(v >> (8 * i));
    };
    put64(0x40 + 8 * 32, 0x200);
    put64(0x40 + 8 * 1, 0x300);
    trace::Image img;
    img.opts.zcmp = img.opts.zcmt = true;
    img.jvt = 0x40, img.has_jvt = true;
    img.add(0, m);
    EncoderConfig c = cfg(TCI_INSTMODE_BTM, te_put(te_put(0, NT_TE(trTeInstFeatures, EnImplicitReturn), 1),
                                                  NT_TE(trTeInstFeatures, ImplicitReturnMode), 3));
    Encoder e(c);
    e.start(0x100);
    e.retire(0x100, 2, NT_ITYPE_DIRECT_CALL);
    e.retire(0x200, 2, 0);
    e.retire(0x202, 2, NT_ITYPE_RETURN);
    e.retire(0x102, 2, NT_ITYPE_DIRECT_JUMP_NOLINK);
    e.retire(0x300, 2, NT_ITYPE_INDIRECT_JUMP_NOLINK);
    e.stop(0x380);
    DecoderConfig dc;
    dc.implicit_return = true;
    Sink s;
    Decoder d(dc, img, s);
    d.run(e.out());
    CHECK(s.errors == 0);
    CHECK(s.pcs == std::vector<uint64_t>{0x100, 0x200, 0x202, 0x102, 0x300});
    // The core's walker directly: the table read through its Env, the transfers typed.
    flowtest::PcEnv env{img};
    flowtest::walk(env, {}, e.out(), {.implicit_return = true});
    CHECK(env.errors.empty());
    CHECK(env.pcs == s.pcs);
    using T = std::tuple<uint64_t, uint64_t, unsigned>;
    CHECK(env.transfers == std::vector<T>{{0x100, 0x200, NT_ITYPE_DIRECT_CALL},
                                          {0x202, 0x102, NT_ITYPE_RETURN},
                                          {0x102, 0x300, NT_ITYPE_DIRECT_JUMP_NOLINK},
                                          {0x300, 0x380, NT_ITYPE_INDIRECT_JUMP_NOLINK}});
    flowtest::PcEnv no_ir{img}; // the popret's target is only on the core's call stack
    flowtest::walk(no_ir, {}, e.out());
    CHECK(!no_ir.errors.empty());
    Raw r;
    parse({}, e.out(), r);
    CHECK(r.v.size() == 3); // sync, the c.jr message, correlation: popret was implicit
}

TEST_CASE("ntrace vendor-defined messages pass through the encoder and the decoder") {
    trace::GenConfig g;
    g.seed = 11;
    trace::Program p(g);
    Encoder e(cfg(TCI_INSTMODE_BTM));
    const std::vector<uint8_t> vmsg{uint8_t(60 << 2), 0x29, 0x17}; // TCODE 60 + two fields
    const std::vector<uint8_t> bad{uint8_t(NT_TCODE_DirectBranch << 2), 0x07};
    std::vector<uint64_t> pcs;
    uint64_t k = 0;
    p.run(5000, [&](const trace::GenEvent &ev) {
        switch (ev.kind) {
        case trace::GenEvent::Start: e.start(ev.addr); break;
        case trace::GenEvent::Stop: e.stop(ev.addr); break;
        case trace::GenEvent::Trap: e.trap(ev.addr, ev.target, ev.interrupt); break;
        case trace::GenEvent::Context: break;
        case trace::GenEvent::Retire:
            if (++k % 500 == 0) {
                CHECK(e.vendor(vmsg));
                CHECK_FALSE(e.vendor(bad));
            }
            e.retire(ev.addr, ev.size, ev.itype);
            pcs.push_back(ev.addr);
            break;
        }
    });
    Sink s;
    Decoder d({}, p.image(), s);
    d.run(e.out());
    CHECK(s.errors == 0);
    CHECK(s.pcs == pcs);
    size_t vendors = 0;
    for (const Event &ev : s.ev) vendors += ev.kind == Event::Vendor && ev.value == 60;
    CHECK(vendors == 10);
}

TEST_CASE("ntrace sequential jumps: lui/c.lui/auipc then a register jump is inferred") {
    // N-Trace 1.0 "Sequential Jump Optimization". RV64 program:
    // 0x1000 auipc t0, 0; 0x1004 jalr ra, 0x100(t0) (call 0x1100, inferable)
    // 0x1100 c.nop; 0x1102 c.jr ra (return to 0x1008)
    // 0x1008 lui t1, 2; 0x100C jalr zero, 0x10(t1) (to 0x2010, inferable)
    // 0x2010 c.lui a5, 3; 0x2012 c.jr a5 (to 0x3000, inferable)
    // 0x3000 c.nop; 0x3002 c.jr a5 (to 0x3000: not inferable, c.nop came before)
    std::vector<uint8_t> m(0x3010, 0);
    auto put16 = [&](size_t a, uint16_t v) { m[a] = uint8_t(v), m[a + 1] = uint8_t(v >> 8); };
    auto put32 = [&](size_t a, uint32_t v) { put16(a, uint16_t(v)), put16(a + 2, uint16_t(v >> 16)); };
    put32(0x1000, 0x00000297);
    put32(0x1004, 0x100u << 20 | 5u << 15 | 1u << 7 | 0x67);
    put16(0x1100, 0x0001);
    put16(0x1102, 0x8082);
    put32(0x1008, 0x2u << 12 | 6u << 7 | 0x37);
    put32(0x100C, 0x10u << 20 | 6u << 15 | 0x67);
    put16(0x2010, 0x6000 | 15u << 7 | 3u << 2 | 1);
    put16(0x2012, 0x8782);
    put16(0x3000, 0x0001);
    put16(0x3002, 0x8782);
    trace::Image img;
    img.add(0, m);
    struct Step {
        uint64_t pc;
        unsigned size, itype;
        bool seq;
    };
    const Step steps[] = {{0x1000, 4, 0, false},
                          {0x1004, 4, NT_ITYPE_INDIRECT_CALL, true},
                          {0x1100, 2, 0, false},
                          {0x1102, 2, NT_ITYPE_RETURN, false},
                          {0x1008, 4, 0, false},
                          {0x100C, 4, NT_ITYPE_INDIRECT_JUMP_NOLINK, true},
                          {0x2010, 2, 0, false},
                          {0x2012, 2, NT_ITYPE_INDIRECT_JUMP_NOLINK, true},
                          {0x3000, 2, 0, false},
                          {0x3002, 2, NT_ITYPE_INDIRECT_JUMP_NOLINK, false},
                          {0x3000, 2, 0, false}};
    std::vector<uint64_t> want;
    for (const Step &s : steps) want.push_back(s.pc);
    const uint32_t seq = te_put(0, NT_TE(trTeInstFeatures, EnSequentialJump), 1);
    const uint32_t ir = te_put(te_put(0, NT_TE(trTeInstFeatures, EnImplicitReturn), 1),
                               NT_TE(trTeInstFeatures, ImplicitReturnMode), 3);
    const uint32_t all = te_put(0, NT_TE(trTeInstFeatures, EnAllJumps), 1);
    for (unsigned mode : {TCI_INSTMODE_BTM, TCI_INSTMODE_HTM}) {
        for (uint32_t extra : {0u, ir, all, ir | all}) {
            CAPTURE(mode);
            CAPTURE(extra);
            EncoderConfig c = cfg(mode, seq | extra);
            Encoder e(c);
            e.start(0x1000);
            for (const Step &s : steps) e.retire(s.pc, s.size, s.itype, s.seq);
            e.stop(0x3002);
            DecoderConfig dc;
            dc.implicit_return = extra & ir;
            dc.all_jumps = extra & all;
            dc.seq_jump = true;
            Sink s;
            Decoder d(dc, img, s);
            d.run(e.out());
            CHECK(s.errors == 0);
            CHECK(s.pcs == want);
            // Only the c.jr after c.nop (and the return without implicit return) is
            // reported with an address.
            Raw r;
            parse({}, e.out(), r);
            size_t indirect = 0;
            for (const Msg &x : r.v)
                indirect += x.tcode == NT_TCODE_IndirectBranch || x.tcode == NT_TCODE_IndirectBranchHist;
            CHECK(indirect == ((extra & ir) ? 1u : 2u));
            // The core's walker directly infers the same jumps.
            flowtest::PcEnv env{img};
            flowtest::walk(env, {}, e.out(), {dc.implicit_return, true, dc.all_jumps});
            CHECK(env.errors.empty());
            CHECK(env.pcs == want);
            flowtest::PcEnv blind{img};
            flowtest::walk(blind, {}, e.out(), {dc.implicit_return, false, dc.all_jumps});
            CHECK(!blind.errors.empty());
            // A decoder unaware of the optimisation cannot follow the inferred jumps.
            dc.seq_jump = false;
            Sink s2;
            Decoder d2(dc, img, s2);
            d2.run(e.out());
            CHECK(s2.errors > 0);
        }
    }
    // Without trTeInstEnSequentialJump every register jump is reported.
    Encoder e(cfg(TCI_INSTMODE_BTM));
    e.start(0x1000);
    for (const Step &s : steps) e.retire(s.pc, s.size, s.itype, s.seq);
    e.stop(0x3002);
    DecoderConfig dc;
    dc.seq_jump = true; // the decoder sees the addresses and does not infer
    Sink s;
    Decoder d(dc, img, s);
    d.run(e.out());
    CHECK(s.errors == 0);
    CHECK(s.pcs == want);
}

// Issue 30 item 2: our encoder's default is never larger than the reference code's
// choices (RefcodeEncoder, byte for byte NexRv -enco) in its five option sets. Programs
// of 40 functions whose calls nest up to 40 deep (past both 8-deep return stacks) with
// returns that skip a level, branch-heavy loops of every period; no traps, which the
// reference's PC-sequence input cannot express. Sizes are printed (-s).
#include "ntrace_refenc.hpp"
#include "pcfmt.hpp"
TEST_CASE("ntrace: our encoder is never larger than the reference's in its five option sets") {
    struct Set {
        const char *name;
        unsigned mode;
        uint32_t features;
        unsigned depth;
        RefcodeOptions ref;
    };
    const uint32_t ir = te_put(te_put(0, NT_TE(trTeInstFeatures, EnImplicitReturn), 1),
                               NT_TE(trTeInstFeatures, ImplicitReturnMode), 3);
    const uint32_t rh = te_put(0, NT_TE(trTeInstFeatures, EnRepeatedHistory), 1);
    const Set sets[] = {{"-nobhm", TCI_INSTMODE_BTM, 0, 32, {10, 0, 0}},
                        {"-cs 0 -rpt 0", TCI_INSTMODE_HTM, 0, 32, {21, 0, 0}},
                        {"-cs 0 -rpt 2", TCI_INSTMODE_HTM, rh, 32, {21, 0, 2}},
                        {"-cs 8 -rpt 0", TCI_INSTMODE_HTM, ir, 8, {21, 8, 0}},
                        {"-cs 8 -rpt 2", TCI_INSTMODE_HTM, ir | rh, 8, {21, 8, 2}}};
    for (uint64_t seed : {3u, 11u, 29u}) {
        trace::GenConfig g;
        g.seed = seed, g.xlen = 32, g.trap_per_million = 0, g.bad_return_per_mille = 20;
        trace::Program p(g);
        std::vector<uint64_t> pcs;
        p.run(400000, [&](const trace::GenEvent &ev) {
            if (ev.kind == trace::GenEvent::Retire) pcs.push_back(ev.addr);
        });
        const std::vector<trace::PcInfo> info = trace::pcinfo_from_pcs(p.image(), pcs);
        for (const Set &s : sets) {
            CAPTURE(seed);
            CAPTURE(s.name);
            EncoderConfig c = cfg(s.mode, s.features);
            c.xlen = 32;
            c.stack_depth = s.depth;
            Encoder ours(c);
            trace::encode_pcinfo(info, ours, true);
            RefcodeEncoder ref(s.ref);
            for (const trace::PcInfo &i : info) ref.retire(i);
            ref.finish();
            MESSAGE("seed " << seed << " " << std::string(s.name) << ": ours " << ours.out().size() << " bytes, reference "
                            << ref.out().size());
            CHECK(ours.out().size() <= ref.out().size());
            // And ours decodes back to the run.
            DecoderConfig dc;
            dc.fr = c.framing();
            dc.implicit_return = c.implicit_return() != 0;
            Sink k;
            Decoder d(dc, p.image(), k);
            d.run(ours.out());
            CHECK(k.errors == 0);
            CHECK(k.pcs == pcs);
        }
    }
}

TEST_CASE("ntrace: a full I-CNT uses the whole 22-bit field (issue 30 item 2)") {
    // 1.5 M 4-byte instructions without a branch: 3 M halfwords, one ResourceFull at
    // 2^22 - 4 or just above, not at 2^21 (an overflow bit) twice.
    trace::Image img;
    std::vector<uint8_t> code(4 * 1500000 + 4);
    for (size_t i = 0; i + 4 <= code.size(); i += 4) code[i] = 0x13; // nop
    img.add(0x80000000, std::move(code));
    for (bool ovf : {false, true}) {
        EncoderConfig c = cfg(TCI_INSTMODE_HTM);
        c.icnt_overflow_bit = ovf;
        Encoder e(c);
        e.start(0x80000000);
        std::vector<uint64_t> pcs;
        for (uint64_t i = 0; i < 2100000; i++) {
            uint64_t pc = 0x80000000 + 4 * (i % 1500000);
            e.retire(pc, 4, NT_ITYPE_NONE);
        }
        e.stop(0x80000000 + 4 * (2100000 % 1500000));
        Raw r;
        parse(c.framing(), e.out(), r);
        unsigned full = 0;
        for (const Msg &m : r.v)
            if (m.tcode == NT_TCODE_ResourceFull && m.get(Fld::RCODE) == NT_RCODE_ICNT_FULL) {
                full++;
                CHECK(m.get(Fld::RDATA) < (1u << NT_LIMIT_MAX_ICNT));
                CHECK(m.get(Fld::RDATA) >= (ovf ? 1u << (NT_LIMIT_MAX_ICNT - 1) : (1u << NT_LIMIT_MAX_ICNT) - 4));
            }
        CHECK(full == (ovf ? 2u : 1u));
    }
}
