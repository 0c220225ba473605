// SPDX-License-Identifier: BSD-2-Clause
// The full trap frame built by firmware/core/entry.S (layout in asm.h).
#pragma once
#include <stdint.h>
#include "riscv/csr.hpp"
#include "fw_limits.h"

// The base of the harts' carved M-mode stacks (core/init.cpp, entry.S).
extern "C" uintptr_t fw_stacks_base;

namespace fw {

struct TrapFrame {
    unsigned long x[32]; // by register number; x[0] is unused and reads as 0
    unsigned long mepc;
    unsigned long mstatus;
    unsigned long witness; // full_path_mark() below

    unsigned long reg(unsigned n) const { return n ? x[n] : 0; }
    void set_reg(unsigned n, unsigned long v) {
        if (n) x[n] = v;
    }
};
static_assert(sizeof(TrapFrame) == 35 * sizeof(long));

// The registers the CSR fast path's frame holds (entry.S, .Lnot_ecall): x0,
// ra, t0-t2, a0-a7, t3-t6, the ones a C++ call may clobber. Bit n: xn.
constexpr uint32_t kFastFrameRegs = 1u << 0 | 1u << 1 | 7u << 5 | 0xFFu << 10 | 0xFu << 28;

// The frame of the trap being served, at the top of this hart's M-mode
// stack (entry.S). On the SBI call fast path only ra, t0-t6, a2-a7 and sp
// are in it: a0/a1 come from the handler's return value and mepc is
// advanced past the ecall after it returns.
TrapFrame &current_frame();

// The index (fw::this_index()) of the hart whose frame `f` is, from where it
// lies: entry.S puts it at fw_stacks_base + (index + 1) * FW_STACK_SIZE -
// FRAME_SIZE, the top of that hart's carved stack, and FRAME_SIZE is less
// than a stack. Three instructions where this_index() reads mhartid and the
// hart map (table mode: a load per call), for the trap paths S-mode reaches
// per instruction (CTR's entry reads).
inline unsigned long frame_index(const TrapFrame &f) {
    return (reinterpret_cast<uintptr_t>(&f) - fw_stacks_base) >> FW_STACK_SHIFT;
}

// Redirects the current trap to S-mode (or HS-mode for a trap from VS/VU) as
// if the hart had delegated it: scause/stval/sepc/sstatus updated, execution
// continues at stvec. Used for traps the firmware does not handle itself.
void redirect_to_smode(TrapFrame &f, unsigned long cause, unsigned long tval);

// Trapping privilege from mstatus as the trap left it: 0 U, 1 S (3 M never
// reaches here), and V (RV32: MPV is in mstatush). Inline: the CSR emulation
// fast path asks for both on every access; trap_* take the frame's copy.
inline unsigned mstatus_priv(unsigned long mstatus) {
    return static_cast<unsigned>((mstatus & csr::mstatus_bits::MPP) >> csr::mstatus_bits::MPP_SHIFT);
}
inline bool mstatus_virt([[maybe_unused]] unsigned long mstatus) {
#if __riscv_xlen == 64
    return (mstatus & csr::mstatus_bits::MPV) != 0;
#else
    return (csr_read(csr::mstatush) & csr::mstatush_bits::MPV) != 0;
#endif
}
inline unsigned trap_priv(const TrapFrame &f) { return mstatus_priv(f.mstatus); }
inline bool trap_virt(const TrapFrame &f) { return mstatus_virt(f.mstatus); }

// Whether a trap took entry.S's full path (.Lslow, trap_handler) since
// full_path_mark(f) on this hart's frame: that path zeroes the frame's
// witness slot, which nothing else writes (the SBI call and CSR fast paths
// leave it alone). For a subsystem that wants to know that no M-level trap
// (an interrupt, an emulation, a redirect to S-mode, an SSE event) came
// between two CSR accesses it serves.
inline void full_path_mark(TrapFrame &f) { f.witness = 1; }
inline bool full_path_taken(const TrapFrame &f) { return f.witness == 0; }

// Emulation entry points (firmware/core/emulate.cpp).
void emulate_illegal_insn(TrapFrame &f, unsigned long mtval);
void emulate_misaligned(TrapFrame &f, unsigned long cause, unsigned long addr);

// Smdbltrp ("Machine Double Trap"): every trap into M-mode sets
// mstatus.MDT, and a trap taken in M-mode while MDT = 1 is a double trap the
// hart does not survive (QEMU 10 stops: "M-mode double trap"). entry.S
// clears MDT at reset; while the firmware serves a trap, an access that may
// trap on purpose (a trap-safe CSR access, an unprivileged load or store)
// runs in an MdtClearScope, which clears MDT and sets it again after, so
// the mret that ends the outer trap finds the state the hart gave it.
class MdtClearScope {
  public:
    MdtClearScope();
    ~MdtClearScope();
    MdtClearScope(const MdtClearScope &) = delete;
    MdtClearScope &operator=(const MdtClearScope &) = delete;

