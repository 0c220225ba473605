// SPDX-License-Identifier: BSD-2-Clause
// System reset extension (ext-sys-reset.adoc): reserved and unimplemented
// types and reasons are INVALID_PARAM and change nothing; the real shutdown
// ends the run (the runner checks QEMU exits by itself). With more than one
// hart the shutdown is requested by a secondary while the boot hart keeps
// running, with reason "system failure" (QEMU may report it as a non-zero
// exit status, which the runner allows for this payload). Reboots are tested
// by the separate "reboot" payload. The final shutdown's type and reason carry
// set bits above bit 31, which the firmware must ignore.
#include "payload.hpp"

using namespace pl;

PAYLOAD_NAME("srst");

namespace {

struct Case {
    const char *name;
    unsigned long type, reason;
    // Vendor/platform-specific or implementation-specific: another firmware
    // may implement it (and reset the machine), so a conformance run skips it.
    bool may_be_implemented = false;
};

// A firmware that wrongly accepts one of these shuts the machine down, which
// the runner reports as a missing TSBI-DONE.
const Case kInvalid[] = {
    {"type_reserved_first", 0x00000003, 0},
    {"type_reserved_last", 0xEFFFFFFF, 0},
    {"type_vendor_first", 0xF0000000, 0, true},
    {"type_vendor_last", 0xFFFFFFFF, 0, true},
    {"type_reserved_upper_bits", static_cast<unsigned long>(0x100000003ull), 0},
    {"reason_reserved_first", 0, 0x00000002},
    {"reason_reserved_last", 0, 0xDFFFFFFF},
    {"cold_reboot_reason_reserved", 1, 0x00000002},
    {"warm_reboot_reason_reserved", 2, 0x12345678},
    {"both_reserved", 0x1000, 0x1000},
    // Implementation-specific and vendor reasons: this firmware implements
    // none, so "platform-specific and unimplemented" => INVALID_PARAM.
    {"reason_sbi_impl_specific", 0, 0xE0000000, true},
    {"reason_vendor", 0, 0xF0000000, true},
};

struct Job {
    const Case *c;
    SbiRet r;
};
void reset_job(void *arg) {
    auto *j = static_cast<Job *>(arg);
    j->r = sbi_system_reset(j->c->type, j->c->reason);
}

// The final shutdown passes garbage above bit 31 of both arguments: they
// are uint32_t, so only the low 32 bits count (binary-encoding.adoc). A
// firmware that refuses it fails the case and is then shut down normally.
[[noreturn]] void shutdown_upper_bits(const char *case_name) {
    clause("encoding/32bit_args/system_reset");
    SbiRet r = sbi_system_reset(kUpper32 | reset_type::shutdown,
                                kUpper32 | reset_reason::system_failure);
    printf("FAIL: srst/%s @%s returned error=%ld; expected no return (the low 32 bits are "
           "shutdown, system failure)\n",
           case_name, current_clause(), r.error);
    power_off(Shutdown::srst, reset_reason::system_failure);
}

void shutdown_job(void *) { shutdown_upper_bits("shutdown_from_secondary_upper_bits"); }

// The clause of a case: reserved values, or platform-specific ones this
// firmware does not implement (both INVALID_PARAM).
void case_clause(const Case &c) {
    clause(c.may_be_implemented ? "srst/system_reset/platform_specific"
                                : "srst/system_reset/INVALID_PARAM");
}

bool skipped(const Case &c) { return c.may_be_implemented && conformance_mode(); }

} // namespace

void payload_main() {
    if (!extension_present(eid::srst, "present")) return;
    for (const Case &c : kInvalid) {
        case_clause(c);
        if (skipped(c)) {
            not_applicable("platform-specific: may be implemented and reset the machine", "%s",
                           c.name);
            continue;
        }
        expect_err(sbi_system_reset(c.type, c.reason), ERR_INVALID_PARAM, "%s", c.name);
        expect_alive("%s", c.name);
    }
    const Platform &p = platform();
    if (p.nharts > 1 && start_secondaries()) {
        unsigned long h = last_secondary();
        for (const Case &c : kInvalid) {
            if (skipped(c)) continue;
            case_clause(c);
            Job j{&c, {-99, 0}};
            if (run_on(h, reset_job, &j))
                expect_err(j.r, ERR_INVALID_PARAM, "hart%lu/%s", h, c.name);
            else
                fail("job timed out", "hart%lu/%s", h, c.name);
        }
        print_done();
        post_job(h, shutdown_job, nullptr);
        // The boot hart keeps running; the shutdown must stop it too.
        for (;;) {
        }
    }
    print_done();
    shutdown_upper_bits("shutdown_upper_bits");
}
