// SPDX-License-Identifier: BSD-2-Clause
// N-Trace encoder and decoder: the seed's I-CNT and HIST examples (8.3, 8.4.1, 8.4.2,
// 8.4.4) and round trips of generated programs under every option combination.
#include <doctest/doctest.h>

#include "flow_env.hpp"
#include "ntrace_dec.hpp"
#include "ntrace_enc.hpp"
#include "progen.hpp"

using namespace ntrace;
using trace::Image;

namespace {
struct Sink : DecodeSink {
    std::vector<uint64_t> pcs;
    std::vector<Event> events;
    std::vector<std::string> errors;
    void insns(const uint64_t *a, size_t n) override { pcs.insert(pcs.end(), a, a + n); }
    void event(const Event &e) override {
        events.push_back(e);
        if (e.kind == Event::Error) errors.push_back(e.what);
    }
};
struct Msgs : Callbacks {
    std::vector<Msg> v;
    void on_msg(const Msg &m) override { v.push_back(m); }
    void on_error(uint64_t, Err) override { FAIL("framing error"); }
};
std::vector<Msg> messages(const Framing &fr, const std::vector<uint8_t> &b) {
    Msgs c;
    parse(fr, b, c);
    return c.v;
}

// The example code of 8.4.1: 16-bit c.add, 32-bit branches to 0x200 and 0x300, ...
Image example_image() {
    Image img;
    std::vector<uint8_t> m(0x400, 0);
    auto put16 = [&](uint64_t a, uint16_t v) { m[a] = uint8_t(v), m[a + 1] = uint8_t(v >> 8); };
    auto put32 = [&](uint64_t a, uint32_t v) { put16(a, uint16_t(v)), put16(a + 2, uint16_t(v >> 16)); };
    const uint16_t cadd = 0x9A2A, cebreak = 0x9002;
    const uint32_t add = 0x00B50533;
    put16(0x100, cadd);
    put32(0x102, 0x0E050F63); // beq a0, zero, +0xFE -> 0x200
    put32(0x106, add);
    put32(0x10A, 0x1E050B63); // beq a0, zero, +0x1F6 -> 0x300
    put16(0x10E, cadd);
    put32(0x110, add);
    put16(0x114, cebreak);
    put16(0x200, cadd);
    put16(0x202, cebreak);
    put32(0x300, add);
    put16(0x304, cebreak);
    img.add(0, std::move(m));
    return img;
}

struct Step {
    uint64_t pc;
    unsigned size, itype;
};
std::vector<uint8_t> run_encoder(EncoderConfig c, const std::vector<Step> &steps, uint64_t stop_pc) {
    Encoder e(c);
    e.start(steps.front().pc);
    for (const Step &s : steps) e.retire(s.pc, s.size, s.itype);
    e.stop(stop_pc);
    return e.out();
}
EncoderConfig mode(unsigned m) {
    EncoderConfig c;
    c.trTeControl = te_put(0, NT_TE(trTeControl, InstMode), m);
    return c;
}
std::vector<uint64_t> decode(const Image &img, const std::vector<uint8_t> &b, Sink &s,
                             DecoderConfig dc = {}) {
    Decoder d(dc, img, s);
    d.run(b);
    return s.pcs;
}
} // namespace

