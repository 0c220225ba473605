// SPDX-License-Identifier: BSD-2-Clause
// N-Trace message layer: the seed's byte examples (Table 6, 8.2.1 ExtendAddrMSB,
// Table 24 address compression) and a round trip of every table row.
#include <doctest/doctest.h>

#include "ntrace.hpp"

using namespace ntrace;
using Bytes = std::vector<uint8_t>;

namespace {
struct Collect : Callbacks {
    std::vector<Msg> msgs;
    std::vector<std::pair<uint64_t, Err>> errs;
    void on_msg(const Msg &m) override { msgs.push_back(m); }
    void on_error(uint64_t off, Err e) override { errs.push_back({off, e}); }
};
Bytes enc(const Framing &fr, const Msg &m) {
    Bytes b;
    encode(fr, m, b);
    return b;
}
} // namespace

TEST_CASE("ntrace table 6: IndirectBranchHist bytes encode and decode") {
    Framing fr;
    Msg m;
    m.tcode = NT_TCODE_IndirectBranchHist;
    m.set(Fld::BTYPE, 0).set(Fld::ICNT, 0x7D).set(Fld::UADDR, 0x7).set(Fld::HIST, 0xFFE);
    CHECK(enc(fr, m) == Bytes{0x70, 0xD0, 0x1D, 0x1D, 0xF8, 0xFF});

    const Bytes stream{0xFF, 0x70, 0xD0, 0x1D, 0x1D, 0xF8, 0xFF, 0xFF};
    Collect c;
    parse(fr, stream, c);
    REQUIRE(c.errs.empty());
    REQUIRE(c.msgs.size() == 1);
    const Msg &d = c.msgs[0];
    CHECK(d.offset == 1);
    CHECK(d.tcode == 28);
    CHECK(d.get(Fld::BTYPE) == 0);
    CHECK(d.get(Fld::ICNT) == 0x7D);
    CHECK(d.get(Fld::UADDR) == 0x7);
    CHECK(d.get(Fld::HIST) == 0xFFE);
    // Bit sizes as printed by the reference dump in Table 6.
    CHECK(d.nbits[unsigned(Fld::BTYPE)] == 2);
    CHECK(d.nbits[unsigned(Fld::ICNT)] == 10);
    CHECK(d.nbits[unsigned(Fld::UADDR)] == 6);
    CHECK(d.nbits[unsigned(Fld::HIST)] == 12);
    const std::string s = dump(fr, d);
    CHECK(s.find("0x70 011100_00 TCODE[6] = 28 - IndirectBranchHist") != std::string::npos);
    CHECK(s.find("0xD0 110100_00 BTYPE[2] = 0x0") != std::string::npos);
    CHECK(s.find("0x1D 000111_01 ICNT[10] = 0x7D") != std::string::npos);
    CHECK(s.find("0x1D 000111_01 UADDR[6] = 0x7") != std::string::npos);
    CHECK(s.find("0xF8 111110_00\n") != std::string::npos);
    CHECK(s.find("0xFF 111111_11 HIST[12] = 0xFFE") != std::string::npos);
}

// 8.2.1: the F-ADDR byte examples, wrapped in a ProgTraceSync (TCODE=9, SYNC=3, I-CNT=0)
// so the address field starts on a byte boundary; the last byte gets MSEO=11.
static Bytes sync_with_faddr(Bytes faddr) {
    Bytes b{0x24, 0x0D};
    faddr.back() |= 3;
    b.insert(b.end(), faddr.begin(), faddr.end());
    return b;
}

