// SPDX-License-Identifier: BSD-2-Clause
// Trap-safe access to a CSR whose number is known only at run time. The
// access instructions are assembled here, at build time, one fixed
// "csrr/csrw; ret" pair per number listed in riscv/csr_safe.hpp, and run by
// entry.S's run_trap_safe_stub with mtvec pointing at a handler that records
// the trap instead of taking it. The firmware never writes code at run time:
// a per-hart stub rewritten before each access (the earlier design) shared
// its page with data every hart writes, and QEMU 7.2's multi-threaded TCG
// ran a stale stub about once in 10^7 accesses (README.md, "Trap-safe CSR
// access").
#include "fw.hpp"
#include "riscv/csr_safe.hpp"
#include "trap.hpp"

extern "C" csr::SafeResult run_trap_safe_stub(const uint32_t *stub, unsigned long value);
// The tables below: entry i is the access to the i-th listed number.
extern "C" const uint32_t csr_safe_read_table[], csr_safe_write_table[];

#define TSBI_SAFE_CSR_CHECK(first, count, name, what) static_assert(csr::name == first);
TSBI_SAFE_CSR_RANGES(TSBI_SAFE_CSR_CHECK)
#undef TSBI_SAFE_CSR_CHECK

// Each entry is 8 bytes (no compressed instructions), so entry i is at
// table + 8 * i.
#define TSBI_SAFE_CSR_READS(first, count, name, what) "csr_safe_entries read, " #first ", " #count "\n"
#define TSBI_SAFE_CSR_WRITES(first, count, name, what) "csr_safe_entries write, " #first ", " #count "\n"
// clang-format off
asm(R"(
    .pushsection .text.csr_safe_table, "ax", @progbits
    .option push
    .option norvc
    .macro csr_safe_entries access, first, count
    .set .Lcsr_safe_n, \first
    .rept \count
    .ifc \access, read
    csrr  a0, .Lcsr_safe_n
    .else
    csrw  .Lcsr_safe_n, a1
    .endif
    ret
    .set .Lcsr_safe_n, .Lcsr_safe_n + 1
    .endr
    .endm
    .balign 8
    .globl csr_safe_read_table
csr_safe_read_table:
)" TSBI_SAFE_CSR_RANGES(TSBI_SAFE_CSR_READS) R"(
    .globl csr_safe_write_table
csr_safe_write_table:
)" TSBI_SAFE_CSR_RANGES(TSBI_SAFE_CSR_WRITES) R"(
    .purgem csr_safe_entries
    .option pop
    .popsection
)");
// clang-format on
#undef TSBI_SAFE_CSR_READS
#undef TSBI_SAFE_CSR_WRITES

namespace {
csr::SafeResult run(const uint32_t *table, unsigned num, unsigned long value) {
    int i = csr::safe_csr_index(num);
    if (i < 0) return {0, csr::kSafeUnlisted};
    // Also while serving a trap (an SBI call, an emulated instruction),
    // when mstatus.MDT is set (trap.hpp).
    fw::MdtClearScope mdt;
    return run_trap_safe_stub(table + 2 * i, value);
}
} // namespace

extern "C" csr::SafeResult csr::csr_read_safe_num(unsigned num) {
    return run(csr_safe_read_table, num, 0);
}

extern "C" csr::SafeResult csr::csr_write_safe_num(unsigned num, unsigned long value) {
    return run(csr_safe_write_table, num, value);
}
