// SPDX-License-Identifier: BSD-2-Clause
// SBI call dispatch: the one list of extensions, the lookup and the guard
// that only spec-defined error codes leave the firmware.
#include "sbi/ecall.hpp"
#include "ecall_list.hpp"
#include "fw.hpp"
#include "trap.hpp"

namespace sbi {
namespace {

// The one list of (non-legacy) extensions, kExtensions, made into a
// direct-mapped table indexed by a hash of the EID: lookup is one load and one compare. The
// static_assert keeps the slots distinct, so an extension whose slot
// collides fails to compile (then widen or change ext_slot()). The low bits
// alone collide (SRST and FWFT both end in 'T'); this hash keeps every
// standard EID of SBI 3.0 in its own slot.
struct ExtSlot {
    long eid;
    const Extension *ext;
};
// Adding an extension: its file, its descriptor's declaration in
// ecall_list.hpp and one line here. The subsystems' extensions are listed
// only when the subsystems are built (FW_SUBSYSTEMS, firmware/build.mk).
constexpr ExtSlot kExtensions[] = {
    {eid::base, &sbi_ext_base},   {eid::time, &sbi_ext_time}, {eid::ipi, &sbi_ext_ipi},
    {eid::rfence, &sbi_ext_rfence}, {eid::hsm, &sbi_ext_hsm}, {eid::srst, &sbi_ext_srst},
    {eid::dbcn, &sbi_ext_dbcn},   {eid::fwft, &sbi_ext_fwft}, {eid::susp, &sbi_ext_susp},
    {eid::dbtr, &sbi_ext_dbtr},   {eid::sse, &sbi_ext_sse},
#if TSBI_SUBSYSTEMS
    {eid::pmu, &sbi_ext_pmu},     {eid::tsbi_trace, &sbi_ext_trace},
#endif
};
constexpr unsigned kExtSlots = 64;
constexpr unsigned ext_slot(unsigned long eid) { return (eid ^ (eid >> 11)) & (kExtSlots - 1); }
constexpr bool slots_distinct() {
    for (const ExtSlot &a : kExtensions)
        for (const ExtSlot &b : kExtensions)
            if (&a != &b && ext_slot(a.eid) == ext_slot(b.eid)) return false;
    return true;
}
static_assert(slots_distinct(), "two SBI extensions share a lookup slot");

struct ExtTable {
    ExtSlot s[kExtSlots];
};
constexpr ExtTable make_table() {
    ExtTable t{};
    // Unused slots hold EID -1, which no call matches (EIDs are 32-bit).
    for (auto &e : t.s) e = {-1, nullptr};
    for (const ExtSlot &x : kExtensions) t.s[ext_slot(x.eid)] = x;
    return t;
}
constexpr ExtTable kTable = make_table();

// The legacy extensions, EIDs 0x00-0x08, in one descriptor.
inline bool is_legacy(unsigned long eid) {
    return eid <= static_cast<unsigned long>(eid::legacy_shutdown);
}

inline const Extension *lookup(unsigned long eid) {
    const ExtSlot &s = kTable.s[ext_slot(eid)];
    return s.eid == static_cast<long>(eid) ? s.ext : nullptr;
}
} // namespace

SbiRet probe_extension(unsigned long eid) {
    const Extension *e = is_legacy(eid) ? &sbi_ext_legacy : lookup(eid);
    if (!e) return ok(0);
    return ok(e->probe ? static_cast<unsigned long>(e->probe()) : 1);
}
} // namespace sbi

using namespace sbi;

extern "C" SbiRet sbi_ecall_dispatch(unsigned long a0, unsigned long a1, unsigned long a2,
                                     unsigned long a3, unsigned long a4, unsigned long a5,
                                     unsigned long fid, unsigned long eid) {
    // Legacy extensions take the EID in place of the FID (and return their
    // own values in a0, exempt from the error-code guard, sbi_ecall_guard).
    if (is_legacy(eid)) return sbi_ext_legacy.handle(a0, a1, a2, a3, a4, a5, eid);
    // An EID with bits set above the 32-bit EID space matches nothing.
    const Extension *ext = lookup(eid);
    if (!ext) return err(Error::NotSupported);
    // The trap entry turns any error code outside the spec's into FAILED.
    return ext->handle(a0, a1, a2, a3, a4, a5, fid);
}

namespace {
bool keep_a0[fw::kMaxHarts];
}
void sbi::keep_a0_once() { keep_a0[fw::current_hartid()] = true; }

// entry.S calls this when a call returns an a0 outside the spec's error
// codes: legacy EIDs return their own values, a resumed SSE context its own
// register (keep_a0_once); anything else is FAILED.
extern "C" long sbi_ecall_guard(long a0) {
    bool &keep = keep_a0[fw::current_hartid()];
    if (keep) {
        keep = false;
        return a0;
    }
    if (is_legacy(fw::current_frame().x[17])) return a0;
    return static_cast<long>(Error::Failed);
}
