// SPDX-License-Identifier: BSD-2-Clause
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "rig.hpp"
#include <cstdlib>
#include <fstream>
#include <cstddef>
#include <iterator>

namespace tfw {
uint64_t stopped_harts, ram_base = 0x80000000, ram_size = 0x40000000;
namespace {
tci_fake::Bus *current;
}

Rig::Rig() {
    current = &bus;
    stopped_harts = 0;
}

Rig::~Rig() { current = nullptr; }

Rig::Rig(const trace::Topology &t, tci_fake::EncoderSpec es, tci_fake::FunnelSpec fs, tci_fake::RamSinkSpec ss)
    : Rig() {
    topo = t;
    for (unsigned h = 0; h < trace::kMaxSlots; h++)
        if (t.encoder[h].present) enc[h] = &bus.add_encoder(t.encoder[h].base, es);
    for (unsigned f = 0; f < t.funnels; f++) funnel.push_back(&bus.add_funnel(t.funnel[f].base, fs));
    if (t.sink.present) sink = &bus.add_sink(t.sink.base, ss);
}

trace::Topology Rig::flat(unsigned harts, bool with_funnel) {
    trace::Topology t{};
    for (unsigned h = 0; h < harts; h++)
        t.encoder[h] = {true, h, kEncoderBase + 0x1000 * h, {with_funnel ? 0 : -1, with_funnel ? h : 0}};
    if (with_funnel) {
        t.funnel[0] = {kFunnelBase, {-1, 0}, 0};
        t.funnels = 1;
    }
    t.sink = {true, kSinkBase};
    t.encoders = harts;
    return t;
}

trace::Topology Rig::tree(unsigned harts, unsigned per_leaf) {
    trace::Topology t{};
    t.funnel[0] = {kFunnelBase, {-1, 0}, 0};
    t.funnels = 1 + (harts + per_leaf - 1) / per_leaf;
    for (unsigned l = 1; l < t.funnels; l++) t.funnel[l] = {kFunnelBase + 0x1000 * l, {0, l - 1}, 1};
    for (unsigned h = 0; h < harts; h++)
        t.encoder[h] = {true, h, kEncoderBase + 0x1000 * h, {static_cast<int>(1 + h / per_leaf), h % per_leaf}};
    t.sink = {true, kSinkBase};
    t.encoders = harts;
    return t;
}

size_t Rig::write_at(const tci_fake::Component &c, unsigned offset, uint32_t set, uint32_t clear,
                     size_t from) const {
    return bus.find([&](const Access &a) {
        return a.kind == Access::Write && a.comp == &c && a.offset == offset && (a.value & set) == set &&
               !(a.value & clear);
    }, from);
}

size_t Rig::control_seen(const tci_fake::Component &c, uint32_t set, uint32_t clear, size_t from) const {
    return bus.find([&](const Access &a) {
        return a.kind == Access::ControlRead && a.comp == &c && (a.value & set) == set && !(a.value & clear);
    }, from);
}

std::vector<char> load_dtb(const std::string &name) {
    std::ifstream f(std::string(TRACE_FW_DATA) + "/" + name, std::ios::binary);
    REQUIRE_MESSAGE(f.good(), "missing " << name);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

} // namespace tfw

// The driver's register access (firmware/trace/mmio.hpp, TSBI_TRACE_HOST).
namespace trace::mmio {
// Outside a rig there is no bus: a test bug, not a driver one.
uint32_t read32(uint64_t addr) {
    if (!tfw::current) std::abort();
    return tfw::current->read32(addr);
}
void write32(uint64_t addr, uint32_t value) {
    if (!tfw::current) std::abort();
    tfw::current->write32(addr, value);
}
} // namespace trace::mmio

// Platform glue of the service (firmware: firmware/trace/hooks.cpp).
namespace trace {
bool hart_is_stopped(unsigned long hartid) { return hartid < 64 && (tfw::stopped_harts >> hartid & 1); }
void *scan_scratch(unsigned long bytes, unsigned long align) {
    static std::vector<max_align_t> scratch;
    if (align > alignof(max_align_t)) return nullptr;
    scratch.assign(bytes / sizeof(max_align_t) + 1, max_align_t{});
    return scratch.data();
}
bool s_mode_range_ok(uint64_t addr, uint64_t size) {
    uint64_t end = addr + size;
    return end >= addr && addr >= tfw::ram_base && end <= tfw::ram_base + tfw::ram_size;
}
} // namespace trace
