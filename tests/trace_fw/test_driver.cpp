// SPDX-License-Identifier: BSD-2-Clause
// The TCI 1.0 sequences of firmware/trace/driver.cpp, one component at a
// time: reset with the Active handshake, Impl checks, WARL discovery,
// programming, enabling and flushing.
#include "rig.hpp"

using namespace tfw;
using namespace tci_fake;

namespace {
constexpr uint64_t E = kEncoderBase, F = kFunnelBase, S = kSinkBase;
} // namespace

TEST_CASE("driver: reset writes Active = 0, waits, writes Active = 1, waits (Reset and Discovery)") {
    Rig r;
    EncoderSpec spec;
    spec.timing.active_reads = 5;
    Encoder &e = r.bus.add_encoder(E, spec);
    e.write(TCI_trControl, kActive); // released before: the reset must go through 0
    for (int i = 0; i < 10; i++) e.read(TCI_trControl);
    size_t from = r.end();
    CHECK(trace::reset(E));
    CHECK(e.active());
    size_t w0 = r.write_at(e, TCI_trControl, 0, ~0u, from);
    size_t seen0 = r.control_seen(e, 0, kActive, from);
    size_t w1 = r.write_at(e, TCI_trControl, kActive, 0, from);
    size_t seen1 = r.control_seen(e, kActive, 0, w1);
    CHECK(w0 < seen0);
    CHECK(seen0 < w1);
    CHECK(w1 < seen1);
    CHECK(seen1 < r.end());
    CHECK(r.bus.writes(e).size() == 3);
    CHECK(r.bus.stray == 0);
}

TEST_CASE("driver: reset times out when Active never reads back") {
    Rig r;
    EncoderSpec spec;
    spec.timing.active_reads = kNever;
    r.bus.add_encoder(E, spec);
    CHECK_FALSE(trace::reset(E));
    // The wait is bounded by the poll budget.
    CHECK(r.bus.reads <= 2 * trace::kPollBudget + 2);
}

TEST_CASE("driver: Impl checks (version, component type, N-Trace protocol)") {
    Rig r;
    Encoder &e = r.bus.add_encoder(E);
    Funnel &f = r.bus.add_funnel(F);
    RamSink &s = r.bus.add_sink(S);
    for (uint64_t b : {E, F, S}) REQUIRE(trace::reset(b));
    CHECK(trace::impl_ok(E, TCI_COMPTYPE_ENCODER));
    CHECK(trace::impl_ok(F, TCI_COMPTYPE_FUNNEL));
    CHECK(trace::impl_ok(S, TCI_COMPTYPE_RAMSINK));
    SUBCASE("component type") {
        CHECK_FALSE(trace::impl_ok(E, TCI_COMPTYPE_FUNNEL));
        CHECK_FALSE(trace::impl_ok(F, TCI_COMPTYPE_RAMSINK));
        CHECK_FALSE(trace::impl_ok(S, TCI_COMPTYPE_ENCODER));
    }
    SUBCASE("VerMajor 0 (pre-ratified) and 2 (future) are rejected; 1.x minors are accepted") {
        for (unsigned major : {0u, 2u, 15u}) {
            e.impl.ver_major = f.impl.ver_major = s.impl.ver_major = major;
            CHECK_FALSE(trace::impl_ok(E, TCI_COMPTYPE_ENCODER));
            CHECK_FALSE(trace::impl_ok(F, TCI_COMPTYPE_FUNNEL));
            CHECK_FALSE(trace::impl_ok(S, TCI_COMPTYPE_RAMSINK));
        }
        e.impl.ver_major = f.impl.ver_major = s.impl.ver_major = 1;
        e.impl.ver_minor = f.impl.ver_minor = s.impl.ver_minor = 3;
        CHECK(trace::impl_ok(E, TCI_COMPTYPE_ENCODER));
        CHECK(trace::impl_ok(F, TCI_COMPTYPE_FUNNEL));
        CHECK(trace::impl_ok(S, TCI_COMPTYPE_RAMSINK));
    }
    SUBCASE("encoder protocol: N-Trace 1.x only") {
        e.impl.protocol_major = 2;
        CHECK_FALSE(trace::impl_ok(E, TCI_COMPTYPE_ENCODER));
        e.impl.protocol_major = 1;
        e.impl.protocol_minor = 5;
        CHECK(trace::impl_ok(E, TCI_COMPTYPE_ENCODER));
    }
    SUBCASE("an E-Trace-only encoder is rejected (trTeFormat N-Trace does not stick)") {
        e.spec.formats = 1u << TCI_FORMAT_ETRACE;
        REQUIRE(trace::reset(E));
        CHECK_FALSE(trace::impl_ok(E, TCI_COMPTYPE_ENCODER));
    }
}

