// SPDX-License-Identifier: BSD-2-Clause
// CSR numbers and fields (RISC-V Privileged Architecture), written once.
// Access helpers at the bottom compile only for the RISC-V target; host-side
// code includes this header for the numbers and fields alone.
#pragma once
#include <stdint.h>
// The self-hosted trace table is shared with the QEMU model and the
// payloads; the relative path keeps every build that includes this header
// (firmware, payloads, host tests) free of another -I.
#include "../../../hw_models/trace/strc_regs.h"

namespace csr {

// --- numbers ------------------------------------------------------------
constexpr unsigned sstatus = 0x100, sie = 0x104, stvec = 0x105, scounteren = 0x106,
                   senvcfg = 0x10A, sstateen0 = 0x10C, scountinhibit = 0x120, sscratch = 0x140, sepc = 0x141, scause = 0x142,
                   stval = 0x143, sip = 0x144, stimecmp = 0x14D, satp = 0x180,
                   scountovf = 0xDA0;
constexpr unsigned hstatus = 0x600, hedeleg = 0x602, hideleg = 0x603, hcounteren = 0x606,
                   henvcfg = 0x60A, hstateen0 = 0x60C, hstateen0h = 0x61C, htval = 0x643, htinst = 0x64A, hgatp = 0x680,
                   vsstatus = 0x200, vstvec = 0x205, vsepc = 0x241, vscause = 0x242,
                   vstval = 0x243;
// Self-hosted trace draft (Smstrcn/Ssstrcn, Ssamb): numbers proposed by
// this project, kept with the fields in hw_models/trace/strc_regs.h.
constexpr unsigned mstrcctl = STRC_CSR_MSTRCCTL, sstrcctl = STRC_CSR_SSTRCCTL,
                   vsstrcctl = STRC_CSR_VSSTRCCTL, sstrcambcs = STRC_CSR_SSTRCAMBCS,
                   sstrcambaddr = STRC_CSR_SSTRCAMBADDR;
constexpr unsigned mvendorid = 0xF11, marchid = 0xF12, mimpid = 0xF13, mhartid = 0xF14;
constexpr unsigned mstatus = 0x300, misa = 0x301, medeleg = 0x302, mideleg = 0x303,
                   mie = 0x304, mtvec = 0x305, mcounteren = 0x306, menvcfg = 0x30A,
                   menvcfgh = 0x31A, mstateen0 = 0x30C, mstateen0h = 0x31C, mcountinhibit = 0x320,
                   mcyclecfg = 0x321,
                   minstretcfg = 0x322, mhpmevent3 = 0x323, mscratch = 0x340, mepc = 0x341,
                   mcause = 0x342, mtval = 0x343, mip = 0x344, mtinst = 0x34A, mtval2 = 0x34B,
                   mstatush = 0x310, mstateen1 = 0x30D, mstateen1h = 0x31D, mseccfg = 0x747,
                   pmpcfg0 = 0x3A0, pmpaddr0 = 0x3B0, mcycle = 0xB00, minstret = 0xB02,
                   mhpmcounter3 = 0xB03, cycle = 0xC00, time = 0xC01, instret = 0xC02,
                   hpmcounter3 = 0xC03, timeh = 0xC81, mhpmevent3h = 0x723, mcycleh = 0xB80,
                   minstreth = 0xB82, mhpmcounter3h = 0xB83;
// Smaia (AIA specification 1.0, chapter 2 "CSRs", table of machine-level
// CSRs): the indirect window onto the M-level IMSIC interrupt file and its
// top external interrupt.
constexpr unsigned miselect = 0x350, mireg = 0x351, mtopei = 0x35C, mtopi = 0xFB0;

// T-Head C9xx (C906, C910, C920) PMU overflow CSRs, used where the core has
// no Sscofpmf (OpenSBI's platform/generic/include/thead/c9xx_encoding.h, the
// C906/C910 user manuals): one bit per counter in each. mcounterwen lets
// S-mode write the counter and, the manuals' side effect OpenSBI relies on,
// makes mcounterof (S-mode alias scounterof 0x5c5) record its overflow;
// mcounterinten enables the overflow interrupt, T-Head's IRQ 17.
namespace thead {
constexpr unsigned mcounterwen = 0x7C9, mcounterinten = 0x7CA, mcounterof = 0x7CB;
constexpr unsigned kIrqPmuOverflow = 17;
} // namespace thead

// --- mstatus / sstatus ----------------------------------------------------
namespace mstatus_bits {
constexpr unsigned long SIE = 1ul << 1, MIE = 1ul << 3, SPIE = 1ul << 5, MPIE = 1ul << 7,
                        SPP = 1ul << 8, MPP_SHIFT = 11, MPP = 3ul << 11, MPRV = 1ul << 17,
                        SUM = 1ul << 18, MXR = 1ul << 19, SDT = 1ul << 24;
#if __riscv_xlen == 64 || !defined(__riscv)
// MDT: Smdbltrp's M-mode-disable-trap bit (mstatush bit 10 on RV32).
constexpr unsigned long long MPV = 1ull << 39, GVA = 1ull << 38, MDT = 1ull << 42;
#endif
} // namespace mstatus_bits
namespace mstatush_bits { // RV32: mstatus bits 63:32
constexpr unsigned long MPV = 1ul << 7, MDT = 1ul << 10;
}
namespace hstatus_bits {
constexpr unsigned long GVA = 1ul << 6, SPV = 1ul << 7, SPVP = 1ul << 8;
}

// Privilege levels as encoded in MPP/SPP.
enum Priv : unsigned { PRV_U = 0, PRV_S = 1, PRV_M = 3 };

// --- interrupts (mip/mie bit numbers) -------------------------------------
namespace irq {
constexpr unsigned SSI = 1, VSSI = 2, MSI = 3, STI = 5, VSTI = 6, MTI = 7, SEI = 9, VSEI = 10,
                   MEI = 11, SGEI = 12, LCOFI = 13, LAMBI = STRC_IRQ_LAMBI;
}
// --- exception causes ---------------------------------------------------
namespace cause {
constexpr unsigned long insn_misaligned = 0, insn_access = 1, illegal_insn = 2, breakpoint = 3,
                        load_misaligned = 4, load_access = 5, store_misaligned = 6,
                        store_access = 7, ecall_u = 8, ecall_s = 9, ecall_vs = 10, ecall_m = 11,
                        insn_page_fault = 12, load_page_fault = 13, store_page_fault = 15,
                        insn_guest_page_fault = 20, load_guest_page_fault = 21,
                        double_trap = 16, virtual_insn = 22, store_guest_page_fault = 23;
constexpr unsigned long interrupt_bit = 1ul << (sizeof(long) * 8 - 1);
} // namespace cause

// --- address translation (Privileged Architecture 10.1.11 satp, 18.2.10 hgatp)
namespace atp {
#if __riscv_xlen == 32 || (!defined(__riscv_xlen) && __SIZEOF_LONG__ == 4)
// MODE_PAGED: a paged mode every hart with the extension has (Sv32 / Sv32x4).
constexpr unsigned long MODE_PAGED = 1ul << 31;
constexpr unsigned ASID_SHIFT = 22, VMID_SHIFT = 22;
constexpr unsigned long ASID_MASK = 0x1ff, VMID_MASK = 0x7f;
#else
// MODE_PAGED: a paged mode every hart with the extension has (Sv39 / Sv39x4).
constexpr unsigned long MODE_PAGED = 8ul << 60;
constexpr unsigned ASID_SHIFT = 44, VMID_SHIFT = 44;
constexpr unsigned long ASID_MASK = 0xffff, VMID_MASK = 0x3fff;
#endif
} // namespace atp

// --- counters / envcfg / stateen -------------------------------------------
// menvcfg ("Machine Environment Configuration Register"), each field with
// the extension that defines it: FIOM, CBIE/CBCFE (Zicbom, CBIE = 11:
// invalidate), CBZE (Zicboz), LPE (Zicfilp), SSE (Zicfiss), PMM (Smnpm, 2 =
// PMLEN 7, 3 = PMLEN 16), DTE (Ssdbltrp), CDE (Smcdeleg), ADUE (Svadu), PBMTE
// (Svpbmt), STCE (Sstc).
namespace menvcfg_bits {
constexpr unsigned long long FIOM = 1, LPE = 1ull << 2, SSE = 1ull << 3, CBIE = 3ull << 4,
                             CBCFE = 1ull << 6, CBZE = 1ull << 7, PMM_SHIFT = 32,
                             PMM = 3ull << PMM_SHIFT, DTE = 1ull << 59, CDE = 1ull << 60,
                             ADUE = 1ull << 61, PBMTE = 1ull << 62, STCE = 1ull << 63,
                             STRCS = STRC_MENVCFG_STRCS;
} // namespace menvcfg_bits
// Smcdeleg/Ssccfg ("Counter Delegation"): with menvcfg.CDE = 1 each counter
// i whose mcounteren bit is set is delegated to S-mode, which reaches its
// state through sireg* (sireg: the counter, sireg2: its event selector or
// cyclecfg/instretcfg; sireg4/sireg5 their upper halves on RV32) while
// siselect holds kSelectBase + i. kSelectTime (time) is never a counter
// S-mode manages: sireg* then raise an illegal-instruction exception.
namespace cdeleg {
constexpr unsigned long kSelectBase = 0x40, kSelectLast = 0x5F, kSelectTime = 0x41;
} // namespace cdeleg
// mseccfg (Smepmp MML/MMWP/RLB; Zkr USEED/SSEED: U-/S-mode access to the
// seed CSR, which traps as illegal while the bit is clear).
namespace mseccfg_bits {
constexpr unsigned long MML = 1, MMWP = 1ul << 1, RLB = 1ul << 2, USEED = 1ul << 8,
                        SSEED = 1ul << 9;
}
namespace mstateen0_bits {
// Smstateen; CTR bit per Smctr 1.0 (bit 54), CSRIND per Smcsrind (bit 60).
constexpr unsigned long long C = 1, FCSR = 1ull << 1, JVT = 1ull << 2, SRMCFG = 1ull << 55,
                             CTR = 1ull << 54, P1P13 = 1ull << 56, CONTEXT = 1ull << 57,
                             IMSIC = 1ull << 58, AIA = 1ull << 59, CSRIND = 1ull << 60,
                             ENVCFG = 1ull << 62, SE0 = 1ull << 63,
                             STRC = STRC_MSTATEEN0_STRC;
} // namespace mstateen0_bits
// mstateen1..3: only bit 63 (SE) is defined, access to hstateen/sstateen 1..3.
namespace mstateen_bits {
constexpr unsigned long long SE = 1ull << 63;
}

// --- PMP ----------------------------------------------------------------
namespace pmp {
constexpr uint8_t R = 1, W = 2, X = 4, A_TOR = 1 << 3, A_NA4 = 2 << 3, A_NAPOT = 3 << 3,
                  L = 1 << 7;
}

} // namespace csr

