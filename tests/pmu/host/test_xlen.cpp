// SPDX-License-Identifier: BSD-2-Clause
// What differs between RV64 and RV32 (README "RV32 images"): 64-bit SBI
// arguments in two registers, counter_fw_read_hi, counters and selectors in
// two CSRs, shared memory reached with XLEN-wide accesses only. Every case
// runs in both builds (tests/pmu/build.mk) and asserts the value of its XLEN.
#include "rig.hpp"

using namespace rig;
using FE = fw::FwEvent;
namespace csrno = hart_model::csrno;

namespace {
constexpr uint64_t kMINH = 1ull << 62, kSINH = 1ull << 61;
// M-mode runs 1 cycle before every CSR access the firmware makes, so a
// running counter moves between the accesses to its two halves.
PmuHartConfig ticking(PmuHartConfig c = {}) {
    c.m_cycles_per_csr = 1;
    return c;
}
// cycles owned by the fixed counter 0 (no Sscofpmf), running, at `value`.
void cycles_running_at(Rig &r, uint64_t value) {
    REQUIRE_EQ(r.match(0, 1, 0, kCycles).value, 0u);
    CHECK_OK(r.start(0, 1));
    r.hart().counter[0] = value;
}
} // namespace

TEST_CASE("xlen: the program, the firmware's unsigned long and the hart model agree") {
    CHECK_EQ(kXlen, PMU_HOST_XLEN); // tests/pmu/build.mk: host or host32
    CHECK_EQ(sizeof(unsigned long) * 8, kXlen);
    CHECK_EQ(sizeof(uintptr_t) * 8, kXlen);
    CHECK_EQ(PmuHartConfig{}.xlen, kXlen);
    Rig r;
    CHECK_EQ(r.m.xlen, kXlen);
}

TEST_CASE("hart model: *h CSRs on RV32 only, mhpmeventNh with Sscofpmf only, nothing wider than XLEN") {
    for (unsigned xlen : {32u, 64u}) {
        CAPTURE(xlen);
        PmuHartConfig c;
        c.xlen = xlen;
        hart_model::PmuHart plain(c);
        c.sscofpmf = c.smcntrpmf = true;
        hart_model::PmuHart h(c);
        uint64_t v;
        bool rv32 = xlen == 32;
        CHECK_EQ(h.write(csrno::mhpmcounter3, 0x89abcdef), true);
        CHECK_EQ(h.write(csrno::mhpmcounter3h, 0x01234567), rv32);
        CHECK_EQ(h.counter[3], rv32 ? 0x0123456789abcdefull : 0x89abcdefull);
        CHECK_EQ(h.write(csrno::mcycle, 0x100000000ull), !rv32); // 33 bits
        CHECK_EQ(h.write(csrno::mhpmevent3h, kSINH >> 32), rv32);
        CHECK_EQ(plain.write(csrno::mhpmevent3h, 0), false);
        CHECK_EQ(plain.read(csrno::mhpmevent3h, v), false);
        CHECK_EQ(h.write(csrno::mcyclecfgh, kMINH >> 32), rv32);
        CHECK_EQ(plain.write(csrno::mcyclecfgh, 0), false);
        REQUIRE(h.read(csrno::mhpmcounter3, v));
        CHECK_EQ(v, 0x89abcdefull);
        CHECK_EQ(h.read(csrno::mhpmcounter3h, v), rv32);
        if (rv32) {
            CHECK_EQ(v, 0x01234567u);
            CHECK_EQ(h.selector[3], kSINH);
            CHECK_EQ(h.cyclecfg, kMINH);
        }
        hart_model::Machine m(1, c);
        CHECK_EQ(m.load(0x80080000, 8), 0u);
        m.store(0x80080000, 1, 8);
        CHECK_EQ(m.faults, rv32 ? 2u : 0u); // RV32 has no 8-byte load or store
        m.store(0x80080000, 1, 4);
        CHECK_EQ(m.faults, rv32 ? 2u : 0u);
    }
}