TEST_CASE("driver: encoder discovery by WARL write and read-back") {
    Rig r;
    EncoderSpec spec;
    trace::EncoderCaps c;
    SUBCASE("everything") {
        Encoder &e = r.bus.add_encoder(E, spec);
        REQUIRE(trace::discover_encoder(E, c));
        CHECK(c.btm);
        CHECK(c.htm);
        CHECK(c.features == 0x7ff);
        CHECK(c.src_bits_max == 12);
        CHECK(c.sync_modes == 0xe);
        CHECK(c.filters == 1);
        CHECK(c.priv_choices == 0x73);
        CHECK(c.context);
        CHECK(c.timestamp);
        CHECK(c.stall);
        // Discovery leaves the encoder released from reset, not enabled,
        // without filters, features or timestamps.
        CHECK(e.active());
        CHECK_FALSE(e.enabled());
        CHECK(e.inst_filters() == 0);
        CHECK(e.inst_features() == 0);
        CHECK(r.write_at(e, TCI_trControl, kEnable) == r.end());
    }
    SUBCASE("a minimal encoder (TCI 1.0 \"Minimal Implementation\")") {
        spec.inst_modes = 1u << TCI_INSTMODE_BTM;
        spec.features = 0;
        spec.src_bits_max = 0;
        spec.sync_modes = 1u << TCI_SYNCMODE_MESSAGES;
        spec.filters = 0;
        spec.context = spec.stall = false;
        spec.ts.modes = 0;
        r.bus.add_encoder(E, spec);
        REQUIRE(trace::discover_encoder(E, c));
        CHECK(c.btm);
        CHECK_FALSE(c.htm);
        CHECK(c.features == 0);
        CHECK(c.src_bits_max == 0);
        CHECK(c.sync_modes == 1u << TCI_SYNCMODE_MESSAGES);
        CHECK(c.filters == 0);
        CHECK(c.priv_choices == 0);
        CHECK_FALSE(c.context);
        CHECK_FALSE(c.timestamp);
        CHECK_FALSE(c.stall);
    }
    SUBCASE("HTM only: a write of BTM reverts to the supported HTM") {
        spec.inst_modes = 1u << TCI_INSTMODE_HTM;
        r.bus.add_encoder(E, spec);
        REQUIRE(trace::discover_encoder(E, c));
        CHECK_FALSE(c.btm);
        CHECK(c.htm);
    }
    SUBCASE("filter 0 without MatchPrivilege cannot select privileges") {
        spec.match_privilege = false;
        r.bus.add_encoder(E, spec);
        REQUIRE(trace::discover_encoder(E, c));
        CHECK(c.filters == 1);
        CHECK(c.priv_choices == 0);
    }
    SUBCASE("some privileges only, several filters") {
        spec.priv_choices = 1u << TCI_PRIV_U | 1u << TCI_PRIV_S;
        spec.filters = 4;
        spec.features = TCI_trTeInstFeatures_EnImplicitReturn_MASK | TCI_trTeInstFeatures_ImplicitReturnMode_MASK;
        spec.src_bits_max = 5;
        r.bus.add_encoder(E, spec);
        REQUIRE(trace::discover_encoder(E, c));
        CHECK(c.filters == 0xf);
        CHECK(c.priv_choices == spec.priv_choices);
        CHECK(c.features == spec.features);
        CHECK(c.src_bits_max == 5);
    }
    SUBCASE("discovery times out with the Active handshake") {
        spec.timing.active_reads = kNever;
        r.bus.add_encoder(E, spec);
        CHECK_FALSE(trace::discover_encoder(E, c));
    }
}

