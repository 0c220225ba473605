// SPDX-License-Identifier: BSD-2-Clause
// The M-mode enables an ISA extension's S-mode use needs, as values computed
// from a hart's extensions (fw::Ext bits): pure, so the host tests check
// them. init.cpp writes them at boot (core/README.md "M-mode enables").
#pragma once
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
// - STRCS (self-hosted trace draft, Smstrcn): the hart's trace buffer (the
//   Ssamb AMB) is written with S-mode privilege through satp. With 0 it is
//   written with M-mode privilege and no translation, to whatever physical
//   address S-mode programs once it may reach sstrcamb* (smstrc.adoc
//   "menvcfg", asyncmbuf.adoc "Asynchronous Write Privilege and Address
//   Translation"): set wherever the hart has Smstrcn, whether or not the
//   trace subsystem delegates the CSRs (hw_models/qemu/README.md, Q10).
// Left 0: LPE, SSE, DTE, PMM, whose reset value under SBI FWFT is 0 (S-mode
// turns them on through FWFT, sbi/fwft.cpp), FIOM, and CDE (Smcdeleg): it
// would let S-mode program the hpm counters and events through sireg*
// behind the SBI PMU service, which owns them (core/README.md).
constexpr uint64_t boot_menvcfg(uint64_t isa) {
    using namespace csr::menvcfg_bits;
    uint64_t v = 0;
    if (has(isa, EXT_SSTC)) v |= STCE;
    if (has(isa, EXT_SVPBMT)) v |= PBMTE;
    if (has(isa, EXT_ZICBOM)) v |= CBIE | CBCFE;
    if (has(isa, EXT_ZICBOZ)) v |= CBZE;
    if (has(isa, EXT_SVADU) && !has(isa, EXT_SVADE)) v |= ADUE;
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

// Extensions the firmware does not enable, taken out of the device tree the
// next stage gets (dt::fixup_withhold_extensions) so that it does not use
// them: Smcdeleg and Ssccfg, counter delegation (menvcfg.CDE above). A
// kernel that finds them would program the counters through sireg* and
// take illegal-instruction exceptions.
inline constexpr const char *kWithheld[] = {"smcdeleg", "ssccfg"};
// Self-hosted trace's S-level extensions, withheld unless the trace
// subsystem hands them over (fw::strc_offered): mstateen0.STRC is closed
// otherwise (boot_mstateen0), so a kernel would take illegal instructions.
inline constexpr const char *kWithheldStrc[] = {"ssstrcn", "ssamb"};

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

} // namespace fw::enables
