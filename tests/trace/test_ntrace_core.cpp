// SPDX-License-Identifier: BSD-2-Clause
// The freestanding decoding core's BTM walker (ntrace_core.hpp, the one the firmware's
// CTR feed runs): generated programs encoded by the encoder model in BTM, fed to the
// core message by message (split_messages, decode_fields) in pieces of random size as
// the firmware gets them; every control transfer must come out, in order, with its
// source, target and CTR type, and the trap records with epc and handler. Also: lost
// data (a skipped piece) never yields a transfer that did not happen.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <tuple>
#include <vector>

#include "ntrace_core.hpp"
#include "ntrace_enc.hpp"
#include "progen.hpp"

using namespace ntrace;

namespace {

struct Rec {
    uint64_t src, tgt;
    unsigned type; // CTR type (N-Trace itype); 1 exception, 2 interrupt
    bool operator==(const Rec &o) const { return src == o.src && tgt == o.tgt && type == o.type; }
    bool operator<(const Rec &o) const { return std::tie(src, tgt, type) < std::tie(o.src, o.tgt, o.type); }
};

struct Env {
    const trace::Image &img;
    std::vector<Rec> out;
    unsigned gaps = 0;
    bool insn(uint64_t pc, rv::Insn &in) {
        const rv::Insn *p = img.at(pc);
        if (!p) return false;
        in = *p;
        return true;
    }
    void transfer(uint64_t s, uint64_t t, uint8_t itype) { out.push_back({s, t, itype}); }
    void trap(uint64_t epc, uint64_t handler, bool irq) { out.push_back({epc, handler, irq ? 2u : 1u}); }
    void leave(uint64_t, const rv::Insn *) {}
    void gap() { gaps++; }
};

// The same with plain_run, as the firmware's Env has it (the walk steps over runs of
// plain instructions at once).
struct RunEnv : Env {
    unsigned runs = 0;
    uint64_t plain_run(uint64_t pc) {
        uint64_t p = pc;
        while (const rv::Insn *in = img.at(p)) {
            if (!is_plain(in->kind)) break;
            p += in->size;
        }
        runs++;
        return (p - pc) / 2;
    }
};

struct Run {
    std::vector<uint8_t> bytes;
    std::vector<Rec> expected;
    bool last_pending; // the run ended right after a transfer: its target never retired
};

Run encode(trace::Program &p, uint64_t n, unsigned xlen, unsigned src_bits) {
    EncoderConfig ec;
    ec.xlen = xlen;
    ec.trTeControl = te_put(0, NT_TE(trTeControl, InstMode), TCI_INSTMODE_BTM);
    ec.trTeControl = te_put(ec.trTeControl, NT_TE(trTeControl, InstSyncMode), TCI_SYNCMODE_MESSAGES);
    ec.trTeControl = te_put(ec.trTeControl, NT_TE(trTeControl, InstSyncMax), 4);
    ec.trTeInstFeatures = te_put(te_put(0, NT_TE(trTeInstFeatures, SrcBits), src_bits),
                                 NT_TE(trTeInstFeatures, SrcID), 1);
    ec.icnt_bits = 10;
    Encoder e(ec);
    Run r;
    // A transfer's target is the next instruction that retires (or the handler).
    bool pending = false;
    Rec cur{};
    p.run(n, [&](const trace::GenEvent &ev) {
        switch (ev.kind) {
        case trace::GenEvent::Start: e.start(ev.addr); break;
        case trace::GenEvent::Stop: e.stop(ev.addr, NT_EVCODE_TRACE_DISABLED); break;
        case trace::GenEvent::Trap:
            e.trap(ev.addr, ev.target, ev.interrupt);
            if (pending) { // the transfer went to the instruction that trapped
                cur.tgt = ev.addr;
                r.expected.push_back(cur);
                pending = false;
            }
            r.expected.push_back({ev.addr, ev.target, ev.interrupt ? 2u : 1u});
            break;
        case trace::GenEvent::Context: break;
        case trace::GenEvent::Retire:
            if (pending) {
                cur.tgt = ev.addr;
                r.expected.push_back(cur);
                pending = false;
            }
            e.retire(ev.addr, ev.size, rv::itype3(ev.itype));
            if (ev.itype != NT_ITYPE_NONE) {
                cur = {ev.addr, 0, ev.itype};
                pending = true;
            }
            break;
        }
    });
    e.stop(0, NT_EVCODE_TRACE_DISABLED);
    r.bytes = e.out();
    r.last_pending = pending;
    return r;
}

// Feeds the stream to the core in pieces (sizes from `seed`); drop: pieces skipped
// (lost data, then a fresh sequence from the next message boundary).
template <class E>
std::vector<Rec> decode(const trace::Image &, const Framing &fr, const std::vector<uint8_t> &b,
                        uint64_t seed, unsigned drop_every, E &env) {
    FlowConfig fc;
    fc.xlen = fr.xlen;
    fc.src = fr.src_bits ? 1 : -1;
    FlowState st{};
    std::vector<uint8_t> carry;
    size_t pos = 0;
    unsigned piece = 0;
    bool resync = false;
    while (pos < b.size()) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        size_t len = std::min<size_t>(b.size() - pos, 1 + (seed >> 33) % 4096);
        piece++;
        if (drop_every && piece % drop_every == 0) {
            pos += len;
            carry.clear();
            Flow<E>::reset(st);
            resync = true;
            continue;
        }
        carry.insert(carry.end(), b.begin() + long(pos), b.begin() + long(pos + len));
        pos += len;
        Flow<E> f(fc, st, env);
        size_t end = split_messages(
            carry.data(), carry.size(), resync,
            [&](const uint8_t *m, size_t n, size_t) {
                Fields fl;
                REQUIRE(decode_fields(fr, m, n, fl) == Err::None);
                f.on_msg(fl);
            },
            [&](size_t, Err) { FAIL("framing"); });
        resync = false;
        carry.erase(carry.begin(), carry.begin() + long(end));
    }
    return env.out;
}

} // namespace

