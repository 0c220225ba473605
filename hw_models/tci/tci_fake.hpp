// SPDX-License-Identifier: BSD-2-Clause
// A register-level fake of Trace Control Interface 1.0 components for host
// tests of trace software (tests/trace_fw): trace encoders, trace funnels
// and a trace RAM sink, each a 4 KiB register block on a Bus. What a real
// implementation may choose (TCI 1.0 leaves much to it: WARL fields, the
// time the Active and Empty handshakes take, Impl values) is set per
// instance, so tests can run the same software against many of them.
//
// It models registers only, no trace: a test makes the sink "receive" words
// (RamSink::emit) and sets status bits (Encoder::set_stall_or_overflow).
// Every write is logged, with every change of a tr??Control value seen by a
// read, so tests can check the order of the "Enabling and Disabling" and
// "Reset and Discovery" sequences. Names follow the specification and the
// register map hw_models/trace/tci_regs.def.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tci_fake {

// A handshake that never completes (Timing).
constexpr unsigned kNever = ~0u;

// tr??Impl fields (TCI 1.0 "Versioning of Components"); the protocol
// fields exist in trTeImpl only.
struct Impl {
    unsigned ver_major = 1, ver_minor = 0, comp_type = 0;
    unsigned protocol_major = 1, protocol_minor = 0;
    unsigned vendor = 0;
};

// "Hardware may take an arbitrarily long time to process power-up and
// power-down and will indicate completion when the read value of this bit
// matches what was written" (tr??Active), and Empty reads 0 while queued
// trace is flushed after Enable goes to 0.
struct Timing {
    unsigned active_reads = 0; // reads of tr??Control that still show the old Active (kNever: forever)
    unsigned empty_reads = 0;  // reads of tr??Control with Empty = 0 after Enable 1 -> 0 (kNever: forever)
};

// Timestamp Unit (TCI 1.0 "Timestamp Unit"), in an encoder or a funnel.
struct TimestampSpec {
    uint32_t modes = 0; // bit m: trTsMode m sticks; 0: no timestamp unit (trTsControl reads 0)
    bool enable = true; // trTsEnable sticks (encoders only)
    unsigned width = 40;
};

struct EncoderSpec {
    uint32_t inst_modes = 1u << 3 | 1u << 6; // bit m: trTeInstMode m sticks (0 always does)
    uint32_t formats = 1u << 1;              // bit f: trTeFormat f sticks (1: N-Trace)
    uint32_t features = 0x7ff;               // trTeInstFeatures bits 10:0 that stick
    unsigned src_bits_max = 12;              // largest trTeSrcBits; trTeSrcID holds as many bits
    uint32_t sync_modes = 1u << 1 | 1u << 2 | 1u << 3; // bit m: trTeInstSyncMode m (1..3) sticks
    unsigned sync_max_max = 15;              // largest trTeInstSyncMax
    unsigned filters = 1;                    // filters implemented (trTeInstFilters bits)
    bool match_privilege = true;             // trTeFilterMatchPrivilege sticks
    uint32_t priv_choices = 0x73;            // trTeFilterMatchChoicePrivilege bits that stick (U S M VU VS)
    bool context = true, stall = true, inhibit_src = true, trig_enable = false;
    bool no_mmode = false;                   // the project QEMU's trTeVendorControl.NoMmode (tci_regs.def)
    TimestampSpec ts{1u << 4, true, 40};     // Shared
    Impl impl{1, 0, 0x1, 1, 0, 0};
    Timing timing;
};

struct FunnelSpec {
    unsigned inputs = 16;                    // trFunnelDisInput bits that stick
    TimestampSpec ts{1u << 2 | 1u << 4, false, 40}; // Internal System or Shared
    Impl impl{1, 0, 0x8, 0, 0, 0};
    Timing timing;
};

struct RamSinkSpec {
    bool has_sram = true, has_smem = true;
    uint32_t sram_bytes = 0x10000;           // power of two
    bool sram_limit_writable = true;         // trRamLimitLow trims the SRAM
    unsigned smem_addr_bits = 40;            // trRamStart/Limit/WP bits in SMEM mode
    uint64_t smem_start_align = 4;           // trRamStart alignment in SMEM mode (power of two)
    bool stop_on_wrap = true;                // trRamStopOnWrap sticks
    Impl impl{1, 0, 0x9, 0, 0, 0};
    Timing timing;
};

