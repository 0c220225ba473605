// SPDX-License-Identifier: BSD-2-Clause
// End-to-end trace payload: programs the RAM sink, funnel and encoders in
// the Trace Control Interface 1.0 order, runs known code on every traced
// hart (nested calls and returns, loops, indirect calls and jumps, ecall
// exceptions, timer interrupts, M/S privilege changes), stops the trace
// (encoder, funnel, sink) and writes the sink contents to the host file
// trace.bin through semihosting. The runner (tests/suites/50-qemu.sh) sets
// the configuration block with -device loader and compares the decoded
// trace with the insnlog plugin's record.
#include "lib.h"
#include "workload.h"
#include "ntrace_defs.h"

struct cfg {
    uint32_t magic;          // CFG_MAGIC when the runner set the block
    uint32_t te_control;     // InstMode, Context, InstSyncMode/Max, InhibitSrc
    uint32_t inst_features;  // trTeInstFeatures (SrcID is set per hart)
    uint32_t iterations;     // workload repetitions per hart
    uint32_t sink_smem;      // 1: SMEM buffer at SMEM_BASE, 0: SRAM
    uint32_t harts;          // harts traced (1..MAX_HARTS)
    uint32_t ts_control;     // trTsControl of the encoders (funnel counts)
    uint32_t loss_test;      // 1: small SRAM with StopOnWrap, re-armed once
                             // 2: same with InstStallEna, hart 1 drains the sink
    uint32_t kernel;         // KERNEL_*: what the traced workload runs
    // Filter 0, selected alone when any of these is set (TCI 1.0 "Trace
    // Encoder Filter Registers"):
    uint32_t filter_priv;    // trTeFilterMatchChoicePrivilege (0: no MatchPrivilege)
    uint32_t filter_ecause;  // trTeFilterMatchChoiceEcauseLow (0: no MatchEcause)
    uint32_t filter_irq;     // 1: MatchInterrupt on interrupts, 2: on exceptions
    uint32_t etrace;         // 1: trTeFormat 0 (E-Trace), else N-Trace
    uint32_t data_control;   // trTeDataControl (E-Trace data trace)
    uint32_t data_late;      // 1: trTeDataControl written only once tracing runs
    // A comparator in filter 0 (TCI 1.0 "Trace Encoder Comparator Registers"):
    // comparator comp_slot, used as the filter's Comp1 (slot 0), Comp2 (1)
    // or Comp3 (2, 3)
    uint32_t comp_control;   // trTeComp{j}Control (0: no comparator)
    uint32_t comp_pmatch;    // trTeComp{j}PMatchLow (High 0: the payload is below 4 GiB)
    uint32_t comp_smatch;    // trTeComp{j}SMatchLow
    uint32_t comp_slot;
    // Sdtrig trace actions (TCI 1.0 "Debug Trigger Module"): mcontrol6
    // execute triggers in M, S and U with action 2 (trace-on) at trig_on and
    // 3 (trace-off) at trig_off; tracing is enabled with trTeInstTracing 0
    // and trTeInstTrigEnable 1, so the triggers start and stop it
    uint32_t trig_on;        // 0: no triggers
    uint32_t trig_off;
    // Sdtrig trace-notify (action 4) at trig_notify in M, S and U, with
    // trig_on 0 (QEMU has two triggers): a SYNC=6 message at each execution
    uint32_t trig_notify;    // 0: no notify trigger
};
#define FILTER_IRQ_INTERRUPTS 1
#define FILTER_IRQ_EXCEPTIONS 2
#define KERNEL_MIXED 0        // calls, returns, jump tables, traps, privilege changes
#define KERNEL_COMPUTE 1      // loop-heavy compute kernel (benchmark)
#define KERNEL_ZC 2           // Zcmp/Zcmt pushes, pops and table jumps (zc.S)
#define LOSS_DROP 1
#define LOSS_STALL 2
#define CFG ((volatile struct cfg *)0x80ff0000UL)
#define CFG_MAGIC 0x54534249u
// below the configuration block: code, data, stacks; above it the buffer
#define SMEM_BASE 0x81000000UL
#define SMEM_LIMIT 0x87fffffcUL
#define LOSS_LIMIT 0x3fcu
#define MAX_HARTS 32u
// SrcID width: 4 bits name up to 16 harts, 5 up to 32 (the runner decodes
// with the same width)
#define SRC_BITS (CFG->harts > 16 ? 5u : 4u)

