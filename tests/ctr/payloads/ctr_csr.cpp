// SPDX-License-Identifier: BSD-2-Clause
// CSR-level CTR suite from S-mode, the same on a hart with ratified Smctr
// (QEMU 10) and on one where the firmware emulates CTR (QEMU 7.2, QEMU 10
// without CTR). Built once per profile (CTR_EXPECT: 1 ratified, 2 draft,
// 3 both); the firmware is told the profile through the device tree
// (/chosen/tsbi,ctr-profile). Values that are implementation choices (the
// largest depth) are checked for legality only; the draft WRAP bit is not
// checked after a software write (a ratified hart cannot hold it).
#include "ctr_pl.hpp"

#ifndef CTR_EXPECT
#define CTR_EXPECT 3
#endif

PAYLOAD_NAME("ctr_csr");

using namespace pl;
using namespace ctrpl;
namespace rc = ctr::ratified::ctl;
namespace rs = ctr::ratified::status;
namespace dc = ctr::draft::ctl;
namespace ds = ctr::draft::status;

namespace {

constexpr bool kRatified = CTR_EXPECT & 1, kDraft = CTR_EXPECT & 2;
// Every standard sctrctl field (all of them are writable on QEMU 10 and in
// the emulation), and the same fields in the draft layout plus ETEN.
// On RV32 the ratified sctrctl shows bits 31:0 only (smctr-v1.0, "RV32
// cannot access xctrctl bits 63:32"); the draft reaches 63:32 through
// sctrcontrolh (smctr-v0.1.4: "In RV32, sctrcontrol[63:32] can be accessed
// via sctrcontrolh").
constexpr unsigned long kSctrctlAll = static_cast<unsigned long>(rc::DEFINED & ~rc::M_ONLY);
constexpr uint64_t kSctrcontrolAll64 = 0x0000FF7E00001E06ull;
constexpr unsigned long kSctrcontrolAll = static_cast<unsigned long>(kSctrcontrolAll64);
constexpr bool kRv32 = pl::kXlen == 32;
// The draft ETEN (bit 38): in sctrcontrol on RV64, bit 6 of sctrcontrolh on RV32.
void write_ctl(uint64_t v) {
    sctrcontrol::write(static_cast<unsigned long>(v));
    if constexpr (kRv32) sctrcontrolh::write(static_cast<unsigned long>(v >> 32));
}
uint64_t read_ctl() {
    uint64_t v = sctrcontrol::read().value;
    if constexpr (kRv32) v |= static_cast<uint64_t>(sctrcontrolh::read().value) << 32;
    return v;
}

bool is_thermometer(unsigned long code) {
    return code == 0 || code == 1 || code == 3 || code == 7 || code == 15;
}

void entries_and_depth(const char *p) {
    // Depth 16, WRPTR 0, everything recorded-off: a clean start.
    sctrdepth::write(0);
    sctrstatus::write(0);
    expect_eq(sctrclr(), kNone, "%s/sctrclr_from_s", p);
    // Entry registers through siselect 0x200 + i: WARL all-ones.
    set_entry(0, 0, ~0ul);
    set_entry(0, 1, ~0ul);
    set_entry(0, 2, ~0ul);
    expect_eq(entry(0, 0), ~0ul, "%s/ctrsource_all_ones", p);
    expect_eq(entry(0, 1), ~0ul, "%s/ctrtarget_all_ones", p);
    expect_eq(entry(0, 2), 0xFFFF800Ful, "%s/ctrdata_all_ones", p);
    // sireg4..6 read 0 for a CTR select.
    siselect::write(0x200);
    sireg4::write(~0ul);
    expect_eq(sireg4::read().value, 0, "%s/sireg4_zero", p);
    expect_eq(sireg5::read().value, 0, "%s/sireg5_zero", p);
    expect_eq(sireg6::read().value, 0, "%s/sireg6_zero", p);
    // siselect keeps 12 bits; a select outside CTR's range is illegal.
    siselect::write(0x1234);
    expect_eq(siselect::read().value, 0x234, "%s/siselect_warl", p);
    // Written from x0 it is 0, whatever an emulated read into x0 just before
    // left where the firmware's trap frame keeps x0 (entry 0's ctrsource,
    // all ones).
    {
        unsigned long got;
        asm volatile("csrw 0x150, %1\n\tcsrr x0, 0x151\n\tcsrw 0x150, x0\n\tcsrr %0, 0x150"
                     : "=&r"(got)
                     : "r"(0x200ul)
                     : "memory");
        expect_eq(got, 0, "%s/siselect_written_from_x0", p);
    }
    siselect::write(0x1FF);
    expect_eq(sireg::read().cause, kIllegal, "%s/sireg_non_ctr_select_illegal", p);
    // Entries at or beyond the depth read 0 and ignore writes.
    bool ok = true;
    for (unsigned i = 16; i < 256; i += 17) {
        set_entry(i, 0, 0x1001);
        set_entry(i, 2, 0x9);
        ok &= entry(i, 0) == 0 && entry(i, 1) == 0 && entry(i, 2) == 0;
    }
    expect_true(ok, "%s/entries_beyond_depth_zero", p);
    // Logical entry X is physical (WRPTR - X - 1) mod depth.
    for (unsigned i = 0; i < 16; i++) set_entry(i, 0, 0x10000 + 0x100 * i);
    sctrstatus::write(5);
    ok = true;
    for (unsigned x = 0; x < 16; x++) ok &= entry(x, 0) == 0x10000 + 0x100 * ((11 + x) & 15);
    expect_true(ok, "%s/logical_entries_follow_wrptr", p);
    // SCTRCLR zeroes every entry and leaves sctrstatus alone.
    expect_eq(sctrclr(), kNone, "%s/sctrclr", p);
    ok = true;
    for (unsigned x = 0; x < 16; x++) ok &= entry(x, 0) == 0 && entry(x, 2) == 0;
    expect_true(ok, "%s/sctrclr_zeroes_entries", p);
    expect_eq(sctrstatus::read().value, 5, "%s/sctrclr_keeps_sctrstatus", p);
}

void ratified_suite() {
    const char *p = "ratified";
    Result r = sctrctl::read();
    if (!expect_eq(r.cause, kNone, "%s/sctrctl_exists", p)) return;
    expect_eq(r.value, 0, "%s/sctrctl_reset_zero", p);
    // Discovery: all-ones reads back the implemented fields; M and MTE are
    // never visible through sctrctl.
    expect_eq(sctrctl::probe(~0ul), kSctrctlAll, "%s/sctrctl_all_ones", p);
    expect_eq(sctrctl::probe(static_cast<unsigned long>(rc::M | rc::MTE | rc::CUSTOM)), 0,
              "%s/sctrctl_m_mte_custom_ro0", p);
    expect_eq(sctrctl::read().value, 0, "%s/sctrctl_restored", p);
    {
        // Written from x0 it is 0 (as siselect in entries_and_depth).
        unsigned long got, u = rc::U;
        asm volatile("csrw 0x14E, %1\n\tcsrr x0, 0x14E\n\tcsrw 0x14E, x0\n\tcsrr %0, 0x14E"
                     : "=&r"(got)
                     : "r"(u)
                     : "memory");
        expect_eq(got, 0, "%s/sctrctl_written_from_x0", p);
    }
    expect_eq(mctrctl::read().cause, kIllegal, "%s/mctrctl_illegal_from_s", p);
    // sctrdepth: WARL; 16 and 32 are supported by both implementations.
    sctrdepth::write(~0ul);
    unsigned long max = sctrdepth::read().value;
    expect_true(max >= 1 && max <= 4, "%s/sctrdepth_max_legal", p);
    sctrdepth::write(0);
    expect_eq(sctrdepth::read().value, 0, "%s/sctrdepth_16", p);
    sctrdepth::write(1);
    expect_eq(sctrdepth::read().value, 1, "%s/sctrdepth_32", p);
    // sctrstatus: WRPTR within depth-1, FROZEN; the rest read-only 0.
    sctrstatus::write(~0ul);
    expect_eq(sctrstatus::read().value, rs::FROZEN | 0x1F, "%s/sctrstatus_all_ones_depth32", p);
    sctrdepth::write(0);
    expect_true((sctrstatus::read().value & rs::WRPTR) < 16, "%s/depth_change_legal_wrptr", p);
    sctrstatus::write(~0ul);
    expect_eq(sctrstatus::read().value, rs::FROZEN | 0xF, "%s/sctrstatus_all_ones_depth16", p);
    sctrstatus::write(0);
    expect_eq(sctrstatus::read().value, 0, "%s/sctrstatus_zero", p);
    // vs* exists exactly with the H extension.
    if (has_isa_ext('h')) {
        vsctrctl::write(rc::U | rc::STE);
        expect_eq(vsctrctl::read().value, rc::U | rc::STE, "%s/vsctrctl_rw", p);
        expect_eq(sctrctl::read().value, 0, "%s/vsctrctl_separate", p);
        vsctrctl::write(0);
    } else {
        expect_eq(vsctrctl::read().cause, kIllegal, "%s/vsctrctl_illegal_without_h", p);
    }
    entries_and_depth(p);
}

void draft_suite() {
    const char *p = "draft";
    Result r = sctrcontrol::read();
    if (!expect_eq(r.cause, kNone, "%s/sctrcontrol_exists", p)) return;
    // Reset: all fields 0; DEPTH is whatever the depth is (16 after reset).
    expect_eq(r.value & ~dc::DEPTH, 0, "%s/sctrcontrol_reset_zero", p);
    unsigned long all = sctrcontrol::probe(~0ul & ~dc::CLR);
    expect_eq(all & ~dc::DEPTH, kSctrcontrolAll, "%s/sctrcontrol_all_ones", p);
    unsigned long maxcode = (all & dc::DEPTH) >> dc::DEPTH_shift;
    expect_true(is_thermometer(maxcode) && maxcode >= 1, "%s/depth_max_thermometer", p);
    expect_eq(sctrcontrol::probe(dc::M | dc::MTE), 0, "%s/sctrcontrol_m_mte_ro0", p);
    if constexpr (kRv32) {
        // The *h registers: the upper fields, read and written apart from
        // the lower half; mctrcontrolh is M-mode's.
        expect_eq(sctrcontrolh::read().cause, kNone, "%s/sctrcontrolh_exists_rv32", p);
        expect_eq(sctrcontrolh::probe(~0ul), static_cast<unsigned long>(kSctrcontrolAll64 >> 32),
                  "%s/sctrcontrolh_all_ones", p);
        sctrcontrol::write(dc::STE);
        sctrcontrolh::write(~0ul);
        expect_eq(sctrcontrol::read().value, dc::STE, "%s/sctrcontrolh_keeps_low_half", p);
        sctrcontrol::write(dc::U);
        expect_eq(sctrcontrolh::read().value, static_cast<unsigned long>(kSctrcontrolAll64 >> 32),
                  "%s/sctrcontrol_keeps_high_half", p);
        sctrcontrolh::write(0);
        sctrcontrol::write(0);
        expect_eq(sctrcontrolh::read().value, 0, "%s/sctrcontrolh_cleared", p);
        expect_eq(mctrcontrolh::read().cause, kIllegal, "%s/mctrcontrolh_illegal_from_s", p);
        if (has_isa_ext('h')) {
            vsctrcontrolh::write(static_cast<unsigned long>(dc::ETEN >> 32));
            expect_eq(vsctrcontrolh::read().value, static_cast<unsigned long>(dc::ETEN >> 32),
                      "%s/vsctrcontrolh_rw", p);
            expect_eq(sctrcontrolh::read().value, 0, "%s/vsctrcontrolh_separate", p);
            vsctrcontrolh::write(0);
        } else {
            expect_eq(vsctrcontrolh::read().cause, kIllegal, "%s/vsctrcontrolh_illegal_without_h", p);
        }
    } else {
        expect_eq(sctrcontrolh::read().cause, kIllegal, "%s/sctrcontrolh_illegal_rv64", p);
    }
    expect_eq(mctrcontrol::read().cause, kIllegal, "%s/mctrcontrol_illegal_from_s", p);
    expect_eq(mctrstatus::read().cause, kIllegal, "%s/mctrstatus_illegal_from_s", p);
    // DEPTH: '0001 = 32; a non-thermometer value is legalised.
    sctrcontrol::write(0x1ul << dc::DEPTH_shift);
    expect_eq(sctrcontrol::read().value, 0x1ul << dc::DEPTH_shift, "%s/depth_32", p);
    sctrcontrol::write(0x2ul << dc::DEPTH_shift);
    expect_true(is_thermometer(sctrcontrol::read().value >> dc::DEPTH_shift), "%s/depth_warl", p);
    sctrcontrol::write(0x1ul << dc::DEPTH_shift);
    // sctrstatus: WRPTR, FROZEN (WRAP: see the file comment).
    dsctrstatus::write(~0ul);
    expect_eq(dsctrstatus::read().value & ~ds::WRAP, ds::FROZEN | 0x1F, "%s/sctrstatus_all_ones", p);
    // CLR: zeroes the entries and the status, reads 0.
    set_entry(0, 0, 0x4001);
    set_entry(1, 1, 0x4002);
    sctrcontrol::write(dc::CLR | (0x1ul << dc::DEPTH_shift));
    expect_eq(sctrcontrol::read().value, 0x1ul << dc::DEPTH_shift, "%s/clr_reads_zero", p);
    expect_eq(dsctrstatus::read().value, 0, "%s/clr_zeroes_status_and_wrap", p);
    expect_true(entry(0, 0) == 0 && entry(1, 1) == 0, "%s/clr_zeroes_entries", p);
    // ETEN and STE.
    write_ctl(dc::ETEN | dc::STE);
    expect_true(read_ctl() == (dc::ETEN | dc::STE), "%s/eten_ste", p);
    write_ctl(dc::STE);
    expect_true(read_ctl() == dc::STE, "%s/ste_without_eten", p);
    write_ctl(0);
    if (has_isa_ext('h')) {
        vsctrcontrol::write(dc::S | dc::U | dc::DEPTH);
        // DEPTH is a read-only copy of the real depth (16 here).
        expect_eq(vsctrcontrol::read().value, dc::S | dc::U, "%s/vsctrcontrol_rw_depth_copy", p);
        expect_eq(sctrcontrol::read().value, 0, "%s/vsctrcontrol_separate", p);
        vsctrcontrol::write(0);
    } else {
        expect_eq(vsctrcontrol::read().cause, kIllegal, "%s/vsctrcontrol_illegal_without_h", p);
    }
    if (!kRatified) {
        // Entries (same indirect interface), without the ratified registers.
        set_entry(2, 0, ~0ul);
        expect_eq(entry(2, 0), ~0ul, "%s/ctrsource_all_ones", p);
        expect_eq(entry(16, 0), 0, "%s/entry_beyond_depth_zero", p);
        sctrcontrol::write(dc::CLR);
    }
}

void both_suite() {
    // One state, two layouts.
    const char *p = "both";
    sctrctl::write(rc::U | rc::S | rc::RASEMU);
    unsigned long d = sctrcontrol::read().value & ~dc::DEPTH;
    sctrctl::write(0);
    expect_eq(d, dc::U | dc::S | dc::RASEMU, "%s/ratified_write_draft_read", p);
    sctrcontrol::write(dc::BPFRZ | dc::LCOFIFRZ | (0x3ul << dc::DEPTH_shift));
    expect_eq(sctrctl::read().value, rc::BPFRZ | rc::LCOFIFRZ, "%s/draft_write_ratified_read", p);
    expect_eq(sctrdepth::read().value, 2, "%s/draft_depth_is_sctrdepth", p);
    sctrstatus::write(rs::FROZEN | 7);
    expect_eq(dsctrstatus::read().value & ~ds::WRAP, ds::FROZEN | 7, "%s/status_shared", p);
    sctrcontrol::write(0);
    sctrstatus::write(0);
}

} // namespace

void payload_main() {
    // The layouts the firmware was told to offer, and no other.
    expect_eq(sctrctl::read().cause, kRatified ? kNone : kIllegal, "profile/ratified_csrs_%s",
              kRatified ? "present" : "absent");
    expect_eq(sctrclr(), kRatified ? kNone : kIllegal, "profile/sctrclr_%s",
              kRatified ? "present" : "absent");
    if (!kRatified) {
        // Without the ratified layout the status register is not there either.
        expect_eq(sctrstatus::read().cause, kIllegal, "profile/sctrstatus_absent");
        expect_eq(sctrdepth::read().cause, kIllegal, "profile/sctrdepth_absent");
    }
    expect_eq(sctrcontrol::read().cause, kDraft ? kNone : kIllegal, "profile/draft_csrs_%s",
              kDraft ? "present" : "absent");
    if (kRatified) ratified_suite();
    if (kDraft) draft_suite();
    if (kRatified && kDraft) both_suite();
    finish();
}
