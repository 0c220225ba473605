// SPDX-License-Identifier: BSD-2-Clause
// Access-record files (accrec.hpp): the byte format, round trips, and the streaming
// comparison a whole Linux boot's data trace is checked with (`make trace-linux-data`).
#include <doctest/doctest.h>

#include "accrec.hpp"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

using namespace acc;

namespace {
Access ld(unsigned size, uint64_t addr, uint64_t value, uint8_t cls = kPlain) {
    Access a;
    a.size = uint8_t(size), a.addr = addr, a.value = value, a.cls = cls;
    return a;
}
Access st(unsigned size, uint64_t addr, uint64_t value, uint8_t cls = kPlain) {
    Access a = ld(size, addr, value, cls);
    a.store = true;
    return a;
}
Access with_pc(Access a, uint64_t pc) {
    a.has_pc = true, a.pc = pc;
    return a;
}
Access lost() {
    Access a;
    a.lost = true;
    return a;
}

// The accesses written to a temporary file, positioned at its start.
FILE *written(const std::vector<Access> &v) {
    FILE *f = tmpfile();
    REQUIRE(f);
    {
        Writer w(f);
        for (const Access &a : v) w.add(a);
        CHECK(w.accesses() == v.size());
    }
    fflush(f);
    rewind(f);
    return f;
}
std::vector<uint8_t> bytes_of(const std::vector<Access> &v) {
    FILE *f = written(v);
    std::vector<uint8_t> b;
    for (int c; (c = fgetc(f)) != EOF;) b.push_back(uint8_t(c));
    fclose(f);
    return b;
}
std::unique_ptr<Reader> reader(const std::vector<Access> &v, const char *name) {
    return std::make_unique<Reader>(written(v), name);
}
CompareResult cmp(const std::vector<Access> &decoded, const std::vector<Access> &record, CompareOptions o = {}) {
    auto d = reader(decoded, "decoded"), r = reader(record, "record");
    REQUIRE(d->ok());
    REQUIRE(r->ok());
    return compare(*d, *r, o);
}
bool same(const Access &x, const Access &y) {
    return x.lost == y.lost && x.store == y.store && x.size == y.size && x.cls == y.cls && x.addr == y.addr &&
           x.value == y.value && x.has_pc == y.has_pc && (!x.has_pc || x.pc == y.pc);
}

// A boot-like stream: kernel pointers, stack accesses of every size, some atomics.
std::vector<Access> sample(unsigned n) {
    std::vector<Access> v;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (unsigned i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        const unsigned size = unsigned(x & 3);
        const uint64_t addr = (i & 1 ? 0xffffffff81000000ull : 0xff2000000fe00000ull) + ((x >> 8) & 0xfff8);
        Access a = (x >> 20 & 1) ? st(size, addr, x >> 3) : ld(size, addr, 0xffffffff80000000ull + (x >> 40));
        a.value &= value_mask(size);
        if (i % 97 == 5) a.cls = kAtomic;
        v.push_back(with_pc(a, 0xffffffff80001000ull + 2 * (x >> 50)));
    }
    return v;
}
} // namespace

TEST_CASE("accrec: the byte format (header byte, zigzag varint deltas)") {
    // load of 8 bytes at 0x10 with 0xff: H = 3, zigzag(0x10) = 0x20, zigzag(0xff) = 0x1fe.
    // store of 1 byte at 0x8 with 0x80 (pc 0x100): H = 0x88, zigzag(-8) = 15,
    // zigzag(0x80 - 0) = 0x100, zigzag(0x100) = 0x200.
    // atomic load of 4 bytes at 0x8 with 1: H = 0x12, 0, 2. Then a lost marker.
    const std::vector<uint8_t> want = {'T', 'S', 'B', 'I', 'A', 'C', 'C', '1', 0x03, 0x20, 0xFE, 0x03,
                                       0x88, 0x0F, 0x80, 0x02, 0x80, 0x04,                         //
                                       0x12, 0x00, 0x02,                                           //
                                       0x40};
    CHECK(bytes_of({ld(3, 0x10, 0xff), with_pc(st(0, 0x8, 0x80), 0x100), ld(2, 0x8, 1, kAtomic), lost()}) == want);
    // Values are the access's bytes: a wider value is cut to its size.
    CHECK(bytes_of({ld(0, 0, 0x1ff)}) == bytes_of({ld(0, 0, 0xff)}));
}

