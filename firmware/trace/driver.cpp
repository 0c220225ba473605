// SPDX-License-Identifier: BSD-2-Clause
#include "driver.hpp"
#include "mmio.hpp"
#include "tci.hpp"

namespace trace {
namespace {

using mmio::read32;
using mmio::write32;

bool wait_bits(uint64_t reg, uint32_t mask, uint32_t want) {
    for (unsigned i = 0; i < kPollBudget; i++)
        if ((read32(reg) & mask) == want) return true;
    return false;
}

void write64(uint64_t base, unsigned low, unsigned high, uint64_t v) {
    write32(base + high, static_cast<uint32_t>(v >> 32));
    write32(base + low, static_cast<uint32_t>(v));
}

uint64_t read64(uint64_t base, unsigned low, unsigned high) {
    return read32(base + low) | static_cast<uint64_t>(read32(base + high)) << 32;
}

// Writes `v` and returns what stuck (WARL).
uint32_t probe(uint64_t reg, uint32_t v) {
    write32(reg, v);
    return read32(reg);
}

constexpr uint32_t kActive = TCI_BIT(trControl, Active);
constexpr uint32_t kEnable = TCI_BIT(trControl, Enable);
constexpr uint32_t kEmpty = TCI_BIT(trControl, Empty);
constexpr uint32_t kNtrace = TCI_SET(trTeControl, Format, TCI_FORMAT_NTRACE);
// Comparator 0 as an address range: P (iaddr >= PMatch) && S (iaddr < SMatch).
constexpr uint32_t kRangeComp =
    TCI_SET(trTeComp0Control, PInput, TCI_COMPINPUT_IADDR) |
    TCI_SET(trTeComp0Control, SInput, TCI_COMPINPUT_IADDR) |
    TCI_SET(trTeComp0Control, PFunction, TCI_COMPFUNC_GE) |
    TCI_SET(trTeComp0Control, SFunction, TCI_COMPFUNC_LT) |
    TCI_SET(trTeComp0Control, MatchMode, TCI_COMPMODE_P_AND_S);
// trTeProtocolMajor with trTeFormat = E-Trace: E-Trace 2.x.
constexpr unsigned kEtraceMajor = 2;

} // namespace

bool reset(uint64_t base) {
    write32(base + TCI_trControl, 0);
    if (!wait_bits(base + TCI_trControl, kActive, 0)) return false;
    write32(base + TCI_trControl, kActive);
    return wait_bits(base + TCI_trControl, kActive, kActive);
}

unsigned component_type(uint64_t base) {
    if (!reset(base)) return 0;
    uint32_t impl = read32(base + TCI_trImpl);
    return TCI_GET(impl, trImpl, VerMajor) == TCI_VERSION_MAJOR ? TCI_GET(impl, trImpl, CompType) : 0;
}

bool encoder_exclude_mmode(uint64_t base) {
    // Only on the encoder it was made for: a vendor register means nothing
    // on another vendor's component (tr??Impl bits 31:24).
    if (TCI_GET(read32(base + TCI_trImpl), trImpl, Vendor) != TCI_VENDOR_QEMU) return false;
    constexpr uint32_t kNoMmode = TCI_BIT(trTeVendorControl, NoMmode);
    return probe(base + TCI_trTeVendorControl, kNoMmode) & kNoMmode;
}

bool impl_ok(uint64_t base, unsigned comptype) {
    uint32_t impl = read32(base + TCI_trImpl);
    if (TCI_GET(impl, trImpl, VerMajor) != TCI_VERSION_MAJOR ||
        TCI_GET(impl, trImpl, CompType) != comptype)
        return false;
    if (comptype != TCI_COMPTYPE_ENCODER) return true;
    // The protocol fields speak of the selected trTeFormat: select N-Trace.
    uint32_t c = probe(base + TCI_trTeControl, kActive | kNtrace);
    return TCI_GET(c, trTeControl, Format) == TCI_FORMAT_NTRACE &&
           TCI_GET(read32(base + TCI_trTeImpl), trTeImpl, ProtocolMajor) == 1;
}

bool discover_encoder(uint64_t base, EncoderCaps &c) {
    c = EncoderCaps{};
    if (!reset(base)) return false;
    const uint64_t ctl = base + TCI_trTeControl;
    auto mode_sticks = [&](unsigned m) {
        uint32_t v = probe(ctl, kActive | kNtrace | TCI_SET(trTeControl, InstMode, m));
        return TCI_GET(v, trTeControl, InstMode) == m;
    };
    // E-Trace: trTeFormat 0 sticks and the protocol fields then say E-Trace 2.
    uint32_t e = probe(ctl, kActive | TCI_SET(trTeControl, Format, TCI_FORMAT_ETRACE));
    c.etrace = TCI_GET(e, trTeControl, Format) == TCI_FORMAT_ETRACE &&
               TCI_GET(read32(base + TCI_trTeImpl), trTeImpl, ProtocolMajor) == kEtraceMajor;
    // Data trace (E-Trace data packets): implemented, and the enable sticks.
    if (c.etrace) {
        constexpr uint32_t kData = TCI_BIT(trTeDataControl, Implemented) | TCI_BIT(trTeDataControl, Tracing);
        c.data = (probe(base + TCI_trTeDataControl, TCI_BIT(trTeDataControl, Tracing)) & kData) == kData;
        write32(base + TCI_trTeDataControl, 0);
    }
    c.btm = mode_sticks(TCI_INSTMODE_BTM);
    c.htm = mode_sticks(TCI_INSTMODE_HTM);
    for (unsigned m = 1; m <= TCI_SYNCMODE_HALFWORDS; m++) {
        uint32_t v = probe(ctl, kActive | kNtrace | TCI_SET(trTeControl, InstSyncMode, m));
        if (TCI_GET(v, trTeControl, InstSyncMode) == m) c.sync_modes |= 1u << m;
    }
    c.context = probe(ctl, kActive | kNtrace | TCI_BIT(trTeControl, Context)) &
                TCI_BIT(trTeControl, Context);
    c.stall = probe(ctl, kActive | kNtrace | TCI_BIT(trTeControl, InstStallEna)) &
              TCI_BIT(trTeControl, InstStallEna);
    // The feature fields are bits 10:0; 15:11 are reserved and get 0
    // ("software should always write 0 to reserved bits").
    const uint32_t feature_bits = (TCI_trTeInstFeatures_ExtendAddrMSB_MASK << 1) - 1;
    uint32_t f = probe(base + TCI_trTeInstFeatures,
                       feature_bits | TCI_trTeInstFeatures_SrcBits_MASK);
    c.features = f & feature_bits;
    c.src_bits_max = TCI_GET(f, trTeInstFeatures, SrcBits);
    c.filters = probe(base + TCI_trTeInstFilters, TCI_trTeInstFilters_Filters_MASK) &
                TCI_trTeInstFilters_Filters_MASK;
    if (c.filters & 1) {
        uint32_t want = TCI_BIT(trTeFilter0Control, Enable) |
                        TCI_BIT(trTeFilter0Control, MatchPrivilege);
        if ((probe(base + TCI_trTeFilter0Control, want) & want) == want)
            c.priv_choices = TCI_GET(probe(base + TCI_trTeFilter0MatchInst,
                                           TCI_trTeFilter0MatchInst_ChoicePrivilege_MASK),
                                     trTeFilter0MatchInst, ChoicePrivilege);
        write32(base + TCI_trTeFilter0Control, 0);
        write32(base + TCI_trTeFilter0MatchInst, 0);
    }
    // Comparator 0 as an address range in filter 0 (TCI 1.0 "Trace Encoder
    // Comparator Registers"; optional): both must hold the values.
    if (c.filters & 1) {
        uint32_t fc = TCI_BIT(trTeFilter0Control, Enable) | TCI_BIT(trTeFilter0Control, MatchComp1);
        c.comparators = probe(base + TCI_trTeComp0Control, kRangeComp) == kRangeComp &&
                        (probe(base + TCI_trTeFilter0Control, fc) & fc) == fc;
        write32(base + TCI_trTeFilter0Control, 0);
        write32(base + TCI_trTeComp0Control, 0);
    }
    c.triggers = probe(ctl, kActive | kNtrace | TCI_BIT(trTeControl, InstTrigEnable)) &
                 TCI_BIT(trTeControl, InstTrigEnable);
    uint32_t ts = TCI_BIT(trTsControl, Active) | TCI_SET(trTsControl, Mode, TCI_TSMODE_SHARED) |
                  TCI_BIT(trTsControl, Enable);
    c.timestamp = (probe(base + TCI_trTsControl, ts) & ts) == ts;
    ts = TCI_BIT(trTsControl, Active) | TCI_SET(trTsControl, Mode, TCI_TSMODE_CORE) |
         TCI_BIT(trTsControl, Count) | TCI_BIT(trTsControl, Enable);
    c.core_timestamp = (probe(base + TCI_trTsControl, ts) & ts) == ts;
    write32(base + TCI_trTsControl, 0);
    write32(base + TCI_trTeInstFilters, 0);
    write32(base + TCI_trTeInstFeatures, 0);
    write32(ctl, kActive | kNtrace);
    return true;
}

bool encoder_start(uint64_t base, const EncoderConfig &c) {
    if (!reset(base)) return false;
    // Triggers and data trace stay off; only filter 0 is used. Every
    // register of TCI 1.0 "Trace Components Reset" is written: they are
    // Undef at reset and may hold an earlier owner's settings.
    write32(base + TCI_trTeDataControl, 0);
    write32(base + TCI_trTeDataFilters, 0);
    write32(base + TCI_trTeTrigDbgControl, 0);
    write32(base + TCI_trTeTrigExtInControl, 0);
    write32(base + TCI_trTeTrigExtOutControl, 0);
    write32(base + TCI_trTeInstFeatures, c.features);
    // Filter 0: the privileges and the address range, both required.
    uint32_t fc = 0;
    if (c.range) {
        write32(base + TCI_trTeComp0PMatchLow, static_cast<uint32_t>(c.range_lo));
        write32(base + TCI_trTeComp0PMatchHigh, static_cast<uint32_t>(c.range_lo >> 32));
        write32(base + TCI_trTeComp0SMatchLow, static_cast<uint32_t>(c.range_hi));
        write32(base + TCI_trTeComp0SMatchHigh, static_cast<uint32_t>(c.range_hi >> 32));
        write32(base + TCI_trTeComp0Control, kRangeComp);
        if (read32(base + TCI_trTeComp0Control) != kRangeComp) return false;
        fc |= TCI_BIT(trTeFilter0Control, MatchComp1);
    }
    if (c.priv_filter) {
        write32(base + TCI_trTeFilter0MatchInst,
                TCI_SET(trTeFilter0MatchInst, ChoicePrivilege, c.priv_filter));
        fc |= TCI_BIT(trTeFilter0Control, MatchPrivilege);
    }
    if (fc) {
        fc |= TCI_BIT(trTeFilter0Control, Enable);
        write32(base + TCI_trTeFilter0Control, fc);
        write32(base + TCI_trTeInstFilters, 1);
        // Without the filter, M-mode would be traced: check it took.
        if (read32(base + TCI_trTeInstFilters) != 1 ||
            (read32(base + TCI_trTeFilter0Control) & fc) != fc)
            return false;
    } else {
        write32(base + TCI_trTeInstFilters, 0);
    }
    write32(base + TCI_trTsControl, c.ts_control);
    const uint64_t ctl = base + TCI_trTeControl;
    uint32_t v = kActive | c.control | (c.triggers ? TCI_BIT(trTeControl, InstTrigEnable) : 0);
    write32(ctl, v);
    // Everything written must stick (Empty and the sticky status bits are
    // read-only or write-1-to-clear).
    constexpr uint32_t kStatus = kEmpty | TCI_BIT(trTeControl, InstStallOrOverflow);
    if ((read32(ctl) & ~kStatus) != v) return false;
    // Data trace once trTeFormat says E-Trace (it has none in N-Trace).
    if (c.data_control) {
        write32(base + TCI_trTeDataControl, c.data_control);
        if (!(read32(base + TCI_trTeDataControl) & TCI_BIT(trTeDataControl, Tracing))) return false;
    }
    write32(ctl, v | kEnable);
    // With triggers, Sdtrig trace-on/off actions switch InstTracing.
    if (!c.triggers) write32(ctl, v | kEnable | TCI_BIT(trTeControl, InstTracing));
    return true;
}

bool encoder_stop(uint64_t base, bool &lost) {
    const uint64_t ctl = base + TCI_trTeControl;
    uint32_t v = read32(ctl);
    lost = (v & TCI_BIT(trTeControl, InstStallOrOverflow)) ||
           (read32(base + TCI_trTeDataControl) & TCI_BIT(trTeDataControl, StallOrOverflow));
    // InstStallOrOverflow is write-1-to-clear: write 0 there to keep it.
    v &= ~(kEnable | TCI_BIT(trTeControl, InstTracing) | TCI_BIT(trTeControl, InstStallOrOverflow));
    write32(ctl, v);
    return wait_bits(ctl, kEnable | kEmpty, kEmpty);
}

bool encoder_flush(uint64_t base, bool &lost) {
    const uint64_t ctl = base + TCI_trTeControl;
    constexpr uint32_t kTracing = TCI_BIT(trTeControl, InstTracing);
    constexpr uint32_t kOverflow = TCI_BIT(trTeControl, InstStallOrOverflow);
    uint32_t v = read32(ctl);
    lost = v & kOverflow;
    v &= ~(kTracing | kOverflow);
    write32(ctl, v | (lost ? kOverflow : 0)); // W1C: clear what was reported
    bool ok = wait_bits(ctl, kEmpty, kEmpty);
    write32(ctl, v | kTracing);
    return ok;
}

bool encoder_lost(uint64_t base) {
    return read32(base + TCI_trTeControl) & TCI_BIT(trTeControl, InstStallOrOverflow);
}

bool funnel_start(uint64_t base, bool top) {
    if (!reset(base)) return false;
    write32(base + TCI_trFunnelDisInput, 0);
    // Timestamps: the top-level funnel's unit counts (Internal System); a
    // lower funnel's forwards it to its encoders (Shared).
    uint32_t ts = TCI_BIT(trTsControl, Active) |
                  (top ? TCI_SET(trTsControl, Mode, TCI_TSMODE_INTERNAL) |
                             TCI_BIT(trTsControl, Count) | TCI_BIT(trTsControl, Reset)
                       : TCI_SET(trTsControl, Mode, TCI_TSMODE_SHARED));
    write32(base + TCI_trTsControl, ts);
    write32(base + TCI_trFunnelControl, kActive | kEnable);
    return true;
}

bool disable_and_flush(uint64_t base) {
    write32(base + TCI_trControl, read32(base + TCI_trControl) & ~kEnable);
    return wait_bits(base + TCI_trControl, kEnable | kEmpty, kEmpty);
}

bool discover_sink(uint64_t base, SinkCaps &c) {
    c = SinkCaps{};
    if (!reset(base)) return false;
    uint32_t impl = read32(base + TCI_trRamImpl);
    const uint64_t ctl = base + TCI_trRamControl;
    const uint32_t smem = TCI_SET(trRamControl, Mode, TCI_RAMMODE_SMEM);
    if (TCI_GET(impl, trRamImpl, HasSMEM) && (probe(ctl, kActive | smem) & smem)) {
        c.smem = true;
        write64(base, TCI_trRamStartLow, TCI_trRamStartHigh, ~0ull);
        // The highest address bit that sticks; the low bits may read 0 when
        // Start is "aligned on a particular 2^N boundary" (TCI 1.0
        // "Accessing and Detecting RAM Sink Registers").
        uint64_t top = read64(base, TCI_trRamStartLow, TCI_trRamStartHigh);
        c.smem_mask = (top ? ~0ull >> __builtin_clzll(top) : 0) | (TCI_RAM_ADDR_ALIGN - 1);
    }
    if (TCI_GET(impl, trRamImpl, HasSRAM) && !(probe(ctl, kActive) & smem)) {
        c.sram = true;
        write64(base, TCI_trRamLimitLow, TCI_trRamLimitHigh, ~0ull);
        c.sram_limit = read64(base, TCI_trRamLimitLow, TCI_trRamLimitHigh);
    }
    const uint32_t sow = TCI_BIT(trRamControl, StopOnWrap);
    c.stop_on_wrap = probe(ctl, kActive | sow) & sow;
    return reset(base);
}

bool sink_start(uint64_t base, const SinkConfig &c) {
    if (!reset(base)) return false;
    uint32_t mode = TCI_SET(trRamControl, Mode, c.smem ? TCI_RAMMODE_SMEM : TCI_RAMMODE_SRAM) |
                    (c.stop_on_wrap ? TCI_BIT(trRamControl, StopOnWrap) : 0);
    const uint64_t ctl = base + TCI_trRamControl;
    write32(ctl, kActive | mode);
    write64(base, TCI_trRamStartLow, TCI_trRamStartHigh, c.start);
    write64(base, TCI_trRamLimitLow, TCI_trRamLimitHigh, c.limit);
    // Writing trRamWPLow also clears trRamWrap.
    write64(base, TCI_trRamWPLow, TCI_trRamWPHigh, c.start);
    if (read64(base, TCI_trRamStartLow, TCI_trRamStartHigh) != c.start ||
        read64(base, TCI_trRamLimitLow, TCI_trRamLimitHigh) != c.limit ||
        (read32(ctl) & (mode | kActive)) != (mode | kActive))
        return false;
    write32(ctl, kActive | mode | kEnable);
    return true;
}

bool sink_pause(uint64_t base, uint64_t &wp, bool &wrapped) {
    bool ok = disable_and_flush(base);
    wp = sink_write_pointer(base, wrapped);
    if (wrapped) write32(base + TCI_trRamWPLow, static_cast<uint32_t>(wp));
    return ok;
}

void sink_restart_at(uint64_t base, uint64_t wp) { write64(base, TCI_trRamWPLow, TCI_trRamWPHigh, wp); }

void sink_resume(uint64_t base) {
    const uint64_t ctl = base + TCI_trRamControl;
    write32(ctl, read32(ctl) | kEnable);
}

bool sink_enabled(uint64_t base) { return read32(base + TCI_trRamControl) & kEnable; }

uint64_t sink_write_pointer(uint64_t base, bool &wrapped) {
    uint64_t wp = read64(base, TCI_trRamWPLow, TCI_trRamWPHigh);
    wrapped = wp & TCI_BIT(trRamWPLow, Wrap);
    return wp & ~static_cast<uint64_t>(TCI_RAM_ADDR_ALIGN - 1);
}

void sram_read(uint64_t base, uint64_t from, uint32_t *out, unsigned words) {
    write64(base, TCI_trRamRPLow, TCI_trRamRPHigh, from);
    for (unsigned i = 0; i < words; i++) out[i] = read32(base + TCI_trRamData);
}

} // namespace trace
