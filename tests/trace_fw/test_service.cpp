// SPDX-License-Identifier: BSD-2-Clause
// The SBI trace service (firmware/trace/service.cpp) on fake components:
// capabilities from discovery, every error it returns, the order of writes
// when tracing starts and stops, HSM hooks, status, SRAM reads, the
// boot-time trace and its header, and the PMP regions.
#include "rig.hpp"
#include <algorithm>
#include <cstring>

using namespace tfw;
using namespace tci_fake;
namespace cfg = trace::cfg;
namespace caps = trace::caps;
namespace sinkflag = trace::sinkflag;

namespace {

constexpr uint64_t kBuf = 0x90000000, kBufSize = 0x10000;

// A rig with `harts` encoders through one funnel, initialised.
struct Service : Rig {
    explicit Service(unsigned harts = 4, EncoderSpec es = {}, RamSinkSpec ss = {}, bool allow_mmode = false,
                     FunnelSpec fs = {})
        : Rig(flat(harts), es, fs, ss) {
        REQUIRE(init(allow_mmode));
    }
};

unsigned long caps_of(unsigned long hart) {
    unsigned long v = ~0ul;
    REQUIRE(trace::get_caps(hart, v) == Error::Success);
    return v;
}

trace::Status status() {
    trace::Status s;
    REQUIRE(trace::get_status(s) == Error::Success);
    return s;
}

// HTM of S-mode on `harts` into the SRAM.
void trace_sram(trace::HartMask harts) {
    REQUIRE(trace::configure(harts, kCfg) == Error::Success);
    REQUIRE(trace::set_sink(0, 0, 0) == Error::Success);
    REQUIRE(trace::start(harts) == Error::Success);
}

// Index of the first write from `from` that turns Enable on in `c`'s tr??Control.
size_t enable_at(const Rig &r, const Component &c, size_t from = 0) {
    return r.write_at(c, TCI_trControl, kActive | kEnable, 0, from);
}
size_t disable_at(const Rig &r, const Component &c, size_t from = 0) {
    return r.write_at(c, TCI_trControl, kActive, kEnable, from);
}

} // namespace

// ---- discovery and capabilities ---------------------------------------------

TEST_CASE("service: sparse hart IDs beyond 64 (issue 29)") {
    // Four encoders in slots 0..3 for harts 0, 64, 100 and 4095.
    trace::Topology t = Rig::flat(4);
    const unsigned long ids[] = {0, 64, 100, 4095};
    for (unsigned h = 0; h < 4; h++) t.encoder[h].hartid = ids[h];
    Rig r(t, {}, {}, {});
    REQUIRE(r.init());
    CHECK(trace::slot(100) == 2);
    CHECK(trace::slot(1) == trace::kNoSlot);
    // Caps by hart ID: SrcBits what hart 4095 needs.
    CHECK((caps_of(4095) >> caps::SRC_BITS_SHIFT & 0xf) == 12);
    CHECK(caps_of(100) != 0);
    CHECK(caps_of(1) == 0);
    trace_sram(0b1110); // harts 64, 100, 4095
    for (unsigned h = 1; h < 4; h++) {
        CAPTURE(h);
        CHECK(r.enc[h]->inst_tracing());
        CHECK(TCI_GET(r.enc[h]->inst_features(), trTeInstFeatures, SrcID) == ids[h]);
        CHECK(TCI_GET(r.enc[h]->inst_features(), trTeInstFeatures, SrcBits) == 12);
    }
    CHECK_FALSE(r.enc[0]->inst_tracing());
    // Status words by hart ID from hart_base.
    trace::Status st;
    REQUIRE(trace::get_status(st, 0) == Error::Success);
    CHECK(st.harts == 0);
    REQUIRE(trace::get_status(st, 64) == Error::Success);
    CHECK(st.harts == ((1ull << 0) | (1ull << 36)));
    REQUIRE(trace::get_status(st, 4032) == Error::Success);
    CHECK(st.harts == 1ull << 63);
    REQUIRE(trace::get_status(st, 100) == Error::Success);
    CHECK(st.harts == 1);
    // The HSM hooks by hart ID: hart 100 stops (its encoder is flushed and
    // off) and starts again; hart 1 has none.
    trace::hart_stop(100);
    CHECK_FALSE(r.enc[2]->inst_tracing());
    CHECK(r.enc[3]->inst_tracing());
    trace::hart_start(100);
    CHECK(r.enc[2]->inst_tracing());
    trace::hart_stop(1);
    trace::hart_start(1);
    REQUIRE(trace::stop(0b1110) == Error::Success);
    REQUIRE(trace::get_status(st, 64) == Error::Success);
    CHECK(st.harts == 0);
}

TEST_CASE("service: capabilities come from WARL discovery") {
    SUBCASE("a full encoder") {
        Service s(4);
        unsigned long c = caps_of(0);
        CHECK(c == (caps::BTM | caps::HTM | cfg::TIMESTAMP | cfg::IMPLICIT_RETURN | cfg::REPEATED_HISTORY |
                    cfg::ALL_JUMPS | cfg::SEQUENTIAL_JUMP | cfg::EXTEND_ADDR_MSB | cfg::CONTEXT |
                    0xeul << caps::SYNC_MODES_SHIFT | cfg::PRIV_U | cfg::PRIV_S | cfg::PRIV_VU | cfg::PRIV_VS |
                    3ul << cfg::IRET_MODE_SHIFT | caps::SINK_SRAM | caps::SINK_SMEM |
                    caps::SINK_STOP_ON_WRAP | 2ul << caps::SRC_BITS_SHIFT));
        for (unsigned h = 1; h < 4; h++) CHECK(caps_of(h) == c);
        CHECK(caps_of(4) == 0); // no encoder
        CHECK(trace::available());
    }
    SUBCASE("a minimal BTM encoder, sync by messages, an SRAM-only sink") {
        EncoderSpec es;
        es.inst_modes = 1u << kBTM;
        es.features = TCI_trTeInstFeatures_EnAllJumps_MASK;
        es.sync_modes = 1u << TCI_SYNCMODE_MESSAGES;
        es.context = false;
        es.ts.modes = 0;
        es.priv_choices = 1u << TCI_PRIV_S | 1u << TCI_PRIV_M;
        RamSinkSpec ss;
        ss.has_smem = false;
        Service s(1, es, ss);
        CHECK(caps_of(0) == (caps::BTM | cfg::ALL_JUMPS | 1ul << (caps::SYNC_MODES_SHIFT + 1) | cfg::PRIV_S |
                             caps::SINK_SRAM | caps::SINK_STOP_ON_WRAP | 1ul << caps::SRC_BITS_SHIFT));
    }
    SUBCASE("18 harts need 5 source bits; an encoder with 4 is left out") {
        Rig r(Rig::tree(18, 8));
        r.enc[7]->spec.src_bits_max = 4;
        REQUIRE(r.init());
        CHECK((caps_of(0) >> caps::SRC_BITS_SHIFT & 0xf) == 5);
        CHECK(caps_of(7) == 0);
        CHECK(trace::configure(1ul << 7, kCfg) == Error::NotSupported);
    }
}

