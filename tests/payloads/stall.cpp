// SPDX-License-Identifier: BSD-2-Clause
// The runner's own test (suite 22): a payload that goes silent inside one
// clause, as a firmware that hangs in an SBI call looks to run.py. Its
// conformance rerun (bootarg skip=<clause>) must record the hang against
// that clause, skip it and reach the end. It stands in for a peer's real
// hang, so that no peer behaviour decides a PASS or FAIL of ours (a peer
// that hangs goes in the peer table).
#include "payload.hpp"

using namespace pl;

PAYLOAD_NAME("stall");

void payload_main() {
    clause("base/get_spec_version/encoding");
    SbiRet r = sbi_call_raw(0x10, 0);
    expect_true(r.error == 0, "before/get_spec_version");
    // The stall: silence inside the clause, unless the runner's rerun asked
    // to skip it (then this hart's calls of the clause are skipped too).
    clause("hsm/hart_suspend/INVALID_ADDRESS");
    if (!skipping_calls()) {
        for (;;)
            asm volatile("wfi");
    }
    // Reached only in the rerun: this check reports N/A, skipped.
    pass("stalled/in_clause");
    clause("base/get_spec_version/encoding");
    r = sbi_call_raw(0x10, 0);
    expect_true(r.error == 0, "after/get_spec_version");
    clause(nullptr);
    finish();
}
