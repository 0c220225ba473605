// SPDX-License-Identifier: BSD-2-Clause
// Self-hosted trace under the firmware (issue 31; draft Smstrcn/Ssstrcn +
// Ssamb, the project QEMU with -cpu rv64,smstrcn=true; README
// "Self-hosted trace" of hw_models/qemu and firmware/trace): the firmware
// hands S-mode the CSRs (ssstrcn and ssamb in the device tree, sstrcctl
// reachable, menvcfg.STRCS set, M-mode out of reach: sstrcctl[63] reads 0).
// S-mode then traces itself, with SBI calls (traps into the firmware) in
// the workload, into a buffer the AMB writes through satp (Bare here, so at
// the buffer's own address), and writes the buffer to the host file
// strc.bin (QEMU semihosting); tests/suites/53-strc.sh decodes it and
// compares it with the S-mode instructions the insnlog plugin saw between
// the labels strc_on and strc_off, with no firmware address in it.
// Without the extensions in the device tree sstrcctl must be an illegal
// instruction and the rest is N/A.
#include "payload.hpp"
#include "riscv/csr.hpp"

using namespace pl;

PAYLOAD_NAME("strc");

// The enabling and disabling CSR writes at the labels the suite compares
// between (tracing starts after the enabling write, ends with the
// disabling one: hw_models/qemu/README.md "Self-hosted trace", Q15).
extern "C" void strc_write(unsigned long ctl);
extern "C" void strc_stop(unsigned long ctl);
#define STRC_STR2(x) #x
#define STRC_STR(x) STRC_STR2(x)
asm(".pushsection .text\n"
    ".globl strc_write\nstrc_write:\n"
    "  csrw " STRC_STR(STRC_CSR_SSTRCCTL) ", a0\n"
    ".globl strc_on\nstrc_on:\n"
    "  ret\n"
    ".globl strc_stop\nstrc_stop:\n"
    ".globl strc_off\nstrc_off:\n"
    "  csrw " STRC_STR(STRC_CSR_SSTRCCTL) ", a0\n"
    "  ret\n"
    ".popsection");
// The RISC-V semihosting sequence (slli/ebreak/srai): uncompressed, in one
// 16-byte aligned block so the three words share a page.
asm(".pushsection .text\n.option push\n.option norvc\n.option norelax\n.balign 16\n"
    ".globl strc_semihost\nstrc_semihost:\n"
    "slli x0, x0, 0x1f\nebreak\nsrai x0, x0, 7\nret\n.option pop\n.popsection");
extern "C" long strc_semihost(long op, void *arg);

namespace {

constexpr unsigned long kBufSize = 0x10000; // SIZE 4: 64 KiB
alignas(kBufSize) uint8_t buf[kBufSize];

void write_host(const char *name, const void *p, unsigned long len) {
    unsigned long open_args[3] = {reinterpret_cast<unsigned long>(name), 5 /* "wb" */, strlen(name)};
    long fd = strc_semihost(0x01, open_args);
    unsigned long wargs[3] = {static_cast<unsigned long>(fd), reinterpret_cast<unsigned long>(p), len};
    bool ok = fd >= 0 && strc_semihost(0x05, wargs) == 0;
    strc_semihost(0x02, &fd);
    expect_true(ok, "host_file/%s", name);
    printf("STRC-FILE: %s %lu\n", name, len);
}

// ---- workload: calls, returns, indirect calls, a jump table, loops and
// SBI calls (a trap into the firmware and back every eighth round).
volatile unsigned long sink;
__attribute__((noinline)) unsigned long fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__attribute__((noinline)) unsigned long op_a(unsigned long x) { return x * 3 + 1; }
__attribute__((noinline)) unsigned long op_b(unsigned long x) { return x ^ (x >> 3); }
unsigned long (*volatile ops[2])(unsigned long) = {op_a, op_b};
__attribute__((noinline)) unsigned long dispatch(unsigned k, unsigned long x) {
    switch (k & 7) {
    case 0: return x + 1;
    case 1: return x * 7;
    case 2: return x - 9;
    case 3: return x ^ 0x55;
    case 4: return x << 1;
    case 5: return x >> 2;
    case 6: return ~x;
    default: return x | 0x80;
    }
}
unsigned sbi_calls;
void workload(unsigned rounds) {
    for (unsigned i = 0; i < rounds; i++) {
        unsigned long x = fib(8 + (i & 1));
        for (unsigned j = 0; j < 8; j++) x = dispatch(i + j, ops[j & 1](x));
        sink = sink + x;
        if ((i & 7) == 0) {
            sbi_call(eid::base, fid::base::get_spec_version);
            sbi_calls++;
        }
    }
}

bool wait_empty() {
    for (unsigned i = 0; i < 1000000; i++)
        if ((csr_read(csr::sstrcctl) & STRCCTL_EMPTY) && (csr_read(csr::sstrcambcs) & SAMBCS_EMPTY))
            return true;
    return false;
}

} // namespace