TEST_CASE("ntrace 8.4.1/8.4.2: I-CNT and HIST of the three example runs") {
    const Image img = example_image();
    REQUIRE(img.at(0x102)->kind == rv::Kind::Branch);
    CHECK(img.at(0x102)->offset == 0xFE);
    CHECK(img.at(0x10A)->offset == 0x1F6);
    struct Run {
        std::vector<Step> steps;
        uint64_t stop;
        uint64_t btm_direct_icnt, btm_corr_icnt, htm_icnt, htm_hist;
    } runs[] = {
        {{{0x100, 2, 0}, {0x102, 4, 5}, {0x200, 2, 0}}, 0x202, 3, 1, 4, 0x3},
        {{{0x100, 2, 0}, {0x102, 4, 4}, {0x106, 4, 0}, {0x10A, 4, 5}, {0x300, 4, 0}}, 0x304, 7, 2, 9, 0x5},
        {{{0x100, 2, 0}, {0x102, 4, 4}, {0x106, 4, 0}, {0x10A, 4, 4}, {0x10E, 2, 0}, {0x110, 4, 0}},
         0x114, 0, 10, 10, 0x4},
    };
    for (const Run &r : runs) {
        std::vector<uint64_t> pcs;
        for (const Step &s : r.steps) pcs.push_back(s.pc);
        // BTM
        auto b = run_encoder(mode(TCI_INSTMODE_BTM), r.steps, r.stop);
        auto m = messages({}, b);
        REQUIRE(m.size() == (r.btm_direct_icnt ? 3u : 2u));
        CHECK(m[0].tcode == NT_TCODE_ProgTraceSync);
        CHECK(m[0].get(Fld::SYNC) == NT_SYNC_EXIT_DEBUG);
        CHECK(m[0].get(Fld::ICNT) == 0);
        CHECK(m[0].get(Fld::FADDR) == 0x80);
        if (r.btm_direct_icnt) {
            CHECK(m[1].tcode == NT_TCODE_DirectBranch);
            CHECK(m[1].get(Fld::ICNT) == r.btm_direct_icnt);
        }
        CHECK(m.back().tcode == NT_TCODE_ProgTraceCorrelation);
        CHECK(m.back().get(Fld::CDF) == 0);
        CHECK(m.back().get(Fld::ICNT) == r.btm_corr_icnt);
        Sink s;
        CHECK(decode(img, b, s) == pcs);
        CHECK(s.errors.empty());
        // HTM
        b = run_encoder(mode(TCI_INSTMODE_HTM), r.steps, r.stop);
        m = messages({}, b);
        REQUIRE(m.size() == 2);
        CHECK(m[1].tcode == NT_TCODE_ProgTraceCorrelation);
        CHECK(m[1].get(Fld::CDF) == 1);
        CHECK(m[1].get(Fld::ICNT) == r.htm_icnt);
        CHECK(m[1].get(Fld::HIST) == r.htm_hist);
        Sink h;
        CHECK(decode(img, b, h) == pcs);
        CHECK(h.errors.empty());
    }
}

TEST_CASE("ntrace 8.4: invalid I-CNT values are reported with the message offset") {
    const Image img = example_image();
    for (uint64_t bad : {4, 6, 9}) {
        std::vector<uint8_t> b;
        Msg s;
        s.tcode = NT_TCODE_ProgTraceSync;
        s.set(Fld::SYNC, 3).set(Fld::ICNT, 0).set(Fld::FADDR, 0x80);
        encode({}, s, b);
        const size_t off = b.size();
        Msg c;
        c.tcode = NT_TCODE_ProgTraceCorrelation;
        c.set(Fld::EVCODE, 0).set(Fld::CDF, 0).set(Fld::ICNT, bad);
        encode({}, c, b);
        Sink k;
        decode(img, b, k);
        bool found = false;
        for (const Event &e : k.events)
            if (e.kind == Event::Error && e.offset == off) found = true;
        CHECK(found);
    }
}

// 8.4.4 (ratified example): 4-bit I-CNT counter, not-taken branch at 0x102.
static Image icnt_image(bool rc7) {
    Image img;
    std::vector<uint8_t> m(0x200, 0);
    auto put16 = [&](uint64_t a, uint16_t v) { m[a] = uint8_t(v), m[a + 1] = uint8_t(v >> 8); };
    auto put32 = [&](uint64_t a, uint32_t v) { put16(a, uint16_t(v)), put16(a + 2, uint16_t(v >> 16)); };
    put16(0x100, 0x9A2A);
    put32(0x102, 0x0E050F63);
    uint64_t a = 0x106;
    if (rc7) put16(a, 0x9A2A), a += 2; // the rc7 seed has a 16-bit instruction at 0x106
    for (; a < (rc7 ? 0x11C : 0x11A); a += 4) put32(a, 0x00B50533);
    if (!rc7) put16(0x11A, 0x9A2A);
    put16(0x11C, 0x9002);
    img.add(0, std::move(m));
    return img;
}

