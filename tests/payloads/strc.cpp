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
#include "workload.hpp"
#include "riscv/csr.hpp"
#include "trace/service.hpp"

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

// ---- workload (lib/workload.hpp). Returns the SBI calls it made.
unsigned workload(unsigned rounds) { return workload_rounds(rounds); }

// ---- demand paging: the buffer in Sv39, its pages mapped by the LAMBI
// handler when the AMB's pre-translation faults (asyncmbuf.adoc
// "Handling Local Asynchronous Memory Buffer Interrupts").
constexpr unsigned long PTE_V = 1, PTE_R = 2, PTE_W = 4, PTE_X = 8, PTE_A = 64, PTE_D = 128;
constexpr unsigned long kSatpSv39 = 8ul << 60;
constexpr unsigned long kBufVa = 0x2000000000ul; // VPN[2] = 128: nothing else there
constexpr unsigned kPages = kBufSize / 4096;
alignas(4096) unsigned long root[512], mid[512], leaf[512];
alignas(kBufSize) uint8_t backing[kBufSize];
uint8_t linear[kBufSize];
volatile unsigned lambis, tf_pages;

unsigned long pte_leaf(unsigned long pa, unsigned long perms) {
    return (pa >> 12) << 10 | perms | PTE_V | PTE_A | PTE_D;
}
// Buffer page i lives in backing page kPages-1-i: physically reversed, so
// only a translated write lands where the decoder finds it.
unsigned long backing_pa(unsigned page) {
    return reinterpret_cast<unsigned long>(backing) + (kPages - 1 - page) * 4096ul;
}
void paging_on() {
    for (auto &e : root) e = 0;
    for (auto &e : mid) e = 0;
    for (auto &e : leaf) e = 0;
    root[2] = pte_leaf(0x80000000ul, PTE_R | PTE_W | PTE_X); // the payload, identity
    root[kBufVa >> 30 & 511] = (reinterpret_cast<unsigned long>(mid) >> 12) << 10 | PTE_V;
    mid[kBufVa >> 21 & 511] = (reinterpret_cast<unsigned long>(leaf) >> 12) << 10 | PTE_V;
    leaf[0] = pte_leaf(backing_pa(0), PTE_R | PTE_W); // only the first page
    asm volatile("fence rw, rw\n csrw satp, %0\n sfence.vma" ::"r"(kSatpSv39 | reinterpret_cast<unsigned long>(root) >> 12)
                 : "memory");
}
void paging_off() { asm volatile("csrw satp, zero\n sfence.vma" ::: "memory"); }

// LAMBI: map the page TFPTR names, SFENCE.VMA, clear sip.LAMBI, clear TF
// (which resumes pre-translation). The source stays enabled (the draft's
// step 1 disables it): the model's reserve keeps the current page's room
// while the fault is pending, so one continuous trace shows the handler too.
bool on_lambi(unsigned long code) {
    if (code != csr::irq::LAMBI) return false;
    unsigned long cs = csr_read(csr::sstrcambcs);
    lambis = lambis + 1;
    if (cs & SAMBCS_TF) {
        unsigned page = static_cast<unsigned>((cs & SAMBCS_TFPTR) >> SAMBCS_TFPTR_SHIFT);
        if (page < kPages) {
            leaf[page] = pte_leaf(backing_pa(page), PTE_R | PTE_W);
            tf_pages = tf_pages + 1;
        }
        asm volatile("fence rw, rw\n sfence.vma" ::: "memory");
    }
    csr_clear(csr::sip, 1ul << csr::irq::LAMBI);
    csr_clear(csr::sstrcambcs, SAMBCS_TF | SAMBCS_BMI);
    return true;
}

bool wait_empty() {
    for (unsigned i = 0; i < 1000000; i++)
        if ((csr_read(csr::sstrcctl) & STRCCTL_EMPTY) && (csr_read(csr::sstrcambcs) & SAMBCS_EMPTY))
            return true;
    return false;
}