void payload_main() {
    if (!has_isa_ext("ssstrcn") || !has_isa_ext("ssamb")) {
        // Not offered (no Smstrcn, or the firmware keeps it): the CSRs are
        // not S-mode's (mstateen0.STRC=0 or absent): illegal instruction.
        unsigned long cause = catch_exception([](void *) { (void)csr_read(csr::sstrcctl); }, nullptr);
        expect_eq(cause, csr::cause::illegal_insn, "not_offered/sstrcctl_is_illegal");
        not_applicable("no ssstrcn/ssamb in the device tree (QEMU without -cpu smstrcn=true, or "
                       "/chosen/tsbi,strc = \"off\")", "detect");
        return;
    }
    pass("detect/ssstrcn_ssamb_in_device_tree");
    // Reset state as the firmware leaves it (firmware/trace/strc.cpp).
    expect_eq(csr_read(csr::sstrcctl), STRCCTL_EMPTY, "registers/sstrcctl_at_hand_off");
    expect_eq(csr_read(csr::sstrcambcs), SAMBCS_EMPTY, "registers/sstrcambcs_at_hand_off");
    // M-mode is out of S-mode's reach: sstrcctl[63] is read-only 0.
    csr_write(csr::sstrcctl, STRCCTL_M | STRCCTL_S);
    expect_eq(csr_read(csr::sstrcctl), STRCCTL_S | STRCCTL_EMPTY, "registers/sstrcctl_M_reads_0");
    csr_write(csr::sstrcctl, 0);

    // Enable in the draft's order (asyncmbuf.adoc "Enabling and Disabling"):
    // sambaddr, then sambcs, wait for TRV, then the source.
    csr_write(csr::sstrcambaddr, reinterpret_cast<unsigned long>(buf));
    csr_write(csr::sstrcambcs, SAMBCS_EN | (4ul << SAMBCS_SIZE_SHIFT));
    expect_true(csr_read(csr::sstrcambcs) & SAMBCS_TRV, "trace/TRV_after_enable");
    // S-mode only, with M requested too: the firmware never lets it in.
    strc_write(STRCCTL_EN | STRCCTL_IT | STRCCTL_S | STRCCTL_M);
    workload(48);
    strc_stop(STRCCTL_IT | STRCCTL_S);
    expect_true(wait_empty(), "trace/disable_flushes (sstrcctl.EMPTY and sambcs.EMPTY)");
    unsigned long cs = csr_read(csr::sstrcambcs);
    csr_write(csr::sstrcambcs, 0);
    unsigned long len = (csr_read(csr::sstrcambaddr) - reinterpret_cast<unsigned long>(buf)) & (kBufSize - 1);
    expect_eq(csr_read(csr::sstrcctl) & STRCCTL_STOF, 0, "trace/no_loss (STOF=0)");
    expect_eq(cs & (SAMBCS_TF | SAMBCS_WRAP), 0, "trace/no_fault_no_wrap (TF=0, WRAP=0)");
    expect_true(len > 0, "trace/buffer_holds_trace (%lu bytes)", len);
    printf("STRC-SBI-CALLS: %u\n", sbi_calls);
    write_host("strc.bin", buf, len);
}