TEST_CASE("ntrace 8.4.4: I-CNT full as ResourceFull (HTM) and the rc7 SYNC=4 variant") {
    const Image img = icnt_image(false);
    std::vector<Step> steps{{0x100, 2, 0}, {0x102, 4, 4}, {0x106, 4, 0}, {0x10A, 4, 0}, {0x10E, 4, 0},
                            {0x112, 4, 0}, {0x116, 4, 0}, {0x11A, 2, 0}};
    EncoderConfig c = mode(TCI_INSTMODE_HTM);
    c.icnt_bits = 4;
    c.icnt_overflow_bit = true; // the example's counter: full at 8
    auto b = run_encoder(c, steps, 0x11C);
    auto m = messages({}, b);
    REQUIRE(m.size() == 3);
    CHECK(m[0].tcode == NT_TCODE_ProgTraceSync);
    CHECK(m[0].get(Fld::FADDR) == 0x80);
    CHECK(m[1].tcode == NT_TCODE_ResourceFull);
    CHECK(m[1].get(Fld::RCODE) == 0);
    CHECK(m[1].get(Fld::RDATA) == 9);
    CHECK(m[2].tcode == NT_TCODE_ProgTraceCorrelation);
    CHECK(m[2].get(Fld::EVCODE) == 0);
    CHECK(m[2].get(Fld::CDF) == 1);
    CHECK(m[2].get(Fld::ICNT) == 5);
    CHECK(m[2].get(Fld::HIST) == 0x2);
    std::vector<uint64_t> pcs;
    for (const Step &s : steps) pcs.push_back(s.pc);
    Sink k;
    CHECK(decode(img, b, k) == pcs);
    CHECK(k.errors.empty());

    // Ratified text, second option (BTM): ProgTraceSync SYNC=4, I-CNT=9, F-ADDR=0x89.
    EncoderConfig cb = mode(TCI_INSTMODE_BTM);
    cb.icnt_bits = 4;
    cb.icnt_overflow_bit = true;
    cb.icnt_full_sync = true;
    b = run_encoder(cb, steps, 0x11C);
    m = messages({}, b);
    REQUIRE(m.size() == 3);
    CHECK(m[1].tcode == NT_TCODE_ProgTraceSync);
    CHECK(m[1].get(Fld::SYNC) == NT_SYNC_ICNT_FULL);
    CHECK(m[1].get(Fld::ICNT) == 9);
    CHECK(m[1].get(Fld::FADDR) == 0x89);
    CHECK(m[2].tcode == NT_TCODE_ProgTraceCorrelation);
    CHECK(m[2].get(Fld::CDF) == 0);
    CHECK(m[2].get(Fld::ICNT) == 5);
    Sink kb;
    CHECK(decode(img, b, kb) == pcs);
    CHECK(kb.errors.empty());

    // rc7 text: IndirectBranchHistSync SYNC=4, I-CNT=8, HIST=0x2, F-ADDR=0x88, then
    // ProgTraceCorrelation I-CNT=6 HIST=0x1 (0x110..0x118).
    const Image img7 = icnt_image(true);
    std::vector<uint8_t> t;
    Msg s;
    s.tcode = NT_TCODE_ProgTraceSync;
    s.set(Fld::SYNC, 3).set(Fld::ICNT, 0).set(Fld::FADDR, 0x80);
    encode({}, s, t);
    Msg h;
    h.tcode = NT_TCODE_IndirectBranchHistSync;
    h.set(Fld::SYNC, 4).set(Fld::BTYPE, 0).set(Fld::ICNT, 8).set(Fld::FADDR, 0x88).set(Fld::HIST, 0x2);
    encode({}, h, t);
    Msg e;
    e.tcode = NT_TCODE_ProgTraceCorrelation;
    e.set(Fld::EVCODE, 0).set(Fld::CDF, 1).set(Fld::ICNT, 6).set(Fld::HIST, 1);
    encode({}, e, t);
    Sink k7;
    CHECK(decode(img7, t, k7) ==
          std::vector<uint64_t>{0x100, 0x102, 0x106, 0x108, 0x10C, 0x110, 0x114, 0x118});
    CHECK(k7.errors.empty());
}

TEST_CASE("ntrace 8.3: HIST field examples") {
    // Branches at 0x102 and 0x10A of the example code, then an indirect jump message.
    struct H {
        std::vector<unsigned> outcomes;
        uint64_t hist;
    } cases[] = {{{4, 5}, 0x5}, {{5, 5, 5}, 0xF}, {{4, 4, 4, 4}, 0x10}, {{}, 0x1}};
    for (const H &h : cases) {
        Encoder e(mode(TCI_INSTMODE_HTM));
        e.start(0x1000);
        uint64_t pc = 0x1000;
        for (unsigned o : h.outcomes) e.retire(pc, 4, o), pc += 4;
        e.retire(pc, 4, NT_ITYPE_INDIRECT_JUMP);
        e.retire(0x2000, 4, 0);
        auto m = messages({}, e.out());
        REQUIRE(m.size() == 2);
        if (h.hist == 1) {
            // Empty history: IndirectBranch instead ("Rules of Generating Messages").
            CHECK(m[1].tcode == NT_TCODE_IndirectBranch);
            CHECK(!m[1].has(Fld::HIST));
        } else {
            CHECK(m[1].tcode == NT_TCODE_IndirectBranchHist);
            CHECK(m[1].get(Fld::HIST) == h.hist);
        }
        CHECK(m[1].get(Fld::ICNT) == 2 * (h.outcomes.size() + 1));
        CHECK((m[1].get(Fld::UADDR) << 1) == (0x1000 ^ 0x2000));
    }
}

