// SPDX-License-Identifier: BSD-2-Clause
// DBTR (ext-debug-triggers.adoc) logic that needs no hart: the Sdtrig
// tdata1 fields (RISC-V Debug Specification 1.0, "Sdtrig"), trig_state,
// the checks of a trigger configuration and of index ranges and masks, and
// the choice of hardware triggers for a chain. Used by firmware/sbi/dbtr.cpp
// and the host tests (tests/host/test_dbtr.cpp).
#pragma once
#include "sbi/sbi.hpp"
#include <stdint.h>

namespace sbi::dbtr {

constexpr unsigned kXlen = sizeof(unsigned long) * 8;
// tdata1: type in the top 4 bits, dmode below it (all trigger types).
constexpr unsigned kTypeShift = kXlen - 4;
constexpr unsigned long DMODE = 1ul << (kXlen - 5);
// Trigger types (tdata1.type).
enum : unsigned {
    TYPE_NONE = 0,
    TYPE_LEGACY = 1,
    TYPE_MCONTROL = 2,
    TYPE_ICOUNT = 3,
    TYPE_ITRIGGER = 4,
    TYPE_ETRIGGER = 5,
    TYPE_MCONTROL6 = 6,
    TYPE_TMEXTTRIGGER = 7,
    TYPE_CUSTOM_FIRST = 12,
    TYPE_CUSTOM_LAST = 14,
    TYPE_DISABLED = 15,
};
// The types this firmware installs (as OpenSBI): address/data match.
constexpr unsigned kInstallable = (1u << TYPE_MCONTROL) | (1u << TYPE_MCONTROL6);
// Types the Debug Specification defines for use (the others are reserved,
// "none", "disabled" or the legacy SiFive type): a valid value that we do
// not install is NOT_SUPPORTED, anything else INVALID_PARAM.
constexpr unsigned kDefinedTypes =
    (1u << TYPE_MCONTROL) | (1u << TYPE_ICOUNT) | (1u << TYPE_ITRIGGER) |
    (1u << TYPE_ETRIGGER) | (1u << TYPE_MCONTROL6) | (1u << TYPE_TMEXTTRIGGER) |
    (((1u << (TYPE_CUSTOM_LAST - TYPE_CUSTOM_FIRST + 1)) - 1) << TYPE_CUSTOM_FIRST);
// mcontrol and mcontrol6 fields (the same positions in both where shared).
constexpr unsigned long LOAD = 1ul << 0, STORE = 1ul << 1, EXECUTE = 1ul << 2, U = 1ul << 3,
                        S = 1ul << 4, M = 1ul << 6, CHAIN = 1ul << 11;
constexpr unsigned long MC_HIT = 1ul << 20;                       // mcontrol
constexpr unsigned long MC6_HIT0 = 1ul << 22, MC6_VU = 1ul << 23, // mcontrol6
    MC6_VS = 1ul << 24, MC6_HIT1 = 1ul << 25;
// tinfo.info: bit n set when the trigger supports type n; 1 = no trigger.
constexpr unsigned long kTinfoInfo = 0xFFFF;
constexpr unsigned long kTinfoNoTrigger = 1;

// Table "Debug Trigger State Fields" (hw_trig_idx is never reported: README).
constexpr unsigned long TS_MAPPED = 1ul << 0, TS_U = 1ul << 1, TS_S = 1ul << 2, TS_VU = 1ul << 3,
                        TS_VS = 1ul << 4;

// Triggers served per hart (QEMU has 2; OpenSBI serves up to 32).
constexpr unsigned kMaxTriggers = 16;

constexpr unsigned type_of(unsigned long tdata1) {
    return static_cast<unsigned>(tdata1 >> kTypeShift);
}
// The mode bits of an installable type, and its hit bits (set by the hart).
constexpr unsigned long mode_bits(unsigned type) {
    return type == TYPE_MCONTROL6 ? U | S | MC6_VU | MC6_VS : U | S;
}
constexpr unsigned long hit_bits(unsigned type) {
    return type == TYPE_MCONTROL6 ? MC6_HIT0 | MC6_HIT1 : MC_HIT;
}
// trig_state's copies of tdata1.vs/vu/s/u, and back.
constexpr unsigned long state_from_tdata1(unsigned long t1) {
    bool mc6 = type_of(t1) == TYPE_MCONTROL6;
    return ((t1 & U) ? TS_U : 0) | ((t1 & S) ? TS_S : 0) | (mc6 && (t1 & MC6_VU) ? TS_VU : 0) |
           (mc6 && (t1 & MC6_VS) ? TS_VS : 0);
}
constexpr unsigned long tdata1_modes_from_state(unsigned type, unsigned long st) {
    unsigned long v = ((st & TS_U) ? U : 0) | ((st & TS_S) ? S : 0);
    if (type == TYPE_MCONTROL6) v |= ((st & TS_VU) ? MC6_VU : 0) | ((st & TS_VS) ? MC6_VS : 0);
    return v;
}

// INVALID_PARAM or NOT_SUPPORTED for a configuration no trigger could take,
// SUCCESS otherwise: trig_tdata1.dmode and .m must be zero, and "the last
// trigger configuration ... MUST not have trig_tdata1.chain == 1".
constexpr Error check_config(unsigned long tdata1, bool last) {
    unsigned type = type_of(tdata1);
    if (!((kDefinedTypes >> type) & 1) || (tdata1 & DMODE)) return Error::InvalidParam;
    if (!((kInstallable >> type) & 1)) return Error::NotSupported;
    if (tdata1 & M) return Error::InvalidParam;
    if (last && (tdata1 & CHAIN)) return Error::InvalidParam;
    return Error::Success;
}

// [base, base + count) within trig_max triggers, without wrap-around
// (README: the spec's ">= trig_max" would make the last trigger unreadable).
constexpr bool range_ok(unsigned trig_max, unsigned long base, unsigned long count) {
    return base < trig_max && count <= trig_max - base;
}

// uninstall/enable/disable: every trig_idx_base + n with bit n set in
// trig_idx_mask names a mapped trigger below trig_max.
constexpr bool mask_ok(unsigned trig_max, const uint8_t *state, unsigned long base,
                       unsigned long mask) {
    for (unsigned n = 0; n < kXlen; n++)
        if (((mask >> n) & 1) &&
            (base >= trig_max || n >= trig_max - base || !(state[base + n] & TS_MAPPED)))
            return false;
    return true;
}

// Lowest run of `len` consecutive triggers, none mapped or in `taken`,
// where trigger s + k supports the type of tdata1[k]; -1 if there is none.
constexpr long find_run(unsigned trig_max, const uint8_t *state, const uint16_t *types,
                        const unsigned long *tdata1, unsigned long len, uint32_t taken) {
    for (unsigned long s = 0; s + len <= trig_max; s++) {
        bool fits = true;
        for (unsigned long k = 0; k < len && fits; k++) {
            unsigned long idx = s + k;
            fits = !(state[idx] & TS_MAPPED) && !((taken >> idx) & 1) &&
                   ((types[idx] >> type_of(tdata1[k])) & 1);
        }
        if (fits) return static_cast<long>(s);
    }
    return -1;
}

} // namespace sbi::dbtr