TEST_CASE("fw_read_hi: the upper 32 bits on RV32 (0 on RV64), with the carry out of the lower half") {
    Rig r;
    unsigned fb = r.fw_base();
    REQUIRE_EQ(r.match(fb, 1, 0, fw_ev(FE::ipi_received)).value, fb);
    CHECK_OK(r.start(fb, 1, START_SET_INIT_VALUE, 0xfffffffeull));
    r.fw_event(FE::ipi_received);
    CHECK_EQ(r.fw_read(fb).value, 0xfffffffful);
    CHECK_EQ(r.fw_read_hi(fb).value, 0ul);
    r.fw_event(FE::ipi_received);
    SbiRet lo = r.fw_read(fb), hi = r.fw_read_hi(fb);
    CHECK_OK(lo);
    CHECK_OK(hi);
    CHECK_EQ(lo.value, kRv32 ? 0ul : static_cast<unsigned long>(0x100000000ull));
    CHECK_EQ(hi.value, kRv32 ? 1ul : 0ul);
    // Stopped, and with both halves set.
    CHECK_OK(r.stop(fb, 1));
    CHECK_OK(r.start(fb, 1, START_SET_INIT_VALUE, 0x123456789abcdef0ull));
    CHECK_OK(r.stop(fb, 1));
    r.fw_event(FE::ipi_received, 3); // stopped: not counted
    CHECK_EQ(r.fw_read(fb).value, static_cast<unsigned long>(0x123456789abcdef0ull));
    CHECK_EQ(r.fw_read_hi(fb).value, kRv32 ? 0x12345678ul : 0ul);
}

TEST_CASE("fw_read_hi: INVALID_PARAM exactly where fw_read is") {
    Rig r;
    unsigned fb = r.fw_base();
    REQUIRE_EQ(r.match(3, 1, 0, kDtlbRdMiss).value, 3u);
    REQUIRE_EQ(r.match(0, 1, CFG_AUTO_START, kCycles).value, 0u);
    REQUIRE_EQ(r.match(fb + 1, 1, CFG_AUTO_START, fw_ev(FE::set_timer)).value, fb + 1);
    REQUIRE_EQ(r.match(fb + 3, 1, 0, fw_ev(FE::ipi_sent)).value, fb + 3);
    const unsigned long bad[] = {0, 1, 2, 3, 4, fb, fb + 2, r.total(), 63, 64, kTopBit, kAll};
    for (unsigned long i : bad) {
        CAPTURE(i);
        CHECK_ERR(r.fw_read(i), InvalidParam);
        CHECK_ERR(r.fw_read_hi(i), InvalidParam);
    }
    for (unsigned long i : {fb + 1ul, fb + 3ul}) {
        CAPTURE(i);
        CHECK_OK(r.fw_read(i));
        CHECK_OK(r.fw_read_hi(i));
    }
    CHECK_ERR(r.stop(fb + 3, 1, STOP_RESET), AlreadyStopped);
    CHECK_ERR(r.fw_read_hi(fb + 3), InvalidParam); // released
}

TEST_CASE("SET_INIT_VALUE: a3 alone on RV64, a3 (low) and a4 (high) on RV32") {
    Rig r;
    unsigned fb = r.fw_base();
    REQUIRE_EQ(r.match(3, 1, 0, kDtlbRdMiss).value, 3u);
    REQUIRE_EQ(r.match(0, 1, 0, kCycles).value, 0u);
    REQUIRE_EQ(r.match(fb, 1, 0, fw_ev(FE::set_timer)).value, fb);
    const uint64_t both = 0x0123456789abcdefull, low = 0x89abcdefull;
    const uint64_t want = kRv32 ? both : low; // RV64 ignores a4
    unsigned long mask = 1ul | (1ul << (fb - 3));
    CHECK_OK(r.call(COUNTER_START, 3, mask, START_SET_INIT_VALUE, 0x89abcdef, 0x01234567));
    CHECK_OK(r.call(COUNTER_START, 0, 1, START_SET_INIT_VALUE, 0x89abcdef, 0x01234567));
    CHECK_EQ(r.hart().counter[3], want);
    CHECK_EQ(r.hart().counter[0], want);
    CHECK_EQ(r.fw_read(fb).value, static_cast<unsigned long>(low));
    CHECK_EQ(r.fw_read_hi(fb).value, kRv32 ? 0x01234567ul : 0ul);
    // The counter's two CSRs as S-mode reads them (cycle/cycleh on RV32).
    uint64_t v;
    REQUIRE(r.hart().read(csrno::mhpmcounter3, v));
    CHECK_EQ(v, low);
    CHECK_EQ(r.hart().read(csrno::mhpmcounter3h, v), kRv32);
    if (kRv32) CHECK_EQ(v, 0x01234567u);
    // Only the upper half: the value 2^32 * hi.
    CHECK_OK(r.stop(3, 1));
    CHECK_OK(r.call(COUNTER_START, 3, 1, START_SET_INIT_VALUE, 0, 0xffffffff));
    CHECK_EQ(r.hart().counter[3], kRv32 ? 0xffffffff00000000ull : 0u);
}