TEST_CASE("service: Impl rejection") {
    SUBCASE("an encoder of another version, type or protocol is not used") {
        Rig r(Rig::flat(4));
        r.enc[1]->impl.ver_major = 2;
        r.enc[2]->impl.comp_type = TCI_COMPTYPE_FUNNEL;
        r.enc[3]->impl.protocol_major = 2;
        REQUIRE(r.init());
        CHECK(caps_of(0) != 0);
        for (unsigned h = 1; h < 4; h++) {
            CHECK(caps_of(h) == 0);
            CHECK(trace::configure(1ul << h, kCfg) == Error::NotSupported);
        }
        // Rejected encoders are never enabled.
        trace_sram(1);
        for (unsigned h = 1; h < 4; h++) CHECK(enable_at(r, *r.enc[h]) == r.end());
    }
    SUBCASE("no usable encoder: no service") {
        Rig r(Rig::flat(2));
        r.enc[0]->impl.ver_major = 0;
        r.enc[1]->impl.ver_major = 0;
        CHECK_FALSE(r.init());
        CHECK_FALSE(trace::available());
    }
    SUBCASE("a funnel of version 0 or of another type: no service") {
        Rig r(Rig::flat(2));
        r.funnel[0]->impl.ver_major = 0;
        CHECK_FALSE(r.init());
        r.funnel[0]->impl.ver_major = 1;
        r.funnel[0]->impl.comp_type = TCI_COMPTYPE_RAMSINK;
        CHECK_FALSE(r.init());
    }
    SUBCASE("a sink of version 2, of another type, or with neither SRAM nor SMEM: no service") {
        Rig r(Rig::flat(2));
        r.sink->impl.ver_major = 2;
        CHECK_FALSE(r.init());
        r.sink->impl.ver_major = 1;
        r.sink->impl.comp_type = TCI_COMPTYPE_PIBSINK;
        CHECK_FALSE(r.init());
        r.sink->impl.comp_type = TCI_COMPTYPE_RAMSINK;
        r.sink->spec.has_sram = r.sink->spec.has_smem = false;
        CHECK_FALSE(r.init());
        CHECK_FALSE(trace::available());
    }
    SUBCASE("an encoder whose Active never reads back is not used") {
        Rig r(Rig::flat(2));
        r.enc[1]->timing.active_reads = kNever;
        REQUIRE(r.init());
        CHECK(caps_of(1) == 0);
    }
}

TEST_CASE("service: components owned by S-mode: reset, the funnels passing through") {
    Rig r(Rig::tree(18, 8));
    CHECK_FALSE(r.init(false, true));
    CHECK_FALSE(trace::available());
    std::vector<const Component *> reset_only = {r.sink};
    for (unsigned h = 0; h < 18; h++) reset_only.push_back(r.enc[h]);
    for (const Component *c : reset_only) {
        auto w = r.bus.writes(*c);
        REQUIRE(w.size() == 2);
        CHECK(w[0].offset == TCI_trControl);
        CHECK(w[0].value == 0);
        CHECK(w[1].offset == TCI_trControl);
        CHECK(w[1].value == kActive);
        CHECK_FALSE(c->enabled());
    }
    // A driver that knows only encoders and sinks (Linux's rvtrace) gets the
    // trace of every hart: each funnel is enabled with every input, from
    // the sink outwards (TCI 1.0 "Enabling and Disabling").
    size_t top = r.write_at(*r.funnel[0], TCI_trFunnelControl, kActive | kEnable);
    REQUIRE(top < r.end());
    for (auto *f : r.funnel) {
        CHECK(f->active());
        CHECK(f->enabled());
        CHECK(f->dis_input() == 0);
        CHECK(r.write_at(*f, TCI_trFunnelControl, kActive | kEnable) >= top);
    }
    trace::Region reg[2];
    CHECK(trace::mmode_regions(reg, 2) == 0);
    // Nothing else is the firmware's to do: no hook touches them again.
    size_t before = r.end();
    trace::hart_stop(1);
    trace::hart_start(1);
    trace::system_reset();
    CHECK(r.end() == before);
}

TEST_CASE("service: S-mode owner: M-mode kept out of the trace where the encoder can (trTeVendorControl)") {
    tci_fake::EncoderSpec es;
    es.no_mmode = true;
    es.impl.vendor = TCI_VENDOR_QEMU;
    SUBCASE("the project QEMU's encoders: NoMmode set on each") {
        Rig r(Rig::flat(4), es);
        CHECK_FALSE(r.init(false, true));
        CHECK(trace::smode_encoders_without_mmode() == 4);
        for (unsigned h = 0; h < 4; h++) {
            CHECK(r.enc[h]->no_mmode());
            CHECK(r.write_at(*r.enc[h], TCI_trTeVendorControl, TCI_BIT(trTeVendorControl, NoMmode)) < r.end());
            CHECK_FALSE(r.enc[h]->enabled());
        }
        // S-mode's own reset keeps it (the fake, as the model, clears it
        // only at machine reset).
        REQUIRE(trace::reset(kEncoderBase));
        CHECK(r.enc[0]->no_mmode());
    }
    SUBCASE("the platform lets traces include M-mode: not set") {
        Rig r(Rig::flat(2), es);
        CHECK_FALSE(r.init(true, true));
        CHECK(trace::smode_encoders_without_mmode() == 0);
        CHECK_FALSE(r.enc[0]->no_mmode());
    }
    SUBCASE("another vendor's encoder: its vendor registers are not written") {
        es.impl.vendor = 0x42;
        Rig r(Rig::flat(2), es);
        CHECK_FALSE(r.init(false, true));
        CHECK(trace::smode_encoders_without_mmode() == 0);
        CHECK(r.bus.writes(*r.enc[0], TCI_trTeVendorControl).empty());
    }
    SUBCASE("an encoder without the control: counted out") {
        es.no_mmode = false;
        Rig r(Rig::flat(2), es);
        CHECK_FALSE(r.init(false, true));
        CHECK(trace::smode_encoders_without_mmode() == 0);
    }
}

TEST_CASE("service: S-mode owner: a funnel that is not a funnel is left disabled") {
    tci_fake::FunnelSpec fs;
    fs.impl.comp_type = TCI_COMPTYPE_RAMSINK;
    Rig r(Rig::flat(2), {}, fs);
    CHECK_FALSE(r.init(false, true));
    CHECK_FALSE(r.funnel[0]->enabled());
}