TEST_CASE("accrec: round trip") {
    std::vector<Access> v = sample(5000);
    v.push_back(lost());
    v.push_back(ld(3, 0, ~0ull));
    v.push_back(st(3, ~0ull - 7, 0));
    v.push_back(ld(4, 0x80000000, 0x0123456789abcdefull, kVector));
    v.push_back(st(1, 0x80000002, 0xbeef, kOther));
    auto r = reader(v, "sample");
    REQUIRE(r->ok());
    Access a;
    size_t i = 0;
    for (; r->next(a); i++) {
        REQUIRE(i < v.size());
        CHECK_MESSAGE(same(a, v[i]), i, ": ", format(a), " vs ", format(v[i]));
    }
    CHECK(r->error().empty());
    CHECK(i == v.size());
    CHECK(r->read() == v.size());
}

TEST_CASE("accrec: malformed files") {
    FILE *f = tmpfile();
    fputs("TSBIRUN1", f);
    rewind(f);
    Reader no_magic(f, "x");
    CHECK_FALSE(no_magic.ok());
    CHECK(no_magic.error().find("no TSBIACC1 magic") != std::string::npos);

    // Cut inside the last access's varints: an error, not a clean end.
    std::vector<uint8_t> b = bytes_of({ld(3, 0x1000, 0x123456789)});
    b.pop_back();
    f = tmpfile();
    fwrite(b.data(), 1, b.size(), f);
    rewind(f);
    Reader cut(f, "cut");
    REQUIRE(cut.ok());
    Access a;
    CHECK_FALSE(cut.next(a));
    CHECK(cut.error().find("truncated") != std::string::npos);

    // A value wider than its size.
    f = tmpfile();
    const uint8_t wide[] = {'T', 'S', 'B', 'I', 'A', 'C', 'C', '1', 0x00, 0x00, 0x80, 0x04};
    fwrite(wide, 1, sizeof wide, f);
    rewind(f);
    Reader w(f, "wide");
    CHECK_FALSE(w.next(a));
    CHECK(w.error().find("wider") != std::string::npos);
}

TEST_CASE("accrec compare: equal streams, the pc is context only") {
    std::vector<Access> rec = sample(3000), dec;
    for (const Access &a : rec)
        if (a.cls == kPlain) {
            Access d = a;
            d.has_pc = false; // the decoder knows no pc
            dec.push_back(d);
        }
    const CompareResult c = cmp(dec, rec);
    CHECK_MESSAGE(c.equal, c.message);
    CHECK(c.compared == dec.size());
    CHECK(c.skipped_record[kAtomic] == rec.size() - dec.size());
    CHECK(c.skipped_record[kAtomic] > 0);
    CHECK(c.message.find("atomic accesses recorded") != std::string::npos);
}

TEST_CASE("accrec compare: a wrong value, address, size or kind fails at that access, with context") {
    const std::vector<Access> rec = {with_pc(ld(3, 0x1000, 5), 0x80), with_pc(st(2, 0x2000, 6), 0x84),
                                     with_pc(ld(3, 0x1008, 7), 0x88), with_pc(st(0, 0x2004, 8), 0x8c),
                                     with_pc(ld(1, 0x3000, 9), 0x90)};
    struct Case {
        const char *what;
        Access bad;
    } cases[] = {{"value", ld(3, 0x1008, 0x17)},
                 {"address", ld(3, 0x1010, 7)},
                 {"size", ld(2, 0x1008, 7)},
                 {"kind", st(3, 0x1008, 7)}};
    for (const Case &k : cases) {
        const std::string what = k.what;
        CAPTURE(what);
        std::vector<Access> dec = {ld(3, 0x1000, 5), st(2, 0x2000, 6), k.bad, st(0, 0x2004, 8), ld(1, 0x3000, 9)};
        const CompareResult c = cmp(dec, rec);
        CHECK_FALSE(c.equal);
        CHECK(c.compared == 2);
        CHECK_MESSAGE(c.message.find("first difference at access 2 ") == 0, c.message);
        // Context: the equal accesses before, the difference with the record's pc, after.
        CHECK(c.message.find("1 both:     store size=2 addr=0x2000 data=0x6 (pc 0x84)") != std::string::npos);
        CHECK(c.message.find("*2 decoded:  " + format(k.bad)) != std::string::npos);
        CHECK(c.message.find("*2 recorded: load size=3 addr=0x1008 data=0x7 (pc 0x88)") != std::string::npos);
        CHECK(c.message.find(" 3 recorded: store size=0 addr=0x2004 data=0x8 (pc 0x8c)") != std::string::npos);
    }
    // The same decoded stream without the mistake passes.
    CHECK(cmp({ld(3, 0x1000, 5), st(2, 0x2000, 6), ld(3, 0x1008, 7), st(0, 0x2004, 8), ld(1, 0x3000, 9)}, rec).equal);
}

