// SPDX-License-Identifier: BSD-2-Clause
// CTR across an HSM non-retentive suspend: still reachable from S-mode and
// with its state kept, on emulated and on real CTR (ratified registers).
#include "ctr_pl.hpp"

PAYLOAD_NAME("ctr_susp");

using namespace pl;
using namespace ctrpl;
namespace rc = ctr::ratified::ctl;
namespace rs = ctr::ratified::status;

namespace {

void reset() {
    sctrctl::write(0);
    sctrdepth::write(0);
    sctrstatus::write(0);
    sctrclr();
}

void suspend() {
    // Non-retentive suspend: CTR stays reachable and keeps its state.
    reset();
    sctrdepth::write(1);
    sctrctl::write(rc::BPFRZ | rc::LCOFIFRZ | rc::RETINH);
    sctrstatus::write(rs::FROZEN | 7);
    set_entry(0, 0, 0x123457);
    // The wake-up: a timer interrupt, pending but not taken before the
    // suspend (a loaded host may take longer than the delay to get there).
    bool was = irq_enable(false);
    sbi_set_timer(rdtime() + us_to_ticks(2000));
    sie_set(1ul << 5);
    long r = suspend_non_retentive(suspend_type::default_non_retentive, nullptr);
    sbi_set_timer(~0ull);
    irq_enable(was);
    expect_eq(r, 1, "suspend/resumed");
    Result c = sctrctl::read();
    expect_eq(c.cause, kNone, "suspend/sctrctl_accessible");
    expect_eq(c.value, rc::BPFRZ | rc::LCOFIFRZ | rc::RETINH, "suspend/sctrctl_kept");
    expect_eq(sctrdepth::read().value, 1, "suspend/sctrdepth_kept");
    expect_eq(sctrstatus::read().value, rs::FROZEN | 7, "suspend/sctrstatus_kept");
    expect_eq(entry(0, 0), 0x123457, "suspend/entry_kept");
    reset();
}

} // namespace

void payload_main() {
    if (!expect_eq(sctrctl::read().cause, kNone, "ratified_ctr_present")) finish();
    suspend();
    finish();
}
