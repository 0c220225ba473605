// SPDX-License-Identifier: BSD-2-Clause
// S-mode payload for the firmware's trap handling (spine issue, item 4):
// what M-mode does not handle reaches S-mode with the right scause, stval
// and sepc; the firmware's memory is PMP-protected; counters are readable.
#include "payload.hpp"

PAYLOAD_NAME("traps");

using namespace pl;

namespace {
constexpr unsigned long ILLEGAL_INSN = 2, LOAD_ACCESS = 5, STORE_ACCESS = 7;
volatile unsigned long probe_addr;
volatile unsigned long sink;

// An instruction word that is illegal on every RISC-V hart (c.illegal, all zeros).
__attribute__((noinline)) void exec_zero_word(void *) { asm volatile(".half 0" ::: "memory"); }
// A CSR no hart has: 0x5C0 is in the custom S-mode read/write range.
__attribute__((noinline)) void read_custom_csr(void *) {
    unsigned long v;
    asm volatile("csrr %0, 0x5c0" : "=r"(v)::"memory");
    sink = v;
}
// An M-mode CSR accessed from S-mode.
__attribute__((noinline)) void read_mscratch(void *) {
    unsigned long v;
    asm volatile("csrr %0, mscratch" : "=r"(v)::"memory");
    sink = v;
}
__attribute__((noinline)) void load_probe(void *) {
    sink = *reinterpret_cast<volatile unsigned long *>(probe_addr);
}
__attribute__((noinline)) void store_probe(void *) {
    *reinterpret_cast<volatile unsigned long *>(probe_addr) = 0x5a5a;
}

// Two reads of a counter: counter[0], counter[1].
volatile unsigned long counter[2];
__attribute__((noinline)) void read_cycle(void *) {
    unsigned long a, b;
    asm volatile("rdcycle %0; rdcycle %1" : "=r"(a), "=r"(b));
    counter[0] = a;
    counter[1] = b;
}
__attribute__((noinline)) void read_time(void *) {
    unsigned long a;
    asm volatile("rdtime %0" : "=r"(a));
    counter[0] = a;
}
__attribute__((noinline)) void read_instret(void *) {
    unsigned long a;
    asm volatile("rdinstret %0" : "=r"(a));
    counter[0] = a;
}

void check_illegal(const char *name, void (*fn)(void *), uint32_t expect_insn) {
    unsigned long tval = 0;
    unsigned long cause = catch_exception(fn, nullptr, &tval);
    expect_eq(cause, ILLEGAL_INSN, "%s/scause", name);
    expect_eq(tval, expect_insn, "%s/stval_is_insn", name);
    expect_alive("%s", name);
}
} // namespace