TEST_CASE("ntrace 9.3: repeated history becomes ResourceFull RCODE=2") {
    // A loop whose branch is not taken once every 31 iterations: identical full HIST.
    EncoderConfig c = mode(TCI_INSTMODE_HTM);
    c.trTeInstFeatures = te_put(0, NT_TE(trTeInstFeatures, EnRepeatedHistory), 1);
    Encoder e(c);
    e.start(0x1000);
    for (int i = 0; i < 31 * 10; i++) e.retire(0x1000, 4, i % 31 ? 5 : 4);
    e.retire(0x1000, 4, NT_ITYPE_INDIRECT_JUMP);
    e.retire(0x3000, 4, 0);
    auto m = messages({}, e.out());
    REQUIRE(m.size() == 3);
    CHECK(m[1].tcode == NT_TCODE_ResourceFull);
    CHECK(m[1].get(Fld::RCODE) == 2);
    CHECK(m[1].get(Fld::RDATA) == 0xBFFFFFFF); // stop bit, not taken, 30 times taken
    CHECK(m[1].get(Fld::HREPEAT) == 10);
}

namespace {
struct Combo {
    unsigned mode, ir, sync_mode, src_bits, xlen;
    bool rep, all, ext, ts, ctx, itype4;
    uint64_t base;
};
std::string describe(const Combo &c) {
    char b[200];
    snprintf(b, sizeof b, "mode=%u ir=%u sync=%u src=%u xlen=%u rep=%d all=%d ext=%d ts=%d ctx=%d base=%llx",
             c.mode, c.ir, c.sync_mode, c.src_bits, c.xlen, c.rep, c.all, c.ext, c.ts, c.ctx,
             (unsigned long long)c.base);
    return b;
}

// Encodes a generated program under `c` and checks the decoder returns exactly the
// traced retired addresses.
void round_trip(const Combo &c, uint64_t seed, uint64_t n, unsigned gaps = 0) {
    trace::GenConfig g;
    g.seed = seed, g.xlen = c.xlen, g.base = c.base, g.gap_per_million = gaps;
    g.bad_return_per_mille = c.ir == 1 ? 0 : 10; // counting mode cannot see bad returns
    trace::Program p(g);
    EncoderConfig ec;
    ec.xlen = c.xlen;
    ec.trTeControl = te_put(0, NT_TE(trTeControl, InstMode), c.mode);
    ec.trTeControl = te_put(ec.trTeControl, NT_TE(trTeControl, InstSyncMode), c.sync_mode);
    ec.trTeControl = te_put(ec.trTeControl, NT_TE(trTeControl, InstSyncMax), 4);
    ec.trTeControl = te_put(ec.trTeControl, NT_TE(trTeControl, Context), c.ctx);
    uint32_t f = 0;
    f = te_put(f, NT_TE(trTeInstFeatures, EnImplicitReturn), c.ir != 0);
    f = te_put(f, NT_TE(trTeInstFeatures, ImplicitReturnMode), c.ir);
    f = te_put(f, NT_TE(trTeInstFeatures, EnRepeatedHistory), c.rep);
    f = te_put(f, NT_TE(trTeInstFeatures, EnAllJumps), c.all);
    f = te_put(f, NT_TE(trTeInstFeatures, ExtendAddrMSB), c.ext);
    f = te_put(f, NT_TE(trTeInstFeatures, SrcBits), c.src_bits);
    f = te_put(f, NT_TE(trTeInstFeatures, SrcID), 5);
    ec.trTeInstFeatures = f;
    ec.trTsControl = te_put(0, NT_TE(trTsControl, Enable), c.ts);
    ec.stack_depth = 8 + unsigned(seed % 25);
    ec.icnt_bits = 10;
    ec.icnt_full_sync = seed % 3 == 2; // BTM: SYNC=4 instead of ResourceFull
    ec.hist_bits = 8 + unsigned(seed % 25);
    Encoder e(ec);
    std::vector<uint64_t> expected;
    bool tracing = false, first = true;
    uint64_t t = 0;
    p.run(n, [&](const trace::GenEvent &ev) {
        e.set_time(t += 3);
        switch (ev.kind) {
        case trace::GenEvent::Start:
            e.start(ev.addr, first ? NT_SYNC_EXIT_DEBUG : NT_SYNC_TRACE_ENABLE);
            tracing = true, first = false;
            break;
        case trace::GenEvent::Stop:
            e.stop(ev.addr, NT_EVCODE_TRACE_DISABLED);
            tracing = false;
            break;
        case trace::GenEvent::Trap: e.trap(ev.addr, ev.target, ev.interrupt); break;
        case trace::GenEvent::Context: e.context(unsigned(ev.addr), false, 0); break;
        case trace::GenEvent::Retire: {
            unsigned it = ev.itype;
            if (c.all && (it == 9 || it == 11 || it == 15) && !c.itype4) it = NT_ITYPE_BRANCH_TAKEN;
            else if (!c.itype4) it = rv::itype3(uint8_t(it));
            e.retire(ev.addr, ev.size, it);
            if (tracing) expected.push_back(ev.addr);
            break;
        }
        }
    });
    DecoderConfig dc;
    dc.fr = ec.framing();
    dc.implicit_return = c.ir != 0;
    dc.all_jumps = c.all;
    dc.src = c.src_bits ? 5 : -1;
    Sink s;
    Decoder d(dc, p.image(), s);
    d.run(e.out());
    CAPTURE(describe(c));
    CAPTURE(seed);
    CHECK(s.errors.size() == 0);
    if (!s.errors.empty()) MESSAGE(s.errors.front());
    REQUIRE(s.pcs.size() == expected.size());
    size_t diff = 0;
    while (diff < expected.size() && s.pcs[diff] == expected[diff]) diff++;
    CAPTURE(diff);
    CHECK(diff == expected.size());
    // The core's walker directly, as the firmware would run it with every feature.
    flowtest::PcEnv env{p.image()};
    flowtest::walk(env, dc.fr, e.out(), {dc.implicit_return, false, dc.all_jumps, dc.src});
    CHECK(env.errors.empty());
    CHECK(env.pcs == expected);
}
} // namespace

