// SPDX-License-Identifier: BSD-2-Clause
// The streaming message reader (ntrace::StreamParser, `ntrace decode`): the same
// messages, errors and byte offsets as parse() over the whole stream, whatever the
// pieces the stream arrives in, and the same decoded PCs.
#include <doctest/doctest.h>

#include <cstring>
#include <random>

#include "ntrace_dec.hpp"
#include "ntrace_enc.hpp"
#include "progen.hpp"

using namespace ntrace;

namespace {
// Everything a Callbacks sees, as one comparable log.
struct Log : Callbacks {
    std::vector<std::string> lines;
    void on_msg(const Msg &m) override {
        std::string s = "msg " + std::to_string(m.offset) + " " + std::to_string(m.tcode) + " " +
                        std::to_string(m.length);
        for (unsigned f = 0; f < kFieldCount; f++)
            if (m.has(Fld(f))) s += " " + std::to_string(f) + "=" + std::to_string(m.get(Fld(f)));
        lines.push_back(s);
    }
    void on_error(uint64_t off, Err e) override {
        lines.push_back("err " + std::to_string(off) + " " + err_name(e));
    }
};

std::vector<std::string> whole(const Framing &fr, const std::vector<uint8_t> &b, bool mid) {
    Log l;
    parse(fr, b, l, mid);
    return l.lines;
}
std::vector<std::string> pieces(const Framing &fr, const std::vector<uint8_t> &b, bool mid, std::mt19937 &rng,
                                size_t maxpiece, bool values_only = false) {
    Log l;
    StreamParser p(fr, l, mid, values_only);
    for (size_t i = 0; i < b.size();) {
        size_t n = std::min<size_t>(b.size() - i, 1 + rng() % maxpiece);
        p.feed(b.data() + i, n);
        i += n;
    }
    p.finish();
    return l.lines;
}

std::vector<uint8_t> encoded(unsigned mode, uint64_t n, trace::Program &prog) {
    EncoderConfig c;
    c.trTeControl = te_put(0, NT_TE(trTeControl, InstMode), mode);
    c.trTeInstFeatures = te_put(0, NT_TE(trTeInstFeatures, EnRepeatedHistory), 1);
    Encoder e(c);
    prog.run(n, [&](const trace::GenEvent &ev) { trace::to_encoder(ev, e); });
    return e.out();
}
} // namespace

TEST_CASE("ntrace stream: pieces of any size give parse()'s messages, errors and offsets") {
    trace::GenConfig g;
    g.seed = 5;
    trace::Program prog(g);
    const std::vector<uint8_t> good = encoded(TCI_INSTMODE_HTM, 20000, prog);
    REQUIRE(good.size() > 1000);
    std::mt19937 rng(1);
    Framing fr;
    for (int round = 0; round < 40; round++) {
        std::vector<uint8_t> b = good;
        // Damage: random bytes (reserved MSEO, stray end bytes, idles, garbage runs).
        if (round) {
            for (int k = 0; k < round; k++) b[rng() % b.size()] = uint8_t(rng());
            if (round % 5 == 0) b.insert(b.begin() + long(rng() % b.size()), 300, uint8_t(0x04)); // one long "message"
            if (round % 7 == 0) b.resize(b.size() - 1 - rng() % 5); // truncated at the end
        }
        for (bool mid : {false, true}) {
            const auto want = whole(fr, b, mid);
            for (size_t maxpiece : {1, 2, 7, 64, 4096}) {
                CAPTURE(round);
                CAPTURE(mid);
                CAPTURE(maxpiece);
                CHECK(pieces(fr, b, mid, rng, maxpiece) == want);
            }
        }
    }
}

TEST_CASE("ntrace stream: values_only gives the same field values") {
    trace::GenConfig g;
    g.seed = 9;
    trace::Program prog(g);
    for (unsigned mode : {unsigned(TCI_INSTMODE_BTM), unsigned(TCI_INSTMODE_HTM)}) {
        const std::vector<uint8_t> b = encoded(mode, 20000, prog);
        std::mt19937 rng(2);
        CHECK(pieces(Framing{}, b, false, rng, 100, true) == whole(Framing{}, b, false));
    }
}

