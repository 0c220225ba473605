// SPDX-License-Identifier: BSD-2-Clause
// The firmware's SBI trace extension (firmware/trace/README.md): every
// function and error case, then traced runs whose bytes go to the host
// (QEMU semihosting) so tests/suites/55-trace-fw.sh decodes them and
// compares them with the instructions the insnlog plugin saw executed:
//   trace-htm.bin   HTM of S-mode on every hart, SMEM sink
//   trace-btm.bin   BTM of S-mode on every hart, SMEM sink
//   trace-etrace.bin E-Trace of S-mode on every hart, SMEM sink
//   trace-etrace-data.bin the same with data trace (every load and store)
//   trace-sram.bin  HTM on the boot hart into the SRAM, read with READ_SRAM
//   trace-hsm.bin   HTM of the last secondary across an HSM suspend, stop and start
//   trace-range.bin HTM of the boot hart filtered to an address range (SET_FILTER)
//   trace-svc-trig.bin HTM of the boot hart started and stopped by the
//                   Sdtrig trace-on/off triggers S-mode installed through DBTR
//   handed.dtb      the device tree the firmware handed on (trace
//                   components M-mode keeps are disabled in it)
// On a machine without trace components the extension is absent: probe 0
// and NOT_SUPPORTED. When S-mode owns the components (the default; the SBI
// trace service needs /chosen tsbi,trace-owner = "m-mode") the payload
// drives an encoder and the sink itself, as a driver that knows no funnel:
//   trace-owner.bin its hart's HTM trace, from the SRAM
//   trace-owner-trig.bin the same started and stopped by Sdtrig trace-on
//                   and trace-off triggers S-mode installed through SBI DBTR
#include "payload.hpp"
#include "workload.hpp"
#include "riscv/csr.hpp"
#include "tci_regs.h"
#include "trace/service.hpp"
#include "sbi/dbtr_logic.hpp"

using namespace pl;

PAYLOAD_NAME("trace");

namespace {

namespace cfg = trace::cfg;
namespace caps = trace::caps;
namespace sinkflag = trace::sinkflag;
constexpr long EID = sbi::eid::tsbi_trace;
enum : long { GET_CAPS, CONFIGURE, SET_SINK, START, STOP, GET_STATUS, READ_SRAM, SET_FILTER };
constexpr long ERR_INVALID_STATE = code(sbi::Error::InvalidState);
constexpr unsigned long HTM = 6, BTM = 3;
constexpr unsigned long ALL = ~0ul; // hart_mask_base: every hart

SbiRet call(long fid, unsigned long a0 = 0, unsigned long a1 = 0, unsigned long a2 = 0,
            unsigned long a3 = 0, unsigned long a4 = 0) {
    return sbi_call(EID, fid, a0, a1, a2, a3, a4);
}

// The SMEM buffer: well above the payload image, inside the first RAM range.
unsigned long smem_base() { return platform().ram_base + 0x4000000; }
constexpr unsigned long kSmemSize = 0x800000;

// ---- workload (lib/workload.hpp), then a timer interrupt.
void workload(unsigned rounds, bool timer = true) {
    unsigned long h = hartid();
    workload_rounds(rounds);
    if (!timer) return;
    // A timer interrupt taken in S-mode (with Sstc no M-mode is involved;
    // without it the firmware's M-mode timer handler runs in between),
    // waited for in WFI: every turn of a spinning wait is traced, as many as
    // the host runs the hart before it delivers the interrupt. With SIE off
    // WFI still wakes for the pending STI; SIE on for a moment takes it.
    unsigned long before = irq_state(h).sti;
    bool was = irq_enable(false);
    sie_set(1ul << csr::irq::STI);
    sbi_set_timer(rdtime() + us_to_ticks(200));
    while (irq_state(h).sti == before) {
        asm volatile("wfi");
        irq_enable(true);
        irq_enable(false);
    }
    sie_clear(1ul << csr::irq::STI);
    irq_enable(was);
}

void work_job(void *arg) { workload(static_cast<unsigned>(reinterpret_cast<unsigned long>(arg))); }


// A retentive HSM suspend until an IPI: the hart waits in M-mode, which the
// S-mode trace leaves out.
void suspend_until_ipi() {
    bool was = irq_enable(false);
    sbi_hart_suspend(suspend_type::default_retentive, 0, 0);
    irq_enable(was); // takes the IPI
}
struct TracedWork {
    unsigned rounds;
    volatile unsigned long done[kMaxHarts];
};
void traced_work_job(void *arg) {
    auto *w = static_cast<TracedWork *>(arg);
    csr_clear(csr::sip, 1ul << csr::irq::SSI); // a stale IPI must not end the first wait
    suspend_until_ipi();           // until the trace runs
    workload(w->rounds);
    w->done[hart_index(hartid())] = 1;
    sbi_send_ipi(1, platform().boot_hartid);
    suspend_until_ipi();           // until the trace stopped
}
bool all_suspended() {
    for (unsigned i = 0; i + 1 < platform().nharts; i++)
        if (sbi_hart_get_status(secondary_hartid(i)).value != hsm_state::suspended) return false;
    return true;
}
void wake_secondaries() {
    for (unsigned i = 0; i + 1 < platform().nharts; i++) sbi_send_ipi(1, secondary_hartid(i));
}
// Waits in WFI until pred() or timeout_us: the IPIs that make pred() true
// wake the hart, or a timer at the timeout. With SIE off WFI still wakes
// for a pending interrupt; SIE on for a moment takes it.
template <typename Pred> bool wfi_until(Pred pred, unsigned long timeout_us) {
    const unsigned long start = rdtime(), ticks = us_to_ticks(timeout_us);
    bool was = irq_enable(false);
    sie_set(1ul << csr::irq::STI);
    sbi_set_timer(start + ticks);
    bool ok;
    while (!(ok = pred()) && rdtime() - start <= ticks) {
        asm volatile("wfi");
        irq_enable(true);
        irq_enable(false);
    }
    sie_clear(1ul << csr::irq::STI);
    sbi_set_timer(~0ull);
    irq_enable(was);
    return ok;
}

// Every started hart runs the workload between start(), which starts the
// trace, and stop(). Nothing spins while traced: the secondaries wait for
// start and stop suspended, the boot hart for their work in WFI. A traced
// wait loop records every turn, as many as the host runs the waiting hart,
// and 18 harts on a loaded 2-core host once wrapped the 8 MiB buffer so.
template <typename Start, typename Stop>
void work_everywhere(const char *file, unsigned rounds, Start start, Stop stop) {
    const Platform &p = platform();
    static TracedWork w;
    w.rounds = rounds;
    for (unsigned i = 0; i < kMaxHarts; i++) w.done[i] = 0;
    for (unsigned i = 0; i + 1 < p.nharts; i++) post_job(secondary_hartid(i), traced_work_job, &w);
    expect_true(wait_until(all_suspended, kPatience), "%s/work/secondaries_waiting", file);
    start();
    wake_secondaries();
    workload(rounds);
    expect_true(wfi_until([] {
        for (unsigned i = 0; i + 1 < platform().nharts; i++)
            if (!w.done[hart_index(secondary_hartid(i))]) return false;
        return true;
    }, 20000000), "%s/work/secondaries_done", file);
    stop();
    wake_secondaries();
    for (unsigned i = 0; i + 1 < p.nharts; i++)
        expect_true(wait_job(secondary_hartid(i)), "%s/work/%lu/done", file, secondary_hartid(i));
}

// ---- semihosting (QEMU -semihosting): writes host files from S-mode.
} // namespace
// The RISC-V semihosting sequence (slli/ebreak/srai): uncompressed, in one
// 16-byte aligned block so the three words share a page.
asm(".pushsection .text\n.option push\n.option norvc\n.option norelax\n.balign 16\n"
    ".globl trace_semihost\ntrace_semihost:\n"
    "slli x0, x0, 0x1f\nebreak\nsrai x0, x0, 7\nret\n.option pop\n.popsection");