#define CLINT_MTIMECMP(h) (VIRT_CLINT + 0x4000UL + 8UL * (h))
#define CLINT_MTIME (VIRT_CLINT + 0xbff8UL)
#define MCAUSE_INT (1UL << 63)
#define IRQ_M_TIMER 7
#define EXC_ECALL_S 9
#define EXC_ECALL_M 11
#define MIE_MTIE (1UL << 7)
#define MSTATUS_MIE (1UL << 3)
#define MSTATUS_MPP_M (3UL << 11)

void run_in_smode(void (*fn)(void));
extern char smode_return[];

static volatile uint32_t go, done_count;
static volatile unsigned long ecalls[MAX_HARTS], ticks[MAX_HARTS];
static volatile unsigned long sink_checksum;
static uint8_t dumpbuf[0x10000];
// LOSS_STALL: hart 1 copies each full buffer here (the SMEM area is unused)
static volatile uint32_t drain_stop, drain_idle, drains;
static volatile uint32_t collected;
#define COLLECT ((uint8_t *)SMEM_BASE)

static inline unsigned long hartid(void)
{
    unsigned long h;
    __asm__ volatile("csrr %0, mhartid" : "=r"(h));
    return h;
}

// ---- workload -------------------------------------------------------------
static unsigned long __attribute__((noinline)) popcount_loop(unsigned long x)
{
    unsigned long c = 0;
    while (x) {
        if (x & 1) {
            c++;
        }
        x >>= 1;
    }
    return c;
}

static volatile unsigned long sink;

unsigned long seqjump_work(unsigned long x);

// Atomics for the E-Trace data trace of AMOs and LR/SC (each AMO operation,
// both widths, rd == rs2, an SC that stores, one without a reservation and one
// whose reserved word changed), on the hart's stack: no other hart touches them.
static unsigned long __attribute__((noinline)) atomics_work(unsigned long x)
{
    uint64_t w[2] = {x, ~x};
    unsigned long r, t, s = 0;

    __asm__ volatile("amoswap.w %0, %2, (%1)" : "=&r"(r) : "r"(&w[0]), "r"(x + 1) : "memory");
    s += r;
    __asm__ volatile("amoadd.d %0, %2, (%1)" : "=&r"(r) : "r"(&w[1]), "r"(x) : "memory");
    s += r;
    __asm__ volatile("amoand.w %0, %2, (%1)" : "=&r"(r) : "r"(&w[0]), "r"(-16L) : "memory");
    s += r;
    __asm__ volatile("amoor.d %0, %2, (%1)" : "=&r"(r) : "r"(&w[1]), "r"(0x80L) : "memory");
    s += r;
    __asm__ volatile("amoxor.w %0, %2, (%1)" : "=&r"(r) : "r"(&w[0]), "r"(x) : "memory");
    s += r;
    __asm__ volatile("amomax.w %0, %2, (%1)" : "=&r"(r) : "r"(&w[0]), "r"(-5L) : "memory");
    s += r;
    __asm__ volatile("amomaxu.d %0, %2, (%1)" : "=&r"(r) : "r"(&w[1]), "r"(3L) : "memory");
    s += r;
    __asm__ volatile("amomin.d %0, %2, (%1)" : "=&r"(r) : "r"(&w[1]), "r"(-7L) : "memory");
    s += r;
    __asm__ volatile("amominu.w %0, %2, (%1)" : "=&r"(r) : "r"(&w[0]), "r"(9L) : "memory");
    s += r;
    r = x;
    __asm__ volatile("amoadd.w %0, %0, (%1)" : "+r"(r) : "r"(&w[0]) : "memory");   // rd == rs2
    s += r;
    __asm__ volatile("1: lr.w %0, (%2)\n addi %0, %0, 3\n sc.w %1, %0, (%2)\n bnez %1, 1b"
                     : "=&r"(r), "=&r"(t) : "r"(&w[0]) : "memory");
    s += r;
    __asm__ volatile("sc.d %0, %2, (%1)" : "=&r"(t) : "r"(&w[1]), "r"(x) : "memory"); // no reservation
    s += t;
    __asm__ volatile("lr.d %0, (%2)\n sd %3, 0(%2)\n sc.d %1, %3, (%2)"  // reserved word changed
                     : "=&r"(r), "=&r"(t) : "r"(&w[1]), "r"(x ^ 0x5a) : "memory");
    s += r + t;
    return s + w[0] + w[1];
}

static void workload_once(unsigned i)
{
    unsigned long x = seqjump_work(fib(9 + (i & 1)));
    x += atomics_work(x);
    for (unsigned j = 0; j < 16; j++) {
        x = ops[(i + j) & 3](x);
        x = dispatch(i * 7 + j, x);
    }
    x += popcount_loop(x);
    sink += x;
}

