// SPDX-License-Identifier: BSD-2-Clause
// E-Trace data trace packets: hand-derived packet bytes, compression rules and round trips
// of every packet type under parameter combinations.
#include <doctest/doctest.h>

#include "etrace_data.hpp"

using namespace etrace;
using Bytes = std::vector<uint8_t>;

TEST_CASE("etrace size field width: max(1, clog2(clog2(data_width_p/8 + 1)))") {
    Params p;
    for (auto [w, bits] : {std::pair{8u, 1u}, {16u, 1u}, {32u, 2u}, {64u, 2u}}) {
        p.data_width = w;
        CHECK(p.size_bits() == bits);
    }
}

TEST_CASE("etrace table 27 packet bytes, then differential/XOR compression") {
    Params p;
    p.daddress_width = 32;
    Encoder e(p);
    Bytes b;
    Record r;
    r.kind = Kind::Load, r.size = 2, r.addr = 0x1000, r.data = 0x12345678;
    REQUIRE(e.encode(r, b));
    // format 000, size 10, diff 00, data_len 11, data 0x12345678, address 0x400 (0x1000 >> 2),
    // trailing zero bytes removed (sign extension of the last bit).
    CHECK(b == Bytes{0x47, 0x90, 0xF1, 0xAC, 0x68, 0x24, 0x00, 0x08});
    r.addr = 0x1004, r.data = 0x12345679;
    b.clear();
    REQUIRE(e.encode(r, b));
    // diff 01 (differential address, XOR data): data_len 0, data 0x01, address +1.
    CHECK(b == Bytes{0x43, 0x30, 0x02, 0x02});
    Decoder d(p);
    Bytes all;
    Encoder e2(p);
    Record r1 = r;
    r1.addr = 0x1000, r1.data = 0x12345678;
    REQUIRE(e2.encode(r1, all));
    REQUIRE(e2.encode(r, all));
    size_t off = 0;
    unsigned type;
    std::span<const uint8_t> pl;
    Record o;
    REQUIRE(next_packet(all, off, type, pl));
    REQUIRE(d.decode(type, pl, o) == Err::None);
    CHECK(o == r1);
    REQUIRE(next_packet(all, off, type, pl));
    REQUIRE(d.decode(type, pl, o) == Err::None);
    CHECK(o == r);
}

TEST_CASE("etrace sign extension of truncated data and addresses") {
    Params p;
    Encoder e(p);
    Bytes b;
    Record r;
    r.kind = Kind::Store, r.size = 3, r.addr = 0xFFFFFFFFFFFFF000ull, r.data = 0xFFFFFFFFFFFFFFFEull;
    REQUIRE(e.encode(r, b));
    // format 010, size 11, diff 00, data_len 000, data 0xFE, address all ones above bit 8:
    // everything after the data collapses into the sign extension.
    CHECK(b.size() == 1 + 4); // 18 bits of header fields and data, 9 zero address bits, then ones
    Decoder d(p);
    size_t off = 0;
    unsigned t;
    std::span<const uint8_t> pl;
    REQUIRE(next_packet(b, off, t, pl));
    Record o;
    REQUIRE(d.decode(t, pl, o) == Err::None);
    CHECK(o == r);
}

TEST_CASE("etrace compression state resets at synchronisation") {
    Params p;
    Encoder e(p);
    Decoder d(p);
    Bytes b;
    Record r;
    r.kind = Kind::Load, r.size = 3, r.addr = 0x80000000, r.data = 5;
    REQUIRE(e.encode(r, b));
    r.addr += 8;
    REQUIRE(e.encode(r, b));
    Record s;
    s.kind = Kind::Sync;
    REQUIRE(e.encode(s, b));
    r.addr += 8;
    REQUIRE(e.encode(r, b));
    std::vector<Record> out;
    size_t off = 0;
    unsigned t;
    std::span<const uint8_t> pl;
    std::vector<unsigned> diff_codes;
    while (next_packet(b, off, t, pl)) {
        Record o;
        REQUIRE(d.decode(t, pl, o) == Err::None);
        out.push_back(o);
        if (t == 1) diff_codes.push_back(pl[0] >> 5 & 3);
    }
    REQUIRE(out.size() == 4);
    CHECK(out[3] == r);
    CHECK(diff_codes == std::vector<unsigned>{0, 2, 0}); // full, differential address, full after sync
    // A decoder that starts after the first packet sees a compressed value without a
    // reference: reported.
    Decoder late(p);
    off = 0;
    REQUIRE(next_packet(b, off, t, pl));
    REQUIRE(next_packet(b, off, t, pl));
    Record o;
    CHECK(late.decode(t, pl, o) == Err::NoSync);
}

namespace {
uint64_t rng = 88172645463325252ull;
uint64_t rnd() {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}
uint64_t mask(unsigned n) { return n >= 64 ? ~0ull : (1ull << n) - 1; }
} // namespace