TEST_CASE("ntrace core: BTM flow gives every transfer with source, target and type") {
    for (uint64_t seed = 1; seed <= 6; seed++) {
        for (unsigned xlen : {32u, 64u}) {
            trace::GenConfig g;
            g.seed = seed, g.xlen = xlen;
            trace::Program p(g);
            unsigned src_bits = seed % 2 ? 2 : 0;
            Run r = encode(p, 200000, xlen, src_bits);
            Framing fr;
            fr.src_bits = uint8_t(src_bits), fr.xlen = uint8_t(xlen);
            Env env{p.image(), {}};
            std::vector<Rec> got = decode(p.image(), fr, r.bytes, seed, 0, env);
            CAPTURE(seed);
            CAPTURE(xlen);
            CHECK(env.gaps == 0);
            // The walk that steps over plain runs gives the same transfers.
            RunEnv renv{{p.image(), {}}};
            CHECK(decode(p.image(), fr, r.bytes, seed, 0, renv) == got);
            CHECK(renv.runs > 0);
            if (r.last_pending && got.size() == r.expected.size() + 1) got.pop_back();
            REQUIRE(got.size() == r.expected.size());
            size_t same = 0;
            while (same < got.size() && got[same] == r.expected[same]) same++;
            CAPTURE(same);
            CHECK(same == got.size());
            // Every CTR type the generator makes is covered.
            std::set<unsigned> types;
            for (const Rec &x : got) types.insert(x.type);
            CHECK(types.size() >= 6);
        }
    }
}

