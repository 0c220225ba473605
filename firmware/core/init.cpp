// SPDX-License-Identifier: BSD-2-Clause
// Boot: choose the boot hart, initialise the platform from the device tree,
// fix the device tree up, set up every hart's M-mode state (delegation,
// counters, envcfg, stateen, PMP) and hand off to the next stage. Harts other
// than the boot hart wait in HSM STOPPED until S-mode starts them.
#include "asm.h"
#include "dt.hpp"
#include "hart.hpp"
#include "fw_region.hpp"
#include "fdt_walk.hpp"
#include "hart_enables.hpp"
#include "subsystems.hpp"
#include "platform.hpp"
#include "drivers/drivers.hpp"
#include "riscv/csr.hpp"
#include "riscv/aia.hpp"
#include <string.h>
#include "riscv/csr_safe.hpp"
#include "sbi/sbi.hpp"
#include "sbi/services.hpp"
#include <libfdt.h>

extern "C" char _fw_start[], _fw_end[], _bss_start[], _bss_end[];
extern "C" [[noreturn]] void smode_enter(unsigned long a0, unsigned long a1, unsigned long pc);
// entry.S: the release of the waiting harts (.data).
extern "C" fw::atomic<unsigned long> fw_cold_boot_done;
// Set by the image (firmware/core/image_*.cpp): the fw_dynamic image honours
// the info struct in a2, the fw_jump image ignores it.
extern "C" const bool fw_image_dynamic;

// The per-hart memory carved at cold boot (carve_harts): entry.S gives a
// released hart with an index in fw_hart_map the stack at fw_stacks_base +
// (index + 1) * kStackSize; other harts park.
extern "C" {
fw::hartmap::Map fw_hart_map;
uintptr_t fw_stacks_base;
}
static_assert(offsetof(fw::hartmap::Map, id_limit) == 0 &&
                  offsetof(fw::hartmap::Map, table) == sizeof(long),
              "entry.S reads fw_hart_map's id_limit and table there");
static_assert(HARTMAP_NO_INDEX == fw::hartmap::kNoIndex, "entry.S's constant (asm.h)");