// Sdtrig context CSRs: writes are reported in Ownership messages (Context=1)
#define CSR_SCONTEXT 0x5a8
#define CSR_MCONTEXT 0x7a8      // hcontext on a hart with H
#define TEST_SCONTEXT 0x1d
#define TEST_HCONTEXT 0x5

static void smode_work(void)
{
    __asm__ volatile("csrw %0, %1" :: "i"(CSR_SCONTEXT), "r"(TEST_SCONTEXT));
    for (unsigned i = 0; i < 4; i++) {
        workload_once(i);
    }
}

// Compute kernel for the benchmark: insertion sort and a bitwise CRC over a
// small array, loop-heavy like typical CPU-bound code.
static uint32_t karr[64];

static uint32_t __attribute__((noinline)) crc32_bits(const uint32_t *p, unsigned n)
{
    uint32_t crc = ~0u;
    for (unsigned i = 0; i < n; i++) {
        crc ^= p[i];
        for (int b = 0; b < 32; b++) {
            crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
        }
    }
    return ~crc;
}

static void __attribute__((noinline)) isort(uint32_t *a, unsigned n)
{
    for (unsigned i = 1; i < n; i++) {
        uint32_t v = a[i];
        unsigned j = i;
        while (j > 0 && a[j - 1] > v) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
}

static void kernel(unsigned iterations)
{
    uint32_t seed = 1;
    for (unsigned i = 0; i < iterations; i++) {
        for (unsigned k = 0; k < 64; k++) {
            seed = seed * 1103515245u + 12345u;
            karr[k] = seed >> 8;
        }
        isort(karr, 64);
        sink += crc32_bits(karr, 64);
    }
}

unsigned long zc_run(unsigned long iterations);

static void workload(unsigned iterations)
{
    if (CFG->kernel == KERNEL_COMPUTE) {
        kernel(iterations);
        return;
    }
    if (CFG->kernel == KERNEL_ZC) {
        sink += zc_run(iterations);
        return;
    }
    unsigned long h = hartid();
    __asm__ volatile("csrw %0, %1" :: "i"(CSR_MCONTEXT), "r"(TEST_HCONTEXT));
    for (unsigned i = 0; i < iterations; i++) {
        workload_once(i);
        if ((i & 15) == 0) {
            __asm__ volatile("ecall");          // exception and trap return
        }
        if ((i & 31) == 5) {
            run_in_smode(smode_work);           // privilege changes
        }
        if ((i & 63) == 9) {
            // arm a timer interrupt that fires inside the next iterations
            wr32(CLINT_MTIMECMP(h) + 4, 0);
            *(volatile uint64_t *)CLINT_MTIMECMP(h) = *(volatile uint64_t *)CLINT_MTIME + 20;
        }
    }
}

static uint64_t on_trap(uint64_t mcause, uint64_t mepc)
{
    unsigned long h = hartid();
    if (mcause == (MCAUSE_INT | IRQ_M_TIMER)) {
        ticks[h]++;
        *(volatile uint64_t *)CLINT_MTIMECMP(h) = ~0ULL;
        return mepc;
    }
    if (mcause == EXC_ECALL_M) {
        ecalls[h]++;
        return mepc + 4;
    }
    if (mcause == EXC_ECALL_S) {
        // back from run_in_smode: continue in M-mode
        __asm__ volatile("csrs mstatus, %0" ::"r"(MSTATUS_MPP_M));
        return (uint64_t)(uintptr_t)smode_return;
    }
    puts_("FAIL: trace: unexpected trap ");
    puthex(mcause);
    puts_("\n");
    test_failures++;
    poweroff();
    return mepc;
}

// ---- funnels from the boot device tree -----------------------------------
// The funnel tree depends on the machine's hart count (one funnel takes 16
// inputs; hw_models/qemu/README.md "Device-tree binding"), so the payload
// finds the funnels as software would: the nodes named trace-funnel@<addr>
// in the device tree QEMU passes in a1 (start.S keeps it in boot_fdt).
#define FDT_MAGIC 0xd00dfeedu
#define FDT_OFF_DT_STRUCT 8
#define FDT_BEGIN_NODE 1u
#define FDT_PROP 3u
#define FDT_END 9u
#define MAX_FUNNELS 64u
static uintptr_t funnels[MAX_FUNNELS];
static unsigned nfunnels;

static uint32_t be32(const uint8_t *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static void find_funnels(const uint8_t *fdt)
{
    static const char prefix[] = "trace-funnel@";
    const uint8_t *p;

    if (!fdt || be32(fdt) != FDT_MAGIC) {
        return;
    }
    p = fdt + be32(fdt + FDT_OFF_DT_STRUCT);
    for (;;) {
        uint32_t tok = be32(p);
        p += 4;
        if (tok == FDT_BEGIN_NODE) {
            const char *name = (const char *)p;
            unsigned n = 0, k = 0;
            uintptr_t a = 0;

            while (name[n]) {
                n++;
            }
            while (k < sizeof(prefix) - 1 && name[k] == prefix[k]) {
                k++;
            }
            if (k == sizeof(prefix) - 1 && nfunnels < MAX_FUNNELS) {
                for (; name[k]; k++) {
                    char c = name[k];
                    a = a * 16 + (uintptr_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
                }
                funnels[nfunnels++] = a;
            }
            p += (n + 1 + 3) & ~3u;
        } else if (tok == FDT_PROP) {
            p += 8 + ((be32(p) + 3) & ~3u);
        } else if (tok == FDT_END) {
            break;
        }
    }
}

static int has_top_funnel(void)
{
    unsigned i;

    for (i = 0; i < nfunnels; i++) {
        if (funnels[i] == TR_FUNNEL_BASE) {
            return 1;
        }
    }
    return 0;
}

static unsigned bits_set(uint32_t v)
{
    unsigned n = 0;

    for (; v; v &= v - 1) {
        n++;
    }
    return n;
}

// Every funnel on the way to the sink is active and enabled; the top-level
// one (TR_FUNNEL_BASE) counts the timestamp, the others forward it (Shared).
static void funnels_start(void)
{
    unsigned i, top_inputs = 0, leaf_inputs = 0;

    for (i = 0; i < nfunnels; i++) {
        uintptr_t f = funnels[i];
        uint32_t ts = f == TR_FUNNEL_BASE
                          ? TCI_SET(trTsControl, Mode, TCI_TSMODE_INTERNAL) |
                                TCI_BIT(trTsControl, Count) | TCI_BIT(trTsControl, Reset)
                          : TCI_SET(trTsControl, Mode, TCI_TSMODE_SHARED);
        unsigned inputs;

        tr_reset(f);
        // DisInput is WARL: all ones reads back one bit per existing input
        wr32(f + TCI_trFunnelDisInput, 0xffffu);
        inputs = bits_set(rd32(f + TCI_trFunnelDisInput));
        if (f == TR_FUNNEL_BASE) {
            top_inputs = inputs;
        } else {
            leaf_inputs += inputs;
        }
        wr32(f + TCI_trFunnelDisInput, 0);
        wr32(f + TCI_trTsControl, CFG->ts_control ? TCI_BIT(trControl, Active) | ts : 0);
        wr32(f, TCI_BIT(trControl, Active) | TCI_BIT(trControl, Enable));
    }
    if (nfunnels > 1) {
        // two levels (17..256 harts, every hart traced): a leaf input per
        // hart, a top-level input per leaf funnel
        check_eq("trace: leaf funnels have one input per hart", leaf_inputs, CFG->harts);
        check_eq("trace: the top-level funnel has one input per leaf funnel",
                 top_inputs, nfunnels - 1);
    }
    for (i = 0; CFG->ts_control && i < nfunnels; i++) {
        if (funnels[i] != TR_FUNNEL_BASE) {
            check("trace: a lower funnel forwards the top-level timestamp",
                  rd32(funnels[i] + TCI_trTsCounterLow) != 0);
            break;
        }
    }
}

// Disabling runs from the encoders towards the sink: lower funnels first.
static int funnels_stop(void)
{
    int ok = 1;
    unsigned i;

    for (i = 0; i < nfunnels; i++) {
        if (funnels[i] != TR_FUNNEL_BASE) {
            ok &= tr_disable(funnels[i]);
        }
    }
    return ok & tr_disable(TR_FUNNEL_BASE);
}

// ---- trace programming (TCI 1.0 "Enabling and Disabling") -----------------
static void setup_pmp_and_traps(void)
{
    // S-mode may access everything (PMP entry 0: NAPOT over the whole space)
    __asm__ volatile("csrw pmpaddr0, %0" ::"r"(~0UL));
    __asm__ volatile("csrw pmpcfg0, %0" ::"r"(0x1fUL));
    *(volatile uint64_t *)CLINT_MTIMECMP(hartid()) = ~0ULL;
    __asm__ volatile("csrs mie, %0" ::"r"(MIE_MTIE));
    __asm__ volatile("csrs mstatus, %0" ::"r"(MSTATUS_MIE));
}

// Sdtrig (RISC-V Debug Specification 1.0): tselect/tdata1/tdata2, mcontrol6
#define CSR_TSELECT 0x7a0
#define CSR_TDATA1 0x7a1
#define CSR_TDATA2 0x7a2
#define MC6_TYPE (6UL << 60)
#define MC6_EXEC_MSU ((1UL << 2) | (1UL << 3) | (1UL << 4) | (1UL << 6))
#define MC6_ACTION_SHIFT 12

static void trigger_set(unsigned long idx, unsigned long addr, unsigned long action)
{
    unsigned long t1 = MC6_TYPE | MC6_EXEC_MSU | action << MC6_ACTION_SHIFT, got;

    __asm__ volatile("csrw %0, %1" ::"i"(CSR_TSELECT), "r"(idx));
    __asm__ volatile("csrw %0, %1" ::"i"(CSR_TDATA1), "r"(MC6_TYPE));
    __asm__ volatile("csrw %0, %1" ::"i"(CSR_TDATA2), "r"(addr));
    __asm__ volatile("csrw %0, %1" ::"i"(CSR_TDATA1), "r"(t1));
    __asm__ volatile("csrr %0, %1" : "=r"(got) : "i"(CSR_TDATA1));
    check_eq("trace: mcontrol6 keeps the trace action (read back)", got >> MC6_ACTION_SHIFT & 0xf,
             action);
}

static void triggers_install(void)
{
    trigger_set(0, CFG->trig_on, TCI_TRIGACTION_TRACE_ON);
    trigger_set(1, CFG->trig_off, TCI_TRIGACTION_TRACE_OFF);
}

static void notify_install(void)
{
    trigger_set(0, CFG->trig_notify, TCI_TRIGACTION_TRACE_NOTIFY);
}

static void triggers_remove(void)
{
    for (unsigned long i = 0; i < 2; i++) {
        __asm__ volatile("csrw %0, %1" ::"i"(CSR_TSELECT), "r"(i));
        __asm__ volatile("csrw %0, %1" ::"i"(CSR_TDATA1), "r"(MC6_TYPE));
    }
}

// Comparator comp_slot programmed; the filter 0 bits that use it. Apart
// from encoder_start, whose last store (enabling the trace) the suite
// finds as the last store in its code.
static uint32_t __attribute__((noinline)) comparator_setup(uintptr_t e)
{
    uint32_t fc = 0;
    uintptr_t cj = e + TCI_trTeComp0Control_STRIDE * CFG->comp_slot;

    wr32(cj + TCI_trTeComp0PMatchLow, CFG->comp_pmatch);
    wr32(cj + TCI_trTeComp0PMatchHigh, 0);
    wr32(cj + TCI_trTeComp0SMatchLow, CFG->comp_smatch);
    wr32(cj + TCI_trTeComp0SMatchHigh, 0);
    wr32(cj + TCI_trTeComp0Control, CFG->comp_control);
    check_eq("trace: comparator control reads back", rd32(cj + TCI_trTeComp0Control),
             CFG->comp_control);
    if (CFG->comp_slot == 0) {
        fc |= TCI_BIT(trTeFilter0Control, MatchComp1);
    } else if (CFG->comp_slot == 1) {
        fc |= TCI_BIT(trTeFilter0Control, MatchComp2) | TCI_SET(trTeFilter0Control, Comp2, 1);
    } else {
        fc |= TCI_BIT(trTeFilter0Control, MatchComp3) |
              TCI_SET(trTeFilter0Control, Comp3, CFG->comp_slot);
    }
    return fc;
}

// The triggers start and stop tracing: enabled with InstTracing 0.
static void __attribute__((noinline)) trigger_enable(uintptr_t e, uint32_t c)
{
    c |= TCI_BIT(trTeControl, InstTrigEnable);
    triggers_install();
    wr32(e + TCI_trTeControl, TCI_BIT(trControl, Active) | c);
    check("trace: trTeInstTrigEnable sticks (the hart has Sdtrig)",
          rd32(e + TCI_trTeControl) & TCI_BIT(trTeControl, InstTrigEnable));
    wr32(e + TCI_trTeControl, TCI_BIT(trControl, Active) | c | TCI_BIT(trControl, Enable));
}

static void encoder_start(unsigned h)
{
    uintptr_t e = enc_base(h);
    uint32_t c = CFG->te_control & ~(TCI_BIT(trControl, Active) | TCI_BIT(trControl, Enable) |
                                     TCI_BIT(trTeControl, InstTracing));

    tr_reset(e);
    wr32(e + TCI_trTeInstFeatures, (CFG->inst_features & 0xffffu) |
                                       TCI_SET(trTeInstFeatures, SrcID, h) |
                                       TCI_SET(trTeInstFeatures, SrcBits, SRC_BITS));
    // Filter 0: configured before it is selected in trTeInstFilters
    uint32_t fc = 0;
    if (CFG->filter_priv) {
        fc |= TCI_BIT(trTeFilter0Control, MatchPrivilege);
    }
    if (CFG->filter_ecause) {
        fc |= TCI_BIT(trTeFilter0Control, MatchEcause);
    }
    if (CFG->filter_irq) {
        fc |= TCI_BIT(trTeFilter0Control, MatchInterrupt);
    }
    if (CFG->comp_control) {
        fc |= comparator_setup(e);
    }
    wr32(e + TCI_trTeFilter0MatchInst,
         CFG->filter_priv | (CFG->filter_irq == FILTER_IRQ_INTERRUPTS
                                 ? TCI_BIT(trTeFilter0MatchInst, ValueInterrupt)
                                 : 0));
    wr32(e + TCI_trTeFilter0MatchEcauseLow, CFG->filter_ecause);
    wr32(e + TCI_trTeFilter0MatchEcauseHigh, 0);
    wr32(e + TCI_trTeFilter0Control, fc ? TCI_BIT(trTeFilter0Control, Enable) | fc : 0);
    wr32(e + TCI_trTeInstFilters, fc ? 1 : 0);
    wr32(e + TCI_trTeDataControl, CFG->data_late ? 0 : CFG->data_control);
    wr32(e + TCI_trTeTrigExtInControl, 0);
    wr32(e + TCI_trTsControl, CFG->ts_control);
    if (CFG->loss_test == LOSS_STALL) {
        c |= TCI_BIT(trTeControl, InstStallEna);
    }
    /* trTeFormat is WARL with E-Trace (0) settable: ask for the one wanted. */
    c |= TCI_SET(trTeControl, Format, CFG->etrace ? TCI_FORMAT_ETRACE : TCI_FORMAT_NTRACE);
    wr32(e + TCI_trTeControl, TCI_BIT(trControl, Active) | c);
    if (h == 0 && CFG->data_control && !CFG->data_late) {
        // Data trace exists with E-Trace only (N-Trace 1.0: every trTeData
        // field 0); address compression is E-Trace's own (protocol defined).
        uint32_t d = rd32(e + TCI_trTeDataControl);
        check_eq("trace: trTeDataControl reads back with E-Trace",
                 d & (TCI_BIT(trTeDataControl, Implemented) | TCI_BIT(trTeDataControl, Tracing) |
                      TCI_BIT(trTeDataControl, AddrCompress) | TCI_BIT(trTeDataControl, StallEna) |
                      TCI_BIT(trTeDataControl, TrigEnable) | TCI_BIT(trTeDataControl, DropEna)),
                 CFG->etrace ? TCI_BIT(trTeDataControl, Implemented) | TCI_BIT(trTeDataControl, Tracing) |
                                   TCI_SET(trTeDataControl, AddrCompress, TCI_DADDRCOMPRESS_PROTOCOL)
                             : 0);
    }
    if (CFG->trig_on) {
        trigger_enable(e, c);
        return;
    }
    if (CFG->trig_notify && h == 0) {
        notify_install();
    }
    wr32(e + TCI_trTeControl, TCI_BIT(trControl, Active) | c | TCI_BIT(trControl, Enable));
    wr32(e + TCI_trTeControl, TCI_BIT(trControl, Active) | c | TCI_BIT(trControl, Enable) |
                                  TCI_BIT(trTeControl, InstTracing));
}

// Data trace switched on while instruction trace runs (the encoder says so
// in a support packet); the first access traced is the next instruction's.
static void __attribute__((noinline)) data_enable(unsigned h)
{
    wr32(enc_base(h) + TCI_trTeDataControl, CFG->data_control);
}

static void sink_arm(void)
{
    uintptr_t r = TR_RAMSINK_BASE;

    if (CFG->sink_smem) {
        wr32(r, TCI_BIT(trControl, Active) | TCI_SET(trRamControl, Mode, TCI_RAMMODE_SMEM));
        wr32(r + TCI_trRamStartHigh, 0);
        wr32(r + TCI_trRamStartLow, (uint32_t)SMEM_BASE);
        wr32(r + TCI_trRamLimitHigh, 0);
        wr32(r + TCI_trRamLimitLow, (uint32_t)SMEM_LIMIT);
        wr32(r + TCI_trRamWPHigh, 0);
        wr32(r + TCI_trRamWPLow, (uint32_t)SMEM_BASE);
        wr32(r, TCI_BIT(trControl, Active) | TCI_SET(trRamControl, Mode, TCI_RAMMODE_SMEM) |
                    TCI_BIT(trControl, Enable));
    } else {
        uint32_t stop = CFG->loss_test ? TCI_BIT(trRamControl, StopOnWrap) : 0; // both loss kinds
        wr32(r, TCI_BIT(trControl, Active));
        wr32(r + TCI_trRamLimitLow, CFG->loss_test ? LOSS_LIMIT : 0xfffcu);
        wr32(r + TCI_trRamWPLow, 0);
        wr32(r, TCI_BIT(trControl, Active) | stop | TCI_BIT(trControl, Enable));
    }
}

// Copy the captured bytes (oldest first) into dumpbuf or return SMEM pointer.
static const uint8_t *sink_read(uint32_t *len)
{
    uintptr_t r = TR_RAMSINK_BASE;
    uint64_t start = rd32(r + TCI_trRamStartLow) | ((uint64_t)rd32(r + TCI_trRamStartHigh) << 32);
    uint64_t limit = rd32(r + TCI_trRamLimitLow) | ((uint64_t)rd32(r + TCI_trRamLimitHigh) << 32);
    uint64_t wpreg = rd32(r + TCI_trRamWPLow) | ((uint64_t)rd32(r + TCI_trRamWPHigh) << 32);
    uint64_t wp = wpreg & ~(uint64_t)(TCI_RAM_ADDR_ALIGN - 1);
    int wrapped = wpreg & TCI_BIT(trRamWPLow, Wrap);

    if (CFG->sink_smem) {
        if (wrapped) {
            puts_("FAIL: trace: SMEM buffer wrapped\n");
            test_failures++;
        }
        *len = (uint32_t)(wp - start);
        return (const uint8_t *)(uintptr_t)start;
    }
    uint32_t n = 0;
    uint64_t a = wrapped ? wp : start;
    uint64_t words = wrapped ? (limit + 4 - start) / 4 : (wp - start) / 4;
    wr32(r + TCI_trRamRPLow, (uint32_t)a);
    for (uint64_t i = 0; i < words; i++) {
        uint32_t w = rd32(r + TCI_trRamData);
        for (int b = 0; b < 4; b++) {
            dumpbuf[n++] = (uint8_t)(w >> (8 * b));
        }
    }
    *len = n;
    return dumpbuf;
}

// Copy the SRAM words [Start, WP) -- or the whole buffer when wrapped -- to COLLECT.
static void drain_copy(void)
{
    uint32_t len;
    const uint8_t *p = sink_read(&len);
    for (uint32_t i = 0; i < len; i++) {
        COLLECT[collected + i] = p[i];
    }
    collected += len;
}

// Hart 1 in the stall test: whenever StopOnWrap stopped the full sink, read
// it out and restart it; the stalled encoder then continues without loss.
static void drainer(void)
{
    uintptr_t r = TR_RAMSINK_BASE;

    while (!drain_stop) {
        if ((rd32(r) & (TCI_BIT(trControl, Active) | TCI_BIT(trControl, Enable))) ==
            TCI_BIT(trControl, Active)) {
            drain_copy();
            wr32(r + TCI_trRamWPLow, 0);
            wr32(r, TCI_BIT(trControl, Active) | TCI_BIT(trRamControl, StopOnWrap) |
                        TCI_BIT(trControl, Enable));
            drains++;
        }
    }
    drain_idle = 1;
}

void secondary_main(void)
{
    unsigned h = hartid();

    trap_hook = on_trap;
    while (!go) {
    }
    if (h == 1 && CFG->loss_test == LOSS_STALL) {
        drainer();
        return;
    }
    if (h >= CFG->harts) {
        return;
    }
    setup_pmp_and_traps();
    encoder_start(h);
    if (CFG->data_late) {
        data_enable(h);
    }
    workload(CFG->iterations);
    tr_disable(enc_base(h));
    __atomic_fetch_add(&done_count, 1, __ATOMIC_SEQ_CST);
}

static void loss_rearm_check(void)
{
    uintptr_t r = TR_RAMSINK_BASE;
    uint32_t c = rd32(r);
    uint32_t first;

    check("trace: StopOnWrap disabled the full sink", !(c & TCI_BIT(trControl, Enable)));
    check_eq("trace: WP back at Start with Wrap after the word at Limit", rd32(r + TCI_trRamWPLow),
             TCI_BIT(trRamWPLow, Wrap));
    wr32(r + TCI_trRamRPLow, LOSS_LIMIT);
    first = rd32(r + TCI_trRamData);
    check("trace: the word at Limit (inclusive) was written", first != 0);
    check("trace: encoder reports the overflow",
          rd32(enc_base(0)) & TCI_BIT(trTeControl, InstStallOrOverflow));
    // re-arm with the whole SRAM: the encoder resumes with Error + SYNC=7
    wr32(r + TCI_trRamLimitLow, 0xfffcu);
    wr32(r + TCI_trRamWPLow, 0);
    wr32(r, TCI_BIT(trControl, Active) | TCI_BIT(trControl, Enable));
}

int main(void)
{
    uint32_t len;
    const uint8_t *p;

    trap_hook = on_trap;
    if (CFG->magic != CFG_MAGIC) {
        CFG->te_control = TCI_SET(trTeControl, InstMode, TCI_INSTMODE_HTM);
        CFG->inst_features = 0;
        CFG->iterations = 64;
        CFG->sink_smem = 0;
        CFG->harts = 1;
        CFG->ts_control = 0;
        CFG->loss_test = 0;
        CFG->kernel = 0;
        CFG->filter_priv = 0;
        CFG->filter_ecause = 0;
        CFG->filter_irq = 0;
        CFG->etrace = 0;
        CFG->data_control = 0;
        CFG->data_late = 0;
        CFG->comp_control = 0;
        CFG->trig_on = 0;
        CFG->trig_notify = 0;
    }
    setup_pmp_and_traps();
    // sink, then funnel, then encoders
    tr_reset(TR_RAMSINK_BASE);
    check("trace: sink reports version 1.0 RAM sink",
          (rd32(TR_RAMSINK_BASE + TCI_trRamImpl) &
           (TCI_BIT(trImpl, VerMajor) | TCI_BIT(trImpl, VerMinor) | TCI_BIT(trImpl, CompType))) ==
              (TCI_SET(trImpl, VerMajor, TCI_VERSION_MAJOR) |
               TCI_SET(trImpl, CompType, TCI_COMPTYPE_RAMSINK)));
    sink_arm();
    find_funnels((const uint8_t *)boot_fdt);
    check("trace: the device tree lists the top-level funnel", has_top_funnel());
    check("trace: harts traced fit the payload", CFG->harts >= 1 && CFG->harts <= MAX_HARTS);
    funnels_start();
    go = 1;
    encoder_start(0);
    if (CFG->data_late) {
        data_enable(0);
    }
    if (CFG->loss_test == LOSS_DROP) {
        workload(CFG->iterations);
        loss_rearm_check();
    }
    workload(CFG->iterations);
    if (CFG->trig_on || CFG->trig_notify) {
        triggers_remove();
    }
    check("trace: encoder disable flushes (Enable=0, Empty=1)", tr_disable(enc_base(0)));
    if (CFG->loss_test == LOSS_STALL) {
        drain_stop = 1;
        while (!drain_idle) {
        }
        check("trace: the sink filled and was drained while the hart stalled", drains > 0);
        check("trace: InstStallOrOverflow reports the stall",
              rd32(enc_base(0)) & TCI_BIT(trTeControl, InstStallOrOverflow));
    }
    while (done_count + 1 < CFG->harts) {
    }
    check("trace: funnel disable", funnels_stop());
    check("trace: sink disable flushes (Empty=1)", tr_disable(TR_RAMSINK_BASE));
    if (!CFG->kernel) {
        check("trace: ecall exceptions taken", ecalls[0] > 0);
        check("trace: timer interrupts taken", ticks[0] > 0);
    }
    if (TCI_GET(CFG->te_control, trTeControl, InstMode) == TCI_INSTMODE_OFF) {
        return 0;   // benchmark baseline: nothing traced
    }
    p = sink_read(&len);
    if (CFG->loss_test == LOSS_STALL) {
        drain_copy();
        p = COLLECT;
        len = collected;
        check_eq("trace: no data lost: stream starts with ProgTraceSync", p[0] >> 2, NT_TCODE_ProgTraceSync);
    }
    check("trace: sink captured data", len > 0);
    if (CFG->loss_test == LOSS_DROP) {
        unsigned i = 0;
        check_eq("trace: first message after the gap is Error", p[0] >> 2, NT_TCODE_Error);
        while (i < len && (p[i] & 3) != 3) {
            i++;
        }
        i++;
        // next message: a synchronizing one with SYNC=7 after the 4 SRC bits
        check("trace: then a synchronizing message",
              i < len && ((p[i] >> 2) == NT_TCODE_DirectBranchSync ||
                          (p[i] >> 2) == NT_TCODE_IndirectBranchSync ||
                          (p[i] >> 2) == NT_TCODE_ProgTraceSync));
        // MDO bits after TCODE: SRC[3:0], then SYNC[1:0] in this byte, SYNC[3:2] next
        check_eq("trace: with SYNC=7 (restart from FIFO overrun)",
                 i + 2 < len ? (uint32_t)(((p[i + 1] >> 6) & 3) | (((p[i + 2] >> 2) & 3) << 2)) : 0,
                 NT_SYNC_FIFO_OVERRUN);
    }
    write_host_file("trace.bin", p, len);
    puts_("trace bytes: ");
    putdec(len);
    puts_("\n");
    return 0;
}