// ---- configure ----------------------------------------------------------------

TEST_CASE("service: configure: INVALID_PARAM") {
    Service s(2);
    for (unsigned bit = 24; bit < 32; bit++)
        CHECK(trace::configure(1, kCfg | 1u << bit) == Error::InvalidParam);
    // Bit 22 is E-Trace, which the fake encoder (N-Trace 1.0 whatever
    // trTeFormat says) does not speak, and bit 23 its data trace.
    CHECK(trace::configure(1, kCfg | cfg::ETRACE) == Error::NotSupported);
    CHECK(trace::configure(1, kCfg | cfg::DATA) == Error::NotSupported);
    CHECK(trace::configure(1, kCfg | cfg::ETRACE | cfg::DATA) == Error::NotSupported);
    for (uint32_t mode : {0u, 1u, 2u, 4u, 5u, 7u})
        CHECK(trace::configure(1, mode | cfg::PRIV_S) == Error::InvalidParam);
    CHECK(trace::configure(1, kHTM) == Error::InvalidParam); // no privilege
    for (uint32_t m = 1; m < 4; m++)
        CHECK(trace::configure(1, kCfg | m << cfg::IRET_MODE_SHIFT) == Error::InvalidParam);
    CHECK(trace::configure(1, kCfg | 5u << cfg::SYNC_MAX_SHIFT) == Error::InvalidParam);
    // None of them configured anything.
    REQUIRE(trace::set_sink(0, 0, 0) == Error::Success);
    CHECK(trace::start(1) == Error::InvalidState);
    CHECK(trace::configure(0, kCfg) == Error::Success); // an empty mask
    CHECK(trace::configure(3, kCfg | cfg::IMPLICIT_RETURN | 2u << cfg::SYNC_MODE_SHIFT | 5u << cfg::SYNC_MAX_SHIFT) ==
          Error::Success);
}

TEST_CASE("service: configure: NOT_SUPPORTED for what the encoder lacks") {
    EncoderSpec es;
    es.inst_modes = 1u << kBTM;
    es.features = TCI_trTeInstFeatures_EnImplicitReturn_MASK;
    es.sync_modes = 1u << TCI_SYNCMODE_HALFWORDS;
    es.context = false;
    es.ts.modes = 0;
    Service s(2, es);
    const uint32_t ok = kBTM | cfg::PRIV_S;
    CHECK(trace::configure(1, ok) == Error::Success);
    CHECK(trace::configure(1, kHTM | cfg::PRIV_S) == Error::NotSupported);
    for (uint32_t f : {cfg::TIMESTAMP, cfg::REPEATED_HISTORY, cfg::ALL_JUMPS, cfg::SEQUENTIAL_JUMP,
                       cfg::EXTEND_ADDR_MSB, cfg::CONTEXT})
        CHECK(trace::configure(1, ok | f) == Error::NotSupported);
    CHECK(trace::configure(1, ok | cfg::IMPLICIT_RETURN) == Error::Success);
    // trTeInstImplicitReturnMode holds only 0 here: modes 1..3 are refused.
    CHECK((caps_of(0) & 3u << cfg::IRET_MODE_SHIFT) == 0);
    CHECK(trace::configure(1, ok | cfg::IMPLICIT_RETURN | 1u << cfg::IRET_MODE_SHIFT) == Error::NotSupported);
    CHECK(trace::configure(1, ok | 1u << cfg::SYNC_MODE_SHIFT) == Error::NotSupported);
    CHECK(trace::configure(1, ok | 2u << cfg::SYNC_MODE_SHIFT) == Error::NotSupported);
    CHECK(trace::configure(1, ok | 3u << cfg::SYNC_MODE_SHIFT | 7u << cfg::SYNC_MAX_SHIFT) == Error::Success);
    CHECK(trace::configure(1ul << 5, ok) == Error::NotSupported); // no encoder
}

TEST_CASE("service: configure: DENIED unless M-mode can be filtered out or the platform opted in") {
    SUBCASE("an encoder without filters") {
        EncoderSpec es;
        es.filters = 0;
        Service s(1, es);
        CHECK((caps_of(0) & cfg::PRIV_MASK) == 0);
        CHECK(trace::configure(1, kCfg) == Error::Denied);
        CHECK(trace::configure(1, kCfg | cfg::PRIV_U) == Error::Denied);
    }
    SUBCASE("a filter that cannot match VS") {
        EncoderSpec es;
        es.priv_choices = 1u << TCI_PRIV_U | 1u << TCI_PRIV_S | 1u << TCI_PRIV_VU;
        Service s(1, es);
        CHECK(trace::configure(1, kHTM | cfg::PRIV_VS) == Error::Denied);
        CHECK(trace::configure(1, kHTM | cfg::PRIV_S | cfg::PRIV_VS) == Error::Denied);
        CHECK(trace::configure(1, kHTM | cfg::PRIV_S | cfg::PRIV_U | cfg::PRIV_VU) == Error::Success);
    }
    SUBCASE("with the platform's opt-in: success, and no filter is programmed") {
        EncoderSpec es;
        es.filters = 0;
        Service s(1, es, {}, true);
        CHECK((caps_of(0) & cfg::PRIV_MASK) == cfg::PRIV_MASK);
        REQUIRE(trace::configure(1, kCfg) == Error::Success);
        REQUIRE(trace::set_sink(0, 0, 0) == Error::Success);
        size_t from = s.end();
        REQUIRE(trace::start(1) == Error::Success);
        CHECK(s.enc[0]->enabled());
        CHECK(s.enc[0]->inst_filters() == 0);
        CHECK(s.write_at(*s.enc[0], TCI_trTeFilter0Control, 0, 0, from) == s.end());
        CHECK(s.write_at(*s.enc[0], TCI_trTeFilter0MatchInst, 0, 0, from) == s.end());
    }
    SUBCASE("with the opt-in, an encoder that can filter still filters") {
        Service s(1, {}, {}, true);
        REQUIRE(trace::configure(1, kHTM | cfg::PRIV_U | cfg::PRIV_S) == Error::Success);
        REQUIRE(trace::set_sink(0, 0, 0) == Error::Success);
        REQUIRE(trace::start(1) == Error::Success);
        CHECK(s.enc[0]->inst_filters() == 1);
        CHECK(s.enc[0]->read(TCI_trTeFilter0MatchInst) == (1u << TCI_PRIV_U | 1u << TCI_PRIV_S));
    }
    SUBCASE("a filter that matches U but not S: U alone is traced through the filter") {
        EncoderSpec es;
        es.priv_choices = 1u << TCI_PRIV_U | 1u << TCI_PRIV_M;
        Service s(1, es);
        CHECK((caps_of(0) & cfg::PRIV_MASK) == cfg::PRIV_U);
        CHECK(trace::configure(1, kCfg) == Error::Denied);
        REQUIRE(trace::configure(1, kHTM | cfg::PRIV_U) == Error::Success);
        REQUIRE(trace::set_sink(0, 0, 0) == Error::Success);
        REQUIRE(trace::start(1) == Error::Success);
        // Without the filter M-mode would be in the trace, which the
        // platform did not allow.
        CHECK(s.enc[0]->inst_filters() == 1);
        CHECK(s.enc[0]->read(TCI_trTeFilter0MatchInst) == 1u << TCI_PRIV_U);
    }
}