namespace fw {

HartBlock *blocks;
bool strc_offered;
unsigned long hart_valid_bits[kHartWords];
// The harts the device tree describes, read once by cold boot (dt.hpp) for
// every subsystem that needs them; carved after the image (carve_harts).
dt::HartDesc *boot_descs;
unsigned n_boot_descs;

unsigned n_cpu_nodes; // every cpu node of the boot tree (dt::Beyond::cpu_nodes)

unsigned device_tree_harts(const dt::HartDesc *&descs) {
    descs = boot_descs;
    return n_boot_descs;
}

unsigned device_tree_cpu_nodes() { return n_cpu_nodes; }

namespace {

// fw_dynamic_info (OpenSBI's boot contract, shared/reference/peers.md).
struct FwDynamicInfo {
    unsigned long magic, version, next_addr, next_mode, options, boot_hart;
};
static_assert(FW_DYNAMIC_INFO_MAGIC == 0x4942534f && MIP_MSIP == 1 << csr::irq::MSI,
              "entry.S's constants (asm.h)");
static_assert(MIP_MEIP == 1 << csr::irq::MEI && CSR_MISELECT == csr::miselect && CSR_MIREG == csr::mireg &&
                  AIA_EIDELIVERY == aia::iselect::EIDELIVERY && AIA_EITHRESHOLD == aia::iselect::EITHRESHOLD &&
                  AIA_EIE0 == aia::iselect::EIE0 && AIA_IPI_IDENTITY == aia::kIpiIdentity,
              "entry.S's AIA constants (asm.h)");
static_assert(offsetof(FwDynamicInfo, boot_hart) == 5 * sizeof(long), "entry.S reads boot_hart there");
// fw_jump default: next stage 2 MiB (RV64) / 4 MiB (RV32) above the firmware.
constexpr unsigned long kJumpOffset = sizeof(long) == 8 ? 0x200000 : 0x400000;

struct BootInfo {
    unsigned long next_addr, next_mode, fdt;
} boot;

dt::Memory memory;
unsigned harts_fit = kMaxHarts; // fewer: the harts whose memory fits (carve_harts)
uintptr_t region_start, region_end; // PMP/NAPOT-sized firmware region
// The first byte after the image and what carve_per_hart has carved after
// it; carve_fw_memory carves from the region's top down to `carved_top`.
uintptr_t carve_end;
uint64_t carved_top;
// The harts' region (core/README.md "Harts and their memory"): when the
// per-hart memory of the harts present does not fit between the image and
// the next stage, their stacks, blocks and the subsystems' per-hart memory
// go to a second naturally aligned power-of-two region at the top of RAM,
// with its own PMP entry and /reserved-memory node; [0, 0) when unused.
// carve_per_hart then carves from hart_region_start up and the first region
// keeps the image, the hart descriptions and the map up to `low_end`.
uintptr_t hart_region_start, hart_region_end, low_end;
// The other regions setup_pmp() closes to S-mode (M-mode-only MMIO, the
// trace components): no S-mode memory either.
constexpr unsigned kMaxMOnly = 8;
platform::MmioRegion m_only[kMaxMOnly];
unsigned n_m_only;

void clear_bss() {
    // XLEN-wide stores: linker/firmware.ld aligns both ends to 16 bytes (a
    // byte loop over the bss was a tenth of the cold boot).
    for (auto *p = reinterpret_cast<volatile unsigned long *>(_bss_start);
         p < reinterpret_cast<volatile unsigned long *>(_bss_end); p++)
        *p = 0;
}

template <unsigned Num> bool csr_exists() {
    static_assert(csr::safe_listed(Num));
    return csr::csr_read_safe_num(Num).trapped == 0;
}

// NAPOT encoding of [base, base + size): size a power of two >= 8, base
// aligned to it (privileged spec, "Physical Memory Protection").
bool napot(uint64_t base, uint64_t size, unsigned long &addr) {
    if (size < 8 || (size & (size - 1)) || (base & (size - 1))) return false;
    addr = static_cast<unsigned long>((base + size / 2 - 1) >> 2);
    return true;
}

// PMP entries the firmware uses: those of pmpcfg0 (pmpcfg0 and pmpcfg1 on
// RV32), eight.
constexpr unsigned kPmpEntries = 8;
unsigned pmp_entries_boot; // the boot hart's, before the subsystems' cold_init
bool require_pmp;          // /chosen/tsbi,require-pmp (core/README.md)

// Every PMP entry of pmpcfg0 (and pmpcfg1 on RV32) is reached through the
// trap-safe accessors by number.
static_assert(csr::safe_listed(csr::pmpaddr0, kPmpEntries) &&
              csr::safe_listed(csr::pmpcfg0, kPmpEntries / sizeof(long)));

// Implemented PMP entries among the first kPmpEntries: the lowest-numbered
// ones are implemented, an unimplemented one is read-only zero or its CSR
// traps (privileged spec, "Physical Memory Protection CSRs"). The entries
// are turned off first (pmpcfg = 0; none is locked, so nothing changes for
// M-mode), so that the all-ones read back from an implemented one is the
// mask of the address bits it holds: an OFF entry reads pmpaddr[G-1:0] as
// zeros, G the granularity (same section). setup_pmp checks its entries on
// those bits.
unsigned count_pmp_entries(unsigned long &held) {
    // Trap-safe: a hart without PMP has no pmpcfg0 (QEMU 10's rva23s64).
    for (unsigned r = 0; r < kPmpEntries / sizeof(long); r++) csr::csr_write_safe_num(csr::pmpcfg0 + r, 0);
    unsigned n = 0;
    held = 0;
    for (; n < kPmpEntries; n++) {
        if (csr::csr_write_safe_num(csr::pmpaddr0 + n, ~0ul).trapped) break;
        unsigned long v = csr::csr_read_safe_num(csr::pmpaddr0 + n).value;
        if (v == 0) break;
        if (n == 0) held = v;
    }
    return n;
}

// Reads entries 0..last back. A write that did not take effect would leave
// S-mode with another PMP than the one meant, e.g. a deny entry over all
// memory: the next stage's first fetch then faults for ever without a word
// (the boot hang of core/README.md, "Trap-safe CSR access"). `held`: the bits the
// entries hold (count_pmp_entries, enables::pmpaddr_reads_back).
void verify_pmp(unsigned last, const unsigned long *addr, const unsigned long *cfg,
                unsigned long held) {
    constexpr unsigned kPerCfg = sizeof(long);
    for (unsigned i = 0; i <= last; i++) {
        unsigned long got = csr::csr_read_safe_num(csr::pmpaddr0 + i).value;
        if (!enables::pmpaddr_reads_back(got, addr[i], held)) {
            printf("tsbi: hart %lu: pmpaddr%u reads 0x%lx, wrote 0x%lx (bits held 0x%lx)\n",
                   current_hartid(), i, got, addr[i], held);
            fatal("PMP read-back mismatch: S-mode would not get the PMP set up for it");
        }
    }
    for (unsigned r = 0; r * kPerCfg <= last; r++) {
        unsigned long mask = enables::pmpcfg_compared(r, last, kPerCfg);
        unsigned long got = csr::csr_read_safe_num(csr::pmpcfg0 + r).value;
        if ((got ^ cfg[r]) & mask) {
            printf("tsbi: hart %lu: pmpcfg%u reads 0x%lx, wrote 0x%lx (compared 0x%lx)\n",
                   current_hartid(), r, got, cfg[r], mask);
            fatal("PMP read-back mismatch: S-mode would not get the PMP set up for it");
        }
    }
}

// The MMIO only M-mode may touch (e.g. the ACLINT, whose mtimecmp/msip drive
// the firmware's timer and IPIs), then the subsystems' regions: the trace
// components unless handed to S-mode (firmware/trace). At most kMaxMOnly;
// returns how many.
unsigned collect_m_only(platform::MmioRegion *mm, bool with_subsystems) {
    unsigned nm = platform::mmode_only_regions(mm, kMaxMOnly);
    if (!with_subsystems) return nm;
    constexpr unsigned kSubsystemRegions = 2;
    MmioRange tr[kSubsystemRegions];
    unsigned room = kMaxMOnly - nm;
    unsigned nt = subsystems::mmode_regions(tr, room < kSubsystemRegions ? room : kSubsystemRegions);
    for (unsigned i = 0; i < nt; i++) mm[nm++] = {tr[i].base, tr[i].size};
    return nm;
}

void setup_pmp() {
    // Deny entries first (lower entries win): the firmware, then the regions
    // only M-mode may touch. Then one entry opening everything else. None is
    // locked, so M-mode is unaffected.
    constexpr unsigned kPerCfg = sizeof(long);
    static_assert(kPmpEntries - 2 <= kMaxMOnly);
    unsigned long addr[kPmpEntries];
    unsigned wanted = 0;
    if (!napot(region_start, region_end - region_start, addr[wanted++]))
        fatal("the firmware region is not a naturally aligned power of two (PMP)");
    if (hart_region_start &&
        !napot(hart_region_start, hart_region_end - hart_region_start, addr[wanted++]))
        fatal("the harts' region is not a naturally aligned power of two (PMP)");
    platform::MmioRegion mm[kMaxMOnly];
    unsigned nm = collect_m_only(mm, true);
    // Every hart computes the same list; the boot hart's is in place before
    // any SBI call. S-mode memory checks refuse these regions whether or not
    // an entry closes them (s_mode_range_ok).
    for (unsigned i = 0; i < nm; i++) m_only[i] = mm[i];
    n_m_only = nm;
    platform::MmioRegion napot_of[kPmpEntries];
    if (hart_region_start) napot_of[1] = {hart_region_start, hart_region_end - hart_region_start};
    for (unsigned i = 0; i < nm && wanted < kPmpEntries; i++) {
        if (napot(mm[i].base, mm[i].size, addr[wanted]))
            napot_of[wanted++] = mm[i];
        else
            printf("tsbi: cannot protect MMIO 0x%lx+0x%lx with one PMP entry\n",
                   static_cast<unsigned long>(mm[i].base), static_cast<unsigned long>(mm[i].size));
    }
    unsigned long held;
    unsigned entries = count_pmp_entries(held);
    unsigned n = enables::pmp_deny_entries(entries, wanted);
    if (n == 0) {
        // No PMP, or one entry: nothing can be closed. With one, it must
        // open memory to S-mode, or S-mode could access nothing at all.
        // The boot banner has said so for the boot hart's count.
        if (entries != pmp_entries_boot)
            printf("tsbi: hart %lu: %u PMP entries: the firmware is unprotected from S-mode\n",
                   current_hartid(), entries);
        if (require_pmp) fatal("no PMP: the firmware cannot be protected from S-mode (tsbi,require-pmp)");
        if (entries == 1) {
            const unsigned long open_addr = ~0ul,
                                open_cfg = csr::pmp::A_NAPOT | csr::pmp::R | csr::pmp::W | csr::pmp::X;
            csr_write(csr::pmpaddr0, open_addr);
            csr_write(csr::pmpcfg0, open_cfg);
            verify_pmp(0, &open_addr, &open_cfg, held);
            asm volatile("sfence.vma" ::: "memory");
        }
        return;
    }
    for (unsigned i = n; i < wanted; i++)
        printf("tsbi: hart %lu: %u PMP entries: 0x%lx+0x%lx stays open to S-mode\n",
               current_hartid(), entries, static_cast<unsigned long>(napot_of[i].base),
               static_cast<unsigned long>(napot_of[i].size));
    unsigned long cfg[2] = {0, 0};
    for (unsigned i = 0; i <= n; i++) {
        uint8_t c = i < n ? csr::pmp::A_NAPOT
                          : csr::pmp::A_NAPOT | csr::pmp::R | csr::pmp::W | csr::pmp::X;
        cfg[i / kPerCfg] |= static_cast<unsigned long>(c) << (8 * (i % kPerCfg));
        if (i == n) addr[i] = ~0ul;
        csr::csr_write_safe_num(csr::pmpaddr0 + i, addr[i]);
    }
    csr_write(csr::pmpcfg0, cfg[0]);
    if (kPerCfg == 4) csr::csr_write_safe_num(csr::pmpcfg0 + 1, cfg[1]);
    verify_pmp(n, addr, cfg, held);
    asm volatile("sfence.vma" ::: "memory");
}

void setup_delegation(unsigned long hartid) {
    using namespace csr::cause;
    // Exceptions S-mode handles itself (as OpenSBI delegates them). Illegal
    // instruction, misaligned and access faults stay in M-mode: emulation and
    // PMU firmware events, then redirected when not handled.
    unsigned long ed = (1ul << insn_misaligned) | (1ul << breakpoint) | (1ul << ecall_u) |
                       (1ul << insn_page_fault) | (1ul << load_page_fault) |
                       (1ul << store_page_fault);
    if (hart_has(hartid, EXT_H))
        ed |= (1ul << ecall_vs) | (1ul << insn_guest_page_fault) |
              (1ul << load_guest_page_fault) | (1ul << virtual_insn) |
              (1ul << store_guest_page_fault);
    csr_write(csr::medeleg, ed);
    using namespace csr::irq;
    unsigned long id = (1ul << SSI) | (1ul << STI) | (1ul << SEI);
    if (hart_has(hartid, EXT_SSCOFPMF)) id |= 1ul << LCOFI;
    id |= enables::lambi_deleg(hart_state(hartid).isa);
    if (hart_has(hartid, EXT_H)) id |= (1ul << VSSI) | (1ul << VSTI) | (1ul << VSEI) | (1ul << SGEI);
    csr_write(csr::mideleg, id);
}

static_assert(csr::safe_listed(csr::menvcfgh) && csr::safe_listed(csr::mstateen1, 3) &&
              csr::safe_listed(csr::mstateen1h, 3) && csr::safe_listed(csr::sstateen0, 4) &&
              csr::safe_listed(csr::hstateen0, 4) && csr::safe_listed(csr::hstateen0h, 4));
void setup_counters_envcfg(unsigned long hartid) {
    // S-mode may read cycle/time/instret/hpmcounters directly (Linux reads
    // hardware PMU counters from the CSR counter_get_info reports); with
    // Smcdeleg (menvcfg.CDE below) the same bits delegate every counter to
    // S-mode, as under OpenSBI (pmu/README.md "Counter delegation").
    csr_write(csr::mcounteren, 0xffffffffu);
    const uint64_t isa = hart_state(hartid).isa;
    if (csr_exists<csr::menvcfg>()) {
        uint64_t env = enables::boot_menvcfg(isa);
#if __riscv_xlen == 64
        csr_write(csr::menvcfg, env);
        uint64_t got = csr_read(csr::menvcfg);
#else
        csr_write(csr::menvcfg, static_cast<unsigned long>(env));
        csr::csr_write_safe_num(csr::menvcfgh, static_cast<unsigned long>(env >> 32));
        uint64_t got = csr_read(csr::menvcfg) |
                       static_cast<uint64_t>(csr::csr_read_safe_num(csr::menvcfgh).value) << 32;
#endif
        // CDE is WARL: a device tree that lists smcdeleg on a hart without
        // it leaves S-mode a Ssccfg whose every sireg* access traps. The
        // tree has been handed over by now (the boot hart's fix-ups), so
        // this can only be said.
        if ((env & ~got) & csr::menvcfg_bits::CDE)
            printf("tsbi: hart %lu: menvcfg.CDE reads 0: the device tree's smcdeleg is wrong, "
                   "counter delegation is off\n",
                   hartid);
    }
    // Zkr: S-mode reads the entropy source (Linux's random_init_early).
    // mseccfg exists on a hart with Zkr; the trap-safe read keeps a device
    // tree that lists zkr on a hart without it from stopping the boot.
    enables::MseccfgUpdate sec = enables::boot_mseccfg(isa);
    if ((sec.set | sec.clear) && csr_exists<csr::mseccfg>()) {
        csr_set(csr::mseccfg, sec.set);
        csr_clear(csr::mseccfg, sec.clear);
    }
    if (hart_has(hartid, EXT_SMSTATEEN) && csr_exists<csr::mstateen0>()) {
        // Give S-mode every state the hart has; WARL keeps only what exists.
        // This is a superset of what OpenSBI opens (SE0, ENVCFG, CONTEXT,
        // AIA/IMSIC, CSRIND, CTR, SRMCFG). CTR's bits are then managed by
        // CTR's hart_init (ctr/subsystem.hpp). Self-hosted trace (STRC)
        // stays closed: the trace subsystem opens it (hart_enables.hpp).
        csr_write(csr::mstateen0, static_cast<unsigned long>(enables::boot_mstateen0()));
        // RV32: bits 32-63 (ENVCFG, SE0, CSRIND, ...) are in mstateen0h.
        if constexpr (sizeof(long) == 4)
            csr_write(csr::mstateen0h, static_cast<unsigned long>(enables::boot_mstateen0() >> 32));
        // mstateen1..3 define only SE (bit 63): S-mode's own sstateen1..3
        // and the hypervisor's hstateen1..3.
        for (unsigned i = 0; i < 3; i++) {
            if constexpr (sizeof(long) == 8)
                csr::csr_write_safe_num(csr::mstateen1 + i, csr::mstateen_bits::SE);
            else
                csr::csr_write_safe_num(csr::mstateen1h + i,
                                        static_cast<unsigned long>(csr::mstateen_bits::SE >> 32));
        }
        // "If machine-level software changes these values, it is
        // responsible for initializing the corresponding writable bits of
        // the hstateen and sstateen CSRs to zeros too" (Smstateen): S-mode
        // and the hypervisor then open what they use. CTR's hart_init opens
        // hstateen0's CTR bits afterwards where it offers them.
        for (unsigned i = 0; i < 4; i++) {
            csr::csr_write_safe_num(csr::sstateen0 + i, 0);
            if (!hart_has(hartid, EXT_H)) continue;
            csr::csr_write_safe_num(csr::hstateen0 + i, 0);
            if constexpr (sizeof(long) == 4) csr::csr_write_safe_num(csr::hstateen0h + i, 0);
        }
    }
}

// Extensions the DT claims are confirmed (or added) by probing, so a DT that
// omits them (QEMU 7.2 lists only riscv,isa) still works.
void probe_extensions(HartState &h) {
    unsigned long misa = csr_read(csr::misa);
    if (misa & (1ul << ('h' - 'a'))) h.isa |= 1ull << EXT_H;
    else h.isa &= ~(1ull << EXT_H);
    if (csr_exists<csr::stimecmp>()) h.isa |= 1ull << EXT_SSTC;
    else h.isa &= ~(1ull << EXT_SSTC);
    if (!csr_exists<csr::mstateen0>()) h.isa &= ~(1ull << EXT_SMSTATEEN);
    else h.isa |= 1ull << EXT_SMSTATEEN;
    if (csr_exists<csr::scountovf>()) h.isa |= 1ull << EXT_SSCOFPMF;
    // Self-hosted trace (draft): mstrcctl exists with Smstrcn, which brings
    // Ssstrcn and Ssamb. A DT that lists them on a hart without the CSR
    // loses them, so nothing is delegated or advertised for it.
    constexpr uint64_t strc = (1ull << EXT_SMSTRCN) | (1ull << EXT_SSSTRCN) | (1ull << EXT_SSAMB);
    if (csr_exists<csr::mstrcctl>()) h.isa |= strc;
    else h.isa &= ~strc;
    // Smdbltrp: MDT is writable (entry.S cleared it at reset). Setting it
    // also clears mstatus.MIE, which is 0 here anyway.
#if __riscv_xlen == 64
    csr_set(csr::mstatus, csr::mstatus_bits::MDT);
    if (csr_read(csr::mstatus) & csr::mstatus_bits::MDT) h.isa |= 1ull << EXT_SMDBLTRP;
    else h.isa &= ~(1ull << EXT_SMDBLTRP);
    csr_clear(csr::mstatus, csr::mstatus_bits::MDT);
#else
    h.isa &= ~(1ull << EXT_SMDBLTRP);
    if (csr_exists<csr::mstatush>()) {
        csr_set(csr::mstatush, csr::mstatush_bits::MDT);
        if (csr_read(csr::mstatush) & csr::mstatush_bits::MDT) h.isa |= 1ull << EXT_SMDBLTRP;
        csr_clear(csr::mstatush, csr::mstatush_bits::MDT);
    }
#endif
    // Implemented ASID/VMID bits: write all-ones, read back (WARL), restore.
    unsigned long old = csr_read(csr::satp);
    csr_write(csr::satp, csr::atp::MODE_PAGED | (csr::atp::ASID_MASK << csr::atp::ASID_SHIFT));
    h.asid_max = (csr_read(csr::satp) >> csr::atp::ASID_SHIFT) & csr::atp::ASID_MASK;
    csr_write(csr::satp, old);
    h.vmid_max = 0;
    if (h.isa & (1ull << EXT_H)) {
        old = csr_read(csr::hgatp);
        csr_write(csr::hgatp, csr::atp::MODE_PAGED | (csr::atp::VMID_MASK << csr::atp::VMID_SHIFT));
        h.vmid_max = (csr_read(csr::hgatp) >> csr::atp::VMID_SHIFT) & csr::atp::VMID_MASK;
        csr_write(csr::hgatp, old);
    }
}

} // namespace

// mstatus for an mret into the next stage in `priv`: no MPRV, SIE clear, V=0.
static void prepare_mret(unsigned long priv) {
    unsigned long ms = csr_read(csr::mstatus);
    ms &= ~(csr::mstatus_bits::MPP | csr::mstatus_bits::MPIE | csr::mstatus_bits::SIE |
            csr::mstatus_bits::MPRV);
    ms |= priv << csr::mstatus_bits::MPP_SHIFT;
#if __riscv_xlen == 64
    ms &= ~static_cast<unsigned long>(csr::mstatus_bits::MPV);
#endif
    csr_write(csr::mstatus, ms);
    csr_write(csr::satp, 0);
}

[[noreturn]] void enter_next_stage(unsigned long hartid, unsigned long pc, unsigned long arg1,
                                   unsigned long mode) {
    prepare_mret(mode == FW_DYNAMIC_NEXT_MODE_U ? csr::PRV_U : csr::PRV_S);
    csr_write(csr::sie, 0);
    smode_enter(hartid, arg1, pc);
}

// HSM non-retentive resume: like a start, but the interrupt state S-mode set
// up (sie, and whatever is pending - the interrupt that woke the hart) stays.
[[noreturn]] void resume_next_stage(unsigned long hartid, unsigned long pc, unsigned long arg1) {
    prepare_mret(csr::PRV_S);
    smode_enter(hartid, arg1, pc);
}

namespace {

void print_banner(unsigned nharts) {
    printf("\ntsbi: SBI firmware %lu.%lu (implementation ID 0x%lx), %u hart(s)\n",
           sbi::kImplVersion >> 16, sbi::kImplVersion & 0xffff, sbi::kImplId, nharts);
    printf("tsbi: firmware at 0x%lx-0x%lx, next stage at 0x%lx (%s-mode), fdt at 0x%lx\n",
           static_cast<unsigned long>(region_start), static_cast<unsigned long>(region_end),
           boot.next_addr, boot.next_mode == FW_DYNAMIC_NEXT_MODE_U ? "U" : "S", boot.fdt);
    if (hart_region_start)
        printf("tsbi: the harts' stacks and state at 0x%lx-0x%lx (reserved, PMP-protected)\n",
               static_cast<unsigned long>(hart_region_start), static_cast<unsigned long>(hart_region_end));
}

// Harts the device tree describes that this build cannot serve (more than
// FW_MAX_HARTS, or an ID at or above FW_HARTID_LIMIT, fw_limits.h): parked,
// disabled in the tree the next stage gets, and named here, never dropped
// silently.
void report_left_out(const dt::Beyond &left) {
    constexpr unsigned kNamed = dt::Beyond::kNamed;
    const unsigned n = left.count;
    const unsigned long *ids = left.ids;
    if (harts_fit < kMaxHarts)
        printf("tsbi: WARNING: the per-hart memory of %u harts fits below the next stage at 0x%lx, "
               "and the harts' region does not fit at the top of RAM (or has no PMP entry)\n",
               harts_fit, boot.next_addr);
    printf("tsbi: WARNING: %u hart(s) left out: this build serves at most %u harts, with hart "
           "IDs below %lu (FW_MAX_HARTS, FW_HARTID_LIMIT); left out:", n, kMaxHarts, kHartIdLimit);
    for (unsigned i = 0; i < n && i < kNamed; i++) printf(" %lu", ids[i]);
    printf(n > kNamed ? " ... (%u more)\n" : "\n", n - kNamed);
}

// A hart the firmware serves and offers to S-mode (hart_valid).
void mark_present(unsigned index) {
    hart_at(index).present = true;
    hart_valid_bits[index / kXlen] |= 1ul << (index % kXlen);
}

// The highest address the firmware region may reach: the next stage when it
// lies above the firmware, the end of the /memory range the firmware starts
// in, and the device tree when a loader put it above the firmware (the
// carve must not overwrite it).
uint64_t room_limit() {
    uint64_t limit = boot.next_addr > region_start ? boot.next_addr : ~0ull;
    if (boot.fdt > region_start && boot.fdt < limit) limit = boot.fdt;
    for (unsigned i = 0; i < memory.count; i++) {
        const dt::MemRegion &r = memory.r[i];
        if (region_start >= r.base && region_start - r.base < r.size && r.base + r.size < limit)
            limit = r.base + r.size;
    }
    return limit;
}

// Stops the boot when the device tree cannot grow in place by `room` bytes
// (README "Device-tree fix-ups: their room"): past the /memory range it
// lies in, over what lies after it (a region it reserves, the initrd, the
// firmware's regions, the next stage) or past what a blob's 32-bit size
// holds. Fix-ups cut short would offer S-mode memory and devices it cannot
// touch (trace components M-mode keeps are PMP-closed).
void check_fdt_room(const void *blob, uint64_t room) {
    const uint64_t at = boot.fdt, size = fdt_totalsize(blob);
    uint64_t limit = dt::growth_limit(blob, at, memory);
    const uint64_t after[] = {region_start, hart_region_start, boot.next_addr};
    for (uint64_t next : after)
        if (next >= at + size && next < limit) limit = next;
    if (at + size + room <= limit && size + room <= 0x7fffffffu) return;
    printf("tsbi: the device tree at 0x%lx (%lu bytes) needs %lu bytes more for its fix-ups; "
           "%lu are free after it, up to 0x%lx\n",
           static_cast<unsigned long>(at), static_cast<unsigned long>(size), static_cast<unsigned long>(room),
           static_cast<unsigned long>(limit - at - size), static_cast<unsigned long>(limit));
    fatal("no room for the device-tree fix-ups (place the device tree lower in RAM, or with more free "
          "memory after it)");
}

// The harts' region for `n` harts of `per_hart` bytes each, when the boot
// hart's PMP can close it too (a third entry; with no or one entry nothing is
// closed anyway): at the top of the /memory range the firmware starts in,
// below the device tree when it lies there, clear of the initrd, and above
// the next stage's first 64 MiB (a kernel and its early allocations), as
// the trace buffer (trace/hooks.cpp place_buffer). Sets hart_region_start
// and hart_region_end; false when it cannot be placed.
bool place_hart_region(const void *blob, unsigned n, uint64_t per_hart) {
    if (pmp_entries_boot == 2) return false;
    const uint64_t size = region::napot_size(static_cast<uint64_t>(n) * per_hart);
    uint64_t lo = 0, hi = 0;
    for (unsigned i = 0; i < memory.count; i++) {
        const dt::MemRegion &r = memory.r[i];
        if (region_start >= r.base && region_start - r.base < r.size) lo = r.base, hi = r.base + r.size;
    }
    if (boot.fdt > region_start && boot.fdt < hi) hi = boot.fdt;
    const uint64_t floor = (boot.next_addr > region_start ? boot.next_addr : region_start) + (64ull << 20);
    uint64_t ird = 0, ird_end = 0;
    const int chosen = fdtw::root_child(blob, "chosen");
    int l0 = 0, l1 = 0;
    const void *s = chosen >= 0 ? fdt_getprop(blob, chosen, "linux,initrd-start", &l0) : nullptr;
    const void *e = chosen >= 0 ? fdt_getprop(blob, chosen, "linux,initrd-end", &l1) : nullptr;
    if (s && e && (l0 == 4 || l0 == 8) && (l1 == 4 || l1 == 8)) {
        ird = l0 == 8 ? fdt64_to_cpu(*static_cast<const fdt64_t *>(s)) : fdt32_to_cpu(*static_cast<const fdt32_t *>(s));
        ird_end = l1 == 8 ? fdt64_to_cpu(*static_cast<const fdt64_t *>(e)) : fdt32_to_cpu(*static_cast<const fdt32_t *>(e));
    }
    const uint64_t base = region::place_top(lo, hi, size, floor, ird, ird_end);
    if (!base || base + size > ~static_cast<uintptr_t>(0)) return false;
    hart_region_start = static_cast<uintptr_t>(base);
    hart_region_end = static_cast<uintptr_t>(base + size);
    return true;
}

// Per-hart memory right after the image, for the harts the device tree
// describes (core/README.md "Harts and their memory"): their descriptions
// (scan_harts writes them there), the hart-ID table when the IDs are not
// 0..n-1 (core/hartmap.hpp), then one stack per hart index, aligned to its
// size, and the blocks. Harts the build cannot serve go to `left`. Returns
// why it cannot, or null. Runs before the console exists: the caller says
// it. The stacks are not cleared (run.py --stack-report paints them before
// the run).
const char *carve_harts(unsigned long boot_id, const void *blob, dt::Beyond &left) {
    const uint64_t limit = room_limit();
    uint64_t at = region::align_up(carve_end, alignof(dt::HartDesc));
    if (at >= limit) return "no room for the harts' descriptions below the next stage";
    const uint64_t room = (limit - at) / sizeof(dt::HartDesc);
    auto *descs = reinterpret_cast<dt::HartDesc *>(static_cast<uintptr_t>(at));
    left = {kHartIdLimit, 0, {}, 0};
    const unsigned n = dt::scan_harts(blob, descs, room < kMaxHarts ? unsigned(room) : kMaxHarts, &left);
    boot_descs = descs;
    n_boot_descs = n;
    n_cpu_nodes = left.cpu_nodes;
    at += n * sizeof(dt::HartDesc);
    // The map's table (kept in table mode) and, after it, the IDs it is
    // built from (scratch, under the stacks carved next).
    unsigned long entries = boot_id + 1;
    for (unsigned i = 0; i < n; i++)
        if (descs[i].hartid + 1 > entries) entries = descs[i].hartid + 1;
    auto *table = reinterpret_cast<uint16_t *>(static_cast<uintptr_t>(at));
    const uint64_t ids_at = region::align_up(at + entries * sizeof(uint16_t), sizeof(long));
    if (ids_at + n * sizeof(long) > limit) return "no room for the hart map below the next stage";
    auto *ids = reinterpret_cast<unsigned long *>(static_cast<uintptr_t>(ids_at));
    for (unsigned i = 0; i < n; i++) ids[i] = descs[i].hartid;
    // As many harts as fit below the next stage with everything carved for
    // each (the stack, the block, what the subsystems carve, alignment
    // slack); the others, the highest IDs, are left out and named.
    const uint64_t stride = sizeof(HartBlock) + subsystems::per_hart_bytes(blob) + 256;
    const region::Layout fit = region::plan_layout(region_start, at, n ? n : 1, kStackSize, stride,
                                                   entries * sizeof(uint16_t), limit);
    if (!fit.region_end || !fit.fits) return "no room for the boot hart's state below the next stage";
    unsigned max_harts = fit.fits < kMaxHarts ? fit.fits : kMaxHarts;
    if (fit.fits < n) {
        // Not all of them after the image: every hart's stack, block and
        // per-hart memory in the harts' region, if there is one.
        const unsigned want = n < kMaxHarts ? n : kMaxHarts;
        if (place_hart_region(blob, want, kStackSize + stride)) max_harts = want;
        if (max_harts < n) harts_fit = max_harts;
    }
    const hartmap::Built b = hartmap::build(ids, n, boot_id, kHartIdLimit, max_harts, table);
    fw_hart_map = b.map;
    if (b.map.table) at += entries * sizeof(uint16_t);
    // Past what fits (the highest IDs), or past kMaxHarts when the boot hart
    // needed a place.
    for (unsigned i = 0; i < n; i++) {
        if (hart_index(descs[i].hartid) != kNoHart) continue;
        if (left.count < dt::Beyond::kNamed) left.ids[left.count] = descs[i].hartid;
        left.count++;
    }
    if (hart_region_start) {
        // The first region keeps the image, the descriptions and the table.
        low_end = static_cast<uintptr_t>(at);
        region_end = region_start + static_cast<uintptr_t>(region::napot_size(at - region_start));
        at = hart_region_start;
    }
    const uint64_t stacks = region::align_up(at, kStackSize);
    const uint64_t end = stacks + static_cast<uint64_t>(b.map.n) * kStackSize;
    if (hart_region_start ? end > hart_region_end
                          : region_start + region::napot_size(end - region_start) > limit)
        return "no room for the harts' stacks below the next stage";
    fw_stacks_base = static_cast<uintptr_t>(stacks);
    carve_end = static_cast<uintptr_t>(end);
    blocks = static_cast<HartBlock *>(carve_per_hart(sizeof(HartBlock), alignof(HartBlock)));
    if (!blocks) return "no room for the harts' state below the next stage";
    for (unsigned long id = 0; id < b.map.id_limit; id++)
        if (unsigned x = hart_index(id); x != kNoHart) hart_at(x).hartid = id;
    return nullptr;
}

void cold_boot(unsigned long hartid, unsigned long fdt, const FwDynamicInfo *di) {
    clear_bss();
    region_start = reinterpret_cast<uintptr_t>(_fw_start);
    carve_end = reinterpret_cast<uintptr_t>(_fw_end);
    region_end = region_start + static_cast<uintptr_t>(region::napot_size(carve_end - region_start));
    auto *blob = reinterpret_cast<void *>(fdt);
    // libfdt trusts the blob past this check (firmware/build.mk, FDT_ASSUME_MASK).
    if (!fdtw::header_ok(blob)) fatal("no device tree at a1 (bad header)");

    // Every S-mode address is checked against these ranges; the per-hart
    // memory is carved below the next stage, inside them.
    const bool have_memory = dt::scan_memory(blob, memory) && memory.count;
    boot.fdt = fdt;
    boot.next_mode = FW_DYNAMIC_NEXT_MODE_S;
    boot.next_addr = region_start + kJumpOffset;
    if (di) {
        boot.next_addr = di->next_addr;
        boot.next_mode = di->next_mode;
    }
    // The harts and their memory first: the platform's drivers keep
    // per-hart state by hart index (the ACLINT's MSIP and mtimecmp).
    dt::Beyond left{kHartIdLimit, 0, {}, 0};
    // The PMP entries first: the harts' region needs one of its own.
    unsigned long pmp_held;
    pmp_entries_boot = count_pmp_entries(pmp_held);
    const char *no_room = have_memory ? carve_harts(hartid, blob, left) : nullptr;
    if (!platform::cold_init(blob)) fatal("platform initialisation failed");
    if (!have_memory) fatal("no /memory in the device tree");
    if (no_room) fatal(no_room);
    const unsigned n = n_boot_descs;
    unsigned served = 0, unreachable = 0;
    const dt::HartDesc *descs = boot_descs;
    // Without a device to interrupt another hart (no CLINT/ACLINT MSWI, no
    // M-level IMSIC file) no other hart could ever be started: HSM offers
    // none and the next stage's tree says they are disabled.
    const bool can_start_others = platform::ipi_present();
    for (unsigned i = 0; i < n; i++) {
        // A hart without S-mode (no mmu-type, e.g. the FU540's E51 monitor
        // core) is never offered to S-mode: HSM reports it absent, and the
        // device tree the next stage gets says it is disabled.
        const unsigned x = hart_index(descs[i].hartid);
        if (!descs[i].smode || x == kNoHart) continue;
        if (!can_start_others && descs[i].hartid != hartid) {
            unreachable++;
            continue;
        }
        HartState &h = hart_at(x);
        mark_present(x);
        h.isa = descs[i].isa;
        h.hsm_state.store(HSM_STOPPED, fw::memory_order_relaxed);
        served++;
    }
    if (!n) { // a DT without /cpus: serve at least ourselves
        mark_present(hart_index(hartid));
        served++;
    }
    if (!served) fatal("no hart in the device tree can run S-mode");
    if (unreachable)
        printf("tsbi: no IPI device (CLINT, ACLINT MSWI or M-level IMSIC) in the device tree: "
               "only hart %lu is served, %u other hart(s) could never be started\n", hartid, unreachable);

    // Without PMP the firmware boots, as OpenSBI does, unless the device
    // tree asks otherwise; the subsystems learn how many entries are left
    // for their regions before they choose them (fw::pmp_spare_entries).
    int chosen = drivers::fdt_find_path(blob, "/chosen");
    require_pmp = chosen >= 0 && fdt_getprop(blob, chosen, "tsbi,require-pmp", nullptr);
    if (pmp_entries_boot < 2 && require_pmp)
        fatal("fewer than two PMP entries: the firmware cannot be protected from S-mode "
              "(tsbi,require-pmp)");
    subsystems::cold_init(blob, boot.next_addr);

    // The drivers' index of the tree (drivers/fdt_helpers.cpp) ends here:
    // the fix-ups move nodes.
    drivers::fdt_index_drop();
    // The fix-ups' room, from what each one writes (README "Device-tree
    // fix-ups: their room"): the firmware's reservations, status =
    // "disabled" on the cpu nodes of harts not served, and what each
    // subsystem states once cold_init has parsed the tree. Withholding
    // extensions cuts strings in place: no room.
    const bool disable_harts = left.count != 0 || served < n;
    uint64_t room = dt::kReserveBytes * (hart_region_start ? 2 : 1) + subsystems::fdt_room(blob);
    if (disable_harts) room += dt::kStatusNameBytes + dt::kDisabledBytes * (left.count + n - served);
    if (const unsigned m = platform::fdt_fixup_nodes()) room += dt::kStatusNameBytes + dt::kDisabledBytes * m;
    check_fdt_room(blob, room);
    int err = dt::open_for_fixup(blob, static_cast<unsigned>(room));
    if (!err) err = dt::fixup_reserve(blob, region_start, region_end - region_start);
    if (!err && hart_region_start)
        err = dt::fixup_reserve(blob, hart_region_start, hart_region_end - hart_region_start);
    // Only when a hart is left out or not served (no S-mode): the walk costs
    // about 1,800 instructions a hart and finds nothing to edit otherwise.
    if (!err && disable_harts)
        err = dt::fixup_disable_harts(blob, [](uint64_t id) { return id < kHartIdLimit && hart_valid(id); });
    if (!err)
        err = dt::fixup_withhold_extensions(blob, enables::kWithheld,
                                            sizeof enables::kWithheld / sizeof *enables::kWithheld);
    if (!err && !strc_offered)
        err = dt::fixup_withhold_extensions(blob, enables::kWithheldStrc,
                                            sizeof enables::kWithheldStrc / sizeof *enables::kWithheldStrc);
    // The platform's fix-ups (M-mode's own interrupt controllers disabled),
    // then the subsystems'. A reservation or a disabled node missing would
    // offer S-mode memory or devices it cannot use: with the room sized
    // above only a tree libfdt refuses gets here.
    if (!err) err = platform::fdt_fixup(blob);
    if (err) {
        printf("tsbi: device-tree fix-up failed (%d)\n", err);
        fatal("the device tree would offer S-mode what PMP closes");
    }
    subsystems::fdt_fixup(blob);
    print_banner(served);
    if (left.count) report_left_out(left);
    if (pmp_entries_boot < 2)
        printf("tsbi: WARNING: %u PMP entries: the firmware is unprotected from S-mode "
               "(/chosen/tsbi,require-pmp makes this fatal)\n",
               pmp_entries_boot);
}

[[noreturn]] void stopped_loop(HartState &h, unsigned long hartid);

// Lets the harts waiting in entry.S run their own set-up: the flag, and an
// IPI for each served hart (a hart not waiting yet sees the flag when it
// gets there). The waking IPI stays pending: stopped_loop consumes it.
void release_harts(unsigned long boot_hartid) {
    fw_cold_boot_done.store(1, fw::memory_order_release);
    for (unsigned i = 0; i < hart_count(); i++)
        if (index_valid(i) && hart_at(i).hartid != boot_hartid) platform::ipi_send(hart_at(i).hartid);
}

} // namespace

// The boot hart cannot run the next stage: start it on the lowest hart that
// can, through the HSM start path (that hart waits in stopped_loop).
void hand_off_next_stage() {
    for (unsigned i = 0; i < hart_count(); i++)
        if (index_valid(i) && request_start(hart_at(i).hartid, boot.next_addr, boot.fdt, boot.next_mode))
            return;
    fatal("no hart can run the next stage");
}

bool request_start(unsigned long hartid, unsigned long addr, unsigned long arg1, unsigned long mode) {
    HartState &h = hart_state(hartid);
    unsigned expected = HSM_STOPPED;
    if (!h.hsm_state.compare_exchange_strong(expected, HSM_START_PENDING, fw::memory_order_acq_rel))
        return false;
    h.next_addr = addr;
    h.next_arg1 = arg1;
    h.next_mode = mode;
    h.start_ready.store(1, fw::memory_order_release);
    send_ipi(hartid, IPI_WAKE);
    return true;
}

void fatal(const char *why) {
    printf("tsbi: fatal: %s\n", why);
    for (;;) asm volatile("wfi");
}

uintptr_t carve_fw_memory(unsigned long size) {
    // Memory at the top of the NAPOT region, above the image, is the
    // firmware's already: closed by the firmware's PMP entry, reserved in
    // the device tree, refused by s_mode_range_ok. The region may grow up to
    // the next stage, inside the /memory range it starts in.
    region::Carve c = region::carve_top(region_start, region_end, carved_top,
                                        hart_region_start ? low_end : carve_end, size, room_limit());
    if (!c.base) return 0;
    region_end = static_cast<uintptr_t>(c.end);
    carved_top = c.lowest;
    return static_cast<uintptr_t>(c.base);
}

void *carve_per_hart(unsigned long size, unsigned long align) {
    // After what was carved before, below what carve_fw_memory took from
    // the top (the region grows instead when that is in the way).
    // In the harts' region when there is one: sized at cold boot for what
    // every subsystem asks here (Subsystem::per_hart_bytes), it never grows.
    const uint64_t base = region::align_up(carve_end, align);
    const uint64_t end = base + static_cast<uint64_t>(hart_count()) * size;
    const uint64_t region = region_start + region::napot_size(end - region_start);
    if (hart_region_start ? end > hart_region_end
                          : region > room_limit() || (carved_top && end > carved_top))
        return nullptr;
    memset(reinterpret_cast<void *>(static_cast<uintptr_t>(base)), 0, static_cast<size_t>(end - base));
    carve_end = static_cast<uintptr_t>(end);
    if (!hart_region_start && region > region_end) region_end = static_cast<uintptr_t>(region);
    return reinterpret_cast<void *>(static_cast<uintptr_t>(base));
}

void *cold_scratch(unsigned long size, unsigned long align) {
    // Where carve_fw_memory's floor is: above the image and the harts'
    // memory (in the first region when the harts have their own, which is
    // sized for them alone), below the next stage and what was carved from
    // the top.
    const uint64_t base = region::align_up(hart_region_start ? low_end : carve_end, align);
    const uint64_t end = base + size;
    if (end > room_limit() || (carved_top && end > carved_top)) return nullptr;
    return reinterpret_cast<void *>(static_cast<uintptr_t>(base));
}

unsigned pmp_spare_entries() {
    // Of the boot hart's entries: one opens memory to S-mode, one closes the
    // firmware, one each the platform's M-mode-only regions that take one.
    platform::MmioRegion mm[kMaxMOnly];
    unsigned nm = collect_m_only(mm, false), used = 2 + (hart_region_start != 0);
    unsigned long addr;
    for (unsigned i = 0; i < nm; i++) used += napot(mm[i].base, mm[i].size, addr);
    return pmp_entries_boot > used ? pmp_entries_boot - used : 0;
}

uintptr_t fw_region_start() { return region_start; }
uintptr_t fw_region_end() { return region_end; }
uintptr_t fw_hart_region_start() { return hart_region_start; }
uintptr_t fw_hart_region_end() { return hart_region_end; }


bool s_mode_range_ok(unsigned long lo, unsigned long hi, unsigned long size) {
    // The firmware accesses the range with its own M-mode loads and stores,
    // whose addresses are XLEN bits wide (Bare addressing). RV32 S-mode can
    // name memory above 4 GiB through hi (Sv32 maps 34-bit physical
    // addresses), but M-mode cannot reach it: such a range, or one that runs
    // past 2^XLEN, is refused rather than truncated to an alias below
    // (binary-encoding.adoc, shared memory: "inaccessible with respect to its
    // specific limits"). On RV64, hi != 0 is beyond the physical space.
    if (hi != 0) return false;
    const unsigned long last = lo + (size ? size - 1 : 0);
    if (last < lo) return false;
    // Regions closed to S-mode by PMP are the firmware's too, and stay
    // refused where no entry closes them (too few PMP entries, or none).
    for (unsigned i = 0; i < n_m_only; i++)
        if (lo < m_only[i].base + m_only[i].size && last >= m_only[i].base) return false;
    if (hart_region_start && lo < hart_region_end && last >= hart_region_start) return false;
    return dt::range_in_memory(memory, region_start, region_end, lo, size);
}

// HSM: a hart that is stopped (or was never started) waits here for
// sbi_hart_start, with only the M-mode software interrupt enabled.
void hart_stop_and_wait() {
    unsigned long hartid = current_hartid();
    stopped_loop(hart_state(hartid), hartid);
}

namespace {
[[noreturn]] void stopped_loop(HartState &h, unsigned long hartid) {
    csr_write(csr::mie, platform::ipi_irq_bit);
    // hart_stop leaves STOP_PENDING; a hart arriving from boot is already
    // STOPPED and may even be START_PENDING by now, which must not be undone.
    unsigned expected = HSM_STOP_PENDING;
    h.hsm_state.compare_exchange_strong(expected, HSM_STOPPED, fw::memory_order_acq_rel);
    // Look before sleeping: a start may have arrived before this hart got
    // here (its IPI is then pending, or already consumed).
    for (;;) {
        if (csr_read(csr::mip) & platform::ipi_irq_bit) process_ipis();
        if (h.start_ready.load(fw::memory_order_acquire)) break;
        asm volatile("wfi");
    }
    h.start_ready.store(0, fw::memory_order_relaxed);
    // A restarted hart's CTR state starts afresh (the PMU reset on stop),
    // its SBI FWFT features and SSE events too.
    subsystems::hart_restart();
    sbi::fwft_hart_reset();
    sbi::dbtr_hart_reset();
    sbi::sse_hart_reset();
    subsystems::smode_enter();
    unsigned long pc = h.next_addr, arg1 = h.next_arg1, mode = h.next_mode;
    h.hsm_state.store(HSM_STARTED, fw::memory_order_release);
    enter_next_stage(hartid, pc, arg1, mode);
}
} // namespace

} // namespace fw

