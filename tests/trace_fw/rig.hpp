// SPDX-License-Identifier: BSD-2-Clause
// Host tests of the firmware trace driver (firmware/trace) against the
// register-level TCI 1.0 fake (hw_models/tci): the bus trace::mmio reaches,
// the platform glue the service needs, and a rig that builds fake
// components for a Topology.
#pragma once
#include <doctest/doctest.h>
#include <string>
#include <vector>
#include "driver.hpp"
#include "service.hpp"
#include "tci.hpp"
#include "tci_fake.hpp"
#include "topology.hpp"

namespace tfw {

using tci_fake::Access;
using sbi::Error;

// What the host definitions of trace::hart_is_stopped and
// trace::s_mode_range_ok answer.
extern uint64_t stopped_harts;        // bit = hart ID: HSM stopped or suspended
extern uint64_t ram_base, ram_size;   // S-mode memory

constexpr uint64_t kEncoderBase = 0x3020000, kFunnelBase = 0x6000000, kSinkBase = 0x6100000;
constexpr uint32_t kHTM = TCI_INSTMODE_HTM, kBTM = TCI_INSTMODE_BTM;

// Fake components on a bus that trace::mmio reaches while the rig lives.
struct Rig {
    tci_fake::Bus bus;
    tci_fake::Encoder *enc[trace::kMaxSlots] = {};
    std::vector<tci_fake::Funnel *> funnel; // as Topology::funnel
    tci_fake::RamSink *sink = nullptr;
    trace::Topology topo{};

    Rig();
    ~Rig();
    Rig(const Rig &) = delete;
    // Fakes for every component of `t` (encoders with `es`, funnels with
    // `fs`, the sink with `ss`).
    explicit Rig(const trace::Topology &t, tci_fake::EncoderSpec es = {}, tci_fake::FunnelSpec fs = {},
                 tci_fake::RamSinkSpec ss = {});
    // `harts` encoders (hart IDs 0..harts-1) into one funnel (or straight
    // into the sink without), then the sink.
    static trace::Topology flat(unsigned harts, bool with_funnel = true);
    // `harts` encoders into leaf funnels of `per_leaf` inputs, those into a
    // top-level funnel (index 0), then the sink.
    static trace::Topology tree(unsigned harts, unsigned per_leaf);

    // trace::init on this rig.
    bool init(bool allow_mmode = false, bool smode_owner = false) {
        return trace::init(topo, smode_owner, allow_mmode, slots.data(), trace::kMaxSlots);
    }
    // The slots' state (the firmware carves it per hart).
    std::vector<trace::SlotState> slots = std::vector<trace::SlotState>(trace::kMaxSlots);
    // Index of the first log entry from `from` on that is a write to `c`
    // at `offset` whose value has all of `set` and none of `clear`.
    size_t write_at(const tci_fake::Component &c, unsigned offset, uint32_t set, uint32_t clear = 0,
                    size_t from = 0) const;
    // Index of the first read of tr??Control of `c` from `from` on that
    // showed all of `set` and none of `clear`.
    size_t control_seen(const tci_fake::Component &c, uint32_t set, uint32_t clear = 0, size_t from = 0) const;
    size_t end() const { return bus.log.size(); }
};

// The configuration most tests use: HTM of S-mode.
constexpr uint32_t kCfg = kHTM | trace::cfg::PRIV_S;
constexpr uint32_t kActive = TCI_BIT(trControl, Active), kEnable = TCI_BIT(trControl, Enable),
                   kEmpty = TCI_BIT(trControl, Empty), kInstTracing = TCI_BIT(trTeControl, InstTracing);

// A device tree blob from the test data directory (build/trace_fw/data).
std::vector<char> load_dtb(const std::string &name);

} // namespace tfw