TEST_CASE("ntrace round trip: BTM and HTM, basic options") {
    for (unsigned mode : {TCI_INSTMODE_BTM, TCI_INSTMODE_HTM})
        for (uint64_t seed = 1; seed <= 4; seed++)
            round_trip({mode, 0, 0, 0, 64, false, false, false, false, false, false, 0x80000000}, seed, 20000);
}

TEST_CASE("ntrace round trip: every option combination") {
    uint64_t seed = 100;
    for (unsigned mode : {TCI_INSTMODE_BTM, TCI_INSTMODE_HTM})
        for (unsigned ir : {0u, 1u, 2u, 3u})
            for (bool rep : {false, true})
                for (bool all : {false, true})
                    for (unsigned sync : {0u, 1u, 2u, 3u}) {
                        seed++;
                        Combo c{mode, ir, sync, unsigned(seed % 3 ? 0 : 4), seed % 4 ? 64u : 32u,
                                rep, all, seed % 2 == 0, seed % 5 == 0, seed % 3 == 1, ir != 0 || seed % 2,
                                seed % 4 == 0 ? 0x20000000ull : seed % 2 ? 0xFFFFFFFF80001000ull : 0x80000000ull};
                        if (c.xlen == 32) c.base &= 0xFFFFFFFF;
                        round_trip(c, seed, 8000, seed % 7 == 0 ? 3000 : 0);
                    }
}

TEST_CASE("ntrace 9.3: repeated history of a pattern shorter than HIST (period 3 in 30 bits)") {
    // A loop whose three branches go taken, taken, not taken: 31-bit HIST registers never
    // repeat, but 30 bits (ten periods) do. 300 branches = 10 repetitions of 30 bits.
    EncoderConfig c = mode(TCI_INSTMODE_HTM);
    c.trTeInstFeatures = te_put(c.trTeInstFeatures, NT_TE(trTeInstFeatures, EnRepeatedHistory), 1);
    Encoder e(c);
    e.start(0x1000);
    for (int i = 0; i < 300; i++) e.retire(0x1000, 4, i % 3 == 2 ? 4 : 5);
    e.retire(0x1004, 4, NT_ITYPE_INDIRECT_JUMP);
    e.retire(0x2000, 4, 0);
    auto m = messages({}, e.out());
    REQUIRE(m.size() == 3);
    CHECK(m[1].tcode == NT_TCODE_ResourceFull);
    CHECK(m[1].get(Fld::RCODE) == NT_RCODE_HIST_REPEAT);
    uint64_t unit = 1;
    for (int i = 0; i < 30; i++) unit = unit << 1 | (i % 3 == 2 ? 0 : 1);
    CHECK(m[1].get(Fld::RDATA) == unit);
    // The rest of the history ends in the indirect branch's HIST.
    REQUIRE(m[2].tcode == NT_TCODE_IndirectBranchHist);
    unsigned rest = 63 - unsigned(__builtin_clzll(m[2].get(Fld::HIST)));
    CHECK(30 * m[1].get(Fld::HREPEAT) + rest == 300);
}