TEST_CASE("driver: discovery and programming write 0 to reserved bits (Versioning of Components)") {
    Rig r;
    Encoder &e = r.bus.add_encoder(E);
    Funnel &f = r.bus.add_funnel(F);
    RamSink &s = r.bus.add_sink(S);
    trace::EncoderCaps ec;
    trace::SinkCaps sc;
    REQUIRE(trace::discover_encoder(E, ec));
    REQUIRE(trace::discover_sink(S, sc));
    trace::EncoderConfig cfg{TCI_SET(trTeControl, InstMode, kHTM) | TCI_SET(trTeControl, Format, 1),
                             TCI_SET(trTeInstFeatures, SrcBits, 2), 1u << TCI_PRIV_S, 0, 0};
    REQUIRE(trace::sink_start(S, {false, false, 0, sc.sram_limit}));
    REQUIRE(trace::funnel_start(F, true));
    REQUIRE(trace::encoder_start(E, cfg));
    bool lost;
    REQUIRE(trace::encoder_stop(E, lost));
    REQUIRE(trace::disable_and_flush(F));
    REQUIRE(trace::disable_and_flush(S));
    CHECK(e.reserved_writes == 0);
    CHECK(f.reserved_writes == 0);
    CHECK(s.reserved_writes == 0);
    CHECK(e.writes_in_reset + f.writes_in_reset + s.writes_in_reset == 0);
}

TEST_CASE("driver: encoder start: reset values, settings, then Enable, then InstTracing") {
    Rig r;
    Encoder &e = r.bus.add_encoder(E);
    trace::EncoderCaps c;
    REQUIRE(trace::discover_encoder(E, c));
    const uint32_t control = TCI_SET(trTeControl, InstMode, kBTM) | TCI_SET(trTeControl, Format, 1) |
                             TCI_SET(trTeControl, InstSyncMode, 1) | TCI_SET(trTeControl, InstSyncMax, 3);
    const uint32_t features = TCI_SET(trTeInstFeatures, SrcID, 3) | TCI_SET(trTeInstFeatures, SrcBits, 2) |
                              TCI_trTeInstFeatures_EnAllJumps_MASK;
    const uint32_t ts = TCI_BIT(trTsControl, Active) | TCI_SET(trTsControl, Mode, TCI_TSMODE_SHARED) |
                        TCI_BIT(trTsControl, Enable);
    size_t from = r.end();
    REQUIRE(trace::encoder_start(E, {control, features, 1u << TCI_PRIV_S, ts, 0}));
    CHECK(e.enabled());
    CHECK(e.inst_tracing());
    CHECK(e.inst_features() == features);
    CHECK(e.inst_filters() == 1);
    CHECK(e.read(TCI_trTeFilter0MatchInst) == 1u << TCI_PRIV_S);
    CHECK(e.read(TCI_trTeFilter0Control) ==
          (TCI_BIT(trTeFilter0Control, Enable) | TCI_BIT(trTeFilter0Control, MatchPrivilege)));
    CHECK((e.read(TCI_trTeControl) & ~kEmpty) == (kActive | kEnable | kInstTracing | control));

    size_t released = r.control_seen(e, kActive, 0, r.write_at(e, TCI_trControl, 0, ~0u, from));
    size_t enable = r.write_at(e, TCI_trTeControl, kEnable, 0, from);
    size_t tracing = r.write_at(e, TCI_trTeControl, kInstTracing, 0, from);
    REQUIRE(released < enable);
    CHECK(enable < tracing);
    // Enable comes after every other setting; InstTracing is the last write.
    for (size_t i = released; i < r.end(); i++) {
        const Access &a = r.bus.log[i];
        if (a.kind != Access::Write) continue;
        if (a.offset != TCI_trTeControl) CHECK_MESSAGE(i < enable, "register offset " << a.offset);
    }
    CHECK(tracing == r.bus.find([&](const Access &a) { return a.kind == Access::Write; }, enable + 1));
    CHECK(r.bus.find([&](const Access &a) { return a.kind == Access::Write; }, tracing + 1) == r.end());
    // The filter's match value is set before the filter is enabled, and the
    // filter before trTeInstFilters selects it (Trace Encoder Filter Registers).
    size_t match = r.write_at(e, TCI_trTeFilter0MatchInst, 1u << TCI_PRIV_S, 0, released);
    size_t fctl = r.write_at(e, TCI_trTeFilter0Control, TCI_BIT(trTeFilter0Control, Enable), 0, released);
    size_t sel = r.write_at(e, TCI_trTeInstFilters, 1, 0, released);
    CHECK(match < fctl);
    CHECK(fctl < sel);
    // Every register of the TCI 1.0 "Trace Components Reset" table is
    // written (0, or its setting) after the release from reset.
    for (unsigned reg : {TCI_trTeInstFeatures, TCI_trTeInstFilters, TCI_trTeDataControl, TCI_trTeDataFilters,
                         TCI_trTeTrigDbgControl, TCI_trTeTrigExtInControl, TCI_trTeTrigExtOutControl,
                         TCI_trTsControl})
        CHECK_MESSAGE(r.write_at(e, reg, 0, 0, released) < enable, "register offset " << reg);
}

