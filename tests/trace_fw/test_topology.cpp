// SPDX-License-Identifier: BSD-2-Clause
// Trace components from device trees (firmware/trace/topology.cpp; binding
// in hw_models/qemu/README.md "Device-tree binding"), compiled by dtc from
// tests/trace_fw/data, and the service on fakes of what was found.
#include "rig.hpp"
#include <libfdt.h>

using namespace tfw;

namespace {

struct Scanned {
    std::vector<char> blob;
    trace::Topology t{};
    unsigned n = 0;
    explicit Scanned(const char *name) : blob(load_dtb(name)) {
        REQUIRE(fdt_check_header(blob.data()) == 0);
        n = trace::scan_topology(blob.data(), t);
    }
    int funnel_at(uint64_t base) const {
        for (unsigned f = 0; f < t.funnels; f++)
            if (t.funnel[f].base == base) return static_cast<int>(f);
        return -1;
    }
    unsigned encoders_present() const {
        unsigned c = 0;
        for (auto &e : t.encoder) c += e.present;
        return c;
    }
};

} // namespace

TEST_CASE("topology: one hart, its encoder straight into the sink") {
    Scanned s("one_hart.dtb");
    CHECK(s.n == 1);
    CHECK(s.t.encoders == 1);
    CHECK(s.t.encoder[0].present);
    CHECK(s.t.encoder[0].base == kEncoderBase);
    CHECK(s.t.encoder[0].out.funnel == -1);
    CHECK(s.t.encoder[0].out.port == 0);
    CHECK(s.t.funnels == 0);
    CHECK(s.t.sink.present);
    CHECK(s.t.sink.base == kSinkBase);
}

TEST_CASE("topology: four harts through one funnel") {
    Scanned s("four_harts.dtb");
    CHECK(s.n == 4);
    REQUIRE(s.t.funnels == 1);
    CHECK(s.t.funnel[0].base == kFunnelBase);
    CHECK(s.t.funnel[0].out.funnel == -1);
    CHECK(s.t.funnel[0].depth == 0);
    for (unsigned h = 0; h < 4; h++) {
        CHECK(s.t.encoder[h].base == kEncoderBase + 0x1000 * h);
        CHECK(s.t.encoder[h].out.funnel == 0);
        CHECK(s.t.encoder[h].out.port == h); // the funnel input's reg
    }
    CHECK(s.encoders_present() == 4);
}

TEST_CASE("topology: 18 harts through leaf funnels into a top-level funnel") {
    Scanned s("eighteen_harts.dtb");
    CHECK(s.n == 18);
    REQUIRE(s.t.funnels == 4);
    int top = s.funnel_at(kFunnelBase);
    REQUIRE(top >= 0);
    CHECK(s.t.funnel[top].depth == 0);
    CHECK(s.t.funnel[top].out.funnel == -1);
    for (unsigned l = 0; l < 3; l++) {
        int leaf = s.funnel_at(kFunnelBase + 0x1000 * (l + 1));
        REQUIRE(leaf >= 0);
        CHECK(s.t.funnel[leaf].depth == 1);
        CHECK(s.t.funnel[leaf].out.funnel == top);
        CHECK(s.t.funnel[leaf].out.port == l);
    }
    for (unsigned h = 0; h < 18; h++) {
        CHECK(s.t.encoder[h].out.funnel == s.funnel_at(kFunnelBase + 0x1000 * (h / 8 + 1)));
        CHECK(s.t.encoder[h].out.port == h % 8);
    }
}

TEST_CASE("topology: unconnected, disabled and cut-off components are left out") {
    // Hart 1's encoder has no output, hart 2's is disabled, hart 3's feeds a
    // disabled funnel.
    Scanned s("edge.dtb");
    CHECK(s.n == 1);
    CHECK(s.t.encoder[0].present);
    CHECK(s.encoders_present() == 1);
    REQUIRE(s.t.funnels == 1);
    CHECK(s.t.funnel[0].base == kFunnelBase);
}

TEST_CASE("topology: without a RAM sink there is no trace") {
    Scanned s("no_sink.dtb");
    CHECK(s.n == 0);
    CHECK_FALSE(s.t.sink.present);
    CHECK(s.encoders_present() == 0);
    CHECK_FALSE(trace::init(s.t, false, false));
    CHECK_FALSE(trace::available());
}

TEST_CASE("topology: components owned by S-mode (/chosen tsbi,trace-owner)") {
    Scanned s("smode_owner.dtb");
    REQUIRE(s.n == 2);
    int chosen = fdt_path_offset(s.blob.data(), "/chosen");
    REQUIRE(chosen >= 0);
    const char *owner = static_cast<const char *>(fdt_getprop(s.blob.data(), chosen, "tsbi,trace-owner", nullptr));
    REQUIRE(owner);
    bool smode = std::string(owner) == "s-mode";
    CHECK(smode);
    Rig r(s.t);
    CHECK_FALSE(r.init(false, smode));
    CHECK_FALSE(trace::available());
    for (unsigned h = 0; h < 2; h++) {
        CHECK(r.enc[h]->active()); // released from reset, nothing more
        CHECK(r.bus.writes(*r.enc[h]).size() == 2);
    }
    trace::Region reg[2];
    CHECK(trace::mmode_regions(reg, 2) == 0);
}

TEST_CASE("topology: the service traces every hart of the 18-hart tree found in the device tree") {
    Scanned s("eighteen_harts.dtb");
    Rig r(s.t);
    REQUIRE(r.init());
    unsigned long caps = 0;
    REQUIRE(trace::get_caps(17, caps) == Error::Success);
    CHECK((caps >> trace::caps::SRC_BITS_SHIFT & 0xf) == 5);
    const uint64_t all = (1ul << 18) - 1;
    REQUIRE(trace::configure(all, kCfg) == Error::Success);
    REQUIRE(trace::set_sink(0, 0, 0) == Error::Success);
    REQUIRE(trace::start(all) == Error::Success);
    for (unsigned h = 0; h < 18; h++) CHECK(r.enc[h]->inst_tracing());
    for (auto *f : r.funnel) CHECK(f->enabled());
    CHECK(r.sink->enabled());
    REQUIRE(trace::stop(all) == Error::Success);
    for (auto *f : r.funnel) CHECK_FALSE(f->enabled());
    CHECK_FALSE(r.sink->enabled());
    CHECK(r.bus.stray == 0);
}
