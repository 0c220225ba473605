// SPDX-License-Identifier: BSD-2-Clause
// Decoding code the program rewrites while it runs (textpatch.hpp), and the
// instruction-run files the Linux trace verification compares (runs.hpp).
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>

#include "flow_env.hpp"
#include "ntrace_dec.hpp"
#include "ntrace_enc.hpp"
#include "pcfmt.hpp"
#include "runs.hpp"
#include "textpatch.hpp"

namespace {
constexpr uint32_t kNop = 0x00000013, kRet = 0x00008067;
constexpr uint64_t kSub = 0x1000, kMain = 0x2000;

uint32_t jal(unsigned rd, int32_t off) {
    const uint32_t v = uint32_t(off);
    return 0x6F | rd << 7 | (v >> 20 & 1) << 31 | (v >> 1 & 0x3FF) << 21 | (v >> 11 & 1) << 20 | (v >> 12 & 0xFF) << 12;
}
std::vector<uint8_t> words(std::initializer_list<uint32_t> w) {
    std::vector<uint8_t> b;
    for (uint32_t x : w)
        for (int i = 0; i < 4; i++) b.push_back(uint8_t(x >> (8 * i)));
    return b;
}

// A subroutine whose first instruction the program rewrites between calls:
// "nop; addi; addi; ret" and, patched, "j ret; addi; addi; ret". Both calls end at the
// same return (one IndirectBranch message each) with different I-CNT.
struct Prog {
    trace::Image pristine, patched;
    std::vector<uint64_t> pcs; // as executed: pristine first call, patched second
    Prog() {
        const uint32_t addi = 0x00150513; // addi a0, a0, 1
        pristine.add(kSub, words({kNop, addi, addi, kRet}));
        patched.add(kSub, words({jal(0, 12), addi, addi, kRet}));
        const auto main = words({jal(1, int32_t(kSub - kMain)), jal(1, int32_t(kSub - kMain - 4)), kNop, kNop});
        pristine.add(kMain, main);
        patched.add(kMain, main);
        pcs = {kMain, kSub, kSub + 4, kSub + 8, kSub + 12, kMain + 4, kSub, kSub + 12, kMain + 8, kMain + 12};
    }
    // The HTM trace of the execution, each instruction classified in the version live.
    std::vector<uint8_t> trace() const {
        std::vector<trace::PcInfo> info;
        for (size_t i = 0; i < pcs.size(); i++)
            info.push_back(trace::pcinfo_one(i < 5 ? pristine : patched, pcs[i], i + 1 < pcs.size(),
                                             i + 1 < pcs.size() ? pcs[i + 1] : 0));
        ntrace::EncoderConfig c;
        c.trTeControl = ntrace::te_put(c.trTeControl, NT_TE(trTeControl, InstMode), TCI_INSTMODE_HTM);
        ntrace::Encoder e(c);
        trace::encode_pcinfo(info, e, true);
        return e.out();
    }
};

struct Collect : ntrace::DecodeSink {
    std::vector<uint64_t> pcs;
    uint64_t errors = 0;
    void insns(const uint64_t *a, size_t n) override { pcs.insert(pcs.end(), a, a + n); }
    void event(const ntrace::Event &e) override { errors += e.kind == ntrace::Event::Error; }
};

// The subroutine's first instruction as a site, free or scheduled at a trigger.
void add_site(const Prog &p, trace::Image &img, trace::TextPatches &tp, bool scheduled) {
    tp.aliases = {kSub};
    tp.size = 16;
    const auto a = words({kNop}), b = words({jal(0, 12)});
    REQUIRE(tp.add(0, a.data(), b.data(), 4, scheduled, img.opts));
    // The first call's return, main + 4, stands for the patcher's write.
    if (scheduled) tp.schedule(0, tp.add_trigger(kMain + 4, 1));
    img = p.pristine;
    img.set_volatile(tp.volatile_halfwords());
}

// Decodes the program's trace following tp; the decoded stream must be the executed one.
void decode_equal(const Prog &p, const trace::Image &img, trace::TextPatches &tp) {
    ntrace::DecoderConfig dc;
    dc.patches = &tp;
    Collect s;
    ntrace::Decoder d(dc, img, s);
    d.run(p.trace());
    CHECK(s.errors == 0);
    CHECK(s.pcs == p.pcs);
}
} // namespace

TEST_CASE("textpatch: a free site takes the version the trace shows") {
    Prog p;
    const auto bytes = p.trace();
    ntrace::DecoderConfig dc;
    {
        Collect plain; // against the pristine image only: the second call cannot be explained
        ntrace::Decoder d(dc, p.pristine, plain);
        d.run(bytes);
        CHECK(plain.errors > 0);
    }
    trace::Image img;
    trace::TextPatches tp;
    add_site(p, img, tp, false);
    decode_equal(p, img, tp);
    CHECK(tp.belief[0] == 1); // the patched version was seen last
    CHECK(tp.switches == 1);
    CHECK(tp.backtracks >= 1);
}