class Component;

// One bus access of interest: every write, and every read of tr??Control
// whose value differs from the previous read of it (handshakes seen).
struct Access {
    enum Kind { Write, ControlRead } kind;
    const Component *comp;
    unsigned offset;
    uint32_t value;
};

class Bus;

class Component {
public:
    Component(Bus &bus, std::string name, uint64_t base, Impl impl, Timing timing);
    virtual ~Component() = default;
    uint32_t read(unsigned offset);
    void write(unsigned offset, uint32_t value);

    const std::string name;
    const uint64_t base;
    Impl impl;
    Timing timing;
    // Active as software reads it back, and Enable.
    bool active() const { return active_; }
    bool enabled() const { return enable_; }
    // Queued trace: Empty reads 0 while set (with Enable = 1 or 0).
    bool busy = false;
    // Rule breaks the fake notices: writes with reserved bits set ("software
    // should always write 0 to reserved bits"), and writes to registers
    // other than tr??Control while the component is held in reset ("other
    // register locations may be inaccessible").
    unsigned reserved_writes = 0, writes_in_reset = 0;

protected:
    // tr??Control bits other than Active, Enable and Empty.
    virtual uint32_t control_fields() const = 0;
    // tr??Impl bits other than the version, type and vendor fields.
    virtual uint32_t impl_fields() const { return 0; }
    virtual void write_control_fields(uint32_t value) = 0;
    // Release from reset: "all WARL and read-only fields will be set to defaults".
    virtual void reset_fields() = 0;
    virtual void on_enable() {}
    virtual uint32_t read_reg(unsigned offset) = 0;
    virtual void write_reg(unsigned offset, uint32_t value) = 0;
    // Bits of register `offset` that are not reserved (all ones: unknown register).
    virtual uint32_t defined_bits(unsigned offset) const = 0;
    void set_enable(bool on) { enable_ = on; }

    Bus &bus_;

private:
    uint32_t control_value();
    bool active_ = false, active_target_ = false, enable_ = false;
    unsigned active_wait_ = 0, empty_wait_ = 0;
    uint32_t last_control_read_ = ~0u;
};

// Timestamp Unit registers at 0x040..0x04F.
class TimestampUnit {
public:
    explicit TimestampUnit(TimestampSpec s, bool encoder) : spec(s), encoder_(encoder) {}
    uint32_t read(unsigned offset) const;
    void write(unsigned offset, uint32_t value);
    void reset() { control_ = 0; }
    static uint32_t defined_bits(unsigned offset);
    TimestampSpec spec;
    unsigned counter_resets = 0; // writes of trTsReset = 1

private:
    bool encoder_;
    uint32_t control_ = 0;
};

class Encoder : public Component {
public:
    Encoder(Bus &bus, std::string name, uint64_t base, EncoderSpec spec);
    EncoderSpec spec;
    // trTeVendorControl.NoMmode as set (kept across tr??Active resets).
    bool no_mmode() const { return no_mmode_; }
    // Hardware sets trTeInstStallOrOverflow (trace lost or a stall).
    void set_stall_or_overflow() { stall_or_overflow_ = true; }
    bool inst_tracing() const { return inst_tracing_; }
    uint32_t inst_features() const { return features_; }
    uint32_t inst_filters() const { return filters_; }

protected:
    uint32_t control_fields() const override;
    void write_control_fields(uint32_t value) override;
    void reset_fields() override;
    void on_enable() override { stall_or_overflow_ = false; }
    uint32_t read_reg(unsigned offset) override;
    void write_reg(unsigned offset, uint32_t value) override;
    uint32_t defined_bits(unsigned offset) const override;

private:
    bool inst_tracing_ = false, context_ = false, trig_enable_ = false, stall_or_overflow_ = false,
         stall_ena_ = false, inhibit_src_ = false;
    unsigned inst_mode_ = 0, sync_mode_ = 0, sync_max_ = 0, format_ = 0;
    uint32_t features_ = 0, filters_ = 0;
    uint32_t filter_control_[16] = {}, filter_match_inst_[16] = {};
    TimestampUnit ts_;
    bool no_mmode_ = false;
};