TEST_CASE("service: configure is all or nothing across the hart mask") {
    Rig r(Rig::flat(4));
    r.enc[3]->spec.inst_modes = 1u << kBTM;
    REQUIRE(r.init());
    REQUIRE(trace::set_sink(0, 0, 0) == Error::Success);
    CHECK(trace::configure(0xf, kCfg) == Error::NotSupported);
    CHECK(trace::start(1) == Error::InvalidState);
    CHECK(trace::configure(0x7, kCfg) == Error::Success);
    REQUIRE(trace::configure(0x8, kBTM | cfg::PRIV_S) == Error::Success);
    // A started hart in the mask: nothing changes for the others either.
    REQUIRE(trace::start(1) == Error::Success);
    CHECK(trace::configure(0x3, kBTM | cfg::PRIV_S) == Error::AlreadyStarted);
    REQUIRE(trace::start(2) == Error::Success);
    CHECK(TCI_GET(r.enc[1]->read(TCI_trTeControl), trTeControl, InstMode) == kHTM);
    CHECK(trace::stop(3) == Error::Success);
}

TEST_CASE("service: the configuration reaches the encoder") {
    Service s(2);
    const uint32_t config = kBTM | cfg::PRIV_S | cfg::PRIV_U | cfg::TIMESTAMP | cfg::IMPLICIT_RETURN |
                            cfg::ALL_JUMPS | cfg::CONTEXT | 2u << cfg::SYNC_MODE_SHIFT | 6u << cfg::SYNC_MAX_SHIFT;
    REQUIRE(trace::configure(2, config) == Error::Success);
    REQUIRE(trace::set_sink(0, 0, 0) == Error::Success);
    REQUIRE(trace::start(2) == Error::Success);
    Encoder &e = *s.enc[1];
    uint32_t ctl = e.read(TCI_trTeControl);
    CHECK(TCI_GET(ctl, trTeControl, InstMode) == kBTM);
    CHECK(TCI_GET(ctl, trTeControl, Format) == TCI_FORMAT_NTRACE);
    CHECK(TCI_GET(ctl, trTeControl, InstSyncMode) == 2);
    CHECK(TCI_GET(ctl, trTeControl, InstSyncMax) == 6);
    CHECK((ctl & TCI_BIT(trTeControl, Context)) != 0);
    uint32_t f = e.inst_features();
    CHECK(f == (TCI_trTeInstFeatures_EnImplicitReturn_MASK | TCI_trTeInstFeatures_EnAllJumps_MASK |
                TCI_SET(trTeInstFeatures, SrcID, 1) | TCI_SET(trTeInstFeatures, SrcBits, 1)));
    uint32_t ts = e.read(TCI_trTsControl);
    CHECK(TCI_GET(ts, trTsControl, Mode) == TCI_TSMODE_SHARED);
    CHECK((ts & TCI_BIT(trTsControl, Enable)) != 0);
    CHECK(e.read(TCI_trTeFilter0MatchInst) == (1u << TCI_PRIV_U | 1u << TCI_PRIV_S));
}

// ---- set_sink -----------------------------------------------------------------

TEST_CASE("service: set_sink errors") {
    RamSinkSpec ss;
    ss.smem_addr_bits = 32;
    Service s(1, {}, ss);
    CHECK(trace::set_sink(sinkflag::SMEM, kBuf, kBufSize) == Error::Success);
    for (uint32_t bit = 2; bit < 32; bit++)
        CHECK(trace::set_sink(sinkflag::SMEM | 1u << bit, kBuf, kBufSize) == Error::InvalidParam);
    CHECK(trace::set_sink(sinkflag::SMEM, kBuf + 2, kBufSize) == Error::InvalidParam);
    CHECK(trace::set_sink(sinkflag::SMEM, kBuf, kBufSize - 2) == Error::InvalidParam);
    CHECK(trace::set_sink(sinkflag::SMEM, kBuf, 0) == Error::InvalidParam);
    CHECK(trace::set_sink(sinkflag::SMEM, 0x10000000, kBufSize) == Error::InvalidAddress); // not S-mode RAM
    CHECK(trace::set_sink(sinkflag::SMEM, ram_base + ram_size - 0x1000, 0x2000) == Error::InvalidAddress);
    CHECK(trace::set_sink(sinkflag::SMEM, ~0ull - 0xfff, 0x2000) == Error::InvalidAddress); // wraps
    CHECK(trace::set_sink(0, kBuf, 0) == Error::InvalidParam);
    CHECK(trace::set_sink(0, 0, 4096) == Error::InvalidParam);
    CHECK(trace::set_sink(sinkflag::STOP_ON_WRAP, 0, 0) == Error::Success);
    SUBCASE("beyond the sink's address bits") {
        uint64_t saved = ram_size;
        ram_size = 0x100000000; // RAM up to 0x1_8000_0000
        CHECK(trace::set_sink(sinkflag::SMEM, 0xfffff000, 0x1000) == Error::Success);
        CHECK(trace::set_sink(sinkflag::SMEM, 0xfffff000, 0x2000) == Error::InvalidAddress);
        CHECK(trace::set_sink(sinkflag::SMEM, 0x100000000, 0x1000) == Error::InvalidAddress);
        ram_size = saved;
    }
    SUBCASE("while the sink runs") {
        REQUIRE(trace::configure(1, kCfg) == Error::Success);
        REQUIRE(trace::start(1) == Error::Success);
        CHECK(trace::set_sink(0, 0, 0) == Error::AlreadyStarted);
        CHECK(trace::set_sink(sinkflag::SMEM, kBuf, kBufSize) == Error::AlreadyStarted);
        REQUIRE(trace::stop(1) == Error::Success);
        CHECK(trace::set_sink(0, 0, 0) == Error::Success);
    }
}