// The core's walker directly, with rewritten code through its Env: one free site (the
// subroutine's first word) whose versions are the two images; the Env's output is
// rolled back with the walk.
struct SiteEnv : flowtest::PcEnv {
    SiteEnv(const Prog &prog) : PcEnv(prog.pristine), p(prog) {}
    const Prog &p;
    uint8_t belief = 0;
    unsigned backtracks = 0, switches = 0;
    int site_at(uint64_t pc, uint32_t &site) const {
        site = 0;
        return pc - kSub < 4 ? 1 : -1;
    }
    uint8_t believed(uint32_t) const { return belief; }
    bool site_insn(uint32_t, uint8_t v, uint64_t pc, rv::Insn &in) const {
        const rv::Insn *x = (v ? p.patched : p.pristine).at(pc);
        if (x) in = *x;
        return x;
    }
    size_t snapshot() const { return pcs.size(); }
    void restore(size_t n) { pcs.resize(n); }
    void settle(uint32_t, uint8_t v) {
        switches += v != belief;
        belief = v;
    }
    void release() {}
    void backtracked() { backtracks++; }
};

TEST_CASE("textpatch: the core's walk backtracks over a free site's versions") {
    Prog p;
    SiteEnv env(p);
    flowtest::walk(env, {}, p.trace());
    CHECK(env.errors.empty());
    CHECK(env.pcs == p.pcs);
    CHECK(env.belief == 1); // the patched version was seen last
    CHECK(env.switches == 1);
    CHECK(env.backtracks >= 1);
}

TEST_CASE("textpatch: a scheduled site switches at its trigger") {
    Prog p;
    trace::Image img;
    trace::TextPatches tp;
    add_site(p, img, tp, true);
    CHECK(tp.version(0) == 0);
    decode_equal(p, img, tp);
    CHECK(tp.version(0) == 1);
    CHECK(tp.backtracks == 0);
}

TEST_CASE("textpatch: sites that overlap or split an instruction are refused") {
    trace::TextPatches tp;
    tp.size = 64;
    rv::Options o;
    const auto n = words({kNop, kNop}), j = words({jal(0, 8), kNop});
    CHECK(tp.add(8, n.data(), j.data(), 8, false, o));
    CHECK_FALSE(tp.add(12, n.data(), j.data(), 4, false, o)); // overlaps
    const uint8_t half[2] = {0x13, 0};
    CHECK_FALSE(tp.add(20, half, half, 2, false, o)); // a 4-byte instruction cut at 2 bytes
    trace::PatchSite s;
    const uint8_t cnops[8] = {1, 0, 1, 0, 1, 0, 1, 0};
    REQUIRE(trace::TextPatches::make(0, cnops, n.data(), 8, true, o, s));
    CHECK_FALSE(trace::TextPatches::flow_neutral(s)); // other instruction boundaries
    REQUIRE(trace::TextPatches::make(0, n.data(), n.data(), 8, true, o, s));
    CHECK(trace::TextPatches::flow_neutral(s));
    uint32_t site;
    unsigned hw;
    tp.aliases = {0x100, 0x8000};
    CHECK(tp.find(0x8000 + 12, site, hw));
    CHECK(hw == 2);
    CHECK_FALSE(tp.find(0x100 + 16, site, hw));
}

TEST_CASE("runs: write, read back and compare") {
    char path[] = "/tmp/tsbi-runs-XXXXXX";
    const int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    const std::string a = std::string(path) + ".a", b = std::string(path) + ".b";
    const std::vector<uint64_t> pcs = {0x80200000, 0x80200004, 0x80200006, 0xffffffff80001000, 0xffffffff80000ffe,
                                       0xffffffff80001002, 0x10, 0x12};
    auto write = [](const std::string &p, const std::vector<uint64_t> &v) {
        FILE *f = fopen(p.c_str(), "wb");
        REQUIRE(f);
        {
            runs::Writer w(f);
            for (uint64_t x : v) w.add(x);
        }
        fclose(f);
    };
    write(a, pcs);
    {
        runs::Reader r(a);
        REQUIRE(r.ok());
        std::vector<uint64_t> back;
        uint64_t x;
        while (r.next(x)) back.push_back(x);
        CHECK(back == pcs);
        CHECK(r.error().empty());
    }
    auto longer = pcs;
    longer.push_back(0x14);
    write(b, longer);
    {
        runs::Reader d(a), r(b);
        const auto c = runs::compare(d, r, 0);
        CHECK_FALSE(c.equal); // one recorded instruction after the end
        CHECK(c.record_tail == 1);
        CHECK(c.compared == pcs.size());
    }
    {
        runs::Reader d(a), r(b);
        CHECK(runs::compare(d, r, 1).equal);
    }
    auto other = pcs;
    other[5] = 0xffffffff80001004;
    write(b, other);
    {
        runs::Reader d(a), r(b);
        const auto c = runs::compare(d, r, 0);
        CHECK_FALSE(c.equal);
        CHECK(c.compared == 5);
        CHECK(c.message.find("differ at instruction 5") != std::string::npos);
    }
    remove(a.c_str());
    remove(b.c_str());
    remove(path);
}