TEST_CASE("config_matching: event_data is a4 alone on RV64, a4 (low) and a5 (high) on RV32") {
    Rig r({}, {{"riscv,event-to-mhpmcounters", {0x10019, 0x10019, 0x7fff8}},
               {"riscv,raw-event-to-mhpmcounters", {0x0, 0x12ab, 0x0, 0xffff, 0x10}}});
    unsigned fb = r.fw_base();
    const unsigned long raw = event_idx(TYPE_RAW, 0);
    // Raw event 0x12ab with a non-zero upper register.
    SbiRet s = r.call(COUNTER_CONFIG_MATCHING, 0, 0x7fffd, 0, raw, 0x12ab, 1);
    if (kRv32) {
        CHECK_ERR(s, NotSupported); // 0x1000012ab: more than a 32-bit mhpmevent takes
    } else {
        CHECK_OK(s);
        CHECK_EQ(s.value, 4u);
        CHECK_EQ(r.hart().selector[4], 0x12abu);
        CHECK_ERR(r.stop(4, 1, STOP_RESET), AlreadyStopped);
    }
    // event_data is reserved (must be 0) for general, cache and firmware events.
    SbiRet g = r.call(COUNTER_CONFIG_MATCHING, 0, 0x7fffd, 0, kDtlbRdMiss, 0, 1);
    SbiRet f = r.call(COUNTER_CONFIG_MATCHING, fb, 1, 0, fw_ev(FE::set_timer), 0, 0x80000000);
    if (kRv32) {
        CHECK_ERR(g, NotSupported);
        CHECK_ERR(f, NotSupported);
        CHECK_EQ(pmu::g_harts[0].configured, 0u);
    } else {
        CHECK_OK(g);
        CHECK_OK(f);
    }
    // The value S-mode means on either XLEN.
    SbiRet ok = r.match(0, 0x7fffd, 0, raw, 0x12ab);
    CHECK_OK(ok);
    CHECK_EQ(r.hart().selector[ok.value], 0x12abu);
}

TEST_CASE("RV32 counter halves: a read that straddles a carry into the upper half") {
    // The counter moves while the firmware reads its two halves
    // (hw_rv32.hpp reads hi, lo, hi).
    Rig r(ticking());
    cycles_running_at(r, 0xfffffffeull);
    pmu::kSubsystem.hart_suspend(); // reads every configured counter
    uint64_t saved = pmu::g_harts[0].saved[0];
    CHECK_GE(saved, 0xffffffffull);
    CHECK_LE(saved, 0x100000010ull); // not 2^32 behind, nor ahead
    CHECK_LE(saved, r.hart().counter[0]);
}

TEST_CASE("RV32 counter halves: a write to a running counter gets no carry into its new upper half") {
    // CLEAR_VALUE with SKIP_MATCH rewrites a running counter in place. The
    // old lower half is about to carry: written upper-then-lower, the carry
    // would land in the new upper half (2^32 too much).
    Rig r(ticking());
    cycles_running_at(r, 0x5fffffffeull);
    REQUIRE_EQ(r.match(0, 1, CFG_SKIP_MATCH | CFG_CLEAR_VALUE, kCycles).value, 0u);
    CHECK_LT(r.hart().counter[0], 0x100u);
    // A programmable counter started near the boundary (Sscofpmf: written
    // after it runs, "Overflow sampling on QEMU"): its value plus a few cycles.
    Rig q(ticking(sscof()));
    REQUIRE_EQ(q.match(0, 0x7fffd, 0, kCycles).value, 3u);
    CHECK_OK(q.start(3, 1, START_SET_INIT_VALUE, 0x1ffffffffull));
    CHECK_GE(q.hart().counter[3], 0x1ffffffffull);
    CHECK_LT(q.hart().counter[3], 0x200000010ull);
    CHECK_EQ(q.hart().selector[3], hart_model::event::cycles); // no MINH: M-mode counted
}