TEST_CASE("driver: encoder start fails when a setting does not stick") {
    Rig r;
    EncoderSpec spec;
    spec.sync_max_max = 4;
    r.bus.add_encoder(E, spec);
    const uint32_t control = TCI_SET(trTeControl, InstMode, kHTM) | TCI_SET(trTeControl, Format, 1) |
                             TCI_SET(trTeControl, InstSyncMode, 1) | TCI_SET(trTeControl, InstSyncMax, 9);
    CHECK_FALSE(trace::encoder_start(E, {control, 0, 0, 0, 0}));
    SUBCASE("a privilege filter on an encoder without filters") {
        Rig r2;
        spec.filters = 0;
        Encoder &e = r2.bus.add_encoder(E, spec);
        CHECK_FALSE(trace::encoder_start(E, {TCI_SET(trTeControl, InstMode, kHTM), 0, 1u << TCI_PRIV_S, 0, 0}));
        CHECK_FALSE(e.enabled());
    }
}

TEST_CASE("driver: encoder stop clears InstTracing and Enable, waits for Empty, reports loss") {
    Rig r;
    EncoderSpec spec;
    spec.timing.empty_reads = 7;
    Encoder &e = r.bus.add_encoder(E, spec);
    const trace::EncoderConfig cfg{TCI_SET(trTeControl, InstMode, kHTM) | TCI_SET(trTeControl, Format, 1), 0, 0, 0};
    REQUIRE(trace::encoder_start(E, cfg));
    bool lost = true;
    size_t from = r.end();
    CHECK(trace::encoder_stop(E, lost));
    CHECK_FALSE(lost);
    CHECK_FALSE(e.enabled());
    CHECK_FALSE(e.inst_tracing());
    size_t off = r.write_at(e, TCI_trTeControl, 0, kEnable | kInstTracing, from);
    size_t flushing = r.control_seen(e, 0, kEmpty | kEnable, off);
    size_t empty = r.control_seen(e, kEmpty, kEnable, flushing);
    CHECK(off < flushing);
    CHECK(flushing < empty);
    CHECK(empty < r.end());

    SUBCASE("InstStallOrOverflow is reported and not cleared by the stop (RW1C)") {
        REQUIRE(trace::encoder_start(E, cfg));
        CHECK_FALSE(trace::encoder_lost(E));
        e.set_stall_or_overflow();
        CHECK(trace::encoder_lost(E));
        CHECK(trace::encoder_stop(E, lost));
        CHECK(lost);
        CHECK(trace::encoder_lost(E));
        // Enabling clears it ("Clears to 0 ... when the trace is enabled").
        REQUIRE(trace::encoder_start(E, cfg));
        CHECK_FALSE(trace::encoder_lost(E));
    }
    SUBCASE("times out when Empty never comes") {
        REQUIRE(trace::encoder_start(E, cfg));
        e.timing.empty_reads = kNever;
        CHECK_FALSE(trace::encoder_stop(E, lost));
        CHECK_FALSE(e.enabled());
    }
}