extern "C" long trace_semihost(long op, void *arg);
namespace {
long semihost(long op, void *arg) { return trace_semihost(op, arg); }

void write_host(const char *name, const void *p, unsigned long len) {
    unsigned long open_args[3] = {reinterpret_cast<unsigned long>(name), 5 /* "wb" */, strlen(name)};
    long fd = semihost(0x01, open_args);
    unsigned long wargs[3] = {static_cast<unsigned long>(fd), reinterpret_cast<unsigned long>(p), len};
    bool ok = fd >= 0 && semihost(0x05, wargs) == 0;
    semihost(0x02, &fd);
    expect_true(ok, "host_file/%s", name);
    printf("TRACE-FILE: %s %lu\n", name, len);
}

// The status words name harts hart_base .. hart_base + 63 (README,
// trace_get_status): `base_of(h)` and `bit_of(h)` place hart h there.
unsigned long base_of(unsigned long h) { return h & ~63ul; }
uint64_t bit_of(unsigned long h) { return 1ull << (h % 64); }
trace::Status status(unsigned long hart_base = 0) {
    static trace::Status s;
    SbiRet r = call(GET_STATUS, reinterpret_cast<unsigned long>(&s), 0, hart_base);
    expect_err(r, SUCCESS, "status/%lu/error", static_cast<unsigned long>(passed_count() + failed_count()));
    return s;
}

// ---- the function and error table ---------------------------------------------
void errors(unsigned long caps0) {
    const Platform &p = platform();
    unsigned long self = hartid();
    unsigned long ok_cfg = HTM | cfg::PRIV_S;

    // GET_CAPS
    expect_err(call(GET_CAPS, p.max_hartid + 1), ERR_INVALID_PARAM, "caps/invalid_hart");
    expect_err(call(GET_CAPS, ~0ul), ERR_INVALID_PARAM, "caps/hart_all_ones");
    for (unsigned i = 0; i < p.nharts; i++)
        expect_eq(call(GET_CAPS, p.hartids[i]).value, caps0, "caps/hart%lu_same_as_boot", p.hartids[i]);

    // CONFIGURE
    expect_err(call(CONFIGURE, 1, self, ok_cfg | (1u << 24)), ERR_INVALID_PARAM, "configure/reserved_bit24");
    expect_err(call(CONFIGURE, 1, self, ok_cfg | (1u << 31)), ERR_INVALID_PARAM, "configure/reserved_bit31");
    static const unsigned long bad_modes[] = {0, 1, 2, 4, 5, 7};
    for (unsigned long m : bad_modes)
        expect_err(call(CONFIGURE, 1, self, m | cfg::PRIV_S), ERR_INVALID_PARAM, "configure/mode%lu", m);
    expect_err(call(CONFIGURE, 1, self, HTM), ERR_INVALID_PARAM, "configure/no_privilege");
    expect_err(call(CONFIGURE, 1, self, ok_cfg | (2u << cfg::IRET_MODE_SHIFT)), ERR_INVALID_PARAM,
               "configure/iret_mode_without_enable");
    expect_err(call(CONFIGURE, 1, self, ok_cfg | (5u << cfg::SYNC_MAX_SHIFT)), ERR_INVALID_PARAM,
               "configure/sync_max_without_mode");
    expect_err(call(CONFIGURE, 1, p.max_hartid + 1, ok_cfg), ERR_INVALID_PARAM, "configure/invalid_hart");
    expect_err(call(CONFIGURE, 1ul << 63, 1, ok_cfg), ERR_INVALID_PARAM, "configure/mask_base_overflow");
    // The configuration word is 32 bits: the upper half of a2 is ignored.
    expect_err(call(CONFIGURE, 1, self, ok_cfg | (0xdeadul << 40)), SUCCESS, "configure/upper_bits_ignored");
    expect_err(call(CONFIGURE, 0, 0, ok_cfg), SUCCESS, "configure/empty_mask");

    // SET_SINK
    unsigned long b = smem_base();
    expect_err(call(SET_SINK, sinkflag::SMEM | 4), ERR_INVALID_PARAM, "sink/reserved_flag");
    expect_err(call(SET_SINK, sinkflag::SMEM, b + 2, 0, 4096), ERR_INVALID_PARAM, "sink/misaligned_addr");
    expect_err(call(SET_SINK, sinkflag::SMEM, b, 0, 4094), ERR_INVALID_PARAM, "sink/misaligned_size");
    expect_err(call(SET_SINK, sinkflag::SMEM, b, 0, 0), ERR_INVALID_PARAM, "sink/size_zero");
    expect_err(call(SET_SINK, sinkflag::SMEM, p.fw_base, 0, 4096), ERR_INVALID_ADDRESS, "sink/firmware");
    expect_err(call(SET_SINK, sinkflag::SMEM, p.fw_base + p.fw_size - 4096, 0, 8192), ERR_INVALID_ADDRESS,
               "sink/straddles_firmware_end");
    expect_err(call(SET_SINK, sinkflag::SMEM, p.ram_base + p.ram_size - 4096, 0, 8192),
               ERR_INVALID_ADDRESS, "sink/straddles_ram_end");
    expect_err(call(SET_SINK, sinkflag::SMEM, 0x10000000, 0, 4096), ERR_INVALID_ADDRESS, "sink/mmio");
    expect_err(call(SET_SINK, sinkflag::SMEM, ~0ul - 4095, 0, 8192), ERR_INVALID_ADDRESS, "sink/wraps");
    expect_err(call(SET_SINK, sinkflag::SMEM, b, 1, 4096), ERR_INVALID_ADDRESS, "sink/addr_hi");
    expect_err(call(SET_SINK, sinkflag::SMEM, b, 0, ~0ul & ~3ul), ERR_INVALID_ADDRESS, "sink/huge");
    expect_err(call(SET_SINK, 0, b, 0, 0), ERR_INVALID_PARAM, "sink/sram_with_address");
    expect_err(call(SET_SINK, 0, 0, 0, 4096), ERR_INVALID_PARAM, "sink/sram_with_size");

    // START/STOP before a sink or a configuration
    expect_err(call(START, 1, self), ERR_INVALID_STATE, "start/no_sink");
    expect_err(call(SET_SINK, 0), SUCCESS, "sink/sram");
    if (p.nharts > 1) {
        unsigned long other = last_secondary();
        // Not configured since boot: start refuses, nothing starts.
        expect_err(call(START, 1, other), ERR_INVALID_STATE, "start/unconfigured");
    }
    expect_err(call(START, 1, p.max_hartid + 1), ERR_INVALID_PARAM, "start/invalid_hart");
    expect_err(call(STOP, 1, self), ERR_ALREADY_STOPPED, "stop/not_started");
    expect_err(call(STOP, 1, p.max_hartid + 1), ERR_INVALID_PARAM, "stop/invalid_hart");

    // GET_STATUS and READ_SRAM addresses
    expect_err(call(GET_STATUS, b + 4), ERR_INVALID_PARAM, "status/misaligned");
    expect_err(call(GET_STATUS, p.fw_base), ERR_INVALID_ADDRESS, "status/firmware");
    expect_err(call(GET_STATUS, b, 1), ERR_INVALID_ADDRESS, "status/addr_hi");
    expect_err(call(GET_STATUS, p.ram_base + p.ram_size - 32), ERR_INVALID_ADDRESS, "status/straddles_ram_end");
    expect_err(call(READ_SRAM, 0, p.fw_base, 0, 64), ERR_INVALID_ADDRESS, "read_sram/firmware");
    expect_err(call(READ_SRAM, 0, b, 1, 64), ERR_INVALID_ADDRESS, "read_sram/addr_hi");
    expect_ret(call(READ_SRAM, 0, 0, 0, 0), SUCCESS, 0, "read_sram/size_zero");

    // A running trace refuses reconfiguration, a second start and SRAM reads.
    expect_err(call(START, 1, self), SUCCESS, "start/self");
    expect_err(call(START, 1, self), ERR_ALREADY_STARTED, "start/twice");
    expect_err(call(CONFIGURE, 1, self, ok_cfg), ERR_ALREADY_STARTED, "configure/while_tracing");
    expect_err(call(SET_SINK, 0), ERR_ALREADY_STARTED, "sink/while_tracing");
    expect_err(call(READ_SRAM, 0, b, 0, 64), ERR_ALREADY_STARTED, "read_sram/while_tracing");
    trace::Status s = status(base_of(self));
    expect_true(s.flags & trace::STATUS_SINK_ENABLED, "status/running/sink_enabled");
    expect_eq(s.harts, bit_of(self), "status/running/harts");
    expect_err(call(STOP, 1, self), SUCCESS, "stop/self");
    expect_err(call(STOP, 1, self), ERR_ALREADY_STOPPED, "stop/twice");
    s = status();
    expect_eq(s.flags & trace::STATUS_SINK_ENABLED, 0, "status/stopped/sink_disabled");
    expect_eq(status(base_of(self)).harts, 0, "status/stopped/harts");
    expect_true(s.bytes > 0, "status/stopped/bytes");
    expect_alive("errors");
}

// ---- traced runs -------------------------------------------------------------
void traced_run(const char *file, unsigned long config, unsigned rounds) {
    expect_err(call(CONFIGURE, 0, ALL, config), SUCCESS, "%s/configure", file);
    expect_err(call(SET_SINK, sinkflag::SMEM, smem_base(), 0, kSmemSize), SUCCESS, "%s/sink", file);
    work_everywhere(file, rounds, [&] { expect_err(call(START, 0, ALL), SUCCESS, "%s/start", file); },
                    [&] { expect_err(call(STOP, 0, ALL), SUCCESS, "%s/stop", file); });
    trace::Status s = status();
    expect_eq(s.flags & (trace::STATUS_WRAPPED | trace::STATUS_LOST), 0, "%s/no_wrap_no_loss", file);
    expect_eq(s.start, smem_base(), "%s/status_start", file);
    expect_eq(s.limit, smem_base() + kSmemSize - 4, "%s/status_limit", file);
    expect_eq(s.write_pointer, smem_base() + s.bytes, "%s/status_bytes", file);
    expect_true(s.bytes > 0, "%s/captured", file);
    write_host(file, reinterpret_cast<const void *>(smem_base()), s.bytes);
}

uint8_t sram_copy[0x10000];

// The device tree's totalsize (big-endian, at offset 4).
unsigned long fdt_size() {
    auto *u = reinterpret_cast<const uint8_t *>(platform().fdt) + 4;
    return (unsigned long)u[0] << 24 | u[1] << 16 | u[2] << 8 | u[3];
}

void sram_run() {
    unsigned long self = hartid();
    expect_err(call(CONFIGURE, 1, self, HTM | cfg::PRIV_S), SUCCESS, "sram/configure");
    expect_err(call(SET_SINK, 0), SUCCESS, "sram/sink");
    expect_err(call(START, 1, self), SUCCESS, "sram/start");
    // No timer wait: a slow host (the plugin) makes the wait loop long,
    // and the 64 KiB SRAM must not wrap.
    workload(8, false);
    expect_err(call(STOP, 1, self), SUCCESS, "sram/stop");
    trace::Status s = status();
    expect_eq(s.flags & (trace::STATUS_WRAPPED | trace::STATUS_SMEM), 0, "sram/status_flags");
    // In two pieces, the second from an odd offset, to check the offsets.
    unsigned long half = s.bytes / 2 + 1;
    SbiRet r = call(READ_SRAM, 0, reinterpret_cast<unsigned long>(sram_copy), 0, half);
    expect_ret(r, SUCCESS, half, "sram/read_first");
    r = call(READ_SRAM, half, reinterpret_cast<unsigned long>(sram_copy + half), 0, sizeof sram_copy - half);
    expect_ret(r, SUCCESS, s.bytes - half, "sram/read_rest");
    expect_ret(call(READ_SRAM, s.bytes, reinterpret_cast<unsigned long>(sram_copy), 0, 16), SUCCESS, 0,
               "sram/read_past_end");
    expect_err(call(SET_SINK, sinkflag::SMEM, smem_base(), 0, kSmemSize), SUCCESS, "sram/smem_again");
    expect_err(call(READ_SRAM, 0, reinterpret_cast<unsigned long>(sram_copy), 0, 16), ERR_INVALID_STATE,
               "read_sram/smem_sink");
    write_host("trace-sram.bin", sram_copy, s.bytes);
}

// A small SMEM buffer: wrapping, and with StopOnWrap a full buffer that
// stops capturing, so the encoder loses data (TCI 1.0 trRamStopOnWrap,
// trTeInstStallOrOverflow) and status says so.
void wrap_run() {
    unsigned long self = hartid();
    expect_err(call(CONFIGURE, 1, self, HTM | cfg::PRIV_S), SUCCESS, "wrap/configure");
    expect_err(call(SET_SINK, sinkflag::SMEM, smem_base(), 0, 1024), SUCCESS, "wrap/sink");
    expect_err(call(START, 1, self), SUCCESS, "wrap/start");
    workload(32, false);
    expect_err(call(STOP, 1, self), SUCCESS, "wrap/stop");
    trace::Status s = status();
    expect_eq(s.flags & (trace::STATUS_WRAPPED | trace::STATUS_LOST), trace::STATUS_WRAPPED,
              "wrap/wrapped_no_loss");
    expect_eq(s.bytes, 1024, "wrap/bytes_whole_buffer");
    expect_err(call(SET_SINK, sinkflag::SMEM | sinkflag::STOP_ON_WRAP, smem_base(), 0, 1024), SUCCESS,
               "stop_on_wrap/sink");
    expect_err(call(START, 1, self), SUCCESS, "stop_on_wrap/start");
    workload(32, false);
    s = status(base_of(self));
    expect_eq(s.flags & trace::STATUS_SINK_ENABLED, 0, "stop_on_wrap/sink_stopped_itself");
    expect_eq(s.lost_harts, bit_of(self), "stop_on_wrap/lost_reported");
    expect_true(s.flags & trace::STATUS_LOST, "stop_on_wrap/lost_flag");
    expect_err(call(STOP, 1, self), SUCCESS, "stop_on_wrap/stop");
}

// The last secondary traces, stops (HSM), is started again and traces on.
void hsm_run() {
    unsigned long h = last_secondary();
    expect_err(call(CONFIGURE, 1, h, HTM | cfg::PRIV_S), SUCCESS, "hsm/configure");
    expect_err(call(SET_SINK, sinkflag::SMEM, smem_base(), 0, kSmemSize), SUCCESS, "hsm/sink");
    // Everything the traced hart does up to its stop is one job, and the
    // boot hart prints nothing while that hart is traced: it would wait in
    // the job loop meanwhile, whose every turn the trace records (as many
    // as the host runs it while the boot hart's console output crawls).
    static volatile long suspend_err = 1;
    static volatile bool worked_before, worked_after_suspend;
    SbiRet started = call(START, 1, h);
    post_job(h, [](void *) {
        workload(16);
        worked_before = true;
        // A retentive suspend woken by the hart's timer: the encoder is
        // flushed and restarted around it (a synchronizing message after
        // the resume). Interrupts off, then the deadline (which clears a
        // stale STIP), then STIE: the suspend must end by this timer.
        bool was = irq_enable(false);
        sbi_set_timer(rdtime() + us_to_ticks(300));
        sie_set(1ul << csr::irq::STI);
        suspend_err = sbi_hart_suspend(suspend_type::default_retentive, 0, 0).error;
        irq_enable(true); // take the timer interrupt (the handler masks STIE)
        irq_enable(was);
        sbi_set_timer(~0ull);
        workload(4);
        worked_after_suspend = true;
        sbi_call(eid::hsm, fid::hsm::hart_stop);
    }, nullptr);
    bool stopped = wait_until([&] { return sbi_hart_get_status(h).value == hsm_state::stopped; },
                              40000000);
    expect_err(started, SUCCESS, "hsm/start");
    expect_true(worked_before, "hsm/work_before");
    expect_true(worked_after_suspend, "hsm/suspend_and_work");
    expect_eq(suspend_err, SUCCESS, "hsm/suspend_resumed");
    expect_true(stopped, "hsm/stopped");
    trace::Status s = status();
    expect_eq(status(base_of(h)).harts, bit_of(h), "hsm/still_wanted_while_stopped");
    reset_checkin(h);
    SbiRet restarted = sbi_hart_start(h, secondary_entry(), secondary_opaque(h));
    bool back = wait_until([&] { return secondary_checked_in(h); }, kPatience);
    bool worked_after = run_on(h, work_job, reinterpret_cast<void *>(16ul), 20000000);
    SbiRet stop = call(STOP, 1, h);
    expect_err(restarted, SUCCESS, "hsm/restart");
    expect_true(back, "hsm/back");
    expect_true(worked_after, "hsm/work_after");
    expect_err(stop, SUCCESS, "hsm/stop");
    s = status();
    write_host("trace-hsm.bin", reinterpret_cast<const void *>(smem_base()), s.bytes);
}

// QEMU virt's trace components (hw_models/qemu/README.md): encoder i is
// hart i's.
constexpr unsigned long kEncoder0 = 0x3020000, kFunnel = 0x6000000, kSink = 0x6001000;

// The device tree's blob holds the n bytes at p (a plain search).
bool dt_has(const char *p, unsigned long n) {
    auto *b = reinterpret_cast<const char *>(platform().fdt);
    for (unsigned long i = 0; i + n <= fdt_size(); i++)
        if (memcmp(b + i, p, n) == 0) return true;
    return false;
}
// The device tree names trace components.
bool dt_has_trace() {
    static const char want[] = "riscv,trace-component";
    return dt_has(want, sizeof want);
}
// A funnel node: without one (virt,trace-funnels=off) hart h's RAM sink is
// at kSink (h = 0) or in the funnels' range (hw_models/qemu/README.md).
bool dt_has_funnel() {
    static const char name[] = "trace-funnel@";
    return dt_has(name, sizeof name - 1);
}

uint32_t rd32(unsigned long a) { return *reinterpret_cast<volatile uint32_t *>(a); }
void wr32(unsigned long a, uint32_t v) { *reinterpret_cast<volatile uint32_t *>(a) = v; }
bool poll(unsigned long a, uint32_t mask, uint32_t want) {
    for (unsigned i = 0; i < 1000000; i++)
        if ((rd32(a) & mask) == want) return true;
    return false;
}
// TCI 1.0 "Reset": Active 0, then 1, each read back.
bool reset(unsigned long c) {
    wr32(c, 0);
    if (!poll(c, TCI_trControl_Active_MASK, 0)) return false;
    wr32(c, TCI_trControl_Active_MASK);
    return poll(c, TCI_trControl_Active_MASK, TCI_trControl_Active_MASK);
}

uint8_t owner_copy[0x10000];
bool owner_drain(unsigned long enc, unsigned long sink, const char *file, const char *tag);
void owner_trig_run(unsigned long enc, unsigned long sink);

// S-mode owns the components: the firmware set the funnels to pass through,
// so a driver that programs only this hart's encoder and the sink (as
// Linux's rvtrace, which has no funnel driver) gets a trace. Without
// funnels (one RAM sink per hart) the hart's own sink, and the encoder in
// E-Trace as the upstream E-Trace model has it (trTeFormat 0).
void owner_run() {
    constexpr uint32_t kActive = TCI_trControl_Active_MASK, kEnable = TCI_trControl_Enable_MASK;
    const bool funnel = dt_has_funnel();
    if (funnel) {
        expect_eq(rd32(kFunnel + TCI_trFunnelControl) & (kActive | kEnable), kActive | kEnable,
                  "owner_smode/funnel_enabled");
        expect_eq(rd32(kFunnel + TCI_trFunnelDisInput), 0, "owner_smode/funnel_every_input");
    }
    const unsigned long enc = kEncoder0 + 0x1000 * hartid();
    const unsigned long kSink = !funnel && hartid() ? kFunnel + 0x2000 + 0x1000 * (hartid() - 1) : ::kSink;
    expect_true(reset(kSink), "owner_smode/sink_reset");
    wr32(kSink + TCI_trRamWPLow, rd32(kSink + TCI_trRamStartLow));
    wr32(kSink + TCI_trRamWPHigh, rd32(kSink + TCI_trRamStartHigh));
    wr32(kSink + TCI_trRamControl, kActive | kEnable);
    expect_true(reset(enc), "owner_smode/encoder_reset");
    // Whether the firmware kept M-mode out of this encoder's trace (the
    // project QEMU's trTeVendorControl.NoMmode; not with the platform's
    // tsbi,trace-allow-mmode): S-mode can neither clear it nor reset it
    // away. The suite checks the value against the configuration.
    wr32(enc + TCI_trTeVendorControl, 0);
    printf("TRACE-NO-MMODE: %u\n", static_cast<unsigned>(rd32(enc + TCI_trTeVendorControl)));
    // As rvtrace's encoder driver: HTM ORed into trTeControl's reset value,
    // so InstMode reads 6 only when it resets to 0 (TCI 1.0).
    wr32(enc, rd32(enc) | TCI_INSTMODE_HTM << TCI_trTeControl_InstMode_LSB);
    if (!funnel) {
        wr32(enc, rd32(enc) & ~TCI_trTeControl_Format_MASK); // E-Trace (0)
        expect_eq(rd32(enc) & TCI_trTeControl_Format_MASK, 0, "owner_smode/format_etrace");
    }
    expect_eq((rd32(enc) & TCI_trTeControl_InstMode_MASK) >> TCI_trTeControl_InstMode_LSB, TCI_INSTMODE_HTM,
              "owner_smode/instmode_or_htm");
    wr32(enc, rd32(enc) | kEnable);
    wr32(enc, rd32(enc) | TCI_trTeControl_InstTracing_MASK);
    workload(4, false);
    if (owner_drain(enc, kSink, "trace-owner.bin", "owner_smode") && funnel) owner_trig_run(enc, kSink);
}

// Stops the encoder and the sink and writes the sink's trace to the host.
bool owner_drain(unsigned long enc, unsigned long sink, const char *file, const char *tag) {
    constexpr uint32_t kActive = TCI_trControl_Active_MASK, kEnable = TCI_trControl_Enable_MASK,
                       kEmpty = TCI_trControl_Empty_MASK;
    wr32(enc, rd32(enc) & ~(kEnable | TCI_trTeControl_InstTracing_MASK));
    expect_true(poll(enc, kEnable | kEmpty, kEmpty), "%s/encoder_flushed", tag);
    wr32(sink + TCI_trRamControl, kActive);
    expect_true(poll(sink, kEnable | kEmpty, kEmpty), "%s/sink_flushed", tag);
    uint32_t start = rd32(sink + TCI_trRamStartLow), wp = rd32(sink + TCI_trRamWPLow);
    unsigned long bytes = (wp & ~3u) - start;
    expect_true(!(wp & TCI_trRamWPLow_Wrap_MASK) && bytes > 64 && bytes <= sizeof owner_copy,
                "%s/trace_in_sink", tag);
    if (bytes > sizeof owner_copy) return false;
    wr32(sink + TCI_trRamRPLow, start);
    wr32(sink + TCI_trRamRPHigh, 0);
    for (unsigned long i = 0; i < bytes; i += 4) {
        uint32_t w = rd32(sink + TCI_trRamData);
        memcpy(owner_copy + i, &w, 4);
    }
    write_host(file, owner_copy, bytes);
    return true;
}

// Sdtrig trace actions through SBI DBTR (TCI 1.0 "Debug Trigger Module"):
// S-mode installs an execute trigger with action 2 (trace-on) at op_a and
// one with action 3 (trace-off) at op_b, in S-mode only (DBTR refuses the
// M bit), programs its encoder with trTeInstTrigEnable and without
// trTeInstTracing, and runs the workload: the trace holds every stretch
// from an op_a to the next op_b. The suite compares it with the record cut
// the same way (compare.py --trig), from trig_window's first instruction.
struct DbtrEntry {
    unsigned long w[4]; // idx, tdata1, tdata2, tdata3
};
DbtrEntry dbtr_shmem[2] __attribute__((aligned(64)));
__attribute__((noinline)) void trig_window() { __asm__ volatile(""); }
__attribute__((noinline)) void trig_window_end() { __asm__ volatile(""); }
__attribute__((noinline)) void range_window() { __asm__ volatile(""); }
__attribute__((noinline)) void range_window_end() { __asm__ volatile(""); }

// Through SBI DBTR: an mcontrol6 execute trigger in S-mode with action 2
// at `on` and one with action 3 at `off`.
bool dbtr_install_on_off(unsigned long on, unsigned long off, const char *tag) {
    namespace dbtr = sbi::dbtr;
    constexpr unsigned kActionShift = 12;
    const unsigned long t1 = static_cast<unsigned long>(dbtr::TYPE_MCONTROL6) << dbtr::kTypeShift |
                             dbtr::EXECUTE | dbtr::S;
    expect_err(sbi_call(eid::dbtr, fid::dbtr::set_shmem, reinterpret_cast<unsigned long>(dbtr_shmem), 0, 0),
               SUCCESS, "%s/dbtr_shmem", tag);
    dbtr_shmem[0] = {{0, t1 | static_cast<unsigned long>(TCI_TRIGACTION_TRACE_ON) << kActionShift, on, 0}};
    dbtr_shmem[1] = {{0, t1 | static_cast<unsigned long>(TCI_TRIGACTION_TRACE_OFF) << kActionShift, off, 0}};
    return expect_err(sbi_call(eid::dbtr, fid::dbtr::install_triggers, 2), SUCCESS,
                      "%s/install_trace_on_off_triggers", tag);
}

void dbtr_uninstall_on_off(const char *tag) {
    unsigned long idx0 = dbtr_shmem[0].w[0], idx1 = dbtr_shmem[1].w[0];
    unsigned long base = idx0 < idx1 ? idx0 : idx1, other = idx0 < idx1 ? idx1 : idx0;
    expect_err(sbi_call(eid::dbtr, fid::dbtr::uninstall_triggers, base, 1ul | 1ul << (other - base)),
               SUCCESS, "%s/uninstall", tag);
}

void owner_trig_run(unsigned long enc, unsigned long sink) {
    const unsigned long on = reinterpret_cast<unsigned long>(&workload_detail::op_a),
                        off = reinterpret_cast<unsigned long>(&workload_detail::op_b);
    constexpr uint32_t kActive = TCI_trControl_Active_MASK, kEnable = TCI_trControl_Enable_MASK;

    if (!dbtr_install_on_off(on, off, "owner_trig")) return;
    expect_true(reset(sink), "owner_trig/sink_reset");
    wr32(sink + TCI_trRamWPLow, rd32(sink + TCI_trRamStartLow));
    wr32(sink + TCI_trRamWPHigh, rd32(sink + TCI_trRamStartHigh));
    wr32(sink + TCI_trRamControl, kActive | kEnable);
    expect_true(reset(enc), "owner_trig/encoder_reset");
    wr32(enc, rd32(enc) | TCI_INSTMODE_HTM << TCI_trTeControl_InstMode_LSB |
                  TCI_trTeControl_InstTrigEnable_MASK);
    expect_true(rd32(enc) & TCI_trTeControl_InstTrigEnable_MASK, "owner_trig/inst_trig_enable_sticks");
    wr32(enc, rd32(enc) | kEnable);
    printf("TRACE-TRIG: hart=%lu on=0x%lx off=0x%lx begin=0x%lx\n", hartid(), on, off,
           reinterpret_cast<unsigned long>(&trig_window));
    trig_window();
    workload(4, false);
    expect_eq(rd32(enc) & TCI_trTeControl_InstTracing_MASK, 0, "owner_trig/trace_off_after_op_b");
    dbtr_uninstall_on_off("owner_trig");
    owner_drain(enc, sink, "trace-owner-trig.bin", "owner_trig");
}

// trace_set_filter (FID 7): an address range ANDed into the privilege
// filter, then Sdtrig triggers through DBTR with the service's encoder.
// The suite compares each with the boot hart's S-mode record between the
// run's window markers, cut by the same rule.
bool dbtr_install_on_off(unsigned long on, unsigned long off, const char *tag);
void dbtr_uninstall_on_off(const char *tag);

void filter_run(unsigned long c) {
    const unsigned long self = hartid();
    const unsigned long lo = reinterpret_cast<unsigned long>(&workload_detail::fib), hi = lo + 0x40;
    expect_true(c & caps::ADDR_RANGE, "caps/addr_range");
    expect_true(c & caps::TRIGGERS, "caps/triggers");
    expect_err(call(SET_FILTER, 1, self, lo, hi, 4), ERR_INVALID_PARAM, "set_filter/reserved_flag");
    expect_err(call(SET_FILTER, 1, self, hi, lo, trace::filterflag::ADDR_RANGE), ERR_INVALID_PARAM,
               "set_filter/empty_range");
    expect_err(call(CONFIGURE, 1, self, HTM | cfg::PRIV_S), SUCCESS, "filter/configure");
    expect_err(call(SET_SINK, sinkflag::SMEM, smem_base(), 0, kSmemSize), SUCCESS, "filter/sink");
    expect_err(call(SET_FILTER, 1, self, lo, hi, trace::filterflag::ADDR_RANGE), SUCCESS, "set_filter/range");
    printf("TRACE-RANGE: hart=%lu lo=0x%lx hi=0x%lx begin=0x%lx end=0x%lx\n", self, lo, hi,
           reinterpret_cast<unsigned long>(&range_window), reinterpret_cast<unsigned long>(&range_window_end));
    expect_err(call(START, 1, self), SUCCESS, "filter/range_start");
    expect_err(call(SET_FILTER, 1, self, 0, 0, 0), ERR_ALREADY_STARTED, "set_filter/while_tracing");
    range_window();
    workload(8, false);
    range_window_end();
    expect_err(call(STOP, 1, self), SUCCESS, "filter/range_stop");
    trace::Status s = status();
    expect_true(s.bytes > 0, "filter/range_captured");
    write_host("trace-range.bin", reinterpret_cast<const void *>(smem_base()), s.bytes);

    const unsigned long on = reinterpret_cast<unsigned long>(&workload_detail::op_a),
                        off = reinterpret_cast<unsigned long>(&workload_detail::op_b);
    if (!dbtr_install_on_off(on, off, "svc_trig")) return;
    expect_err(call(SET_FILTER, 1, self, 0, 0, trace::filterflag::TRIGGERS), SUCCESS, "set_filter/triggers");
    printf("TRACE-SVCTRIG: hart=%lu on=0x%lx off=0x%lx begin=0x%lx end=0x%lx\n", self, on, off,
           reinterpret_cast<unsigned long>(&trig_window), reinterpret_cast<unsigned long>(&trig_window_end));
    expect_err(call(START, 1, self), SUCCESS, "filter/trig_start");
    trig_window();
    workload(4, false);
    trig_window_end();
    expect_err(call(STOP, 1, self), SUCCESS, "filter/trig_stop");
    dbtr_uninstall_on_off("svc_trig");
    expect_err(call(SET_FILTER, 1, self, 0, 0, 0), SUCCESS, "set_filter/clear");
    s = status();
    expect_true(s.bytes > 0, "filter/trig_captured");
    write_host("trace-svc-trig.bin", reinterpret_cast<const void *>(smem_base()), s.bytes);
}

void load_at(void *a) { (void)*reinterpret_cast<volatile uint32_t *>(reinterpret_cast<unsigned long>(a)); }
void store_at(void *a) { *reinterpret_cast<volatile uint32_t *>(reinterpret_cast<unsigned long>(a)) = 0; }

} // namespace

