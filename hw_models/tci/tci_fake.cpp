// SPDX-License-Identifier: BSD-2-Clause
// Trace Control Interface 1.0 components as registers (tci_fake.hpp). Each
// register's behaviour follows its table in the specification; section
// names are given where the behaviour is not in the table itself.
#include "tci_fake.hpp"
#include "tci_regs.h"

namespace tci_fake {
namespace {

constexpr uint32_t field(uint32_t v, uint32_t mask, unsigned lsb) { return (v & mask) >> lsb; }
constexpr uint32_t place(uint32_t x, uint32_t mask, unsigned lsb) { return (x << lsb) & mask; }
#define GET(v, reg, name) field(v, TCI_##reg##_##name##_MASK, TCI_##reg##_##name##_LSB)
#define SET(reg, name, x) place(x, TCI_##reg##_##name##_MASK, TCI_##reg##_##name##_LSB)
#define BIT(reg, name) static_cast<uint32_t>(TCI_##reg##_##name##_MASK)

constexpr uint32_t kActive = BIT(trControl, Active), kEnable = BIT(trControl, Enable),
                   kEmpty = BIT(trControl, Empty);

uint32_t impl_value(const Impl &i, bool encoder) {
    uint32_t v = SET(trImpl, VerMajor, i.ver_major) | SET(trImpl, VerMinor, i.ver_minor) |
                 SET(trImpl, CompType, i.comp_type) | SET(trImpl, Vendor, i.vendor);
    if (encoder)
        v |= SET(trTeImpl, ProtocolMajor, i.protocol_major) | SET(trTeImpl, ProtocolMinor, i.protocol_minor);
    return v;
}

// A WARL field holding one of the values in `legal` (bit per value): an
// illegal write keeps the current value.
unsigned warl_choice(uint32_t legal, unsigned want, unsigned current) {
    return (legal >> want) & 1 ? want : current;
}

} // namespace

// ---- every component: tr??Control and tr??Impl ("Register Map", "Reset and Discovery")

Component::Component(Bus &bus, std::string n, uint64_t b, Impl i, Timing t)
    : name(std::move(n)), base(b), impl(i), timing(t), bus_(bus) {}

uint32_t Component::control_value() {
    // A pending Active change shows after the configured number of reads.
    if (active_target_ != active_) {
        if (active_wait_ == 0) {
            active_ = active_target_;
            if (active_) reset_fields();
        } else if (active_wait_ != kNever) {
            active_wait_--;
        }
    }
    bool flushing = empty_wait_ != 0;
    if (flushing && empty_wait_ != kNever) empty_wait_--;
    return (active_ ? kActive : 0) | (enable_ ? kEnable : 0) | (flushing || busy ? 0 : kEmpty) |
           (active_ ? control_fields() : 0);
}

uint32_t Component::read(unsigned offset) {
    if (offset == TCI_trControl) {
        uint32_t v = control_value();
        if (v != last_control_read_) bus_.log.push_back({Access::ControlRead, this, offset, v});
        last_control_read_ = v;
        return v;
    }
    // tr??Impl is read-only and readable in reset too (software checks it
    // right after the handshake; nothing is gained by hiding it).
    if (offset == TCI_trImpl) return impl_value(impl, impl.comp_type == TCI_COMPTYPE_ENCODER) | impl_fields();
    return active_ ? read_reg(offset) : 0;
}

void Component::write(unsigned offset, uint32_t value) {
    bus_.log.push_back({Access::Write, this, offset, value});
    if (value & ~defined_bits(offset)) reserved_writes++;
    if (offset == TCI_trImpl) return;
    if (offset != TCI_trControl) {
        if (active_) write_reg(offset, value);
        else writes_in_reset++;
        return;
    }
    bool want_active = value & kActive;
    if (want_active != active_target_) {
        active_target_ = want_active;
        active_wait_ = timing.active_reads;
        if (active_wait_ == 0) {
            active_ = want_active;
            if (active_) reset_fields();
        }
    }
    if (!want_active) {
        // "When component is held in reset (tr??Active is 0), then tr??Enable
        // bit must be reset to 0 as well"; queued trace is dropped.
        enable_ = false;
        empty_wait_ = 0;
        return;
    }
    if (!active_) return; // the other fields are not accessible yet
    bool want_enable = value & kEnable;
    // "Setting tr??Enable to 0 flushes any queued trace data".
    if (enable_ && !want_enable) empty_wait_ = timing.empty_reads;
    if (!enable_ && want_enable) on_enable();
    enable_ = want_enable;
    write_control_fields(value);
}

// ---- Timestamp Unit ("Timestamp Unit": trTsControl, trTsCounterLow/High)

uint32_t TimestampUnit::read(unsigned offset) const {
    if (!spec.modes) return 0;
    if (offset == TCI_trTsControl) return control_ | SET(trTsControl, Width, spec.width);
    return 0; // trTsCounterLow/High: the fake's counter does not run
}

void TimestampUnit::write(unsigned offset, uint32_t v) {
    if (!spec.modes || offset != TCI_trTsControl) return;
    // trTsReset is write-1 (reads 0): it resets the counter.
    if (v & BIT(trTsControl, Reset)) counter_resets++;
    unsigned mode = warl_choice(spec.modes | 1, GET(v, trTsControl, Mode), GET(control_, trTsControl, Mode));
    control_ = (v & (BIT(trTsControl, Active) | BIT(trTsControl, Count))) | SET(trTsControl, Mode, mode) |
               (encoder_ && spec.enable ? v & BIT(trTsControl, Enable) : 0);
}

uint32_t TimestampUnit::defined_bits(unsigned) {
    // Bits 7, 14:10 and 31:30 are reserved; 23:16 are vendor-specific.
    return 0x3fff837f;
}

// ---- Trace Encoder ("Trace Encoder Control Interface", "Trace Encoder Filter Registers")

Encoder::Encoder(Bus &bus, std::string n, uint64_t b, EncoderSpec s)
    : Component(bus, std::move(n), b, s.impl, s.timing), spec(s), ts_(s.ts, true) {}

void Encoder::reset_fields() {
    inst_tracing_ = context_ = trig_enable_ = stall_or_overflow_ = stall_ena_ = inhibit_src_ = false;
    inst_mode_ = sync_mode_ = sync_max_ = 0;
    // trTeFormat resets to the implemented protocol (the lowest one).
    format_ = spec.formats ? static_cast<unsigned>(__builtin_ctz(spec.formats)) : 0;
    features_ = filters_ = 0;
    for (unsigned i = 0; i < 16; i++) filter_control_[i] = filter_match_inst_[i] = 0;
    ts_.reset();
}

uint32_t Encoder::control_fields() const {
    return (inst_tracing_ ? BIT(trTeControl, InstTracing) : 0) | SET(trTeControl, InstMode, inst_mode_) |
           (context_ ? BIT(trTeControl, Context) : 0) | (trig_enable_ ? BIT(trTeControl, InstTrigEnable) : 0) |
           (stall_or_overflow_ ? BIT(trTeControl, InstStallOrOverflow) : 0) |
           (stall_ena_ ? BIT(trTeControl, InstStallEna) : 0) |
           (inhibit_src_ ? BIT(trTeControl, InhibitSrc) : 0) | SET(trTeControl, InstSyncMode, sync_mode_) |
           SET(trTeControl, InstSyncMax, sync_max_) | SET(trTeControl, Format, format_);
}

void Encoder::write_control_fields(uint32_t v) {
    inst_tracing_ = enabled() && (v & BIT(trTeControl, InstTracing));
    // trTeInstMode: "When non-supported mode (different than 0) is set, it
    // cannot revert to 0 but MUST revert to supported non-0 mode."
    unsigned mode = GET(v, trTeControl, InstMode);
    if (mode == 0 || (spec.inst_modes >> mode & 1)) inst_mode_ = mode;
    else if (!(inst_mode_ && (spec.inst_modes >> inst_mode_ & 1)))
        inst_mode_ = spec.inst_modes & ~1u ? static_cast<unsigned>(__builtin_ctz(spec.inst_modes & ~1u)) : 0;
    context_ = spec.context && (v & BIT(trTeControl, Context));
    trig_enable_ = spec.trig_enable && (v & BIT(trTeControl, InstTrigEnable));
    if (v & BIT(trTeControl, InstStallOrOverflow)) stall_or_overflow_ = false; // RW1C
    stall_ena_ = spec.stall && (v & BIT(trTeControl, InstStallEna));
    inhibit_src_ = spec.inhibit_src && (v & BIT(trTeControl, InhibitSrc));
    sync_mode_ = warl_choice(spec.sync_modes | 1, GET(v, trTeControl, InstSyncMode), sync_mode_);
    unsigned max = GET(v, trTeControl, InstSyncMax);
    sync_max_ = max < spec.sync_max_max ? max : spec.sync_max_max;
    format_ = warl_choice(spec.formats, GET(v, trTeControl, Format), format_);
}

uint32_t Encoder::read_reg(unsigned off) {
    switch (off) {
    case TCI_trTeInstFeatures: return features_;
    case TCI_trTeInstFilters: return filters_;
    case TCI_trTeVendorControl: return no_mmode_ ? BIT(trTeVendorControl, NoMmode) : 0;
    case TCI_trTsControl:
    case TCI_trTsCounterLow:
    case TCI_trTsCounterHigh: return ts_.read(off);
    default: break;
    }
    if (off >= TCI_trTeFilter0Control && off < TCI_trTeFilter0Control + 16 * TCI_trTeFilter0Control_STRIDE) {
        unsigned i = (off - TCI_trTeFilter0Control) / TCI_trTeFilter0Control_STRIDE;
        unsigned r = (off - TCI_trTeFilter0Control) % TCI_trTeFilter0Control_STRIDE;
        if (i >= spec.filters) return 0;
        if (r == 0) return filter_control_[i];
        if (r == TCI_trTeFilter0MatchInst - TCI_trTeFilter0Control) return filter_match_inst_[i];
    }
    // trTeDataControl: trTeDataImplemented = 0 (no data trace); triggers,
    // comparators and other filter registers are not implemented.
    return 0;
}

void Encoder::write_reg(unsigned off, uint32_t v) {
    switch (off) {
    case TCI_trTeInstFeatures: {
        uint32_t bits = GET(v, trTeInstFeatures, SrcBits);
        uint32_t id_mask = (1u << spec.src_bits_max) - 1;
        features_ = (v & spec.features & 0x7ff) |
                    SET(trTeInstFeatures, SrcID, GET(v, trTeInstFeatures, SrcID) & id_mask) |
                    SET(trTeInstFeatures, SrcBits, bits < spec.src_bits_max ? bits : spec.src_bits_max);
        return;
    }
    case TCI_trTeInstFilters: filters_ = v & ((1u << spec.filters) - 1); return;
    case TCI_trTeVendorControl: no_mmode_ |= spec.no_mmode && (v & BIT(trTeVendorControl, NoMmode)); return;
    case TCI_trTsControl: ts_.write(off, v); return;
    default: break;
    }
    if (off >= TCI_trTeFilter0Control && off < TCI_trTeFilter0Control + 16 * TCI_trTeFilter0Control_STRIDE) {
        unsigned i = (off - TCI_trTeFilter0Control) / TCI_trTeFilter0Control_STRIDE;
        unsigned r = (off - TCI_trTeFilter0Control) % TCI_trTeFilter0Control_STRIDE;
        if (i >= spec.filters) return;
        if (r == 0)
            filter_control_[i] = v & (BIT(trTeFilter0Control, Enable) |
                                      (spec.match_privilege ? BIT(trTeFilter0Control, MatchPrivilege) : 0));
        else if (r == TCI_trTeFilter0MatchInst - TCI_trTeFilter0Control)
            filter_match_inst_[i] = v & spec.priv_choices & TCI_trTeFilter0MatchInst_ChoicePrivilege_MASK;
    }
}

uint32_t Encoder::defined_bits(unsigned off) const {
    switch (off) {
    case TCI_trTeControl: return 0x07f3ba7f;      // reserved: 8:7, 10, 14, 19:18, 31:27
    case TCI_trTeInstFeatures: return 0xffff07ff; // reserved: 15:11
    case TCI_trTeInstFilters:
    case TCI_trTeDataFilters: return 0xffff;
    case TCI_trTeDataControl: return 0x000f007f;
    case TCI_trTsControl: return TimestampUnit::defined_bits(off);
    case TCI_trTeVendorControl: return TCI_trTeVendorControl_NoMmode_MASK;
    default: break;
    }
    if (off >= TCI_trTeFilter0Control && off < TCI_trTeFilter0Control + 16 * TCI_trTeFilter0Control_STRIDE) {
        unsigned r = (off - TCI_trTeFilter0Control) % TCI_trTeFilter0Control_STRIDE;
        if (r == 0) return 0x0301ffff;
        if (r == TCI_trTeFilter0MatchInst - TCI_trTeFilter0Control) return 0x1ff;
    }
    return ~0u;
}

// ---- Trace Funnel

Funnel::Funnel(Bus &bus, std::string n, uint64_t b, FunnelSpec s)
    : Component(bus, std::move(n), b, s.impl, s.timing), spec(s), ts_(s.ts, false) {}

void Funnel::reset_fields() {
    dis_input_ = 0;
    ts_.reset();
}

uint32_t Funnel::read_reg(unsigned off) {
    if (off == TCI_trFunnelDisInput) return dis_input_;
    if (off == TCI_trTsControl || off == TCI_trTsCounterLow || off == TCI_trTsCounterHigh) return ts_.read(off);
    return 0;
}

void Funnel::write_reg(unsigned off, uint32_t v) {
    if (off == TCI_trFunnelDisInput) dis_input_ = v & ((1u << spec.inputs) - 1);
    else if (off == TCI_trTsControl) ts_.write(off, v);
}

uint32_t Funnel::defined_bits(unsigned off) const {
    switch (off) {
    case TCI_trFunnelControl: return kActive | kEnable | kEmpty;
    case TCI_trFunnelDisInput: return 0xffff;
    case TCI_trTsControl: return TimestampUnit::defined_bits(off);
    default: return ~0u;
    }
}

// ---- Trace RAM Sink ("Trace RAM Sink", "Accessing and Detecting RAM Sink Registers")

RamSink::RamSink(Bus &bus, std::string n, uint64_t b, RamSinkSpec s)
    : Component(bus, std::move(n), b, s.impl, s.timing), spec(s), sram(s.sram_bytes / 4),
      sram_limit_(s.sram_bytes - 4) {}

uint64_t RamSink::smem_mask() const {
    uint64_t m = spec.smem_addr_bits >= 64 ? ~0ull : (1ull << spec.smem_addr_bits) - 1;
    return m & ~3ull;
}

void RamSink::reset_fields() {
    // trRamMode: the only mode, or SRAM. Start, Limit and the pointers are
    // Undef at reset: they keep their values here (software must set them).
    smem_ = spec.has_smem && !spec.has_sram;
    stop_on_wrap_ = false;
    if (!spec.sram_limit_writable) sram_limit_ = spec.sram_bytes - 4;
}

uint32_t RamSink::impl_fields() const {
    return (spec.has_sram ? BIT(trRamImpl, HasSRAM) : 0) | (spec.has_smem ? BIT(trRamImpl, HasSMEM) : 0);
}

uint32_t RamSink::control_fields() const {
    return SET(trRamControl, Mode, smem_ ? TCI_RAMMODE_SMEM : TCI_RAMMODE_SRAM) |
           (stop_on_wrap_ ? BIT(trRamControl, StopOnWrap) : 0);
}

void RamSink::write_control_fields(uint32_t v) {
    bool want_smem = GET(v, trRamControl, Mode) == TCI_RAMMODE_SMEM;
    if (want_smem ? spec.has_smem : spec.has_sram) smem_ = want_smem;
    stop_on_wrap_ = spec.stop_on_wrap && (v & BIT(trRamControl, StopOnWrap));
    // trRamMemFormat and trRamAsyncFreq: only 0 (plain bytes, no Async).
}

void RamSink::set_half(uint64_t &v, bool high, uint32_t half) {
    v = high ? (v & 0xffffffffull) | static_cast<uint64_t>(half) << 32 : (v & ~0xffffffffull) | half;
}

uint32_t RamSink::read_reg(unsigned off) {
    auto half = [&](uint64_t v, bool high) { return static_cast<uint32_t>(high ? v >> 32 : v); };
    switch (off) {
    case TCI_trRamStartLow:
    case TCI_trRamStartHigh: return half(start(), off == TCI_trRamStartHigh);
    case TCI_trRamLimitLow:
    case TCI_trRamLimitHigh: return half(limit(), off == TCI_trRamLimitHigh);
    case TCI_trRamWPLow: return half(wp_, false) | (wrap_ ? BIT(trRamWPLow, Wrap) : 0);
    case TCI_trRamWPHigh: return half(wp_, true);
    // trRamRP/trRamData exist in SRAM mode only ("Required for SRAM mode and
    // optional for SMEM mode").
    case TCI_trRamRPLow:
    case TCI_trRamRPHigh: return smem_ ? 0 : half(rp_, off == TCI_trRamRPHigh);
    case TCI_trRamData: {
        if (smem_) return 0;
        uint32_t v = sram[(rp_ & sram_mask()) / 4];
        // Reading while enabled is not supported here: RP does not advance.
        if (!enabled()) rp_ = rp_ == sram_limit_ ? 0 : rp_ + 4;
        return v;
    }
    default: return 0;
    }
}

void RamSink::write_reg(unsigned off, uint32_t v) {
    bool high = off & 4; // every High register is at its Low register + 4
    bool pointer = off >= TCI_trRamStartLow && off <= TCI_trRamWPHigh;
    if (pointer && enabled()) writes_while_enabled++;
    switch (off) {
    case TCI_trRamStartLow:
    case TCI_trRamStartHigh:
        // SRAM mode: trRamStart is fixed at 0.
        if (smem_) {
            set_half(smem_start_, high, v);
            smem_start_ &= smem_mask() & ~(spec.smem_start_align - 1);
        }
        return;
    case TCI_trRamLimitLow:
    case TCI_trRamLimitHigh:
        if (smem_) {
            set_half(smem_limit_, high, v);
            smem_limit_ &= smem_mask();
        } else if (spec.sram_limit_writable && !high) {
            // Trimming only: at most the SRAM size (trRamLimitHigh is not implemented).
            uint64_t l = v & ~3u;
            sram_limit_ = l < spec.sram_bytes - 4 ? l : spec.sram_bytes - 4;
        }
        return;
    case TCI_trRamWPLow:
    case TCI_trRamWPHigh:
        set_half(wp_, high, v);
        wp_ &= smem_ ? smem_mask() : sram_mask();
        // trRamWrap "is only set to 0 if trRamWPLow is written" (WARL: it
        // takes the bit written).
        if (!high) wrap_ = v & BIT(trRamWPLow, Wrap);
        return;
    case TCI_trRamRPLow:
    case TCI_trRamRPHigh:
        // "support for reading SRAM trace while trace is active may not
        // always be implemented. In such a case write to trRamRP must be
        // ignored" (as here).
        if (smem_ || enabled()) return;
        set_half(rp_, high, v);
        rp_ &= sram_mask();
        return;
    default: return;
    }
}

uint32_t RamSink::defined_bits(unsigned off) const {
    if (off == TCI_trRamControl) return 0x771b; // reserved: 2, 7:5, 11, 31:15
    return ~0u; // address registers: discovery writes 0xFFFFFFFF
}

void RamSink::emit(const std::vector<uint32_t> &words) {
    for (uint32_t w : words) {
        if (!enabled()) return;
        if (!smem_) sram[(wp_ & sram_mask()) / 4] = w;
        // "After a trace word write occurs while trRamWP = trRamLimit,
        // trRamWP is set to trRamStart."
        if (wp_ == limit()) {
            wp_ = start();
            wrap_ = true;
            if (stop_on_wrap_) set_enable(false);
        } else {
            wp_ += 4;
        }
    }
}

// ---- Bus

Encoder &Bus::add_encoder(uint64_t base, EncoderSpec spec) {
    auto *c = new Encoder(*this, "encoder" + std::to_string(counter_[0]++), base, spec);
    comps_.emplace_back(c);
    return *c;
}

Funnel &Bus::add_funnel(uint64_t base, FunnelSpec spec) {
    auto *c = new Funnel(*this, "funnel" + std::to_string(counter_[1]++), base, spec);
    comps_.emplace_back(c);
    return *c;
}

RamSink &Bus::add_sink(uint64_t base, RamSinkSpec spec) {
    auto *c = new RamSink(*this, "sink" + std::to_string(counter_[2]++), base, spec);
    comps_.emplace_back(c);
    return *c;
}

Component *Bus::at(uint64_t addr) {
    for (auto &c : comps_)
        if (addr - c->base < TCI_COMPONENT_SIZE) return c.get();
    return nullptr;
}

uint32_t Bus::read32(uint64_t addr) {
    reads++;
    Component *c = at(addr);
    if (!c || (addr & 3)) {
        stray++;
        return 0;
    }
    return c->read(static_cast<unsigned>(addr - c->base));
}

void Bus::write32(uint64_t addr, uint32_t value) {
    Component *c = at(addr);
    if (!c || (addr & 3)) {
        stray++;
        return;
    }
    c->write(static_cast<unsigned>(addr - c->base), value);
}

std::vector<Access> Bus::writes(const Component &c, unsigned offset) const {
    std::vector<Access> out;
    for (auto &a : log)
        if (a.kind == Access::Write && a.comp == &c && (offset == ~0u || a.offset == offset)) out.push_back(a);
    return out;
}

} // namespace tci_fake