TEST_CASE("ntrace 8.2.1: ExtendAddrMSB byte examples") {
    Framing ext;
    ext.extend_addr = true;
    Framing plain;
    struct Case {
        Bytes faddr;
        uint64_t field_ext, addr;
    } cases[] = {
        // Extended address (MSB MDO bit = 1): F-ADDR field 0xF_1FFF_FFFF.
        {{0xFC, 0xFC, 0xFC, 0xFC, 0x7C, 0xF1}, 0x7FFFFFFF1FFFFFFF, 0xFFFFFFFE3FFFFFFEull},
        // Non-extended (MSB MDO bit = 0, ratified text): 0x7_FFFF_FFFF.
        {{0xFC, 0xFC, 0xFC, 0xFC, 0xFC, 0x7D}, 0x7FFFFFFFF, 0xFFFFFFFFEull},
        // Non-extended full 64-bit (invalid) address, 11 bytes: 0xBFFF_FFFF_FFFF_FFFE
        // (the seed's text drops digits of the same value).
        {{0xFC, 0xFC, 0xFC, 0xFC, 0xFC, 0xFC, 0xFC, 0xFC, 0xFC, 0xFC, 0x15},
         0x5FFFFFFFFFFFFFFF, 0xBFFFFFFFFFFFFFFEull},
    };
    for (const Case &k : cases) {
        Bytes b = sync_with_faddr(k.faddr);
        Msg m;
        REQUIRE(parse_one(ext, b, m) == Err::None);
        CHECK(m.tcode == NT_TCODE_ProgTraceSync);
        CHECK(m.get(Fld::SYNC) == NT_SYNC_EXIT_DEBUG);
        CHECK(m.get(Fld::ICNT) == 0);
        CHECK(m.get(Fld::FADDR) == k.field_ext);
        CHECK((m.get(Fld::FADDR) << 1) == k.addr);
        // The encoder picks exactly these bytes for this address.
        Msg e;
        e.tcode = NT_TCODE_ProgTraceSync;
        e.set(Fld::SYNC, 3).set(Fld::ICNT, 0).set(Fld::FADDR, k.addr >> 1);
        CHECK(enc(ext, e) == b);
    }
    // "Extra MDO with all 0-s prevents extension": a 6-bit value whose top bit is 1 but
    // which is not all ones up to the MSB needs a second, zero MDO.
    {
        Msg e;
        e.tcode = NT_TCODE_ProgTraceSync;
        e.set(Fld::SYNC, 3).set(Fld::ICNT, 0).set(Fld::FADDR, 0x3F);
        const Bytes b = enc(ext, e);
        CHECK(b == Bytes{0x24, 0x0D, 0xFC, 0x03});
        Msg m;
        REQUIRE(parse_one(ext, b, m) == Err::None);
        CHECK(m.get(Fld::FADDR) == 0x3F);
        // Without the option one MDO suffices.
        CHECK(enc(plain, e) == Bytes{0x24, 0x0D, 0xFF});
    }
    // Without the option the first example is a plain 36-bit field.
    Msg m;
    REQUIRE(parse_one(plain, sync_with_faddr({0xFC, 0xFC, 0xFC, 0xFC, 0x7C, 0xF1}), m) ==
            Err::None);
    CHECK(m.get(Fld::FADDR) == 0xF1FFFFFFFull);
    // 8.2: the Linux kernel address needs 11 bytes without the extension, 6 with it.
    Msg k;
    k.tcode = NT_TCODE_ProgTraceSync;
    k.set(Fld::SYNC, 2).set(Fld::ICNT, 0).set(Fld::FADDR, 0xFFFFFFFF800031F4ull >> 1);
    CHECK(k.get(Fld::FADDR) == 0x7FFFFFFFC00018FAull);
    CHECK(enc(plain, k).size() == 2 + 11);
    Bytes kb = enc(ext, k);
    CHECK(kb.size() == 2 + 6);
    REQUIRE(parse_one(ext, kb, m) == Err::None);
    CHECK((m.get(Fld::FADDR) << 1) == 0xFFFFFFFF800031F4ull);
}

TEST_CASE("ntrace table 24: XOR address compression") {
    const uint64_t a0 = 0x3FC04, a1 = 0x3F368, a2 = 0x3E100;
    CHECK((a0 >> 1) == 0x1FE02);
    CHECK(((a0 ^ a1) >> 1) == 0x7B6);
    CHECK(((a1 ^ a2) >> 1) == 0x934);
    // As messages: ProgTraceSync F-ADDR, then two IndirectBranch U-ADDR, decoded back.
    Framing fr;
    Bytes b;
    Msg m;
    m.tcode = NT_TCODE_ProgTraceSync;
    m.set(Fld::SYNC, 3).set(Fld::ICNT, 0).set(Fld::FADDR, a0 >> 1);
    encode(fr, m, b);
    for (uint64_t u : {0x7B6ull, 0x934ull}) {
        Msg i;
        i.tcode = NT_TCODE_IndirectBranch;
        i.set(Fld::BTYPE, 0).set(Fld::ICNT, 1).set(Fld::UADDR, u);
        encode(fr, i, b);
    }
    Collect c;
    parse(fr, b, c);
    REQUIRE(c.msgs.size() == 3);
    uint64_t ref = c.msgs[0].get(Fld::FADDR) << 1;
    CHECK(ref == a0);
    ref ^= c.msgs[1].get(Fld::UADDR) << 1;
    CHECK(ref == a1);
    ref ^= c.msgs[2].get(Fld::UADDR) << 1;
    CHECK(ref == a2);
}