TEST_CASE("service: set_sink: NOT_SUPPORTED for a sink mode the sink lacks") {
    SUBCASE("SRAM only") {
        RamSinkSpec ss;
        ss.has_smem = false;
        Service s(1, {}, ss);
        CHECK(trace::set_sink(sinkflag::SMEM, kBuf, kBufSize) == Error::NotSupported);
        CHECK(trace::set_sink(0, 0, 0) == Error::Success);
    }
    SUBCASE("SMEM only") {
        RamSinkSpec ss;
        ss.has_sram = false;
        Service s(1, {}, ss);
        CHECK(trace::set_sink(0, 0, 0) == Error::NotSupported);
        CHECK(trace::set_sink(sinkflag::SMEM, kBuf, kBufSize) == Error::Success);
    }
    SUBCASE("no StopOnWrap") {
        RamSinkSpec ss;
        ss.stop_on_wrap = false;
        Service s(1, {}, ss);
        CHECK((caps_of(0) & caps::SINK_STOP_ON_WRAP) == 0);
        CHECK(trace::set_sink(sinkflag::STOP_ON_WRAP, 0, 0) == Error::NotSupported);
        CHECK(trace::set_sink(sinkflag::SMEM | sinkflag::STOP_ON_WRAP, kBuf, kBufSize) == Error::NotSupported);
        CHECK(trace::set_sink(0, 0, 0) == Error::Success);
    }
}

TEST_CASE("service: a single encoder without a SRC field (trTeSrcBits tied to 0)") {
    EncoderSpec es;
    es.src_bits_max = 0;
    // Alone it is used and the stream has no SRC field (with other
    // encoders it is left out: "18 harts need 5 source bits" above).
    Service s(1, es);
    CHECK((caps_of(0) & caps::BTM) != 0);
    CHECK((caps_of(0) >> caps::SRC_BITS_SHIFT & 0xf) == 0);
    CHECK(trace::configure(1, kCfg) == Error::Success);
}

TEST_CASE("service: ImplicitReturnMode up to the largest the encoder holds") {
    Service s(1);
    CHECK((caps_of(0) >> cfg::IRET_MODE_SHIFT & 3) == 3);
    for (uint32_t m = 0; m <= 3; m++)
        CHECK(trace::configure(1, kCfg | cfg::IMPLICIT_RETURN | m << cfg::IRET_MODE_SHIFT) == Error::Success);
}

// ---- start and stop -----------------------------------------------------------

TEST_CASE("service: start/stop: INVALID_STATE, ALREADY_STARTED, ALREADY_STOPPED") {
    Service s(2);
    CHECK(trace::start(1) == Error::InvalidState); // no sink
    REQUIRE(trace::configure(1, kCfg) == Error::Success);
    CHECK(trace::start(1) == Error::InvalidState);
    REQUIRE(trace::set_sink(0, 0, 0) == Error::Success);
    CHECK(trace::start(2) == Error::InvalidState); // hart 1 not configured
    CHECK(trace::start(3) == Error::InvalidState); // all or nothing
    CHECK_FALSE(s.sink->enabled());
    CHECK(trace::start(1ul << 9) == Error::InvalidState); // no encoder
    CHECK(trace::stop(1) == Error::AlreadyStopped);
    REQUIRE(trace::start(1) == Error::Success);
    CHECK(trace::start(1) == Error::AlreadyStarted);
    REQUIRE(trace::configure(2, kCfg) == Error::Success);
    CHECK(trace::start(3) == Error::AlreadyStarted);
    CHECK_FALSE(s.enc[1]->enabled());
    CHECK(trace::configure(1, kCfg) == Error::AlreadyStarted);
    CHECK(trace::stop(2) == Error::AlreadyStopped);
    CHECK(trace::stop(3) == Error::Success); // hart 1 in the mask is left alone
    CHECK(trace::stop(1) == Error::AlreadyStopped);
    CHECK(trace::stop(0) == Error::AlreadyStopped);
}

TEST_CASE("service: start with an empty hart mask starts nothing") {
    Service s(1);
    REQUIRE(trace::configure(1, kCfg) == Error::Success);
    REQUIRE(trace::set_sink(0, 0, 0) == Error::Success);
    CHECK(trace::start(0) == Error::Success);
    CHECK_FALSE(s.sink->enabled());
    CHECK(trace::set_sink(sinkflag::SMEM, kBuf, kBufSize) == Error::Success);
}

TEST_CASE("service: start enables the sink, funnels from the sink outwards, then encoders (Enabling and Disabling)") {
    Rig r(Rig::tree(18, 8));
    REQUIRE(r.init());
    const uint64_t all = (1ul << 18) - 1;
    REQUIRE(trace::configure(all, kCfg) == Error::Success);
    REQUIRE(trace::set_sink(sinkflag::SMEM, kBuf, kBufSize) == Error::Success);
    size_t from = r.end();
    REQUIRE(trace::start(all) == Error::Success);
    size_t sink = enable_at(r, *r.sink, from), top = enable_at(r, *r.funnel[0], from);
    REQUIRE(sink < r.end());
    CHECK(sink < top);
    size_t last_funnel = top;
    for (unsigned l = 1; l < r.funnel.size(); l++) {
        size_t leaf = enable_at(r, *r.funnel[l], from);
        CHECK(top < leaf);
        REQUIRE(leaf < r.end());
        last_funnel = std::max(last_funnel, leaf);
    }
    for (unsigned h = 0; h < 18; h++) {
        size_t en = r.write_at(*r.enc[h], TCI_trTeControl, kEnable, kInstTracing, from);
        size_t tr = r.write_at(*r.enc[h], TCI_trTeControl, kEnable | kInstTracing, 0, from);
        CHECK(last_funnel < en);
        CHECK(en < tr);
        CHECK(r.enc[h]->inst_tracing());
        CHECK(TCI_GET(r.enc[h]->inst_features(), trTeInstFeatures, SrcID) == h);
        CHECK(TCI_GET(r.enc[h]->inst_features(), trTeInstFeatures, SrcBits) == 5);
    }
    // The top-level funnel is the timestamp source; the leaves forward it.
    CHECK(TCI_GET(r.funnel[0]->read(TCI_trTsControl), trTsControl, Mode) == TCI_TSMODE_INTERNAL);
    CHECK(TCI_GET(r.funnel[1]->read(TCI_trTsControl), trTsControl, Mode) == TCI_TSMODE_SHARED);
    CHECK(r.sink->writes_while_enabled == 0);
    CHECK(r.bus.stray == 0);
}

