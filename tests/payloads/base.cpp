// SPDX-License-Identifier: BSD-2-Clause
// Base extension (ext-base.adoc), probing, unknown EIDs/FIDs (binary
// encoding: "must return SBI_ERR_NOT_SUPPORTED"), register preservation,
// the firmware's memory protection as seen from S-mode, and the M-mode
// enables of the ISA extensions S-mode uses.
#include "payload.hpp"
#include "ctr/ctr_spec.hpp"
#include "riscv/csr.hpp"

using namespace pl;

PAYLOAD_NAME("base");

namespace {

// The runner starts QEMU for this payload with
// -cpu rv64,mvendorid=...,marchid=...,mimpid=... (run.py PAYLOAD_QEMU_ARGS);
// the firmware must report the hart's CSR values.
constexpr unsigned long kCpuMvendorid = 0x489, kCpuMarchid = kTopBit | 7,
                        kCpuMimpid = 0x20181004;

struct Ext {
    const char *name;
    long eid;
};
// Extensions this firmware must implement (task scope) and others whose probe
// must at least agree with their behaviour.
constexpr Ext kRequired[] = {{"BASE", eid::base},    {"TIME", eid::time},
                             {"IPI", eid::ipi},      {"RFNC", eid::rfence},
                             {"HSM", eid::hsm},      {"SRST", eid::srst},
                             {"DBCN", eid::dbcn},    {"legacy_putchar", eid::legacy_console_putchar},
                             {"legacy_getchar", eid::legacy_console_getchar}};
constexpr Ext kOptional[] = {{"PMU", eid::pmu},      {"SUSP", eid::susp},
                             {"CPPC", 0x43505043},   {"NACL", 0x4E41434C},
                             {"STA", 0x535441},      {"SSE", 0x535345},
                             {"FWFT", 0x46574654},   {"DBTR", 0x44425452},
                             {"MPXY", 0x4D505859}};
constexpr Ext kLegacyOther[] = {{"legacy_set_timer", 0x00},  {"legacy_clear_ipi", 0x03},
                                {"legacy_send_ipi", 0x04},   {"legacy_remote_fence_i", 0x05},
                                {"legacy_sfence_vma", 0x06}, {"legacy_sfence_vma_asid", 0x07},
                                {"legacy_shutdown", 0x08}};
// EIDs nobody defines: the legacy reserved range, gaps, vendor/firmware
// ranges of other parties, values with bit 31 set (on RV32 -2^31 and 2^31
// are one register value; 2^31 + 1 stands in for the second).
constexpr long kUnknown[] = {0x09,       0x0F,       0x11,        0x12345678,
                             0x7FFFFFFF, 0x09FFFFFF, 0x0A000001,  0x4442434F,
                             0x54494D46, -1,         -0x7FFFFFFFl - 1,
                             static_cast<long>(kXlen == 64 ? 0x80000000ul : 0x80000001ul)};

struct Fid {
    const char *ext;
    long eid, fid;
    unsigned long a0;
};
// Unknown FIDs of implemented extensions. a0 is chosen so that a firmware
// ignoring the FID answers with an error instead of acting (reserved reset
// type, invalid hart ID).
constexpr Fid kUnknownFids[] = {
    {"BASE", eid::base, 7, 0},          {"BASE", eid::base, 0x7FFFFFFF, 0},
    {"BASE", eid::base, -1, 0},         {"TIME", eid::time, 1, ~0ul},
    {"TIME", eid::time, -1, ~0ul},      {"IPI", eid::ipi, 1, 0},
    {"RFNC", eid::rfence, 7, 0},        {"RFNC", eid::rfence, 0x100, 0},
    {"HSM", eid::hsm, 4, ~0ul},         {"HSM", eid::hsm, 0x100, ~0ul},
    {"SRST", eid::srst, 1, 3},          {"SRST", eid::srst, -1, 3},
    {"DBCN", eid::dbcn, 3, 0},          {"DBCN", eid::dbcn, -1, 0},
};

void spec_version() {
    SbiRet r = sbi_call(eid::base, fid::base::get_spec_version);
    unsigned long major = (r.value >> 24) & 0x7f, minor = r.value & 0xffffff;
    note("spec version %lu.%lu (0x%lx)", major, minor, r.value);
    clause("base/get_spec_version/encoding");
    expect_err(r, SUCCESS, "spec_version/error");
    expect_eq(r.value & ~0x7ffffffful, 0, "spec_version/reserved_bits_zero");
    clause("base/get_spec_version/tsbi_at_least_2_0");
    if (conformance_mode()) info("spec_version", "SBI %lu.%lu", major, minor);
    else expect_true(major >= 2, "spec_version/at_least_2_0");
}

void impl() {
    SbiRet r = sbi_call(eid::base, fid::base::get_impl_id);
    clause("base/get_impl_id/value");
    if (conformance_mode()) info("impl_id", "error=%ld value=%lu", r.error, r.value);
    else expect_ret(r, SUCCESS, sbi::kImplId, "impl_id/is_tsbi");
    r = sbi_call(eid::base, fid::base::get_impl_version);
    note("impl version 0x%lx", r.value);
    clause("base/get_impl_version/value");
    if (conformance_mode()) info("impl_version", "error=%ld value=0x%lx", r.error, r.value);
    else expect_err(r, SUCCESS, "impl_version/error");
}

void machine_ids() {
    SbiRet r = sbi_call(eid::base, fid::base::get_mvendorid);
    clause("base/get_mvendorid/legal");
    expect_err(r, SUCCESS, "mvendorid/error");
    // mvendorid is a 32-bit CSR on every XLEN (JEDEC bank and offset).
    expect_eq(upper32(r.value), 0, "mvendorid/legal_32bit");
    clause("base/get_mvendorid/is_csr");
    expect_eq(r.value, kCpuMvendorid, "mvendorid/is_csr");
    r = sbi_call(eid::base, fid::base::get_marchid);
    clause("base/get_marchid/legal");
    expect_err(r, SUCCESS, "marchid/error");
    clause("base/get_marchid/is_csr");
    expect_eq(r.value, kCpuMarchid, "marchid/is_csr");
    r = sbi_call(eid::base, fid::base::get_mimpid);
    clause("base/get_mimpid/legal");
    expect_err(r, SUCCESS, "mimpid/error");
    clause("base/get_mimpid/is_csr");
    expect_eq(r.value, kCpuMimpid, "mimpid/is_csr");
}

void probes() {
    clause("base/probe_extension/tsbi_required");
    for (const Ext &e : kRequired) {
        SbiRet r = sbi_probe(e.eid);
        if (conformance_mode()) {
            char name[48];
            snprintf(name, sizeof name, "probe/%s", e.name);
            info(name, "error %ld value %lu", r.error, r.value);
            continue;
        }
        expect_err(r, SUCCESS, "probe/%s/error", e.name);
        expect_true(r.value != 0, "probe/%s/available", e.name);
    }
    clause("base/probe_extension/unavailable_zero");
    for (long e : kUnknown) expect_ret(sbi_probe(e), SUCCESS, 0, "probe/unknown_0x%lx", e);
    // Extensions outside this suite's scope: whatever the probe says must
    // match the behaviour. Probe 0 => a call answers NOT_SUPPORTED. All-ones
    // arguments keep a mis-probed extension from doing anything drastic.
    for (const Ext &e : kOptional) {
        SbiRet r = sbi_probe(e.eid);
        note("probe %s = %ld/%lu", e.name, r.error, r.value);
        if (r.error == 0 && r.value == 0) {
            clause("encoding/unknown_eid/not_supported");
            SbiRet c = sbi_call(e.eid, 0, ~0ul, ~0ul, ~0ul, ~0ul, ~0ul, ~0ul);
            expect_err(c, ERR_NOT_SUPPORTED, "probe/%s/absent_means_not_supported", e.name);
        } else {
            clause("base/probe_extension/returns");
            expect_err(r, SUCCESS, "probe/%s/error", e.name);
        }
    }
    clause("base/probe_extension/returns");
    for (const Ext &e : kLegacyOther) {
        SbiRet r = sbi_probe(e.eid);
        note("probe %s = %ld/%lu", e.name, r.error, r.value);
        expect_err(r, SUCCESS, "probe/%s/error", e.name);
    }
}

void unknown_calls() {
    clause("encoding/unknown_eid/not_supported");
    for (long e : kUnknown) {
        expect_err(sbi_call(e, 0), ERR_NOT_SUPPORTED, "unknown_eid_0x%lx/fid0", e);
        expect_err(sbi_call(e, 1, 1, 2, 3), ERR_NOT_SUPPORTED, "unknown_eid_0x%lx/fid1", e);
    }
    expect_alive("unknown_eid");
    clause("encoding/unknown_fid/not_supported");
    for (const Fid &f : kUnknownFids)
        expect_err(sbi_call(f.eid, f.fid, f.a0, 0, 0), ERR_NOT_SUPPORTED,
                   "unknown_fid/%s/0x%lx", f.ext, f.fid);
    expect_alive("unknown_fid");
}

void registers_preserved() {
    struct Call {
        const char *name;
        long eid, fid;
        unsigned long a0, a1, a2, a3, a4, a5;
        bool legacy;
    };
    const unsigned long self = hartid();
    const Call calls[] = {
        {"get_spec_version", eid::base, 0, 11, 12, 13, 14, 15, 16, false},
        {"probe", eid::base, 3, eid::time, 12, 13, 14, 15, 16, false},
        {"get_mimpid", eid::base, 6, 11, 12, 13, 14, 15, 16, false},
        {"unknown_eid", 0x12345678, 0, 11, 12, 13, 14, 15, 16, false},
        {"unknown_fid", eid::base, 0x55, 11, 12, 13, 14, 15, 16, false},
        {"set_timer_max", eid::time, 0, ~0ul, 12, 13, 14, 15, 16, false},
        {"send_ipi_none", eid::ipi, 0, 0, 0, 13, 14, 15, 16, false},
        {"remote_fence_i_none", eid::rfence, 0, 0, 0, 13, 14, 15, 16, false},
        {"sfence_vma_self", eid::rfence, 1, 1, self, 0, 0, 15, 16, false},
        {"hart_get_status", eid::hsm, 2, self, 12, 13, 14, 15, 16, false},
        {"srst_reserved", eid::srst, 0, 3, 0, 13, 14, 15, 16, false},
        {"dbcn_write_byte", eid::dbcn, 2, '\n', 12, 13, 14, 15, 16, false},
        {"legacy_putchar", eid::legacy_console_putchar, 0, '\n', 12, 13, 14, 15, 16, true},
        {"legacy_getchar", eid::legacy_console_getchar, 0, 11, 12, 13, 14, 15, 16, true},
    };
    clause("encoding/registers/preserved");
    for (const Call &c : calls) {
        unsigned long m = pl_ecall_clobbers(c.eid, c.fid, c.a0, c.a1, c.a2, c.a3, c.a4, c.a5);
        if (!c.legacy) m &= ~kClobberA1;
        char why[96];
        snprintf(why, sizeof why, "clobbered register mask 0x%lx (bit n = xn)", m);
        if (m == 0) pass("regs_preserved/%s", c.name);
        else fail(why, "regs_preserved/%s", c.name);
    }
}

// S-mode must not reach the firmware's memory (brief: "S-mode is
// untrusted"); the firmware starts at RAM base on QEMU virt.
volatile unsigned long sink;
// On a hart without PMP (QEMU 10's profile CPUs; the runner passes bootarg
// pmp=0) the firmware boots unprotected, as OpenSBI does, and says so at
// boot: nothing to check here, and a fetch from its region would run its
// code in S-mode.
void firmware_protected() {
    const unsigned long fw = platform().ram_base;
    clause("isolation/firmware_memory/protected");
    if (bootarg("pmp", 1) == 0) {
        not_applicable("bootarg pmp=0: the hart has no PMP", "fw_region");
        return;
    }
    unsigned long tval = 0;
    auto load = [](void *a) { sink = *static_cast<volatile unsigned long *>(a); };
    auto store = [](void *a) { *static_cast<volatile unsigned long *>(a) = 0x5a5a5a5a; };
    auto fetch = [](void *a) { reinterpret_cast<void (*)()>(a)(); };
    void *p = reinterpret_cast<void *>(fw);
    expect_eq(catch_exception(load, p, &tval), 5 /* load access fault */, "fw_region/load_faults");
    expect_eq(catch_exception(store, p, &tval), 7 /* store access fault */,
              "fw_region/store_faults");
    expect_eq(catch_exception(fetch, p, &tval), 1 /* instruction access fault */,
              "fw_region/fetch_faults");
    expect_alive("fw_region");
    // The M-level AIA controllers (the APLIC root domain, the M-level IMSIC
    // files) are M-mode's: the firmware disables their nodes and PMP closes
    // them, as OpenSBI does. Only loads are tried.
    for (unsigned i = 0; i < platform().n_aia_disabled; i++) {
        char name[48];
        snprintf(name, sizeof name, "aia/disabled_%lx_load_faults", platform().aia_disabled[i]);
        expect_eq(catch_exception(load, reinterpret_cast<void *>(platform().aia_disabled[i]), &tval), 5, name);
    }
    // The CLINT holds M-mode state (MSIP, mtimecmp): S-mode writing it could
    // raise M-mode interrupts or move M-mode's timer. Only loads are tried.
    if (!platform().clint_base) {
        not_applicable("no riscv,clint0 in the device tree", "clint");
        return;
    }
    void *msip = reinterpret_cast<void *>(platform().clint_base);
    void *mtimecmp = reinterpret_cast<void *>(platform().clint_base + 0x4000);
    expect_eq(catch_exception(load, msip, &tval), 5, "clint/msip_load_faults");
    bool load_faulted =
        expect_eq(catch_exception(load, mtimecmp, &tval), 5, "clint/mtimecmp_load_faults");
    // Store back what was read (or "never"), so a missing protection does
    // not change the timer.
    static unsigned long value;
    value = load_faulted ? ~0ul : sink;
    auto store_value = [](void *a) { *static_cast<volatile unsigned long *>(a) = value; };
    expect_eq(catch_exception(store_value, mtimecmp, &tval), 7, "clint/mtimecmp_store_faults");
    expect_alive("clint");
}

struct SmpIds {
    SbiRet spec, impl, probe;
};
void read_ids(void *arg) {
    auto *s = static_cast<SmpIds *>(arg);
    s->spec = sbi_call(eid::base, fid::base::get_spec_version);
    s->impl = sbi_call(eid::base, fid::base::get_impl_id);
    s->probe = sbi_probe(eid::hsm);
}

void smp() {
    if (platform().nharts < 2) return;
    if (!start_secondaries()) return;
    clause("base/all_harts/same_answers");
    SmpIds boot;
    read_ids(&boot);
    for (unsigned i = 0; i < platform().nharts; i++) {
        unsigned long h = platform().hartids[i];
        if (h == hartid()) continue;
        SmpIds s{};
        if (!run_on(h, read_ids, &s)) {
            fail("job timed out", "smp/hart%lu/base_calls", h);
            continue;
        }
        expect_true(s.spec.error == 0 && s.spec.value == boot.spec.value && s.impl.error == 0 &&
                        s.impl.value == boot.impl.value && s.probe.value == boot.probe.value,
                    "smp/hart%lu/base_calls", h);
    }
}

// Counter delegation (Smcdeleg/Ssccfg, "Counter Delegation"): where the
// device tree offers both, the firmware has set menvcfg.CDE with mcounteren
// all ones (and mstateen0's CSRIND bit for siselect/sireg*), so S-mode
// reaches every counter through siselect 0x40 + i and sireg*, and its
// inhibit bit through scountinhibit. The sireg* accesses below trap with
// CDE = 0 (so does scountinhibit by the spec; QEMU 10 lets it through).
#define CSRR(num)                                                                  \
    ({                                                                             \
        unsigned long v_;                                                          \
        asm volatile("csrr %0, %1" : "=r"(v_) : "i"(num) : "memory");              \
        v_;                                                                        \
    })
#define CSRW(num, val) asm volatile("csrw %0, %1" ::"i"(num), "r"((unsigned long)(val)) : "memory")
constexpr unsigned kSiselect = ctr::ind::siselect, kSireg = ctr::ind::sireg,
                   kSireg2 = ctr::ind::sireg2;
void counter_delegation() {
    using namespace csr::cdeleg;
    clause("hart/smode_extensions/counter_delegation");
    if (!has_isa_ext("smcdeleg") || !has_isa_ext("ssccfg") || !has_isa_ext("sscsrind")) {
        not_applicable("no smcdeleg, ssccfg and sscsrind in riscv,isa", "counter_delegation");
        return;
    }
    // siselect needs mstateen0.CSRIND (bit 60), which the firmware opens.
    // QEMU 10's RV32 write_mstateen0h (target/riscv/csr.c) has no CSRIND in
    // its write mask, so there siselect traps whatever M-mode writes.
    unsigned long cause = catch_exception([](void *) { CSRW(ctr::ind::siselect, kSelectBase); }, nullptr);
    if (cause != ~0ul && sizeof(long) == 4) {
        not_applicable("QEMU 10 RV32 keeps mstateen0h.CSRIND at 0: siselect traps",
                       "counter_delegation");
        return;
    }
    if (!expect_eq(cause, ~0ul, "counter_delegation/siselect_accessible")) return;
    cause = catch_exception([](void *) { (void)CSRR(csr::scountinhibit); }, nullptr);
    if (!expect_eq(cause, ~0ul, "counter_delegation/scountinhibit_readable")) return;
    // The delegated counters: scountinhibit is read-only 0 for the others
    // (WARL probe, as Linux's counter-delegation driver finds them). Inhibit
    // everything for an instant, then restore.
    unsigned long old = CSRR(csr::scountinhibit);
    CSRW(csr::scountinhibit, ~0ul);
    unsigned long deleg = CSRR(csr::scountinhibit);
    CSRW(csr::scountinhibit, old);
    info("counter_delegation/delegated", "scountinhibit WARL mask 0x%lx", deleg);
    expect_eq(deleg & 7, 5, "counter_delegation/cycle_instret_delegated_time_not");

    // cycle through sireg, between two direct reads.
    CSRW(kSiselect, kSelectBase + 0);
    unsigned long c0 = CSRR(csr::cycle);
    unsigned long cv = CSRR(kSireg);
    unsigned long c1 = CSRR(csr::cycle);
    expect_true(c0 <= cv && cv <= c1, "counter_delegation/sireg_reads_cycle");
    if (c0 > cv || cv > c1) note("cycle 0x%lx, sireg 0x%lx, cycle 0x%lx", c0, cv, c1);

    // siselect 0x41 (time) and sireg3 at any delegated select trap.
    CSRW(kSiselect, kSelectTime);
    cause = catch_exception([](void *) { (void)CSRR(ctr::ind::sireg); }, nullptr);
    expect_eq(cause, 2, "counter_delegation/time_select_illegal");
    CSRW(kSiselect, kSelectBase + 0);
    cause = catch_exception([](void *) { (void)CSRR(ctr::ind::sireg3); }, nullptr);
    expect_eq(cause, 2, "counter_delegation/sireg3_illegal");

    // hpmcounter3 written through sireg while inhibited reads back through
    // the counter CSR itself; its state is then put back.
    if (!(deleg & (1ul << 3))) {
        not_applicable("hpmcounter3 not delegated", "counter_delegation/sireg_writes_hpmcounter3");
        return;
    }
    old = CSRR(csr::scountinhibit);
    CSRW(csr::scountinhibit, old | 1ul << 3);
    CSRW(kSiselect, kSelectBase + 3);
    unsigned long val = CSRR(kSireg), evt = CSRR(kSireg2);
    constexpr unsigned long kMark = 0x5a5a1234;
    CSRW(kSireg, kMark);
    unsigned long got = CSRR(csr::hpmcounter3);
    CSRW(kSireg, val);
    CSRW(kSireg2, evt);
    CSRW(csr::scountinhibit, old);
    expect_eq(got, kMark, "counter_delegation/sireg_writes_hpmcounter3");
}

// Extensions S-mode can use only after M-mode enabled them (firmware
// core/hart_enables.hpp): where the device tree lists one, its instructions
// run in S-mode without an exception.
alignas(64) unsigned char cbo_block[64];
void smode_extensions() {
    struct Use {
        const char *ext, *name;
        void (*fn)(void *);
    };
    // seed must be read with a read-write instruction (Zkr); the cbo.*
    // operands are the 64-byte block (QEMU's cache block size).
    static const Use kUses[] = {
        {"zkr", "zkr_seed_read", [](void *) {
             unsigned long v;
             asm volatile("csrrw %0, 0x015, x0" : "=r"(v)::"memory");
         }},
        {"zicboz", "zicboz_cbo_zero", [](void *a) {
             asm volatile(".insn i 0x0f, 2, x0, %0, 4" ::"r"(a) : "memory");
         }},
        {"zicbom", "zicbom_cbo_clean", [](void *a) {
             asm volatile(".insn i 0x0f, 2, x0, %0, 1" ::"r"(a) : "memory");
         }},
        {"zicbom", "zicbom_cbo_inval", [](void *a) {
             asm volatile(".insn i 0x0f, 2, x0, %0, 0" ::"r"(a) : "memory");
         }},
    };
    clause("hart/smode_extensions/enabled");
    for (const Use &u : kUses) {
        if (!has_isa_ext(u.ext)) {
            not_applicable("not in riscv,isa", "smode_extensions/%s", u.name);
            continue;
        }
        unsigned long tval = 0;
        unsigned long cause = catch_exception(u.fn, cbo_block, &tval);
        expect_eq(cause, ~0ul, "smode_extensions/%s", u.name);
    }
    // Ssccfg is usable only with menvcfg.CDE, which the firmware sets where
    // the hart has Smcdeleg: the device tree offers it only with Smcdeleg.
    clause("hart/smode_extensions/withheld");
    expect_true(!has_isa_ext("ssccfg") || has_isa_ext("smcdeleg"),
                "smode_extensions/ssccfg_only_with_smcdeleg");
    counter_delegation();
}
} // namespace

void payload_main() {
    spec_version();
    impl();
    machine_ids();
    probes();
    unknown_calls();
    registers_preserved();
    firmware_protected();
    smode_extensions();
    smp();
}