  private:
    bool was_set_;
};

// Unprivileged accesses on behalf of the trapping mode (entry.S).
struct UnprivResult {
    unsigned long value;
    unsigned long trapped; // mcause of the fault, 0 if none
};
extern "C" {
UnprivResult unpriv_lbu_a(unsigned long addr, unsigned long mstatus);
UnprivResult unpriv_lbu_b(unsigned long addr, unsigned long mstatus);
UnprivResult unpriv_lhu_a(unsigned long addr, unsigned long mstatus);
UnprivResult unpriv_lhu_b(unsigned long addr, unsigned long mstatus);
UnprivResult unpriv_lx_a(unsigned long addr, unsigned long mstatus);
UnprivResult unpriv_lx_b(unsigned long addr, unsigned long mstatus);
UnprivResult unpriv_lx2_a(unsigned long addr, unsigned long mstatus, unsigned long *second);
UnprivResult unpriv_lx2_b(unsigned long addr, unsigned long mstatus, unsigned long *second);
UnprivResult unpriv_lx3_a(unsigned long addr, unsigned long mstatus, unsigned long *rest);
UnprivResult unpriv_lx3_b(unsigned long addr, unsigned long mstatus, unsigned long *rest);
UnprivResult unpriv_sb_a(unsigned long addr, unsigned long mstatus, unsigned long v);
UnprivResult unpriv_sb_b(unsigned long addr, unsigned long mstatus, unsigned long v);
}

// Of an accessor's two copies, one whose code page the access [addr, addr +
// n) does not touch: an emulator that checks MPRV accesses against M-mode's
// cached translation of that page (QEMU 7.2) would otherwise let S-mode reach
// firmware memory there (entry.S, issue 13).
template <typename Fn> Fn *unpriv_copy(Fn *a, Fn *b, unsigned long addr, unsigned long n) {
    constexpr unsigned kPageShift = 12;
    unsigned long page = reinterpret_cast<unsigned long>(a) >> kPageShift;
    bool touches = (addr >> kPageShift) == page || ((addr + n - 1) >> kPageShift) == page;
    return touches ? b : a;
}
// The accessor runs with `mstatus` as given, MDT cleared (MdtClearScope): on
// RV64 MDT is in the mstatus the accessor writes, so clearing it there costs
// one instruction (CTR's trace feed reads code through here); on RV32 it is
// in mstatush.
template <typename Fn, typename... A>
inline UnprivResult unpriv_call(Fn *fn, unsigned long addr, unsigned long mstatus, A... a) {
#if __riscv_xlen == 32
    MdtClearScope mdt;
    return fn(addr, mstatus, a...);
#else
    return fn(addr, mstatus & ~static_cast<unsigned long>(csr::mstatus_bits::MDT), a...);
#endif
}
inline UnprivResult unpriv_lbu(unsigned long addr, unsigned long mstatus) {
    return unpriv_call(unpriv_copy(unpriv_lbu_a, unpriv_lbu_b, addr, 1), addr, mstatus);
}
inline UnprivResult unpriv_lhu(unsigned long addr, unsigned long mstatus) {
    return unpriv_call(unpriv_copy(unpriv_lhu_a, unpriv_lhu_b, addr, 2), addr, mstatus);
}
// An XLEN-bit word (addr aligned to it).
inline UnprivResult unpriv_lx(unsigned long addr, unsigned long mstatus) {
    return unpriv_call(unpriv_copy(unpriv_lx_a, unpriv_lx_b, addr, sizeof(long)), addr, mstatus);
}
// Two XLEN-bit words (addr aligned to one, both in one page): the first in
// value, the second in *second.
inline UnprivResult unpriv_lx2(unsigned long addr, unsigned long mstatus, unsigned long *second) {
    return unpriv_call(unpriv_copy(unpriv_lx2_a, unpriv_lx2_b, addr, 2 * sizeof(long)), addr, mstatus, second);
}
// Three XLEN-bit words (addr aligned to one, all in one page): the first in
// value, the second and third in rest[0] and rest[1]. Trapped when any of
// them cannot be read (rest[] then holds nothing of use).
inline UnprivResult unpriv_lx3(unsigned long addr, unsigned long mstatus, unsigned long *rest) {
    return unpriv_call(unpriv_copy(unpriv_lx3_a, unpriv_lx3_b, addr, 3 * sizeof(long)), addr, mstatus, rest);
}
inline UnprivResult unpriv_sb(unsigned long addr, unsigned long mstatus, unsigned long v) {
    return unpriv_call(unpriv_copy(unpriv_sb_a, unpriv_sb_b, addr, 1), addr, mstatus, v);
}

} // namespace fw