class Funnel : public Component {
public:
    Funnel(Bus &bus, std::string name, uint64_t base, FunnelSpec spec);
    FunnelSpec spec;
    uint32_t dis_input() const { return dis_input_; }
    const TimestampUnit &timestamp() const { return ts_; }

protected:
    uint32_t control_fields() const override { return 0; }
    void write_control_fields(uint32_t) override {}
    void reset_fields() override;
    uint32_t read_reg(unsigned offset) override;
    void write_reg(unsigned offset, uint32_t value) override;
    uint32_t defined_bits(unsigned offset) const override;

private:
    uint32_t dis_input_ = 0;
    TimestampUnit ts_;
};

class RamSink : public Component {
public:
    RamSink(Bus &bus, std::string name, uint64_t base, RamSinkSpec spec);
    RamSinkSpec spec;
    // SRAM contents, one 32-bit word per entry (sram_bytes / 4 of them).
    std::vector<uint32_t> sram;
    // The sink stores `words` trace words at trRamWP (SRAM mode: into
    // `sram`; SMEM mode: nowhere, only the pointer moves), wrapping from
    // trRamLimit to trRamStart and setting trRamWrap; with trRamStopOnWrap
    // it stops (Enable = 0) once the buffer is full.
    void emit(const std::vector<uint32_t> &words);
    bool smem_mode() const { return smem_; }
    bool stop_on_wrap() const { return stop_on_wrap_; }
    uint64_t start() const { return smem_ ? smem_start_ : 0; }
    uint64_t limit() const { return smem_ ? smem_limit_ : sram_limit_; }
    uint64_t wp() const { return wp_; }
    bool wrap() const { return wrap_; }
    // Writes of trRamStart/Limit/WP while the sink is enabled ("the trace
    // tool should NOT write any of trRamStart/Limit/WP?? registers").
    unsigned writes_while_enabled = 0;

protected:
    uint32_t control_fields() const override;
    uint32_t impl_fields() const override;
    void write_control_fields(uint32_t value) override;
    void reset_fields() override;
    uint32_t read_reg(unsigned offset) override;
    void write_reg(unsigned offset, uint32_t value) override;
    uint32_t defined_bits(unsigned offset) const override;

private:
    uint64_t smem_mask() const;
    uint64_t sram_mask() const { return (spec.sram_bytes - 1) & ~3ull; }
    static void set_half(uint64_t &v, bool high, uint32_t half);
    bool smem_ = false, stop_on_wrap_ = false, wrap_ = false;
    uint64_t smem_start_ = 0, smem_limit_ = 0, sram_limit_ = 0, wp_ = 0, rp_ = 0;
};

class Bus {
public:
    Encoder &add_encoder(uint64_t base, EncoderSpec spec = {});
    Funnel &add_funnel(uint64_t base, FunnelSpec spec = {});
    RamSink &add_sink(uint64_t base, RamSinkSpec spec = {});

    uint32_t read32(uint64_t addr);
    void write32(uint64_t addr, uint32_t value);

    std::vector<Access> log;
    // Accesses to no component, or not 32-bit aligned.
    unsigned stray = 0;
    // Total reads (timeouts poll a lot: tests can see the bound).
    uint64_t reads = 0;

    // The log from entry `from` on: index of the first entry matching `pred`, or log.size().
    template <typename P> size_t find(P pred, size_t from = 0) const {
        for (size_t i = from; i < log.size(); i++)
            if (pred(log[i])) return i;
        return log.size();
    }
    // Writes to `c` (at `offset`, or anywhere with ~0u).
    std::vector<Access> writes(const Component &c, unsigned offset = ~0u) const;

private:
    friend class Component;
    Component *at(uint64_t addr);
    std::vector<std::unique_ptr<Component>> comps_;
    unsigned counter_[3] = {};
};

} // namespace tci_fake
