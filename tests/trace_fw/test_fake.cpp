// SPDX-License-Identifier: BSD-2-Clause
// The TCI fake itself (hw_models/tci): the register behaviour the driver
// tests rely on, checked against the specification's tables directly.
#include "rig.hpp"

using namespace tfw;
using namespace tci_fake;

TEST_CASE("fake: Active handshake takes the configured reads; registers are inaccessible in reset") {
    Bus bus;
    EncoderSpec spec;
    spec.timing.active_reads = 2;
    Encoder &e = bus.add_encoder(kEncoderBase, spec);
    e.write(TCI_trTeInstFilters, 1);
    CHECK(e.writes_in_reset == 1);
    e.write(TCI_trControl, kActive);
    CHECK((e.read(TCI_trControl) & kActive) == 0);
    CHECK((e.read(TCI_trControl) & kActive) == 0);
    CHECK((e.read(TCI_trControl) & kActive) != 0);
    // tr??Impl: version 1.0, the component type, N-Trace 1.0.
    CHECK(e.read(TCI_trImpl) == 0x00010101);
    e.timing.active_reads = kNever;
    e.write(TCI_trControl, 0);
    for (int i = 0; i < 100; i++) CHECK((e.read(TCI_trControl) & kActive) != 0);
}

TEST_CASE("fake: trTeInstMode reverts to a supported non-0 mode; RW1C InstStallOrOverflow; Enable clears it") {
    Bus bus;
    EncoderSpec spec;
    spec.inst_modes = 1u << kHTM;
    Encoder &e = bus.add_encoder(kEncoderBase, spec);
    e.write(TCI_trControl, kActive);
    e.write(TCI_trTeControl, kActive | TCI_SET(trTeControl, InstMode, kBTM));
    CHECK(TCI_GET(e.read(TCI_trTeControl), trTeControl, InstMode) == kHTM);
    e.write(TCI_trTeControl, kActive);
    CHECK(TCI_GET(e.read(TCI_trTeControl), trTeControl, InstMode) == 0);
    e.set_stall_or_overflow();
    const uint32_t lost = TCI_BIT(trTeControl, InstStallOrOverflow);
    e.write(TCI_trTeControl, kActive);
    CHECK((e.read(TCI_trTeControl) & lost) != 0);
    e.write(TCI_trTeControl, kActive | lost);
    CHECK((e.read(TCI_trTeControl) & lost) == 0);
    e.set_stall_or_overflow();
    e.write(TCI_trTeControl, kActive | kEnable);
    CHECK((e.read(TCI_trTeControl) & lost) == 0);
    // Reserved bits written are counted.
    e.write(TCI_trTeInstFeatures, 1u << 11);
    CHECK(e.reserved_writes == 1);
}

TEST_CASE("fake: Empty reads 0 for the configured reads after Enable goes to 0") {
    Bus bus;
    FunnelSpec spec;
    spec.timing.empty_reads = 3;
    Funnel &f = bus.add_funnel(kFunnelBase, spec);
    f.write(TCI_trControl, kActive | kEnable);
    CHECK((f.read(TCI_trControl) & kEmpty) != 0);
    f.write(TCI_trControl, kActive);
    for (int i = 0; i < 3; i++) CHECK((f.read(TCI_trControl) & kEmpty) == 0);
    CHECK((f.read(TCI_trControl) & kEmpty) != 0);
    f.busy = true;
    CHECK((f.read(TCI_trControl) & kEmpty) == 0);
}

TEST_CASE("fake: RAM sink pointers, Wrap, RP/Data and stop on wrap") {
    Bus bus;
    RamSinkSpec spec;
    spec.sram_bytes = 16;
    RamSink &s = bus.add_sink(kSinkBase, spec);
    s.write(TCI_trControl, kActive);
    CHECK(s.read(TCI_trRamImpl) == (0x901u | TCI_BIT(trRamImpl, HasSRAM) | TCI_BIT(trRamImpl, HasSMEM)));
    s.write(TCI_trRamStartLow, 0x100); // fixed at 0 in SRAM mode
    CHECK(s.read(TCI_trRamStartLow) == 0);
    s.write(TCI_trRamLimitLow, ~0u);
    CHECK(s.read(TCI_trRamLimitLow) == 12);
    s.write(TCI_trRamWPLow, 0);
    s.write(TCI_trControl, kActive | kEnable | TCI_BIT(trRamControl, StopOnWrap));
    s.emit({1, 2, 3, 4, 5});
    CHECK_FALSE(s.enabled()); // full: stopped on the wrap
    CHECK(s.read(TCI_trRamWPLow) == (0 | TCI_BIT(trRamWPLow, Wrap)));
    s.write(TCI_trRamRPLow, 8);
    CHECK(s.read(TCI_trRamData) == 3);
    CHECK(s.read(TCI_trRamData) == 4);
    CHECK(s.read(TCI_trRamData) == 1); // RP wraps from Limit to Start
    s.write(TCI_trRamWPLow, 4);
    CHECK(s.read(TCI_trRamWPLow) == 4);
    CHECK(s.writes_while_enabled == 0);
}