TEST_CASE("RV32 selector halves: Sscofpmf's OF and inhibit bits through mhpmeventNh") {
    Rig r(sscof());
    REQUIRE_EQ(r.match(3, 1, CFG_SET_SINH | CFG_SET_MINH, kDtlbRdMiss).value, 3u);
    CHECK_EQ(r.hart().selector[3], 0x10019u | kSINH | kMINH);
    uint64_t v;
    REQUIRE(r.hart().read(csrno::mhpmevent3, v));
    CHECK_EQ(v, kRv32 ? 0x10019u : 0x10019u | kSINH | kMINH);
    CHECK_EQ(r.hart().read(csrno::mhpmevent3h, v), kRv32);
    if (kRv32) CHECK_EQ(v, (kSINH | kMINH) >> 32);
    // Overflow sets OF (bit 31 of mhpmevent3h on RV32); START clears it.
    CHECK_OK(r.start(3, 1, START_SET_INIT_VALUE, ~0ull));
    r.hart().event(hart_model::event::dtlb_read_miss, Priv::U); // S and M inhibited
    CHECK_EQ(r.hart().selector[3] >> 63, 1u);
    CHECK_OK(r.stop(3, 1));
    CHECK_OK(r.start(3, 1));
    CHECK_EQ(r.hart().selector[3], 0x10019u | kSINH | kMINH);
    // Released: both halves back to 0 (QEMU forgets the mapping).
    CHECK_OK(r.stop(3, 1, STOP_RESET));
    CHECK_EQ(r.hart().selector[3], 0u);
}

TEST_CASE("snapshot on 32-bit: 64-bit values and bitmap as two words, low first") {
    Rig r(sscof());
    unsigned fb = r.fw_base();
    CHECK_OK(r.set_shmem(kShmem));
    for (unsigned i = 0; i < 512; i++) r.m.store_s(kShmem + 8 * i, 0x5a5a5a5a5a5a5a5aull, 8);
    REQUIRE_EQ(r.match(3, 1, 0, kDtlbRdMiss).value, 3u);
    REQUIRE_EQ(r.match(fb, 1, 0, fw_ev(FE::set_timer)).value, fb);
    // INIT_SNAPSHOT: each value read as two 32-bit words.
    r.m.store_s(kShmem + 8 + 8 * 0, 0x89abcdef, 4);
    r.m.store_s(kShmem + 8 + 8 * 0 + 4, 0xffffffff, 4);
    r.m.store_s(kShmem + 8 + 8 * (fb - 3), 0xfffffffe, 4);
    r.m.store_s(kShmem + 8 + 8 * (fb - 3) + 4, 0x00000007, 4);
    CHECK_OK(r.start(3, 1ul | (1ul << (fb - 3)), START_INIT_SNAPSHOT));
    CHECK_EQ(r.hart().counter[3], 0xffffffff89abcdefull);
    r.hart().event(hart_model::event::dtlb_read_miss, Priv::S, 0x76543211);
    r.fw_event(FE::set_timer, 3);
    // TAKE_SNAPSHOT: both words of each value and of the bitmap written.
    CHECK_OK(r.stop(3, 1ul | (1ul << (fb - 3)), STOP_TAKE_SNAPSHOT));
    CHECK_EQ(r.m.load_s(kShmem + 8, 4), 0x00000000u);
    CHECK_EQ(r.m.load_s(kShmem + 12, 4), 0x00000000u); // wrapped: 2^64 + 0
    CHECK_EQ(r.m.load_s(kShmem + 8 + 8 * (fb - 3), 4), 0x00000001u);
    CHECK_EQ(r.m.load_s(kShmem + 8 + 8 * (fb - 3) + 4, 4), 0x00000008u);
    CHECK_EQ(r.m.load_s(kShmem, 4), 0x1u); // counter 3 overflowed, relative to base 3
    CHECK_EQ(r.m.load_s(kShmem + 4, 4), 0x0u);
    CHECK_EQ(r.m.load_s(kShmem + 8 + 8, 8), 0x5a5a5a5a5a5a5a5aull); // others untouched
    // The bitmap's upper word is written too (0 here: START cleared OF).
    r.m.store_s(kShmem + 4, 0xdeadbeef, 4);
    CHECK_OK(r.start(0, 1ul << 3));
    CHECK_OK(r.stop(0, 1ul << 3, STOP_TAKE_SNAPSHOT));
    CHECK_EQ(r.m.load_s(kShmem + 4, 4), 0u);
}