void payload_main() {
    check_illegal("illegal_zero_word", exec_zero_word, 0);
    // csrr a0..a5, 0x5c0 -- the register the compiler picks is in bits 11:7,
    // so compare against the encoding read back from the code itself.
    {
        auto *p = reinterpret_cast<const uint16_t *>(&read_custom_csr);
        uint32_t insn = 0;
        for (int i = 0; i < 16 && !insn; i++) {
            uint32_t w = p[i] | (uint32_t(p[i + 1]) << 16);
            if ((w & 0xfff0707f) == 0x5c002073) insn = w;
        }
        check_illegal("illegal_custom_csr", read_custom_csr, insn);
    }
    {
        auto *p = reinterpret_cast<const uint16_t *>(&read_mscratch);
        uint32_t insn = 0;
        for (int i = 0; i < 16 && !insn; i++) {
            uint32_t w = p[i] | (uint32_t(p[i + 1]) << 16);
            if ((w & 0xfff0707f) == 0x34002073) insn = w;
        }
        check_illegal("illegal_mscratch", read_mscratch, insn);
    }

    // The firmware's region is reserved in the DT and closed to S-mode by PMP.
    const Platform &pf = platform();
    bool reserved = false;
    for (unsigned i = 0; i < pf.nreserved; i++)
        if (pf.reserved[i].base == pf.fw_base && pf.reserved[i].no_map) reserved = true;
    expect_true(reserved, "fw_region_reserved_no_map");
    const unsigned long offsets[] = {0, 0x1000, pf.fw_size - 8};
    for (unsigned long off : offsets) {
        probe_addr = pf.fw_base + off;
        unsigned long tval = 0;
        expect_eq(catch_exception(load_probe, nullptr, &tval), LOAD_ACCESS,
                  "pmp_load_fw+0x%lx/scause", off);
        expect_eq(tval, probe_addr, "pmp_load_fw+0x%lx/stval", off);
        expect_eq(catch_exception(store_probe, nullptr, &tval), STORE_ACCESS,
                  "pmp_store_fw+0x%lx/scause", off);
        expect_eq(tval, probe_addr, "pmp_store_fw+0x%lx/stval", off);
    }
    // Memory right after the firmware region is S-mode's.
    probe_addr = pf.fw_base + pf.fw_size;
    expect_eq(catch_exception(load_probe, nullptr), ~0ul, "load_after_fw_region_ok");
    expect_alive("after_pmp_probes");

    // Misaligned integer loads and stores give the right values, whether the
    // hart does them or the firmware emulates them.
    alignas(16) static volatile uint8_t buf[32];
    for (int i = 0; i < 32; i++) buf[i] = static_cast<uint8_t>(i * 7 + 1);
    unsigned long v;
#if __riscv_xlen == 64
    asm volatile("ld %0, 0(%1)" : "=r"(v) : "r"(buf + 3) : "memory");
    unsigned long want = 0;
    for (int i = 7; i >= 0; i--) want = (want << 8) | buf[3 + i];
    expect_eq(v, want, "misaligned_ld");
#endif
    asm volatile("lw %0, 0(%1)" : "=r"(v) : "r"(buf + 5) : "memory");
    long wl = static_cast<int32_t>(buf[5] | buf[6] << 8 | buf[7] << 16 | uint32_t(buf[8]) << 24);
    expect_eq(v, static_cast<unsigned long>(wl), "misaligned_lw_sign_extends");
#if __riscv_xlen == 64
    asm volatile("sd %0, 0(%1)" ::"r"(0x1122334455667788ul), "r"(buf + 17) : "memory");
    expect_true(buf[17] == 0x88 && buf[24] == 0x11 && buf[16] == 16 * 7 + 1 &&
                    buf[25] == static_cast<uint8_t>(25 * 7 + 1),
                "misaligned_sd");
#else
    // RV32 has no 64-bit integer access: the widest misaligned store is sw.
    asm volatile("sw %0, 0(%1)" ::"r"(0x11223344ul), "r"(buf + 17) : "memory");
    expect_true(buf[17] == 0x44 && buf[20] == 0x11 && buf[16] == 16 * 7 + 1 &&
                    buf[21] == static_cast<uint8_t>(21 * 7 + 1),
                "misaligned_sw");
#endif

    // Counters are open to S-mode (mcounteren): reads do not trap. The read
    // itself is the check (a value alone cannot fail: a trap the firmware
    // emulated would give one too), so each runs under catch_exception.
    expect_eq(catch_exception(read_cycle, nullptr), ~0ul, "cycle_readable");
    expect_true(counter[1] >= counter[0], "cycle_monotonic");
    expect_eq(catch_exception(read_time, nullptr), ~0ul, "time_readable");
    expect_true(counter[0] != 0, "time_nonzero");
    expect_eq(catch_exception(read_instret, nullptr), ~0ul, "instret_readable");
#if __riscv_xlen == 32
    // RV32: the upper halves (cycleh, timeh, instreth) are opened with the
    // same mcounteren bits (Zicntr).
    unsigned long ch, th, ih;
    asm volatile("rdcycleh %0; rdtimeh %1; rdinstreth %2" : "=r"(ch), "=r"(th), "=r"(ih));
    unsigned long tl;
    asm volatile("rdtime %0" : "=r"(tl));
    (void)ch, (void)ih;
    // 10 MHz QEMU time: the upper half stays 0 for the first 429 s.
    expect_true(th == 0 && tl != 0, "counter_h_readable");
#endif
}