// One traced run of the workload into the AMB; `demand`: at kBufVa through
// Sv39, the pages mapped by on_lambi as the AMB reaches them.
void trace_run(const char *file, bool demand) {
    uint8_t *amb = buf;
    unsigned sbi_calls;
    lambis = 0;
    tf_pages = 0;
    if (demand) {
        paging_on();
        amb = reinterpret_cast<uint8_t *>(kBufVa);
        irq_hook = on_lambi;
        sie_set(1ul << csr::irq::LAMBI);
        irq_enable(true);
    }
    // Enable in the draft's order (asyncmbuf.adoc "Enabling and Disabling"):
    // sambaddr, then sambcs, wait for TRV, then the source.
    csr_write(csr::sstrcambaddr, reinterpret_cast<unsigned long>(amb));
    csr_write(csr::sstrcambcs, SAMBCS_EN | (4ul << SAMBCS_SIZE_SHIFT));
    expect_true(csr_read(csr::sstrcambcs) & SAMBCS_TRV, "%s/TRV_after_enable", file);
    // S-mode only, with M requested too: the firmware never lets it in.
    strc_write(STRCCTL_EN | STRCCTL_IT | STRCCTL_S | STRCCTL_M);
    sbi_calls = workload(48);
    strc_stop(STRCCTL_IT | STRCCTL_S);
    expect_true(wait_empty(), "%s/disable_flushes (sstrcctl.EMPTY and sambcs.EMPTY)", file);
    unsigned long cs = csr_read(csr::sstrcambcs);
    csr_write(csr::sstrcambcs, 0);
    unsigned long len = (csr_read(csr::sstrcambaddr) - reinterpret_cast<unsigned long>(amb)) & (kBufSize - 1);
    expect_eq(csr_read(csr::sstrcctl) & STRCCTL_STOF, 0, "%s/no_loss (STOF=0)", file);
    expect_eq(cs & (SAMBCS_TF | SAMBCS_WRAP), 0, "%s/no_fault_pending_no_wrap (TF=0, WRAP=0)", file);
    expect_true(len > 0, "%s/buffer_holds_trace (%lu bytes)", file, len);
    printf("STRC-SBI-CALLS: %s %u\n", file, sbi_calls);
    if (demand) {
        sie_clear(1ul << csr::irq::LAMBI);
        irq_hook = nullptr;
        // Every page the trace reached, and the one pre-translated after
        // it, was mapped on demand: one LAMBI each (page 0 was mapped).
        unsigned long want = (len - 1) / 4096 + 1;
        expect_eq(tf_pages, want, "%s/one_LAMBI_per_page (pages mapped on demand)", file);
        expect_eq(lambis, tf_pages, "%s/every_LAMBI_a_translation_fault", file);
        printf("STRC-COST: demand-paged AMB: %lu bytes, %u pages mapped on demand, %u LAMBIs\n", len,
               tf_pages, lambis);
        for (unsigned long i = 0; i < len; i++) linear[i] = amb[i];
        paging_off();
        // The bytes are where the page tables put them: page i in backing
        // page kPages-1-i.
        bool same = true;
        for (unsigned long i = 0; i < len; i++)
            same &= linear[i] == reinterpret_cast<const uint8_t *>(backing_pa(i / 4096))[i % 4096];
        expect_true(same, "%s/written_through_the_page_tables", file);
        write_host(file, linear, len);
    } else {
        write_host(file, buf, len);
    }
}
// ---- every hart at once, each into its own AMB (satp Bare) ---------------
constexpr unsigned kSmpHarts = 4;
alignas(kBufSize) uint8_t hbuf[kSmpHarts][kBufSize];
struct HartRun {
    unsigned long len, cs, ctl;
    unsigned calls;
    bool trv, empty;
} hruns[kSmpHarts];

void hart_trace(void *arg) {
    unsigned i = static_cast<unsigned>(reinterpret_cast<uintptr_t>(arg));
    HartRun &r = hruns[i];
    csr_write(csr::sstrcambaddr, reinterpret_cast<unsigned long>(hbuf[i]));
    csr_write(csr::sstrcambcs, SAMBCS_EN | (4ul << SAMBCS_SIZE_SHIFT));
    r.trv = csr_read(csr::sstrcambcs) & SAMBCS_TRV;
    strc_write(STRCCTL_EN | STRCCTL_IT | STRCCTL_S);
    r.calls = workload(24 + 8 * i); // a different length on each hart
    strc_stop(STRCCTL_IT | STRCCTL_S);
    r.empty = wait_empty();
    r.cs = csr_read(csr::sstrcambcs);
    r.ctl = csr_read(csr::sstrcctl);
    csr_write(csr::sstrcambcs, 0);
    r.len = (csr_read(csr::sstrcambaddr) - reinterpret_cast<unsigned long>(hbuf[i])) & (kBufSize - 1);
}