TEST_CASE("*_hi address halves: memory above 4 GiB is refused, not reached through an alias") {
    Rig r;
    // hi = 1 names kShmem + 4 GiB (RAM on a big RV32 machine); the firmware
    // would reach only its alias kShmem below 4 GiB.
    for (unsigned i = 0; i < 4; i++) r.m.store_s(kShmem + 4 * i, 0xdeadbeef, 4);
    CHECK_ERR(r.set_shmem(kShmem, 1), InvalidAddress);
    CHECK_ERR(r.set_shmem(kShmem, kTopBit), InvalidAddress);
    REQUIRE_EQ(r.match(3, 1, CFG_AUTO_START, kDtlbRdMiss).value, 3u);
    CHECK_ERR(r.stop(3, 1, STOP_TAKE_SNAPSHOT), NoShmem);
    r.m.store_s(kShmem, static_cast<uint32_t>(kDtlbRdMiss), 4);
    CHECK_ERR(r.event_info(kShmem, 1, 1), InvalidAddress);
    CHECK_ERR(r.event_info(kShmem, kAll, 1), InvalidAddress);
    CHECK_EQ(r.m.load_s(kShmem + 4, 4), 0xdeadbeefu); // output word untouched
    // A failed call leaves the previous area in place.
    CHECK_OK(r.set_shmem(kShmem + 4096));
    CHECK_ERR(r.set_shmem(kShmem + 8192, 1), InvalidAddress);
    CHECK_OK(r.stop(3, 1, STOP_TAKE_SNAPSHOT));
    CHECK_EQ(r.snap_value(0, kShmem + 4096), r.hart().counter[3]);
    CHECK_EQ(r.m.load_s(kShmem + 4, 4), 0xdeadbeefu);
    CHECK_EQ(r.m.load_s(kShmem + 8192 + 8, 8), 0u);
}

TEST_CASE("shared memory that runs past 2^32 is refused, one that ends there is fine") {
    // RAM [0xfff00000, 2^32): the last page and entries end exactly at 2^32;
    // on RV32 one more entry wraps around to address 0.
    const uint64_t base = 0xfff00000;
    Rig r({}, qemu72_pmu(), 1, true, base);
    const unsigned long page = 0xfffff000, entry = 0xfffffff0;
    CHECK_OK(r.set_shmem(page));
    REQUIRE_EQ(r.match(3, 1, CFG_AUTO_START | CFG_CLEAR_VALUE, kDtlbRdMiss).value, 3u);
    r.hart().event(hart_model::event::dtlb_read_miss, Priv::S, 5);
    CHECK_OK(r.stop(3, 1, STOP_TAKE_SNAPSHOT));
    CHECK_EQ(r.snap_value(0, page), 5u);
    r.m.store_s(entry, static_cast<uint32_t>(kDtlbRdMiss), 4);
    r.m.store_s(entry + 4, 0xdeadbeef, 4);
    CHECK_OK(r.event_info(entry, 0, 1));
    CHECK_EQ(r.m.load_s(entry + 4, 4), 1u);
    r.m.store_s(entry + 4, 0xdeadbeef, 4);
    CHECK_ERR(r.event_info(entry, 0, 2), InvalidAddress);
    CHECK_ERR(r.event_info(entry - 0xf0, 0, 0x11), InvalidAddress);
    CHECK_EQ(r.m.load_s(entry + 4, 4), 0xdeadbeefu);
    CHECK_OK(r.event_info(entry - 0xf0, 0, 0x10));
    // num_entries * 16 wraps XLEN bits: refused before any range check.
    CHECK_ERR(r.event_info(entry, 0, (kAll >> 4) + 1), InvalidAddress);
}