using namespace fw;

// entry.S: the boot hart (is_boot, on the boot stack) and, once it has
// released them, every other hart with a carved stack.
extern "C" [[noreturn]] void fw_entry(unsigned long hartid, unsigned long fdt, unsigned long info,
                                      unsigned long is_boot) {
    if (is_boot) {
        const FwDynamicInfo *di = nullptr;
        if (fw_image_dynamic && info) {
            auto *p = reinterpret_cast<const FwDynamicInfo *>(info);
            if (p->magic == FW_DYNAMIC_INFO_MAGIC) di = p;
        }
        cold_boot(hartid, fdt, di);
        // The drivers' index of the tree served the boot hart alone; the
        // harts released later look up at the same time (drivers.hpp).
        drivers::fdt_index_close();
    }

    HartState &h = hart_state(hartid);
    if (!h.present) { // disabled in the DT, or no S-mode: never used
        // The boot hart may be one of those (QEMU's fw_dynamic_info names hart
        // 0, the E51 on sifive_u): the next stage then starts on the lowest
        // hart that can run it, as an HSM start would.
        if (is_boot) {
            release_harts(hartid);
            hand_off_next_stage();
        }
        csr_write(csr::mie, 0);
        for (;;) asm volatile("wfi");
    }
    probe_extensions(h);
    setup_delegation(hartid);
    setup_counters_envcfg(hartid);
    setup_pmp();
    platform::hart_init(hartid);
    subsystems::hart_init();
    csr_write(csr::mip, 0);
    csr_write(csr::mie, platform::ipi_irq_bit);

    if (is_boot) {
        subsystems::smode_enter();
        h.hsm_state.store(HSM_STARTED, fw::memory_order_release);
        // The other harts set themselves up while the next stage starts:
        // their HSM state is STOPPED since cold boot, and a start that finds
        // one still on its way waits for it (stopped_loop).
        release_harts(hartid);
        enter_next_stage(hartid, boot.next_addr, boot.fdt, boot.next_mode);
    }
    stopped_loop(h, hartid);
}