TEST_CASE("service: the last stop disables encoders, funnels (leaves first), then the sink, each after Empty") {
    Rig r(Rig::tree(18, 8));
    for (unsigned h = 0; h < 18; h++) r.enc[h]->timing.empty_reads = 2;
    for (auto *f : r.funnel) f->timing.empty_reads = 3;
    r.sink->timing.empty_reads = 4;
    REQUIRE(r.init());
    const uint64_t all = (1ul << 18) - 1;
    trace_sram(all);

    size_t from = r.end();
    REQUIRE(trace::stop(all & ~1ul) == Error::Success);
    // Harts still tracing: the funnels and the sink keep running.
    CHECK(r.enc[0]->enabled());
    CHECK(r.sink->enabled());
    for (auto *f : r.funnel) CHECK(f->enabled());
    CHECK(disable_at(r, *r.funnel[1], from) == r.end());
    size_t last_enc = from;
    for (unsigned h = 1; h < 18; h++) {
        size_t empty = r.control_seen(*r.enc[h], kEmpty, kEnable, disable_at(r, *r.enc[h], from));
        CHECK(empty < r.end());
        last_enc = std::max(last_enc, empty);
    }
    from = r.end();
    REQUIRE(trace::stop(1) == Error::Success);
    size_t enc0 = r.control_seen(*r.enc[0], kEmpty, kEnable, disable_at(r, *r.enc[0], from));
    size_t top = disable_at(r, *r.funnel[0], from);
    size_t top_empty = r.control_seen(*r.funnel[0], kEmpty, kEnable, top);
    size_t sink = disable_at(r, *r.sink, from);
    CHECK(enc0 < top);
    for (unsigned l = 1; l < r.funnel.size(); l++) {
        size_t d = disable_at(r, *r.funnel[l], from);
        size_t empty = r.control_seen(*r.funnel[l], kEmpty, kEnable, d);
        CHECK(enc0 < d);
        CHECK(empty < top);
    }
    CHECK(top_empty < sink);
    CHECK(r.control_seen(*r.sink, kEmpty, kEnable, sink) < r.end());
    CHECK_FALSE(r.sink->enabled());
    CHECK(status().flags == 0);
}

TEST_CASE("service: TIMEOUT when Empty never comes") {
    SUBCASE("an encoder") {
        Service s(2);
        trace_sram(3);
        s.enc[1]->timing.empty_reads = kNever;
        CHECK(trace::stop(3) == Error::Timeout);
        // The rest still went down, and the harts count as stopped.
        CHECK_FALSE(s.enc[0]->enabled());
        CHECK_FALSE(s.sink->enabled());
        CHECK(status().harts == 0);
        CHECK(trace::stop(3) == Error::AlreadyStopped);
    }
    SUBCASE("the funnel") {
        Service s(2);
        trace_sram(1);
        s.funnel[0]->timing.empty_reads = kNever;
        CHECK(trace::stop(1) == Error::Timeout);
        CHECK_FALSE(s.sink->enabled());
    }
    SUBCASE("the sink") {
        Service s(1);
        trace_sram(1);
        s.sink->timing.empty_reads = kNever;
        CHECK(trace::stop(1) == Error::Timeout);
    }
}

TEST_CASE("service: start fails when the sink does not come out of reset") {
    Service s(1);
    REQUIRE(trace::configure(1, kCfg) == Error::Success);
    REQUIRE(trace::set_sink(0, 0, 0) == Error::Success);
    s.sink->timing.active_reads = kNever;
    CHECK(trace::start(1) == Error::Failed);
    CHECK_FALSE(s.enc[0]->enabled());
    CHECK((status().flags & trace::STATUS_SINK_ENABLED) == 0);
}

// ---- HSM hooks ----------------------------------------------------------------

TEST_CASE("service: a stopped hart starts tracing at hart_start; hart_stop flushes") {
    Service s(2);
    stopped_harts = 2;
    trace_sram(3);
    CHECK(s.enc[0]->inst_tracing());
    CHECK_FALSE(s.enc[1]->enabled());
    CHECK(status().harts == 3); // wanted, though not running yet
    stopped_harts = 0;
    trace::hart_start(1);
    CHECK(s.enc[1]->enabled());
    CHECK(s.enc[1]->inst_tracing());
    trace::hart_start(1); // already running: nothing written
    CHECK(s.write_at(*s.enc[1], TCI_trControl, 0, ~0u, s.write_at(*s.enc[1], TCI_trTeControl, kInstTracing)) ==
          s.end());

    // hart_stop: the encoder is disabled and flushed; funnel and sink run on.
    s.enc[0]->timing.empty_reads = 3;
    size_t from = s.end();
    stopped_harts = 1;
    trace::hart_stop(0);
    CHECK_FALSE(s.enc[0]->enabled());
    CHECK(s.control_seen(*s.enc[0], kEmpty, kEnable, disable_at(s, *s.enc[0], from)) < s.end());
    CHECK(s.funnel[0]->enabled());
    CHECK(s.sink->enabled());
    CHECK(status().harts == 3);
    // Back: traced again (a fresh start of the encoder).
    stopped_harts = 0;
    trace::hart_start(0);
    CHECK(s.enc[0]->inst_tracing());

    // A hart that is HSM-stopped when trace_stop comes: nothing to flush.
    trace::hart_stop(1);
    stopped_harts = 2;
    from = s.end();
    REQUIRE(trace::stop(2) == Error::Success);
    CHECK(s.bus.writes(*s.enc[1]).empty() == false);
    CHECK(s.write_at(*s.enc[1], TCI_trTeControl, 0, 0, from) == s.end());
    CHECK(s.sink->enabled());
    trace::hart_start(1); // no longer wanted: stays off
    CHECK_FALSE(s.enc[1]->enabled());
    REQUIRE(trace::stop(1) == Error::Success);
    CHECK_FALSE(s.sink->enabled());
    // Hooks on harts that do not trace touch nothing.
    from = s.end();
    trace::hart_stop(0);
    trace::hart_start(0);
    trace::hart_stop(7);
    CHECK(s.end() == from);
}

// ---- status -------------------------------------------------------------------

