// SPDX-License-Identifier: BSD-2-Clause
// Host tests of the firmware core's logic: hart-mask decoding, the shared
// memory range check, and device-tree scanning and fix-up.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "core/dt.hpp"
#include "core/hart.hpp"
#include "core/fw_region.hpp"
#include "core/hartmap.hpp"
#include "core/hart_enables.hpp"
#include "riscv/csr_safe.hpp"
#include "sbi/hartmask.hpp"
#include <libfdt.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace fw;
using sbi::Error;

namespace fw {
static HartBlock host_blocks[kMaxHarts];
HartBlock *blocks = host_blocks; // the firmware carves them at cold boot
}

static std::vector<char> load(const std::string &path, size_t extra = 0) {
    std::ifstream f(path, std::ios::binary);
    REQUIRE_MESSAGE(f.good(), "cannot open " << path);
    std::vector<char> v((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    v.resize(v.size() + extra);
    return v;
}
static std::string data(const char *name) { return std::string(TEST_DATA_DIR) + "/" + name; }

// A machine of 64 harts numbered 0..63: hart index = hart ID, one word.
static const hartmap::Map k64 = {64, nullptr, 64};

// The valid-hart bitmap hartmask_to_bitmap takes, from a predicate.
template <typename Pred> static sbi::HartBitmap valid_bits(Pred valid) {
    sbi::HartBitmap v{};
    for (unsigned long h = 0; h < kMaxHarts; h++)
        if (valid(h)) v.w[h / (sizeof(long) * 8)] |= 1ul << (h % (sizeof(long) * 8));
    return v;
}

TEST_CASE("hartmask: base -1 selects every valid hart and ignores the mask") {
    sbi::HartBitmap b;
    auto valid = valid_bits([](unsigned long h) { return h == 0 || h == 2 || h == 63; });
    CHECK(sbi::hartmask_to_bitmap(0, ~0ul, b, valid.w, k64, 1) == Error::Success);
    CHECK(b.w[0] == ((1ul << 0) | (1ul << 2) | (1ul << 63)));
    CHECK(sbi::hartmask_to_bitmap(0b1000, ~0ul, b, valid.w, k64, 1) == Error::Success);
    CHECK(b.w[0] == ((1ul << 0) | (1ul << 2) | (1ul << 63)));
}

TEST_CASE("hartmask: bits are relative to base") {
    sbi::HartBitmap b;
    auto valid = valid_bits([](unsigned long h) { return h < 8; });
    CHECK(sbi::hartmask_to_bitmap(0b101, 2, b, valid.w, k64, 1) == Error::Success);
    CHECK(b.w[0] == ((1ul << 2) | (1ul << 4)));
    CHECK(sbi::hartmask_to_bitmap(0, 1000, b, valid.w, k64, 1) == Error::Success); // empty mask, any base
    CHECK(b.w[0] == 0);
    CHECK(sbi::hartmask_to_bitmap(0b11, 6, b, valid.w, k64, 1) == Error::Success);
    CHECK(b.w[0] == ((1ul << 6) | (1ul << 7)));
    auto all = valid_bits([](unsigned long) { return true; });
    CHECK(sbi::hartmask_to_bitmap(1, 63, b, all.w, k64, 1) == Error::Success);
    CHECK(b.w[0] == 1ul << 63);
    CHECK(sbi::hartmask_to_bitmap(~0ul, 0, b, all.w, k64, 1) == Error::Success);
    CHECK(b.w[0] == ~0ul);
}

TEST_CASE("hartmask: an invalid hart in the mask is INVALID_PARAM") {
    sbi::HartBitmap b;
    auto valid = valid_bits([](unsigned long h) { return h < 4; });
    CHECK(sbi::hartmask_to_bitmap(1ul << 4, 0, b, valid.w, k64, 1) == Error::InvalidParam);
    CHECK(sbi::hartmask_to_bitmap(1, 4, b, valid.w, k64, 1) == Error::InvalidParam);
    CHECK(sbi::hartmask_to_bitmap(0b11, 3, b, valid.w, k64, 1) == Error::InvalidParam); // 3 valid, 4 not
    CHECK(sbi::hartmask_to_bitmap(1ul << 63, 2, b, valid.w, k64, 1) == Error::InvalidParam); // wraps
    CHECK(sbi::hartmask_to_bitmap(1, ~0ul - 1, b, valid.w, k64, 1) == Error::InvalidParam);
    auto all = valid_bits([](unsigned long) { return true; });
    CHECK(sbi::hartmask_to_bitmap(1, kMaxHarts, b, all.w, k64, 1) == Error::InvalidParam);
    CHECK(sbi::hartmask_to_bitmap(0b10, 63, b, all.w, k64, 1) == Error::InvalidParam); // hart 64
    CHECK(sbi::hartmask_to_bitmap(1ul << 63, 1, b, all.w, k64, 1) == Error::InvalidParam); // hart 64
    CHECK(sbi::hartmask_to_bitmap(1ul << 62, ~0ul - 61, b, all.w, k64, 1) == Error::InvalidParam); // wraps to 0
}

TEST_CASE("hartmask: the whole bitmap across word boundaries, 128 harts and sparse IDs") {
    // 128 harts 0..127: bits 60..67 are indices 60..67, in words 0 and 1.
    std::vector<unsigned long> valid(sbi::kMaskWords, 0);
    valid[0] = valid[1] = ~0ul;
    const hartmap::Map m128 = {128, nullptr, 128};
    sbi::HartBitmap b;
    for (auto &w : b.w) w = 0x5a5a; // stale words past `words` are not read
    REQUIRE(sbi::hartmask_to_bitmap(0xff, 60, b, valid.data(), m128, 2) == Error::Success);
    CHECK(b.w[0] == 0xful << 60);
    CHECK(b.w[1] == 0xful);
    REQUIRE(sbi::hartmask_to_bitmap(1, 127, b, valid.data(), m128, 2) == Error::Success);
    CHECK(b.w[0] == 0);
    CHECK(b.w[1] == 1ul << 63);
    CHECK(sbi::hartmask_to_bitmap(0b11, 127, b, valid.data(), m128, 2) == Error::InvalidParam); // 128
    valid[1] &= ~(1ul << 2); // index 66 not offered to S-mode
    CHECK(sbi::hartmask_to_bitmap(0xff, 60, b, valid.data(), m128, 2) == Error::InvalidParam);
    REQUIRE(sbi::hartmask_to_bitmap(0, ~0ul, b, valid.data(), m128, 2) == Error::Success);
    CHECK(b.w[0] == ~0ul);
    CHECK(b.w[1] == ~(1ul << 2));
    // Sparse IDs 0, 1, 64, 4095: indices 0..3 in one word.
    std::vector<unsigned long> ids = {4095, 64, 1, 0};
    std::vector<uint16_t> table(hartmap::table_entries(ids.data(), ids.size(), 0, 4096));
    const hartmap::Built s = hartmap::build(ids.data(), ids.size(), 0, 4096, 512, table.data());
    REQUIRE(s.map.table != nullptr);
    std::vector<unsigned long> v4(sbi::kMaskWords, 0);
    v4[0] = 0xf;
    REQUIRE(sbi::hartmask_to_bitmap(1, 4095, b, v4.data(), s.map, 1) == Error::Success);
    CHECK(b.w[0] == 0b1000);
    REQUIRE(sbi::hartmask_to_bitmap(0b11, 0, b, v4.data(), s.map, 1) == Error::Success);
    CHECK(b.w[0] == 0b0011);
    REQUIRE(sbi::hartmask_to_bitmap(1, 64, b, v4.data(), s.map, 1) == Error::Success);
    CHECK(b.w[0] == 0b0100);
    CHECK(sbi::hartmask_to_bitmap(0b111, 0, b, v4.data(), s.map, 1) == Error::InvalidParam); // no hart 2
    CHECK(sbi::hartmask_to_bitmap(1, 4094, b, v4.data(), s.map, 1) == Error::InvalidParam);
    CHECK(sbi::hartmask_to_bitmap(0b10, 4095, b, v4.data(), s.map, 1) == Error::InvalidParam); // 4096
    REQUIRE(sbi::hartmask_to_bitmap(0, ~0ul, b, v4.data(), s.map, 1) == Error::Success);
    CHECK(b.w[0] == 0xf);
}

TEST_CASE("range_in_memory: inside, outside, firmware overlap and wrap-around") {
    dt::Memory m{};
    m.r[0] = {0x80000000, 0x10000000};
    m.r[1] = {0x100000000, 0x1000};
    m.count = 2;
    const uint64_t fs = 0x80000000, fe = 0x80080000;
    CHECK(dt::range_in_memory(m, fs, fe, 0x80200000, 16));
    CHECK(dt::range_in_memory(m, fs, fe, 0x8fffffff, 1));
    CHECK_FALSE(dt::range_in_memory(m, fs, fe, 0x8fffffff, 2)); // runs off the end
    CHECK_FALSE(dt::range_in_memory(m, fs, fe, 0x80000000, 1)); // firmware
    CHECK_FALSE(dt::range_in_memory(m, fs, fe, 0x8007ffff, 1));
    CHECK(dt::range_in_memory(m, fs, fe, 0x80080000, 1));
    CHECK_FALSE(dt::range_in_memory(m, fs, fe, 0x7ffff000, 0x2000)); // straddles into firmware
    CHECK_FALSE(dt::range_in_memory(m, fs, fe, 0x10000000, 4));      // MMIO
    CHECK_FALSE(dt::range_in_memory(m, fs, fe, ~0ull - 3, 8));       // wraps
    CHECK(dt::range_in_memory(m, fs, fe, 0x100000ff0, 16));
    CHECK_FALSE(dt::range_in_memory(m, fs, fe, 0x100000ff0, 17));
    CHECK(dt::range_in_memory(m, fs, fe, 0x80100000, 0)); // size 0 checks the address
}

TEST_CASE("ISA strings: single letters and multi-letter extensions") {
    const char s[] = "rv64imafdch_zicsr_zifencei_sstc_sscofpmf";
    uint64_t b = dt::parse_isa_string(s, sizeof s);
    CHECK((b >> EXT_H & 1));
    CHECK((b >> EXT_SSTC & 1));
    CHECK((b >> EXT_SSCOFPMF & 1));
    CHECK_FALSE((b >> EXT_SMCTR & 1));
    const char n[] = "rv64imafdc_zicsr_zihintpause"; // no H: 'h' only in a long name
    CHECK_FALSE((dt::parse_isa_string(n, sizeof n) >> EXT_H & 1));
    const char list[] = "i\0m\0sstc\0smctr\0h";
    uint64_t l = dt::parse_isa_extensions(list, sizeof list);
    CHECK((l >> EXT_SSTC & 1));
    CHECK((l >> EXT_SMCTR & 1));
    CHECK((l >> EXT_H & 1));
    CHECK_FALSE((l >> EXT_SVPBMT & 1));
}

TEST_CASE("ISA names of the extensions whose M-mode enables the firmware makes") {
    const char list[] = "zkr\0svadu\0svade\0smdbltrp\0zicbom\0zicboz";
    uint64_t l = dt::parse_isa_extensions(list, sizeof list);
    for (Ext e : {EXT_ZKR, EXT_SVADU, EXT_SVADE, EXT_SMDBLTRP, EXT_ZICBOM, EXT_ZICBOZ})
        CHECK((l >> e & 1));
    const char s[] = "rv64imafdch_zicsr_zkr_svadu";
    uint64_t b = dt::parse_isa_string(s, sizeof s);
    CHECK((b >> EXT_ZKR & 1));
    CHECK((b >> EXT_SVADU & 1));
    CHECK_FALSE((b >> EXT_SVADE & 1));
}

static constexpr uint64_t bits(std::initializer_list<Ext> es) {
    uint64_t v = 0;
    for (Ext e : es) v |= 1ull << e;
    return v;
}

TEST_CASE("menvcfg at boot: each S-mode enable with its extension, nothing FWFT owns") {
    using namespace csr::menvcfg_bits;
    CHECK(enables::boot_menvcfg(0) == 0);
    CHECK(enables::boot_menvcfg(bits({EXT_SSTC})) == STCE);
    CHECK(enables::boot_menvcfg(bits({EXT_SVPBMT})) == PBMTE);
    CHECK(enables::boot_menvcfg(bits({EXT_ZICBOM})) == (CBIE | CBCFE));
    CHECK((CBIE >> 4) == 3); // cbo.inval invalidates (not flush, not illegal)
    CHECK(enables::boot_menvcfg(bits({EXT_ZICBOZ})) == CBZE);
    // Svadu alone: hardware A/D updating on, fixed; with Svade: off, and
    // FWFT PTE_AD_HW_UPDATING toggles it from its reset value 0.
    CHECK(enables::boot_menvcfg(bits({EXT_SVADU})) == ADUE);
    CHECK_FALSE(enables::fwft_adue_toggles(bits({EXT_SVADU})));
    CHECK(enables::boot_menvcfg(bits({EXT_SVADU, EXT_SVADE})) == 0);
    CHECK(enables::fwft_adue_toggles(bits({EXT_SVADU, EXT_SVADE})));
    CHECK(enables::boot_menvcfg(bits({EXT_SVADE})) == 0);
    CHECK_FALSE(enables::fwft_adue_toggles(bits({EXT_SVADE})));
    // Smcdeleg: counter delegation on (OpenSBI's sbi_hart.c sets CDE for
    // it); Ssccfg alone, S-mode's half, enables nothing.
    CHECK(enables::boot_menvcfg(bits({EXT_SMCDELEG})) == CDE);
    CHECK(enables::boot_menvcfg(bits({EXT_SSCCFG, EXT_SSCSRIND})) == 0);
    // A -cpu max hart: never LPE, SSE, DTE, PMM (FWFT, reset 0).
    uint64_t all = 0;
    for (unsigned e = 0; e < EXT_COUNT; e++) all |= 1ull << e;
    uint64_t env = enables::boot_menvcfg(all);
    CHECK((env & (LPE | SSE | DTE | PMM | FIOM)) == 0);
    CHECK(env == (STCE | PBMTE | CBIE | CBCFE | CBZE | CDE | STRCS));
}

TEST_CASE("self-hosted trace at boot: STRCS with Smstrcn, STRC never opened by the core, LAMBI delegated") {
    using namespace csr;
    // The draft's bit for STRCS (smstrc.adoc: "Bit 58 is STRCS").
    CHECK(menvcfg_bits::STRCS == 1ull << 58);
    CHECK(enables::boot_menvcfg(bits({EXT_SMSTRCN})) == menvcfg_bits::STRCS);
    CHECK(enables::boot_menvcfg(bits({EXT_SSAMB, EXT_SSSTRCN})) == 0);
    // mstateen0: everything but STRC; STRC is not a bit the core knows
    // under another name.
    CHECK((enables::boot_mstateen0() & mstateen0_bits::STRC) == 0);
    CHECK((enables::boot_mstateen0() | mstateen0_bits::STRC) == ~0ull);
    CHECK((mstateen0_bits::STRC & (mstateen0_bits::CTR | mstateen0_bits::SRMCFG |
                                   mstateen0_bits::P1P13 | mstateen0_bits::CONTEXT |
                                   mstateen0_bits::IMSIC | mstateen0_bits::AIA |
                                   mstateen0_bits::CSRIND | mstateen0_bits::ENVCFG |
                                   mstateen0_bits::SE0)) == 0);
    CHECK(enables::lambi_deleg(bits({EXT_SSAMB})) == 1ul << irq::LAMBI);
    CHECK(enables::lambi_deleg(bits({EXT_SMSTRCN, EXT_SSSTRCN})) == 0);
    CHECK(irq::LAMBI != irq::LCOFI);
    CHECK(irq::LAMBI < 16); // a standard local interrupt number
}

TEST_CASE("self-hosted trace table: CSR fields at the draft's positions, widths summing to 64") {
    // mstrcctl (smstrc.adoc register diagram): EN, EMPTY, IT, WPRI 5, CEN,
    // WPRI, ITEN, STOF, STEN, WPRI 2, SMOD 2, WPRI 2, SMAX 4, WPRI 9, NTA,
    // ESJ, EIR, EBP, ETC, ERH, EAJ, EAM, WPRI 20, TSEN, U, S, M.
    const struct { unsigned long long mask; unsigned lsb, width; } ctl[] = {
        {STRCCTL_EN, 0, 1},    {STRCCTL_EMPTY, 1, 1}, {STRCCTL_IT, 2, 1},   {STRCCTL_CEN, 8, 1},
        {STRCCTL_ITEN, 10, 1}, {STRCCTL_STOF, 11, 1}, {STRCCTL_STEN, 12, 1}, {STRCCTL_SMOD, 15, 2},
        {STRCCTL_SMAX, 19, 4}, {STRCCTL_NTA, 32, 1},  {STRCCTL_ESJ, 33, 1}, {STRCCTL_EIR, 34, 1},
        {STRCCTL_EBP, 35, 1},  {STRCCTL_ETC, 36, 1},  {STRCCTL_ERH, 37, 1}, {STRCCTL_EAJ, 38, 1},
        {STRCCTL_EAM, 39, 1},  {STRCCTL_TSEN, 60, 1}, {STRCCTL_U, 61, 1},   {STRCCTL_S, 62, 1},
        {STRCCTL_M, 63, 1},
    };
    unsigned long long seen = 0;
    unsigned named = 0;
    for (auto &f : ctl) {
        CHECK(f.mask == (((1ull << f.width) - 1) << f.lsb));
        CHECK((seen & f.mask) == 0);
        seen |= f.mask;
        named += f.width;
    }
    CHECK(named + 5 + 1 + 2 + 2 + 9 + 20 == 64); // plus the WPRI fields
    // sambcs (asyncmbuf.adoc diagram): EN, TF, BMI, WPRI 4, SIZE 5, TFPTR 20,
    // BMITH 2, BMIEN, SOF, WPRI 25, WRAP, EMPTY, TRV.
    const struct { unsigned long long mask; unsigned lsb, width; } cs[] = {
        {SAMBCS_EN, 0, 1},      {SAMBCS_TF, 1, 1},     {SAMBCS_BMI, 2, 1},   {SAMBCS_SIZE, 7, 5},
        {SAMBCS_TFPTR, 12, 20}, {SAMBCS_BMITH, 32, 2}, {SAMBCS_BMIEN, 34, 1}, {SAMBCS_SOF, 35, 1},
        {SAMBCS_WRAP, 61, 1},   {SAMBCS_EMPTY, 62, 1}, {SAMBCS_TRV, 63, 1},
    };
    seen = 0;
    named = 0;
    for (auto &f : cs) {
        CHECK(f.mask == (((1ull << f.width) - 1) << f.lsb));
        CHECK((seen & f.mask) == 0);
        seen |= f.mask;
        named += f.width;
    }
    CHECK(named + 4 + 25 == 64);
    CHECK(SAMBCS_SIZE_MAX == 20); // 4 KiB << 20 = 4 GiB
}

TEST_CASE("mseccfg at boot: S-mode may read seed with Zkr, U-mode never") {
    using namespace csr::mseccfg_bits;
    auto none = enables::boot_mseccfg(0);
    CHECK(none.set == 0);
    CHECK(none.clear == 0);
    auto zkr = enables::boot_mseccfg(bits({EXT_ZKR}));
    CHECK(zkr.set == SSEED);
    CHECK(zkr.clear == USEED);
    CHECK(((zkr.set | zkr.clear) & (MML | MMWP | RLB)) == 0);
}

TEST_CASE("PMP plan: the firmware first, one entry opens the rest, none without two") {
    CHECK(enables::pmp_deny_entries(0, 4) == 0);
    CHECK(enables::pmp_deny_entries(1, 4) == 0);
    CHECK(enables::pmp_deny_entries(2, 4) == 1); // the firmware alone
    CHECK(enables::pmp_deny_entries(4, 4) == 3);
    CHECK(enables::pmp_deny_entries(5, 4) == 4);
    CHECK(enables::pmp_deny_entries(8, 4) == 4);
    CHECK(enables::pmp_deny_entries(8, 1) == 1);
}

TEST_CASE("firmware region: CTR's buffer carved above the image, the region grows when needed") {
    constexpr uint64_t S = 0x80000000, K = 1024, M = 1024 * K;
    constexpr uint64_t kNext = S + 2 * M, kNoLimit = ~0ull;
    // Today's image (544 KiB) in a 1 MiB region: the 256 KiB buffer fits at
    // its top, the region stays 1 MiB.
    auto c = region::carve_top(S, S + M, 0, S + 544 * K, 256 * K, kNext);
    CHECK(c.base == S + 768 * K);
    CHECK(c.end == S + M);
    // A second request goes below the first, aligned.
    auto d = region::carve_top(S, c.end, c.lowest, S + 544 * K, 128 * K, kNext);
    CHECK(d.base == S + 640 * K);
    CHECK(d.end == S + M);
    // No room: the region doubles, the buffer at the new top.
    auto g = region::carve_top(S, S + M, 0, S + 900 * K, 256 * K, kNext);
    CHECK(g.base == S + 2 * M - 256 * K);
    CHECK(g.end == S + 2 * M);
    // ... but never past the limit (the next stage at +2 MiB, or RAM's end).
    auto n = region::carve_top(S, S + M, 0, S + 900 * K, 256 * K, S + M + 512 * K);
    CHECK(n.base == 0);
    CHECK(n.end == S + M);
    // Nor when doubling would break the natural alignment of the region.
    auto a = region::carve_top(S + M, S + 2 * M, 0, S + M + 900 * K, 256 * K, kNoLimit);
    CHECK(a.base == 0);
    // A size that is not a power of two is refused.
    CHECK(region::carve_top(S, S + M, 0, S + 544 * K, 200 * K, kNext).base == 0);
    CHECK(region::carve_top(S, S + M, 0, S + 544 * K, 0, kNext).base == 0);
}

// Builds a map of `ids` with a table of the size table_entries() asks for.
struct BuiltMap {
    std::vector<uint16_t> table;
    hartmap::Built b;
};
static BuiltMap build_map(std::vector<unsigned long> ids, unsigned long boot, unsigned long id_limit = 4096,
                          unsigned max = 512) {
    BuiltMap m;
    m.table.resize(hartmap::table_entries(ids.data(), ids.size(), boot, id_limit) + 1, 0x5a5a);
    m.b = hartmap::build(ids.data(), ids.size(), boot, id_limit, max, m.table.data());
    CHECK(m.table.back() == 0x5a5a); // nothing written past table_entries()
    return m;
}

TEST_CASE("hart map: IDs 0..n-1 in any order are contiguous (index = ID, no table)") {
    auto m = build_map({3, 0, 2, 1}, 0);
    CHECK(m.b.map.n == 4);
    CHECK(m.b.map.table == nullptr);
    CHECK(m.b.map.id_limit == 4);
    CHECK_FALSE(m.b.boot_missing);
    for (unsigned long id = 0; id < 4; id++) CHECK(hartmap::index_of(m.b.map, id) == id);
    CHECK(hartmap::index_of(m.b.map, 4) == hartmap::kNoIndex);
    CHECK(hartmap::index_of(m.b.map, ~0ul) == hartmap::kNoIndex);
    // Duplicates count once.
    auto d = build_map({0, 1, 1, 0}, 1);
    CHECK(d.b.map.n == 2);
    CHECK(d.b.map.table == nullptr);
    // 512 harts (QEMU virt's maximum) in one mode as in the other.
    std::vector<unsigned long> many;
    for (unsigned long i = 0; i < 512; i++) many.push_back(511 - i);
    auto v = build_map(many, 0);
    CHECK(v.b.map.n == 512);
    CHECK(v.b.map.table == nullptr);
    CHECK(hartmap::index_of(v.b.map, 511) == 511);
}

TEST_CASE("hart map: sparse IDs get dense indices in ascending ID order (table)") {
    auto m = build_map({4095, 64, 1, 0}, 0);
    REQUIRE(m.b.map.table != nullptr);
    CHECK(m.b.map.n == 4);
    CHECK(m.b.map.id_limit == 4096);
    CHECK(hartmap::index_of(m.b.map, 0) == 0);
    CHECK(hartmap::index_of(m.b.map, 1) == 1);
    CHECK(hartmap::index_of(m.b.map, 64) == 2);
    CHECK(hartmap::index_of(m.b.map, 4095) == 3);
    for (unsigned long id : {2ul, 63ul, 65ul, 4094ul, 4096ul, 100000ul})
        CHECK(hartmap::index_of(m.b.map, id) == hartmap::kNoIndex);
    // A gap at 0 is not contiguous either.
    auto g = build_map({1, 2}, 1);
    REQUIRE(g.b.map.table != nullptr);
    CHECK(hartmap::index_of(g.b.map, 1) == 0);
    CHECK(hartmap::index_of(g.b.map, 2) == 1);
    CHECK(hartmap::index_of(g.b.map, 0) == hartmap::kNoIndex);
}

TEST_CASE("hart map: IDs at or above the ID limit and harts past the count are left out") {
    auto m = build_map({0, 1, 4096, 4095, 5000}, 0);
    CHECK(m.b.above_id_limit == 2);
    CHECK(m.b.map.n == 3);
    CHECK(hartmap::index_of(m.b.map, 4095) == 2);
    CHECK(hartmap::index_of(m.b.map, 4096) == hartmap::kNoIndex);
    // Past max_harts the highest IDs go.
    auto c = build_map({0, 1, 2, 3, 4, 5}, 0, 4096, 4);
    CHECK(c.b.map.n == 4);
    CHECK(c.b.beyond_count == 2);
    CHECK(c.b.map.table == nullptr); // what is kept is 0..3
    CHECK(hartmap::index_of(c.b.map, 4) == hartmap::kNoIndex);
    // ... but never the boot hart: it keeps the last index.
    auto b = build_map({0, 1, 2, 3, 4, 5}, 5, 4096, 4);
    CHECK(b.b.map.n == 4);
    CHECK(b.b.beyond_count == 2);
    REQUIRE(b.b.map.table != nullptr);
    CHECK(hartmap::index_of(b.b.map, 0) == 0);
    CHECK(hartmap::index_of(b.b.map, 2) == 2);
    CHECK(hartmap::index_of(b.b.map, 3) == hartmap::kNoIndex);
    CHECK(hartmap::index_of(b.b.map, 5) == 3);
}

TEST_CASE("hart map: a boot hart the tree does not list is added") {
    auto m = build_map({}, 7);
    CHECK(m.b.boot_missing);
    CHECK(m.b.map.n == 1);
    CHECK(hartmap::index_of(m.b.map, 7) == 0);
    auto z = build_map({}, 0);
    CHECK(z.b.map.n == 1);
    CHECK(z.b.map.table == nullptr);
    CHECK(hartmap::index_of(z.b.map, 0) == 0);
    auto s = build_map({0, 2}, 1);
    CHECK(s.b.boot_missing);
    CHECK(s.b.map.n == 3);
    CHECK(s.b.map.table == nullptr); // 0, 1, 2
}

// Dense valid bitmap of n harts, all valid but those in `not_valid`.
template <typename W> static std::vector<W> dense_valid(unsigned n, std::vector<unsigned> not_valid = {}) {
    constexpr unsigned bits = sizeof(W) * 8;
    std::vector<W> v((n + bits - 1) / bits, 0);
    for (unsigned i = 0; i < n; i++) v[i / bits] |= W(1) << (i % bits);
    for (unsigned i : not_valid) v[i / bits] &= ~(W(1) << (i % bits));
    return v;
}
template <typename W> static std::vector<unsigned> indices(const sbi::HartSet<W> &s, unsigned words) {
    std::vector<unsigned> out;
    sbi::hartset_for_each(s, words, [&](unsigned i) { out.push_back(i); });
    for (unsigned i : out) CHECK(sbi::hartset_has(s, i));
    return out;
}
static hartmap::Map contiguous(unsigned n) { return {n, nullptr, n}; }

TEST_CASE_TEMPLATE("hart set: contiguous IDs, masks across word boundaries", W, unsigned long, uint32_t) {
    constexpr unsigned bits = sizeof(W) * 8;
    for (unsigned n : {65u, 128u, 512u}) {
        CAPTURE(n);
        auto valid = dense_valid<W>(n);
        const unsigned words = valid.size();
        std::vector<W> scratch(words);
        auto map = contiguous(n);
        sbi::HartSet<W> s;
        // bits - 4 .. bits + 3: the mask spans words 0 and 1 (past the last
        // hart when n is 65 on RV64).
        if (bits + 4 <= n) {
            REQUIRE(sbi::hartmask_to_set<W>(0xff, bits - 4, map, valid.data(), words, scratch.data(), s) == Error::Success);
            CHECK(s.many == nullptr);
            CHECK(indices(s, words) == std::vector<unsigned>{bits - 4, bits - 3, bits - 2, bits - 1, bits, bits + 1, bits + 2, bits + 3});
            CHECK_FALSE(sbi::hartset_has(s, bits + 4));
            CHECK_FALSE(sbi::hartset_has(s, 0));
        } else {
            CHECK(sbi::hartmask_to_set<W>(0xff, bits - 4, map, valid.data(), words, scratch.data(), s) == Error::InvalidParam);
            REQUIRE(sbi::hartmask_to_set<W>(0x1f, bits - 4, map, valid.data(), words, scratch.data(), s) == Error::Success);
            CHECK(indices(s, words) == std::vector<unsigned>{bits - 4, bits - 3, bits - 2, bits - 1, bits});
        }
        REQUIRE(sbi::hartmask_to_set<W>(0b11, bits - 1, map, valid.data(), words, scratch.data(), s) == Error::Success);
        CHECK(indices(s, words) == std::vector<unsigned>{bits - 1, bits});
        // The highest hart, and one past it.
        REQUIRE(sbi::hartmask_to_set<W>(1, n - 1, map, valid.data(), words, scratch.data(), s) == Error::Success);
        CHECK(indices(s, words) == std::vector<unsigned>{n - 1});
        CHECK(sbi::hartmask_to_set<W>(1, n, map, valid.data(), words, scratch.data(), s) == Error::InvalidParam);
        CHECK(sbi::hartmask_to_set<W>(0b10, n - 1, map, valid.data(), words, scratch.data(), s) == Error::InvalidParam);
        // base -1: every valid hart, the mask ignored.
        REQUIRE(sbi::hartmask_to_set<W>(0, static_cast<W>(~W(0)), map, valid.data(), words, scratch.data(), s) == Error::Success);
        CHECK(indices(s, words).size() == n);
        // An empty mask is no target, whatever base.
        REQUIRE(sbi::hartmask_to_set<W>(0, 100000, map, valid.data(), words, scratch.data(), s) == Error::Success);
        CHECK(indices(s, words).empty());
        // Wrap-around past 2^XLEN is no hart.
        CHECK(sbi::hartmask_to_set<W>(W(1) << (bits - 1), static_cast<W>(~W(0)) - 1, map, valid.data(), words,
                                      scratch.data(), s) == Error::InvalidParam);
    }
    // A hart that exists but is not offered to S-mode (no MMU, E51-like).
    auto valid = dense_valid<W>(65, {bits});
    std::vector<W> scratch(valid.size());
    sbi::HartSet<W> s;
    CHECK(sbi::hartmask_to_set<W>(0b11, bits - 1, contiguous(65), valid.data(), valid.size(), scratch.data(), s) ==
          Error::InvalidParam);
    CHECK(sbi::hartmask_to_set<W>(0b1, bits - 1, contiguous(65), valid.data(), valid.size(), scratch.data(), s) ==
          Error::Success);
}

TEST_CASE_TEMPLATE("hart set: sparse IDs (table mode) 0, 1, 64, 4095", W, unsigned long, uint32_t) {
    std::vector<unsigned long> ids{0, 1, 64, 4095};
    std::vector<uint16_t> table(hartmap::table_entries(ids.data(), ids.size(), 0, 4096));
    auto b = hartmap::build(ids.data(), ids.size(), 0, 4096, 512, table.data());
    REQUIRE(b.map.table != nullptr);
    auto valid = dense_valid<W>(4);
    std::vector<W> scratch(valid.size());
    sbi::HartSet<W> s;
    const unsigned words = valid.size();
    REQUIRE(sbi::hartmask_to_set<W>(1, 64, b.map, valid.data(), words, scratch.data(), s) == Error::Success);
    CHECK(indices(s, words) == std::vector<unsigned>{2});
    REQUIRE(sbi::hartmask_to_set<W>(0b11, 0, b.map, valid.data(), words, scratch.data(), s) == Error::Success);
    CHECK(indices(s, words) == std::vector<unsigned>{0, 1});
    REQUIRE(sbi::hartmask_to_set<W>(1, 4095, b.map, valid.data(), words, scratch.data(), s) == Error::Success);
    CHECK(indices(s, words) == std::vector<unsigned>{3});
    CHECK(sbi::hartmask_to_set<W>(1, 2, b.map, valid.data(), words, scratch.data(), s) == Error::InvalidParam);
    CHECK(sbi::hartmask_to_set<W>(0b111, 0, b.map, valid.data(), words, scratch.data(), s) == Error::InvalidParam);
    CHECK(sbi::hartmask_to_set<W>(0b11, 4095, b.map, valid.data(), words, scratch.data(), s) == Error::InvalidParam);
    CHECK(sbi::hartmask_to_set<W>(1, 4096, b.map, valid.data(), words, scratch.data(), s) == Error::InvalidParam);
    REQUIRE(sbi::hartmask_to_set<W>(0, static_cast<W>(~W(0)), b.map, valid.data(), words, scratch.data(), s) ==
            Error::Success);
    CHECK(indices(s, words) == std::vector<unsigned>{0, 1, 2, 3});
}

TEST_CASE_TEMPLATE("hart mask: mask_is_only (the IPI/RFENCE fast path) agrees with hartmask_to_set", W,
                   unsigned long, uint32_t) {
    constexpr W bits = sizeof(W) * 8, all = static_cast<W>(~W(0));
    // Sparse IDs (table mode) and 130 contiguous ones (three words on RV64).
    std::vector<unsigned long> sparse{0, 1, 64, 4095}, dense;
    for (unsigned long i = 0; i < 130; i++) dense.push_back(i);
    for (auto *ids : {&sparse, &dense}) {
        std::vector<uint16_t> table(hartmap::table_entries(ids->data(), ids->size(), 0, 4096));
        auto b = hartmap::build(ids->data(), ids->size(), 0, 4096, 512, table.data());
        auto valid = dense_valid<W>(b.map.n);
        std::vector<W> scratch(valid.size());
        const unsigned words = valid.size();
        for (unsigned long self : *ids) {
            CAPTURE(self);
            const std::vector<unsigned> just_self{static_cast<unsigned>(hartmap::index_of(b.map, self))};
            const W bases[] = {0, 1, 63, 64, W(self), W(self - 1), W(self + 1), W(self - (bits - 1)), all};
            const W masks[] = {0, 1, 2, 3, W(1) << (bits - 1), all};
            for (W base : bases) {
                for (W mask : masks) {
                    CAPTURE(base);
                    CAPTURE(mask);
                    if (!sbi::mask_is_only<W>(mask, base, W(self))) continue;
                    // Taken only when the mask names exactly this hart.
                    sbi::HartSet<W> s;
                    REQUIRE(sbi::hartmask_to_set<W>(mask, base, b.map, valid.data(), words, scratch.data(), s) ==
                            Error::Success);
                    CHECK(indices(s, words) == just_self);
                }
            }
            CHECK(sbi::mask_is_only<W>(1, W(self), W(self)));
            CHECK_FALSE(sbi::mask_is_only<W>(1, all, W(self))); // base -1: every hart
            CHECK_FALSE(sbi::mask_is_only<W>(0, W(self), W(self)));
            CHECK_FALSE(sbi::mask_is_only<W>(0b11, W(self), W(self)));
            CHECK_FALSE(sbi::mask_is_only<W>(1, W(self + 1), W(self))); // base above: wraps, not taken
        }
    }
    // Bit XLEN-1 of base 2^XLEN - (XLEN-1) is ID 2^XLEN, not hart 0 (no wrap-around).
    CHECK_FALSE(sbi::mask_is_only<W>(W(1) << (bits - 1), W(0) - (bits - 1), 0));
}

TEST_CASE("firmware region: the harts' region at the top of RAM (place_top)") {
    constexpr uint64_t K = 1024, M = 1024 * K, S = 0x80000000;
    // QEMU virt, 256 MiB: the tree at the last 2 MiB; 512 harts of 7,088
    // bytes plus a 4 KiB stack: 4 MiB, below the tree, 4 MiB aligned.
    const uint64_t fdt = S + 256 * M - 2 * M, floor = S + 2 * M + 64 * M;
    CHECK(region::napot_size(512 * (4096 + 7088)) == 8 * M);
    CHECK(region::place_top(S, fdt, 4 * M, floor, 0, 0) == S + 248 * M);
    CHECK(region::place_top(S, fdt, 8 * M, floor, 0, 0) == S + 240 * M);
    // Not a power of two, or no room above the floor (64 MiB of RAM).
    CHECK(region::place_top(S, fdt, 3 * M, floor, 0, 0) == 0);
    CHECK(region::place_top(S, S + 62 * M, 4 * M, floor, 0, 0) == 0);
    // An initrd in the way: below it; an initrd below: unchanged.
    CHECK(region::place_top(S, fdt, 4 * M, floor, S + 200 * M, S + 250 * M) == S + 196 * M);
    CHECK(region::place_top(S, fdt, 4 * M, floor, S + 128 * M, S + 140 * M) == S + 248 * M);
    // An initrd that leaves no room above the floor below it.
    CHECK(region::place_top(S, fdt, 4 * M, floor, S + 60 * M, S + 254 * M) == 0);
    // Memory ending at 2^64 without a wrap.
    CHECK(region::place_top(~0ull - 16 * M + 1, 0, 4 * M, 0, 0, 0) == 0);
}

TEST_CASE("firmware region: per-hart memory carved after the image, one NAPOT region") {
    constexpr uint64_t S = 0x80000000, K = 1024, M = 1024 * K;
    // The design's estimate (core/README.md): a 116 KiB image, 2 KiB stack
    // chunks and 1.5 KiB state blocks (RV64); the next stage at +2 MiB.
    constexpr uint64_t img = S + 116 * K, chunk = 2 * K, stride = 1536, next = S + 2 * M;
    struct Case {
        unsigned n;
        uint64_t region;
    } cases[] = {{1, 128 * K}, {3, 128 * K}, {4, 256 * K}, {8, 256 * K}, {64, 512 * K},
                 {128, M}, {512, 2 * M}};
    for (auto c : cases) {
        CAPTURE(c.n);
        auto l = region::plan_layout(S, img, c.n, chunk, stride, 0, next);
        CHECK(l.fits == c.n);
        CHECK(l.chunks == S + 116 * K); // 2 KiB aligned already
        CHECK(l.chunks % chunk == 0);
        CHECK(l.blocks == l.chunks + c.n * chunk);
        CHECK(l.blocks % 64 == 0);
        CHECK(l.end == l.blocks + c.n * stride);
        CHECK(l.region_end == S + c.region);
    }
    // The chunks start at the next chunk boundary after the image.
    auto u = region::plan_layout(S, S + 116 * K + 8, 1, chunk, stride, 0, next);
    CHECK(u.chunks == S + 118 * K);
    // An ID table (table mode: 4095 as the highest ID) comes after the blocks.
    auto t = region::plan_layout(S, img, 4, chunk, stride, 2 * 4096, next);
    CHECK(t.table == t.blocks + 4 * stride);
    CHECK(t.end == t.table + 8 * K);
    CHECK(t.region_end == S + 256 * K);
    // More than fit below the next stage: the lowest indices that do.
    auto f = region::plan_layout(S, img, 600, chunk, stride, 0, next);
    CHECK(f.fits == (2 * M - 116 * K) / (chunk + stride));
    CHECK(f.region_end == S + 2 * M);
    CHECK(f.end <= S + 2 * M);
    // 4 KiB stacks cannot serve 512 harts below +2 MiB: why the chunk is 2 KiB.
    CHECK(region::plan_layout(S, img, 512, 4 * K, stride, 0, next).fits < 512);
    // A base that is not aligned to the region's size fits nothing.
    auto a = region::plan_layout(S + 64 * K, S + 64 * K + 116 * K, 8, chunk, stride, 0, ~0ull);
    CHECK(a.fits == 0);
    CHECK(a.region_end == 0);
}

TEST_CASE("DT scan: enabled harts with their extensions, all memory ranges") {
    auto blob = load(data("edge.dtb"));
    dt::HartDesc h[8];
    unsigned n = dt::scan_harts(blob.data(), h, 8);
    REQUIRE(n == 2); // cpu@5 is disabled, cpu-map is not a cpu
    CHECK(h[0].hartid == 0);
    CHECK((h[0].isa >> EXT_SMCTR & 1)); // riscv,isa-extensions wins over riscv,isa
    CHECK_FALSE((h[0].isa >> EXT_SSTC & 1));
    CHECK(h[1].hartid == 3);
    CHECK((h[1].isa >> EXT_SVPBMT & 1));
    CHECK((h[1].isa >> EXT_H & 1));
    dt::Memory m;
    REQUIRE(dt::scan_memory(blob.data(), m));
    REQUIRE(m.count == 3);
    CHECK(m.r[1].base == 0x100000000ull);
    CHECK(m.r[2].base == 0xc0000000ull);
}

static void check_reserved(void *fdt, uint64_t base, uint64_t size) {
    int node = fdt_path_offset(fdt, "/reserved-memory");
    REQUIRE(node >= 0);
    bool found = false;
    int child;
    fdt_for_each_subnode(child, fdt, node) {
        int len;
        auto *reg = static_cast<const fdt32_t *>(fdt_getprop(fdt, child, "reg", &len));
        if (!reg || len != 16) continue;
        uint64_t b = (uint64_t)fdt32_to_cpu(reg[0]) << 32 | fdt32_to_cpu(reg[1]);
        uint64_t s = (uint64_t)fdt32_to_cpu(reg[2]) << 32 | fdt32_to_cpu(reg[3]);
        if (b == base && s == size) {
            found = true;
            CHECK(fdt_getprop(fdt, child, "no-map", &len) != nullptr);
        }
    }
    CHECK(found);
}

TEST_CASE("DT fix-up: firmware region reserved no-map, existing reservations kept") {
    auto blob = load(data("edge.dtb"), 4096);
    REQUIRE(dt::open_for_fixup(blob.data(), 4096) == 0);
    REQUIRE(dt::fixup_reserve(blob.data(), 0x80000000, 0x80000) == 0);
    CHECK(fdt_check_full(blob.data(), fdt_totalsize(blob.data())) == 0);
    check_reserved(blob.data(), 0x80000000, 0x80000);
    CHECK(fdt_path_offset(blob.data(), "/reserved-memory/other@90000000") >= 0);
}

TEST_CASE("withheld extensions: out of isa-extensions lists and riscv,isa strings") {
    char list[] = "i\0smcdeleg\0m\0ssccfg\0zkr";
    int n = dt::isa_list_remove(list, sizeof list, "smcdeleg");
    n = dt::isa_list_remove(list, n, "ssccfg");
    CHECK(n == 8);
    CHECK(std::string(list, n) == std::string("i\0m\0zkr\0", 8));
    char last[] = "i\0ssccfg";
    n = dt::isa_list_remove(last, sizeof last, "ssccfg");
    CHECK(std::string(last, n) == std::string("i\0", 2));
    char none[] = "i\0ssccfgx";
    CHECK(dt::isa_list_remove(none, sizeof none, "ssccfg") == (int)sizeof none);

    char isa[] = "rv64imafdch_smcdeleg_ssccfg_ssccfgx_zkr_ssccfg";
    n = dt::isa_string_remove(isa, sizeof isa, "smcdeleg");
    n = dt::isa_string_remove(isa, n, "ssccfg");
    CHECK(std::string(isa) == "rv64imafdch_ssccfgx_zkr");
    CHECK(n == (int)strlen(isa) + 1);
    char letters[] = "rv64imafdch_zicsr"; // 'h' is a letter, not "_h"
    CHECK(dt::isa_string_remove(letters, sizeof letters, "h") == (int)sizeof letters);
}

TEST_CASE("DT fix-up: Ssccfg leaves the nodes without Smcdeleg, the rest stays") {
    auto blob = load(data("qemu-virt.dtb"), 4096);
    REQUIRE(dt::open_for_fixup(blob.data(), 4096) == 0);
    void *fdt = blob.data();
    // Hart 1: Ssccfg without Smcdeleg (CDE stays 0 there), in both
    // properties (QEMU 7.2 gives riscv,isa alone; QEMU 10 both). Hart 2: both
    // extensions, as QEMU 10's -cpu max lists them.
    int cpu = fdt_path_offset(fdt, "/cpus/cpu@1");
    REQUIRE(cpu >= 0);
    const char exts[] = "i\0ssccfg\0zkr";
    REQUIRE(fdt_setprop(fdt, cpu, "riscv,isa-extensions", exts, sizeof exts) == 0);
    int len;
    std::string isa = static_cast<const char *>(fdt_getprop(fdt, cpu, "riscv,isa", &len));
    isa += "_ssccfg_zkr";
    REQUIRE(fdt_setprop_string(fdt, cpu, "riscv,isa", isa.c_str()) == 0);
    int cpu2 = fdt_path_offset(fdt, "/cpus/cpu@2");
    REQUIRE(cpu2 >= 0);
    const char both[] = "i\0smcdeleg\0ssccfg";
    REQUIRE(fdt_setprop(fdt, cpu2, "riscv,isa-extensions", both, sizeof both) == 0);
    std::string isa2 = static_cast<const char *>(fdt_getprop(fdt, cpu2, "riscv,isa", &len));
    isa2 += "_smcdeleg_ssccfg";
    REQUIRE(fdt_setprop_string(fdt, cpu2, "riscv,isa", isa2.c_str()) == 0);
    // The one the firmware hands over, and the choice it encodes.
    REQUIRE(sizeof enables::kWithheld / sizeof *enables::kWithheld == 1);
    CHECK(std::string(enables::kWithheld[0].ext) == "ssccfg");
    CHECK(enables::kWithheld[0].unless == EXT_SMCDELEG);
    const uint32_t struct_size = fdt_size_dt_struct(fdt);
    REQUIRE(dt::fixup_withhold_extensions(fdt, enables::kWithheld, 1) == 0);
    REQUIRE(fdt_check_header(fdt) == 0);
    // Cut in place: the freed words are FDT_NOP tokens, nothing moved, and
    // the whole structure still checks out.
    CHECK(fdt_size_dt_struct(fdt) == struct_size);
    CHECK(fdt_check_full(fdt, fdt_totalsize(fdt)) == 0);
    cpu = fdt_path_offset(fdt, "/cpus/cpu@1");
    auto *l = static_cast<const char *>(fdt_getprop(fdt, cpu, "riscv,isa-extensions", &len));
    REQUIRE(l);
    CHECK_FALSE(fdt_stringlist_contains(l, len, "ssccfg"));
    CHECK(fdt_stringlist_contains(l, len, "zkr"));
    CHECK(fdt_stringlist_contains(l, len, "i"));
    std::string after = static_cast<const char *>(fdt_getprop(fdt, cpu, "riscv,isa", &len));
    CHECK(after == isa.substr(0, isa.size() - strlen("_ssccfg_zkr")) + "_zkr");
    CHECK(len == (int)after.size() + 1);
    // Hart 2 keeps both: the firmware sets menvcfg.CDE there.
    cpu2 = fdt_path_offset(fdt, "/cpus/cpu@2");
    l = static_cast<const char *>(fdt_getprop(fdt, cpu2, "riscv,isa-extensions", &len));
    REQUIRE(l);
    CHECK(fdt_stringlist_contains(l, len, "smcdeleg"));
    CHECK(fdt_stringlist_contains(l, len, "ssccfg"));
    CHECK(std::string(static_cast<const char *>(fdt_getprop(fdt, cpu2, "riscv,isa", &len))) == isa2);
    dt::HartDesc h[8];
    CHECK(dt::scan_harts(fdt, h, 8) == 4);
    CHECK((h[2].isa >> EXT_SMCDELEG & 1) == 1);
    CHECK((h[1].isa >> EXT_SSCCFG & 1) == 0);
}

TEST_CASE("DT fix-up: riscv,isa alone decides where riscv,isa-extensions is absent") {
    auto blob = load(data("qemu-virt.dtb"), 4096);
    REQUIRE(dt::open_for_fixup(blob.data(), 4096) == 0);
    void *fdt = blob.data();
    int cpu = fdt_path_offset(fdt, "/cpus/cpu@3");
    REQUIRE(cpu >= 0);
    fdt_delprop(fdt, cpu, "riscv,isa-extensions");
    REQUIRE(fdt_setprop_string(fdt, cpu, "riscv,isa", "rv64imac_smcdeleg_ssccfg") == 0);
    cpu = fdt_path_offset(fdt, "/cpus/cpu@0");
    fdt_delprop(fdt, cpu, "riscv,isa-extensions");
    REQUIRE(fdt_setprop_string(fdt, cpu, "riscv,isa", "rv64imac_ssccfg_zkr") == 0);
    REQUIRE(dt::fixup_withhold_extensions(fdt, enables::kWithheld, 1) == 0);
    int len;
    cpu = fdt_path_offset(fdt, "/cpus/cpu@3");
    CHECK(std::string(static_cast<const char *>(fdt_getprop(fdt, cpu, "riscv,isa", &len))) ==
          "rv64imac_smcdeleg_ssccfg");
    cpu = fdt_path_offset(fdt, "/cpus/cpu@0");
    CHECK(std::string(static_cast<const char *>(fdt_getprop(fdt, cpu, "riscv,isa", &len))) ==
          "rv64imac_zkr");
}

TEST_CASE("DT fix-up on QEMU virt's own device tree (no /reserved-memory yet)") {
    auto blob = load(data("qemu-virt.dtb"), 4096);
    REQUIRE(fdt_path_offset(blob.data(), "/reserved-memory") < 0);
    REQUIRE(dt::open_for_fixup(blob.data(), 4096) == 0);
    REQUIRE(dt::fixup_reserve(blob.data(), 0x80000000, 0x80000) == 0);
    check_reserved(blob.data(), 0x80000000, 0x80000);
    dt::HartDesc h[8];
    CHECK(dt::scan_harts(blob.data(), h, 8) == 4);
}

// The room the fix-ups state (dt.hpp, core/README.md "Device-tree fix-ups:
// their room") holds what they write: a packed tree opened with exactly it.
static std::vector<char> packed_with(const char *name, size_t room) {
    auto src = load(data(name));
    std::vector<char> v(fdt_totalsize(src.data()) + room + 64);
    REQUIRE(fdt_open_into(src.data(), v.data(), static_cast<int>(v.size())) == 0);
    REQUIRE(fdt_pack(v.data()) == 0);
    REQUIRE(dt::open_for_fixup(v.data(), static_cast<unsigned>(room)) == 0);
    return v;
}

TEST_CASE("DT fix-up room: two reservations fit in twice kReserveBytes, with or without /reserved-memory") {
    for (const char *name : {"qemu-virt.dtb", "edge.dtb"}) {
        auto blob = packed_with(name, 2 * dt::kReserveBytes);
        // The longest name fixup_reserve writes: a 30-character prefix, 16 hex digits.
        CHECK_MESSAGE(dt::fixup_reserve(blob.data(), 0x80000000, 0x80000) == 0, name);
        CHECK_MESSAGE(dt::fixup_reserve(blob.data(), 0xfedcba9876543000ull, 0x400000,
                                        "a-prefix-of-thirty-characters-") == 0,
                      name);
        CHECK(fdt_check_full(blob.data(), fdt_totalsize(blob.data())) == 0);
        check_reserved(blob.data(), 0x80000000, 0x80000);
    }
}

TEST_CASE("DT fix-up room: every cpu node counted, the refused harts disabled in the room stated") {
    // QEMU virt's 64 harts: 60 disabled in the tree, of the 4 enabled two refused.
    auto src = load(data("qemu-virt-64.dtb"), 8192);
    REQUIRE(fdt_open_into(src.data(), src.data(), static_cast<int>(src.size())) == 0);
    for (int i = 4; i < 64; i++) {
        int cpu = fdt_path_offset(src.data(), ("/cpus/cpu@" + std::to_string(i)).c_str());
        REQUIRE(cpu >= 0);
        REQUIRE(fdt_setprop_string(src.data(), cpu, "status", "disabled") == 0);
    }
    REQUIRE(fdt_pack(src.data()) == 0);
    std::vector<dt::HartDesc> h(64);
    dt::Beyond left{1, 0, {}, 0}; // hart IDs below 1: hart 0 alone
    CHECK(dt::scan_harts(src.data(), h.data(), 64, &left) == 1);
    CHECK(left.count == 3);
    CHECK(left.cpu_nodes == 64);
    const size_t room = dt::kStatusNameBytes + dt::kDisabledBytes * left.count;
    std::vector<char> v(fdt_totalsize(src.data()) + room);
    REQUIRE(fdt_open_into(src.data(), v.data(), static_cast<int>(v.size())) == 0);
    CHECK(dt::fixup_disable_harts(v.data(), [](uint64_t id) { return id == 0; }) == 0);
    CHECK(fdt_check_full(v.data(), v.size()) == 0);
    for (int i = 1; i < 4; i++) {
        int cpu = fdt_path_offset(v.data(), ("/cpus/cpu@" + std::to_string(i)).c_str());
        CHECK(std::string(static_cast<const char *>(fdt_getprop(v.data(), cpu, "status", nullptr))) == "disabled");
    }
}

TEST_CASE("DT growth limit: the /memory range, then what the tree reserves or names after itself") {
    auto blob = load(data("qemu-virt.dtb"), 4096);
    void *fdt = blob.data();
    REQUIRE(fdt_open_into(fdt, fdt, static_cast<int>(blob.size())) == 0);
    // A second /memory range.
    int mem2 = fdt_add_subnode(fdt, 0, "memory@100000000");
    REQUIRE(mem2 >= 0);
    REQUIRE(fdt_setprop_string(fdt, mem2, "device_type", "memory") == 0);
    const fdt32_t mreg[] = {cpu_to_fdt32(1), cpu_to_fdt32(0), cpu_to_fdt32(0), cpu_to_fdt32(0x10000000)};
    REQUIRE(fdt_setprop(fdt, mem2, "reg", mreg, sizeof mreg) == 0);
    dt::Memory m;
    auto scan = [&] {
        REQUIRE(dt::scan_memory(fdt, m));
        return m;
    };
    REQUIRE(scan().count == 2);
    CHECK(m.resv_count == 0);
    CHECK(m.initrd == 0);
    const uint64_t at = 0x8fe00000, end = at + fdt_totalsize(fdt);
    CHECK(dt::growth_limit(fdt, at, m) == 0x90000000);
    CHECK(dt::growth_limit(fdt, 0x100000000ull, m) == 0x110000000ull);
    // Outside every range, or across a range's end: no growth.
    CHECK(dt::growth_limit(fdt, 0x1000, m) == 0x1000 + fdt_totalsize(fdt));
    CHECK(dt::growth_limit(fdt, 0x90000000 - 16, m) == 0x90000000 - 16 + fdt_totalsize(fdt));
    // A /memreserve/ entry below the tree or holding it changes nothing; one after it limits it.
    REQUIRE(fdt_add_mem_rsv(fdt, 0x80000000, 0x80000) == 0);
    REQUIRE(fdt_add_mem_rsv(fdt, at, 0x100000) == 0);
    CHECK(dt::growth_limit(fdt, at, m) == 0x90000000);
    REQUIRE(fdt_add_mem_rsv(fdt, 0x8ff80000, 0x1000) == 0);
    CHECK(dt::growth_limit(fdt, at, m) == 0x8ff80000);
    // A /reserved-memory node after it, lower still.
    int resv = fdt_add_subnode(fdt, 0, "reserved-memory");
    REQUIRE(resv >= 0);
    REQUIRE(fdt_setprop_u32(fdt, resv, "#address-cells", 2) == 0);
    REQUIRE(fdt_setprop_u32(fdt, resv, "#size-cells", 2) == 0);
    int node = fdt_add_subnode(fdt, resv, "blocker@8ff40000");
    REQUIRE(node >= 0);
    const fdt32_t reg[] = {cpu_to_fdt32(0), cpu_to_fdt32(0x8ff40000), cpu_to_fdt32(0), cpu_to_fdt32(0x1000)};
    REQUIRE(fdt_setprop(fdt, node, "reg", reg, sizeof reg) == 0);
    CHECK(dt::growth_limit(fdt, at, scan()) == 0x8ff40000);
    CHECK(m.resv_count == 1);
    // More children than scan_memory keeps: the rest are read from the tree.
    for (unsigned i = 0; i < dt::Memory::kMaxResv; i++) {
        node = fdt_add_subnode(fdt, resv, ("high@" + std::to_string(i)).c_str());
        REQUIRE(node >= 0);
        const fdt32_t high[] = {cpu_to_fdt32(0), cpu_to_fdt32(0x8ff80000 + i * 0x1000), cpu_to_fdt32(0),
                                cpu_to_fdt32(0x1000)};
        REQUIRE(fdt_setprop(fdt, node, "reg", high, sizeof high) == 0);
    }
    node = fdt_add_subnode(fdt, resv, "last");
    const fdt32_t low[] = {cpu_to_fdt32(0), cpu_to_fdt32(0x8ff20000), cpu_to_fdt32(0), cpu_to_fdt32(0x1000)};
    REQUIRE(fdt_setprop(fdt, node, "reg", low, sizeof low) == 0);
    CHECK(dt::growth_limit(fdt, at, scan()) == 0x8ff20000);
    CHECK(m.resv_more);
    // The initrd right after the tree, lower still.
    int chosen = fdt_path_offset(fdt, "/chosen");
    REQUIRE(chosen >= 0);
    const uint64_t ird = end + 0x2000;
    REQUIRE(fdt_setprop_u64(fdt, chosen, "linux,initrd-start", ird) == 0);
    REQUIRE(ird < 0x8ff20000);
    CHECK(dt::growth_limit(fdt, at, scan()) == ird);
    CHECK(m.initrd == ird);
}

#include "core/insn_decode.hpp"

TEST_CASE("misaligned emulation decodes integer loads and stores") {
    using fw::decode_int_access;
    // ld a0, 0(a1) = 0x0005b503; lw s1, 4(sp) = 0x00412483; lbu t0, 0(a0) = 0x00054283
    auto ld = decode_int_access(0x0005b503, true, 8);
    CHECK(ld.width == 8); CHECK(ld.reg == 10); CHECK(ld.len == 4); CHECK(ld.sign);
    auto lw = decode_int_access(0x00412483, true, 8);
    CHECK(lw.width == 4); CHECK(lw.reg == 9); CHECK(lw.sign);
    auto lbu = decode_int_access(0x00054283, true, 8);
    CHECK(lbu.width == 1); CHECK_FALSE(lbu.sign);
    auto lwu = decode_int_access(0x0005e503, true, 8); // lwu a0, 0(a1)
    CHECK(lwu.width == 4); CHECK_FALSE(lwu.sign);
    // sd a2, 8(a0) = 0x00c53423; sh t1, 2(a0) = 0x00651123
    auto sd = decode_int_access(0x00c53423, false, 8);
    CHECK(sd.width == 8); CHECK(sd.reg == 12);
    CHECK(decode_int_access(0x00651123, false, 8).width == 2);
    // a load is not a store and vice versa; ld is not available on RV32
    CHECK(decode_int_access(0x00c53423, true, 8).width == 0);
    CHECK(decode_int_access(0x0005b503, false, 8).width == 0);
    CHECK(decode_int_access(0x0005b503, true, 4).width == 0);
    // c.lw a0, 0(a1) = 0x4188; c.sd a0, 8(a1) = 0xe588; c.ldsp ra, 8(sp) = 0x60a2; c.swsp a5, 4(sp) = 0xc23e
    auto clw = decode_int_access(0x4188, true, 8);
    CHECK(clw.width == 4); CHECK(clw.reg == 10); CHECK(clw.len == 2); CHECK(clw.sign);
    auto csd = decode_int_access(0xe588, false, 8);
    CHECK(csd.width == 8); CHECK(csd.reg == 10);
    auto cldsp = decode_int_access(0x60a2, true, 8);
    CHECK(cldsp.width == 8); CHECK(cldsp.reg == 1);
    auto cswsp = decode_int_access(0xc23e, false, 8);
    CHECK(cswsp.width == 4); CHECK(cswsp.reg == 15);
    // c.flw on RV32 / c.ld on RV64 share funct3 3: FP on RV32 is not ours
    CHECK(decode_int_access(0x6188, true, 4).width == 0);
    CHECK(decode_int_access(0x6188, true, 8).width == 8);
    // other opcodes
    CHECK(decode_int_access(0x00000013, true, 8).width == 0); // nop
}

TEST_CASE("trap-safe CSR access by number: every listed number has its own table entry") {
    // firmware/core/csr_safe.cpp assembles entry i of its tables for the
    // i-th listed number; two numbers on one entry would access the wrong
    // CSR, a number past the tables would run whatever follows them.
    std::vector<int> owner(csr::safe_csr_total(), -1);
    unsigned listed = 0;
    for (unsigned num = 0; num < 4096; num++) {
        int i = csr::safe_csr_index(num);
        if (i < 0) continue;
        listed++;
        REQUIRE(static_cast<unsigned>(i) < owner.size());
        CHECK_MESSAGE(owner[i] == -1, "CSR 0x" << std::hex << num << " shares entry " << std::dec << i);
        owner[i] = static_cast<int>(num);
    }
    CHECK(listed == csr::safe_csr_total());
    CHECK(csr::safe_csr_total() == 120); // the size csr_safe.hpp states
    // Entries follow the list: the first range starts the table.
    CHECK(csr::safe_csr_index(csr::tselect) == 0);
    CHECK(csr::safe_csr_index(csr::tselect + 4) == 4);
    CHECK(csr::safe_csr_index(csr::menvcfg) == 5);
    // The numbers the firmware reaches this way (callers' static_asserts).
    CHECK(csr::safe_listed(csr::pmpaddr0, 8));
    CHECK(csr::safe_listed(csr::pmpcfg0, 2));
    CHECK(csr::safe_listed(csr::mcycle, 32));
    CHECK(csr::safe_listed(csr::mtinst));
    CHECK(csr::safe_listed(csr::hstateen0h, 4));
    // Unlisted: a clear "no", never an entry.
    CHECK(csr::safe_csr_index(csr::mscratch) == -1);
    CHECK(csr::safe_csr_index(csr::mstatus) == -1);
    CHECK(csr::safe_csr_index(0xfff) == -1);
    CHECK(csr::safe_csr_index(csr::tselect + 0x1000) == -1); // not a 12-bit number
    CHECK(!csr::safe_listed(csr::pmpaddr0, 17));
    CHECK(csr::kSafeUnlisted != 0);
}

TEST_CASE("PMP read-back: compared on the bits an entry holds") {
    using namespace fw::enables;
    // QEMU virt, RV64, G = 0: pmpaddr holds bits 55:2.
    const unsigned long held64 = 0x003fffffffffffffull;
    CHECK(pmpaddr_reads_back(held64, ~0ul, held64));          // the open entry
    CHECK(pmpaddr_reads_back(0x2001ffff, 0x2001ffff, held64)); // firmware, 1 MiB at 0x80000000
    // A deny entry left at all-ones (its write lost): caught.
    CHECK_FALSE(pmpaddr_reads_back(held64, 0x2001ffff, held64));
    CHECK_FALSE(pmpaddr_reads_back(0, 0x2001ffff, held64));
    // G = 10 (4 KiB granules): an OFF entry reads bits 9:0 as zero, a NAPOT
    // one bits 8:0 as ones; a 512-byte NAPOT region reads back wider.
    const unsigned long held_g10 = held64 & ~0x3fful;
    CHECK(pmpaddr_reads_back(0x200001ff, 0x2000003f, held_g10));
    CHECK_FALSE(pmpaddr_reads_back(0x200005ff, 0x2000003f, held_g10));
    // pmpcfg bytes of entries 0..last.
    CHECK(pmpcfg_compared(0, 0, 8) == 0xff);
    CHECK(pmpcfg_compared(0, 3, 8) == 0xffffffffull);
    CHECK(pmpcfg_compared(0, 7, 8) == ~0ul);
    CHECK(pmpcfg_compared(1, 3, 4) == 0);
    CHECK(pmpcfg_compared(0, 5, 4) == 0xffffffffull);
    CHECK(pmpcfg_compared(1, 5, 4) == 0xffff);
    CHECK(pmpcfg_compared(1, 7, 4) == 0xffffffffull);
}

#include "fdt_edit.hpp"

// Every node and property of a tree, in order, values in hex: equal for two
// trees that differ only in where libfdt and fdtw put their bytes.
static std::string dump_tree(const void *fdt, int node = 0, int depth = 0) {
    std::string out = std::string(depth, ' ') + fdt_get_name(fdt, node, nullptr) + " {\n";
    int p;
    fdt_for_each_property_offset(p, fdt, node) {
        int len;
        const char *name;
        auto *v = static_cast<const uint8_t *>(fdt_getprop_by_offset(fdt, p, &name, &len));
        out += std::string(depth + 1, ' ') + name + " =";
        for (int i = 0; i < len; i++) {
            char h[4];
            snprintf(h, sizeof h, " %02x", v[i]);
            out += h;
        }
        out += "\n";
    }
    int c;
    fdt_for_each_subnode(c, fdt, node) out += dump_tree(fdt, c, depth + 1);
    return out + std::string(depth, ' ') + "}\n";
}

// fdtw::walk (aligned token reads, skipped subtrees crossed by
// skip_subtree) and fdtw::root_child against libfdt's own walk and path
// look-up, on QEMU virt's trees of 4 and 64 harts and the sifive_u and spike
// trees.
static void check_walk_like_libfdt(const char *dtb) {
    auto a = load(data(dtb));
    const void *fdt = a.data();
    REQUIRE(fdtw::header_ok(fdt));
    struct Seen {
        int off, depth;
        std::string name;
        bool operator==(const Seen &) const = default;
    };
    // Every node; then the same walk skipping /cpus (the devices' walks).
    for (bool skip_cpus : {false, true}) {
        std::vector<Seen> ours, libfdts;
        struct Visitor {
            std::vector<Seen> &seen;
            bool skip;
            bool begin(int off, int depth, const char *name) {
                seen.push_back({off, depth, name});
                return !(skip && fdtw::is_cpus(depth, name));
            }
            void prop(int, int, const fdtw::Prop &) {}
            void end(int, int) {}
        } v{ours, skip_cpus};
        CHECK(fdtw::walk(fdt, 0, v));
        int cpus = fdt_path_offset(fdt, "/cpus");
        int depth = 0;
        for (int n = 0; n >= 0 && depth >= 0; n = fdt_next_node(fdt, n, &depth)) {
            if (skip_cpus && cpus >= 0 && depth >= 2 && n > cpus) {
                int p = fdt_parent_offset(fdt, n);
                while (p > cpus) p = fdt_parent_offset(fdt, p);
                if (p == cpus) continue;
            }
            libfdts.push_back({n, depth, fdt_get_name(fdt, n, nullptr)});
        }
        CHECK(ours == libfdts);
    }
    // Every child of the root, by its full name and without its unit address.
    int c;
    fdt_for_each_subnode(c, fdt, 0) {
        std::string name = fdt_get_name(fdt, c, nullptr);
        for (std::string n : {name, name.substr(0, name.find('@'))}) {
            CAPTURE(n);
            CHECK(fdtw::root_child(fdt, n.c_str()) == fdt_path_offset(fdt, ("/" + n).c_str()));
        }
    }
    CHECK(fdtw::root_child(fdt, "no-such-node") == -FDT_ERR_NOTFOUND);
    // A blob 4 bytes off its 8-byte alignment: refused, as libfdt refuses it.
    std::vector<char> b(a.size() + 12);
    char *odd = b.data() + (8 - reinterpret_cast<uintptr_t>(b.data()) % 8) % 8 + 4;
    memcpy(odd, a.data(), a.size());
    CHECK_FALSE(fdtw::header_ok(odd));
}

TEST_CASE("fdtw::walk and fdtw::root_child: every node and path as libfdt finds them") {
    for (const char *dtb : {"qemu-virt.dtb", "qemu-virt-64.dtb", "qemu-sifive_u.dtb", "qemu-spike.dtb"})
        check_walk_like_libfdt(dtb);
}

// fixup_disable_harts in one pass (fdtw::rewrite_cpus) against libfdt's
// fdt_setprop_string on each node, on QEMU virt's trees of 4 and 64 harts:
// harts 1 and 3 off (odd ones at 64), a node with status "okay" and one with
// "ok" replaced, the rest get a new property.
static void check_disable_like_libfdt(const char *dtb, unsigned harts) {
    auto a = load(data(dtb), 8192);
    REQUIRE(dt::open_for_fixup(a.data(), 8192) == 0);
    int cpu3 = fdt_path_offset(a.data(), "/cpus/cpu@3");
    REQUIRE(cpu3 >= 0);
    REQUIRE(fdt_setprop_string(a.data(), cpu3, "status", "okay") == 0);
    int cpu1 = fdt_path_offset(a.data(), "/cpus/cpu@1");
    REQUIRE(fdt_setprop_string(a.data(), cpu1, "status", "ok") == 0);
    auto b = a;
    // Odd hart IDs are not served.
    REQUIRE(dt::fixup_disable_harts(a.data(), [](uint64_t id) { return id % 2 == 0; }) == 0);
    CHECK(fdt_check_full(a.data(), fdt_totalsize(a.data())) == 0);
    for (unsigned h = 1; h < harts; h += 2) {
        char path[32];
        snprintf(path, sizeof path, "/cpus/cpu@%u", h);
        int n = fdt_path_offset(b.data(), path);
        REQUIRE(n >= 0);
        REQUIRE(fdt_setprop_string(b.data(), n, "status", "disabled") == 0);
    }
    CHECK(dump_tree(a.data()) == dump_tree(b.data()));
    dt::HartDesc h[kMaxHarts];
    CHECK(dt::scan_harts(a.data(), h, kMaxHarts) == (harts + 1) / 2);
}

TEST_CASE("DT fix-up: harts disabled in one pass, as libfdt's edits one by one") {
    check_disable_like_libfdt("qemu-virt.dtb", 4);
    check_disable_like_libfdt("qemu-virt-64.dtb", 64);
}

TEST_CASE("DT fix-up: one pass without room for its growth leaves the tree as it was") {
    auto a = load(data("qemu-virt-64.dtb"), 4096);
    REQUIRE(dt::open_for_fixup(a.data(), 64) == 0);
    const std::string before = dump_tree(a.data());
    // 63 harts off (hart 0 alone served): 63 x 24 bytes
    CHECK(dt::fixup_disable_harts(a.data(), [](uint64_t id) { return id == 0; }) == -FDT_ERR_NOSPACE);
    CHECK(fdt_check_full(a.data(), fdt_totalsize(a.data())) == 0);
    CHECK(dump_tree(a.data()) == before);
}

TEST_CASE("fdtw::rewrite_cpus: kept values, dropped bytes, insertions and replacements in one node") {
    auto a = load(data("qemu-virt.dtb"), 4096);
    REQUIRE(dt::open_for_fixup(a.data(), 4096) == 0);
    auto b = a;
    void *fdt = a.data();
    const int isa = fdtw::string_offset(fdt, "riscv,isa"), added = fdtw::string_offset(fdt, "tsbi,test");
    REQUIRE(isa >= 0);
    REQUIRE(added >= 0);
    CHECK(fdtw::string_offset(fdt, "riscv,isa") == isa); // found, not added twice
    static const char kTail[] = "_x", kValue[] = "v";
    const int cpus = fdt_path_offset(fdt, "/cpus");
    REQUIRE(fdtw::rewrite_cpus(fdt, cpus, [&](uint32_t, const fdtw::NodeProps &np, fdtw::Edit *e) {
        uint32_t at = 0;
        const fdtw::Prop *p = np.find("riscv,isa", &at);
        REQUIRE(p);
        e[0] = {np.start, 0, uint32_t(added), kValue, sizeof kValue, 0, 0}; // first, as libfdt adds one
        e[1] = {at, 12 + fdtw::align4(uint32_t(p->len)), uint32_t(isa), kTail, sizeof kTail, 1, 1};
        return 2u;
    }) == 0);
    CHECK(fdt_check_full(fdt, fdt_totalsize(fdt)) == 0);
    int cpu;
    fdt_for_each_subnode(cpu, b.data(), fdt_path_offset(b.data(), "/cpus")) {
        int len;
        auto *dt = static_cast<const char *>(fdt_getprop(b.data(), cpu, "device_type", &len));
        if (!dt || strcmp(dt, "cpu")) continue;
        std::string s = static_cast<const char *>(fdt_getprop(b.data(), cpu, "riscv,isa", &len));
        REQUIRE(fdt_setprop_string(b.data(), cpu, "riscv,isa", (s + "_x").c_str()) == 0);
        REQUIRE(fdt_setprop_string(b.data(), cpu, "tsbi,test", "v") == 0);
    }
    CHECK(dump_tree(fdt) == dump_tree(b.data()));
}

// fixup_reserve (one walk, one insertion) against libfdt's fdt_add_subnode
// and fdt_setprop (a new property goes first there, so the reference is
// built last property first): a tree without /reserved-memory (64 harts)
// and one with it (edge.dts, cells of its own).
static void check_reserve_like_libfdt(const char *dtb) {
    auto a = load(data(dtb), 4096);
    REQUIRE(dt::open_for_fixup(a.data(), 4096) == 0);
    auto b = a;
    REQUIRE(dt::fixup_reserve(a.data(), 0x80000000, 0x40000) == 0);
    CHECK(fdt_check_full(a.data(), fdt_totalsize(a.data())) == 0);
    void *f = b.data();
    int parent = fdt_path_offset(f, "/reserved-memory");
    int ac = fdt_address_cells(f, 0), sc = fdt_size_cells(f, 0);
    if (parent < 0) {
        parent = fdt_add_subnode(f, 0, "reserved-memory");
        REQUIRE(parent >= 0);
        REQUIRE(fdt_setprop(f, parent, "ranges", nullptr, 0) == 0);
        REQUIRE(fdt_setprop_u32(f, parent, "#size-cells", sc) == 0);
        REQUIRE(fdt_setprop_u32(f, parent, "#address-cells", ac) == 0);
    } else {
        ac = fdt_address_cells(f, parent);
        sc = fdt_size_cells(f, parent);
    }
    int node = fdt_add_subnode(f, parent, "mmode_resv@80000000");
    REQUIRE(node >= 0);
    REQUIRE(fdt_setprop(f, node, "no-map", nullptr, 0) == 0);
    fdt32_t reg[4];
    int n = 0;
    if (ac == 2) reg[n++] = cpu_to_fdt32(0);
    reg[n++] = cpu_to_fdt32(0x80000000);
    if (sc == 2) reg[n++] = cpu_to_fdt32(0);
    reg[n++] = cpu_to_fdt32(0x40000);
    REQUIRE(fdt_setprop(f, node, "reg", reg, 4 * n) == 0);
    CHECK(dump_tree(a.data()) == dump_tree(f));
    // The same name twice: refused, as fdt_add_subnode refuses it.
    CHECK(dt::fixup_reserve(a.data(), 0x80000000, 0x40000) == -FDT_ERR_EXISTS);
}

TEST_CASE("DT fix-up: the firmware's reservation in one insertion, as libfdt's edits") {
    check_reserve_like_libfdt("qemu-virt-64.dtb");
    check_reserve_like_libfdt("edge.dtb");
}

TEST_CASE("DT fix-up: withheld extensions on 64 alike cpu nodes, one of them different") {
    auto blob = load(data("qemu-virt-64.dtb"), 16384);
    REQUIRE(dt::open_for_fixup(blob.data(), 16384) == 0);
    void *fdt = blob.data();
    // Every node lists Ssccfg without Smcdeleg (withheld there), except
    // cpu@40, which has both (kept): the nodes after it are alike again.
    std::string isa;
    for (unsigned h = 0; h < 64; h++) {
        char path[32];
        snprintf(path, sizeof path, "/cpus/cpu@%u", h);
        int cpu = fdt_path_offset(fdt, path);
        REQUIRE(cpu >= 0);
        int len;
        if (isa.empty()) isa = static_cast<const char *>(fdt_getprop(fdt, cpu, "riscv,isa", &len));
        const std::string mine = isa + (h == 40 ? "_smcdeleg_ssccfg_zkr" : "_ssccfg_zkr");
        REQUIRE(fdt_setprop_string(fdt, cpu, "riscv,isa", mine.c_str()) == 0);
    }
    REQUIRE(dt::fixup_withhold_extensions(fdt, enables::kWithheld, 1) == 0);
    CHECK(fdt_check_full(fdt, fdt_totalsize(fdt)) == 0);
    for (unsigned h = 0; h < 64; h++) {
        char path[32];
        snprintf(path, sizeof path, "/cpus/cpu@%u", h);
        int len;
        const std::string got = static_cast<const char *>(fdt_getprop(fdt, fdt_path_offset(fdt, path), "riscv,isa", &len));
        CHECK_MESSAGE(got == isa + (h == 40 ? "_smcdeleg_ssccfg_zkr" : "_zkr"), path);
        CHECK(len == (int)got.size() + 1);
    }
}
