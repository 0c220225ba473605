// SPDX-License-Identifier: BSD-2-Clause
// Supervisor Software Events extension (ext-sse.adoc): every function and
// error case. Hart mask/unmask, reserved/platform IDs (INVALID_PARAM) and
// standard events QEMU virt cannot back (NOT_SUPPORTED), event IDs and
// attribute arguments with garbage above bit 31, attribute reset values,
// ranges, addresses, read-only attributes and the state rules, the state
// machine with its INVALID_STATE cases, delivery (on inject, on unmask, on
// enable, one-shot), the interrupted state seen and changed by the handler,
// registers preserved across an injection, priorities and preemption,
// injection across harts (local and global events, PREFERRED_HART), and a
// Sscofpmf counter overflow delivered as LOCAL_PMU_OVERFLOW with the
// interrupted context (every GPR, sepc, sstatus) restored exactly.
#include "payload.hpp"
#include "payload_asm.h"
#include "riscv/csr.hpp"
#include "sbi/sse_events.hpp"

using namespace pl;

PAYLOAD_NAME("sse");

namespace {

// Function, event and attribute IDs as the firmware defines them.
using namespace sbi::sse;
constexpr long kSse = sbi::eid::sse;
constexpr unsigned long ST_UNUSED = 0, ST_REGISTERED = 1, ST_ENABLED = 2, ST_RUNNING = 3;
constexpr unsigned long kPending = 1ul << 2, kInjectable = 1ul << 3, kOneshot = 1;
constexpr long ERR_INVALID_STATE = code(sbi::Error::InvalidState);
constexpr long ERR_BAD_RANGE = code(sbi::Error::BadRange);
constexpr unsigned long kSpp = 1ul << 8, kSpie = 1ul << 5, kSie = 1ul << 1;

SbiRet call(long f, unsigned long a0 = 0, unsigned long a1 = 0, unsigned long a2 = 0,
            unsigned long a3 = 0, unsigned long a4 = 0) {
    return sbi_call(kSse, f, a0, a1, a2, a3, a4);
}
SbiRet read_attrs(unsigned long id, unsigned long base, unsigned long n, void *buf) {
    return call(READ_ATTRS, id, base, n, reinterpret_cast<unsigned long>(buf), 0);
}
SbiRet write_attrs(unsigned long id, unsigned long base, unsigned long n, const void *buf) {
    return call(WRITE_ATTRS, id, base, n, reinterpret_cast<unsigned long>(buf), 0);
}
unsigned long attr(unsigned long id, unsigned long a) {
    unsigned long v = ~0ul;
    read_attrs(id, a, 1, &v);
    return v;
}
SbiRet set_attr(unsigned long id, unsigned long a, unsigned long v) {
    return write_attrs(id, a, 1, &v);
}
unsigned long state(unsigned long id) { return attr(id, STATUS) & 3; }
// STATUS with its "injection allowed" bit as tsbi sets it: in a conformance
// run that bit is the implementation's (the spec gives STATUS a reset value
// of zero and also a bit saying whether sbi_sse_inject may inject).
unsigned long inj(unsigned long status) {
    return conformance_mode() ? status | kInjectable : status;
}
bool is_global(unsigned long id) { return (id >> 15) & 1; }

// --- the handler side ------------------------------------------------------------
// One context per (hart, event): the entry trampoline saves every GPR in
// regs[] (as it found them: a6 = hart ID, a7 = ENTRY_ARG = this context),
// runs on its own stack, calls sse_handle(), restores every GPR except
// a6/a7 and calls sbi_sse_complete.
struct HCtx {
    unsigned long regs[32];
    unsigned long stack_top;
    unsigned long event_id;
    unsigned long sepc, sstatus;            // at handler entry
    unsigned long interrupted[4];           // INTERRUPTED_SEPC..A7 read at entry
    unsigned long status_at_entry;
    volatile unsigned long count;           // handler runs completed
    void (*action)(HCtx *);
    unsigned long hart;
};
static_assert(__builtin_offsetof(HCtx, stack_top) == 32 * sizeof(long));

constexpr unsigned kEvents = 4; // LOCAL_SOFTWARE, GLOBAL_SOFTWARE, LOCAL_PMU_OVERFLOW, LOCAL_DOUBLE_TRAP
constexpr unsigned kStack = 2048;
HCtx ctxs[kMaxHarts][kEvents];
alignas(16) char stacks[kMaxHarts][kEvents][kStack];

// Order of handler starts and ends on each hart, for the priority tests.
constexpr unsigned kLogLen = 16;
struct Log {
    uint64_t e[kLogLen];
    volatile unsigned n;
};
Log logs[kMaxHarts];
void log_add(uint64_t v) {
    Log &l = logs[hart_index(hartid())];
    if (l.n < kLogLen) l.e[l.n] = v;
    l.n = l.n + 1;
}
constexpr uint64_t kEnd = 1ull << 40; // log entry: event ID | kEnd when it ends

unsigned ev_slot(unsigned long id) {
    return id == LOCAL_SOFTWARE ? 0 : id == GLOBAL_SOFTWARE ? 1 : id == LOCAL_PMU_OVERFLOW ? 2 : 3;
}
HCtx &ctx_for(unsigned long hart, unsigned long id) {
    return ctxs[hart_index(hart)][ev_slot(id)];
}

extern "C" void sse_handle(HCtx *c) {
    c->sepc = csr_read(csr::sepc);
    c->sstatus = csr_read(csr::sstatus);
    read_attrs(c->event_id, INTERRUPTED_SEPC, 4, c->interrupted);
    c->status_at_entry = attr(c->event_id, STATUS);
    log_add(c->event_id);
    if (c->action) c->action(c);
    log_add(c->event_id | kEnd);
    c->count = c->count + 1;
}

extern "C" void sse_entry();
asm(PL_ASM_XLEN_MACROS);
asm(R"(
    .text
    .align 2
    .globl sse_entry
sse_entry:
    REG_S x1, 1*SZREG(a7)
    REG_S x2, 2*SZREG(a7)
    REG_S x3, 3*SZREG(a7)
    REG_S x4, 4*SZREG(a7)
    REG_S x5, 5*SZREG(a7)
    REG_S x6, 6*SZREG(a7)
    REG_S x7, 7*SZREG(a7)
    REG_S x8, 8*SZREG(a7)
    REG_S x9, 9*SZREG(a7)
    REG_S x10, 10*SZREG(a7)
    REG_S x11, 11*SZREG(a7)
    REG_S x12, 12*SZREG(a7)
    REG_S x13, 13*SZREG(a7)
    REG_S x14, 14*SZREG(a7)
    REG_S x15, 15*SZREG(a7)
    REG_S x16, 16*SZREG(a7)
    REG_S x17, 17*SZREG(a7)
    REG_S x18, 18*SZREG(a7)
    REG_S x19, 19*SZREG(a7)
    REG_S x20, 20*SZREG(a7)
    REG_S x21, 21*SZREG(a7)
    REG_S x22, 22*SZREG(a7)
    REG_S x23, 23*SZREG(a7)
    REG_S x24, 24*SZREG(a7)
    REG_S x25, 25*SZREG(a7)
    REG_S x26, 26*SZREG(a7)
    REG_S x27, 27*SZREG(a7)
    REG_S x28, 28*SZREG(a7)
    REG_S x29, 29*SZREG(a7)
    REG_S x30, 30*SZREG(a7)
    REG_S x31, 31*SZREG(a7)
    REG_L sp, 32*SZREG(a7)
    .option push
    .option norelax
    la gp, __global_pointer$
    .option pop
    mv tp, a6
    mv s0, a7
    mv a0, a7
    call sse_handle
    mv a7, s0
    REG_L x1, 1*SZREG(a7)
    REG_L x2, 2*SZREG(a7)
    REG_L x3, 3*SZREG(a7)
    REG_L x4, 4*SZREG(a7)
    REG_L x5, 5*SZREG(a7)
    REG_L x6, 6*SZREG(a7)
    REG_L x7, 7*SZREG(a7)
    REG_L x8, 8*SZREG(a7)
    REG_L x9, 9*SZREG(a7)
    REG_L x10, 10*SZREG(a7)
    REG_L x11, 11*SZREG(a7)
    REG_L x12, 12*SZREG(a7)
    REG_L x13, 13*SZREG(a7)
    REG_L x14, 14*SZREG(a7)
    REG_L x15, 15*SZREG(a7)
    REG_L x18, 18*SZREG(a7)
    REG_L x19, 19*SZREG(a7)
    REG_L x20, 20*SZREG(a7)
    REG_L x21, 21*SZREG(a7)
    REG_L x22, 22*SZREG(a7)
    REG_L x23, 23*SZREG(a7)
    REG_L x24, 24*SZREG(a7)
    REG_L x25, 25*SZREG(a7)
    REG_L x26, 26*SZREG(a7)
    REG_L x27, 27*SZREG(a7)
    REG_L x28, 28*SZREG(a7)
    REG_L x29, 29*SZREG(a7)
    REG_L x30, 30*SZREG(a7)
    REG_L x31, 31*SZREG(a7)
    li a6, 6
    li a7, 0x535345
    ecall
    /* sbi_sse_complete does not return here */
1:  j 1b
)");

SbiRet reg(unsigned long id, void (*action)(HCtx *) = nullptr) {
    HCtx &c = ctx_for(hartid(), id);
    c.event_id = id;
    c.action = action;
    c.hart = hartid();
    c.count = 0;
    c.stack_top = reinterpret_cast<unsigned long>(
        &stacks[hart_index(hartid())][ev_slot(id)][kStack]);
    return call(REGISTER, id, reinterpret_cast<unsigned long>(sse_entry),
                reinterpret_cast<unsigned long>(&c));
}
// Registered and enabled on this hart (global events preferring it).
bool setup(unsigned long id, void (*action)(HCtx *) = nullptr, unsigned long prio = 0) {
    if (reg(id, action).error) return false;
    if (set_attr(id, PRIORITY, prio).error) return false;
    if (is_global(id) && set_attr(id, PREFERRED_HART, hartid()).error) return false;
    return call(ENABLE, id).error == 0;
}
void teardown(unsigned long id) {
    call(DISABLE, id);
    call(UNREGISTER, id);
}

bool pmu_event_backed;
// Ssdbltrp: FWFT offers DOUBLE_TRAP (project QEMU 10 with ssdbltrp=true).
bool double_trap_backed;
const unsigned long kOurEvents[] = {LOCAL_SOFTWARE, GLOBAL_SOFTWARE, LOCAL_PMU_OVERFLOW,
                                    LOCAL_DOUBLE_TRAP};
const char *name_of(unsigned long id) {
    return id == LOCAL_SOFTWARE    ? "local_sw"
           : id == GLOBAL_SOFTWARE ? "global_sw"
           : id == LOCAL_DOUBLE_TRAP ? "double_trap"
                                   : "pmu_ovf";
}

// --- discovery, mask, IDs ------------------------------------------------------------------
void test_mask() {
    clause("base/probe_extension/tsbi_required");
    expect_ret(sbi_probe(kSse), SUCCESS, 1, "probe");
    clause("sse/hart_mask/initially_masked");
    expect_err(call(HART_MASK), ERR_ALREADY_STOPPED, "mask/masked_at_boot");
    clause("sse/hart_unmask/unmasks");
    expect_err(call(HART_UNMASK), SUCCESS, "mask/unmask");
    clause("sse/hart_unmask/ALREADY_STARTED");
    expect_err(call(HART_UNMASK), ERR_ALREADY_STARTED, "mask/unmask_twice");
    clause("sse/hart_mask/masks");
    expect_err(call(HART_MASK), SUCCESS, "mask/mask");
    clause("sse/hart_mask/ALREADY_STOPPED");
    expect_err(call(HART_MASK), ERR_ALREADY_STOPPED, "mask/mask_twice");
    clause("sse/complete/nothing_running");
    // Completing with nothing running does nothing and succeeds.
    expect_ret(call(COMPLETE, 0x1234, 0x5678), SUCCESS, 0, "complete/nothing_running");
    clause("encoding/unknown_fid/not_supported");
    const long fids[] = {10, 11, 100, -1};
    for (long f : fids)
        expect_err(call(f), ERR_NOT_SUPPORTED, "fid/%ld_not_supported", f);
}

// Every FID taking an event ID answers `want` for `id`. A platform-specific
// ID (bit 14) is INVALID_PARAM when unimplemented (tsbi, QEMU virt) and
// NOT_SUPPORTED when implemented but a dependency is missing: a conformance
// run accepts both.
void expect_every_fid(unsigned long id, long want, const char *what) {
    const bool platform_specific = (id >> 14) & 1;
    const char *code = want == ERR_NOT_SUPPORTED ? "NOT_SUPPORTED" : "INVALID_PARAM";
    const long alt = platform_specific && want == ERR_INVALID_PARAM ? ERR_NOT_SUPPORTED : want;
    auto cl = [&](const char *fn) {
        if (platform_specific) clause("sse/event_id/platform_specific");
        else clause("sse/%s/%s", fn, code);
    };
    // expect_err_or() when a second answer is allowed, else expect_err().
    auto check = [&](SbiRet r, const char *fn) {
        if (alt != want) expect_err_or(r, want, alt, "%s/0x%lx/%s", what, id, fn);
        else expect_err(r, want, "%s/0x%lx/%s", what, id, fn);
    };
    unsigned long v[2] = {};
    cl("read_attrs");
    check(read_attrs(id, PRIORITY, 1, v), "read_attrs");
    cl("write_attrs");
    check(write_attrs(id, PRIORITY, 1, v), "write_attrs");
    cl("register");
    check(call(REGISTER, id, reinterpret_cast<unsigned long>(sse_entry), 0), "register");
    cl("unregister");
    check(call(UNREGISTER, id), "unregister");
    cl("enable");
    check(call(ENABLE, id), "enable");
    cl("disable");
    check(call(DISABLE, id), "disable");
    cl("inject");
    check(call(INJECT, id, hartid()), "inject");
}

void test_ids() {
    // Reserved and platform-specific IDs (QEMU virt defines none).
    const unsigned long invalid[] = {0x2,     0x3fff,  0x4000,  0x7fff,     0x8001,     0xc000,
                                     0x10001, 0x14000, 0x18000, 0x1c000,    0x20000,    0xffff0001,
                                     0xffff4000, 0xffff8001, 0xffffc000, 0xffffffff};
    for (unsigned long id : invalid) expect_every_fid(id, ERR_INVALID_PARAM, "invalid_id");
    // Standard events QEMU virt cannot back.
    const unsigned long unbacked[] = {LOCAL_HIGH_PRIO_RAS, LOCAL_DOUBLE_TRAP, GLOBAL_HIGH_PRIO_RAS,
                                      LOCAL_LOW_PRIO_RAS, GLOBAL_LOW_PRIO_RAS};
    for (unsigned long id : unbacked) {
        // A RAS event may have a source QEMU virt lacks (firmware-first
        // error handling): a firmware that offers one is conformant, so a
        // conformance run reports it and cleans up. Double trap and PMU
        // overflow need a hart extension QEMU 7.2 lacks: NOT_SUPPORTED.
        unsigned long v = 0;
        if (id == LOCAL_DOUBLE_TRAP && double_trap_backed) continue;
        if (conformance_mode() && id != LOCAL_DOUBLE_TRAP &&
            read_attrs(id, STATUS, 1, &v).error == SUCCESS) {
            clause("sse/event_id/ras_offered");
            char name[48];
            snprintf(name, sizeof name, "not_supported/0x%lx/offered", id);
            info(name, "event offered by the firmware (STATUS 0x%lx)", v);
            call(UNREGISTER, id);
            continue;
        }
        expect_every_fid(id, ERR_NOT_SUPPORTED, "not_supported");
    }
    if (!pmu_event_backed) expect_every_fid(LOCAL_PMU_OVERFLOW, ERR_NOT_SUPPORTED, "no_sscofpmf");
}

// --- attributes ------------------------------------------------------------------------------
unsigned long lowest_hart() { return platform().hartids[0]; }

void test_attrs(unsigned long id) {
    const char *n = name_of(id);
    const bool global = is_global(id);
    unsigned long all[kNumAttrs + 2];
    for (auto &v : all) v = 0x5a5a;
    clause("sse/read_attrs/reads");
    expect_err(read_attrs(id, 0, kNumAttrs, all), SUCCESS, "%s/attrs/read_all", n);
    // PREFERRED_HART's reset value is the implementation's (tsbi: the
    // calling hart, the lowest hart for a global event); in a conformance
    // run any valid hart ID passes.
    const unsigned long pref = global ? lowest_hart() : hartid();
    unsigned long bad = 0;
    for (unsigned a = 0; a < kNumAttrs; a++) {
        unsigned long want = a == STATUS ? kInjectable : a == PREFERRED_HART ? pref : 0;
        unsigned long got = a == STATUS ? inj(all[a]) : all[a];
        if (a == PREFERRED_HART && conformance_mode() && hart_index(got) < kMaxHarts &&
            platform().hartids[hart_index(got)] == got)
            got = want;
        if (got != want) bad |= 1ul << a;
        if (attr(id, a) != all[a]) bad |= 1ul << (16 + a);
    }
    clause("sse/attrs/reset_values");
    expect_eq(bad, 0, "%s/attrs/reset_values_and_single_reads", n);
    clause("sse/read_attrs/reads");
    expect_eq(all[kNumAttrs], 0x5a5a, "%s/attrs/no_write_past_count", n);
    clause("encoding/32bit_args/sse");
    // Garbage above bit 31 of event_id, base_attr_id and attr_count.
    unsigned long v = ~0ul;
    expect_ret(call(READ_ATTRS, id | kUpper32, STATUS | kUpper32, 1 | kUpper32,
                    reinterpret_cast<unsigned long>(&v)),
               SUCCESS, 0, "%s/attrs/upper_bits_ignored", n);
    expect_eq(inj(v), kInjectable, "%s/attrs/upper_bits_value", n);

    // Ranges and addresses, for read and write alike.
    struct {
        unsigned long base, count;
        long want;
        const char *what;
    } ranges[] = {{0, 0, ERR_INVALID_PARAM, "count_0"},
                  {kNumAttrs, 1, ERR_BAD_RANGE, "base_10"},
                  {INTERRUPTED_A7, 2, ERR_BAD_RANGE, "past_a7"},
                  {0, kNumAttrs + 1, ERR_BAD_RANGE, "count_11"},
                  {0xffffffff, 2, ERR_BAD_RANGE, "base_wraps_32"},
                  {1, 0xffffffff, ERR_BAD_RANGE, "count_huge"}};
    unsigned long buf[kNumAttrs + 1] = {};
    for (auto &r : ranges) {
        const char *code = r.want == ERR_BAD_RANGE ? "BAD_RANGE" : "INVALID_PARAM";
        clause("sse/read_attrs/%s", code);
        expect_err(read_attrs(id, r.base, r.count, buf), r.want, "%s/read/%s", n, r.what);
        clause("sse/write_attrs/%s", code);
        expect_err(write_attrs(id, r.base, r.count, buf), r.want, "%s/write/%s", n, r.what);
    }
    const Platform &p = platform();
    struct {
        unsigned long lo, hi;
        const char *what;
    } addrs[] = {{reinterpret_cast<unsigned long>(buf) + 1, 0, "misaligned"},
                 {reinterpret_cast<unsigned long>(buf) + sizeof(long) / 2, 0,
                  kXlen == 64 ? "misaligned_4" : "misaligned_2"},
                 {reinterpret_cast<unsigned long>(buf), 1, "phys_hi"},
                 {p.fw_base, 0, "firmware"},
                 {p.fw_base + p.fw_size - 8, 0, "firmware_end"},
                 {0, 0, "null"},
                 {p.ram_base + p.ram_size - sizeof(long), 0, "straddles_ram_end"},
                 {p.ram_base + p.ram_size, 0, "past_ram"},
                 {~7ul, 0, "top_of_address_space"},
                 {p.clint_base, 0, "mmio"}};
    for (auto &a : addrs) {
        unsigned long count = a.lo == p.ram_base + p.ram_size - sizeof(long) ? 2 : 1;
        clause("sse/read_attrs/INVALID_ADDRESS");
        expect_err(call(READ_ATTRS, id, STATUS, count, a.lo, a.hi), ERR_INVALID_ADDRESS,
                   "%s/read/%s", n, a.what);
        clause("sse/write_attrs/INVALID_ADDRESS");
        expect_err(call(WRITE_ATTRS, id, PRIORITY, count, a.lo, a.hi), ERR_INVALID_ADDRESS,
                   "%s/write/%s", n, a.what);
    }

    clause("sse/write_attrs/DENIED");
    // Read-only attributes and values.
    const unsigned long read_only[] = {STATUS, ENTRY_PC, ENTRY_ARG};
    for (unsigned long a : read_only)
        expect_err(set_attr(id, a, 0), ERR_DENIED, "%s/write/read_only_%lu", n, a);
    if (global) {
        clause("sse/write_attrs/INVALID_PARAM");
        expect_err(set_attr(id, PREFERRED_HART, 0xffffffff), ERR_INVALID_PARAM,
                   "%s/write/preferred_invalid", n);
        expect_err(set_attr(id, PREFERRED_HART, p.max_hartid + 1), ERR_INVALID_PARAM,
                   "%s/write/preferred_beyond_last", n);
        clause("sse/write_attrs/writes");
        expect_err(set_attr(id, PREFERRED_HART, p.hartids[p.nharts - 1]), SUCCESS,
                   "%s/write/preferred_last_hart", n);
        expect_eq(attr(id, PREFERRED_HART), p.hartids[p.nharts - 1], "%s/read/preferred", n);
        set_attr(id, PREFERRED_HART, hartid());
    } else {
        clause("sse/write_attrs/DENIED");
        expect_err(set_attr(id, PREFERRED_HART, hartid()), ERR_DENIED,
                   "%s/write/preferred_read_only_local", n);
    }
    // PRIORITY: "only lower 32-bits of the value are used": refusing bits
    // above (tsbi) or dropping them both follow it. Only RV64 can pass more.
    if constexpr (kXlen == 64) {
        clause("sse/write_attrs/priority_upper_bits");
        SbiRet rp = set_attr(id, PRIORITY, static_cast<unsigned long>(1ull << 32));
        expect_err_or(rp, ERR_INVALID_PARAM, SUCCESS, "%s/write/priority_64bit", n);
        if (rp.error == SUCCESS) {
            expect_eq(attr(id, PRIORITY), 0, "%s/write/priority_64bit_low_bits", n);
            set_attr(id, PRIORITY, 0);
        }
    }
    clause("sse/write_attrs/INVALID_PARAM");
    expect_err(set_attr(id, CONFIG, 2), ERR_INVALID_PARAM, "%s/write/config_reserved", n);
    expect_err(set_attr(id, CONFIG, ~0ul), ERR_INVALID_PARAM, "%s/write/config_all_ones", n);
    clause("sse/write_attrs/INVALID_STATE");
    for (unsigned long a = INTERRUPTED_SEPC; a <= INTERRUPTED_A7; a++)
        expect_err(set_attr(id, a, 0), ERR_INVALID_STATE, "%s/write/interrupted_%lu_unused", n, a);
    clause("sse/write_attrs/writes");
    // Several at once: written in order, all or nothing.
    unsigned long pc[2] = {0xffffffff, kOneshot};
    expect_err(write_attrs(id, PRIORITY, 2, pc), SUCCESS, "%s/write/priority_and_config", n);
    expect_eq(attr(id, PRIORITY), 0xffffffff, "%s/read/priority", n);
    expect_eq(attr(id, CONFIG), kOneshot, "%s/read/config", n);
    clause("sse/write_attrs/first_error");
    unsigned long bad_second[2] = {7, 2};
    expect_err(write_attrs(id, PRIORITY, 2, bad_second), ERR_INVALID_PARAM,
               "%s/write/second_invalid", n);
    expect_eq(attr(id, PRIORITY), 0xffffffff, "%s/write/all_or_nothing", n);
    // STATUS (denied) before PRIORITY (invalid on RV64; valid on RV32, where
    // the denied STATUS must still leave it unwritten).
    unsigned long first_error[3] = {0, 0, static_cast<unsigned long>(1ull << 32)};
    expect_err(write_attrs(id, STATUS, 3, first_error), ERR_DENIED, "%s/write/first_error", n);
    unsigned long zero[2] = {};
    write_attrs(id, PRIORITY, 2, zero);
}

// --- the state machine -----------------------------------------------------------------------
void test_states(unsigned long id) {
    const char *n = name_of(id);
    const unsigned long entry = reinterpret_cast<unsigned long>(sse_entry);
    clause("sse/unregister/INVALID_STATE");
    expect_err(call(UNREGISTER, id), ERR_INVALID_STATE, "%s/sm/unregister_unused", n);
    clause("sse/enable/INVALID_STATE");
    expect_err(call(ENABLE, id), ERR_INVALID_STATE, "%s/sm/enable_unused", n);
    clause("sse/disable/INVALID_STATE");
    expect_err(call(DISABLE, id), ERR_INVALID_STATE, "%s/sm/disable_unused", n);
    clause("sse/register/INVALID_PARAM");
    expect_err(call(REGISTER, id, entry + 1, 0), ERR_INVALID_PARAM, "%s/sm/register_odd_pc", n);
    expect_eq(state(id), ST_UNUSED, "%s/sm/odd_pc_leaves_unused", n);
    clause("sse/register/registers");
    expect_err(call(REGISTER, id | kUpper32, entry, 0x1234), SUCCESS, "%s/sm/register", n);
    expect_eq(state(id), ST_REGISTERED, "%s/sm/registered", n);
    expect_eq(attr(id, ENTRY_PC), entry, "%s/sm/entry_pc", n);
    expect_eq(attr(id, ENTRY_ARG), 0x1234, "%s/sm/entry_arg", n);
    clause("sse/register/INVALID_STATE");
    expect_err(call(REGISTER, id, entry, 0), ERR_INVALID_STATE, "%s/sm/register_twice", n);
    clause("sse/disable/INVALID_STATE");
    expect_err(call(DISABLE, id), ERR_INVALID_STATE, "%s/sm/disable_registered", n);
    clause("sse/write_attrs/writes");
    expect_err(set_attr(id, PRIORITY, 3), SUCCESS, "%s/sm/priority_registered", n);
    expect_err(set_attr(id, CONFIG, 0), SUCCESS, "%s/sm/config_registered", n);
    if (is_global(id))
        expect_err(set_attr(id, PREFERRED_HART, hartid()), SUCCESS, "%s/sm/preferred_registered", n);
    // Enabled while masked: nothing runs.
    clause("sse/enable/enables");
    expect_err(call(ENABLE, id | kUpper32), SUCCESS, "%s/sm/enable", n);
    expect_eq(state(id), ST_ENABLED, "%s/sm/enabled", n);
    clause("sse/enable/INVALID_STATE");
    expect_err(call(ENABLE, id), ERR_INVALID_STATE, "%s/sm/enable_twice", n);
    clause("sse/register/INVALID_STATE");
    expect_err(call(REGISTER, id, entry, 0), ERR_INVALID_STATE, "%s/sm/register_enabled", n);
    clause("sse/unregister/INVALID_STATE");
    expect_err(call(UNREGISTER, id), ERR_INVALID_STATE, "%s/sm/unregister_enabled", n);
    clause("sse/write_attrs/INVALID_STATE");
    expect_err(set_attr(id, PRIORITY, 4), ERR_INVALID_STATE, "%s/sm/priority_enabled", n);
    expect_err(set_attr(id, CONFIG, kOneshot), ERR_INVALID_STATE, "%s/sm/config_enabled", n);
    if (is_global(id))
        expect_err(set_attr(id, PREFERRED_HART, hartid()), ERR_INVALID_STATE,
                   "%s/sm/preferred_enabled", n);
    expect_err(set_attr(id, INTERRUPTED_A6, 0), ERR_INVALID_STATE, "%s/sm/interrupted_enabled", n);
    clause("sse/write_attrs/writes");
    expect_eq(attr(id, PRIORITY), 3, "%s/sm/priority_kept", n);
    clause("sse/disable/disables");
    expect_err(call(DISABLE, id | kUpper32), SUCCESS, "%s/sm/disable", n);
    expect_eq(state(id), ST_REGISTERED, "%s/sm/disabled", n);
    clause("sse/unregister/unregisters");
    expect_err(call(UNREGISTER, id | kUpper32), SUCCESS, "%s/sm/unregister", n);
    expect_eq(state(id), ST_UNUSED, "%s/sm/unused_again", n);
    set_attr(id, PRIORITY, 0);
}

// --- delivery on one hart --------------------------------------------------------------------
unsigned long running_results[8];
void in_handler_checks(HCtx *c) {
    const unsigned long id = c->event_id;
    unsigned long *r = running_results;
    r[0] = call(DISABLE, id).error;
    r[1] = call(UNREGISTER, id).error;
    r[2] = set_attr(id, PRIORITY, 1).error;
    unsigned long saved[4], mod[4] = {0x1000, 0x3f, 0xa6a6, 0xa7a7}, back[4] = {};
    read_attrs(id, INTERRUPTED_SEPC, 4, saved);
    r[3] = write_attrs(id, INTERRUPTED_SEPC, 4, mod).error;
    read_attrs(id, INTERRUPTED_SEPC, 4, back);
    r[4] = memcmp(back, mod, sizeof mod) == 0;
    r[5] = set_attr(id, INTERRUPTED_FLAGS, 1ul << 6).error;
    r[6] = set_attr(id, INTERRUPTED_FLAGS, 1ul << (kXlen == 64 ? 32 : 31)).error; // reserved
    write_attrs(id, INTERRUPTED_SEPC, 4, saved);
    r[7] = call(ENABLE, id).error;
}

void test_delivery(unsigned long id) {
    const char *n = name_of(id);
    const unsigned long me = hartid();
    HCtx &c = ctx_for(me, id);
    clause("sse/hart_mask/masked_pending");
    if (!expect_true(setup(id), "%s/deliver/setup", n)) return;
    // Masked: the injection stays pending.
    expect_err(call(INJECT, id, me), SUCCESS, "%s/deliver/inject_masked", n);
    expect_eq(c.count, 0, "%s/deliver/masked_not_run", n);
    expect_eq(inj(attr(id, STATUS)), ST_ENABLED | kPending | kInjectable, "%s/deliver/pending", n);
    clause("sse/inject/handler_state");
    // Unmask: it runs before the unmask call returns.
    c.action = in_handler_checks;
    const unsigned long ss = csr_read(csr::sstatus);
    expect_ret(call(HART_UNMASK), SUCCESS, 0, "%s/deliver/unmask", n);
    expect_eq(c.count, 1, "%s/deliver/ran_on_unmask", n);
    expect_eq(inj(c.status_at_entry), ST_RUNNING | kInjectable, "%s/deliver/running_not_pending", n);
    expect_eq(c.regs[16], me, "%s/deliver/a6_hartid", n);
    expect_eq(c.regs[17], reinterpret_cast<unsigned long>(&c), "%s/deliver/a7_entry_arg", n);
    expect_eq(c.interrupted[2], HART_UNMASK, "%s/deliver/interrupted_a6_fid", n);
    expect_eq(c.interrupted[3], kSse, "%s/deliver/interrupted_a7_eid", n);
    expect_eq(c.interrupted[1], ((ss & kSpp) ? 1 : 0) | ((ss & kSpie) ? 2 : 0),
              "%s/deliver/interrupted_flags", n);
    expect_true((c.sstatus & kSpp) && !(c.sstatus & kSie), "%s/deliver/handler_sstatus", n);
    expect_eq(c.regs[10], 0, "%s/deliver/a0_is_unmask_result", n);
    expect_eq(state(id), ST_ENABLED, "%s/deliver/enabled_after", n);
    const unsigned long *r = running_results;
    clause("sse/running/state_rules");
    expect_eq(r[0], ERR_INVALID_STATE, "%s/running/disable", n);
    expect_eq(r[1], ERR_INVALID_STATE, "%s/running/unregister", n);
    expect_eq(r[2], ERR_INVALID_STATE, "%s/running/priority", n);
    expect_eq(r[3], SUCCESS, "%s/running/write_interrupted", n);
    expect_eq(r[4], 1, "%s/running/read_back_interrupted", n);
    expect_eq(r[5], ERR_INVALID_PARAM, "%s/running/flags_bit6", n);
    expect_eq(r[6], ERR_INVALID_PARAM, "%s/running/flags_bit32", n);
    expect_eq(r[7], ERR_INVALID_STATE, "%s/running/enable", n);
    c.action = nullptr;

    clause("sse/inject/handler_state");
    // Inject while unmasked: runs inside the inject call.
    expect_ret(call(INJECT, id | kUpper32, me), SUCCESS, 0, "%s/deliver/inject", n);
    expect_eq(c.count, 2, "%s/deliver/ran_on_inject", n);
    expect_eq(c.interrupted[2], INJECT, "%s/deliver/interrupted_a6_inject", n);

    clause("sse/enable/pending_delivered");
    // Disabled: pending until enabled, then runs inside the enable call.
    call(DISABLE, id);
    clause("sse/inject/error_codes");
    expect_err_or(call(INJECT, id, me), SUCCESS, ERR_FAILED, "%s/deliver/inject_registered", n);
    clause("sse/enable/pending_delivered");
    expect_eq(c.count, 2, "%s/deliver/registered_not_run", n);
    expect_eq(inj(attr(id, STATUS)), ST_REGISTERED | kPending | kInjectable,
              "%s/deliver/registered_pending", n);
    expect_err(call(ENABLE, id), SUCCESS, "%s/deliver/enable_pending", n);
    expect_eq(c.count, 3, "%s/deliver/ran_on_enable", n);

    clause("sse/complete/oneshot");
    // One-shot: back to REGISTERED after completion.
    call(DISABLE, id);
    set_attr(id, CONFIG, kOneshot);
    call(ENABLE, id);
    expect_err(call(INJECT, id, me), SUCCESS, "%s/oneshot/inject", n);
    expect_eq(c.count, 4, "%s/oneshot/ran", n);
    expect_eq(state(id), ST_REGISTERED, "%s/oneshot/registered_after", n);
    clause("sse/inject/error_codes");
    expect_err_or(call(INJECT, id, me), SUCCESS, ERR_FAILED, "%s/oneshot/inject_again", n);
    clause("sse/complete/oneshot");
    expect_eq(c.count, 4, "%s/oneshot/not_run_again", n);
    set_attr(id, CONFIG, 0);
    call(UNREGISTER, id);
    clause("sse/inject/unused_ignored");
    // Unregistering dropped the pending injection; an UNUSED event ignores one.
    expect_eq(inj(attr(id, STATUS)), ST_UNUSED | kInjectable, "%s/unused/not_pending", n);
    clause("sse/inject/error_codes");
    expect_err_or(call(INJECT, id, me), SUCCESS, ERR_FAILED, "%s/unused/inject", n);
    clause("sse/inject/unused_ignored");
    expect_eq(inj(attr(id, STATUS)), ST_UNUSED | kInjectable, "%s/unused/ignored", n);
    if (!is_global(id)) {
        clause("sse/inject/INVALID_PARAM");
        expect_err(call(INJECT, id, platform().max_hartid + 1), ERR_INVALID_PARAM, "%s/inject/bad_hart", n);
        expect_err(call(INJECT, id, ~0ul), ERR_INVALID_PARAM, "%s/inject/hart_all_ones", n);
    } else {
        clause("sse/inject/global_hart_ignored");
        expect_err(call(INJECT, id, ~0ul), SUCCESS, "%s/inject/hart_ignored", n);
    }
    call(HART_MASK);
}

// --- registers across an injection --------------------------------------------------------------
// The whole register file (pl_ecall_checked patterns) survives an inject
// call that runs the handler and completes: the firmware saves and restores
// a6/a7 and returns the handler's a0/a1 from complete untouched.
void test_registers() {
    const unsigned long me = hartid();
    HCtx &c = ctx_for(me, LOCAL_SOFTWARE);
    clause("encoding/registers/sse_inject");
    if (!expect_true(setup(LOCAL_SOFTWARE), "regs/setup")) return;
    call(HART_UNMASK);
    const unsigned long in[8] = {LOCAL_SOFTWARE, me, 0, 0, 0, 0, INJECT, kSse};
    EcallOutcome o;
    pl_ecall_checked(in, &o);
    expect_eq(c.count, 1, "regs/handler_ran");
    expect_eq(o.clobbers & ~kClobberA1, 0, "regs/all_preserved");
    expect_eq(o.a0, 0, "regs/a0_success");
    expect_eq(o.cause, 0, "regs/no_exception");
    // At entry every register but a6/a7 (and a0/a1: the call's return) was
    // the interrupted one: the patterns of pl_ecall_checked.
    unsigned long bad = 0;
    const unsigned patterned[] = {1,  3,  4,  5,  6,  7,  8,  9,  18, 19, 20,
                                  21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};
    for (unsigned r : patterned)
        if (c.regs[r] != static_cast<unsigned long>(0x5A00000000000000ull >> (64 - kXlen)) +
                             (static_cast<unsigned long>(r) << 8) + r)
            bad |= 1ul << r;
    expect_eq(bad, 0, "regs/handler_saw_interrupted_registers");
    expect_eq(c.regs[10], 0, "regs/handler_a0_inject_result");
    expect_eq(c.sepc, reinterpret_cast<unsigned long>(pl_ecall_insn) + 4,
              "regs/handler_sepc_after_ecall");
    call(HART_MASK);
    teardown(LOCAL_SOFTWARE);
}

// --- priorities and preemption -----------------------------------------------------------------
unsigned long chain_next;       // event the running handler injects
unsigned long pending_in_handler; // STATUS of chain_next right after the inject
void inject_next(HCtx *) {
    if (!chain_next) return;
    unsigned long next = chain_next;
    chain_next = 0;
    call(INJECT, next, hartid());
    pending_in_handler = attr(next, STATUS);
}

// Runs a with prio pa, injecting b (prio pb) from its handler; returns the
// log (4 entries expected).
bool run_pair(unsigned long a, unsigned long pa, unsigned long b, unsigned long pb,
              uint64_t *out) {
    Log &l = logs[hart_index(hartid())];
    l.n = 0;
    if (!setup(a, inject_next, pa) || !setup(b, inject_next, pb)) return false;
    call(HART_UNMASK);
    chain_next = b;
    call(INJECT, a, hartid());
    call(HART_MASK);
    teardown(a);
    teardown(b);
    for (unsigned i = 0; i < 4; i++) out[i] = l.e[i];
    return l.n == 4;
}

void test_priorities() {
    const uint64_t L = LOCAL_SOFTWARE, G = GLOBAL_SOFTWARE, P = LOCAL_PMU_OVERFLOW;
    uint64_t o[4];
    // A higher-priority event preempts the running one at once.
    clause("sse/priority/preempts");
    expect_true(run_pair(L, 5, G, 1, o), "prio/higher/ran");
    expect_true(o[0] == L && o[1] == G && o[2] == (G | kEnd) && o[3] == (L | kEnd),
                "prio/higher/preempts");
    expect_eq(inj(pending_in_handler), ST_ENABLED | kInjectable, "prio/higher/not_pending_after");
    expect_eq(ctx_for(hartid(), G).interrupted[2], INJECT, "prio/higher/interrupted_a6");
    // A lower one waits until the running one completes.
    expect_true(run_pair(G, 1, L, 5, o), "prio/lower/ran");
    expect_true(o[0] == G && o[1] == (G | kEnd) && o[2] == L && o[3] == (L | kEnd),
                "prio/lower/waits");
    expect_eq(inj(pending_in_handler), ST_ENABLED | kPending | kInjectable, "prio/lower/pending");
    // Equal priority: the lower event ID goes first (L < G), so L preempts
    // nothing: G injected from L waits, L injected from G preempts.
    clause("sse/priority/tie_by_id");
    expect_true(run_pair(L, 7, G, 7, o), "prio/same/ran_lg");
    expect_true(o[0] == L && o[1] == (L | kEnd) && o[2] == G, "prio/same/higher_id_waits");
    expect_true(run_pair(G, 7, L, 7, o), "prio/same/ran_gl");
    expect_true(o[0] == G && o[1] == L && o[2] == (L | kEnd), "prio/same/lower_id_preempts");
    clause("sse/priority/value_before_id");
    // Priority beats event ID.
    if (pmu_event_backed) {
        expect_true(run_pair(L, 1, P, 2, o), "prio/value/ran");
        expect_true(o[0] == L && o[1] == (L | kEnd) && o[2] == P, "prio/value_before_id");
    }
    clause("sse/priority/preempts");
    // Both pending while masked: the higher runs first on unmask, the
    // other after it completes.
    Log &l = logs[hart_index(hartid())];
    l.n = 0;
    setup(L, nullptr, 9);
    setup(G, nullptr, 2);
    call(INJECT, L, hartid());
    call(INJECT, G, hartid());
    call(HART_UNMASK);
    expect_true(l.n == 4 && l.e[0] == G && l.e[1] == (G | kEnd) && l.e[2] == L,
                "prio/unmask_order");
    call(HART_MASK);
    teardown(L);
    teardown(G);
}

// --- other harts ------------------------------------------------------------------------------------
void job_setup_local(void *) {
    setup(LOCAL_SOFTWARE);
    call(HART_UNMASK);
}
void job_unmask(void *) { call(HART_UNMASK); }
void job_teardown_local(void *) {
    call(HART_MASK);
    teardown(LOCAL_SOFTWARE);
}
unsigned long job_result;
void job_read_local_status(void *) { job_result = attr(LOCAL_SOFTWARE, STATUS); }
void job_complete_nothing(void *) { job_result = call(COMPLETE).error; }

void test_harts() {
    if (platform().nharts < 2) return;
    const unsigned long sec = last_secondary();
    clause("sse/local/per_hart");
    // Local events are per hart.
    setup(LOCAL_SOFTWARE);
    run_on(sec, job_read_local_status, nullptr);
    expect_eq(inj(job_result), ST_UNUSED | kInjectable, "harts/local_state_per_hart");
    teardown(LOCAL_SOFTWARE);
    // A local event injected into another hart runs there.
    if (!expect_true(run_on(sec, job_setup_local, nullptr), "harts/secondary_setup")) return;
    HCtx &c = ctx_for(sec, LOCAL_SOFTWARE);
    expect_err(call(INJECT, LOCAL_SOFTWARE, sec), SUCCESS, "harts/inject_local_remote");
    expect_true(wait_until([&] { return c.count == 1; }, kPatience), "harts/local_ran_remote");
    expect_eq(c.regs[16], sec, "harts/local_a6_is_target");
    expect_eq(ctx_for(hartid(), LOCAL_SOFTWARE).count, 0, "harts/local_not_here");
    run_on(sec, job_teardown_local, nullptr);
    clause("sse/global/preferred_hart");
    // A global event runs on its preferred hart, whatever hart_id says.
    HCtx &g = ctx_for(hartid(), GLOBAL_SOFTWARE);
    reg(GLOBAL_SOFTWARE);
    run_on(sec, job_unmask, nullptr);
    set_attr(GLOBAL_SOFTWARE, PREFERRED_HART, sec);
    call(ENABLE, GLOBAL_SOFTWARE);
    call(HART_UNMASK);
    expect_err(call(INJECT, GLOBAL_SOFTWARE, hartid()), SUCCESS, "harts/inject_global");
    clause("sse/global/delivered");
    expect_true(wait_until([&] { return g.count == 1; }, kPatience), "harts/global_ran");
    clause("sse/global/preferred_hart");
    expect_eq(g.regs[16], sec, "harts/global_ran_on_preferred");
    expect_true(wait_until([] { return state(GLOBAL_SOFTWARE) == ST_ENABLED; }, kPatience),
                "harts/global_enabled_after");
    clause("sse/global/common_state");
    // Its state is common: disabled here, enabled from the secondary.
    call(DISABLE, GLOBAL_SOFTWARE);
    set_attr(GLOBAL_SOFTWARE, PREFERRED_HART, hartid());
    call(INJECT, GLOBAL_SOFTWARE, sec);
    expect_eq(g.count, 1, "harts/global_disabled_pending");
    // It runs once enabled only if the injection stayed pending (tsbi).
    clause("sse/enable/pending_delivered");
    run_on(sec, [](void *) { job_result = call(ENABLE, GLOBAL_SOFTWARE).error; }, nullptr);
    expect_eq(job_result, SUCCESS, "harts/global_enable_from_other_hart");
    expect_true(wait_until([&] { return g.count == 2; }, kPatience), "harts/global_ran_here");
    clause("sse/global/preferred_hart");
    expect_eq(g.regs[16], hartid(), "harts/global_ran_on_new_preferred");
    clause("sse/global/common_state");
    run_on(sec, [](void *) { job_result = call(DISABLE, GLOBAL_SOFTWARE).error; }, nullptr);
    expect_eq(job_result, SUCCESS, "harts/global_disable_from_other_hart");
    expect_eq(state(GLOBAL_SOFTWARE), ST_REGISTERED, "harts/global_state_common");
    run_on(sec, [](void *) { job_result = call(UNREGISTER, GLOBAL_SOFTWARE).error; }, nullptr);
    expect_eq(job_result, SUCCESS, "harts/global_unregister_from_other_hart");
    call(HART_MASK);
    run_on(sec, [](void *) { call(HART_MASK); }, nullptr);
    clause("sse/complete/nothing_running");
    run_on(sec, job_complete_nothing, nullptr);
    expect_eq(job_result, SUCCESS, "harts/complete_nothing_running");
}

// --- PMU overflow as an SSE event ------------------------------------------------------------------
// pattern_run(in, sepc_value): every GPR from in[1..31], sepc = sepc_value,
// then stores ra (in[1], not 0) to the word after *s11 (in[27]) and spins on
// *s11 while it is 0, loading it into t6; afterwards
// every GPR, sepc and sstatus go to pattern_out. Interrupts are off: only an
// SSE event can interrupt the loop, and its handler sets the flag.
extern "C" void pattern_run(const unsigned long *in, unsigned long sepc_value);
extern "C" unsigned long pattern_out[34];
extern "C" unsigned long pattern_saved_sp;
unsigned long pattern_out[34];
unsigned long pattern_saved_sp;
asm(R"(
    .text
    .align 2
    .globl pattern_run
pattern_run:
    addi sp, sp, -16*SZREG
    REG_S ra, 0(sp)
    REG_S gp, 1*SZREG(sp)
    REG_S tp, 2*SZREG(sp)
    REG_S s0, 3*SZREG(sp)
    REG_S s1, 4*SZREG(sp)
    REG_S s2, 5*SZREG(sp)
    REG_S s3, 6*SZREG(sp)
    REG_S s4, 7*SZREG(sp)
    REG_S s5, 8*SZREG(sp)
    REG_S s6, 9*SZREG(sp)
    REG_S s7, 10*SZREG(sp)
    REG_S s8, 11*SZREG(sp)
    REG_S s9, 12*SZREG(sp)
    REG_S s10, 13*SZREG(sp)
    REG_S s11, 14*SZREG(sp)
    csrr t1, sscratch
    REG_S t1, 15*SZREG(sp)
    la t1, pattern_saved_sp
    REG_S sp, 0(t1)
    csrw sepc, a1
    mv t0, a0
    REG_L x1, 1*SZREG(t0)
    REG_L x2, 2*SZREG(t0)
    REG_L x3, 3*SZREG(t0)
    REG_L x4, 4*SZREG(t0)
    REG_L x6, 6*SZREG(t0)
    REG_L x7, 7*SZREG(t0)
    REG_L x8, 8*SZREG(t0)
    REG_L x9, 9*SZREG(t0)
    REG_L x10, 10*SZREG(t0)
    REG_L x11, 11*SZREG(t0)
    REG_L x12, 12*SZREG(t0)
    REG_L x13, 13*SZREG(t0)
    REG_L x14, 14*SZREG(t0)
    REG_L x15, 15*SZREG(t0)
    REG_L x16, 16*SZREG(t0)
    REG_L x17, 17*SZREG(t0)
    REG_L x18, 18*SZREG(t0)
    REG_L x19, 19*SZREG(t0)
    REG_L x20, 20*SZREG(t0)
    REG_L x21, 21*SZREG(t0)
    REG_L x22, 22*SZREG(t0)
    REG_L x23, 23*SZREG(t0)
    REG_L x24, 24*SZREG(t0)
    REG_L x25, 25*SZREG(t0)
    REG_L x26, 26*SZREG(t0)
    REG_L x27, 27*SZREG(t0)
    REG_L x28, 28*SZREG(t0)
    REG_L x29, 29*SZREG(t0)
    REG_L x30, 30*SZREG(t0)
    REG_L x31, 31*SZREG(t0)
    REG_L x5, 5*SZREG(t0)
    REG_S x1, SZREG(s11)
    .globl pattern_loop
pattern_loop:
    REG_L t6, 0(s11)
    beqz t6, pattern_loop
    csrw sscratch, t0
    la t0, pattern_out
    REG_S x1, 1*SZREG(t0)
    REG_S x2, 2*SZREG(t0)
    REG_S x3, 3*SZREG(t0)
    REG_S x4, 4*SZREG(t0)
    REG_S x6, 6*SZREG(t0)
    REG_S x7, 7*SZREG(t0)
    REG_S x8, 8*SZREG(t0)
    REG_S x9, 9*SZREG(t0)
    REG_S x10, 10*SZREG(t0)
    REG_S x11, 11*SZREG(t0)
    REG_S x12, 12*SZREG(t0)
    REG_S x13, 13*SZREG(t0)
    REG_S x14, 14*SZREG(t0)
    REG_S x15, 15*SZREG(t0)
    REG_S x16, 16*SZREG(t0)
    REG_S x17, 17*SZREG(t0)
    REG_S x18, 18*SZREG(t0)
    REG_S x19, 19*SZREG(t0)
    REG_S x20, 20*SZREG(t0)
    REG_S x21, 21*SZREG(t0)
    REG_S x22, 22*SZREG(t0)
    REG_S x23, 23*SZREG(t0)
    REG_S x24, 24*SZREG(t0)
    REG_S x25, 25*SZREG(t0)
    REG_S x26, 26*SZREG(t0)
    REG_S x27, 27*SZREG(t0)
    REG_S x28, 28*SZREG(t0)
    REG_S x29, 29*SZREG(t0)
    REG_S x30, 30*SZREG(t0)
    REG_S x31, 31*SZREG(t0)
    csrr t1, sscratch
    REG_S t1, 5*SZREG(t0)
    csrr t1, sepc
    REG_S t1, 32*SZREG(t0)
    csrr t1, sstatus
    REG_S t1, 33*SZREG(t0)
    la t0, pattern_saved_sp
    REG_L sp, 0(t0)
    REG_L t1, 15*SZREG(sp)
    csrw sscratch, t1
    REG_L ra, 0(sp)
    REG_L gp, 1*SZREG(sp)
    REG_L tp, 2*SZREG(sp)
    REG_L s0, 3*SZREG(sp)
    REG_L s1, 4*SZREG(sp)
    REG_L s2, 5*SZREG(sp)
    REG_L s3, 6*SZREG(sp)
    REG_L s4, 7*SZREG(sp)
    REG_L s5, 8*SZREG(sp)
    REG_L s6, 9*SZREG(sp)
    REG_L s7, 10*SZREG(sp)
    REG_L s8, 11*SZREG(sp)
    REG_L s9, 12*SZREG(sp)
    REG_L s10, 13*SZREG(sp)
    REG_L s11, 14*SZREG(sp)
    addi sp, sp, 16*SZREG
    ret
)");
extern "C" char pattern_loop[];

constexpr unsigned long kFlagValue = static_cast<unsigned long>(0xf1a9f1a9f1a9f1a9ull);
// [0]: the flag pattern_run's loop spins on, set by the event's handler;
// [1]: set by pattern_run just before the loop.
volatile unsigned long pattern_flags[2];
volatile unsigned long &overflow_flag = pattern_flags[0];
unsigned long ovf_counter;
unsigned long ovf_scountovf;
unsigned long ovf_handler_sepc;

// PMU calls (ext-pmu.adoc).
constexpr long kPmu = 0x504D55;
constexpr unsigned long kCfgClearValue = 1ul << 1, kStartSetInit = 1, kStopReset = 1;
constexpr unsigned long kHwCycles = 0x1;

void on_overflow(HCtx *c) {
    ovf_scountovf = csr_read(csr::scountovf);
    sbi_call(kPmu, 4 /* counter_stop */, ovf_counter, 1, kStopReset);
    ovf_handler_sepc = c->sepc;
    overflow_flag = kFlagValue;
}

// Every GPR set to a pattern (s11: the flag's address, t6: 0, which the
// loop loads; a0 and a7 outside the SBI's error codes and EIDs), sepc
// and sstatus.SPP/SPIE set, interrupts off; after the event's handler set
// the flag, everything must be as before (t6: the flag).
struct PatternRun {
    unsigned long in[32];
    unsigned long sepc_pat = static_cast<unsigned long>(0x5e9c5e9c5e9c5e9cull) & ~1ul, sstatus_before = 0;
    void prepare() {
        overflow_flag = 0;
        pattern_flags[1] = 0;
        for (unsigned r = 1; r < 32; r++) in[r] = static_cast<unsigned long>(0x6b00000000000000ull >> (64 - kXlen)) + (r << 12) + r * 0x111;
        in[27] = reinterpret_cast<unsigned long>(&overflow_flag);
        in[31] = 0;
        csr_clear(csr::sstatus, kSie);
        csr_set(csr::sstatus, kSpp | kSpie);
        sstatus_before = csr_read(csr::sstatus);
    }
    void run_and_check(HCtx &c, const unsigned long &handler_sepc, const char *n) {
        pattern_run(in, sepc_pat);
        check(c, handler_sepc, n);
    }
    static bool in_loop(unsigned long sepc) {
        const unsigned long loop = reinterpret_cast<unsigned long>(pattern_loop);
        return sepc == loop || sepc == loop + 4;
    }
    void check(HCtx &c, const unsigned long &handler_sepc, const char *n) {
        unsigned long bad = 0;
        for (unsigned r = 1; r < 32; r++)
            if (pattern_out[r] != (r == 31 ? kFlagValue : in[r])) bad |= 1ul << r;
        expect_eq(c.count, 1, "%s/handled_once", n);
        expect_eq(bad, 0, "%s/all_gprs_restored", n);
        expect_eq(pattern_out[32], sepc_pat, "%s/sepc_restored", n);
        expect_eq(pattern_out[33], sstatus_before, "%s/sstatus_restored", n);
        expect_true(in_loop(handler_sepc), "%s/interrupted_pc_in_loop", n);
        expect_eq(c.interrupted[0], sepc_pat, "%s/interrupted_sepc", n);
        expect_eq(c.interrupted[2], in[16], "%s/interrupted_a6", n);
        expect_eq(c.interrupted[3], in[17], "%s/interrupted_a7", n);
        expect_eq(c.interrupted[1], 3, "%s/interrupted_flags_spp_spie", n);
        csr_clear(csr::sstatus, kSpp | kSpie);
    }
};

// A local software event injected by another hart interrupts the same loop
// (IPI path) and must leave the same exact context.
unsigned long remote_handler_sepc;
void on_remote(HCtx *c) {
    remote_handler_sepc = c->sepc;
    overflow_flag = kFlagValue;
}
// The injection must come while the loop runs, not before it: the injecting
// hart waits until the boot hart's pattern_run marked that it reached the
// loop (a delay would not do: a loaded host can stall a hart's thread for
// longer than any delay).
void job_inject_boot(void *) {
    wait_until([] { return pattern_flags[1] != 0; }, kPatience);
    call(INJECT, LOCAL_SOFTWARE, platform().boot_hartid);
}
void test_remote_exact() {
    if (platform().nharts < 2) return;
    HCtx &c = ctx_for(hartid(), LOCAL_SOFTWARE);
    clause("sse/inject/handler_state");
    if (!expect_true(setup(LOCAL_SOFTWARE, on_remote), "remote_exact/setup")) return;
    call(HART_UNMASK);
    PatternRun run;
    run.prepare();
    post_job(last_secondary(), job_inject_boot, nullptr);
    run.run_and_check(c, remote_handler_sepc, "remote_exact");
    wait_job(last_secondary());
    call(HART_MASK);
    teardown(LOCAL_SOFTWARE);
}

void test_pmu_overflow() {
    if (!pmu_event_backed) return;
    const unsigned long me = hartid();
    HCtx &c = ctx_for(me, LOCAL_PMU_OVERFLOW);
    clause("sse/pmu_overflow/delivered");
    if (!expect_true(setup(LOCAL_PMU_OVERFLOW, on_overflow), "pmu/setup")) return;
    // S-mode does not see the overflow interrupt while the event is enabled.
    expect_eq(csr_read(csr::sie) & (1ul << 13), 0, "pmu/lcofie_not_visible_while_enabled");
    call(HART_UNMASK);
    // Far enough from overflow that it comes in the loop, not already during
    // the start call: without -icount QEMU's cycles are host time (10^7
    // cycles was seen to overflow inside the call), and QEMU 7.2 fires the
    // overflow 1 ns per cycle after the start. A host that stalls the hart
    // for longer than that before the loop gets one more run from ten times
    // as far (3 s); a firmware that delivers the event elsewhere fails both.
    // initial_value: two registers on RV32.
    PatternRun run;
    static const uint64_t kDistances[] = {300000000ull, 3000000000ull};
    for (uint64_t distance : kDistances) {
        SbiRet m = sbi_call(kPmu, 2 /* counter_config_matching */, 3, 0xffff, kCfgClearValue,
                            kHwCycles, 0);
        if (!expect_err(m, SUCCESS, "pmu/config_cycles")) return;
        ovf_counter = m.value;
        c.count = 0;
        run.prepare();
        const uint64_t init = ~0ull - distance;
        sbi_call(kPmu, 3 /* counter_start */, ovf_counter, 1, kStartSetInit,
                 static_cast<unsigned long>(init), arg_hi(init));
        pattern_run(run.in, run.sepc_pat);
        if (PatternRun::in_loop(ovf_handler_sepc)) break;
        note("pmu: the overflow came at 0x%lx, not in the loop, %llu cycles after the start",
             ovf_handler_sepc, static_cast<unsigned long long>(distance));
        csr_clear(csr::sstatus, kSpp | kSpie);
    }
    run.check(c, ovf_handler_sepc, "pmu");
    expect_true(ovf_scountovf & (1ul << ovf_counter), "pmu/real_overflow_scountovf");
    expect_eq(c.regs[16], me, "pmu/a6_hartid");
    expect_eq(state(LOCAL_PMU_OVERFLOW), ST_ENABLED, "pmu/enabled_after");
    call(HART_MASK);
    teardown(LOCAL_PMU_OVERFLOW);
    clause("sse/pmu_overflow/lcofi_when_unused");
    // Disabled again: the overflow is S-mode's LCOFI, sie.LCOFIE writable.
    csr_set(csr::sie, 1ul << 13);
    expect_eq(csr_read(csr::sie) & (1ul << 13), 1ul << 13, "pmu/lcofie_back_after_unregister");
    csr_clear(csr::sie, 1ul << 13);
    SbiRet m = sbi_call(kPmu, 2, 3, 0xffff, kCfgClearValue, kHwCycles, 0);
    const uint64_t init2 = ~0ull - 20000;
    sbi_call(kPmu, 3, m.value, 1, kStartSetInit, static_cast<unsigned long>(init2), arg_hi(init2));
    bool pending = wait_until([] { return (csr_read(csr::sip) & (1ul << 13)) != 0; }, kPatience);
    expect_true(pending, "pmu/lcofi_to_smode_when_unused");
    sbi_call(kPmu, 4, m.value, 1, kStopReset);
    csr_clear(csr::sip, 1ul << 13);
}

// A real double trap (Ssdbltrp): with FWFT DOUBLE_TRAP on and sstatus.SDT
// set, a breakpoint (delegated to S-mode) is a double trap, which the
// firmware delivers as LOCAL_DOUBLE_TRAP with the trapped instruction as the
// interrupted pc; the handler steps over it and completion resumes there.
constexpr unsigned long kSdt = 1ul << 24;
constexpr long kFwftDoubleTrap = 3; // ext-firmware-features.adoc, feature 3
unsigned long dbl_sepc, dbl_sstatus;
void on_double_trap(HCtx *c) {
    dbl_sepc = c->sepc;
    dbl_sstatus = c->sstatus;
    csr_write(csr::sepc, c->sepc + 4);
}
extern "C" void double_trap_site();
asm(R"(
    .text
    .globl double_trap_site
double_trap_site:
    .option push
    .option norvc
    ebreak
    .option pop
    ret
)");
void test_double_trap() {
    if (!double_trap_backed) return;
    clause("sse/double_trap/delivered");
    HCtx &c = ctx_for(hartid(), LOCAL_DOUBLE_TRAP);
    if (!expect_err(sbi_call(eid::fwft, 0, kFwftDoubleTrap, 1, 0), SUCCESS, "double_trap/fwft_on"))
        return;
    if (!expect_true(setup(LOCAL_DOUBLE_TRAP, on_double_trap), "double_trap/setup")) return;
    call(HART_UNMASK);
    csr_set(csr::sstatus, kSdt);
    expect_true((csr_read(csr::sstatus) & kSdt) != 0, "double_trap/sdt_writable");
    double_trap_site();
    unsigned long after = csr_read(csr::sstatus);
    csr_clear(csr::sstatus, kSdt);
    expect_eq(c.count, 1, "double_trap/handled_once");
    expect_eq(dbl_sepc, reinterpret_cast<unsigned long>(double_trap_site), "double_trap/interrupted_pc");
    expect_true((dbl_sstatus & kSdt) != 0, "double_trap/sdt_in_handler");
    expect_true((c.interrupted[1] & (1ul << 5)) != 0, "double_trap/interrupted_flags_sdt");
    expect_true((after & kSdt) != 0, "double_trap/sdt_restored");
    expect_eq(state(LOCAL_DOUBLE_TRAP), ST_ENABLED, "double_trap/enabled_after");
    call(HART_MASK);
    teardown(LOCAL_DOUBLE_TRAP);
    sbi_call(eid::fwft, 0, kFwftDoubleTrap, 0, 0);
}

// --- HSM: a restarted hart starts with its events reset --------------------------------------------
void stop_job(void *arg) {
    irq_enable(false);
    sbi_call(eid::hsm, fid::hsm::hart_stop);
    *static_cast<volatile bool *>(arg) = true;
}
struct AfterRestart {
    unsigned long status;
    long mask, pmu_status_err;
};
void job_after_restart(void *arg) {
    auto *a = static_cast<AfterRestart *>(arg);
    a->status = attr(LOCAL_SOFTWARE, STATUS);
    a->mask = call(HART_MASK).error;
}

void test_hsm_reset() {
    if (platform().nharts < 2) return;
    const unsigned long h = last_secondary();
    // Registered, enabled, pending and unmasked (the PMU overflow event too,
    // which moves LCOFI to M-mode) when the hart stops.
    struct Prep {
        long err;
    } prep{};
    run_on(h, [](void *a) {
        long e = setup(LOCAL_SOFTWARE) ? 0 : -1;
        if (pmu_event_backed && !setup(LOCAL_PMU_OVERFLOW)) e = -1;
        static_cast<Prep *>(a)->err = e;
    }, &prep);
    clause("sse/hsm_restart/reset");
    if (!expect_eq(prep.err, 0, "hsm/secondary_setup")) return;
    volatile bool returned = false;
    post_job(h, stop_job, const_cast<bool *>(&returned));
    bool stopped = wait_until([&] { return sbi_hart_get_status(h).value == hsm_state::stopped; },
                              kPatience);
    if (!expect_true(stopped && !returned, "hsm/hart_stopped")) return;
    reset_checkin(h);
    expect_err(sbi_hart_start(h, secondary_entry(), secondary_opaque(h)), SUCCESS, "hsm/restart");
    if (!expect_true(wait_until([&] { return secondary_checked_in(h); }, kPatience),
                     "hsm/restarted_runs"))
        return;
    AfterRestart a{};
    run_on(h, job_after_restart, &a);
    expect_eq(inj(a.status), ST_UNUSED | kInjectable, "hsm/local_event_unused_after_restart");
    expect_eq(a.mask, ERR_ALREADY_STOPPED, "hsm/masked_after_restart");
    if (pmu_event_backed) {
        // LCOFI is S-mode's again: sie.LCOFIE is writable on the restarted hart.
        unsigned long sie = 0;
        run_on(h, [](void *p) {
            csr_set(csr::sie, 1ul << 13);
            *static_cast<unsigned long *>(p) = csr_read(csr::sie) & (1ul << 13);
            csr_clear(csr::sie, 1ul << 13);
        }, &sie);
        expect_eq(sie, 1ul << 13, "hsm/lcofi_delegated_after_restart");
    }
}

} // namespace

// Sscofpmf: scountovf is readable from S-mode (the device tree's riscv,isa
// can be longer than the library keeps).
void read_scountovf(void *) { (void)csr_read(csr::scountovf); }

void payload_main() {
    if (!extension_present(kSse, "present")) return;
    pmu_event_backed = catch_exception(read_scountovf, nullptr) == ~0ul;
    note("sscofpmf %s", pmu_event_backed ? "present" : "absent");
    double_trap_backed = sbi_call(eid::fwft, 1, kFwftDoubleTrap).error == SUCCESS;
    note("ssdbltrp %s", double_trap_backed ? "present" : "absent");
    start_secondaries();
    test_mask();
    test_ids();
    for (unsigned long id : kOurEvents) {
        if (id == LOCAL_PMU_OVERFLOW && !pmu_event_backed) continue;
        if (id == LOCAL_DOUBLE_TRAP && !double_trap_backed) continue;
        test_attrs(id);
        test_states(id);
        test_delivery(id);
    }
    test_registers();
    test_priorities();
    test_harts();
    test_pmu_overflow();
    test_double_trap();
    test_remote_exact();
    test_hsm_reset();
}