TEST_CASE("driver: funnels: inputs on, timestamp source at the top, forwarded below") {
    Rig r;
    Funnel &top = r.bus.add_funnel(F);
    Funnel &leaf = r.bus.add_funnel(F + 0x1000);
    top.write(TCI_trControl, kActive);
    top.write(TCI_trFunnelDisInput, 0xffff); // left over from an earlier owner
    REQUIRE(trace::funnel_start(F, true));
    REQUIRE(trace::funnel_start(F + 0x1000, false));
    CHECK(top.enabled());
    CHECK(leaf.enabled());
    CHECK(top.dis_input() == 0);
    uint32_t t = top.read(TCI_trTsControl), l = leaf.read(TCI_trTsControl);
    CHECK(TCI_GET(t, trTsControl, Mode) == TCI_TSMODE_INTERNAL);
    CHECK((t & TCI_BIT(trTsControl, Count)) != 0);
    CHECK(top.timestamp().counter_resets == 1);
    CHECK(TCI_GET(l, trTsControl, Mode) == TCI_TSMODE_SHARED);
    CHECK(leaf.timestamp().counter_resets == 0);
    // Enable is the last write.
    size_t en = r.write_at(top, TCI_trControl, kEnable);
    CHECK(en == r.bus.find([&](const Access &a) { return a.kind == Access::Write && a.comp == &top; },
                           r.write_at(top, TCI_trTsControl, 0) + 1));

    SUBCASE("flush waits for Empty; a funnel that never empties times out") {
        top.timing.empty_reads = 3;
        CHECK(trace::disable_and_flush(F));
        CHECK_FALSE(top.enabled());
        leaf.timing.empty_reads = kNever;
        CHECK_FALSE(trace::disable_and_flush(F + 0x1000));
    }
}

TEST_CASE("driver: RAM sink discovery (trRamImpl, trRamMode, Start/Limit ranges)") {
    Rig r;
    RamSinkSpec spec;
    trace::SinkCaps c;
    SUBCASE("SRAM and SMEM") {
        spec.sram_bytes = 0x4000;
        spec.smem_addr_bits = 34;
        r.bus.add_sink(S, spec);
        REQUIRE(trace::discover_sink(S, c));
        CHECK(c.sram);
        CHECK(c.smem);
        CHECK(c.sram_limit == 0x3ffc);
        CHECK(c.smem_mask == (1ull << 34) - 1);
    }
    SUBCASE("SRAM only, fixed size") {
        spec.has_smem = false;
        spec.sram_limit_writable = false;
        r.bus.add_sink(S, spec);
        REQUIRE(trace::discover_sink(S, c));
        CHECK(c.sram);
        CHECK_FALSE(c.smem);
        CHECK(c.sram_limit == spec.sram_bytes - 4);
    }
    SUBCASE("SMEM only, 64-bit addresses") {
        spec.has_sram = false;
        spec.smem_addr_bits = 64;
        r.bus.add_sink(S, spec);
        REQUIRE(trace::discover_sink(S, c));
        CHECK_FALSE(c.sram);
        CHECK(c.smem);
        CHECK(c.smem_mask == ~0ull);
    }
    SUBCASE("SMEM with trRamStart aligned to 4 KiB (Start trimmed: \"aligned on a particular 2^N boundary\")") {
        spec.smem_start_align = 0x1000;
        spec.smem_addr_bits = 32;
        r.bus.add_sink(S, spec);
        REQUIRE(trace::discover_sink(S, c));
        CHECK(c.smem_mask == 0xffffffffull);
    }
    SUBCASE("Active never reads back") {
        spec.timing.active_reads = kNever;
        r.bus.add_sink(S, spec);
        CHECK_FALSE(trace::discover_sink(S, c));
    }
}