#ifdef __riscv
// Read/write a CSR whose number is a compile-time constant.
#define CSR_STR2(x) #x
#define CSR_STR(x) CSR_STR2(x)
#define csr_read(num)                                                                         \
    ({                                                                                        \
        unsigned long __v;                                                                    \
        asm volatile("csrr %0, %1" : "=r"(__v) : "i"(num) : "memory");                        \
        __v;                                                                                  \
    })
#define csr_write(num, val)                                                                   \
    ({ asm volatile("csrw %0, %1" ::"i"(num), "rK"((unsigned long)(val)) : "memory"); })
#define csr_swap(num, val)                                                                    \
    ({                                                                                        \
        unsigned long __v;                                                                    \
        asm volatile("csrrw %0, %1, %2"                                                       \
                     : "=r"(__v)                                                              \
                     : "i"(num), "rK"((unsigned long)(val))                                   \
                     : "memory");                                                             \
        __v;                                                                                  \
    })
#define csr_set(num, val)                                                                     \
    ({ asm volatile("csrs %0, %1" ::"i"(num), "rK"((unsigned long)(val)) : "memory"); })
#define csr_clear(num, val)                                                                   \
    ({ asm volatile("csrc %0, %1" ::"i"(num), "rK"((unsigned long)(val)) : "memory"); })

namespace csr {
// Trap-safe access for CSRs that may not exist (probing, emulation): reports
// the trap instead of taking it. Only the numbers listed in csr_safe.hpp are
// served (firmware/core/csr_safe.cpp, code assembled at build time); any
// other gets trapped == kSafeUnlisted (csr_safe.hpp).
struct SafeResult {
    unsigned long value;
    unsigned long trapped; // 0 or the mcause of the trap taken
};
extern "C" SafeResult csr_read_safe_num(unsigned num);
extern "C" SafeResult csr_write_safe_num(unsigned num, unsigned long value);
} // namespace csr
#endif
