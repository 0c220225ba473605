// SPDX-License-Identifier: BSD-2-Clause
// The M-mode enables an ISA extension's S-mode use needs, as values computed
// from a hart's extensions (fw::Ext bits): pure, so the host tests check
// them. init.cpp writes them at boot (core/README.md "M-mode enables").
#pragma once
#include "dt.hpp"
#include "hart.hpp"
#include "riscv/csr.hpp"

namespace fw::enables {

constexpr bool has(uint64_t isa, Ext e) { return (isa >> e) & 1; }

// menvcfg at boot. Each field an extension defines for S-mode, set where the
// hart has the extension (privileged spec, "Machine Environment
// Configuration Register"):
// - STCE (Sstc): S-mode's stimecmp drives STIP; PBMTE (Svpbmt): PTE bits
//   62:61 mean memory types instead of reserved.
// - CBIE = 11 and CBCFE (Zicbom): cbo.inval/clean/flush execute in S-mode,
//   cbo.inval as an invalidation; CBZE (Zicboz): cbo.zero.
// - ADUE (Svadu): the hart updates PTE A/D bits itself. The riscv,isa-
//   extensions binding reads "svadu without svade" as hardware updating and
//   "both" as Svade's page faults, FWFT PTE_AD_HW_UPDATING's reset value 0
//   (ext-firmware-features.adoc): set only for Svadu alone.
// - CDE (Smcdeleg): counter delegation. With mcounteren all ones
//   (init.cpp) every counter is delegated: S-mode may program the counters
//   and their selectors through siselect 0x40..0x5F and sireg*, and start
//   and stop them through scountinhibit (Smcdeleg, "Counter Delegation").
//   OpenSBI 1.6 and master set CDE wherever the hart has Smcdeleg and
//   keep mcounteren all ones; the SBI PMU service stays whole beside it
//   (pmu/README.md "Counter delegation").
// - STRCS (self-hosted trace draft, Smstrcn): the hart's trace buffer (the
//   Ssamb AMB) is written with S-mode privilege through satp. With 0 it is
//   written with M-mode privilege and no translation, to whatever physical
//   address S-mode programs once it may reach sstrcamb* (smstrc.adoc
//   "menvcfg", asyncmbuf.adoc "Asynchronous Write Privilege and Address
//   Translation"): set wherever the hart has Smstrcn, whether or not the
//   trace subsystem delegates the CSRs (hw_models/qemu/README.md, Q10).
// Left 0: LPE, SSE, DTE, PMM, whose reset value under SBI FWFT is 0 (S-mode
// turns them on through FWFT, sbi/fwft.cpp), and FIOM.
constexpr uint64_t boot_menvcfg(uint64_t isa) {
    using namespace csr::menvcfg_bits;
    uint64_t v = 0;
    if (has(isa, EXT_SSTC)) v |= STCE;
    if (has(isa, EXT_SVPBMT)) v |= PBMTE;
    if (has(isa, EXT_ZICBOM)) v |= CBIE | CBCFE;
    if (has(isa, EXT_ZICBOZ)) v |= CBZE;
    if (has(isa, EXT_SVADU) && !has(isa, EXT_SVADE)) v |= ADUE;
    if (has(isa, EXT_SMCDELEG)) v |= CDE;
    if (has(isa, EXT_SMSTRCN)) v |= STRCS;
    return v;
}

// mstateen0 at boot: every state the hart has (WARL keeps what exists),
// except self-hosted trace (STRC). Opening it hands S-mode the hart's trace
// encoder and a buffer the hardware writes; only the trace subsystem
// decides that (firmware/trace/README.md), so the core never opens it.
constexpr uint64_t boot_mstateen0() { return ~0ull & ~csr::mstateen0_bits::STRC; }

// mideleg's self-hosted trace part: LAMBI, the buffer's interrupt, goes to
// S-mode wherever the hart has Ssamb, as LCOFI does with Sscofpmf (every
// scenario of smstrc.adoc "Configuration Scenarios" delegates it). It can
// fire only when S-mode has enabled a buffer.
constexpr unsigned long lambi_deleg(uint64_t isa) {
    return has(isa, EXT_SSAMB) ? 1ul << csr::irq::LAMBI : 0;
}

// Extensions taken out of a hart's device-tree node (the one the next stage
// gets, dt::fixup_withhold_extensions) when the node lacks the extension
// whose M-mode enable they need, so that S-mode does not use them:
// Ssccfg, S-mode's half of counter delegation, works only with
// menvcfg.CDE, which boot_menvcfg sets where the hart has Smcdeleg. A
// kernel that found Ssccfg alone would program the counters through
// sireg* and take illegal-instruction exceptions.
inline constexpr dt::Withhold kWithheld[] = {{"ssccfg", EXT_SMCDELEG}};
// Self-hosted trace's S-level extensions, withheld from every node unless
// the trace subsystem hands them over (fw::strc_offered): mstateen0.STRC is
// closed otherwise (boot_mstateen0), so a kernel would take illegal
// instructions. EXT_COUNT is a bit no hart has: "unless" never holds.
static_assert(EXT_COUNT < 64);
inline constexpr dt::Withhold kWithheldStrc[] = {{"ssstrcn", EXT_COUNT}, {"ssamb", EXT_COUNT}};

// FWFT PTE_AD_HW_UPDATING can be toggled only on a hart with both Svade and
// Svadu: with Svadu alone its value is fixed at 1 (boot_menvcfg), with
// Svade alone at 0, and S-mode learns either from the device tree.
constexpr bool fwft_adue_toggles(uint64_t isa) {
    return has(isa, EXT_SVADU) && has(isa, EXT_SVADE);
}

// mseccfg bits to set and to clear at boot. Zkr: "seed" is accessible to
// S-mode with SSEED = 1 and to U-mode with USEED = 1 (Zkr, "Entropy Source
// Access Control"); Linux reads it in S-mode for its early entropy, and
// U-mode gets none, as under OpenSBI. Smepmp's bits (MML, MMWP, RLB) stay
// as they are: this firmware's PMP set-up does not use them.
struct MseccfgUpdate {
    unsigned long set, clear;
};
constexpr MseccfgUpdate boot_mseccfg(uint64_t isa) {
    if (!has(isa, EXT_ZKR)) return {0, 0};
    return {csr::mseccfg_bits::SSEED, csr::mseccfg_bits::USEED};
}

// PMP entries that close regions to S-mode, of `entries` implemented ones,
// for `wanted` regions (the firmware's first): one entry always goes to the
// last rule that opens the rest of the address space, and with fewer than
// two entries there is nothing the firmware can close.
constexpr unsigned pmp_deny_entries(unsigned entries, unsigned wanted) {
    if (entries < 2) return 0;
    return wanted < entries - 1 ? wanted : entries - 1;
}

// PMP read-back after setup (init.cpp verify_pmp). `held`: what an OFF
// entry reads after all-ones was written: the address bits it holds, with
// pmpaddr[G-1:0] reading zero (G the granularity); a NAPOT entry reads
// pmpaddr[G-2:0] as ones (privileged spec, "Physical Memory Protection
// CSRs"), so only the held bits are compared.
constexpr bool pmpaddr_reads_back(unsigned long got, unsigned long wrote, unsigned long held) {
    return ((got ^ wrote) & held) == 0;
}
// The bits of pmpcfg<r> (`per_cfg` entries a register: XLEN / 8) that
// belong to entries 0..last.
constexpr unsigned long pmpcfg_compared(unsigned r, unsigned last, unsigned per_cfg) {
    if (r * per_cfg > last) return 0;
    unsigned bytes = last + 1 - r * per_cfg;
    if (bytes >= per_cfg) return per_cfg == sizeof(long) ? ~0ul : (1ul << (8 * per_cfg)) - 1;
    return (1ul << (8 * bytes)) - 1;
}

} // namespace fw::enables