TEST_CASE("ntrace stream: a run longer than any message is reported once and skipped") {
    Framing fr;
    std::vector<uint8_t> b(StreamParser::kMaxCarry + 10, uint8_t(0x04)); // MDO data, never an end byte
    b.push_back(0xFF); // the end byte the skip stops at
    const size_t at = b.size();
    Msg m;
    m.tcode = NT_TCODE_ProgTraceSync;
    m.set(Fld::SYNC, NT_SYNC_EXIT_DEBUG).set(Fld::ICNT, 0).set(Fld::FADDR, 0x1234);
    encode(fr, m, b);
    Log l;
    StreamParser p(fr, l, false);
    for (size_t i = 0; i < b.size(); i += 4096) p.feed(b.data() + i, std::min<size_t>(4096, b.size() - i));
    p.finish();
    CHECK(p.consumed() == b.size());
    REQUIRE(l.lines.size() >= 2);
    CHECK(l.lines[0].rfind("err 0 ", 0) == 0);
    // The message after the run is read where it is.
    CHECK(l.lines.back().rfind("msg " + std::to_string(at) + " " + std::to_string(NT_TCODE_ProgTraceSync) + " ", 0) == 0);
}

TEST_CASE("ntrace stream: the decoder fed in pieces gives the PCs of the whole-stream decode") {
    trace::GenConfig g;
    g.seed = 11;
    trace::Program prog(g);
    const std::vector<uint8_t> b = encoded(TCI_INSTMODE_HTM, 50000, prog);
    struct Sink : DecodeSink {
        std::vector<uint64_t> pcs;
        size_t events = 0;
        void insns(const uint64_t *a, size_t n) override { pcs.insert(pcs.end(), a, a + n); }
        void event(const Event &) override { events++; }
    } s1, s2;
    DecoderConfig dc;
    Decoder d1(dc, prog.image(), s1);
    d1.run(b);
    Decoder d2(dc, prog.image(), s2);
    StreamParser p(dc.fr, d2, false, true);
    std::mt19937 rng(4);
    for (size_t i = 0; i < b.size();) {
        size_t n = std::min<size_t>(b.size() - i, 1 + rng() % 333);
        p.feed(b.data() + i, n);
        i += n;
    }
    p.finish();
    d2.finish();
    CHECK(s1.pcs.size() > 40000);
    CHECK(d1.errors() == 0);
    CHECK(d2.errors() == 0);
    CHECK(s2.pcs == s1.pcs);
    CHECK(s2.events == s1.events);
}

#include "pcfmt.hpp"

TEST_CASE("pcfmt: LineReader::next_pcinfo reads every line as next() + parse_pcinfo_line()") {
    // Canonical lines (the fast path), other spellings and bad lines (the general
    // path), LF and CRLF, long lines, and a last line without its end.
    const char *const lines[] = {
        "0x80000000,L4", "0x80000004,BD4,0x80000010", "0x2001052A,BN2", "0x10,J2", "0x12,C4",
        "0x14,R2", "0x16,JI4", "0x18,CI2", "0x1A,CD4,0x100", "0x1c,b4", "0X1E,L4", "  0x20,L4",
        "0x22,L4  ", "# comment", "", "0x24,LX4", "0x26,L3", "0x28,BD4,", "0x2A,BD4,0x", "0x,L4",
        "0x12345678901234567,L4", "0xFFFFFFFFFFFFFFFE,JD4,0xFFFFFFFFFFFFFFF0", "0x2C,B4", "0x2E,L4,0x1,",
        "0x30,L4 # x", "x30,L4", "0x32,BN4,0x40"};
    std::mt19937 rng(7);
    for (int round = 0; round < 200; round++) {
        std::string text;
        std::vector<std::string> picked;
        const int n = 1 + int(rng() % 40);
        for (int i = 0; i < n; i++) {
            std::string l = lines[rng() % (sizeof lines / sizeof *lines)];
            if (rng() % 7 == 0) l = std::string(200, ' ') + l; // longer than the fast path looks
            picked.push_back(l);
            text += l;
            if (i + 1 < n || rng() % 2) text += rng() % 2 ? "\r\n" : "\n";
        }
        auto run = [&](bool fast) {
            FILE *f = tmpfile();
            fwrite(text.data(), 1, text.size(), f);
            rewind(f);
            trace::LineReader r(f);
            std::vector<std::string> out;
            for (;;) {
                trace::PcInfo p;
                int got;
                if (fast) {
                    got = r.next_pcinfo(p);
                } else {
                    std::string_view l;
                    got = r.next(l) ? (trace::parse_pcinfo_line(l, p) ? 1 : -1) : 0;
                }
                if (!got) break;
                char b[128];
                snprintf(b, sizeof b, "%d %zu %llx %s %u %d %llx", got, r.line(), (unsigned long long)p.addr,
                         got > 0 ? p.type : "", got > 0 ? p.size : 0, got > 0 && p.has_dest,
                         got > 0 ? (unsigned long long)p.dest : 0ull);
                out.push_back(b);
            }
            fclose(f);
            return out;
        };
        CAPTURE(text);
        CHECK(run(true) == run(false));
    }
}

