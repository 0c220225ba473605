// SPDX-License-Identifier: BSD-2-Clause
#include "service.hpp"
#include "driver.hpp"
#include "tci.hpp"
#include "atomic.hpp"

namespace trace {
namespace {

using HartTrace = SlotState;

struct State {
    const Topology *tp; // the scan's (hooks.cpp keeps it): no copy of kMaxSlots encoders
    bool usable;
    bool smode_owner; // the components belong to S-mode: hands off
    unsigned mmode_excluded; // S-mode's encoders that cannot trace M-mode
    bool allow_mmode; // platform lets traces include M-mode (no privilege filter)
    unsigned src_bits;
    SinkCaps sink_caps;
    bool sink_set, sink_running;
    SinkConfig sink;
    uint32_t sink_flags;
    BootHeader *boot; // boot-time trace header while its buffer is the sink
    HartTrace *hart; // by slot, `slots` of them (carved per hart: init's `slots`)
    unsigned slots;
    // CTR feed: its buffer, whether it holds the sink, the stream position
    // of the write pointer (bytes since the feed's sink start).
    uint64_t ctr_base, ctr_size;
    unsigned ctr_harts;
    unsigned ctr_collector; // the hart between ctr_feed_collect and ctr_feed_release
    uint64_t ctr_total;
    bool ctr_cycles; // the feed's messages carry TSTAMP: the harts' cycles (Internal Core)
};
State st;

// The slot of hart `hartid`, kNoSlot without one or without its state.
unsigned slot_of_hart(unsigned long hartid) {
    const unsigned s = st.tp ? slot_of(*st.tp, hartid) : kNoSlot;
    return s < st.slots ? s : kNoSlot;
}

// One lock for the service: SBI calls from any hart and the HSM hooks.
fw::atomic<unsigned> lock_word; // word-sized: RV has no byte-wide AMO
void lock_word_acquire() {
    while (lock_word.exchange(1, fw::memory_order_acquire)) {
    }
}
struct Guard {
    Guard() { lock_word_acquire(); }
    ~Guard() { lock_word.store(0, fw::memory_order_release); }
};

unsigned bits_for(unsigned long max_id) {
    unsigned b = 1; // always a SRC field: a decoder demultiplexes any stream alike
    while ((1ul << b) <= max_id) b++;
    return b;
}

// Slots of `m` that have state (slots past st.slots are not served: init).
template <typename F> void for_each(const HartMask &m, F f) {
    for (unsigned w = 0; w < HartMask::kWords; w++)
        for (uint64_t b = m.w[w]; b; b &= b - 1) {
            const unsigned s = w * 64 + static_cast<unsigned>(__builtin_ctzll(b));
            if (s < st.slots) f(s);
        }
}

// Every slot of `m` has state (a slot past st.slots is no encoder's the
// service serves: init).
bool served(const HartMask &m) {
    for (unsigned w = st.slots / 64; w < HartMask::kWords; w++)
        if (m.w[w] & (w == st.slots / 64 ? ~0ull << (st.slots % 64) : ~0ull)) return false;
    return true;
}

bool mode_ok(const HartTrace &h, unsigned mode) {
    return (mode == TCI_INSTMODE_BTM && h.caps.btm) || (mode == TCI_INSTMODE_HTM && h.caps.htm);
}

uint32_t priv_choice(uint32_t config) {
    uint32_t c = 0;
    if (config & cfg::PRIV_U) c |= 1u << TCI_PRIV_U;
    if (config & cfg::PRIV_S) c |= 1u << TCI_PRIV_S;
    if (config & cfg::PRIV_VU) c |= 1u << TCI_PRIV_VU;
    if (config & cfg::PRIV_VS) c |= 1u << TCI_PRIV_VS;
    return c;
}

// trTeInstFeatures bits of the configuration word, in cfg order.
constexpr uint32_t kFeatureMap[][2] = {
    {cfg::IMPLICIT_RETURN, TCI_trTeInstFeatures_EnImplicitReturn_MASK},
    {cfg::REPEATED_HISTORY, TCI_trTeInstFeatures_EnRepeatedHistory_MASK},
    {cfg::ALL_JUMPS, TCI_trTeInstFeatures_EnAllJumps_MASK},
    {cfg::SEQUENTIAL_JUMP, TCI_trTeInstFeatures_EnSequentialJump_MASK},
    {cfg::EXTEND_ADDR_MSB, TCI_trTeInstFeatures_ExtendAddrMSB_MASK},
};

unsigned long caps_of(const HartTrace &h) {
    if (!h.usable) return 0;
    unsigned long v = (h.caps.btm ? caps::BTM : 0) | (h.caps.htm ? caps::HTM : 0);
    if (h.caps.timestamp) v |= cfg::TIMESTAMP;
    if (h.caps.context) v |= cfg::CONTEXT;
    for (auto &f : kFeatureMap)
        if ((h.caps.features & f[1]) == f[1]) v |= f[0];
    if (v & cfg::IMPLICIT_RETURN)
        v |= static_cast<unsigned long>(TCI_GET(h.caps.features, trTeInstFeatures, ImplicitReturnMode))
             << cfg::IRET_MODE_SHIFT;
    if (st.sink_caps.stop_on_wrap) v |= caps::SINK_STOP_ON_WRAP;
    v |= static_cast<unsigned long>(h.caps.sync_modes & 0xe) << caps::SYNC_MODES_SHIFT;
    // A privilege can be traced alone when filter 0 can select it (so
    // M-mode stays out of the trace); with the platform's opt-in, all can.
    uint32_t p = st.allow_mmode ? 0xff : h.caps.priv_choices;
    if (p & (1u << TCI_PRIV_U)) v |= cfg::PRIV_U;
    if (p & (1u << TCI_PRIV_S)) v |= cfg::PRIV_S;
    if (p & (1u << TCI_PRIV_VU)) v |= cfg::PRIV_VU;
    if (p & (1u << TCI_PRIV_VS)) v |= cfg::PRIV_VS;
    if (st.sink_caps.sram) v |= caps::SINK_SRAM;
    if (st.sink_caps.smem) v |= caps::SINK_SMEM;
    v |= static_cast<unsigned long>(st.src_bits) << caps::SRC_BITS_SHIFT;
    if (h.caps.etrace) v |= caps::ETRACE;
    if (h.caps.etrace && h.caps.data) v |= caps::DATA;
    // The range is ANDed into the privilege filter: only with one.
    if (h.caps.comparators && h.caps.priv_choices) v |= caps::ADDR_RANGE;
    if (h.caps.triggers) v |= caps::TRIGGERS;
    return v;
}

// Validates `config` for hart `h` and builds its encoder programming.
Error build_config(unsigned long hartid, const HartTrace &h, uint32_t config, EncoderConfig &out) {
    unsigned mode = config & cfg::MODE_MASK;
    unsigned iret_mode = (config >> cfg::IRET_MODE_SHIFT) & 3;
    unsigned sync_mode = (config >> cfg::SYNC_MODE_SHIFT) & 3;
    unsigned sync_max = (config >> cfg::SYNC_MAX_SHIFT) & 0xf;
    if ((config & cfg::RESERVED) || (mode != TCI_INSTMODE_BTM && mode != TCI_INSTMODE_HTM) ||
        !(config & cfg::PRIV_MASK) || (iret_mode && !(config & cfg::IMPLICIT_RETURN)) ||
        (sync_max && !sync_mode))
        return Error::InvalidParam;
    unsigned long c = caps_of(h);
    // ImplicitReturnMode is a value, not a feature bit: up to the largest
    // the encoder holds (trTeInstImplicitReturnMode is WARL).
    constexpr uint32_t kIretMode = 3u << cfg::IRET_MODE_SHIFT;
    if (!mode_ok(h, mode) || ((config & ~cfg::PRIV_MASK & ~kIretMode & 0xff8u) & ~c) ||
        iret_mode > ((c & kIretMode) >> cfg::IRET_MODE_SHIFT) ||
        (sync_mode && !((c >> caps::SYNC_MODES_SHIFT) & (1u << sync_mode))))
        return Error::NotSupported;
    // E-Trace: the encoder's branch-map algorithm, no N-Trace option
    // (implicit return, repeated history, jumps, address MSB, context,
    // timestamps, periodic sync are N-Trace's here).
    const bool etrace = config & cfg::ETRACE;
    if (etrace && (!(c & caps::ETRACE) || (config & 0xff8u & ~cfg::PRIV_MASK) || sync_mode))
        return Error::NotSupported;
    // Data trace: E-Trace's only (N-Trace 1.0 has none), where the encoder has it.
    const bool data = config & cfg::DATA;
    if (data && (!etrace || !(c & caps::DATA))) return Error::NotSupported;
    // The privileges asked for must be selectable without M-mode.
    if ((config & cfg::PRIV_MASK) & ~c) return Error::Denied;
    out.control = TCI_SET(trTeControl, InstMode, mode) |
                  TCI_SET(trTeControl, Format, etrace ? TCI_FORMAT_ETRACE : TCI_FORMAT_NTRACE) |
                  TCI_SET(trTeControl, InstSyncMode, sync_mode) |
                  TCI_SET(trTeControl, InstSyncMax, sync_max) |
                  ((config & cfg::CONTEXT) ? TCI_BIT(trTeControl, Context) : 0);
    out.data_control = data ? TCI_BIT(trTeDataControl, Tracing) : 0;
    uint32_t f = TCI_SET(trTeInstFeatures, ImplicitReturnMode, iret_mode) |
                 TCI_SET(trTeInstFeatures, SrcID, static_cast<uint32_t>(hartid)) |
                 TCI_SET(trTeInstFeatures, SrcBits, st.src_bits);
    for (auto &m : kFeatureMap)
        if (config & m[0]) f |= m[1];
    out.features = f;
    // Filter 0 selects the privileges when it can match all of them;
    // otherwise (platform opt-in only, checked above) everything is traced.
    uint32_t want = priv_choice(config);
    out.priv_filter = (want & ~h.caps.priv_choices) ? 0 : want;
    out.ts_control = (config & cfg::TIMESTAMP)
                         ? TCI_BIT(trTsControl, Active) |
                               TCI_SET(trTsControl, Mode, TCI_TSMODE_SHARED) |
                               TCI_BIT(trTsControl, Enable)
                         : 0;
    return Error::Success;
}

// Funnels from the sink outwards (depth order), so each is enabled before
// anything feeds it; disabling runs the other way.
// The deepest funnel that reaches the sink (depth kMaxFunnels: one that
// does not, never enabled).
unsigned funnels_depth() {
    unsigned m = 0;
    for (unsigned f = 0; f < st.tp->funnels; f++)
        if (st.tp->funnel[f].depth < kMaxFunnels && st.tp->funnel[f].depth > m) m = st.tp->funnel[f].depth;
    return m;
}

bool funnels_start() {
    bool ok = true;
    for (unsigned d = 0, n = funnels_depth(); d <= n; d++)
        for (unsigned f = 0; f < st.tp->funnels; f++)
            if (st.tp->funnel[f].depth == d) ok &= funnel_start(st.tp->funnel[f].base, d == 0);
    return ok;
}

bool funnels_stop() {
    bool ok = true;
    for (unsigned d = funnels_depth() + 1; d-- > 0;)
        for (unsigned f = 0; f < st.tp->funnels; f++)
            if (st.tp->funnel[f].depth == d) ok &= disable_and_flush(st.tp->funnel[f].base);
    return ok;
}

bool enc_start(unsigned h) {
    HartTrace &t = st.hart[h];
    t.running = encoder_start(st.tp->encoder[h].base, t.config);
    return t.running;
}

bool enc_stop(unsigned h) {
    HartTrace &t = st.hart[h];
    bool lost = false;
    bool ok = encoder_stop(st.tp->encoder[h].base, lost);
    t.lost |= lost;
    t.running = false;
    return ok;
}

void finish_boot_header() {
    BootHeader *b = st.boot;
    if (!b) return;
    bool wrapped;
    b->write_pointer = sink_write_pointer(st.tp->sink.base, wrapped);
    uint32_t flags = wrapped ? BOOT_WRAPPED : 0;
    for (unsigned h = 0; h < st.slots; h++)
        if (st.hart[h].lost) flags |= BOOT_LOST;
    b->flags = flags;
    b->state = BOOT_STOPPED;
    st.boot = nullptr;
}

// Everything out of the encoders, funnels and the sink (TCI 1.0 "Enabling
// and Disabling": encoders, then funnels, then the sink).
bool sink_stop_all() {
    bool ok = funnels_stop();
    ok &= disable_and_flush(st.tp->sink.base);
    st.sink_running = false;
    finish_boot_header();
    return ok;
}

Error start_locked(const HartMask &harts) {
    if (!st.sink_set || !served(harts)) return Error::InvalidState;
    bool any = false;
    Error e = Error::Success;
    for_each(harts, [&](unsigned h) {
        if (!st.hart[h].usable || !st.hart[h].configured) e = Error::InvalidState;
        any |= st.hart[h].wanted;
    });
    if (e != Error::Success) return e;
    if (any) return Error::AlreadyStarted;
    // An empty mask starts nothing, not even the sink: only the stop of a
    // traced hart would disable it again.
    if (harts.none()) return Error::Success;
    if (!st.sink_running) {
        if (!sink_start(st.tp->sink.base, st.sink) || !funnels_start()) {
            sink_stop_all();
            return Error::Failed;
        }
        st.sink_running = true;
    }
    bool ok = true;
    for_each(harts, [&](unsigned h) {
        st.hart[h].wanted = true;
        st.hart[h].lost = false;
        // A stopped or suspended hart starts tracing as it enters S-mode.
        if (!hart_is_stopped(st.tp->encoder[h].hartid)) ok &= enc_start(h);
    });
    return ok ? Error::Success : Error::Failed;
}

void ctr_stop_locked(unsigned h) {
    HartTrace &t = st.hart[h];
    if (!t.ctr) return;
    bool lost;
    encoder_stop(st.tp->encoder[h].base, lost);
    t.ctr = false;
    if (--st.ctr_harts) return;
    funnels_stop();
    disable_and_flush(st.tp->sink.base);
}

} // namespace

bool available() { return st.usable; }

unsigned slot(unsigned long hartid) { return slot_of_hart(hartid); }

unsigned smode_encoders_without_mmode() { return st.mmode_excluded; }

bool init(const Topology &t, bool smode_owner, bool allow_mmode, SlotState *slots, unsigned room) {
    st = State{};
    st.tp = &t;
    st.hart = slots;
    st.slots = t.encoders < room ? t.encoders : room;
    for (unsigned h = 0; h < st.slots; h++) st.hart[h] = HartTrace{};
    st.allow_mmode = allow_mmode;
    st.smode_owner = smode_owner;
    if (!t.sink.present || !t.encoders) return false;
    if (smode_owner) {
        // Every component from reset, and the funnels passing everything
        // through: a driver that knows only encoders and sinks (Linux's
        // rvtrace has no funnel driver) then gets the trace of every hart.
        reset(t.sink.base);
        for (unsigned k = 0; k < t.sinks; k++) reset(t.sink_base[k]);
        // Unless the platform lets traces include M-mode, M-mode is kept
        // out of whatever S-mode traces where the encoder can enforce it.
        for (unsigned h = 0; h < t.encoders; h++)
            if (t.encoder[h].present && reset(t.encoder[h].base) && !allow_mmode &&
                encoder_exclude_mmode(t.encoder[h].base))
                st.mmode_excluded++;
        bool funnels_ok = true;
        for (unsigned f = 0; f < t.funnels; f++)
            funnels_ok &= reset(t.funnel[f].base) && impl_ok(t.funnel[f].base, TCI_COMPTYPE_FUNNEL);
        if (funnels_ok) funnels_start();
        return false;
    }
    // Every component starts from reset.
    bool sink_ok = reset(t.sink.base) && impl_ok(t.sink.base, TCI_COMPTYPE_RAMSINK) &&
                   discover_sink(t.sink.base, st.sink_caps);
    bool funnels_ok = true;
    for (unsigned f = 0; f < t.funnels; f++)
        funnels_ok &= reset(t.funnel[f].base) && impl_ok(t.funnel[f].base, TCI_COMPTYPE_FUNNEL);
    unsigned long max_id = 0;
    unsigned first = kNoSlot;
    for (unsigned h = 0; h < st.slots; h++) {
        if (!t.encoder[h].present) continue;
        HartTrace &ht = st.hart[h];
        ht.usable = reset(t.encoder[h].base) && impl_ok(t.encoder[h].base, TCI_COMPTYPE_ENCODER) &&
                    discover_encoder(t.encoder[h].base, ht.caps) && (ht.caps.btm || ht.caps.htm);
        if (!ht.usable) continue;
        if (t.encoder[h].hartid > max_id) max_id = t.encoder[h].hartid;
        if (first == kNoSlot) first = h;
    }
    if (!sink_ok || !funnels_ok || !(st.sink_caps.sram || st.sink_caps.smem))
        return false;
    // SrcBits: what the largest hart ID needs, at least 1 so every stream
    // demultiplexes alike; 0 only for a single encoder that has no SRC
    // field (trTeSrcBits tied to 0: TCI 1.0 "Minimal Implementation").
    st.src_bits = bits_for(max_id);
    unsigned encoders = 0;
    for (unsigned h = 0; h < st.slots; h++) encoders += st.hart[h].usable;
    if (encoders == 1 && max_id == 0 && st.hart[first].caps.src_bits_max == 0) st.src_bits = 0;
    bool any = false;
    for (unsigned h = 0; h < st.slots; h++) {
        HartTrace &ht = st.hart[h];
        ht.usable &= ht.caps.src_bits_max >= st.src_bits;
        any |= ht.usable;
    }
    st.usable = any;
    return any;
}

Error get_caps(unsigned long hartid, unsigned long &value) {
    Guard g;
    // A hart without a slot (topology.hpp) has no encoder: no caps.
    const unsigned h = slot_of_hart(hartid);
    value = h != kNoSlot ? caps_of(st.hart[h]) : caps_of(HartTrace{});
    return Error::Success;
}

Error configure(const HartMask &harts, uint32_t config) {
    Guard g;
    if (!served(harts)) return Error::NotSupported;
    Error e = Error::Success;
    // All or nothing: validate every hart before changing any (build_config
    // only reads; a table of kMaxSlots results would be 24 KiB of bss).
    for_each(harts, [&](unsigned h) {
        if (e != Error::Success) return;
        EncoderConfig c;
        if (st.hart[h].wanted) e = Error::AlreadyStarted;
        else if (!st.hart[h].usable) e = Error::NotSupported;
        else e = build_config(st.tp->encoder[h].hartid, st.hart[h], config, c);
    });
    if (e != Error::Success) return e;
    // build_config leaves the filter fields (trace_set_filter's) alone.
    for_each(harts, [&](unsigned h) {
        build_config(st.tp->encoder[h].hartid, st.hart[h], config, st.hart[h].config);
        st.hart[h].configured = true;
    });
    return Error::Success;
}

Error set_filter(const HartMask &harts, uint64_t lo, uint64_t hi, unsigned long flags) {
    Guard g;
    const bool range = flags & filterflag::ADDR_RANGE, triggers = flags & filterflag::TRIGGERS;
    if ((flags & filterflag::RESERVED) || (range && lo >= hi)) return Error::InvalidParam;
    if (!served(harts)) return Error::NotSupported;
    Error e = Error::Success;
    // All or nothing, as trace_configure.
    for_each(harts, [&](unsigned h) {
        if (e != Error::Success) return;
        unsigned long c = caps_of(st.hart[h]);
        if (st.hart[h].wanted) e = Error::AlreadyStarted;
        else if (!st.hart[h].usable || (range && !(c & caps::ADDR_RANGE)) ||
                 (triggers && !(c & caps::TRIGGERS)))
            e = Error::NotSupported;
    });
    if (e != Error::Success) return e;
    for_each(harts, [&](unsigned h) {
        HartTrace &t = st.hart[h];
        t.config.range = range;
        t.config.range_lo = range ? lo : 0;
        t.config.range_hi = range ? hi : 0;
        t.config.triggers = triggers;
    });
    return Error::Success;
}

Error set_sink(uint32_t flags, uint64_t addr, uint64_t size) {
    Guard g;
    if (flags & sinkflag::RESERVED) return Error::InvalidParam;
    bool smem = flags & sinkflag::SMEM;
    SinkConfig c{smem, (flags & sinkflag::STOP_ON_WRAP) != 0, 0, 0};
    if (c.stop_on_wrap && !st.sink_caps.stop_on_wrap) return Error::NotSupported;
    if (smem) {
        if (!st.sink_caps.smem) return Error::NotSupported;
        // Whole words, at least one (TCI 1.0: trRamStart/Limit are word addresses).
        if ((addr | size) & (TCI_RAM_ADDR_ALIGN - 1) || size == 0) return Error::InvalidParam;
        uint64_t last = addr + size - TCI_RAM_ADDR_ALIGN;
        // S-mode RAM outside the firmware, and addresses the sink can hold.
        if (last < addr || !s_mode_range_ok(addr, size) || (last & ~st.sink_caps.smem_mask) ||
            (st.ctr_size && addr < st.ctr_base + st.ctr_size && st.ctr_base <= last))
            return Error::InvalidAddress;
        c.start = addr;
        c.limit = last;
    } else {
        if (!st.sink_caps.sram) return Error::NotSupported;
        if (addr || size) return Error::InvalidParam;
        c.limit = st.sink_caps.sram_limit;
    }
    if (st.sink_running) return Error::AlreadyStarted;
    if (st.ctr_harts) return Error::Denied;
    st.sink = c;
    st.sink_flags = flags;
    st.sink_set = true;
    return Error::Success;
}

Error start(const HartMask &harts) {
    Guard g;
    if (st.ctr_harts) return Error::Denied;
    return start_locked(harts);
}

Error stop(const HartMask &harts) {
    Guard g;
    bool any = false;
    for_each(harts, [&](unsigned h) { any |= st.hart[h].wanted; });
    // Stopping only harts that do not trace is an error; any other hart in
    // the mask that does not trace is simply left alone.
    if (!any) return Error::AlreadyStopped;
    bool ok = true;
    for_each(harts, [&](unsigned h) {
        if (st.hart[h].running) ok &= enc_stop(h);
        st.hart[h].wanted = false;
    });
    bool others = false;
    for (unsigned h = 0; h < st.slots; h++) others |= st.hart[h].wanted;
    // The last one out flushes funnels and sink: when stop returns, every
    // message of the stopped harts is in the sink's memory.
    if (!others && st.sink_running) ok &= sink_stop_all();
    return ok ? Error::Success : Error::Timeout;
}

Error get_status(Status &s, unsigned long hart_base) {
    Guard g;
    s = Status{};
    if (!st.sink_set) return Error::Success;
    bool wrapped;
    s.write_pointer = sink_write_pointer(st.tp->sink.base, wrapped);
    s.start = st.sink.start;
    s.limit = st.sink.limit;
    uint64_t size = st.sink.limit + TCI_RAM_ADDR_ALIGN - st.sink.start;
    s.bytes = wrapped ? size : s.write_pointer - st.sink.start;
    // Capturing is the sink's own state: StopOnWrap ends it by itself.
    bool capturing = st.sink_running && sink_enabled(st.tp->sink.base);
    s.flags = (capturing ? STATUS_SINK_ENABLED : 0) | (wrapped ? STATUS_WRAPPED : 0) |
              (st.sink.smem ? STATUS_SMEM : 0);
    bool any_lost = false;
    for (unsigned h = 0; h < st.slots; h++) {
        HartTrace &t = st.hart[h];
        if (t.running) {
            // The sticky overflow bit can be read while tracing.
            t.lost |= encoder_lost(st.tp->encoder[h].base);
        }
        any_lost |= t.lost;
        // Bit i: hart hart_base + i (README, trace_get_status).
        const unsigned long id = st.tp->encoder[h].hartid;
        if (id < hart_base || id - hart_base >= 64) continue;
        if (t.wanted) s.harts |= 1ull << (id - hart_base);
        if (t.lost) s.lost_harts |= 1ull << (id - hart_base);
    }
    if (any_lost) s.flags |= STATUS_LOST;
    s.src_bits = st.src_bits;
    return Error::Success;
}

Error read_sram(uint64_t offset, uint8_t *dst, uint64_t size, uint64_t &copied) {
    Guard g;
    copied = 0;
    if (!st.sink_set || st.sink.smem) return Error::InvalidState;
    if (st.sink_running) return Error::AlreadyStarted;
    bool wrapped;
    uint64_t wp = sink_write_pointer(st.tp->sink.base, wrapped);
    uint64_t total = st.sink.limit + TCI_RAM_ADDR_ALIGN - st.sink.start;
    uint64_t len = wrapped ? total : wp - st.sink.start;
    if (offset >= len) return Error::Success;
    uint64_t n = len - offset < size ? len - offset : size;
    // Oldest byte: the write pointer when the buffer wrapped, else Start.
    uint64_t first = (wrapped ? wp - st.sink.start : 0) + offset;
    for (uint64_t done = 0; done < n;) {
        uint64_t pos = (first + done) % total;
        uint32_t word;
        sram_read(st.tp->sink.base, st.sink.start + (pos & ~3ull), &word, 1);
        for (unsigned b = pos & 3; b < 4 && done < n; b++) dst[done++] = static_cast<uint8_t>(word >> (8 * b));
    }
    copied = n;
    return Error::Success;
}

Error boot_trace(const BootOptions &o, const HartMask &harts) {
    Error e;
    HartMask usable = 0;
    for_each(harts, [&](unsigned h) {
        if (st.hart[h].usable) usable.set(h);
    });
    if (usable.none()) return Error::NotSupported;
    if ((e = configure(usable, o.config)) != Error::Success) return e;
    if ((e = set_sink(sinkflag::SMEM, o.buffer + kBootHeaderSize, o.size - kBootHeaderSize)) !=
        Error::Success)
        return e;
    Guard g;
    auto *b = reinterpret_cast<BootHeader *>(static_cast<uintptr_t>(o.buffer));
    unsigned first = kNoSlot;
    for_each(usable, [&](unsigned h) {
        if (first == kNoSlot) first = h;
    });
    *b = BootHeader{kBootMagic, 1, kBootHeaderSize, st.sink.start, st.sink.limit, st.sink.start,
                    BOOT_TRACING, 0, TCI_GET(st.hart[first].config.control, trTeControl, InstMode),
                    st.src_bits, st.hart[first].config.features & ~TCI_trTeInstFeatures_SrcID_MASK,
                    st.hart[first].config.control, {}};
    // The traced harts by hart ID (README, the header's table).
    for_each(usable, [&](unsigned h) {
        const unsigned long id = st.tp->encoder[h].hartid;
        b->harts[id / 64] |= 1ull << (id % 64);
    });
    st.boot = b;
    return start_locked(usable);
}

void hart_start(unsigned long hartid) {
    const unsigned h = slot_of_hart(hartid);
    if (h == kNoSlot) return;
    Guard g;
    HartTrace &t = st.hart[h];
    if (t.wanted && !t.running) enc_start(h);
}

void hart_stop(unsigned long hartid) {
    const unsigned h = slot_of_hart(hartid);
    if (h == kNoSlot) return;
    Guard g;
    // CTR's feed: a stopped hart's encoder starts again (a fresh sequence)
    // when S-mode enables recording on it.
    ctr_stop_locked(h);
    // Flush what this hart's encoder holds; it starts again, with a
    // synchronizing message, when the hart resumes or restarts.
    if (st.hart[h].running) enc_stop(h);
}

void system_reset() {
    Guard g;
    if (!st.sink_running) return;
    for (unsigned h = 0; h < st.slots; h++)
        if (st.hart[h].running) enc_stop(h);
    sink_stop_all();
}

// --- CTR feed ----------------------------------------------------------------

void set_ctr_buffer(uint64_t base, uint64_t size) {
    st.ctr_base = base;
    st.ctr_size = size;
}

namespace {
bool ctr_possible(unsigned h) {
    const HartTrace &t = st.hart[h];
    return st.usable && st.ctr_size && st.sink_caps.smem && t.usable && t.caps.btm &&
           (t.caps.priv_choices & (1u << TCI_PRIV_S)) &&
           ((st.ctr_base + st.ctr_size - 1) & ~st.sink_caps.smem_mask) == 0;
}
} // namespace

bool ctr_feed_possible(unsigned long hartid) {
    const unsigned h = slot_of_hart(hartid);
    return h != kNoSlot && ctr_possible(h);
}

bool ctr_cycles_possible(unsigned long hartid) {
    const unsigned h = slot_of_hart(hartid);
    return h != kNoSlot && ctr_possible(h) && st.hart[h].caps.core_timestamp;
}

bool ctr_feed_start(unsigned h, bool cycles) {
    if (h >= st.slots) return false; // no encoder (topology.hpp)
    const unsigned long hartid = st.tp->encoder[h].hartid;
    Guard g;
    HartTrace &t = st.hart[h];
    if (t.ctr) return true;
    // S-mode's trace has the sink (or a boot-time trace does).
    if (!ctr_possible(h) || st.sink_running || t.wanted) return false;
    if (!st.ctr_harts) {
        SinkConfig c{true, false, st.ctr_base, st.ctr_base + st.ctr_size - TCI_RAM_ADDR_ALIGN};
        if (!sink_start(st.tp->sink.base, c) || !funnels_start()) {
            funnels_stop();
            disable_and_flush(st.tp->sink.base);
            return false;
        }
        st.ctr_total = 0;
        st.ctr_cycles = cycles && t.caps.core_timestamp;
    }
    // One framing for the shared stream: every feeding hart's messages carry
    // TSTAMP, or none do.
    if (st.ctr_cycles && !t.caps.core_timestamp) return false;
    // BTM of S-mode alone (filter 0): every transfer CTR records in S-mode
    // is in the messages or in the code (README "CTR from the encoder").
    // Periodic synchronisation (every 2^(4+4) messages) gives a decoder that
    // lost data, or finds the buffer wrapped, a place to start again.
    constexpr unsigned kSyncMax = 4;
    uint32_t sync = (t.caps.sync_modes & (1u << TCI_SYNCMODE_MESSAGES))
                        ? TCI_SET(trTeControl, InstSyncMode, TCI_SYNCMODE_MESSAGES) |
                              TCI_SET(trTeControl, InstSyncMax, kSyncMax)
                        : 0;
    EncoderConfig c{TCI_SET(trTeControl, InstMode, TCI_INSTMODE_BTM) |
                        TCI_SET(trTeControl, Format, TCI_FORMAT_NTRACE) | sync,
                    TCI_SET(trTeInstFeatures, SrcID, static_cast<uint32_t>(hartid)) |
                        TCI_SET(trTeInstFeatures, SrcBits, st.src_bits),
                    1u << TCI_PRIV_S,
                    // The hart's cycles from 0, relative TSTAMP in each
                    // message: CTR's cycle counts (README "Cycle counts").
                    st.ctr_cycles ? TCI_BIT(trTsControl, Active) | TCI_SET(trTsControl, Mode, TCI_TSMODE_CORE) |
                                        TCI_BIT(trTsControl, Count) | TCI_BIT(trTsControl, Reset) |
                                        TCI_BIT(trTsControl, Enable)
                                  : 0,
                    0};
    if (!encoder_start(st.tp->encoder[h].base, c)) {
        bool lost;
        encoder_stop(st.tp->encoder[h].base, lost);
        if (!st.ctr_harts) {
            funnels_stop();
            disable_and_flush(st.tp->sink.base);
        }
        return false;
    }
    t.ctr = true;
    t.ctr_pos = st.ctr_total;
    st.ctr_harts++;
    return true;
}

void ctr_feed_stop(unsigned h) {
    if (h >= st.slots) return;
    Guard g;
    ctr_stop_locked(h);
}

// Holds the service's lock from here to ctr_feed_release: the sink stays
// paused while the caller decodes (other harts' messages meanwhile are
// dropped and show as lost data in their streams).
bool ctr_feed_collect(unsigned h, CtrSpans &s) {
    s = CtrSpans{};
    // A slot the feed started on (t.ctr below), or none of them.
    if (h >= st.slots) return false;
    lock_word_acquire();
    HartTrace &t = st.hart[h];
    if (!t.ctr) {
        lock_word.store(0, fw::memory_order_release);
        return false;
    }
    bool lost = false, wrapped = false;
    encoder_flush(st.tp->encoder[h].base, lost);
    uint64_t wp;
    sink_pause(st.tp->sink.base, wp, wrapped);
    // Stream positions: the buffer holds the last ctr_size bytes before
    // ctr_total. A wrap since the last pause moved the write pointer once
    // around at least; it is counted as once (more is not visible to the
    // sink's registers: README "CTR from the encoder", limits).
    const uint64_t size = st.ctr_size;
    uint64_t old = st.ctr_total & (size - 1), now = wp - st.ctr_base;
    uint64_t delta = (now - old) & (size - 1);
    if (wrapped && now >= old) delta += size; // a whole lap and more
    st.ctr_total += delta;
    uint64_t from = t.ctr_pos;
    if (st.ctr_total - from > size) {
        from = st.ctr_total - size;
        lost = true;
    }
    t.ctr_pos = st.ctr_total;
    st.ctr_collector = h;
    uint64_t n = st.ctr_total - from, off = from & (size - 1);
    auto *buf = reinterpret_cast<const uint8_t *>(static_cast<uintptr_t>(st.ctr_base));
    s.a = buf + off;
    s.na = n < size - off ? n : size - off;
    s.b = buf;
    s.nb = n - s.na;
    s.lost = lost;
    return true;
}

unsigned ctr_src_bits() { return st.src_bits; }
bool ctr_cycles() { return st.ctr_cycles; }

void ctr_feed_release() {
    if (st.ctr_harts == 1) {
        // One hart feeds: everything in the buffer is decoded, so capture
        // starts again at Start. A wrap then always means lost data, however
        // many times the buffer went round (with several harts the write
        // pointer stays, and more than one lap between two collects looks
        // like one).
        // The one feeding hart is the collector (collect returns false, and
        // no release follows, for a hart that does not feed).
        const uint64_t size = st.ctr_size;
        st.ctr_total = (st.ctr_total + size - 1) & ~(size - 1);
        st.hart[st.ctr_collector].ctr_pos = st.ctr_total;
        sink_restart_at(st.tp->sink.base, st.ctr_base);
    }
    if (st.ctr_harts) sink_resume(st.tp->sink.base);
    lock_word.store(0, fw::memory_order_release);
}

unsigned mmode_regions(Region *out, unsigned max) {
    // Two naturally aligned power-of-two regions: the encoders, and the
    // funnels with the sink (TCI components are 4 KiB blocks).
    if (st.smode_owner || !st.tp) return 0;
    uint64_t lo[2] = {~0ull, ~0ull}, hi[2] = {0, 0};
    auto add = [&](unsigned i, uint64_t base) {
        if (base < lo[i]) lo[i] = base;
        if (base + TCI_COMPONENT_SIZE > hi[i]) hi[i] = base + TCI_COMPONENT_SIZE;
    };
    for (unsigned h = 0; h < st.tp->encoders; h++)
        if (st.tp->encoder[h].present) add(0, st.tp->encoder[h].base);
    // Encoders of harts past the slots too: S-mode must not program an
    // encoder whose trace may reach the sink.
    if (st.tp->unslotted_hi) {
        add(0, st.tp->unslotted_lo);
        add(0, st.tp->unslotted_hi - TCI_COMPONENT_SIZE);
    }
    for (unsigned f = 0; f < st.tp->funnels; f++) add(1, st.tp->funnel[f].base);
    if (st.tp->sink.present) add(1, st.tp->sink.base);
    unsigned n = 0;
    for (unsigned i = 0; i < 2 && n < max; i++) {
        if (hi[i] == 0) continue;
        uint64_t size = TCI_COMPONENT_SIZE;
        while ((lo[i] & ~(size - 1)) + size < hi[i]) size <<= 1;
        out[n++] = {lo[i] & ~(size - 1), size};
    }
    return n;
}

} // namespace trace