TEST_CASE("driver: RAM sink start: mode, then Start/Limit/WP, then Enable") {
    Rig r;
    RamSinkSpec spec;
    spec.smem_addr_bits = 32;
    RamSink &s = r.bus.add_sink(S, spec);
    s.write(TCI_trControl, kActive);
    s.write(TCI_trRamWPLow, 0x1); // a stale Wrap bit
    const size_t from = r.end();
    // "trRamMode should be set first", addresses and WP before Enable.
    auto check_order = [&] {
        size_t released = r.control_seen(s, kActive, 0, r.write_at(s, TCI_trControl, 0, ~0u, from));
        size_t mode = r.write_at(s, TCI_trRamControl, kActive, kEnable, released);
        size_t en = r.write_at(s, TCI_trRamControl, kEnable, 0, released);
        REQUIRE(en < r.end());
        for (unsigned reg : {TCI_trRamStartLow, TCI_trRamLimitLow, TCI_trRamWPLow}) {
            size_t w = r.write_at(s, reg, 0, 0, released);
            CHECK(mode < w);
            CHECK(w < en);
        }
        CHECK(s.writes_while_enabled == 0);
    };
    SUBCASE("SMEM, stop on wrap") {
        REQUIRE(trace::sink_start(S, {true, true, 0x90000000, 0x9000fffc}));
        check_order();
        CHECK(s.enabled());
        CHECK(s.smem_mode());
        CHECK(s.stop_on_wrap());
        CHECK(s.start() == 0x90000000);
        CHECK(s.limit() == 0x9000fffc);
        CHECK(s.wp() == 0x90000000);
        CHECK_FALSE(s.wrap());
    }
    SUBCASE("SRAM") {
        REQUIRE(trace::sink_start(S, {false, false, 0, 0xfffc}));
        check_order();
        CHECK(s.enabled());
        CHECK_FALSE(s.smem_mode());
        CHECK(s.wp() == 0);
        CHECK_FALSE(s.wrap());
    }
    SUBCASE("an address the sink cannot hold: not enabled") {
        CHECK_FALSE(trace::sink_start(S, {true, false, 0x190000000, 0x19000fffc}));
        CHECK_FALSE(s.enabled());
    }
}

TEST_CASE("driver: RAM sink write pointer and SRAM reads through trRamRP/trRamData") {
    Rig r;
    RamSinkSpec spec;
    spec.sram_bytes = 64;
    RamSink &s = r.bus.add_sink(S, spec);
    REQUIRE(trace::sink_start(S, {false, false, 0, 60}));
    bool wrapped = true;
    s.emit({1, 2, 3});
    CHECK(trace::sink_write_pointer(S, wrapped) == 12);
    CHECK_FALSE(wrapped);
    s.emit(std::vector<uint32_t>(14, 9));
    CHECK(trace::sink_write_pointer(S, wrapped) == 4);
    CHECK(wrapped);
    REQUIRE(trace::disable_and_flush(S));
    uint32_t w[4];
    trace::sram_read(S, 56, w, 4); // reads wrap from Limit to Start
    CHECK(w[0] == 9);
    CHECK(w[1] == 9);
    CHECK(w[2] == 9);
    CHECK(w[3] == 2);
}