TEST_CASE("etrace round trip of every packet type under parameter combinations") {
    for (unsigned dw : {32u, 64u})
        for (unsigned aw : {32u, 40u, 64u})
            for (unsigned comp : {0u, 1u, 2u, 3u})
                for (unsigned mode : {0u, 1u, 2u}) // 0 addr+data, 1 no data, 2 no addr
                    for (bool split : {false, true}) {
                        Params p;
                        p.data_width = dw, p.daddress_width = aw, p.compress = comp, p.split = split;
                        p.lrid_width = 3, p.csr_width = dw;
                        p.no_data = mode == 1, p.no_addr = mode == 2;
                        Encoder e(p);
                        Bytes b;
                        std::vector<Record> in;
                        unsigned pending_lrid = 8;
                        for (int i = 0; i < 400; i++) {
                            Record r;
                            const unsigned k = unsigned(rnd() % 7);
                            r.size = unsigned(rnd() % (dw == 64 ? 4 : 3));
                            const uint64_t base = rnd() % 4 ? 0x80000000ull : 0xFFFFFFFFFFFF0000ull;
                            r.addr = (base + (rnd() % 64) * 8 + (rnd() % 3 == 0 ? rnd() % 8 : 0)) & mask(aw);
                            r.data = rnd() % 2 ? rnd() : rnd() % 300;
                            r.data &= mask(8u << r.size);
                            if (k == 0) r.kind = split ? Kind::SplitLoadAddr : Kind::Load;
                            if (k == 1) r.kind = Kind::Store;
                            if (k == 2) r.kind = split ? Kind::SplitAtomicAddr : Kind::Atomic;
                            if (k == 3) r.kind = Kind::ScFail;
                            if (k == 4) {
                                r.kind = Kind::Csr, r.addr = rnd() % 0x1000, r.subtype = unsigned(rnd() % 3);
                                r.data = rnd() & mask(dw);
                                r.size = dw == 64 ? 3 : 2;
                            }
                            if (k == 5) r.kind = Kind::Sync;
                            if (k == 6) r.kind = Kind::Support;
                            if (r.kind == Kind::Atomic || r.kind == Kind::ScFail || r.kind == Kind::SplitAtomicAddr) {
                                if (r.size < 2) r.size = 2;
                                r.addr &= ~mask(r.size);
                                r.data &= mask(8u << r.size);
                                r.subtype = unsigned(rnd() % 7);
                                r.operand = rnd() & mask(8u << r.size);
                            }
                            if (r.kind == Kind::ScFail) r.subtype = 0, r.operand = 0;
                            if (split && (r.kind == Kind::SplitLoadAddr || r.kind == Kind::SplitAtomicAddr)) {
                                if (pending_lrid != 8) continue;
                                r.lrid = unsigned(rnd() % 8);
                            }
                            REQUIRE(e.encode(r, b));
                            // What the packet carries in this mode.
                            if (r.kind != Kind::Csr && r.kind != Kind::Sync && r.kind != Kind::Support) {
                                if (p.no_data) r.data = 0;
                                if (p.no_addr && (r.kind == Kind::Load || r.kind == Kind::Store || r.kind == Kind::Atomic))
                                    r.addr = 0;
                                if (r.kind == Kind::ScFail || r.kind == Kind::SplitLoadAddr || r.kind == Kind::SplitAtomicAddr)
                                    r.data = 0;
                                if (p.no_data && (r.kind == Kind::Atomic)) r.operand = 0;
                            }
                            if (r.kind == Kind::Csr && p.no_data) r.data = 0, r.operand = 0;
                            if (r.kind == Kind::Csr && (r.addr >> 10) == 3) r.operand = 0;
                            if (r.kind == Kind::Csr) r.size = dw == 64 ? 3 : 2;
                            in.push_back(r);
                            if (split && (r.kind == Kind::SplitLoadAddr || r.kind == Kind::SplitAtomicAddr)) {
                                // The response follows.
                                Record s;
                                s.kind = r.kind == Kind::SplitLoadAddr ? Kind::SplitLoadData : Kind::SplitAtomicData;
                                s.lrid = r.lrid, s.size = r.size, s.error = rnd() % 10 == 0;
                                s.data = s.error ? 0 : rnd() & mask(8u << r.size);
                                REQUIRE(e.encode(s, b));
                                in.push_back(s);
                            }
                        }
                        Decoder d(p);
                        size_t off = 0;
                        unsigned t;
                        std::span<const uint8_t> pl;
                        size_t i = 0;
                        while (next_packet(b, off, t, pl)) {
                            Record o;
                            CAPTURE(dw);
                            CAPTURE(aw);
                            CAPTURE(comp);
                            CAPTURE(mode);
                            CAPTURE(split);
                            CAPTURE(i);
                            REQUIRE(i < in.size());
                            REQUIRE(d.decode(t, pl, o) == Err::None);
                            CHECK(format_record(o) == format_record(in[i]));
                            i++;
                        }
                        CHECK(off == b.size());
                        CHECK(i == in.size());
                    }
}

TEST_CASE("etrace text records parse and print") {
    Record r;
    std::string err;
    REQUIRE(parse_record("amo size=3 op=1 addr=0x80001000 data=0x5 operand=0x7", r, err));
    CHECK(r.kind == Kind::Atomic);
    CHECK(format_record(r) == "amo size=3 op=1 addr=0x80001000 data=0x5 operand=0x7");
    CHECK_FALSE(parse_record("bogus x=1", r, err));
    CHECK_FALSE(parse_record("load size=9", r, err));
}

TEST_CASE("etrace support packet tells the decoder that addresses or data are excluded") {
    Params enc_p;
    enc_p.no_data = true; // address-only trace
    Encoder e(enc_p);
    Bytes b;
    Record s;
    s.kind = Kind::Support;
    REQUIRE(e.encode(s, b));
    Record r;
    r.kind = Kind::Store, r.size = 2, r.addr = 0x2000;
    REQUIRE(e.encode(r, b));
    Decoder d(Params{}); // starts believing in address + data packets
    size_t off = 0;
    unsigned t;
    std::span<const uint8_t> pl;
    Record o;
    REQUIRE(next_packet(b, off, t, pl));
    CHECK(t == 0);
    REQUIRE(d.decode(t, pl, o) == Err::None);
    CHECK(o.kind == Kind::Support);
    CHECK(d.params().no_data);
    REQUIRE(next_packet(b, off, t, pl));
    REQUIRE(d.decode(t, pl, o) == Err::None);
    CHECK(o.kind == Kind::Store);
    CHECK(o.addr == 0x2000);
}
