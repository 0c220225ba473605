// SPDX-License-Identifier: BSD-2-Clause
// DBTR extension (ext-debug-triggers.adoc): num_triggers, set_shmem with
// hostile addresses, read/install/update/uninstall/enable/disable and every
// error of each, triggers that really fire in S-mode (store, load, execute;
// mcontrol and mcontrol6), never in M-mode, per-hart state, and the reset
// of a hart that HSM stops and starts again.
#include "payload.hpp"
#include "riscv/csr.hpp"
#include "sbi/dbtr_logic.hpp"

using namespace pl;

PAYLOAD_NAME("dbtr");

namespace {

namespace F = fid::dbtr;
// tdata1 fields, trigger types and trig_state, shared with the firmware.
using namespace sbi::dbtr;
constexpr unsigned long kBreakpoint = csr::cause::breakpoint;
constexpr unsigned kMaxEntries = 32;
unsigned long ntrig;

constexpr unsigned long type_bits(unsigned long t) { return t << kTypeShift; }

struct Entry {
    unsigned long w[4]; // idx or state, tdata1, tdata2, tdata3
};
Entry shmem[kMaxHarts][kMaxEntries] __attribute__((aligned(64)));
Entry *my_shmem() { return shmem[hart_index(hartid())]; }

SbiRet dbtr(long f, unsigned long a0 = 0, unsigned long a1 = 0, unsigned long a2 = 0) {
    return sbi_call(eid::dbtr, f, a0, a1, a2);
}
SbiRet set_shmem(const void *p) {
    return dbtr(F::set_shmem, reinterpret_cast<unsigned long>(p), 0, 0);
}
SbiRet install1(unsigned long tdata1, unsigned long tdata2, unsigned long tdata3 = 0) {
    Entry *e = my_shmem();
    e[0] = {{~0ul, tdata1, tdata2, tdata3}};
    return dbtr(F::install_triggers, 1);
}
// Uninstalls every trigger one by one (errors ignored): a firmware that
// left a trigger behind after a refused call does not spoil later checks.
void uninstall_all() {
    for (unsigned long i = 0; i < ntrig; i++) dbtr(F::uninstall_triggers, i, 1);
}
// A set_shmem that should have been refused but succeeded: disable it
// again, so the checks that follow see what they were written for.
void undo_set_shmem(SbiRet r) {
    if (r.error == SUCCESS) dbtr(F::set_shmem, ~0ul, ~0ul, 0);
}
// sbiret.error must be `error` (value `value` unless it is kAnyValue); in
// conformance mode `alt1` and `alt2` pass too (answers the spec allows
// besides tsbi's; kNoAlt = none).
constexpr long kNoAlt = 1;
constexpr unsigned long kAnyValue = ~0ul;
bool expect_ret_or(SbiRet r, long error, unsigned long value, long alt1, long alt2,
                   const char *name) {
    long want = error;
    if (conformance_mode() && r.error != error && r.error != kNoAlt &&
        (r.error == alt1 || r.error == alt2))
        want = r.error;
    if (value == kAnyValue) return expect_err(r, want, "%s", name);
    return expect_ret(r, want, value, "%s", name);
}

// Reads trigger idx into a local copy.
Entry read1(unsigned long idx) {
    SbiRet r = dbtr(F::read_triggers, idx, 1);
    Entry e{};
    if (r.error == SUCCESS) e = my_shmem()[0];
    else e.w[0] = ~0ul;
    return e;
}

// Trigger targets, touched only inside catch_exception windows; 64 bytes
// apart (on RV32 QEMU 7.2 the mcontrol6 store trigger on target_a also
// fired for a store to target_b when they were adjacent words).
// Each in a 64-byte block of its own, which no other variable shares: QEMU
// 7.2's RV32 load trigger on target_b also fired for a load 4 bytes above it
// (the payload library's pass counter, once the link put it there).
struct alignas(64) Target {
    volatile unsigned long v;
};
static_assert(sizeof(Target) == 64);
Target target_a_block, target_b_block;
volatile unsigned long &target_a = target_a_block.v;
volatile unsigned long &target_b = target_b_block.v;
unsigned long target_addr(volatile unsigned long &v) {
    return reinterpret_cast<unsigned long>(&v);
}
extern "C" void dbtr_exec_target();
asm(".pushsection .text\n.align 2\n.globl dbtr_exec_target\ndbtr_exec_target:\n"
    ".option push\n.option norvc\nnop\nret\n.option pop\n.popsection\n");

void do_store(void *p) { *static_cast<volatile unsigned long *>(p) = 1; }
void do_load(void *p) { (void)*static_cast<volatile unsigned long *>(p); }
void do_exec(void *) { dbtr_exec_target(); }

// 1 when the access raised the breakpoint the trigger asks for (tval = the
// address for data accesses, the pc for execute), 0 when nothing, else FAIL.
bool fires(void (*fn)(void *), void *arg, const char *name) {
    unsigned long tval = 0;
    unsigned long cause = catch_exception(fn, arg, &tval);
    if (cause == ~0ul) return false;
    if (cause != kBreakpoint) {
        char why[64];
        snprintf(why, sizeof why, "scause %lu, not a breakpoint", cause);
        fail(why, "%s/cause", name);
    }
    return true;
}

unsigned long mc(unsigned long type, unsigned long bits) { return type_bits(type) | bits; }

void num_triggers() {
    clause("dbtr/num_triggers/returns");
    SbiRet r = dbtr(F::num_triggers, 0);
    expect_err(r, SUCCESS, "num_triggers/error");
    ntrig = r.value;
    if (!expect_true(ntrig > 0 && ntrig <= kMaxEntries, "num_triggers/some")) ntrig = 0;
    note("%lu triggers", ntrig);
    const unsigned long types[] = {TYPE_MCONTROL, TYPE_MCONTROL6};
    for (unsigned long t : types) {
        r = dbtr(F::num_triggers, mc(t, 0));
        clause("dbtr/num_triggers/returns");
        expect_ret(r, SUCCESS, ntrig, "num_triggers/type%lu", t);
        // A configuration S-mode may not install (m or dmode set): whether
        // the triggers "can support" it is a reading; tsbi says 0 (the
        // count of triggers install would accept), another firmware may
        // count the hardware triggers of the type.
        clause("dbtr/num_triggers/uninstallable_config");
        SbiRet rm = dbtr(F::num_triggers, mc(t, M | S));
        SbiRet rd = dbtr(F::num_triggers, mc(t, DMODE | S));
        expect_eq(rm.value, 0, "num_triggers/type%lu_m", t);
        expect_eq(rd.value, 0, "num_triggers/type%lu_dmode", t);
        clause("dbtr/num_triggers/returns");
        expect_err(rm, SUCCESS, "num_triggers/type%lu_m/error", t);
        expect_true(rm.value <= ntrig, "num_triggers/type%lu_m/at_most_trig_max", t);
        expect_err(rd, SUCCESS, "num_triggers/type%lu_dmode/error", t);
        expect_true(rd.value <= ntrig, "num_triggers/type%lu_dmode/at_most_trig_max", t);
    }
    // Types tsbi does not install (icount: QEMU has it) and "disabled".
    clause("dbtr/num_triggers/uninstallable_config");
    expect_ret(dbtr(F::num_triggers, mc(TYPE_ICOUNT, 0)), SUCCESS, 0, "num_triggers/icount");
    expect_ret(dbtr(F::num_triggers, mc(TYPE_DISABLED, 0)), SUCCESS, 0, "num_triggers/disabled");
    clause("encoding/unknown_fid/not_supported");
    expect_err(dbtr(8), ERR_NOT_SUPPORTED, "fid8_not_supported");
    expect_err(dbtr(-1), ERR_NOT_SUPPORTED, "fid_minus1_not_supported");
}

void no_shmem(const char *when) {
    clause("dbtr/read_triggers/NO_SHMEM");
    expect_err(dbtr(F::read_triggers, 0, 1), ERR_NO_SHMEM, "%s/no_shmem/read", when);
    clause("dbtr/install_triggers/NO_SHMEM");
    expect_ret(dbtr(F::install_triggers, 1), ERR_NO_SHMEM, 0, "%s/no_shmem/install", when);
    clause("dbtr/update_triggers/NO_SHMEM");
    expect_ret(dbtr(F::update_triggers, 1), ERR_NO_SHMEM, 0, "%s/no_shmem/update", when);
}

void shmem_errors() {
    const Platform &p = platform();
    unsigned long base = reinterpret_cast<unsigned long>(my_shmem());
    unsigned long size = ntrig * sizeof(Entry);
    // Each call that wrongly succeeds is undone at once (undo_set_shmem).
    clause("dbtr/set_shmem/INVALID_PARAM");
    // XLEN / 8 alignment: half of that is misaligned (4 on RV64, 2 on RV32).
    struct {
        const char *name;
        unsigned long lo, flags;
    } inval[] = {{"flags", base, 1},
                 {"flags_hi", base, kTopBit},
                 {sizeof(long) == 8 ? "misaligned4" : "misaligned2", base + sizeof(long) / 2, 0},
                 {"misaligned1", base + 1, 0},
                 {"lo_all_ones_only", ~0ul, 0}};
    for (auto &b : inval) {
        SbiRet r = dbtr(F::set_shmem, b.lo, 0, b.flags);
        expect_err(r, ERR_INVALID_PARAM, "set_shmem/%s", b.name);
        undo_set_shmem(r);
    }
    clause("dbtr/set_shmem/INVALID_ADDRESS");
    struct {
        const char *name;
        unsigned long lo, hi;
    } bad[] = {{"hi_nonzero", base, 1},
               {"hi_all_ones", base, ~0ul},
               {"fw_region", p.fw_base, 0},
               {"fw_region_end_straddle", p.fw_base + p.fw_size - 8, 0},
               {"ram_end_straddle", p.ram_base + p.ram_size - 8, 0},
               {"ram_end", p.ram_base + p.ram_size, 0},
               {"null", 0, 0},
               {"far_above_ram", kFarAboveRam, 0},
               {"top_of_address_space", ~0ul - 7, 0},
               {"wraps", ~0ul - size + 9, 0}};
    for (auto &b : bad) {
        SbiRet r = dbtr(F::set_shmem, b.lo & ~7ul, b.hi, 0);
        expect_err(r, ERR_INVALID_ADDRESS, "set_shmem/%s", b.name);
        undo_set_shmem(r);
    }
    no_shmem("after_rejected_set_shmem");
    expect_alive("set_shmem_errors");
}

// A trigger that fires in S-mode: store, load and execute, for one type.
void functional(unsigned long type) {
    char name[64];
    const unsigned long t1 = mc(type, STORE | S);
    snprintf(name, sizeof name, "type%lu/store", type);
    clause("dbtr/install_triggers/installs");
    expect_ret(install1(t1, target_addr(target_a)), SUCCESS, 0, "%s/install", name);
    unsigned long idx = my_shmem()[0].w[0];
    expect_true(idx < ntrig, "%s/trig_idx_written", name);
    clause("dbtr/read_triggers/reads");
    Entry e = read1(idx);
    expect_eq(e.w[0], TS_MAPPED | TS_S, "%s/read_state", name);
    expect_eq(e.w[1], t1, "%s/read_tdata1", name);
    expect_eq(e.w[2], target_addr(target_a), "%s/read_tdata2", name);
    expect_eq(e.w[3], 0, "%s/read_tdata3", name);
    clause("dbtr/install_triggers/fires");
    expect_true(fires(do_store, (void *)&target_a, name), "%s/fires", name);
    expect_true(!fires(do_load, (void *)&target_a, name), "%s/load_does_not_fire", name);
    expect_true(!fires(do_store, (void *)&target_b, name), "%s/other_address_does_not_fire",
                name);

    // disable: the mode bits leave tdata1, trig_state keeps the copy.
    clause("dbtr/disable_triggers/disables");
    expect_err(dbtr(F::disable_triggers, idx, 1), SUCCESS, "%s/disable", name);
    expect_true(!fires(do_store, (void *)&target_a, name), "%s/disabled_does_not_fire", name);
    e = read1(idx);
    expect_eq(e.w[0], TS_MAPPED | TS_S, "%s/disabled_state", name);
    // What read_triggers shows for a disabled trigger is a choice: tsbi
    // reads the CSR (mode bits cleared), another firmware its saved copy.
    clause("dbtr/read_triggers/disabled_tdata1");
    expect_eq(e.w[1], mc(type, STORE), "%s/disabled_tdata1", name);
    clause("dbtr/enable_triggers/enables");
    expect_err(dbtr(F::enable_triggers, idx, 1), SUCCESS, "%s/enable", name);
    expect_eq(read1(idx).w[1], t1, "%s/enabled_tdata1", name);
    expect_true(fires(do_store, (void *)&target_a, name), "%s/enabled_fires", name);

    // update to a load trigger on the other variable.
    clause("dbtr/update_triggers/updates");
    my_shmem()[0] = {{idx, mc(type, LOAD | S), target_addr(target_b), 0}};
    expect_ret(dbtr(F::update_triggers, 1), SUCCESS, 0, "%s/update", name);
    expect_true(fires(do_load, (void *)&target_b, name), "%s/updated_fires", name);
    expect_true(!fires(do_store, (void *)&target_a, name), "%s/old_config_gone", name);
    // update to no modes: saved in trig_state, enable restores nothing.
    my_shmem()[0] = {{idx, mc(type, LOAD), target_addr(target_b), 0}};
    expect_ret(dbtr(F::update_triggers, 1), SUCCESS, 0, "%s/update_no_modes", name);
    expect_err(dbtr(F::enable_triggers, idx, 1), SUCCESS, "%s/enable_no_modes", name);
    expect_true(!fires(do_load, (void *)&target_b, name), "%s/no_modes_does_not_fire", name);
    expect_eq(read1(idx).w[0], TS_MAPPED, "%s/no_modes_state", name);

    clause("dbtr/uninstall_triggers/uninstalls");
    expect_err(dbtr(F::uninstall_triggers, idx, 1), SUCCESS, "%s/uninstall", name);
    e = read1(idx);
    expect_eq(e.w[0], 0, "%s/uninstalled_state", name);
    expect_true(!fires(do_load, (void *)&target_b, name), "%s/uninstalled_does_not_fire", name);

    uninstall_all();
    clause("dbtr/install_triggers/fires");
    snprintf(name, sizeof name, "type%lu/load", type);
    expect_ret(install1(mc(type, LOAD | S), target_addr(target_a)), SUCCESS, 0, "%s/install",
               name);
    idx = my_shmem()[0].w[0];
    expect_true(fires(do_load, (void *)&target_a, name), "%s/fires", name);
    expect_true(!fires(do_store, (void *)&target_a, name), "%s/store_does_not_fire", name);
    expect_err(dbtr(F::uninstall_triggers, idx, 1), SUCCESS, "%s/uninstall", name);
    uninstall_all();

    snprintf(name, sizeof name, "type%lu/execute", type);
    unsigned long pc = reinterpret_cast<unsigned long>(dbtr_exec_target);
    expect_ret(install1(mc(type, EXECUTE | S), pc), SUCCESS, 0, "%s/install", name);
    idx = my_shmem()[0].w[0];
    expect_true(fires(do_exec, nullptr, name), "%s/fires", name);
    expect_true(!fires(do_load, (void *)&target_a, name), "%s/load_does_not_fire", name);
    expect_err(dbtr(F::uninstall_triggers, idx, 1), SUCCESS, "%s/uninstall", name);
    uninstall_all();

    // U-mode only: S-mode accesses do not fire (the payload never runs in U).
    snprintf(name, sizeof name, "type%lu/u_only", type);
    clause("dbtr/install_triggers/mode_copy");
    expect_ret(install1(mc(type, STORE | U), target_addr(target_a)), SUCCESS, 0, "%s/install",
               name);
    idx = my_shmem()[0].w[0];
    expect_eq(read1(idx).w[0], TS_MAPPED | TS_U, "%s/state", name);
    expect_true(!fires(do_store, (void *)&target_a, name), "%s/s_store_does_not_fire", name);
    expect_err(dbtr(F::uninstall_triggers, idx, 1), SUCCESS, "%s/uninstall", name);
    uninstall_all();

    if (type == TYPE_MCONTROL6) {
        // vs/vu are saved in trig_state when the hart keeps them (with H);
        // else NOT_SUPPORTED (optional bits the hart lacks), or FAILED (no
        // hardware trigger matches the configuration) in conformance mode.
        snprintf(name, sizeof name, "type%lu/vs_vu", type);
        SbiRet r = install1(mc(type, STORE | MC6_VS | MC6_VU), target_addr(target_a));
        if (r.error == SUCCESS) {
            idx = my_shmem()[0].w[0];
            expect_eq(read1(idx).w[0], TS_MAPPED | TS_VS | TS_VU, "%s/state", name);
            expect_err(dbtr(F::uninstall_triggers, idx, 1), SUCCESS, "%s/uninstall", name);
        } else {
            clause("dbtr/install_triggers/unsupported_config");
            char n2[80];
            snprintf(n2, sizeof n2, "%s/not_supported", name);
            expect_ret_or(r, ERR_NOT_SUPPORTED, 0, ERR_FAILED, kNoAlt, n2);
        }
        uninstall_all();
    }
    expect_alive("type%lu", type);
}

// Triggers never fire in M-mode: a load/store trigger on the shared-memory
// word (tdata1 of entry 0) the firmware reads for install and writes for
// read_triggers. S-mode does not touch that word while the trigger is on.
void not_in_mmode() {
    Entry *e = my_shmem();
    unsigned long word = reinterpret_cast<unsigned long>(&e[0].w[1]);
    clause("dbtr/install_triggers/not_in_mmode");
    expect_ret(install1(mc(TYPE_MCONTROL, STORE | LOAD | S), word), SUCCESS, 0, "mmode/install");
    unsigned long idx = e[0].w[0];
    expect_err(dbtr(F::read_triggers, idx, 1), SUCCESS, "mmode/read_writes_shmem");
    expect_err(dbtr(F::uninstall_triggers, idx, 1), SUCCESS, "mmode/uninstall");
    // The S-mode load below must not meet the trigger if the uninstall
    // above missed it.
    uninstall_all();
    expect_eq(e[0].w[1], mc(TYPE_MCONTROL, STORE | LOAD | S), "mmode/shmem_written");
}

void install_errors() {
    Entry *e = my_shmem();
    const unsigned long ok1 = mc(TYPE_MCONTROL, STORE | S);
    clause("dbtr/install_triggers/BAD_RANGE");
    expect_ret(dbtr(F::install_triggers, ntrig + 1), ERR_BAD_RANGE, 0, "install/bad_range");
    expect_err(dbtr(F::install_triggers, ~0ul), ERR_BAD_RANGE, "install/bad_range_all_ones");
    clause("dbtr/install_triggers/installs");
    expect_ret(dbtr(F::install_triggers, 0), SUCCESS, 0, "install/zero");
    // kind: 0 = INVALID_PARAM only (the spec forbids m, dmode and a chain
    // in the last entry; types 0, 8 and 15 are no address/data trigger);
    // 1 = a type tsbi does not install (legacy type 1, icount, itrigger):
    // NOT_SUPPORTED (tsbi), in conformance mode also INVALID_PARAM or
    // FAILED ("Failed to assign ... HW debug trigger"), or installed.
    struct {
        const char *name;
        unsigned long tdata1;
        long error;
        int kind;
    } bad[] = {{"m", mc(TYPE_MCONTROL, STORE | S | M), ERR_INVALID_PARAM, 0},
               {"m6", mc(TYPE_MCONTROL6, STORE | S | M), ERR_INVALID_PARAM, 0},
               {"dmode", mc(TYPE_MCONTROL, STORE | S) | DMODE, ERR_INVALID_PARAM, 0},
               {"type0", STORE | S, ERR_INVALID_PARAM, 0},
               {"type1", mc(1, STORE | S), ERR_INVALID_PARAM, 1},
               {"type8_reserved", mc(8, STORE | S), ERR_INVALID_PARAM, 0},
               {"type15_disabled", mc(TYPE_DISABLED, 0), ERR_INVALID_PARAM, 0},
               {"last_chain", ok1 | CHAIN, ERR_INVALID_PARAM, 0},
               {"icount", mc(TYPE_ICOUNT, S | (1ul << 10)), ERR_NOT_SUPPORTED, 1},
               {"itrigger", mc(TYPE_ITRIGGER, 0), ERR_NOT_SUPPORTED, 1}};
    char name[80];
    for (auto &b : bad) {
        e[0] = {{~0ul, ok1, target_addr(target_a), 0}};
        e[1] = {{~0ul, b.tdata1, target_addr(target_b), 0}};
        // The failing configuration is the second: value 1.
        SbiRet r = dbtr(F::install_triggers, 2);
        snprintf(name, sizeof name, "install/%s", b.name);
        if (b.kind == 0) {
            clause("dbtr/install_triggers/INVALID_PARAM");
            expect_ret(r, b.error, 1, "%s", name);
        } else if (conformance_mode() && r.error == SUCCESS) {
            clause("dbtr/install_triggers/unsupported_config");
            info(name, "installed (tdata1 0x%lx)", b.tdata1);
        } else {
            clause("dbtr/install_triggers/unsupported_config");
            expect_ret_or(r, b.error, 1, b.error == ERR_NOT_SUPPORTED ? ERR_INVALID_PARAM
                                                                      : ERR_NOT_SUPPORTED,
                          ERR_FAILED, name);
        }
        // Nothing installed by the failed call: the spec does not say
        // whether the entries before the failing one stay installed.
        clause("dbtr/install_triggers/all_or_nothing");
        for (unsigned long i = 0; i < ntrig; i++)
            expect_eq(read1(i).w[0], 0, "install/%s/trigger%lu_not_installed", b.name, i);
        uninstall_all();
    }
    // Every trigger at once (count = trig_max), then one more: FAILED. The
    // spec's row says BAD_RANGE for `trig_count >= trig_max`, which forbids
    // this count; tsbi reads it as "> trig_max" (README), and in
    // conformance mode the literal BAD_RANGE passes too.
    clause("dbtr/install_triggers/count_trig_max");
    for (unsigned long i = 0; i < ntrig; i++) e[i] = {{~0ul, mc(TYPE_MCONTROL, 0), 0, 0}};
    SbiRet ra = dbtr(F::install_triggers, ntrig);
    expect_ret_or(ra, SUCCESS, 0, ERR_BAD_RANGE, kNoAlt, "install/all");
    if (ra.error == SUCCESS) {
        bool distinct = true;
        for (unsigned long i = 0; i < ntrig; i++)
            for (unsigned long j = 0; j < i; j++) distinct &= e[i].w[0] != e[j].w[0];
        clause("dbtr/install_triggers/installs");
        expect_true(distinct, "install/all/distinct_indexes");
        clause("dbtr/read_triggers/count_trig_max");
        SbiRet rr = dbtr(F::read_triggers, 0, ntrig);
        expect_ret_or(rr, SUCCESS, kAnyValue, ERR_BAD_RANGE, kNoAlt, "read/all");
        if (rr.error == SUCCESS) {
            bool mapped = true;
            for (unsigned long i = 0; i < ntrig; i++) mapped &= e[i].w[0] == TS_MAPPED;
            clause("dbtr/read_triggers/reads");
            expect_true(mapped, "read/all/mapped");
        }
        clause("dbtr/install_triggers/FAILED");
        e[0] = {{~0ul, ok1, target_addr(target_a), 0}};
        expect_ret(dbtr(F::install_triggers, 1), ERR_FAILED, 0, "install/none_free");
        clause("dbtr/uninstall_triggers/uninstalls");
        expect_err(dbtr(F::uninstall_triggers, 0, (ntrig == pl::kXlen) ? ~0ul : (1ul << ntrig) - 1),
                   SUCCESS, "install/all/uninstall");
    }
    uninstall_all();
    // tdata3 (textra) with sselect = 1: kept (read back as written) where the
    // hart implements it, else NOT_SUPPORTED with nothing installed.
    clause("dbtr/install_triggers/NOT_SUPPORTED");
    e[0] = {{~0ul, ok1, target_addr(target_a), 1}};
    SbiRet r3 = dbtr(F::install_triggers, 1);
    if (r3.error == SUCCESS) {
        unsigned long idx = e[0].w[0];
        expect_eq(read1(idx).w[3], 1, "install/tdata3/read_back");
        dbtr(F::uninstall_triggers, idx, 1);
    } else {
        expect_ret_or(r3, ERR_NOT_SUPPORTED, 0, ERR_FAILED, kNoAlt, "install/tdata3/not_supported");
        expect_eq(read1(0).w[0], 0, "install/tdata3/nothing_left");
    }
    uninstall_all();
    // A chain: installed on contiguous indexes where the hart implements
    // chain, else NOT_SUPPORTED (QEMU: chain is always zero; FAILED passes
    // in conformance mode, at either entry of the chain) leaving nothing.
    if (ntrig >= 2) {
        e[0] = {{~0ul, mc(TYPE_MCONTROL, STORE | S | CHAIN), target_addr(target_a), 0}};
        e[1] = {{~0ul, mc(TYPE_MCONTROL, STORE | S), target_addr(target_a), 0}};
        SbiRet r = dbtr(F::install_triggers, 2);
        if (r.error == SUCCESS) {
            clause("dbtr/install_triggers/chain_contiguous");
            expect_eq(e[1].w[0], e[0].w[0] + 1, "install/chain/contiguous");
            dbtr(F::uninstall_triggers, e[0].w[0], 3);
        } else {
            clause("dbtr/install_triggers/NOT_SUPPORTED");
            expect_ret_or(r, ERR_NOT_SUPPORTED, conformance_mode() && r.value == 1 ? 1 : 0,
                          ERR_FAILED, kNoAlt, "install/chain/not_supported");
            clause("dbtr/install_triggers/all_or_nothing");
            expect_eq(read1(0).w[0], 0, "install/chain/nothing_left");
        }
        uninstall_all();
    }
    expect_alive("install_errors");
}

void update_errors() {
    Entry *e = my_shmem();
    clause("dbtr/install_triggers/installs");
    expect_ret(install1(mc(TYPE_MCONTROL, STORE), target_addr(target_a)), SUCCESS, 0,
               "update/install");
    unsigned long idx = e[0].w[0];
    unsigned long free_idx = idx == 0 ? 1 : 0;
    clause("dbtr/update_triggers/BAD_RANGE");
    expect_ret(dbtr(F::update_triggers, ntrig + 1), ERR_BAD_RANGE, 0, "update/bad_range");
    clause("dbtr/update_triggers/updates");
    expect_ret(dbtr(F::update_triggers, 0), SUCCESS, 0, "update/zero");
    // The spec's "check and fail" for a changed type or chain names no
    // code: INVALID_PARAM (an invalid `trig_tdata1`, tsbi) or FAILED.
    struct {
        const char *name, *cl;
        unsigned long idx, tdata1;
        long error, alt;
    } bad[] = {{"idx_trig_max", "INVALID_PARAM", ntrig, mc(TYPE_MCONTROL, LOAD),
                ERR_INVALID_PARAM, kNoAlt},
               {"idx_all_ones", "INVALID_PARAM", ~0ul, mc(TYPE_MCONTROL, LOAD),
                ERR_INVALID_PARAM, kNoAlt},
               {"not_installed", "FAILED", free_idx, mc(TYPE_MCONTROL, LOAD), ERR_FAILED,
                kNoAlt},
               {"type_changed", "type_chain_match", idx, mc(TYPE_MCONTROL6, LOAD),
                ERR_INVALID_PARAM, ERR_FAILED},
               {"chain_changed", "type_chain_match", idx, mc(TYPE_MCONTROL, LOAD | CHAIN),
                ERR_INVALID_PARAM, ERR_FAILED},
               {"m", "INVALID_PARAM", idx, mc(TYPE_MCONTROL, LOAD | M), ERR_INVALID_PARAM,
                kNoAlt},
               {"dmode", "INVALID_PARAM", idx, mc(TYPE_MCONTROL, LOAD) | DMODE,
                ERR_INVALID_PARAM, kNoAlt}};
    char name[80];
    for (auto &b : bad) {
        if (b.idx == free_idx && ntrig < 2) continue;
        e[0] = {{idx, mc(TYPE_MCONTROL, LOAD | S), target_addr(target_b), 0}};
        e[1] = {{b.idx, b.tdata1, target_addr(target_b), 0}};
        clause("dbtr/update_triggers/%s", b.cl);
        snprintf(name, sizeof name, "update/%s", b.name);
        expect_ret_or(dbtr(F::update_triggers, 2), b.error, 1, b.alt, kNoAlt, name);
        // Checked before anything changes: the first is not updated either
        // (tsbi's choice: the spec does not say).
        clause("dbtr/update_triggers/all_or_nothing");
        expect_eq(read1(idx).w[1], mc(TYPE_MCONTROL, STORE), "update/%s/unchanged", b.name);
        // Back to the installed configuration for the next case.
        e[0] = {{idx, mc(TYPE_MCONTROL, STORE), target_addr(target_a), 0}};
        dbtr(F::update_triggers, 1);
    }
    // tdata3 (textra sselect = 1) the hart may not keep: NOT_SUPPORTED with
    // the previous configuration kept, or (a hart that keeps it) updated.
    clause("dbtr/update_triggers/NOT_SUPPORTED");
    e[0] = {{idx, mc(TYPE_MCONTROL, LOAD | S), target_addr(target_b), 1}};
    SbiRet r3 = dbtr(F::update_triggers, 1);
    if (r3.error == SUCCESS) {
        expect_eq(read1(idx).w[3], 1, "update/tdata3/read_back");
    } else {
        expect_ret_or(r3, ERR_NOT_SUPPORTED, 0, ERR_FAILED, kNoAlt, "update/tdata3/not_supported");
        clause("dbtr/update_triggers/all_or_nothing");
        expect_eq(read1(idx).w[1], mc(TYPE_MCONTROL, STORE), "update/tdata3/unchanged");
    }
    dbtr(F::uninstall_triggers, idx, 1);
    uninstall_all();
    expect_alive("update_errors");
}

void mask_errors() {
    const long fids[] = {F::uninstall_triggers, F::enable_triggers, F::disable_triggers};
    const char *names[] = {"uninstall", "enable", "disable"};
    const char *fn[] = {"uninstall_triggers", "enable_triggers", "disable_triggers"};
    clause("dbtr/install_triggers/installs");
    expect_ret(install1(mc(TYPE_MCONTROL, STORE), target_addr(target_a)), SUCCESS, 0,
               "mask/install");
    unsigned long idx = my_shmem()[0].w[0];
    for (unsigned i = 0; i < 3; i++) {
        const char *n = names[i];
        // idx stays installed through each case: the others fail first.
        unsigned long other = idx == 0 ? 1 : 0;
        clause("dbtr/%s/INVALID_PARAM", fn[i]);
        if (ntrig >= 2)
            expect_err(dbtr(fids[i], other, 1), ERR_INVALID_PARAM, "%s/not_installed", n);
        expect_err(dbtr(fids[i], idx, 1 | (1ul << (ntrig - idx))), ERR_INVALID_PARAM,
                   "%s/beyond_trig_max", n);
        expect_err(dbtr(fids[i], ntrig, 1), ERR_INVALID_PARAM, "%s/base_trig_max", n);
        expect_err(dbtr(fids[i], ~0ul, 1), ERR_INVALID_PARAM, "%s/base_all_ones", n);
        expect_err(dbtr(fids[i], 0, kTopBit), ERR_INVALID_PARAM, "%s/bit63", n);
        // base + bit index beyond XLEN names no trigger (tsbi's reading;
        // modular arithmetic would name trigger 0).
        clause("dbtr/%s/index_wraps", fn[i]);
        expect_err(dbtr(fids[i], ~0ul, 2), ERR_INVALID_PARAM, "%s/base_wraps_to_0", n);
        clause("dbtr/%s/empty_mask", fn[i]);
        expect_err(dbtr(fids[i], ~0ul, 0), SUCCESS, "%s/empty_mask", n);
        // The refused calls changed nothing (the spec does not say whether
        // the valid triggers of a refused set are handled).
        clause("dbtr/%s/all_or_nothing", fn[i]);
        expect_eq(read1(idx).w[0], TS_MAPPED, "%s/still_installed", n);
        if (read1(idx).w[0] != TS_MAPPED) {
            // Put it back for the next function's cases.
            uninstall_all();
            install1(mc(TYPE_MCONTROL, STORE), target_addr(target_a));
            idx = my_shmem()[0].w[0];
        }
    }
    clause("dbtr/uninstall_triggers/uninstalls");
    expect_err(dbtr(F::uninstall_triggers, idx, 1), SUCCESS, "mask/uninstall");
    clause("dbtr/uninstall_triggers/INVALID_PARAM");
    expect_err(dbtr(F::uninstall_triggers, idx, 1), ERR_INVALID_PARAM, "mask/uninstall_twice");
    clause("dbtr/enable_triggers/INVALID_PARAM");
    expect_err(dbtr(F::enable_triggers, idx, 1), ERR_INVALID_PARAM, "mask/enable_uninstalled");
    clause("dbtr/disable_triggers/INVALID_PARAM");
    expect_err(dbtr(F::disable_triggers, idx, 1), ERR_INVALID_PARAM, "mask/disable_uninstalled");
    uninstall_all();
}

void read_errors() {
    clause("dbtr/read_triggers/BAD_RANGE");
    expect_err(dbtr(F::read_triggers, ntrig, 1), ERR_BAD_RANGE, "read/base_trig_max");
    expect_err(dbtr(F::read_triggers, 0, ntrig + 1), ERR_BAD_RANGE, "read/count_beyond");
    expect_err(dbtr(F::read_triggers, ntrig - 1, 2), ERR_BAD_RANGE, "read/end_beyond");
    expect_err(dbtr(F::read_triggers, 1, ~0ul), ERR_BAD_RANGE, "read/count_wraps");
    expect_err(dbtr(F::read_triggers, ~0ul, 2), ERR_BAD_RANGE, "read/base_wraps");
    // The last trigger: "trig_idx_base + trig_count >= trig_max" read
    // literally makes it unreadable (BAD_RANGE passes in conformance mode).
    clause("dbtr/read_triggers/count_trig_max");
    expect_ret_or(dbtr(F::read_triggers, ntrig - 1, 1), SUCCESS, kAnyValue, ERR_BAD_RANGE,
                  kNoAlt, "read/last");
    clause("dbtr/read_triggers/reads");
    expect_err(dbtr(F::read_triggers, 0, 0), SUCCESS, "read/zero");
}

// Another hart has its own shared memory and triggers.
void other_hart(void *) {
    clause("dbtr/set_shmem/per_hart");
    expect_err(dbtr(F::read_triggers, 0, 1), ERR_NO_SHMEM, "other_hart/no_shmem");
    expect_err(set_shmem(my_shmem()), SUCCESS, "other_hart/set_shmem");
    expect_err(dbtr(F::read_triggers, 0, ntrig), SUCCESS, "other_hart/read");
    bool none = true;
    for (unsigned long i = 0; i < ntrig; i++) none &= my_shmem()[i].w[0] == 0;
    expect_true(none, "other_hart/boot_hart_trigger_not_here");
    expect_ret(install1(mc(TYPE_MCONTROL, STORE | S), target_addr(target_b)), SUCCESS, 0,
               "other_hart/install");
    expect_true(fires(do_store, (void *)&target_b, "other_hart"), "other_hart/fires");
    // Left installed: the hart's reset by HSM stop/start must remove it.
}
void reset_check(void *) {
    clause("dbtr/hsm_restart/reset");
    expect_err(dbtr(F::read_triggers, 0, 1), ERR_NO_SHMEM, "restart/no_shmem");
    expect_err(set_shmem(my_shmem()), SUCCESS, "restart/set_shmem");
    bool none = true;
    for (unsigned long i = 0; i < ntrig; i++) none &= read1(i).w[0] == 0;
    expect_true(none, "restart/no_trigger_installed");
    expect_true(!fires(do_store, (void *)&target_b, "restart"), "restart/does_not_fire");
    clause("dbtr/set_shmem/disable");
    expect_err(dbtr(F::set_shmem, ~0ul, ~0ul, 0), SUCCESS, "restart/disable_shmem");
}

void smp() {
    if (platform().nharts < 2 || !start_secondaries()) return;
    unsigned long h = last_secondary();
    clause("dbtr/set_shmem/per_hart");
    expect_ret(install1(mc(TYPE_MCONTROL, STORE | S), target_addr(target_a)), SUCCESS, 0,
               "smp/boot_install");
    unsigned long idx = my_shmem()[0].w[0];
    expect_true(run_on(h, other_hart, nullptr), "smp/other_hart_ran");
    expect_true(fires(do_store, (void *)&target_a, "smp"), "smp/boot_still_fires");
    expect_true(!fires(do_store, (void *)&target_b, "smp"), "smp/other_hart_trigger_not_here");
    expect_err(dbtr(F::uninstall_triggers, idx, 1), SUCCESS, "smp/boot_uninstall");
    clause("dbtr/hsm_restart/reset");
    if (!expect_true(stop_secondary(h), "smp/stopped")) return;
    if (!expect_true(start_secondaries(), "smp/restarted")) return;
    expect_true(run_on(h, reset_check, nullptr), "smp/reset_check_ran");
}

} // namespace

void payload_main() {
    if (!extension_required(eid::dbtr)) return;
    num_triggers();
    if (!ntrig) return;
    no_shmem("at_start");
    shmem_errors();
    clause("dbtr/set_shmem/sets");
    expect_err(set_shmem(my_shmem()), SUCCESS, "set_shmem");
    // Setting it again while set: the error table has no code for it.
    expect_err(set_shmem(my_shmem()), SUCCESS, "set_shmem_again");
    functional(TYPE_MCONTROL);
    functional(TYPE_MCONTROL6);
    not_in_mmode();
    install_errors();
    update_errors();
    mask_errors();
    read_errors();
    // Disabling: reads and installs need shared memory again.
    clause("dbtr/set_shmem/disable");
    expect_err(dbtr(F::set_shmem, ~0ul, ~0ul, 0), SUCCESS, "set_shmem/disable");
    no_shmem("after_disable");
    clause("dbtr/set_shmem/sets");
    expect_err(set_shmem(my_shmem()), SUCCESS, "set_shmem/again_after_disable");
    smp();
    clause("dbtr/set_shmem/disable");
    expect_err(dbtr(F::set_shmem, ~0ul, ~0ul, 0), SUCCESS, "set_shmem/disable_at_end");
}
