// SPDX-License-Identifier: BSD-2-Clause
// Trace components from device trees (firmware/trace/topology.cpp; binding
// in hw_models/qemu/README.md "Device-tree binding"), compiled by dtc from
// tests/trace_fw/data, and the service on fakes of what was found.
#include "rig.hpp"
#include "../../firmware/core/dt.hpp"
#include <libfdt.h>

using namespace tfw;

namespace {

// The test trees' layout (rig.hpp), standing in for tr??Impl where no fake
// components exist (the type is read from the registers, not the tree).
unsigned type_by_address(uint64_t base) {
    if (base >= kEncoderBase && base < kEncoderBase + 0x1000 * trace::kMaxSlots) return TCI_COMPTYPE_ENCODER;
    if (base >= kFunnelBase && base < kFunnelBase + 0x1000 * trace::kMaxFunnels) return TCI_COMPTYPE_FUNNEL;
    // hart_sinks.dts: a second RAM sink right after the first
    return base == kSinkBase || base == kSinkBase + 0x1000 ? TCI_COMPTYPE_RAMSINK : 0;
}

struct Scanned {
    std::vector<char> blob;
    trace::Topology t{};
    unsigned n = 0;
    explicit Scanned(const char *name) : blob(load_dtb(name)) {
        REQUIRE(fdt_check_header(blob.data()) == 0);
        n = trace::scan_topology(blob.data(), t, type_by_address);
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

// The blob as the firmware hands it on: opened with `room` bytes to spare.
std::vector<char> opened(const std::vector<char> &blob, size_t room) {
    std::vector<char> out(fdt_totalsize(blob.data()) + room);
    REQUIRE(fdt_open_into(blob.data(), out.data(), static_cast<int>(out.size())) == 0);
    return out;
}

// The device tree the firmware hands on after trace::init (hooks.cpp's
// fix-up): components in M-mode's PMP regions disabled, in a blob opened
// with `room` bytes to spare; `failed` as disable_components_in returns it.
std::vector<char> handed_on(const std::vector<char> &blob, size_t room, unsigned &failed) {
    trace::Region reg[2];
    unsigned n = trace::mmode_regions(reg, 2);
    auto dt = opened(blob, room);
    failed = trace::disable_components_in(dt.data(), reg, n);
    return dt;
}

std::string status_of(const std::vector<char> &fdt, const char *path) {
    int node = fdt_path_offset(fdt.data(), path);
    REQUIRE(node >= 0);
    auto *s = static_cast<const char *>(fdt_getprop(fdt.data(), node, "status", nullptr));
    return s ? s : "okay";
}

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

TEST_CASE("topology: one RAM sink per hart, no funnel") {
    Scanned s("hart_sinks.dtb");
    CHECK(s.n == 2);
    CHECK(s.t.funnels == 0);
    CHECK(s.t.sinks == 2);
    CHECK(s.t.sink.base == kSinkBase);
    REQUIRE(s.t.encoder[1].present);
    CHECK(s.t.encoder[0].sink == kSinkBase);
    CHECK(s.t.encoder[1].sink == kSinkBase + 0x1000);
    CHECK(s.t.encoder[1].out.funnel == -1);
    Scanned one("one_hart.dtb");
    CHECK(one.t.sinks == 1);
}

TEST_CASE("topology: the type is read from tr??Impl (component_type)") {
    Rig r(Rig::flat(4));
    CHECK(trace::component_type(kEncoderBase) == TCI_COMPTYPE_ENCODER);
    CHECK(trace::component_type(kFunnelBase) == TCI_COMPTYPE_FUNNEL);
    CHECK(trace::component_type(kSinkBase) == TCI_COMPTYPE_RAMSINK);
    CHECK(r.enc[0]->active()); // Impl is read after the reset handshake
    // The whole scan on the components themselves equals the scan by address.
    auto blob = load_dtb("four_harts.dtb");
    trace::Topology t{};
    REQUIRE(trace::scan_topology(blob.data(), t, trace::component_type) == 4);
    Scanned s("four_harts.dtb");
    CHECK(memcmp(&t, &s.t, sizeof t) == 0);
    SUBCASE("a sink that is not version 1 is no sink") {
        r.sink->impl.ver_major = 0;
        CHECK(trace::component_type(kSinkBase) == 0);
        CHECK(trace::scan_topology(blob.data(), t, trace::component_type) == 0);
    }
    SUBCASE("a funnel whose Active never reads back is left out, with its encoders") {
        r.funnel[0]->timing.active_reads = tci_fake::kNever;
        CHECK(trace::component_type(kFunnelBase) == 0);
        CHECK(trace::scan_topology(blob.data(), t, trace::component_type) == 0);
    }
    SUBCASE("an encoder of another type is not an encoder") {
        r.enc[2]->impl.comp_type = TCI_COMPTYPE_FUNNEL;
        CHECK(trace::scan_topology(blob.data(), t, trace::component_type) == 3);
        // A slot is the hart's rank among the enabled harts: hart 3 keeps
        // slot 3, hart 2's slot stays empty.
        CHECK(trace::slot_of(t, 2) == trace::kNoSlot);
        CHECK(trace::slot_of(t, 3) == 3);
        CHECK(t.encoder[3].hartid == 3);
        CHECK_FALSE(t.encoder[2].present);
        CHECK(t.encoders == 4);
    }
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

TEST_CASE("topology: sparse hart IDs take slots by rank (issue 29)") {
    // Harts 0, 100, 5 (disabled) and 4095: the disabled hart's encoder is
    // not used, the others take slots 0, 1, 2 with their hart IDs.
    Scanned s("sparse_harts.dtb");
    CHECK(s.n == 3);
    CHECK(s.t.encoders == 3);
    CHECK(s.t.encoder[0].hartid == 0);
    CHECK(s.t.encoder[1].hartid == 100);
    CHECK(s.t.encoder[2].hartid == 4095);
    CHECK(s.t.encoder[1].base == kEncoderBase + 0x1000);
    CHECK(s.t.encoder[2].base == kEncoderBase + 0x3000);
    CHECK(s.t.encoder[2].out.port == 3);
    CHECK(trace::slot_of(s.t, 0) == 0);
    CHECK(trace::slot_of(s.t, 100) == 1);
    CHECK(trace::slot_of(s.t, 4095) == 2);
    CHECK(trace::slot_of(s.t, 5) == trace::kNoSlot);
    CHECK(trace::slot_of(s.t, 1) == trace::kNoSlot);
}

// `harts` harts whose encoders feed the sink directly, listed from the
// highest hart down (as QEMU lists its components).
unsigned type_upto_1024(uint64_t base) {
    if (base >= kEncoderBase && base < kEncoderBase + 0x1000 * 1024) return TCI_COMPTYPE_ENCODER;
    return base == kSinkBase ? TCI_COMPTYPE_RAMSINK : 0;
}
std::vector<char> flat_harts(unsigned harts) {
    std::vector<char> b(1 << 20);
    char *f = b.data();
    auto u32 = [&](const char *name, uint32_t v) { REQUIRE(fdt_property_u32(f, name, v) == 0); };
    auto reg = [&](uint64_t base) {
        fdt32_t r[4] = {cpu_to_fdt32(uint32_t(base >> 32)), cpu_to_fdt32(uint32_t(base)), 0, cpu_to_fdt32(0x1000)};
        REQUIRE(fdt_property(f, "reg", r, sizeof r) == 0);
    };
    auto compatible = [&] { REQUIRE(fdt_property_string(f, "compatible", "riscv,trace-component") == 0); };
    char name[48];
    REQUIRE(fdt_create(f, int(b.size())) == 0);
    REQUIRE(fdt_finish_reservemap(f) == 0);
    REQUIRE(fdt_begin_node(f, "") == 0);
    u32("#address-cells", 2);
    u32("#size-cells", 2);
    REQUIRE(fdt_begin_node(f, "cpus") == 0);
    u32("#address-cells", 1);
    u32("#size-cells", 0);
    for (unsigned i = 0; i < harts; i++) {
        snprintf(name, sizeof name, "cpu@%x", i);
        REQUIRE(fdt_begin_node(f, name) == 0);
        REQUIRE(fdt_property_string(f, "device_type", "cpu") == 0);
        u32("reg", i);
        u32("phandle", 1 + i);
        REQUIRE(fdt_end_node(f) == 0);
    }
    REQUIRE(fdt_end_node(f) == 0);
    REQUIRE(fdt_begin_node(f, "soc") == 0);
    u32("#address-cells", 2);
    u32("#size-cells", 2);
    REQUIRE(fdt_property(f, "ranges", nullptr, 0) == 0);
    for (unsigned i = harts; i-- > 0;) {
        snprintf(name, sizeof name, "trace-encoder@%llx", (unsigned long long)(kEncoderBase + 0x1000 * i));
        REQUIRE(fdt_begin_node(f, name) == 0);
        compatible();
        reg(kEncoderBase + 0x1000 * i);
        u32("cpus", 1 + i);
        REQUIRE(fdt_begin_node(f, "out-ports") == 0);
        REQUIRE(fdt_begin_node(f, "port@0") == 0);
        u32("reg", 0);
        REQUIRE(fdt_begin_node(f, "endpoint") == 0);
        u32("remote-endpoint", 10000 + i);
        REQUIRE(fdt_end_node(f) == 0);
        REQUIRE(fdt_end_node(f) == 0);
        REQUIRE(fdt_end_node(f) == 0);
        REQUIRE(fdt_end_node(f) == 0);
    }
    snprintf(name, sizeof name, "trace-ramsink@%llx", (unsigned long long)kSinkBase);
    REQUIRE(fdt_begin_node(f, name) == 0);
    compatible();
    reg(kSinkBase);
    REQUIRE(fdt_begin_node(f, "in-ports") == 0);
    u32("#address-cells", 1);
    u32("#size-cells", 0);
    for (unsigned i = 0; i < harts; i++) {
        snprintf(name, sizeof name, "port@%x", i);
        REQUIRE(fdt_begin_node(f, name) == 0);
        u32("reg", i);
        REQUIRE(fdt_begin_node(f, "endpoint") == 0);
        u32("phandle", 10000 + i);
        REQUIRE(fdt_end_node(f) == 0);
        REQUIRE(fdt_end_node(f) == 0);
    }
    REQUIRE(fdt_end_node(f) == 0);
    REQUIRE(fdt_end_node(f) == 0);
    REQUIRE(fdt_end_node(f) == 0);
    REQUIRE(fdt_end_node(f) == 0);
    REQUIRE(fdt_finish(f) == 0);
    return b;
}

TEST_CASE("topology: 70 harts: every hart gets a slot and harts 64+ trace (issue 29)") {
    auto blob = flat_harts(70);
    trace::Topology t{};
    REQUIRE(trace::scan_topology(blob.data(), t, type_upto_1024) == 70);
    REQUIRE(t.encoders == 70);
    for (unsigned long h = 0; h < 70; h++) {
        CAPTURE(h);
        const unsigned s = trace::slot_of(t, h);
        REQUIRE(s != trace::kNoSlot);
        CHECK(t.encoder[s].base == kEncoderBase + 0x1000 * h);
        CHECK(t.encoder[s].out.funnel == -1);
    }
    CHECK(trace::slot_of(t, 70) == trace::kNoSlot);
    CHECK(t.unslotted_hi == 0);
    Rig r(t);
    REQUIRE(r.init());
    unsigned long caps = 0;
    REQUIRE(trace::get_caps(69, caps) == Error::Success);
    CHECK(caps != 0);
    CHECK((caps >> trace::caps::SRC_BITS_SHIFT & 0xf) == 7); // hart IDs up to 69
    // Hart 69 alone (a slot in the mask's second word), then 0, 64 and 69.
    trace::HartMask m69, three;
    m69.set(trace::slot_of(t, 69));
    for (unsigned long h : {0ul, 64ul, 69ul}) three.set(trace::slot_of(t, h));
    REQUIRE(trace::configure(three, kCfg) == Error::Success);
    REQUIRE(trace::set_sink(0, 0, 0) == Error::Success);
    REQUIRE(trace::start(m69) == Error::Success);
    const unsigned e69 = trace::slot_of(t, 69), e64 = trace::slot_of(t, 64);
    CHECK(r.enc[e69]->inst_tracing());
    CHECK_FALSE(r.enc[e64]->inst_tracing());
    CHECK(trace::start(three) == Error::AlreadyStarted); // hart 69 traces already
    trace::Status st;
    REQUIRE(trace::get_status(st, 64) == Error::Success);
    CHECK(st.harts == 1ull << 5);
    REQUIRE(trace::stop(m69) == Error::Success);
    CHECK_FALSE(r.enc[e69]->inst_tracing());
    REQUIRE(trace::start(three) == Error::Success);
    for (unsigned long h : {0ul, 64ul, 69ul}) CHECK(r.enc[trace::slot_of(t, h)]->inst_tracing());
    REQUIRE(trace::get_status(st, 64) == Error::Success);
    CHECK(st.harts == (1ull | 1ull << 5));
    // An unconfigured hart past 64 cannot start.
    trace::HartMask m65;
    m65.set(trace::slot_of(t, 65));
    CHECK(trace::start(m65) == Error::InvalidState);
    REQUIRE(trace::stop(three) == Error::Success);
}

TEST_CASE("topology: more harts than slots: the slots go to the lowest hart IDs (issue 29)") {
    const unsigned harts = trace::kMaxSlots + 6;
    auto blob = flat_harts(harts);
    trace::Topology t{};
    REQUIRE(trace::scan_topology(blob.data(), t, type_upto_1024) == trace::kMaxSlots);
    for (unsigned long h = 0; h < trace::kMaxSlots; h++) {
        CAPTURE(h);
        const unsigned s = trace::slot_of(t, h);
        REQUIRE(s != trace::kNoSlot);
        CHECK(t.encoder[s].base == kEncoderBase + 0x1000 * h);
    }
    for (unsigned long h = trace::kMaxSlots; h < harts; h++) CHECK(trace::slot_of(t, h) == trace::kNoSlot);
    // The encoders without a slot are closed to S-mode with the others
    // (their trace would reach the sink M-mode keeps).
    CHECK(t.unslotted_lo == kEncoderBase + 0x1000 * trace::kMaxSlots);
    CHECK(t.unslotted_hi == kEncoderBase + 0x1000 * harts);
    Rig r(t);
    REQUIRE(r.init());
    trace::Region reg[2];
    const unsigned n = trace::mmode_regions(reg, 2);
    bool covered = false;
    for (unsigned i = 0; i < n; i++)
        covered |= reg[i].base <= kEncoderBase && reg[i].base + reg[i].size >= kEncoderBase + 0x1000 * harts;
    CHECK(covered);
    unsigned long caps = 1;
    REQUIRE(trace::get_caps(trace::kMaxSlots, caps) == Error::Success);
    CHECK(caps == 0);
    REQUIRE(trace::get_caps(trace::kMaxSlots - 1, caps) == Error::Success);
    CHECK(caps != 0);
}

TEST_CASE("service: slots past the state's room are not served") {
    auto blob = flat_harts(70);
    trace::Topology t{};
    REQUIRE(trace::scan_topology(blob.data(), t, type_upto_1024) == 70);
    Rig r(t);
    // Room for 66 slots (the firmware carves one per hart it serves).
    REQUIRE(trace::init(r.topo, false, false, r.slots.data(), 66));
    CHECK(trace::slot(65) == trace::slot_of(t, 65));
    CHECK(trace::slot(66) == trace::kNoSlot);
    unsigned long caps = 1;
    REQUIRE(trace::get_caps(66, caps) == Error::Success);
    CHECK(caps == 0);
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
    std::vector<trace::SlotState> slots(trace::kMaxSlots);
    CHECK_FALSE(trace::init(s.t, false, false, slots.data(), trace::kMaxSlots));
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

TEST_CASE("topology: components M-mode keeps are disabled in the device tree handed on") {
    // edge.dts: only hart 0's encoder, the first funnel and the sink are
    // used; PMP closes the encoder's 4 KiB and the 2 MiB over the funnels
    // and the sink, which holds the second (disabled) funnel too.
    Scanned s("edge.dtb");
    Rig r(s.t);
    REQUIRE(r.init());
    trace::Region reg[2];
    REQUIRE(trace::mmode_regions(reg, 2) == 2);
    unsigned failed;
    auto dt = handed_on(s.blob, 4096, failed);
    CHECK(failed == 0);
    CHECK(fdt_check_header(dt.data()) == 0);
    for (const char *p : {"/soc/trace-encoder@3020000", "/soc/trace-funnel@6000000", "/soc/trace-funnel@6001000",
                          "/soc/trace-ramsink@6100000"})
        CHECK_MESSAGE(status_of(dt, p) == "disabled", p);
    // Registers S-mode can reach stay offered: encoders the service does
    // not use and PMP does not close.
    for (const char *p : {"/soc/trace-encoder@3021000", "/soc/trace-encoder@3023000"})
        CHECK_MESSAGE(status_of(dt, p) == "okay", p);
    CHECK(status_of(dt, "/soc/trace-encoder@3022000") == "disabled"); // as it was
    CHECK(status_of(dt, "/cpus/cpu@0") == "okay");
    // What a driver finds there: no path to a sink.
    trace::Topology t{};
    CHECK(trace::scan_topology(dt.data(), t, type_by_address) == 0);
    CHECK_FALSE(t.sink.present);
}

TEST_CASE("topology: every component of QEMU's 18-hart tree is disabled when M-mode keeps them") {
    Scanned s("eighteen_harts.dtb");
    Rig r(s.t);
    REQUIRE(r.init());
    unsigned failed;
    auto dt = handed_on(s.blob, 4096, failed);
    CHECK(failed == 0);
    unsigned components = 0;
    for (int node = fdt_node_offset_by_compatible(dt.data(), -1, "riscv,trace-component"); node >= 0;
         node = fdt_node_offset_by_compatible(dt.data(), node, "riscv,trace-component")) {
        components++;
        auto *st = static_cast<const char *>(fdt_getprop(dt.data(), node, "status", nullptr));
        CHECK((st && std::string(st) == "disabled"));
    }
    CHECK(components == 18 + 4 + 1);
}

TEST_CASE("topology: without room in the blob the components left offered are counted") {
    Scanned s("four_harts.dtb");
    Rig r(s.t);
    REQUIRE(r.init());
    unsigned failed;
    handed_on(s.blob, 0, failed);
    CHECK(failed == 4 + 1 + 1);
}

TEST_CASE("topology: the room the trace fix-up states (Topology::nodes) holds every disabled node") {
    // Every component node, enabled or not, connected or not; status =
    // "disabled" on each, in a packed blob opened with that room alone
    // (trace/hooks.cpp fdt_room).
    for (const char *name : {"edge.dtb", "eighteen_harts.dtb", "sparse_harts.dtb"}) {
        Scanned s(name);
        unsigned nodes = 0;
        for (int node = fdt_node_offset_by_compatible(s.blob.data(), -1, "riscv,trace-component"); node >= 0;
             node = fdt_node_offset_by_compatible(s.blob.data(), node, "riscv,trace-component"))
            nodes++;
        CHECK_MESSAGE(s.t.nodes == nodes, name);
        Rig r(s.t);
        REQUIRE(r.init());
        std::vector<char> packed(s.blob);
        REQUIRE(fdt_pack(packed.data()) == 0);
        unsigned failed;
        auto dt = handed_on(packed, fw::dt::kStatusNameBytes + fw::dt::kDisabledBytes * s.t.nodes, failed);
        CHECK_MESSAGE(failed == 0, name);
        CHECK(fdt_check_full(dt.data(), dt.size()) == 0);
    }
}

TEST_CASE("topology: components owned by S-mode stay offered, the funnels passing through") {
    Scanned s("smode_owner.dtb");
    Rig r(s.t);
    CHECK_FALSE(r.init(false, true));
    trace::Region reg[2];
    CHECK(trace::mmode_regions(reg, 2) == 0);
    unsigned failed;
    auto dt = handed_on(s.blob, 4096, failed);
    CHECK(failed == 0);
    CHECK(memcmp(dt.data(), opened(s.blob, 4096).data(), dt.size()) == 0);
    trace::Topology t{};
    CHECK(trace::scan_topology(dt.data(), t, type_by_address) == 2);
    REQUIRE(r.funnel.size() == 1);
    CHECK(r.funnel[0]->enabled());
    CHECK(r.funnel[0]->dis_input() == 0);
    for (unsigned h = 0; h < 2; h++) CHECK_FALSE(r.enc[h]->enabled());
    CHECK_FALSE(r.sink->enabled());
}