TEST_CASE("ntrace every table row round-trips with SRC and TSTAMP options") {
    for (uint8_t src_bits : {0, 1, 5, 12})
        for (bool ts : {false, true})
            for (bool ext : {false, true})
                for (const MsgDesc &d : kMessages) {
                    Framing fr{src_bits, ts, ext, 64};
                    Msg m;
                    m.tcode = d.tcode;
                    if (src_bits) m.set(Fld::SRC, (1u << src_bits) - 1);
                    uint64_t seed = 0x9E3779B97F4A7C15ull * (d.tcode + 1);
                    for (unsigned i = 0; i < d.nfields; i++) {
                        const FieldRef &r = d.fields[i];
                        const FieldDesc &fd = kFields[unsigned(r.id)];
                        uint64_t v = seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                        if (fd.kind == Kind::Fix) v &= (1u << fd.bits) - 1;
                        if (fd.kind == Kind::Addr) v &= (1ull << 63) - 1;
                        if (r.id == Fld::RCODE) v = 2;
                        if (r.id == Fld::CDF) v = 1;
                        m.set(r.id, v);
                    }
                    if (ts) m.set(Fld::TSTAMP, 0x123456789ull);
                    Bytes b = enc(fr, m);
                    Msg o;
                    REQUIRE(parse_one(fr, b, o) == Err::None);
                    CHECK(o.tcode == d.tcode);
                    for (unsigned f = 0; f < kFieldCount; f++)
                        if (m.present >> f & 1) {
                            CAPTURE(d.name);
                            CAPTURE(kFields[f].name);
                            CHECK(o.get(Fld(f)) == m.get(Fld(f)));
                        }
                    CHECK(o.present == (m.present | 1u << unsigned(Fld::TCODE)));
                }
}

TEST_CASE("ntrace conditional fields follow RCODE and CDF") {
    Framing fr;
    Msg m;
    m.tcode = NT_TCODE_ResourceFull;
    m.set(Fld::RCODE, 1).set(Fld::RDATA, 0x55555555).set(Fld::HREPEAT, 10);
    Msg o;
    REQUIRE(parse_one(fr, enc(fr, m), o) == Err::None);
    CHECK_FALSE(o.has(Fld::HREPEAT));
    m.set(Fld::RCODE, 2);
    REQUIRE(parse_one(fr, enc(fr, m), o) == Err::None);
    CHECK(o.get(Fld::HREPEAT) == 10);
    Msg c;
    c.tcode = NT_TCODE_ProgTraceCorrelation;
    c.set(Fld::EVCODE, 0).set(Fld::CDF, 0).set(Fld::ICNT, 5).set(Fld::HIST, 2);
    REQUIRE(parse_one(fr, enc(fr, c), o) == Err::None);
    CHECK_FALSE(o.has(Fld::HIST));
    c.set(Fld::CDF, 1);
    REQUIRE(parse_one(fr, enc(fr, c), o) == Err::None);
    CHECK(o.get(Fld::HIST) == 2);
}

TEST_CASE("ntrace vendor TCODEs pass through, reserved ones are reported") {
    Framing fr;
    const Bytes vendor{uint8_t(56 << 2), 0x15, 0x2B}; // TCODE 56, two variable fields
    const Bytes reserved{uint8_t(40 << 2), 0x07};
    Bytes stream = vendor;
    stream.insert(stream.end(), reserved.begin(), reserved.end());
    Collect c;
    parse(fr, stream, c);
    REQUIRE(c.msgs.size() == 2);
    CHECK(c.msgs[0].tcode == 56);
    CHECK(Bytes(c.msgs[0].raw.begin(), c.msgs[0].raw.end()) == vendor);
    Bytes again;
    encode(fr, c.msgs[0], again);
    CHECK(again == vendor);
    REQUIRE(c.errs.size() == 1);
    CHECK(c.errs[0] == std::pair<uint64_t, Err>{3, Err::ReservedTcode});
}

TEST_CASE("ntrace framing errors are reported with offsets and resynchronised") {
    Framing fr;
    Msg m;
    m.tcode = NT_TCODE_DirectBranch;
    m.set(Fld::ICNT, 3);
    const Bytes good = enc(fr, m);
    Bytes s{0x01, 0x05, 0xFF};                 // junk that is not a start
    s.insert(s.end(), good.begin(), good.end()); // offset 3
    s.push_back(0x0C);
    s.push_back(0x02);                          // reserved MSEO
    s.push_back(0x03);
    s.insert(s.end(), good.begin(), good.end());
    s.push_back(0x0C);                          // truncated at the end
    Collect c;
    parse(fr, s, c);
    CHECK(c.msgs.size() == 2);
    REQUIRE(c.errs.size() == 3);
    CHECK(c.errs[0].second == Err::NoStart);
    CHECK(c.errs[0].first == 0);
    CHECK(c.errs[1].second == Err::ReservedMseo);
    CHECK(c.errs[2].second == Err::Truncated);
    // A run of zero bytes is one very long variable field: reported, no crash.
    Bytes z(1000, 0x00);
    z[0] = NT_TCODE_DirectBranch << 2;
    z.push_back(0x03);
    Msg o;
    CHECK(parse_one(fr, z, o) == Err::None);
    z[500] = 0x10;
    CHECK(parse_one(fr, z, o) == Err::FieldOverflow);
}
