// SPDX-License-Identifier: BSD-2-Clause
// SBI Supervisor Software Events (ext-sse.adoc): the event IDs, attributes
// and the per-event state machine, without any hart or CSR access.
// Header-only so the host tests (tests/host/test_sse.cpp) run the same code
// the firmware does (firmware/sbi/sse.cpp).
#pragma once
#include "sbi/sbi.hpp"
#include <stdint.h>

namespace sbi::sse {

// Function IDs (the extension's function listing).
enum : unsigned long {
    READ_ATTRS = 0,
    WRITE_ATTRS = 1,
    REGISTER = 2,
    UNREGISTER = 3,
    ENABLE = 4,
    DISABLE = 5,
    COMPLETE = 6,
    INJECT = 7,
    HART_UNMASK = 8,
    HART_MASK = 9,
};

// Table "SSE Event ID Space": the two classifying bits of each 16-bit range.
constexpr uint32_t kPlatformBit = 1u << 14, kGlobalBit = 1u << 15;
// The standard events of the same table.
enum : uint32_t {
    LOCAL_HIGH_PRIO_RAS = 0x00000000,
    LOCAL_DOUBLE_TRAP = 0x00000001,
    GLOBAL_HIGH_PRIO_RAS = 0x00008000,
    LOCAL_PMU_OVERFLOW = 0x00010000,
    LOCAL_LOW_PRIO_RAS = 0x00100000,
    GLOBAL_LOW_PRIO_RAS = 0x00108000,
    LOCAL_SOFTWARE = 0xffff0000,
    GLOBAL_SOFTWARE = 0xffff8000,
};

// Table "SSE Event Attributes".
enum : uint32_t {
    STATUS = 0,
    PRIORITY = 1,
    CONFIG = 2,
    PREFERRED_HART = 3,
    ENTRY_PC = 4,
    ENTRY_ARG = 5,
    INTERRUPTED_SEPC = 6,
    INTERRUPTED_FLAGS = 7,
    INTERRUPTED_A6 = 8,
    INTERRUPTED_A7 = 9,
    kNumAttrs = 10,
};
// STATUS fields.
constexpr unsigned long kStatusStateMask = 3, kStatusPending = 1ul << 2,
                        kStatusInjectable = 1ul << 3;
// CONFIG fields.
constexpr unsigned long CONFIG_ONESHOT = 1;
// INTERRUPTED_FLAGS fields.
constexpr unsigned long FLAG_SPP = 1ul << 0, FLAG_SPIE = 1ul << 1, FLAG_SPV = 1ul << 2,
                        FLAG_SPVP = 1ul << 3, FLAG_SPELP = 1ul << 4, FLAG_SDT = 1ul << 5;
constexpr unsigned long kFlagsDefined =
    FLAG_SPP | FLAG_SPIE | FLAG_SPV | FLAG_SPVP | FLAG_SPELP | FLAG_SDT;

// "Software Event States".
enum State : uint8_t { UNUSED = 0, REGISTERED = 1, ENABLED = 2, RUNNING = 3 };

// The events this firmware implements (README "SSE"), by index; local ones
// first. Each local event exists once per hart, each global one once.
enum EventIdx : unsigned {
    EV_PMU_OVERFLOW,
    EV_LOCAL_SOFTWARE,
    EV_DOUBLE_TRAP,
    EV_GLOBAL_SOFTWARE,
    kNumEvents
};
constexpr unsigned kNumLocal = 3;
constexpr uint32_t kEventIds[kNumEvents] = {LOCAL_PMU_OVERFLOW, LOCAL_SOFTWARE, LOCAL_DOUBLE_TRAP,
                                            GLOBAL_SOFTWARE};

constexpr bool is_global(uint32_t id) { return (id & kGlobalBit) != 0; }

// What an event ID names: one of our events (err Success, idx), a standard
// event this platform cannot back (NotSupported), or nothing: a reserved ID
// or a platform-specific one, of which QEMU virt defines none (InvalidParam).
struct Lookup {
    Error err;
    unsigned idx;
};
// PMU overflow needs Sscofpmf, double trap Ssdbltrp (menvcfg.DTE).
constexpr Lookup lookup(uint32_t id, bool pmu_overflow_backed, bool double_trap_backed) {
    for (unsigned i = 0; i < kNumEvents; i++)
        if (kEventIds[i] == id) {
            if (i == EV_PMU_OVERFLOW && !pmu_overflow_backed) return {Error::NotSupported, 0};
            if (i == EV_DOUBLE_TRAP && !double_trap_backed) return {Error::NotSupported, 0};
            return {Error::Success, i};
        }
    switch (id) {
    case LOCAL_HIGH_PRIO_RAS:
    case GLOBAL_HIGH_PRIO_RAS:
    case LOCAL_LOW_PRIO_RAS:
    case GLOBAL_LOW_PRIO_RAS: return {Error::NotSupported, 0};
    default: return {Error::InvalidParam, 0};
    }
}

// One event's attributes and state (PREFERRED_HART lives with the caller:
// the calling hart for local events, the global record for global ones).
struct Event {
    unsigned long entry_pc, entry_arg;
    unsigned long i_sepc, i_a6, i_a7; // INTERRUPTED_* (valid while RUNNING)
    uint32_t prio;
    uint8_t state;
    uint8_t i_flags;
    bool pending;
    bool oneshot;
};

constexpr unsigned long status(const Event &e) {
    // Every event we implement may be injected (sbi_sse_inject).
    return e.state | (e.pending ? kStatusPending : 0) | kStatusInjectable;
}

// Event priority order ("Software Event Priority"): lower value first,
// then lower event ID. True when a goes before b.
constexpr bool higher(uint32_t prio_a, uint32_t id_a, uint32_t prio_b, uint32_t id_b) {
    return prio_a < prio_b || (prio_a == prio_b && id_a < id_b);
}

// --- the state machine ("SBI SSE State Machine"), one function per FID ----
constexpr Error do_register(Event &e, unsigned long pc, unsigned long arg) {
    if (pc & 1) return Error::InvalidParam; // ENTRY_PC is 2-byte aligned
    if (e.state != UNUSED) return Error::InvalidState;
    e.entry_pc = pc, e.entry_arg = arg, e.state = REGISTERED;
    return Error::Success;
}
constexpr Error do_unregister(Event &e) {
    if (e.state != REGISTERED) return Error::InvalidState;
    // An unused event has no handler to run: a pending injection is dropped.
    e.state = UNUSED, e.pending = false;
    return Error::Success;
}
constexpr Error do_enable(Event &e) {
    if (e.state != REGISTERED) return Error::InvalidState;
    e.state = ENABLED;
    return Error::Success;
}
constexpr Error do_disable(Event &e) {
    if (e.state != ENABLED) return Error::InvalidState;
    e.state = REGISTERED;
    return Error::Success;
}
// sbi_sse_complete of the running event: back to ENABLED, or REGISTERED
// when one-shot.
constexpr void do_complete(Event &e) { e.state = e.oneshot ? REGISTERED : ENABLED; }
// An event source (inject, counter overflow) signals the event. An UNUSED
// event has no handler and ignores it (README "SSE").
constexpr void signal(Event &e) {
    if (e.state != UNUSED) e.pending = true;
}
// Ready to be delivered on a hart that has events unmasked.
constexpr bool ready(const Event &e) { return e.pending && e.state == ENABLED; }

// --- attributes ------------------------------------------------------------
constexpr unsigned long read_attr(const Event &e, uint32_t attr, unsigned long hart) {
    switch (attr) {
    case STATUS: return status(e);
    case PRIORITY: return e.prio;
    case CONFIG: return e.oneshot ? CONFIG_ONESHOT : 0;
    case PREFERRED_HART: return hart;
    case ENTRY_PC: return e.entry_pc;
    case ENTRY_ARG: return e.entry_arg;
    case INTERRUPTED_SEPC: return e.i_sepc;
    case INTERRUPTED_FLAGS: return e.i_flags;
    case INTERRUPTED_A6: return e.i_a6;
    default: return e.i_a7;
    }
}

// Whether `value` may be written to `attr` (< kNumAttrs): read-only ones
// are DENIED, a write in the wrong state INVALID_STATE, an illegal value
// INVALID_PARAM. `running_here`: the event is RUNNING on the calling hart
// (for a global event, only that hart may change the interrupted state).
template <typename HartValid>
constexpr Error write_check(const Event &e, bool global, bool running_here, uint32_t attr,
                            unsigned long value, HartValid hart_valid) {
    const bool configurable = e.state == UNUSED || e.state == REGISTERED;
    switch (attr) {
    case STATUS:
    case ENTRY_PC:
    case ENTRY_ARG: return Error::Denied;
    case PREFERRED_HART:
        if (!global) return Error::Denied; // read-only for local events
        if (!configurable) return Error::InvalidState;
        return hart_valid(value) ? Error::Success : Error::InvalidParam;
    case PRIORITY:
        if (!configurable) return Error::InvalidState;
        // A 32-bit value: upper bits are never set, so setting one is illegal.
        return value > 0xffffffffu ? Error::InvalidParam : Error::Success;
    case CONFIG:
        if (!configurable) return Error::InvalidState;
        return (value & ~CONFIG_ONESHOT) ? Error::InvalidParam : Error::Success;
    default: // INTERRUPTED_*
        if (e.state != RUNNING || !running_here) return Error::InvalidState;
        if (attr == INTERRUPTED_FLAGS && (value & ~kFlagsDefined)) return Error::InvalidParam;
        return Error::Success;
    }
}

// Applies a write that write_check() accepted (PREFERRED_HART is the
// caller's).
constexpr void write_attr(Event &e, uint32_t attr, unsigned long value) {
    switch (attr) {
    case PRIORITY: e.prio = static_cast<uint32_t>(value); break;
    case CONFIG: e.oneshot = value & CONFIG_ONESHOT; break;
    case INTERRUPTED_SEPC: e.i_sepc = value; break;
    case INTERRUPTED_FLAGS: e.i_flags = static_cast<uint8_t>(value); break;
    case INTERRUPTED_A6: e.i_a6 = value; break;
    case INTERRUPTED_A7: e.i_a7 = value; break;
    default: break;
    }
}

// The attribute range [base, base + count) of read_attrs/write_attrs:
// INVALID_PARAM for count 0, BAD_RANGE when it reaches a reserved ID.
constexpr Error attr_range_check(uint32_t base, uint32_t count) {
    if (count == 0) return Error::InvalidParam;
    if (static_cast<uint64_t>(base) + count > kNumAttrs) return Error::BadRange;
    return Error::Success;
}

} // namespace sbi::sse