void all_harts_trace() {
    const Platform &p = platform();
    unsigned n = p.nharts < kSmpHarts ? p.nharts : kSmpHarts;
    if (n < 2) return;
    if (!start_secondaries()) return;
    for (unsigned i = 1; i < n; i++)
        post_job(secondary_hartid(i - 1), hart_trace, reinterpret_cast<void *>(static_cast<uintptr_t>(i)));
    hart_trace(nullptr);
    for (unsigned i = 1; i < n; i++)
        expect_true(wait_job(secondary_hartid(i - 1)), "harts/%lu/done", secondary_hartid(i - 1));
    for (unsigned i = 0; i < n; i++) {
        unsigned long h = i ? secondary_hartid(i - 1) : hartid();
        HartRun &r = hruns[i];
        expect_true(r.trv && r.empty, "harts/%lu/enabled_and_flushed (TRV, EMPTY)", h);
        expect_eq(r.ctl & STRCCTL_STOF, 0, "harts/%lu/no_loss (STOF=0)", h);
        expect_eq(r.cs & (SAMBCS_TF | SAMBCS_WRAP), 0, "harts/%lu/no_fault_no_wrap", h);
        char name[32];
        snprintf(name, sizeof name, "strc-hart%lu.bin", h);
        printf("STRC-SBI-CALLS: %s %u\n", name, r.calls);
        write_host(name, hbuf[i], r.len);
    }
}

// ---- the hart's one encoder: the SBI trace service or the CSRs -------------
// First come, first served (firmware/trace/README.md "Self-hosted trace"):
// while the service traces this hart, sstrcctl.EN does not stick; while
// the CSRs trace, the service cannot start this hart (FAILED: the encoder
// ignores its writes) and can once they stopped.
void coexistence() {
    constexpr long EID = sbi::eid::tsbi_trace;
    enum : long { CONFIGURE = 1, SET_SINK = 2, START = 3, STOP = 4 };
    constexpr unsigned long HTM = 6;
    unsigned long self = hartid();
    if (!extension_present(EID, "coexist/service")) return;
    expect_err(sbi_call(EID, CONFIGURE, 1, self, HTM | trace::cfg::PRIV_S), SUCCESS, "coexist/configure");
    expect_err(sbi_call(EID, SET_SINK, 0), SUCCESS, "coexist/sram_sink");
    // (a) the service first
    expect_err(sbi_call(EID, START, 1, self), SUCCESS, "coexist/service_starts");
    csr_write(csr::sstrcctl, STRCCTL_EN | STRCCTL_IT | STRCCTL_S);
    expect_eq(csr_read(csr::sstrcctl) & STRCCTL_EN, 0, "coexist/EN_does_not_stick_while_the_service_traces");
    csr_write(csr::sstrcctl, 0);
    expect_err(sbi_call(EID, STOP, 1, self), SUCCESS, "coexist/service_stops");
    // (b) the CSRs first
    csr_write(csr::sstrcambaddr, reinterpret_cast<unsigned long>(buf));
    csr_write(csr::sstrcambcs, SAMBCS_EN | (4ul << SAMBCS_SIZE_SHIFT));
    csr_write(csr::sstrcctl, STRCCTL_EN | STRCCTL_IT | STRCCTL_S);
    expect_true(csr_read(csr::sstrcctl) & STRCCTL_EN, "coexist/EN_sticks_with_the_encoder_free");
    expect_err(sbi_call(EID, START, 1, self), ERR_FAILED, "coexist/service_cannot_start_while_the_CSRs_trace");
    csr_write(csr::sstrcctl, 0);
    expect_true(wait_empty(), "coexist/CSRs_stop");
    csr_write(csr::sstrcambcs, 0);
    expect_err(sbi_call(EID, STOP, 1, self), SUCCESS, "coexist/service_stop_after_the_failed_start");
    expect_err(sbi_call(EID, START, 1, self), SUCCESS, "coexist/service_starts_once_the_CSRs_stopped");
    expect_err(sbi_call(EID, STOP, 1, self), SUCCESS, "coexist/service_stops_again");
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

    // The buffer cannot point into the firmware: writes are S-mode's
    // (menvcfg.STRCS, set by the firmware) and the PMP closes the firmware
    // to S-mode, so the AMB reports a translation fault (TF, TFPTR 0) at
    // once and never writes there (hw_models/qemu/README.md, Q3).
    {
        const Platform &p = platform();
        csr_write(csr::sstrcambaddr, p.fw_base);
        csr_write(csr::sstrcambcs, SAMBCS_EN);
        unsigned long cs = csr_read(csr::sstrcambcs);
        expect_eq(cs & (SAMBCS_TRV | SAMBCS_TF | SAMBCS_TFPTR), SAMBCS_TF,
                  "protection/buffer_in_firmware_is_a_fault (TRV=0, TF=1, TFPTR=0)");
        expect_true(csr_read(csr::sip) & (1ul << csr::irq::LAMBI), "protection/LAMBI_pending_in_sip");
        csr_write(csr::sstrcambcs, 0);
        csr_clear(csr::sip, 1ul << csr::irq::LAMBI);
        expect_eq(csr_read(csr::sip) & (1ul << csr::irq::LAMBI), 0, "protection/sip_LAMBI_clears");
    }
    trace_run("strc.bin", false);
    trace_run("strc-demand.bin", true);
    coexistence();
    all_harts_trace();
}
