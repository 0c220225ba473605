// SPDX-License-Identifier: BSD-2-Clause
// Firmware Features extension (ext-firmware-features.adoc): get and set of
// every feature the hart backs (NOT_SUPPORTED for the others), reserved and
// platform-specific types DENIED, invalid values and flags INVALID_PARAM, a
// feature id with garbage above bit 31 (uint32_t), per-hart state, LOCK
// (DENIED_LOCKED until hart reset) and the reset to 0 when a stopped hart
// is started again. LANDING_PAD is only set to 0: enabling it for S-mode
// would fault this payload's indirect calls (no landing pads compiled in).
#include "payload.hpp"

using namespace pl;

PAYLOAD_NAME("fwft");

namespace {

constexpr long kFwftSet = 0, kFwftGet = 1;
constexpr unsigned long kLock = 1;
constexpr long ERR_DENIED_LOCKED = code(sbi::Error::DeniedLocked);
enum : unsigned long {
    MISALIGNED_EXC_DELEG,
    LANDING_PAD,
    SHADOW_STACK,
    DOUBLE_TRAP,
    PTE_AD_HW_UPDATING,
    POINTER_MASKING_PMLEN,
    kNumFeatures
};
const char *const kName[kNumFeatures] = {"misaligned_exc_deleg", "landing_pad", "shadow_stack",
                                        "double_trap", "pte_ad_hw_updating",
                                        "pointer_masking_pmlen"};

SbiRet fwft_set(unsigned long f, unsigned long v, unsigned long flags = 0) {
    return sbi_call(eid::fwft, kFwftSet, f, v, flags);
}
SbiRet fwft_get(unsigned long f) { return sbi_call(eid::fwft, kFwftGet, f); }

bool supported[kNumFeatures];
unsigned long on_value[kNumFeatures]; // the value that enables it (PMLEN: 7 or 16)

void reserved_types() {
    const unsigned long types[] = {6,          0x3fffffff, 0x40000000, 0x7fffffff, 0x80000000,
                                   0xbfffffff, 0xc0000000, 0xffffffff, kUpper32 | 6};
    for (unsigned long t : types) {
        clause("fwft/get/DENIED");
        expect_ret(fwft_get(t), ERR_DENIED, 0, "type_0x%lx/get_denied", t);
        clause("fwft/set/DENIED");
        expect_err(fwft_set(t, 0), ERR_DENIED, "type_0x%lx/set_denied", t);
        expect_err(fwft_set(t, 1, kLock), ERR_DENIED, "type_0x%lx/set_lock_denied", t);
    }
    clause("encoding/unknown_fid/not_supported");
    expect_err(sbi_call(eid::fwft, 2), ERR_NOT_SUPPORTED, "fid2/not_supported");
    expect_err(sbi_call(eid::fwft, ~0l), ERR_NOT_SUPPORTED, "fid_all_ones/not_supported");
}

// Reset values (table "FWFT Feature Attribute Values": 0 for all; ours for
// MISALIGNED_EXC_DELEG is 0 too, README).
void discover() {
    for (unsigned long f = 0; f < kNumFeatures; f++) {
        SbiRet r = fwft_get(f);
        supported[f] = r.error == SUCCESS;
        // MISALIGNED_EXC_DELEG's reset value is implementation-defined.
        clause(r.error != SUCCESS              ? "fwft/get/NOT_SUPPORTED"
               : f == MISALIGNED_EXC_DELEG ? "fwft/get/reset_value_implementation_defined"
                                           : "fwft/get/reset_value");
        if (r.error == SUCCESS) expect_eq(r.value, 0, "%s/reset_value_0", kName[f]);
        else expect_ret(r, ERR_NOT_SUPPORTED, 0, "%s/get_not_supported", kName[f]);
        note("%s: %s", kName[f], supported[f] ? "supported" : "not supported");
        clause("fwft/set/NOT_SUPPORTED");
        if (!supported[f])
            expect_err(fwft_set(f, 0), ERR_NOT_SUPPORTED, "%s/set_not_supported", kName[f]);
        on_value[f] = 1;
    }
    if (supported[POINTER_MASKING_PMLEN]) {
        on_value[POINTER_MASKING_PMLEN] =
            fwft_set(POINTER_MASKING_PMLEN, 7).error == SUCCESS ? 7 : 16;
        fwft_set(POINTER_MASKING_PMLEN, 0);
    }
    // Every hart of QEMU virt has medeleg's misaligned bits.
    clause("fwft/set/tsbi_misaligned_supported");
    expect_true(supported[MISALIGNED_EXC_DELEG], "misaligned_exc_deleg/supported");
    // feature is uint32_t: garbage above bit 31 is ignored.
    clause("encoding/32bit_args/fwft_feature");
    expect_ret(fwft_get(kUpper32 | MISALIGNED_EXC_DELEG), SUCCESS, 0, "get_feature_upper_bits");
}

bool enable_allowed(unsigned long f) { return f != LANDING_PAD; }

void set_get(unsigned long f) {
    const char *n = kName[f];
    unsigned long on = on_value[f];
    clause("fwft/set/INVALID_PARAM");
    expect_err(fwft_set(f, f == POINTER_MASKING_PMLEN ? 3 : 2), ERR_INVALID_PARAM,
               "%s/invalid_value", n);
    expect_err(fwft_set(f, ~0ul), ERR_INVALID_PARAM, "%s/value_all_ones", n);
    expect_err(fwft_set(f, 0, 2), ERR_INVALID_PARAM, "%s/reserved_flag", n);
    expect_err(fwft_set(f, 0, ~0ul), ERR_INVALID_PARAM, "%s/flags_all_ones", n);
    expect_ret(fwft_get(f), SUCCESS, 0, "%s/unchanged_after_errors", n);
    clause("fwft/set/sets");
    expect_err(fwft_set(f, 0), SUCCESS, "%s/set_current_value", n);
    if (!enable_allowed(f)) return;
    clause("encoding/32bit_args/fwft_feature");
    expect_err(fwft_set(kUpper32 | f, on), SUCCESS, "%s/set_on_feature_upper_bits", n);
    clause("fwft/set/sets");
    expect_ret(fwft_get(f), SUCCESS, on, "%s/get_on", n);
    expect_err(fwft_set(f, on), SUCCESS, "%s/set_on_again", n);
    if (platform().nharts > 1 && secondary_checked_in(last_secondary())) {
        // Local scope: another hart still has the reset value.
        clause("fwft/set/local_scope");
        struct J {
            unsigned long f;
            SbiRet r;
        } j{f, {-99, 0}};
        bool ran = run_on(last_secondary(), [](void *a) {
            auto *p = static_cast<J *>(a);
            p->r = fwft_get(p->f);
        }, &j);
        expect_true(ran && j.r.error == SUCCESS && j.r.value == 0, "%s/other_hart_unaffected", n);
    }
    clause("fwft/set/sets");
    expect_err(fwft_set(f, 0), SUCCESS, "%s/set_off", n);
    expect_ret(fwft_get(f), SUCCESS, 0, "%s/get_off", n);
}

// LOCK on hart h: set with LOCK, then every set is DENIED_LOCKED (also of
// the same value: README), get still works.
struct LockJob {
    unsigned long f, value, other;
    SbiRet locked, get, set_other, set_same, set_lock_again;
};
void lock_job(void *arg) {
    auto *j = static_cast<LockJob *>(arg);
    j->locked = fwft_set(j->f, j->value, kLock);
    j->get = fwft_get(j->f);
    j->set_other = fwft_set(j->f, j->other);
    j->set_same = fwft_set(j->f, j->value);
    j->set_lock_again = fwft_set(j->f, j->value, kLock);
}
void check_lock(const LockJob &j, const char *where) {
    const char *n = kName[j.f];
    clause("fwft/set/DENIED_LOCKED");
    expect_err(j.locked, SUCCESS, "%s/%s/lock", n, where);
    expect_ret(j.get, SUCCESS, j.value, "%s/%s/get_locked", n, where);
    expect_err(j.set_other, ERR_DENIED_LOCKED, "%s/%s/set_other_denied_locked", n, where);
    // Setting the value it already has modifies nothing; the spec does not
    // say whether that is refused (tsbi: DENIED_LOCKED) or succeeds.
    expect_err_or(j.set_same, ERR_DENIED_LOCKED, SUCCESS, "%s/%s/set_same_denied_locked", n, where);
    expect_err_or(j.set_lock_again, ERR_DENIED_LOCKED, SUCCESS, "%s/%s/lock_again_denied_locked",
                  n, where);
}


// Locks every supported feature (enabled where allowed) on the last
// secondary, then stops and restarts it: a started hart is reset, so the
// features are 0 and unlocked again.
void lock_and_reset() {
    unsigned long h = last_secondary();
    for (unsigned long f = 0; f < kNumFeatures; f++) {
        if (!supported[f]) continue;
        bool on = enable_allowed(f);
        LockJob j{f, on ? on_value[f] : 0, on ? 0 : on_value[f], {}, {}, {}, {}, {}};
        if (!run_on(h, lock_job, &j)) {
            fail("job timed out", "%s/secondary/lock", kName[f]);
            return;
        }
        check_lock(j, "secondary");
    }
    clause("fwft/set/reset_on_hart_start");
    if (!expect_true(stop_secondary(h), "reset/hart%lu/stopped", h)) return;
    expect_err(sbi_hart_start(h, secondary_entry(), secondary_opaque(h)), SUCCESS,
               "reset/hart%lu/started", h);
    if (!expect_true(wait_until([&] { return secondary_checked_in(h); }, kPatience),
                     "reset/hart%lu/runs", h))
        return;
    for (unsigned long f = 0; f < kNumFeatures; f++) {
        if (!supported[f]) continue;
        struct J {
            unsigned long f, on;
            SbiRet get, set, off;
        } j{f, enable_allowed(f) ? on_value[f] : 0, {}, {}, {}};
        run_on(h, [](void *a) {
            auto *p = static_cast<J *>(a);
            p->get = fwft_get(p->f);
            p->set = fwft_set(p->f, p->on);
            p->off = fwft_set(p->f, 0);
        }, &j);
        expect_ret(j.get, SUCCESS, 0, "%s/after_restart/reset_value", kName[f]);
        expect_err(j.set, SUCCESS, "%s/after_restart/unlocked", kName[f]);
        expect_err(j.off, SUCCESS, "%s/after_restart/set_off", kName[f]);
    }
}

} // namespace

void payload_main() {
    if (!extension_present(eid::fwft, "present")) return;
    clause("base/probe_extension/tsbi_required");
    expect_true(sbi_probe(eid::fwft).value != 0, "probe");
    bool secondaries = platform().nharts > 1 && start_secondaries();
    reserved_types();
    discover();
    for (unsigned long f = 0; f < kNumFeatures; f++)
        if (supported[f]) set_get(f);
    if (secondaries) {
        lock_and_reset();
    } else {
        // One hart: lock the reset value last (nothing can reset the hart).
        for (unsigned long f = 0; f < kNumFeatures; f++) {
            if (!supported[f]) continue;
            LockJob j{f, 0, on_value[f], {}, {}, {}, {}, {}};
            lock_job(&j);
            check_lock(j, "boot_hart");
        }
    }
    expect_alive("fwft");
}
