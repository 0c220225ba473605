// SPDX-License-Identifier: BSD-2-Clause
// The CSR tables behind hw_csr.hpp's accesses by run-time counter index:
// 32 fixed-size "csr access; return" pairs each, entered by computed jump.
// Position independent, one copy of each table.
#ifdef __riscv
#include "hw.hpp"

#if __riscv_xlen == 64
// Convention (hw_csr.hpp): a0 = counter index (< 32), a1 = value to write,
// a0 = value read; clobbers t0 only. mhpmeventN is at mcountinhibit + N for
// N >= 3; indices 0 and 2 are the fixed counters' filters (Smcntrpmf).
// clang-format off
asm(R"(
    .pushsection .text.pmu_csr, "ax", @progbits
    .option push
    .option norvc
    # Jumps to entry a0 of the table that follows: 8 bytes an entry, the
    # first 16 bytes after the auipc.
    .macro pmu_csr_dispatch
    auipc t0, 0
    slli  a0, a0, 3
    add   t0, t0, a0
    jr    16(t0)
    .endm
    # `count` entries "csr access of CSR first+i; ret" (read into a0, or
    # write a1).
    .macro pmu_csr_entries access, first, count
    .set .Lpmu_n, \first
    .rept \count
    .ifc \access, read
    csrr  a0, .Lpmu_n
    .else
    csrw  .Lpmu_n, a1
    .endif
    ret
    .set .Lpmu_n, .Lpmu_n + 1
    .endr
    .endm

    .balign 4
    .globl pmu_csr_counter_read
pmu_csr_counter_read:
    pmu_csr_dispatch
    pmu_csr_entries read, 0xB00, 32

    .globl pmu_csr_counter_write
pmu_csr_counter_write:
    pmu_csr_dispatch
    pmu_csr_entries write, 0xB00, 32

    .globl pmu_csr_event_write
pmu_csr_event_write:
    pmu_csr_dispatch
    csrw  0x321, a1     # mcyclecfg
    ret
    ret                 # index 1: time has no selector
    nop
    csrw  0x322, a1     # minstretcfg
    ret
    pmu_csr_entries write, 0x323, 29
    .purgem pmu_csr_dispatch
    .purgem pmu_csr_entries
    .option pop
    .popsection
)");
// clang-format on
static_assert(pmu::hw::kSlots == 32 && csr::mcycle == 0xB00 && csr::mcyclecfg == 0x321 &&
              csr::minstretcfg == 0x322 && csr::mhpmevent3 == 0x323);

#else // RV32: the same tables as C++ templates, through ordinary calls.
#include "hw_rv32.hpp"

namespace pmu::hw {
namespace {

template <unsigned Base> [[gnu::always_inline]] inline unsigned long read_indexed(unsigned idx) {
    unsigned long v, t;
    asm volatile(".option push\n\t.option norvc\n\t"
                 "auipc %1, 0\n\t"
                 "slli %0, %2, 3\n\t"
                 "add %1, %1, %0\n\t"
                 "jalr zero, 16(%1)\n\t"
                 ".set .Lpmu_csr%=, %3\n\t"
                 ".rept 32\n\t"
                 "csrr %0, .Lpmu_csr%=\n\t"
                 "j 1f\n\t"
                 ".set .Lpmu_csr%=, .Lpmu_csr%= + 1\n\t"
                 ".endr\n"
                 "1:\n\t"
                 ".option pop"
                 : "=&r"(v), "=&r"(t)
                 : "r"(idx), "i"(Base)
                 : "memory");
    return v;
}

template <unsigned Base>
[[gnu::always_inline]] inline void write_indexed(unsigned idx, unsigned long value) {
    unsigned long t, o;
    asm volatile(".option push\n\t.option norvc\n\t"
                 "auipc %0, 0\n\t"
                 "slli %1, %2, 3\n\t"
                 "add %0, %0, %1\n\t"
                 "jalr zero, 16(%0)\n\t"
                 ".set .Lpmu_csr%=, %4\n\t"
                 ".rept 32\n\t"
                 "csrw .Lpmu_csr%=, %3\n\t"
                 "j 1f\n\t"
                 ".set .Lpmu_csr%=, .Lpmu_csr%= + 1\n\t"
                 ".endr\n"
                 "1:\n\t"
                 ".option pop"
                 : "=&r"(t), "=&r"(o)
                 : "r"(idx), "r"(value), "i"(Base)
                 : "memory");
}

// The CSR tables as hw_rv32.hpp's accessor.
struct TableCsr {
    template <unsigned Base> [[gnu::always_inline]] static uint32_t read(unsigned idx) {
        return read_indexed<Base>(idx);
    }
    template <unsigned Base> [[gnu::always_inline]] static void write(unsigned idx, uint32_t v) {
        write_indexed<Base>(idx, v);
    }
    template <unsigned Num> [[gnu::always_inline]] static void write_fixed(uint32_t v) {
        csr_write(Num, v);
    }
};

} // namespace

uint64_t counter_read_table(unsigned idx) { return rv32::counter_read<TableCsr>(idx); }
void counter_write_table(unsigned idx, uint64_t value) { rv32::counter_write<TableCsr>(idx, value); }
void event_write_table(unsigned idx, uint64_t value, bool upper) {
    rv32::event_write<TableCsr>(idx, value, upper);
}

} // namespace pmu::hw
#endif
#endif
