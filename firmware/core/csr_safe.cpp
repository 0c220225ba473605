// SPDX-License-Identifier: BSD-2-Clause
// Trap-safe access to a CSR whose number is known only at run time: the
// access instruction is written into a per-hart two-instruction stub
// ("csrr/csrw; ret") and run with mtvec pointing at a handler that records
// the trap instead of taking it (entry.S). The stubs live in their own page
// so rewriting them does not disturb translated firmware code.
#include "fw.hpp"
#include "riscv/csr.hpp"
#include "trap.hpp"

extern "C" csr::SafeResult run_trap_safe_stub(const uint32_t *stub, unsigned long value);

namespace {
alignas(4096) uint32_t stubs[fw::kMaxHarts][2] __attribute__((section(".data")));
constexpr uint32_t kRet = 0x00008067;           // jalr x0, 0(ra)
constexpr uint32_t kCsrrA0 = 0x00002573;        // csrrs a0, <csr>, x0
constexpr uint32_t kCsrwA1 = 0x00059073;        // csrrw x0, <csr>, a1

csr::SafeResult run(uint32_t insn, unsigned long value) {
    // Also while serving a trap (an SBI call, an emulated instruction),
    // when mstatus.MDT is set (trap.hpp).
    fw::MdtClearScope mdt;
    uint32_t *s = stubs[fw::current_hartid()];
    s[0] = insn;
    s[1] = kRet;
    asm volatile("fence.i" ::: "memory");
    return run_trap_safe_stub(s, value);
}
} // namespace

extern "C" csr::SafeResult csr::csr_read_safe_num(unsigned num) {
    return run(kCsrrA0 | ((num & 0xfff) << 20), 0);
}

extern "C" csr::SafeResult csr::csr_write_safe_num(unsigned num, unsigned long value) {
    return run(kCsrwA1 | ((num & 0xfff) << 20), value);
}