TEST_CASE("service: get_status") {
    Service s(4);
    trace::Status st = status();
    CHECK(st.flags == 0);
    CHECK(st.harts == 0);
    REQUIRE(trace::configure(0x5, kCfg) == Error::Success);
    REQUIRE(trace::set_sink(sinkflag::SMEM, kBuf, kBufSize) == Error::Success);
    REQUIRE(trace::start(0x5) == Error::Success);
    s.sink->emit(std::vector<uint32_t>(10, 0xabababab));
    st = status();
    CHECK(st.flags == (trace::STATUS_SINK_ENABLED | trace::STATUS_SMEM));
    CHECK(st.write_pointer == kBuf + 40);
    CHECK(st.bytes == 40);
    CHECK(st.start == kBuf);
    CHECK(st.limit == kBuf + kBufSize - 4);
    CHECK(st.harts == 0x5);
    CHECK(st.lost_harts == 0);
    CHECK(st.src_bits == 2);

    SUBCASE("lost data while tracing, then at the stop") {
        s.enc[2]->set_stall_or_overflow();
        st = status();
        CHECK(st.lost_harts == 0x4);
        CHECK((st.flags & trace::STATUS_LOST) != 0);
        s.enc[0]->set_stall_or_overflow(); // after the last status, before the stop
        REQUIRE(trace::stop(0x5) == Error::Success);
        st = status();
        CHECK(st.lost_harts == 0x5);
        CHECK(st.flags == (trace::STATUS_LOST | trace::STATUS_SMEM));
        // A new start forgets the loss.
        REQUIRE(trace::start(0x5) == Error::Success);
        CHECK(status().lost_harts == 0);
        REQUIRE(trace::stop(0x5) == Error::Success);
    }
    SUBCASE("lost data of a hart that was HSM-stopped") {
        s.enc[2]->set_stall_or_overflow();
        trace::hart_stop(2);
        REQUIRE(trace::stop(0x5) == Error::Success);
        CHECK(status().lost_harts == 0x4);
    }
    SUBCASE("a wrapped buffer") {
        s.sink->emit(std::vector<uint32_t>(kBufSize / 4, 1));
        REQUIRE(trace::stop(0x5) == Error::Success);
        st = status();
        CHECK(st.flags == (trace::STATUS_WRAPPED | trace::STATUS_SMEM));
        CHECK(st.bytes == kBufSize);
        CHECK(st.write_pointer == kBuf + 40);
    }
}

TEST_CASE("service: get_status: a StopOnWrap sink that filled up is no longer capturing") {
    RamSinkSpec ss;
    ss.sram_bytes = 64;
    Service s(1, {}, ss);
    REQUIRE(trace::configure(1, kCfg) == Error::Success);
    REQUIRE(trace::set_sink(sinkflag::STOP_ON_WRAP, 0, 0) == Error::Success);
    REQUIRE(trace::start(1) == Error::Success);
    CHECK(s.sink->stop_on_wrap());
    s.sink->emit(std::vector<uint32_t>(15, 1));
    CHECK(status().flags == trace::STATUS_SINK_ENABLED);
    s.sink->emit({2, 3});
    trace::Status st = status();
    CHECK(st.flags == trace::STATUS_WRAPPED);
    CHECK(st.bytes == 64);
    CHECK(st.harts == 1);
    REQUIRE(trace::stop(1) == Error::Success);
}

// ---- read_sram ----------------------------------------------------------------

TEST_CASE("service: read_sram: bytes oldest first, offsets, wrap") {
    RamSinkSpec ss;
    ss.sram_bytes = 256;
    Service s(1, {}, ss);
    uint8_t buf[300];
    uint64_t n = 99;
    CHECK(trace::read_sram(0, buf, sizeof buf, n) == Error::InvalidState); // no sink
    CHECK(n == 0);
    trace_sram(1);
    // Trace bytes 0, 1, 2, ...: word i holds bytes 4i..4i+3, first byte in the LSB.
    auto words = [](unsigned first, unsigned count) {
        std::vector<uint32_t> w;
        for (unsigned i = first; i < first + count; i++) {
            uint32_t b = (4 * i) & 0xff;
            w.push_back(b | (b + 1) << 8 | (b + 2) << 16 | (b + 3) << 24);
        }
        return w;
    };
    s.sink->emit(words(0, 10));
    CHECK(trace::read_sram(0, buf, sizeof buf, n) == Error::AlreadyStarted);
    REQUIRE(trace::stop(1) == Error::Success);

    SUBCASE("not wrapped") {
        REQUIRE(trace::read_sram(0, buf, sizeof buf, n) == Error::Success);
        REQUIRE(n == 40);
        for (unsigned i = 0; i < 40; i++) CHECK(buf[i] == i);
        // From odd offsets, in short pieces.
        std::memset(buf, 0xee, sizeof buf);
        REQUIRE(trace::read_sram(3, buf, 6, n) == Error::Success);
        CHECK(n == 6);
        for (unsigned i = 0; i < 6; i++) CHECK(buf[i] == 3 + i);
        CHECK(buf[6] == 0xee);
        REQUIRE(trace::read_sram(37, buf, 10, n) == Error::Success);
        CHECK(n == 3);
        CHECK(buf[0] == 37);
        CHECK(buf[2] == 39);
        REQUIRE(trace::read_sram(40, buf, 10, n) == Error::Success);
        CHECK(n == 0);
        REQUIRE(trace::read_sram(1000, buf, 10, n) == Error::Success);
        CHECK(n == 0);
        REQUIRE(trace::read_sram(0, nullptr, 0, n) == Error::Success);
        CHECK(n == 0);
    }
    SUBCASE("wrapped: the oldest byte is at the write pointer") {
        // Each start begins at trRamStart again: 70 words into 64 leave WP at word 6.
        REQUIRE(trace::start(1) == Error::Success);
        s.sink->emit(words(0, 70));
        REQUIRE(trace::stop(1) == Error::Success);
        REQUIRE(status().flags == trace::STATUS_WRAPPED);
        REQUIRE(trace::read_sram(0, buf, sizeof buf, n) == Error::Success);
        REQUIRE(n == 256);
        // Oldest first: bytes of words 6..69, i.e. trace bytes 24..279 (mod 256).
        for (unsigned i = 0; i < 256; i++) CHECK(buf[i] == ((24 + i) & 0xff));
        REQUIRE(trace::read_sram(230, buf, 20, n) == Error::Success);
        CHECK(n == 20);
        for (unsigned i = 0; i < 20; i++) CHECK(buf[i] == ((24 + 230 + i) & 0xff));
    }
    SUBCASE("an SMEM sink has no SRAM to read") {
        REQUIRE(trace::set_sink(sinkflag::SMEM, kBuf, kBufSize) == Error::Success);
        CHECK(trace::read_sram(0, buf, sizeof buf, n) == Error::InvalidState);
    }
}

// ---- boot-time trace and system reset -----------------------------------------