void payload_main() {
    SbiRet pr = sbi_probe(EID);
    if (pr.value == 0) {
        // No trace components (e.g. QEMU 7.2): every function is NOT_SUPPORTED.
        for (long f = GET_CAPS; f <= SET_FILTER + 1; f++)
            expect_err(call(f), ERR_NOT_SUPPORTED, "absent/fid%ld", f);
        if (dt_has_trace()) {
            // S-mode owns the components (the default): the registers are S-mode's own.
            unsigned long impl = 0;
            auto rd = [](void *p) { *static_cast<unsigned long *>(p) = *reinterpret_cast<volatile uint32_t *>(kEncoder0 + 4); };
            expect_eq(catch_exception(rd, &impl), ~0ul, "owner_smode/encoder_readable");
            expect_eq((impl >> 8) & 0xf, 1, "owner_smode/encoder_comptype");
            note("trace components handed to S-mode");
            write_host("handed.dtb", reinterpret_cast<const void *>(platform().fdt), fdt_size());
            owner_run();
        }
        return;
    }
    write_host("handed.dtb", reinterpret_cast<const void *>(platform().fdt), fdt_size());
    // The components are M-mode's: PMP closes them to S-mode.
    expect_eq(catch_exception(load_at, reinterpret_cast<void *>(kEncoder0)), 5, "pmp/encoder_load_faults");
    expect_eq(catch_exception(store_at, reinterpret_cast<void *>(kEncoder0)), 7, "pmp/encoder_store_faults");
    expect_eq(catch_exception(load_at, reinterpret_cast<void *>(kSink)), 5, "pmp/sink_load_faults");
    expect_eq(pr.value, 1, "probe");
    unsigned long c = call(GET_CAPS, hartid()).value;
    expect_eq(c & (caps::BTM | caps::HTM), caps::BTM | caps::HTM, "caps/btm_htm");
    expect_true(c & cfg::PRIV_S, "caps/s_mode_alone");
    expect_eq(c & (caps::SINK_SRAM | caps::SINK_SMEM), caps::SINK_SRAM | caps::SINK_SMEM, "caps/sinks");
    unsigned src_bits = (c >> caps::SRC_BITS_SHIFT) & 0xf;
    expect_true(src_bits >= 1 && (1ul << src_bits) > platform().max_hartid, "caps/src_bits");
    printf("TRACE-SRC-BITS: %u\n", src_bits);
    expect_err(call(SET_FILTER + 1), ERR_NOT_SUPPORTED, "unknown_fid");
    if (platform().nharts > 1 && !start_secondaries()) return;
    errors(c);
    sram_run();
    wrap_run();
    traced_run("trace-htm.bin", HTM | cfg::PRIV_S, 64);
    traced_run("trace-btm.bin", BTM | cfg::PRIV_S, 16);
    // E-Trace from the same encoders (trTeFormat 0): N-Trace's options are
    // not E-Trace's.
    expect_true(c & caps::ETRACE, "caps/etrace");
    expect_err(call(CONFIGURE, 0, ALL, HTM | cfg::ETRACE | cfg::IMPLICIT_RETURN | cfg::PRIV_S), ERR_NOT_SUPPORTED,
               "configure/etrace_with_ntrace_option");
    traced_run("trace-etrace.bin", HTM | cfg::ETRACE | cfg::PRIV_S, 16);
    // E-Trace data trace (configuration bit 23, capability bit 29): with
    // E-Trace only.
    expect_true(c & caps::DATA, "caps/etrace_data");
    expect_err(call(CONFIGURE, 0, ALL, HTM | cfg::DATA | cfg::PRIV_S), ERR_NOT_SUPPORTED,
               "configure/data_without_etrace");
    traced_run("trace-etrace-data.bin", HTM | cfg::ETRACE | cfg::DATA | cfg::PRIV_S, 4);
    if (platform().nharts > 1) hsm_run();
    filter_run(c);
}