TEST_CASE("accrec compare: missing, extra and lost accesses; the record's tail") {
    const std::vector<Access> rec = {ld(3, 0x1000, 5), st(2, 0x2000, 6), ld(3, 0x1008, 7)};
    // A missing access in the middle.
    CompareResult c = cmp({ld(3, 0x1000, 5), ld(3, 0x1008, 7)}, rec);
    CHECK_FALSE(c.equal);
    CHECK(c.compared == 1);
    // The decoded stream goes on after the record.
    c = cmp({ld(3, 0x1000, 5), st(2, 0x2000, 6), ld(3, 0x1008, 7), ld(0, 0, 0)}, rec);
    CHECK_FALSE(c.equal);
    CHECK(c.message.find("the record ends") != std::string::npos);
    // The encoder reported lost data.
    c = cmp({ld(3, 0x1000, 5), lost(), st(2, 0x2000, 6), ld(3, 0x1008, 7)}, rec);
    CHECK_FALSE(c.equal);
    CHECK(c.message.find("lost data packets") != std::string::npos);
    // The record goes on: allowed up to max_tail accesses.
    c = cmp({ld(3, 0x1000, 5)}, rec);
    CHECK_FALSE(c.equal);
    CHECK(c.record_tail == 2);
    CompareOptions o;
    o.max_tail = 2;
    c = cmp({ld(3, 0x1000, 5)}, rec, o);
    CHECK_MESSAGE(c.equal, c.message);
    CHECK(c.compared == 1);
    // Empty against empty.
    CHECK(cmp({}, {}).equal);
}

TEST_CASE("accrec compare: atomics are left out by class unless kept") {
    const std::vector<Access> rec = {ld(3, 0x1000, 5), ld(2, 0x2000, 1, kAtomic), st(2, 0x2000, 2, kAtomic),
                                     ld(3, 0x1008, 7)};
    const std::vector<Access> plain = {ld(3, 0x1000, 5), ld(3, 0x1008, 7)};
    CompareResult c = cmp(plain, rec);
    CHECK(c.equal);
    CHECK(c.skipped_record[kAtomic] == 2);
    CHECK(c.skipped_decoded[kAtomic] == 0);
    // Kept (the model traces atomics): the record's atomics must be in the decoded stream.
    CompareOptions keep;
    keep.skip &= ~(1u << kAtomic);
    c = cmp(plain, rec, keep);
    CHECK_FALSE(c.equal);
    CHECK(c.compared == 1);
    CHECK(cmp(rec, rec, keep).equal);
    // A wrong atomic is found when kept, ignored when not.
    std::vector<Access> wrong = rec;
    wrong[2].value = 3;
    CHECK_FALSE(cmp(wrong, rec, keep).equal);
    CHECK(cmp(wrong, rec).equal);
}

namespace {
Access amo(unsigned op, unsigned size, uint64_t addr, uint64_t loaded, uint64_t operand) {
    Access a = ld(size, addr, loaded, kAtomic);
    a.packet = true, a.op = uint8_t(op), a.operand = operand;
    return a;
}
Access sc_fail(unsigned size, uint64_t addr) {
    Access a = amo(kOpScFail, size, addr, 0, 0);
    return a;
}
} // namespace

TEST_CASE("accrec: atomic packets round trip") {
    const std::vector<Access> v = {amo(1, 2, 0x1000, 5, 3), sc_fail(3, 0x2000), with_pc(amo(6, 3, 8, ~0ull, 1), 0x40)};
    auto r = reader(v, "amo");
    Access a;
    for (const Access &w : v) {
        REQUIRE(r->next(a));
        CHECK_MESSAGE(same(a, w), format(a), " vs ", format(w));
        CHECK(a.op == w.op);
        CHECK(a.operand == w.operand);
    }
    CHECK_FALSE(r->next(a));
    CHECK(r->error().empty());
    CHECK(format(v[0]) == "amo op=1 size=2 addr=0x1000 data=0x5 operand=0x3");
    CHECK(format(v[1]) == "sc_fail size=3 addr=0x2000");
}