TEST_CASE("pcfmt: code_from_pcinfo expresses every line it can, and says which it cannot") {
    struct Case {
        const char *type;
        unsigned size;
        int64_t reach; // largest even |DEST - ADDR| the instruction reaches (0: no DEST)
    } cases[] = {{"L", 4, 0},  {"L", 2, 0},    {"BD", 4, 4094}, {"BN", 4, 4094}, {"BD", 2, 254},
                 {"JD", 4, (1 << 20) - 2}, {"CD", 4, (1 << 20) - 2}, {"JD", 2, 2046}, {"CD", 2, 2046},
                 {"JI", 4, 0}, {"CI", 4, 0},   {"R", 4, 0},     {"JI", 2, 0},     {"CI", 2, 0}, {"R", 2, 0}};
    for (unsigned xlen : {32u, 64u}) {
        rv::Options o;
        o.xlen = xlen;
        for (const Case &c : cases) {
            const bool c_jal = !strcmp(c.type, "CD") && c.size == 2; // RV32 only
            std::vector<int64_t> offs = {0};
            if (c.reach) offs = {2, -2, c.reach, -c.reach - 2, c.reach + 2, -c.reach - 4};
            for (int64_t off : offs) {
                trace::PcInfo p;
                p.addr = 0x80100000;
                p.size = uint8_t(c.size);
                strcpy(p.type, c.type);
                p.has_dest = c.reach != 0;
                p.dest = p.addr + uint64_t(off);
                uint64_t base;
                std::vector<uint8_t> bytes;
                std::string err;
                const bool ok = trace::code_from_pcinfo({p}, o, base, bytes, err);
                const bool in_reach = !c.reach || (off <= c.reach && off >= -c.reach - 2);
                CAPTURE(xlen);
                CAPTURE(c.type);
                CAPTURE(c.size);
                CAPTURE(off);
                CHECK(ok == (in_reach && !(c_jal && xlen == 64)));
                if (!ok) continue;
                CHECK(base == p.addr);
                REQUIRE(bytes.size() == c.size);
                uint32_t bits = 0;
                memcpy(&bits, bytes.data(), c.size);
                const rv::Insn in = rv::classify(bits, o);
                CHECK(in.size == c.size);
                if (c.reach) CHECK(in.offset == off);
            }
        }
    }
    // A direct transfer needs its DEST; lines must not overlap.
    trace::PcInfo j;
    j.addr = 0x100, j.size = 4;
    strcpy(j.type, "JD");
    uint64_t base;
    std::vector<uint8_t> bytes;
    std::string err;
    CHECK_FALSE(trace::code_from_pcinfo({j}, rv::Options{}, base, bytes, err));
    CHECK(err.find("without DEST") != std::string::npos);
    trace::PcInfo a, b;
    a.addr = 0x100, b.addr = 0x102, a.size = b.size = 4;
    CHECK_FALSE(trace::code_from_pcinfo({a, b}, rv::Options{}, base, bytes, err));
    CHECK(err.find("overlapping") != std::string::npos);
}
