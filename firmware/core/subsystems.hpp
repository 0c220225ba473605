// SPDX-License-Identifier: BSD-2-Clause
// The one list of optional subsystems (descriptors: include/subsystem.hpp)
// and the calls the core makes through it. The list is a compile-time
// constant, so each call below compiles to direct calls of the members that
// are set, in list order (PMU, CTR, trace), and to nothing for the others.
// FW_SUBSYSTEMS=0 (firmware/build.mk) builds the core with an empty list.
#pragma once
#include "subsystem.hpp"

#ifndef TSBI_SUBSYSTEMS
#error "TSBI_SUBSYSTEMS (0 or 1) comes from firmware/build.mk"
#endif
#if TSBI_SUBSYSTEMS
#include "ctr/subsystem.hpp"
#include "pmu/subsystem.hpp"
#include "trace/subsystem.hpp"
#endif

namespace fw::subsystems {

template <const Subsystem &...S> struct List {
    // Every subsystem's member M, in order.
    template <auto M, class... A> static inline void each(A &&...a) {
        (call<S, M>(static_cast<A &&>(a)...), ...);
    }
    // The first answer that is not NotMine.
    template <auto M, class... A> static inline CsrResult first(A &&...a) {
        CsrResult r = CsrResult::NotMine;
        ((r = r == CsrResult::NotMine ? call<S, M>(a...) : r), ...);
        return r;
    }
    // Whether some subsystem returned true (the later ones are not asked).
    template <auto M, class... A> static inline bool any(A &&...a) {
        return (false || ... || call<S, M>(a...));
    }
    // Whether some subsystem's csr_fast takes CSR number `num`.
    static constexpr bool fast_csr(unsigned num) {
        return (false || ... || (S.csr_fast != nullptr && num - S.csr_fast_first < S.csr_fast_count));
    }
    // What every subsystem carves per hart, summed.
    static inline unsigned long per_hart_bytes([[maybe_unused]] const void *fdt) {
        return (0ul + ... + call<S, &Subsystem::per_hart_bytes>(fdt));
    }
    // What every subsystem's fdt_fixup may add to the device tree, summed.
    static inline unsigned long fdt_room([[maybe_unused]] const void *fdt) {
        return (0ul + ... + call<S, &Subsystem::fdt_room>(fdt));
    }
    // Regions of every subsystem, one after the other.
    static inline unsigned mmode_regions(MmioRange *out, unsigned max) {
        unsigned n = 0;
        ((n += call<S, &Subsystem::mmode_regions>(out + n, max - n)), ...);
        return n;
    }

  private:
    // Member M of S, or what an absent member means (nothing, NotMine,
    // false, no regions).
    template <const Subsystem &D, auto M, class... A> static inline auto call(A &&...a) {
        if constexpr (D.*M != nullptr)
            return (D.*M)(static_cast<A &&>(a)...);
        else
            return decltype((D.*M)(static_cast<A &&>(a)...))();
    }
};

#if TSBI_SUBSYSTEMS
using All = List<pmu::kSubsystem, ctr::kSubsystem, trace::kSubsystem>;
#else
using All = List<>;
#endif

inline void cold_init(const void *fdt, unsigned long next_addr) {
    All::each<&Subsystem::cold_init>(fdt, next_addr);
}
inline void fdt_fixup(void *fdt) {
    All::each<&Subsystem::fdt_fixup>(fdt);
}
[[nodiscard]] inline unsigned mmode_regions(MmioRange *out, unsigned max) {
    return All::mmode_regions(out, max);
}
inline unsigned long per_hart_bytes(const void *fdt) { return All::per_hart_bytes(fdt); }
inline unsigned long fdt_room(const void *fdt) { return All::fdt_room(fdt); }
inline void hart_init() {
    All::each<&Subsystem::hart_init>();
}
inline void hart_restart() {
    All::each<&Subsystem::hart_restart>();
}
inline void smode_enter() {
    All::each<&Subsystem::smode_enter>();
}
inline void smode_leave() {
    All::each<&Subsystem::smode_leave>();
}
inline void hart_stop() {
    All::each<&Subsystem::hart_stop>();
}
inline void hart_suspend() {
    All::each<&Subsystem::hart_suspend>();
}
inline void hart_resume() {
    All::each<&Subsystem::hart_resume>();
}
inline void system_reset() {
    All::each<&Subsystem::system_reset>();
}
inline void fw_event(FwEvent e) {
    All::each<&Subsystem::fw_event>(e);
}
[[nodiscard]] inline CsrResult read_csr(unsigned csr, unsigned mode, bool virt,
                                        unsigned long &value) {
    return All::first<&Subsystem::read_csr>(csr, mode, virt, value);
}
[[nodiscard]] inline CsrResult write_csr(unsigned csr, unsigned mode, bool virt,
                                         unsigned long value) {
    return All::first<&Subsystem::write_csr>(csr, mode, virt, value);
}
[[nodiscard]] constexpr bool fast_csr(unsigned num) { return All::fast_csr(num); }
[[nodiscard]] inline bool csr_fast(TrapFrame &f, uint32_t insn, unsigned long mstatus) {
    return All::any<&Subsystem::csr_fast>(f, insn, mstatus);
}
[[nodiscard]] inline CsrResult sctrclr(unsigned mode, bool virt) {
    return All::first<&Subsystem::sctrclr>(mode, virt);
}
[[nodiscard]] inline bool m_interrupt(unsigned long code) {
    return All::any<&Subsystem::m_interrupt>(code);
}
inline void record_trap(unsigned long from_pc, unsigned long to_pc, unsigned long cause,
                        unsigned from_priv, unsigned to_priv) {
    All::each<&Subsystem::record_trap>(from_pc, to_pc, cause, from_priv, to_priv);
}

} // namespace fw::subsystems