TEST_CASE("accrec compare: atomics paired with the data trace's atomic packets") {
    const uint64_t A = 0x3000, B = 0x3008;
    // As the plugin records them: an LR is an atomic load, an AMO and an SC that
    // reached memory an atomic load and store of one instruction (one pc).
    const std::vector<Access> rec = {
        with_pc(ld(3, 0x1000, 1), 0x00),
        with_pc(ld(2, A, 5, kAtomic), 0x10),                                     // lr.w: 5
        with_pc(ld(2, A, 5, kAtomic), 0x14), with_pc(st(2, A, 9, kAtomic), 0x14), // sc.w stores 9
        with_pc(ld(2, B, 10, kAtomic), 0x18), with_pc(st(2, B, 13, kAtomic), 0x18), // amoadd.w +3 (serial TCG)
        with_pc(ld(2, B, 13, kAtomic), 0x1c), with_pc(st(2, B, 7, kAtomic), 0x1c),  // amoswap.w 7
        with_pc(ld(2, B, 0xffffffff, kAtomic), 0x20), with_pc(st(2, B, 1, kAtomic), 0x20), // amomax.w: signed
        with_pc(ld(2, A, 9, kAtomic), 0x24), with_pc(st(2, A, 9, kAtomic), 0x24), // sc.w: 9 is not the LR's 5
        with_pc(st(3, 0x1000, 2), 0x28)};
    const std::vector<Access> dec = {ld(3, 0x1000, 1),
                                     ld(2, A, 5),           // the LR: a load
                                     st(2, A, 9),           // the SC that stored: a store
                                     amo(1, 2, B, 10, 3),   // amoadd
                                     amo(0, 2, B, 13, 7),   // amoswap
                                     amo(5, 2, B, 0xffffffff, 1), // amomax
                                     sc_fail(2, A),         // failed on the value
                                     sc_fail(2, A),         // no reservation: no access
                                     st(3, 0x1000, 2)};
    CompareOptions pair;
    pair.pair_atomics = true;
    CompareResult c = cmp(dec, rec, pair);
    CHECK_MESSAGE(c.equal, c.message);
    CHECK(c.amos == 3);
    CHECK(c.lrs == 1);
    CHECK(c.sc_stored == 1);
    CHECK(c.sc_failed == 1);
    CHECK(c.sc_no_access == 1);
    CHECK(c.message.find("3 AMOs, 1 LRs, 1 SCs stored, 1 failed, 1 failed without an access") != std::string::npos);

    // Each deliberate mistake fails.
    struct Case {
        const char *what;
        size_t at;
        Access bad;
    } cases[] = {{"LR value", 1, ld(2, A, 6)},
                 {"SC stored value", 2, st(2, A, 8)},
                 {"SC stored reported failed", 2, sc_fail(2, A)},
                 {"AMO value loaded", 3, amo(1, 2, B, 11, 3)},
                 {"AMO operand", 3, amo(1, 2, B, 10, 4)},
                 {"AMO address", 3, amo(1, 2, B + 8, 10, 3)},
                 {"AMO op", 3, amo(2, 2, B, 10, 3)}, // and: neither 10 & 3 nor 3 was stored
                 {"SC failed reported stored", 6, st(2, A, 9)}};
    for (const Case &k : cases) {
        const std::string what = k.what;
        CAPTURE(what);
        std::vector<Access> bad = dec;
        bad[k.at] = k.bad;
        c = cmp(bad, rec, pair);
        CHECK_FALSE(c.equal);
        CHECK(c.message.find("first difference") == 0);
    }
    // Not paired (the default): atomics left out on both sides; the LR and SC the
    // trace reports as a load and a store are then extra.
    c = cmp(dec, rec);
    CHECK_FALSE(c.equal);
    std::vector<Access> plain_only = {ld(3, 0x1000, 1), st(3, 0x1000, 2)};
    c = cmp(plain_only, rec);
    CHECK_MESSAGE(c.equal, c.message);
    CHECK(c.skipped_record[kAtomic] == 11);
}
