// SPDX-License-Identifier: BSD-2-Clause
// Payload library: everything an S-mode test payload needs to talk to the SBI
// firmware under test and report results to tests/payloads/run.py.
//
// A payload is one C++ file that defines
//     PAYLOAD_NAME("mytest");
//     void payload_main() { ... checks ... }
// and is listed in tests/payloads/build.mk. The library's crt0 enters
// payload_main() on the boot hart with a stack, the trap vector installed and
// the platform parsed from the device tree; when payload_main() returns the
// library prints "TSBI-DONE passed=N failed=M" and powers off through SRST.
// See tests/payloads/README.md for the output protocol.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "sbi/sbi.hpp"

namespace pl {

using sbi::SbiRet;
namespace eid = sbi::eid;

// The payloads build for RV64 and RV32 from the same sources (build.mk PL_XLEN).
constexpr unsigned kXlen = 8 * sizeof(unsigned long);
// Garbage above bit 31 of an argument the spec declares 32-bit
// (binary-encoding.adoc): the firmware must ignore it. RV32 has no such bits,
// so the cases that add it repeat the plain call there.
constexpr unsigned long kUpper32 = kXlen == 64 ? static_cast<unsigned long>(0xdead0001ull << 32) : 0;
// Bits 32 and above of a register (0 on RV32).
constexpr uint64_t upper32(unsigned long v) { return static_cast<uint64_t>(v) >> 32; }
// The top bit of a register (bit 63 or 31).
constexpr unsigned long kTopBit = 1ul << (kXlen - 1);
// An address far above RAM on QEMU virt (RAM at 2 GiB, at most 1 GiB in the
// tests), below the top of the address space.
constexpr unsigned long kFarAboveRam = kXlen == 64 ? static_cast<unsigned long>(0x4000000000000000ull) : 0xC0000000ul;

// --- SBI function IDs (each extension's "Function Listing" table) ----------
namespace fid {
namespace base {
constexpr long get_spec_version = 0, get_impl_id = 1, get_impl_version = 2, probe_extension = 3,
               get_mvendorid = 4, get_marchid = 5, get_mimpid = 6;
}
namespace time {
constexpr long set_timer = 0;
}
namespace ipi {
constexpr long send_ipi = 0;
}
namespace rfence {
constexpr long remote_fence_i = 0, remote_sfence_vma = 1, remote_sfence_vma_asid = 2,
               remote_hfence_gvma_vmid = 3, remote_hfence_gvma = 4,
               remote_hfence_vvma_asid = 5, remote_hfence_vvma = 6;
}
namespace hsm {
constexpr long hart_start = 0, hart_stop = 1, hart_get_status = 2, hart_suspend = 3;
}
namespace srst {
constexpr long system_reset = 0;
}
namespace pmu {
constexpr long num_counters = 0, counter_get_info = 1, counter_config_matching = 2,
               counter_start = 3, counter_stop = 4, counter_fw_read = 5, counter_fw_read_hi = 6,
               snapshot_set_shmem = 7, event_get_info = 8;
}
namespace dbcn {
constexpr long write = 0, read = 1, write_byte = 2;
}
namespace susp {
constexpr long system_suspend = 0;
}
namespace dbtr {
constexpr long num_triggers = 0, set_shmem = 1, read_triggers = 2, install_triggers = 3,
               update_triggers = 4, uninstall_triggers = 5, enable_triggers = 6,
               disable_triggers = 7;
}
} // namespace fid

// HSM states (ext-hsm "HSM Hart States") and suspend types.
namespace hsm_state {
constexpr long started = 0, stopped = 1, start_pending = 2, stop_pending = 3, suspended = 4,
               suspend_pending = 5, resume_pending = 6;
}
namespace suspend_type {
constexpr unsigned long default_retentive = 0x00000000, default_non_retentive = 0x80000000;
}
// SRST reset types and reasons (ext-sys-reset).
namespace reset_type {
constexpr unsigned long shutdown = 0, cold_reboot = 1, warm_reboot = 2;
}
namespace reset_reason {
constexpr unsigned long none = 0, system_failure = 1;
}

constexpr long code(sbi::Error e) { return static_cast<long>(e); }
constexpr long SUCCESS = 0;
constexpr long ERR_FAILED = code(sbi::Error::Failed);
constexpr long ERR_NOT_SUPPORTED = code(sbi::Error::NotSupported);
constexpr long ERR_INVALID_PARAM = code(sbi::Error::InvalidParam);
constexpr long ERR_DENIED = code(sbi::Error::Denied);
constexpr long ERR_INVALID_ADDRESS = code(sbi::Error::InvalidAddress);
constexpr long ERR_ALREADY_AVAILABLE = code(sbi::Error::AlreadyAvailable);
constexpr long ERR_ALREADY_STARTED = code(sbi::Error::AlreadyStarted);
constexpr long ERR_ALREADY_STOPPED = code(sbi::Error::AlreadyStopped);
constexpr long ERR_NO_SHMEM = code(sbi::Error::NoShmem);
constexpr long ERR_BAD_RANGE = code(sbi::Error::BadRange);
const char *error_name(long e);

// --- the ecall ---------------------------------------------------------------
// Harts (bit = hart ID) that skip the SBI calls of their current clause: a
// conformance rerun after the firmware hung or reset the machine in that
// clause (bootarg skip=<clause>[,<clause>...], see clause()).
extern "C" volatile unsigned long pl_skip_harts;
inline bool skipping_calls() {
    if (!pl_skip_harts) return false;
    unsigned long t;
    asm volatile("mv %0, tp" : "=r"(t));
    return t < 64 && (pl_skip_harts >> t & 1);
}
// The ecall itself (the library's console uses it: it prints while a clause
// is skipped).
inline SbiRet sbi_call_raw(long ext, long func, unsigned long a0 = 0, unsigned long a1 = 0,
                           unsigned long a2 = 0, unsigned long a3 = 0, unsigned long a4 = 0,
                           unsigned long a5 = 0) {
    register unsigned long r0 asm("a0") = a0;
    register unsigned long r1 asm("a1") = a1;
    register unsigned long r2 asm("a2") = a2;
    register unsigned long r3 asm("a3") = a3;
    register unsigned long r4 asm("a4") = a4;
    register unsigned long r5 asm("a5") = a5;
    register unsigned long r6 asm("a6") = static_cast<unsigned long>(func);
    register unsigned long r7 asm("a7") = static_cast<unsigned long>(ext);
    asm volatile("ecall"
                 : "+r"(r0), "+r"(r1)
                 : "r"(r2), "r"(r3), "r"(r4), "r"(r5), "r"(r6), "r"(r7)
                 : "memory");
    return {static_cast<long>(r0), r1};
}
// The calls below live in an inline namespace named after PL_NO_SKIP, so a
// file that defines it (the bench payload: it counts instructions per call)
// gets its own copies without the skip check and no definition differs.
#ifdef PL_NO_SKIP
#define PL_CALLS_BEGIN inline namespace calls_unchecked {
#else
#define PL_CALLS_BEGIN inline namespace calls {
#endif
#define PL_CALLS_END }
PL_CALLS_BEGIN
// An SBI call; while this hart skips its clause, SBI_ERR_FAILED without the
// call.
inline SbiRet sbi_call(long ext, long func, unsigned long a0 = 0, unsigned long a1 = 0,
                       unsigned long a2 = 0, unsigned long a3 = 0, unsigned long a4 = 0,
                       unsigned long a5 = 0) {
#ifndef PL_NO_SKIP
    if (skipping_calls()) return {static_cast<long>(sbi::Error::Failed), 0};
#endif
    return sbi_call_raw(ext, func, a0, a1, a2, a3, a4, a5);
}
// Legacy extensions (EID 0x00..0x0F): result in a0 only.
inline long sbi_legacy(long ext, unsigned long a0 = 0, unsigned long a1 = 0,
                       unsigned long a2 = 0, unsigned long a3 = 0) {
    return sbi_call(ext, 0, a0, a1, a2, a3).error;
}
PL_CALLS_END

// One ecall with every general register except a0/a1/sp set to a known
// pattern (lib/crt0.S). in[] = a0..a5, a6 (FID), a7 (EID). out: a0 and a1
// after the call, the mask of registers the callee did not preserve (bit n
// = xn, sp included; a0/a1 are not compared: binary encoding, "All registers
// except a0 & a1 must be preserved"), and scause/stval/sepc of an exception
// the firmware redirected to S-mode during the call (scause 0 if none; the
// call then resumes after the ecall, sepc is pl_ecall_insn when it was taken
// at the ecall). S-mode interrupts are off for the call.
struct EcallOutcome {
    unsigned long a0, a1, clobbers, cause, tval, sepc;
};
extern "C" void pl_ecall_checked(const unsigned long *in, EcallOutcome *out);
extern "C" char pl_ecall_insn[];

// The clobber mask of one call. Bit 11 is set when a1 changed, which only
// legacy EIDs forbid ("Nothing is returned in a1"); callers of v0.2+
// functions mask it off (kClobberA1). Bit 0 (x0 never changes) means an
// exception was redirected to S-mode.
constexpr unsigned long kClobberA1 = 1ul << 11;
PL_CALLS_BEGIN
inline unsigned long pl_ecall_clobbers(long ext, long func, unsigned long a0, unsigned long a1,
                                       unsigned long a2, unsigned long a3, unsigned long a4,
                                       unsigned long a5) {
    const unsigned long in[8] = {a0, a1, a2, a3, a4, a5, static_cast<unsigned long>(func),
                                 static_cast<unsigned long>(ext)};
    if (skipping_calls()) return 0;
    EcallOutcome o;
    pl_ecall_checked(in, &o);
    return o.clobbers | (o.a1 != a1 ? kClobberA1 : 0) | (o.cause ? 1 : 0);
}

// Convenience wrappers for the calls most payloads use.
inline SbiRet sbi_probe(long ext) { return sbi_call(eid::base, fid::base::probe_extension, ext); }
// A 64-bit argument takes two registers on RV32, the low half first
// (binary-encoding.adoc): set_timer's stime_value.
inline unsigned long arg_hi(uint64_t v) { return kXlen == 64 ? 0 : static_cast<unsigned long>(v >> 32); }
inline SbiRet sbi_set_timer(uint64_t t) {
    return sbi_call(eid::time, fid::time::set_timer, static_cast<unsigned long>(t), arg_hi(t));
}
inline SbiRet sbi_send_ipi(unsigned long mask, unsigned long base) {
    return sbi_call(eid::ipi, fid::ipi::send_ipi, mask, base);
}
inline SbiRet sbi_hart_start(unsigned long hartid, unsigned long addr, unsigned long opaque) {
    return sbi_call(eid::hsm, fid::hsm::hart_start, hartid, addr, opaque);
}
inline SbiRet sbi_hart_get_status(unsigned long hartid) {
    return sbi_call(eid::hsm, fid::hsm::hart_get_status, hartid);
}
inline SbiRet sbi_hart_suspend(unsigned long type, unsigned long addr, unsigned long opaque) {
    return sbi_call(eid::hsm, fid::hsm::hart_suspend, type, addr, opaque);
}
inline SbiRet sbi_system_reset(unsigned long type, unsigned long reason) {
    return sbi_call(eid::srst, fid::srst::system_reset, type, reason);
}
PL_CALLS_END

// --- output ----------------------------------------------------------------
// printf subset: %s %c %d %i %u %x %p with optional l/ll, width and '0'.
// Output of one call is written atomically with respect to other harts.
void printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
// snprintf with the same subset; always NUL-terminates; returns length written.
int snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
// "NOTE: <payload>: ..." — free text the runner shows but does not count.
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

// --- checks ------------------------------------------------------------------
// Every check prints exactly one line, "PASS: <payload>/<case>" or
// "FAIL: <payload>/<case> <details>", where <case> comes from the printf-style
// name. Each returns whether it passed. Case names must be unique per payload.
bool pass(const char *name_fmt, ...) __attribute__((format(printf, 1, 2)));
bool fail(const char *why, const char *name_fmt, ...) __attribute__((format(printf, 2, 3)));
bool expect_true(bool cond, const char *name_fmt, ...) __attribute__((format(printf, 2, 3)));
bool expect_eq(unsigned long got, unsigned long expected, const char *name_fmt, ...)
    __attribute__((format(printf, 3, 4)));
// sbiret.error must equal `error` (value not checked).
bool expect_err(SbiRet r, long error, const char *name_fmt, ...)
    __attribute__((format(printf, 3, 4)));
// sbiret.error must equal `error` and sbiret.value must equal `value`.
bool expect_ret(SbiRet r, long error, unsigned long value, const char *name_fmt, ...)
    __attribute__((format(printf, 4, 5)));
// After a hostile call: the firmware still answers get_spec_version with the
// value it gave at start-up and still prints. Prints "<case>/alive".
bool expect_alive(const char *name_fmt, ...) __attribute__((format(printf, 1, 2)));

// --- spec clauses and conformance mode (tests/payloads/conformance/) ---------
// clause(id) names the spec clause the following checks on this hart test,
// until the next clause() on this hart. `id` is "<ext>/<function>/<topic>" and
// must be a line of conformance/clauses.txt (spec file, section, sentence).
// It prints "CHECK-BEGIN: <payload> <id>" before the calls (so the runner
// knows which clause was running when a firmware hangs, resets or traps the
// payload) and tags every result line with " @<id>". Checks without a clause
// still work and are reported as "no clause". clause(nullptr) clears it.
// When the runner restarts a payload after the firmware hung or reset the
// machine during a clause (bootarg skip=<id>[,<id>...]), clause() of that id
// makes this hart skip its SBI calls and report its checks as N/A until the
// next clause() on this hart, so the rest of the payload still runs.
// `id` is a printf format (e.g. "rfence/%s/INVALID_PARAM"); it is copied.
void clause(const char *id_fmt, ...) __attribute__((format(printf, 1, 2)));
const char *current_clause();
// True when the runner asked for a conformance run of any firmware
// (bootarg conformance=1, run.py --conformance): checks of this project's
// own choices then accept every answer the spec allows. Default: the exact
// expectations of tsbi's own tests (make conformance STRICT_TSBI=1 too).
bool conformance_mode();
// sbiret.error must be `error`; in conformance mode `alt` is accepted too
// (the spec allows both; tsbi's choice is `error`).
bool expect_err_or(SbiRet r, long error, long alt, const char *name_fmt, ...)
    __attribute__((format(printf, 4, 5)));
// "N/A: <payload>/<case> [@clause] <why>": a check that does not apply to
// this firmware or machine (extension not present, hart lacks H, ...). Not
// counted as passed or failed.
void not_applicable(const char *why, const char *name_fmt, ...)
    __attribute__((format(printf, 2, 3)));
// "INFO: <payload>/<case> [@clause] <text>": an implementation-specific fact
// (IDs, versions, choices the spec leaves open). Never a failure.
void info(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
// In conformance mode: when the firmware does not probe `ext` as present,
// reports N/A "<case>" and returns false (the caller skips its checks).
// Otherwise (and always in strict mode) returns true.
bool extension_present(long ext, const char *case_name);
// extension_present(), then the check that tsbi offers it (probe = 1, an
// implementation fact in conformance mode); the checks after it name no
// clause until the caller sets one.
bool extension_required(long ext);

unsigned passed_count();
unsigned failed_count();

// Prints "TSBI-DONE passed=N failed=M" and shuts down through SRST (or the
// legacy shutdown when SRST is absent). Never returns: if both return, the
// hart parks and the runner reports the missing power-off.
enum class Shutdown { srst, legacy };
[[noreturn]] void finish(Shutdown how = Shutdown::srst, unsigned long reason = 0);
// The two halves of finish(), for payloads that shut down in their own way
// (e.g. from another hart): the DONE line, then the shutdown call.
void print_done();
[[noreturn]] void power_off(Shutdown how = Shutdown::srst, unsigned long reason = 0);

// --- platform (parsed from the device tree the firmware passed in a1) --------
constexpr unsigned kMaxHarts = 512;  // PL_MAX_HARTS
struct Platform {
    unsigned nharts;                       // enabled harts in /cpus (hart IDs < PL_MAX_HARTID)
    unsigned long hartids[kMaxHarts];      // their hart IDs, ascending
    unsigned long max_hartid;              // largest enabled hart ID
    // First /memory range; ram_size ends it at 2^XLEN (on RV32 RAM may reach
    // above 4 GiB: QEMU virt -m 3G and more), ram_size64 is its full size.
    unsigned long ram_base, ram_size;
    uint64_t ram_size64;
    unsigned long timebase_hz;             // /cpus/timebase-frequency
    char isa[1024];                        // riscv,isa of the boot hart
    unsigned long fdt;                     // the address passed in a1
    unsigned long boot_hartid;
    // /reserved-memory children (the firmware must reserve its own memory
    // there, boot contract in reference/peers.md).
    struct Region {
        unsigned long base, size;
        bool no_map;
    };
    unsigned nreserved;
    Region reserved[8];
    // The reserved region holding RAM base (the firmware on QEMU virt), or
    // [ram_base, ram_base + 0x200000) if the device tree reserves nothing.
    unsigned long fw_base, fw_size;
    // ACLINT/CLINT (compatible "riscv,clint0"): M-mode software interrupt and
    // timer registers, 0 if absent. Assumes #address-cells = 2 above it.
    unsigned long clint_base;
    // AIA controllers ("riscv,aplic", "riscv,imsics") whose node says
    // status = "disabled": the firmware's M-level ones. Their first reg base
    // (#address-cells = 2 above them assumed), at most 4.
    unsigned n_aia_disabled;
    unsigned long aia_disabled[4];
    // /chosen/bootargs (QEMU -append), empty if absent.
    char bootargs[320];
};
const Platform &platform();
// The value of "key=<decimal or 0x hex>" in the bootargs, else dflt
// (run.py --qemu-arg=-append --qemu-arg="key=value ...").
unsigned long bootarg(const char *key, unsigned long dflt);
// True when the boot hart's riscv,isa lists the single-letter extension `c`
// (e.g. 'h') or the multi-letter one (e.g. "sstc").
bool has_isa_ext(char c);
bool has_isa_ext(const char *name);
// Start of this payload's image and end of its memory (stacks included).
unsigned long image_start();
unsigned long image_end();

// --- harts -------------------------------------------------------------------
unsigned long hartid(); // this hart (kept in tp)
inline bool is_boot_hart() { return hartid() == platform().boot_hartid; }
unsigned hart_index(unsigned long hartid); // index into platform().hartids, ~0u for none

// Hart lists (binary-encoding.adoc, "Hart list parameter") for any hart ID:
// `1ul << hartid` is undefined from XLEN on, so a hart is named by a mask
// and a base, the base the start of its XLEN-wide window.
struct HartList {
    unsigned long mask, base;
};
inline HartList hart_list(unsigned long id) { return {1ul << (id % kXlen), id - id % kXlen}; }
// Adds hart `id` to `l`; false (l unchanged) when it lies outside l's window.
inline bool hart_list_add(HartList &l, unsigned long id) {
    if (id < l.base || id - l.base >= kXlen) return false;
    l.mask |= 1ul << (id - l.base);
    return true;
}
// A set of hart indices (into platform().hartids), one bit each.
struct IndexSet {
    unsigned long w[kMaxHarts / kXlen];
    void set(unsigned i) { w[i / kXlen] |= 1ul << (i % kXlen); }
    bool test(unsigned i) const { return (w[i / kXlen] >> (i % kXlen)) & 1; }
    bool operator==(const IndexSet &o) const {
        for (unsigned k = 0; k < kMaxHarts / kXlen; k++)
            if (w[k] != o.w[k]) return false;
        return true;
    }
    // The first index in one set and not in the other, ~0u when equal.
    unsigned first_difference(const IndexSet &o) const {
        for (unsigned i = 0; i < kMaxHarts; i++)
            if (test(i) != o.test(i)) return i;
        return ~0u;
    }
};
inline IndexSet index_set(unsigned i) {
    IndexSet s{};
    s.set(i);
    return s;
}
// Every hart of platform().
IndexSet all_indices();
// A base whose mask bit XLEN-1 names no hart: past the last one (1, as
// before, while hart XLEN is past it).
inline unsigned long top_bit_base() {
    const unsigned long last = platform().max_hartid;
    return last + 1 > kXlen ? last + 2 - kXlen : 1;
}
// The harts other than the boot hart (which hart boots is the firmware's
// choice, e.g. OpenSBI's lottery): i = 0 .. nharts - 2, ascending hart IDs.
unsigned long secondary_hartid(unsigned i);
// The secondary with the highest hart ID (~0ul with one hart).
inline unsigned long last_secondary() {
    return platform().nharts > 1 ? secondary_hartid(platform().nharts - 2) : ~0ul;
}

// Starts every stopped hart with HSM hart_start into the library's job loop
// and waits until each has checked in. Returns false (after FAILing a case
// "secondary_start/<hart>") if one does not come up.
bool start_secondaries();
// The entry address to pass to hart_start for a hart that should run the job
// loop; opaque must be secondary_opaque(hartid). Used by the HSM payload.
unsigned long secondary_entry();
unsigned long secondary_opaque(unsigned long hartid);
// True once `hartid` has entered the job loop since the last reset_checkin().
bool secondary_checked_in(unsigned long hartid);
void reset_checkin(unsigned long hartid);
// What a secondary saw when it entered (HSM "Hart Start Register State").
struct EntryState {
    unsigned long a0, a1, satp, sstatus;
    unsigned long count; // entries so far
};
EntryState entry_state(unsigned long hartid);

// --- waiting -------------------------------------------------------------------
// The timeout (timeout_us) of a wait for something a check expects to
// happen: another hart runs a job or reaches an HSM state, an interrupt
// arrives, the runner types input. Without -icount QEMU's `time` is the
// host's clock, which runs on while a loaded host does not schedule a
// vCPU's thread at all (at a load of 5-10 on 2 cores, waits of 0.5-1 s
// timed out), so such a wait must not be short: it lasts patience_us(),
// which costs time only when the check fails anyway. A timeout that is the
// point of a check (an interrupt must NOT come within N µs) passes its own.
constexpr unsigned long kPatience = ~0ul;
// 5 s; after one patient wait timed out (the run has failed already), 0.5 s,
// so a firmware that loses every interrupt still reports each check within
// the runner's per-payload timeout (tests/payloads/run.py, 15-20 s).
unsigned long patience_us();
void patience_spent(); // a patient wait timed out (prints a NOTE once)

using JobFn = void (*)(void *arg);
// Runs fn(arg) on a started secondary and waits up to timeout_us for it to
// finish. Returns false on timeout.
bool run_on(unsigned long hartid, JobFn fn, void *arg, unsigned long timeout_us = kPatience);
// Posts fn(arg) to a secondary without waiting; wait_job() waits for it.
void post_job(unsigned long hartid, JobFn fn, void *arg);
bool wait_job(unsigned long hartid, unsigned long timeout_us = kPatience);
bool job_done(unsigned long hartid);

// Stops started secondary `hartid` with HSM hart_stop (from a job, S-mode
// interrupts off) and waits up to timeout_us for STOPPED. True when it
// stopped and the call did not return; the hart is then ready for
// start_secondaries() again.
bool stop_secondary(unsigned long hartid, unsigned long timeout_us = kPatience);

// --- time and interrupts ---------------------------------------------------------
inline unsigned long rdtime() {
    unsigned long t;
    asm volatile("rdtime %0" : "=r"(t));
    return t;
}
unsigned long us_to_ticks(unsigned long us);
// Spins until pred() is true or timeout_us of timebase time have passed
// (kPatience: patience_us()). Differences of rdtime(), so the low 32 bits
// of `time` on RV32 may wrap during the wait.
template <typename Pred> bool wait_until(Pred pred, unsigned long timeout_us) {
    const bool patient = timeout_us == kPatience;
    const unsigned long start = rdtime();
    const unsigned long ticks = us_to_ticks(patient ? patience_us() : timeout_us);
    while (!pred()) {
        if (rdtime() - start > ticks) {
            if (pred()) return true;
            if (patient) patience_spent();
            return false;
        }
    }
    return true;
}
void delay_us(unsigned long us);

// Per-hart interrupt counters maintained by the trap handler. The handler
// clears sip.SSIP for a software interrupt and calls set_timer(~0) for a
// timer interrupt (so the STI does not fire again).
struct HartIrq {
    volatile unsigned long ssi;           // supervisor software interrupts taken
    volatile unsigned long sti;           // supervisor timer interrupts taken
    volatile unsigned long last_sti_time; // rdtime when the last STI was taken
};
HartIrq &irq_state(unsigned long hartid);
// sstatus.SIE on this hart; returns the previous state.
bool irq_enable(bool on);
// A payload's handler for another S-mode interrupt (code: scause without
// the interrupt bit): true when it handled it. Unset, or false: the
// interrupt is masked and the case fails (trap/unexpected_interrupt).
extern bool (*irq_hook)(unsigned long code);
// sie bits (csr numbers as in riscv/csr.hpp: irq::SSI, irq::STI).
void sie_set(unsigned long bits);
void sie_clear(unsigned long bits);

// Runs fn(arg) expecting it to raise an exception: returns the scause of the
// first exception taken (the handler skips the faulting instruction), or ~0ul
// if none was taken. Any exception outside such a window is a FAIL.
unsigned long catch_exception(void (*fn)(void *), void *arg, unsigned long *tval = nullptr);

// Non-retentive suspend through HSM: saves this hart's context, calls
// hart_suspend(type, resume_entry, opaque) and, when the hart resumes at the
// library's resume entry, restores the context and returns 1. Otherwise
// returns the sbiret error of the call (<= 0). `seen` gets what the resume
// entry observed (a0, a1, satp, sstatus).
long suspend_non_retentive(unsigned long type, EntryState *seen);
// Checks what the resume entry saw after a non-retentive suspend that
// returned r: r == 1 (resumed there), a0 = hartid, a1 = the opaque,
// satp = 0, sstatus.SIE = 0 (cases "<name>/resumed_at_resume_addr" etc.).
// Returns r == 1.
bool expect_resume_contract(long r, const EntryState &seen, const char *name);
// The same with another resume address (hostile cases: the call must fail).
long suspend_non_retentive_at(unsigned long type, unsigned long resume_addr, EntryState *seen);
// The same through any call with the signature (type, resume_addr, opaque):
// SUSP system_suspend(sleep_type, resume_addr, opaque).
long suspend_call(long ext, long func, unsigned long type, unsigned long resume_addr,
                  EntryState *seen);
// The resume entry and the opaque it expects for this hart (for hostile
// variants that pass other addresses).
unsigned long resume_entry();
unsigned long resume_opaque();

// --- strings ---------------------------------------------------------------------
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);

// --- console input (used with the runner's TSBI-SEND protocol) ------------------
// Asks the runner to type `text` into the console ("TSBI-SEND: <text>").
void request_input(const char *text);
// Tells the runner that a later console line must be exactly `text`; the
// runner reports it as case "<payload>/<case>" ("TSBI-EXPECT: <case> <text>").
// Used to check output the firmware writes on the payload's behalf.
void expect_console_line(const char *case_name, const char *text);

} // namespace pl

extern "C" {
void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);
}

// Each payload defines its name (used as the case-name prefix) once.
#define PAYLOAD_NAME(n) extern "C" const char pl_payload_name[] = n
extern "C" const char pl_payload_name[];
void payload_main();
