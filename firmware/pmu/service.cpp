// SPDX-License-Identifier: BSD-2-Clause
// The SBI PMU service (see service.hpp). Every request is validated as a
// whole before anything changes: a call that returns SBI_ERR_INVALID_PARAM,
// SBI_ERR_INVALID_ADDRESS or SBI_ERR_NO_SHMEM has had no effect.
#include "service.hpp"

#include "../include/fw.hpp"
#include "../include/riscv/csr.hpp"
#include "../include/riscv/csr_safe.hpp"

namespace pmu {

Config g_config;
HartState *g_harts;

namespace {
bool g_thead_requested; // use_thead_c9xx_overflow() was called
} // namespace

void use_thead_c9xx_overflow(bool on) { g_thead_requested = on; }

namespace {

using sbi::err;
using sbi::Error;
using sbi::ok;
using sbi::SbiRet;
using namespace spec;

// Index of the lowest set bit of a non-zero x, without a libgcc call on
// cores lacking Zbb (de Bruijn sequence 0x022fdd63cc95386d).
constexpr uint8_t kDeBruijn[64] = {
    0,  1,  2,  53, 3,  7,  54, 27, 4,  38, 41, 8,  34, 55, 48, 28, 62, 5,  39, 46, 44, 42,
    22, 9,  24, 35, 59, 56, 49, 18, 29, 11, 63, 52, 6,  26, 37, 40, 33, 47, 61, 45, 43, 21,
    23, 58, 17, 10, 51, 25, 36, 32, 60, 20, 57, 16, 50, 31, 19, 15, 30, 14, 13, 12};
inline unsigned lowest(uint64_t x) {
    return kDeBruijn[((x & -x) * 0x022fdd63cc95386dull) >> 58];
}
inline unsigned highest32(uint32_t x) {
    unsigned n = 0;
    while (x >>= 1) n++;
    return n;
}

inline HartState &self() { return g_harts[hw::hart_index()]; }

// A decoded event: the logical counters that can monitor it and what to
// program into them.
struct Event {
    uint64_t counters;
    uint64_t selector; // hardware: mhpmevent value before the Sscofpmf bits
    unsigned fw_code;  // firmware: standard event code
};

bool decode(unsigned long idx, uint64_t data, Event &e) {
    const Config &g = g_config;
    if (idx >> kEventIdxBits) return false;
    unsigned type = event_type(idx), code = event_code(idx);
    switch (type) {
    case TYPE_HW:
        // event_data is reserved for general and cache events.
        if (code >= Config::kHwCodes || data) return false;
        e.counters = g.events[code].counters;
        e.selector = g.events[code].selector;
        return e.counters != 0;
    case TYPE_CACHE:
        if (code >= Config::kCacheCodes || data) return false;
        e.counters = g.events[Config::kHwCodes + code].counters;
        e.selector = g.events[Config::kHwCodes + code].selector;
        return e.counters != 0;
    case TYPE_RAW:
    case TYPE_RAW_V2: {
        unsigned bits = type == TYPE_RAW ? kRawBits : kRawV2Bits;
        if (code != 0 || (data >> bits)) return false;
        e.counters = g.map.counters_for_raw(data) & g.hw & hw::kHpmMask;
        e.selector = data;
        return e.counters != 0;
    }
    case TYPE_FW:
        // Standard events only: no implementation-specific (256..65534) or
        // platform (65535) firmware events are defined on this firmware.
        if (code >= kFwStandardCount || data) return false;
        e.counters = g.fw_mask;
        e.fw_code = code;
        return e.counters != 0;
    default: return false;
    }
}

// General and cache events: the device tree's counters, plus the fixed
// counter whose architectural event this is (with or without a table).
// Without Sscofpmf an RV32 hart has no mhpmeventNh (Sscofpmf adds them,
// privileged spec "Count Overflow Control"; mhpmeventN is XLEN bits), so a
// selector with bits above 31 cannot be programmed into a programmable
// counter: it is refused there rather than counted as the event its lower
// half selects (as a raw event above 32 bits is, kRawBits).
void event_tables(Config &g) {
    const uint64_t unreachable = (kXlen == 32 && !g.sscofpmf) ? ~0ull << 32 : 0;
    auto counters = [&g, unreachable](uint32_t idx, uint64_t selector) {
        uint32_t m = (selector & unreachable) ? 0 : g.map.counters_for(idx) & hw::kHpmMask;
        if (idx == event_idx(TYPE_HW, HW_CPU_CYCLES)) m |= 1u << hw::kCycle;
        if (idx == event_idx(TYPE_HW, HW_INSTRUCTIONS)) m |= 1u << hw::kInstret;
        return m & g.hw;
    };
    for (unsigned c = 0; c < Config::kHwCodes; c++) {
        uint32_t idx = static_cast<uint32_t>(event_idx(TYPE_HW, c));
        uint64_t selector = g.map.selector_for(idx) & hw::kEventSelectorMask;
        g.events[c].counters = c == HW_NO_EVENT ? 0 : counters(idx, selector);
        g.events[c].selector = selector;
    }
    for (unsigned c = 0; c < Config::kCacheCodes; c++) {
        uint32_t idx = static_cast<uint32_t>(event_idx(TYPE_CACHE, c));
        bool valid = cache_id(c) <= kCacheIdLast && cache_op(c) <= kCacheOpLast;
        Config::EventEntry &t = g.events[Config::kHwCodes + c];
        t.selector = g.map.selector_for(idx) & hw::kEventSelectorMask;
        t.counters = valid ? counters(idx, t.selector) : 0;
    }
}

// The logical counters named by (base, mask), or 0 when the mask is empty or
// names anything outside `allowed` (which never holds invalid indices).
uint64_t counter_set(unsigned long base, unsigned long mask, uint64_t allowed) {
    if (base >= g_config.total) return 0; // total <= 64
    uint64_t set = static_cast<uint64_t>(mask) << base;
    if ((set >> base) != mask) return 0; // bits beyond logical index 63
    return (set & ~allowed) ? 0 : set;   // allowed holds valid indices only
}

inline bool is_fw(unsigned c) { return c >= g_config.fw_base; }

uint64_t value_of(const HartState &h, unsigned c) {
    if (!is_fw(c)) return hw::counter_read(c);
    return fw_value(h, c - g_config.fw_base, (h.started >> c) & 1);
}

// config_flags[7:3] in mhpmevent/mcyclecfg bit order.
inline uint64_t inhibit_bits(unsigned long flags) {
    return static_cast<uint64_t>((flags & kCfgInhMask) >> kCfgInhShift) << hw::kEventInhShift;
}

// Overflow sampling on QEMU (target/riscv/pmu.c, 7.2 and 10.0): writing
// mhpmcounterN while cycles or instructions is mapped to it arms the hart's
// one overflow timer (riscv_pmu_setup_timer). An expiry that finds the
// counter inhibited is dropped without re-arming (pmu_timer_trigger_irq).
// A value v in [2^63, 2^63 + now(ns)], Linux's half-range start -(2^63 - 1)
// among them, leaves a remainder in irq_overflow_left that a later
// near-overflow write does not clear: that start's first expiry re-arms the
// timer about `now` ahead instead of raising the overflow. With Sscofpmf a
// programmable counter is therefore loaded with kParkValue, uninhibited,
// then loaded with its initial value: kParkValue is far from overflow on
// any width, QEMU computes a negative remainder for it (7.2: now + 2 - 2^63,
// 10.0: 1 - 2^62), which counts as none, and no earlier expiry; the initial
// value then arms the timer of a running counter. On other hardware only
// the few M-mode cycles before the last write differ.
constexpr uint64_t kParkValue = 1ull << 62;

// Starts hardware counters `todo` (a subset of g.hw), loading value(c) into
// each if `load`. Rewriting the selector clears OF, which re-arms the
// overflow interrupt (Sscofpmf: no new LCOFI while OF is set); the T-Head
// CSRs are armed before the counters run (kVendor: every caller but the
// fast path, which g.fast_hw keeps away from T-Head cores).
template <bool kVendor = true, class Value>
[[gnu::always_inline]] inline void start_hw(const HartState &h, uint64_t todo, bool load,
                                            Value value) {
    const Config &g = g_config;
    for (uint64_t m = todo; m; m &= m - 1) {
        unsigned c = lowest(m);
        if (c >= hw::kFirstHpm && g.sscofpmf) {
            hw::event_write(c, h.event[c], true);
            if (!load) continue;
            hw::counter_write(c, kParkValue);
            hw::inhibit_clear(1u << c);
        }
        if (load) hw::counter_write(c, value(c));
    }
    if constexpr (kVendor)
        if (g.thead) hw::thead_irq_enable(static_cast<uint32_t>(todo));
    hw::inhibit_clear(static_cast<uint32_t>(todo));
}

// Starts the configured, stopped counters in `todo`, loading them from
// `init` (SET_INIT_VALUE) or the snapshot area (INIT_SNAPSHOT) if asked.
void start_set(HartState &h, uint64_t todo, unsigned long flags, uint64_t init,
               unsigned long base) {
    const Config &g = g_config;
    auto value = [&](unsigned c) {
        return (flags & START_INIT_SNAPSHOT)
                   ? hw::mem_read64(h.shmem + kSnapshotValuesOff + 8 * (c - base))
                   : init;
    };
    for (uint64_t m = todo & g.fw_mask; m; m &= m - 1) {
        unsigned c = lowest(m);
        unsigned j = c - g.fw_base;
        uint64_t v = flags ? value(c) : h.fw_val[j];
        h.fw_val[j] = *h.fw_src[j] - v;
    }
    if (uint64_t hwbits = todo & g.hw) start_hw(h, hwbits, flags, value);
    h.started |= todo;
}

// Forgets counter c's event. Selectors go back to 0, which is also the only
// write that makes QEMU drop its event-to-counter mapping; a fixed counter
// nobody owns counts freely again, as it did at boot.
void release(HartState &h, unsigned c) {
    const Config &g = g_config;
    if (!is_fw(c)) {
        if (c >= hw::kFirstHpm) {
            hw::event_write(c, 0, g.sscofpmf);
        } else {
            if (g.smcntrpmf) hw::event_write(c, 0, true);
            hw::inhibit_clear(1u << c);
        }
        h.event[c] = 0;
    }
    h.configured &= ~(1ull << c);
}

void configure(HartState &h, unsigned c, const Event &e, unsigned long flags) {
    const Config &g = g_config;
    uint64_t bit = 1ull << c;
    bool running = h.started & bit;
    if (is_fw(c)) [[unlikely]] {
        unsigned j = c - g.fw_base;
        uint64_t v = (flags & CFG_CLEAR_VALUE) ? 0 : fw_value(h, j, running);
        h.fw_src[j] = &h.fw_count[e.fw_code];
        h.fw_val[j] = running ? h.fw_count[e.fw_code] - v : v;
    } else {
        uint64_t inh = inhibit_bits(flags);
        if (c >= hw::kFirstHpm) {
            uint64_t val = e.selector | (g.sscofpmf ? inh : 0);
            // QEMU counts an event on one counter only and forgets a
            // counter's previous event only when its selector is zeroed.
            if (h.event[c] != 0 && h.event[c] != val) hw::event_write(c, 0, g.sscofpmf);
            hw::event_write(c, val, g.sscofpmf);
            h.event[c] = val;
        } else {
            uint64_t val = g.smcntrpmf ? inh : 0;
            if (g.smcntrpmf) hw::event_write(c, val, true);
            h.event[c] = val;
            // Owned from now on: it counts only between start and stop.
            if (!running) hw::inhibit_set(static_cast<uint32_t>(bit));
        }
        if (flags & CFG_CLEAR_VALUE) hw::counter_write(c, 0);
    }
    h.configured |= bit;
    if ((flags & CFG_AUTO_START) && !running) start_set(h, bit, 0, 0, 0);
}

void reset_hart(HartState &h) {
    const Config &g = g_config;
    h.configured = h.started = 0;
    h.shmem = kNoShmem;
    for (unsigned c = 0; c < hw::kSlots; c++) h.event[c] = h.saved[c] = 0;
    for (unsigned j = 0; j < kMaxFwCounters; j++) {
        h.fw_val[j] = 0;
        h.fw_src[j] = &h.fw_count[0];
    }
    if (!g.hw) return;
    hw::inhibit_set(g.hw);
    if (g.thead) hw::thead_irq_disable(g.hw);
    for (uint32_t m = g.hw & hw::kHpmMask; m; m &= m - 1) hw::event_write(lowest(m), 0, g.sscofpmf);
    if (g.smcntrpmf) {
        if (g.hw & (1u << hw::kCycle)) hw::event_write(hw::kCycle, 0, true);
        if (g.hw & (1u << hw::kInstret)) hw::event_write(hw::kInstret, 0, true);
    }
}

// The hardware counters of this hart: existence by trap-safe access, width by
// writing all-ones while inhibited. Harts are assumed to be alike.
static_assert(csr::safe_listed(csr::scountovf) && csr::safe_listed(csr::mcyclecfg) &&
              csr::safe_listed(csr::mcountinhibit) && csr::safe_listed(csr::mcycle, hw::kSlots) &&
              csr::safe_listed(csr::thead::mcounterinten));
void probe_counters(Config &g) {
    g.sscofpmf = !hw::probe_read(csr::scountovf).trapped;
    g.smcntrpmf = !hw::probe_read(csr::mcyclecfg).trapped;
    g.hw = 0;
    // Without mcountinhibit nothing can be started or stopped: firmware
    // counters only (the SBI spec allows refusing hardware counters then).
    if (hw::probe_read(csr::mcountinhibit).trapped) return;
    hw::inhibit_set(~0u & ~(1u << hw::kTime));
    for (unsigned c = 0; c < hw::kSlots; c++) {
        if (c == hw::kTime) continue;
        unsigned n = csr::mcycle + c;
        if (hw::probe_read(n).trapped || hw::probe_write(n, ~0ul)) continue;
        hw::counter_write(c, ~0ull);
        uint64_t v = hw::counter_read(c);
        hw::counter_write(c, 0);
        if (v == 0) continue; // read-only zero: not implemented
        unsigned bits = 1;
        while (bits < 64 && (v >> bits)) bits++;
        g.width[c] = static_cast<uint8_t>(bits);
        g.hw |= 1u << c;
    }
}

} // namespace

// --- life cycle ------------------------------------------------------------

void cold_init(const void *fdt) {
    Config &g = g_config;
    g_harts = static_cast<HartState *>(fw::carve_per_hart(sizeof(HartState), alignof(HartState)));
    if (!g_harts) fw::fatal("pmu: no room for the harts' counter state below the next stage");
    probe_counters(g);
    parse_pmu_node(fdt, g.map);
    g.fw_base = g.hw ? highest32(g.hw) + 1 : 0;
    g.num_fw = kMaxCounters - g.fw_base < kMaxFwCounters ? kMaxCounters - g.fw_base
                                                           : kMaxFwCounters;
    g.total = g.fw_base + g.num_fw;
    g.fw_mask = ((1ull << g.num_fw) - 1) << g.fw_base;
    g.valid = g.hw | g.fw_mask;
    uint32_t unfiltered = (g.sscofpmf ? 0 : g.hw & hw::kHpmMask) |
                          (g.smcntrpmf ? 0 : g.hw & hw::kFixedMask);
    g.unfiltered = unfiltered == g.hw ? 0 : unfiltered;
    g.thead = g_thead_requested && !g.sscofpmf && g.hw &&
              !hw::probe_read(csr::thead::mcounterinten).trapped;
    g.fast_hw = g.thead ? 0 : g.hw;
    g.fast_valid = (g.thead || (g.smcntrpmf && !g.sscofpmf)) ? 0 : g.valid;
    event_tables(g);
    for (unsigned i = 0; i < kMaxCounters; i++) {
        if (!((g.valid >> i) & 1)) g.info[i] = 0;
        // Firmware counters are 64 bits wide: Linux masks their values with
        // the width field even though the spec says to ignore it.
        else if (is_fw(i)) g.info[i] = kInfoTypeFw | (63ul << kInfoWidthShift);
        else g.info[i] = counter_info_hw(csr::cycle + i, g.width[i]);
    }
}

void hart_init() {
    const Config &g = g_config;
    HartState &h = self();
    reset_hart(h); // also what HSM stop does: everything stopped and released
    if (g.hw) {
        // cycle and instret run while nobody owns them, as software that
        // reads them without the PMU extension expects.
        hw::inhibit_clear(g.hw & hw::kFixedMask);
        // S-mode reads the counters directly (Linux reads the CSR named by
        // counter_get_info).
        hw::counteren_set(g.hw);
    }
    if (g.sscofpmf) hw::lcofi_delegate();
    else if (g.thead) hw::thead_irq_delegate();
}

// The hart leaves the state hart_init() sets up, which it needs again when
// HSM starts it (the core does not call hart_init() then).
void hart_stop() { hart_init(); }

void hart_suspend() {
    HartState &h = self();
    for (uint64_t m = h.configured & g_config.hw; m; m &= m - 1) {
        unsigned c = lowest(m);
        h.saved[c] = hw::counter_read(c);
    }
}

void hart_resume() {
    const Config &g = g_config;
    HartState &h = self();
    if (g.hw) {
        hw::inhibit_set(g.hw);
        for (uint32_t c = 0; c < hw::kSlots; c++) {
            if (!(g.hw >> c & 1)) continue;
            bool owned = (h.configured >> c) & 1;
            if (c >= hw::kFirstHpm)
                hw::event_write(c, owned ? h.event[c] : 0, g.sscofpmf);
            else if (g.smcntrpmf)
                hw::event_write(c, h.event[c], true);
            if (owned && !((h.started >> c) & 1)) hw::counter_write(c, h.saved[c]);
        }
        // Running counters restart as START loads them (overflow timer on QEMU).
        if (uint64_t run = h.started & g.hw)
            start_hw(h, run, true, [&h](unsigned c) { return h.saved[c]; });
        if (uint32_t free = g.hw & hw::kFixedMask & ~static_cast<uint32_t>(h.configured))
            hw::inhibit_clear(free);
        hw::counteren_set(g.hw);
    }
    if (g.sscofpmf) hw::lcofi_delegate();
    else if (g.thead) hw::thead_irq_delegate();
}

// --- SBI functions -----------------------------------------------------------

SbiRet num_counters() { return ok(g_config.total); }

SbiRet counter_get_info(unsigned long idx) {
    const Config &g = g_config;
    unsigned long info = idx < kMaxCounters ? g.info[idx] : 0;
    return info ? ok(info) : err(Error::InvalidParam);
}

namespace {

// Every case of config_matching; counter_config_matching below handles the
// usual request (a general or cache event, no SKIP_MATCH) itself.
[[gnu::noinline]] SbiRet config_general(unsigned long base, unsigned long mask,
                                        unsigned long flags, unsigned long event_idx,
                                        uint64_t event_data) {
    const Config &g = g_config;
    if (flags & ~kCfgFlagsValid) return err(Error::InvalidParam);
    uint64_t set = counter_set(base, mask, g.valid);
    if (!set) return err(Error::InvalidParam);
    HartState &h = self();
    unsigned c;
    Event e;
    if (flags & CFG_SKIP_MATCH) {
        // The caller names a counter it configured before (as the other
        // implementations require); it must be able to count the event.
        // cycle and instret count nothing but their own event, so they need
        // no earlier configuration for it: Linux's legacy user-access mode
        // (perf_user_access=2) asks for them this way after boot probing
        // released them.
        c = lowest(set);
        bool known = decode(event_idx, event_data, e);
        bool own = known && c < hw::kFirstHpm && ((e.counters >> c) & 1);
        if (!((h.configured >> c) & 1) && !own) return err(Error::InvalidParam);
        if (!known || !((e.counters >> c) & 1)) return err(Error::NotSupported);
        configure(h, c, e, flags);
        return ok(c);
    }
    if (!decode(event_idx, event_data, e)) return err(Error::NotSupported);
    uint64_t cand = e.counters & set & ~h.started;
    // A request that asks for privilege filtering never lands on a counter
    // that would count the modes it excludes, while another counter could
    // honour it: with Sscofpmf but no Smcntrpmf, cycles or instructions
    // with SINH go to a programmable counter or are NOT_SUPPORTED, never to
    // mcycle/minstret (as OpenSBI since 65bb705f). Unlike OpenSBI, which
    // sets MINH on every programmable counter, a request without filter
    // flags counts every mode on either kind, so it may use the fixed one.
    // SKIP_MATCH (above) takes the counter the caller names, whatever it
    // can filter: the spec has it selected unconditionally.
    if (flags & kCfgInhMask) cand &= ~static_cast<uint64_t>(g.unfiltered);
    if (!cand) return err(Error::NotSupported);
    // A stopped counter may be taken over, but one nobody configured comes
    // first: two requests in a row then get two counters.
    uint64_t free = cand & ~h.configured;
    if (free) cand = free;
    // With Sscofpmf the programmable counters can raise overflow interrupts
    // and filter by privilege, which cycle/instret cannot: prefer them and
    // fall back to the fixed counter. Without Sscofpmf the fixed counter is
    // as good and leaves the programmable ones to other events.
    uint64_t pref = g.sscofpmf ? (cand & ~static_cast<uint64_t>(hw::kFixedMask))
                               : (cand & hw::kFixedMask);
    c = lowest(pref ? pref : cand);
    configure(h, c, e, flags);
    return ok(c);
}

} // namespace

SbiRet counter_config_matching(unsigned long base, unsigned long mask, unsigned long flags,
                               unsigned long event_idx, uint64_t event_data) {
    const Config &g = g_config;
    // General events index the table directly, cache events follow them.
    unsigned long type = event_idx >> kEventTypeShift;
    unsigned long i = event_idx - (type << kEventTypeShift) + (type ? Config::kHwCodes : 0);
    unsigned long end = type ? Config::kHwCodes + Config::kCacheCodes : Config::kHwCodes;
    if (type > TYPE_CACHE || i >= end || (flags & ~(kCfgFlagsValid & ~CFG_SKIP_MATCH)) ||
        event_data) [[unlikely]]
        return config_general(base, mask, flags, event_idx, event_data);
    uint64_t counters = g.events[i].counters, selector = g.events[i].selector;
    // An invalid set, or any set where config_general must decide every
    // request (Config::fast_valid is 0 there): config_general answers.
    uint64_t set = counter_set(base, mask, g.fast_valid);
    if (!set) [[unlikely]]
        return config_general(base, mask, flags, event_idx, event_data);
    HartState &h = self();
    uint64_t cand = counters & set & ~h.started;
    if (!cand) return err(Error::NotSupported);
    // Same choice as config_general, for hardware counters only.
    uint64_t free = cand & ~h.configured;
    if (free) cand = free;
    uint64_t hpm = cand & ~static_cast<uint64_t>(hw::kFixedMask);
    if (!hpm || (!g.sscofpmf && hpm != cand)) [[unlikely]] // a fixed counter
        return config_general(base, mask, flags, event_idx, event_data);
    unsigned c = lowest(hpm);
    uint64_t bit = 1ull << c;
    uint64_t val = selector | (g.sscofpmf ? inhibit_bits(flags) : 0);
    // QEMU counts an event on one counter only and forgets a counter's
    // previous event only when its selector is zeroed. The same selector
    // again needs no write (OF, if set, is START's to clear).
    if (h.event[c] != val) {
        if (h.event[c] != 0) hw::event_write(c, 0, g.sscofpmf);
        hw::event_write(c, val, g.sscofpmf);
        h.event[c] = val;
    }
    if (flags & CFG_CLEAR_VALUE) hw::counter_write(c, 0);
    h.configured |= bit;
    if (flags & CFG_AUTO_START) {
        hw::inhibit_clear(static_cast<uint32_t>(bit));
        h.started |= bit;
    }
    return ok(c);
}

// Linux 6.x (drivers/perf/riscv_pmu_sbi.c, pmu_sbi_start_ovf_ctrs_snapshot)
// restarts counters after an overflow with INIT_SNAPSHOT and a
// counter_idx_base of BITS_PER_LONG * BITS_PER_LONG (a loop index left at its
// end value) where it means 0; the snapshot values it wrote are relative to
// 0. Any other out-of-range base is rejected; README "Linux compatibility".
constexpr unsigned long kLinuxOverflowRestartBase = kXlen * kXlen;

namespace {

// One implementation of start and stop, instantiated twice. kCommon: the
// instance counter_start/counter_stop inline for the common case (hardware
// counters only, no snapshot): no call, so no stack frame. It answers
// kHandOver, having changed nothing, for any other case, which the
// kCommon=false instance (start_general, stop_general) handles. Both check in
// the same order. The answer is the SBI error alone (the value is always 0),
// so that the hand-over stays a tail call.
constexpr Error kHandOver = static_cast<Error>(1); // no SBI error is positive

template <bool kCommon>
[[gnu::always_inline]] inline Error start(unsigned long base, unsigned long mask,
                                          unsigned long flags, uint64_t initial_value) {
    const Config &g = g_config;
    if constexpr (kCommon) {
        if (flags & ~START_SET_INIT_VALUE) [[unlikely]]
            return kHandOver;
    } else {
        if ((flags & ~kStartFlagsValid) || flags == kStartFlagsValid) return Error::InvalidParam;
        if ((flags & START_INIT_SNAPSHOT) && base == kLinuxOverflowRestartBase) base = 0;
    }
    HartState &h = self();
    uint64_t set = counter_set(base, mask, h.configured);
    if (!set) return Error::InvalidParam;
    if ((flags & START_INIT_SNAPSHOT) && h.shmem == kNoShmem) return Error::NoShmem;
    uint64_t todo = set & ~h.started;
    if constexpr (kCommon) {
        if (todo & ~static_cast<uint64_t>(g.fast_hw)) [[unlikely]]
            return kHandOver;
        start_hw<false>(h, todo, flags, [=](unsigned) { return initial_value; });
        h.started |= todo;
    } else {
        start_set(h, todo, flags, initial_value, base);
    }
    return todo == set ? Error::Success : Error::AlreadyStarted;
}

template <bool kCommon>
[[gnu::always_inline]] inline Error stop(unsigned long base, unsigned long mask,
                                         unsigned long flags) {
    const Config &g = g_config;
    if constexpr (kCommon) {
        if (flags) [[unlikely]]
            return kHandOver;
    } else {
        if (flags & ~kStopFlagsValid) return Error::InvalidParam;
    }
    HartState &h = self();
    uint64_t set = counter_set(base, mask, h.configured);
    if (!set) return Error::InvalidParam;
    if ((flags & STOP_TAKE_SNAPSHOT) && h.shmem == kNoShmem) return Error::NoShmem;
    uint64_t todo = set & h.started;
    // The common case has hardware counters only, all of them in todo.
    if constexpr (kCommon) {
        uint64_t hwbits = todo & g.fast_hw;
        if (hwbits != todo) [[unlikely]]
            return kHandOver;
        hw::inhibit_set(static_cast<uint32_t>(hwbits));
    } else {
        uint64_t hwbits = todo & g.hw;
        if (hwbits) hw::inhibit_set(static_cast<uint32_t>(hwbits));
        if (hwbits && g.thead) hw::thead_irq_disable(static_cast<uint32_t>(hwbits));
        for (uint64_t m = todo & g.fw_mask; m; m &= m - 1) {
            unsigned j = lowest(m) - g.fw_base;
            h.fw_val[j] = *h.fw_src[j] - h.fw_val[j];
        }
    }
    h.started &= ~todo;
    if (flags & STOP_TAKE_SNAPSHOT) {
        // Values of the counters this call stopped; the others' slots are
        // left alone. The bitmap covers every overflowed counter from base.
        for (uint64_t m = todo; m; m &= m - 1) {
            unsigned c = lowest(m);
            hw::mem_write64(h.shmem + kSnapshotValuesOff + 8 * (c - base), value_of(h, c));
        }
        uint64_t ovf = 0;
        if (g.sscofpmf) ovf = (hw::overflow_read() & g.hw & h.configured) >> base;
        else if (g.thead) ovf = (hw::thead_overflow_read() & g.hw & h.configured) >> base;
        hw::mem_write64(h.shmem + kSnapshotOverflowOff, ovf);
    }
    // RESET releases every counter named, also those that were already
    // stopped: Linux stops an event, then resets it in a second call that
    // gets ALREADY_STOPPED, and relies on the mapping being gone.
    if (flags & STOP_RESET)
        for (uint64_t m = set; m; m &= m - 1) release(h, lowest(m));
    return todo == set ? Error::Success : Error::AlreadyStopped;
}

[[gnu::noinline]] SbiRet start_general(unsigned long base, unsigned long mask,
                                       unsigned long flags, uint64_t initial_value) {
    return err(start<false>(base, mask, flags, initial_value));
}

[[gnu::noinline]] SbiRet stop_general(unsigned long base, unsigned long mask,
                                      unsigned long flags) {
    return err(stop<false>(base, mask, flags));
}

} // namespace

SbiRet counter_start(unsigned long base, unsigned long mask, unsigned long flags,
                     uint64_t initial_value) {
    Error e = start<true>(base, mask, flags, initial_value);
    if (e == kHandOver) [[unlikely]]
        return start_general(base, mask, flags, initial_value);
    return err(e);
}

SbiRet counter_stop(unsigned long base, unsigned long mask, unsigned long flags) {
    Error e = stop<true>(base, mask, flags);
    if (e == kHandOver) [[unlikely]]
        return stop_general(base, mask, flags);
    return err(e);
}

SbiRet counter_fw_read_hi(unsigned long idx) {
    const HartState &h = self();
    const unsigned long j = fw_configured(h, idx);
    if (j == kNoFw) return err(Error::InvalidParam);
    if constexpr (kXlen >= 64) return ok(0);
    return ok(static_cast<unsigned long>(fw_value(h, j, (h.started >> idx) & 1) >> 32));
}

SbiRet snapshot_set_shmem(unsigned long lo, unsigned long hi, unsigned long flags) {
    if (flags != 0) return err(Error::InvalidParam);
    HartState &h = self();
    if (lo == kShmemDisable && hi == kShmemDisable) {
        h.shmem = kNoShmem;
        return ok();
    }
    if (lo & (kSnapshotAlign - 1)) return err(Error::InvalidParam);
    // M-mode reaches only XLEN-bit physical addresses directly.
    if (hi != 0 || !fw::s_mode_range_ok(lo, hi, kSnapshotSize)) return err(Error::InvalidAddress);
    h.shmem = lo;
    return ok();
}

bool event_supported(unsigned long event_idx, uint64_t event_data) {
    Event e;
    return decode(event_idx, event_data, e);
}

SbiRet event_get_info(unsigned long lo, unsigned long hi, unsigned long num, unsigned long flags) {
    if (flags != 0 || (lo & (kEventInfoAlign - 1))) return err(Error::InvalidParam);
    if (num > ~0ul / kEventInfoEntrySize) return err(Error::InvalidAddress);
    if (hi != 0 || !fw::s_mode_range_ok(lo, hi, num * kEventInfoEntrySize))
        return err(Error::InvalidAddress);
    // Reserved event_idx bits anywhere fail the whole call before any write.
    for (unsigned long i = 0; i < num; i++)
        if (hw::mem_read32(lo + i * kEventInfoEntrySize + kEventInfoIdxOff) & kEventInfoIdxReserved)
            return err(Error::InvalidParam);
    for (unsigned long i = 0; i < num; i++) {
        uintptr_t p = lo + i * kEventInfoEntrySize;
        uint32_t idx = hw::mem_read32(p + kEventInfoIdxOff);
        unsigned type = event_type(idx);
        // event_data is meaningful for raw and firmware events only.
        uint64_t data = (type == TYPE_RAW || type == TYPE_RAW_V2 || type == TYPE_FW)
                            ? hw::mem_read64(p + kEventInfoDataOff)
                            : 0;
        hw::mem_write32(p + kEventInfoOutputOff, event_supported(idx, data) ? kEventInfoSupported : 0);
    }
    return ok();
}

} // namespace pmu
