// SPDX-License-Identifier: BSD-2-Clause
// Result lines of the payload protocol (tests/payloads/README.md):
// "PASS: <payload>/<case>", "FAIL: <payload>/<case> <details>" and the final
// "TSBI-DONE passed=N failed=M".
#include "internal.hpp"

namespace pl {

namespace {
unsigned n_passed, n_failed;
SbiRet startup_spec_version;

void vname(char *buf, size_t size, const char *fmt, va_list ap) { vsnprintf(buf, size, fmt, ap); }

// The clause each hart is checking (clause()), by hart index.
char clauses[kMaxHarts][72];

// " @<id>" when the calling hart has a clause, else "".
struct ClauseTag {
    char text[96];
    ClauseTag() {
        const char *c = current_clause();
        if (c) snprintf(text, sizeof text, " @%s", c);
        else text[0] = 0;
    }
};

bool emit(bool ok, const char *name, const char *details) {
    ClauseTag tag;
    if (skipping_calls()) {
        printf("N/A: %s/%s%s skipped: the firmware hung or reset the machine in this clause "
               "in an earlier run\n", pl_payload_name, name, tag.text);
        return false;
    }
    __atomic_fetch_add(ok ? &n_passed : &n_failed, 1, __ATOMIC_RELAXED);
    if (ok) printf("PASS: %s/%s%s\n", pl_payload_name, name, tag.text);
    else printf("FAIL: %s/%s%s %s\n", pl_payload_name, name, tag.text, details);
    return ok;
}

// Whether `id` is one of the comma-separated clauses of bootarg "skip=".
bool in_skip_list(const char *id) {
    const char *p = platform().bootargs;
    const size_t n = strlen(id);
    for (; *p; p++) {
        if ((p != platform().bootargs && p[-1] != ' ') || strncmp(p, "skip=", 5)) continue;
        for (const char *q = p + 5; *q && *q != ' ';) {
            if (!strncmp(q, id, n) && (q[n] == ',' || q[n] == ' ' || !q[n])) return true;
            while (*q && *q != ',' && *q != ' ') q++;
            if (*q == ',') q++;
        }
    }
    return false;
}

void set_skipping(unsigned long h, bool on) {
    if (h >= sizeof(long) * 8) return; // a word of hart IDs (skipping_calls)
    if (on) __atomic_fetch_or(&pl_skip_harts, 1ul << h, __ATOMIC_RELAXED);
    else __atomic_fetch_and(&pl_skip_harts, ~(1ul << h), __ATOMIC_RELAXED);
}
} // namespace

extern "C" {
volatile unsigned long pl_skip_harts = 0;
}

void clause(const char *fmt, ...) {
    const unsigned long id = hartid();
    const unsigned h = hart_index(id);
    if (h >= kMaxHarts) return;
    if (!fmt) {
        clauses[h][0] = 0;
        set_skipping(id, false);
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vname(clauses[h], sizeof clauses[h], fmt, ap);
    va_end(ap);
    printf("CHECK-BEGIN: %s %s\n", pl_payload_name, clauses[h]);
    set_skipping(id, in_skip_list(clauses[h]));
}

const char *current_clause() {
    const unsigned h = hart_index(hartid());
    return h < kMaxHarts && clauses[h][0] ? clauses[h] : nullptr;
}

bool conformance_mode() { return bootarg("conformance", 0) != 0; }

bool expect_err_or(SbiRet r, long error, long alt, const char *fmt, ...) {
    char name[160], why[200];
    va_list ap;
    va_start(ap, fmt);
    vname(name, sizeof name, fmt, ap);
    va_end(ap);
    bool ok = r.error == error || (conformance_mode() && r.error == alt);
    snprintf(why, sizeof why, "got error=%ld (%s) value=0x%lx expected error=%ld (%s)%s%s",
             r.error, error_name(r.error), r.value, error, error_name(error),
             conformance_mode() ? " or " : "", conformance_mode() ? error_name(alt) : "");
    return emit(ok, name, why);
}

// "<kind>: <payload>/<case>[ @<clause>] <text>", not counted by DONE.
static void uncounted(const char *kind, const char *name, const char *text) {
    ClauseTag tag;
    printf("%s: %s/%s%s %s\n", kind, pl_payload_name, name, tag.text, text);
}

void not_applicable(const char *why, const char *fmt, ...) {
    char name[160];
    va_list ap;
    va_start(ap, fmt);
    vname(name, sizeof name, fmt, ap);
    va_end(ap);
    uncounted("N/A", name, why);
}

void info(const char *name, const char *fmt, ...) {
    char text[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    uncounted("INFO", name, text);
}

bool extension_present(long ext, const char *case_name) {
    if (!conformance_mode()) return true;
    SbiRet r = sbi_probe(ext);
    if (r.error == SUCCESS && r.value != 0) return true;
    char why[96];
    snprintf(why, sizeof why, "extension 0x%lx not present (probe error=%ld value=%lu)",
             static_cast<unsigned long>(ext), r.error, r.value);
    not_applicable(why, "%s", case_name);
    return false;
}

bool extension_required(long ext) {
    if (!extension_present(ext, "present")) return false;
    clause("base/probe_extension/tsbi_required");
    expect_ret(sbi_probe(ext), SUCCESS, 1, "probe");
    clause(nullptr);
    return true;
}

const char *error_name(long e) {
    static const char *const names[] = {"SUCCESS",           "ERR_FAILED",
                                        "ERR_NOT_SUPPORTED", "ERR_INVALID_PARAM",
                                        "ERR_DENIED",        "ERR_INVALID_ADDRESS",
                                        "ERR_ALREADY_AVAILABLE", "ERR_ALREADY_STARTED",
                                        "ERR_ALREADY_STOPPED",   "ERR_NO_SHMEM",
                                        "ERR_INVALID_STATE",     "ERR_BAD_RANGE",
                                        "ERR_TIMEOUT",           "ERR_IO",
                                        "ERR_DENIED_LOCKED"};
    if (e <= 0 && e >= sbi::kLowestError) return names[-e];
    return "(not an SBI error code)";
}

void checks_init() {
    startup_spec_version = sbi_call(eid::base, fid::base::get_spec_version);
}

unsigned passed_count() { return n_passed; }
unsigned failed_count() { return n_failed; }

bool pass(const char *fmt, ...) {
    char name[160];
    va_list ap;
    va_start(ap, fmt);
    vname(name, sizeof name, fmt, ap);
    va_end(ap);
    return emit(true, name, "");
}

bool fail(const char *why, const char *fmt, ...) {
    char name[160];
    va_list ap;
    va_start(ap, fmt);
    vname(name, sizeof name, fmt, ap);
    va_end(ap);
    return emit(false, name, why);
}

bool expect_true(bool cond, const char *fmt, ...) {
    char name[160];
    va_list ap;
    va_start(ap, fmt);
    vname(name, sizeof name, fmt, ap);
    va_end(ap);
    return emit(cond, name, "condition false");
}

bool expect_eq(unsigned long got, unsigned long expected, const char *fmt, ...) {
    char name[160], why[120];
    va_list ap;
    va_start(ap, fmt);
    vname(name, sizeof name, fmt, ap);
    va_end(ap);
    snprintf(why, sizeof why, "got 0x%lx expected 0x%lx", got, expected);
    return emit(got == expected, name, why);
}

bool expect_err(SbiRet r, long error, const char *fmt, ...) {
    char name[160], why[160];
    va_list ap;
    va_start(ap, fmt);
    vname(name, sizeof name, fmt, ap);
    va_end(ap);
    snprintf(why, sizeof why, "got error=%ld (%s) value=0x%lx expected error=%ld (%s)", r.error,
             error_name(r.error), r.value, error, error_name(error));
    return emit(r.error == error, name, why);
}

bool expect_ret(SbiRet r, long error, unsigned long value, const char *fmt, ...) {
    char name[160], why[200];
    va_list ap;
    va_start(ap, fmt);
    vname(name, sizeof name, fmt, ap);
    va_end(ap);
    snprintf(why, sizeof why, "got error=%ld (%s) value=0x%lx expected error=%ld (%s) value=0x%lx",
             r.error, error_name(r.error), r.value, error, error_name(error), value);
    return emit(r.error == error && r.value == value, name, why);
}

bool expect_alive(const char *fmt, ...) {
    char name[160], why[200];
    va_list ap;
    va_start(ap, fmt);
    vname(name, sizeof name, fmt, ap);
    va_end(ap);
    size_t len = strlen(name);
    snprintf(name + len, sizeof name - len, "/alive");
    // The console (DBCN write when present) has worked for every line so
    // far, and the base extension still gives its start-up answer.
    SbiRet r = sbi_call(eid::base, fid::base::get_spec_version);
    unsigned long bad_writes = console_failures();
    snprintf(why, sizeof why,
             "get_spec_version now error=%ld value=0x%lx, at start 0x%lx; failed console writes %lu",
             r.error, r.value, startup_spec_version.value, bad_writes);
    return emit(r.error == 0 && r.value == startup_spec_version.value && bad_writes == 0, name,
                why);
}

void report_anomalies() {
    // Found at the end, not while one clause ran: no clause (and never
    // skipped).
    clause(nullptr);
    char why[96];
    if (pl_extra_entries) {
        snprintf(why, sizeof why, "a second hart (%lu) entered the payload's boot entry",
                 pl_extra_entry_hartid);
        fail(why, "boot/single_entry");
    }
    if (pl_bad_entry_a0) {
        snprintf(why, sizeof why, "a hart entered the secondary entry with an out-of-range a0 0x%lx",
                 pl_bad_entry_a0);
        fail(why, "hsm/secondary_entry_a0");
    }
    if (pl_bad_resume_a1) {
        snprintf(why, sizeof why, "a hart resumed with an unknown opaque (a0=0x%lx a1=0x%lx)",
                 pl_bad_resume_a0, pl_bad_resume_a1);
        fail(why, "hsm/resume_opaque");
    }
}

// "This is a synchronous call and does not return if it succeeds": a return
// is a failure even if the machine powers off a moment later (it is printed
// after TSBI-DONE; the runner reports it).
void power_off(Shutdown how, unsigned long reason) {
    clause(nullptr); // the shutdown itself is never skipped
    const bool srst = sbi_probe(eid::srst).value != 0;
    if (how == Shutdown::srst && srst) {
        SbiRet r = sbi_system_reset(reset_type::shutdown, reason);
        if (r.error != ERR_NOT_SUPPORTED)
            printf("FAIL: %s/shutdown/srst_returned error=%ld (%s)\n", pl_payload_name, r.error,
                   error_name(r.error));
    } else {
        if (how == Shutdown::srst)
            printf("NOTE: %s: SRST absent, using legacy shutdown\n", pl_payload_name);
        long r = sbi_legacy(eid::legacy_shutdown);
        printf("FAIL: %s/shutdown/legacy_returned a0=%ld\n", pl_payload_name, r);
    }
    // A machine without power-off (sifive_u) ends with a cold reboot instead;
    // the runner passes -no-reboot there.
    if (srst) {
        printf("NOTE: %s: no power-off on this machine, ending with a cold reboot\n", pl_payload_name);
        SbiRet r = sbi_system_reset(reset_type::cold_reboot, reason);
        printf("FAIL: %s/shutdown/reboot_returned error=%ld (%s)\n", pl_payload_name, r.error,
               error_name(r.error));
    }
    pl_park();
}

void print_done() {
    report_anomalies();
    printf("TSBI-DONE passed=%u failed=%u\n", n_passed, n_failed);
    // run.py --stack-report (bootarg stacks=1): the runner reads the
    // firmware's M-mode stacks through the QEMU monitor while the machine
    // still runs, then answers '+' on the console. No '+' within the wait
    // is the runner's failure to report, not the payload's.
    if (bootarg("stacks", 0)) {
        printf("TSBI-STACKS\n");
        char c = 0;
        wait_until(
            [&] {
                SbiRet r = sbi_call(eid::dbcn, fid::dbcn::read, 1, reinterpret_cast<uintptr_t>(&c), 0);
                return r.error == SUCCESS && r.value == 1 && c == '+';
            },
            30000000);
    }
}

void finish(Shutdown how, unsigned long reason) {
    print_done();
    power_off(how, reason);
}

} // namespace pl