TEST_CASE("service: boot_trace writes the header; system_reset completes it") {
    // The reserved buffer is host memory here; the sink only moves its pointer.
    static uint8_t mem[2 * trace::kBootHeaderSize + 0x4000] __attribute__((aligned(4096)));
    const uint64_t buffer = reinterpret_cast<uintptr_t>(mem);
    uint64_t saved_base = ram_base, saved_size = ram_size;
    ram_base = buffer;
    ram_size = sizeof mem;
    RamSinkSpec ss;
    ss.smem_addr_bits = 64;
    Service s(4, {}, ss);
    std::memset(mem, 0x5a, sizeof mem);
    stopped_harts = 0xe; // secondaries wait in HSM
    const uint32_t config = kBTM | cfg::PRIV_S;
    REQUIRE(trace::boot_trace({config, buffer, sizeof mem}, 0xf) == Error::Success);
    auto *h = reinterpret_cast<trace::BootHeader *>(mem);
    const uint64_t data = buffer + trace::kBootHeaderSize, limit = buffer + sizeof mem - 4;
    CHECK(h->magic == trace::kBootMagic);
    CHECK(std::memcmp(mem, "TSBITRCE", 8) == 0);
    CHECK(h->version == 1);
    CHECK(h->header_size == trace::kBootHeaderSize);
    CHECK(h->data_start == data);
    CHECK(h->data_limit == limit);
    CHECK(h->write_pointer == data);
    CHECK(h->state == trace::BOOT_TRACING);
    CHECK(h->flags == 0);
    CHECK(h->inst_mode == kBTM);
    CHECK(h->src_bits == 2);
    CHECK(TCI_GET(h->inst_features, trTeInstFeatures, SrcID) == 0);
    CHECK(TCI_GET(h->inst_features, trTeInstFeatures, SrcBits) == 2);
    CHECK(TCI_GET(h->te_control, trTeControl, InstMode) == kBTM);
    CHECK(TCI_GET(h->te_control, trTeControl, Format) == TCI_FORMAT_NTRACE);
    CHECK(h->harts[0] == 0xf);
    CHECK(s.sink->smem_mode());
    CHECK(s.sink->start() == data);
    CHECK(s.sink->limit() == limit);
    CHECK(s.enc[0]->inst_tracing());
    CHECK(s.enc[0]->read(TCI_trTeFilter0MatchInst) == 1u << TCI_PRIV_S);
    CHECK_FALSE(s.enc[1]->enabled());
    stopped_harts = 0;
    for (unsigned long hart = 1; hart < 4; hart++) trace::hart_start(hart);
    for (unsigned hart = 0; hart < 4; hart++) CHECK(s.enc[hart]->inst_tracing());
    s.sink->emit(std::vector<uint32_t>(100, 7));

    SUBCASE("reset after a plain run") {
        size_t from = s.end();
        trace::system_reset();
        // Encoders, then the funnel, then the sink (Enabling and Disabling).
        size_t funnel = disable_at(s, *s.funnel[0], from), sink = disable_at(s, *s.sink, from);
        for (unsigned hart = 0; hart < 4; hart++) CHECK(disable_at(s, *s.enc[hart], from) < funnel);
        CHECK(funnel < sink);
        CHECK(sink < s.end());
        CHECK(h->state == trace::BOOT_STOPPED);
        CHECK(h->write_pointer == data + 400);
        CHECK(h->flags == 0);
        CHECK(h->magic == trace::kBootMagic);
        for (unsigned hart = 0; hart < 4; hart++) CHECK_FALSE(s.enc[hart]->enabled());
        CHECK_FALSE(s.funnel[0]->enabled());
        CHECK_FALSE(s.sink->enabled());
        // Nothing after the reset touches the header.
        h->state = 77;
        trace::system_reset();
        CHECK(h->state == 77);
    }
    SUBCASE("reset after a wrap and lost data; a hart stopped by HSM was flushed then") {
        s.sink->emit(std::vector<uint32_t>((sizeof mem - trace::kBootHeaderSize) / 4, 8));
        s.enc[3]->set_stall_or_overflow();
        stopped_harts = 0x8;
        trace::hart_stop(3);
        trace::system_reset();
        CHECK(h->state == trace::BOOT_STOPPED);
        CHECK(h->write_pointer == data + 400);
        CHECK(h->flags == (trace::BOOT_WRAPPED | trace::BOOT_LOST));
    }
    SUBCASE("S-mode stopping the boot-time trace completes the header too") {
        REQUIRE(trace::stop(0xf) == Error::Success);
        CHECK(h->state == trace::BOOT_STOPPED);
        CHECK(h->write_pointer == data + 400);
        CHECK(trace::set_sink(0, 0, 0) == Error::Success);
    }
    // The trace never overwrote the header's page.
    CHECK(mem[sizeof(trace::BootHeader)] == 0x5a);
    ram_base = saved_base;
    ram_size = saved_size;
}

TEST_CASE("service: boot_trace errors; system_reset with nothing running") {
    Service s(2);
    CHECK(trace::boot_trace({kCfg, kBuf, kBufSize}, 0x30) == Error::NotSupported); // no encoders there
    CHECK(trace::boot_trace({kHTM, kBuf, kBufSize}, 0x3) == Error::InvalidParam);  // no privilege
    size_t from = s.end();
    trace::system_reset();
    CHECK(s.end() == from);
}

// ---- PMP regions --------------------------------------------------------------

TEST_CASE("service: mmode_regions cover every component with naturally aligned power-of-two regions") {
    auto covered = [](const trace::Region *r, unsigned n, uint64_t base) {
        for (unsigned i = 0; i < n; i++)
            if (base >= r[i].base && base + TCI_COMPONENT_SIZE <= r[i].base + r[i].size) return true;
        return false;
    };
    for (auto t : {Rig::flat(1, false), Rig::flat(4), Rig::tree(18, 8), Rig::tree(64, 16)}) {
        Rig r(t);
        REQUIRE(r.init());
        trace::Region reg[2];
        unsigned n = trace::mmode_regions(reg, 2);
        REQUIRE(n == 2);
        for (unsigned i = 0; i < n; i++) {
            CHECK((reg[i].size & (reg[i].size - 1)) == 0);
            CHECK(reg[i].size >= TCI_COMPONENT_SIZE);
            CHECK((reg[i].base & (reg[i].size - 1)) == 0);
        }
        for (unsigned h = 0; h < trace::kMaxSlots; h++)
            if (t.encoder[h].present) CHECK(covered(reg, n, t.encoder[h].base));
        for (unsigned f = 0; f < t.funnels; f++) CHECK(covered(reg, n, t.funnel[f].base));
        CHECK(covered(reg, n, t.sink.base));
        // No larger than needed: the components of a region are not all in
        // one of its halves.
        for (unsigned i = 0; i < n; i++) {
            if (reg[i].size == TCI_COMPONENT_SIZE) continue;
            uint64_t mid = reg[i].base + reg[i].size / 2;
            bool low = false, high = false;
            auto see = [&](uint64_t b) {
                if (b < reg[i].base || b >= reg[i].base + reg[i].size) return;
                (b < mid ? low : high) = true;
            };
            for (unsigned h = 0; h < trace::kMaxSlots; h++)
                if (t.encoder[h].present) see(t.encoder[h].base);
            for (unsigned f = 0; f < t.funnels; f++) see(t.funnel[f].base);
            see(t.sink.base);
            CHECK((low && high));
        }
        CHECK(trace::mmode_regions(reg, 1) == 1);
    }
}