TEST_CASE("ntrace core: lost data starts a fresh sequence and never makes a wrong transfer") {
    trace::GenConfig g;
    g.seed = 9;
    trace::Program p(g);
    Run r = encode(p, 300000, 64, 0);
    Framing fr;
    std::multiset<Rec> truth(r.expected.begin(), r.expected.end());
    for (unsigned drop : {2u, 3u, 7u}) {
        Env env{p.image(), {}};
        std::vector<Rec> got = decode(p.image(), fr, r.bytes, 77 + drop, drop, env);
        CAPTURE(drop);
        CHECK(!got.empty());
        CHECK(got.size() < r.expected.size());
        // Each decoded transfer happened (as a set; order across gaps is the run's).
        size_t unknown = 0;
        for (const Rec &x : got)
            if (!truth.count(x)) unknown++;
        CHECK(unknown == 0);
        // And the decoded runs are subsequences of the real one, in order.
        size_t j = 0;
        bool in_order = true;
        for (const Rec &x : got) {
            while (j < r.expected.size() && !(r.expected[j] == x)) j++;
            if (j == r.expected.size()) {
                in_order = false;
                break;
            }
            j++;
        }
        CHECK(in_order);
    }
}

TEST_CASE("ntrace core: the one-pass reader gives the table reader's fields") {
    // Random DirectBranch/IndirectBranch/ProgTraceSync/ProgTraceCorrelation-like byte
    // strings (mostly well formed, some not) under several framings, with and without
    // TSTAMP: where the
    // one-pass reader accepts a message, the table-driven reader must accept it too,
    // with the same fields and values.
    uint64_t x = 0x2545F4914F6CDD1Dull;
    auto rnd = [&x] {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        return x;
    };
    unsigned accepted = 0, tried = 0, accepted_by_tcode[64] = {};
    for (int round = 0; round < 200000; round++) {
        Framing fr;
        fr.src_bits = uint8_t(rnd() % 10);
        fr.xlen = rnd() % 2 ? 64 : 32;
        fr.extend_addr = rnd() % 2;
        fr.tstamp = rnd() % 2; // TSTAMP after the last field (the CTR feed's cycles)
        uint8_t b[16];
        size_t n = 2 + rnd() % 13;
        constexpr unsigned kCommon[] = {NT_TCODE_DirectBranch, NT_TCODE_IndirectBranch, NT_TCODE_ProgTraceSync,
                                        NT_TCODE_ProgTraceCorrelation};
        unsigned tcode = rnd() % 8 ? kCommon[rnd() % 4] : rnd() % 64;
        b[0] = uint8_t(tcode << 2 | (rnd() % 16 ? 0 : rnd() % 4));
        for (size_t i = 1; i < n; i++) {
            unsigned r = rnd() % 16;
            uint8_t mseo = r < 11 ? 0 : r < 14 ? 1 : r < 15 ? 3 : 2;
            b[i] = uint8_t((rnd() & 0xFC) | mseo);
        }
        if (rnd() % 4) b[n - 1] |= 3;
        Fields fast, table;
        tried++;
        // With TSTAMP either reader: the Ts one reads it, the other refuses such messages.
        const bool ts_reader = fr.tstamp && rnd() % 2;
        if (!(ts_reader ? detail::decode_common<true>(fr, b, n, fast) : detail::decode_common(fr, b, n, fast)))
            continue;
        accepted++;
        accepted_by_tcode[tcode]++;
        Err e = decode_fields(fr, b, n, table.tcode, table.present,
                              [&](Fld f, uint64_t v, unsigned, size_t) { table.v[unsigned(f)] = v; });
        CAPTURE(round);
        REQUIRE(e == Err::None);
        CHECK(fast.tcode == table.tcode);
        REQUIRE(fast.present == table.present);
        for (unsigned f = 0; f < kFieldCount; f++)
            if (fast.present >> f & 1) CHECK(fast.v[f] == table.v[f]);
    }
    CHECK(accepted > tried / 20);
    for (unsigned t : {NT_TCODE_DirectBranch, NT_TCODE_IndirectBranch, NT_TCODE_ProgTraceSync,
                       NT_TCODE_ProgTraceCorrelation}) {
        CAPTURE(t);
        CHECK(accepted_by_tcode[t] > 100);
    }
}
