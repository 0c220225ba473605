// SPDX-License-Identifier: BSD-2-Clause
// SBI call dispatch: the one list of extensions made into the table the trap
// entry (firmware/core/entry.S) looks EIDs up in, probe_extension, and the
// guard that only spec-defined error codes leave the firmware.
#include "sbi/ecall.hpp"
#include "ecall_list.hpp"
#include "asm.h"
#include "fw.hpp"
#include "trap.hpp"
#include "hart_block.hpp"

#include <stddef.h>

namespace sbi {

// The one list of extensions, kExtensions, made into a direct-mapped table
// indexed by a hash of the EID (ext_slot(), ecall_list.hpp): lookup is one
// load and one compare. The static_assert keeps the slots distinct, so an
// extension whose slot collides fails to compile (then widen or change
// ext_slot()). The low bits alone collide (SRST and FWFT both end in 'T');
// this hash keeps every standard EID of SBI 3.0 (those not implemented too:
// CPPC, NACL, STA, MPXY), the legacy EIDs 0x00-0x08 and the tsbi trace EID
// in slots of their own.
namespace {

// Adding an extension: its file, its descriptor's declaration in
// ecall_list.hpp and one line here. The subsystems' extensions are listed
// only when the subsystems are built (FW_SUBSYSTEMS, firmware/build.mk).
// The legacy extensions (ext-legacy.adoc) have a descriptor per EID, whose
// handler receives its EID in place of the FID (legacy.cpp).
constexpr ExtSlot kExtensions[] = {
    {eid::legacy_set_timer, &sbi_ext_legacy[eid::legacy_set_timer]},
    {eid::legacy_console_putchar, &sbi_ext_legacy[eid::legacy_console_putchar]},
    {eid::legacy_console_getchar, &sbi_ext_legacy[eid::legacy_console_getchar]},
    {eid::legacy_clear_ipi, &sbi_ext_legacy[eid::legacy_clear_ipi]},
    {eid::legacy_send_ipi, &sbi_ext_legacy[eid::legacy_send_ipi]},
    {eid::legacy_remote_fence_i, &sbi_ext_legacy[eid::legacy_remote_fence_i]},
    {eid::legacy_remote_sfence_vma, &sbi_ext_legacy[eid::legacy_remote_sfence_vma]},
    {eid::legacy_remote_sfence_vma_asid, &sbi_ext_legacy[eid::legacy_remote_sfence_vma_asid]},
    {eid::legacy_shutdown, &sbi_ext_legacy[eid::legacy_shutdown]},
    {eid::base, &sbi_ext_base},   {eid::time, &sbi_ext_time}, {eid::ipi, &sbi_ext_ipi},
    {eid::rfence, &sbi_ext_rfence}, {eid::hsm, &sbi_ext_hsm}, {eid::srst, &sbi_ext_srst},
    {eid::dbcn, &sbi_ext_dbcn},   {eid::fwft, &sbi_ext_fwft}, {eid::susp, &sbi_ext_susp},
    {eid::dbtr, &sbi_ext_dbtr},   {eid::sse, &sbi_ext_sse},
#if TSBI_SUBSYSTEMS
    {eid::pmu, &sbi_ext_pmu},     {eid::tsbi_trace, &sbi_ext_trace},
#endif
};
constexpr bool slots_distinct() {
    for (const ExtSlot &a : kExtensions)
        for (const ExtSlot &b : kExtensions)
            if (&a != &b && ext_slot(a.eid) == ext_slot(b.eid)) return false;
    return true;
}
static_assert(slots_distinct(), "two SBI extensions share a lookup slot");

constexpr ExtTable make_table() {
    ExtTable t{};
    // An unused slot i holds an EID that hashes to another slot: an EID that
    // reaches slot i hashes to i, so it is never the filler, and no lookup
    // finds a slot without a descriptor (on RV32 -1 is a valid EID).
    for (unsigned i = 0; i < SBI_EXT_SLOTS; i++) {
        long filler = -1;
        while (ext_slot(static_cast<unsigned long>(filler)) == i) filler--;
        t.s[i] = {filler, nullptr};
    }
    for (const ExtSlot &x : kExtensions) t.s[ext_slot(x.eid)] = x;
    return t;
}

// entry.S's view of the table: slot i at i << SBI_EXT_SLOT_SHIFT, the EID
// first, then the descriptor, whose handler is at EXT_HANDLER.
static_assert(sizeof(ExtSlot) == 1u << SBI_EXT_SLOT_SHIFT && offsetof(ExtSlot, eid) == 0 &&
              offsetof(ExtSlot, ext) == REGBYTES);
static_assert(offsetof(Extension, handle) == EXT_HANDLER);
static_assert(SBI_ERR_NOT_SUPPORTED == static_cast<long>(Error::NotSupported));

inline bool is_legacy(unsigned long eid) { return eid < kLegacyCount; }
} // namespace
} // namespace sbi

// The table entry.S dispatches SBI calls with.
extern "C" constexpr sbi::ExtTable sbi_ext_table = sbi::make_table();

using namespace sbi;

void sbi::keep_a0_once() { fw::this_block().keep_a0 = true; }

// entry.S calls this when a call returns an a0 outside the spec's error
// codes: legacy EIDs return their own values, a resumed SSE context its own
// register (keep_a0_once); anything else is FAILED.
extern "C" long sbi_ecall_guard(long a0) {
    bool &keep = fw::this_block().keep_a0;
    if (keep) {
        keep = false;
        return a0;
    }
    if (is_legacy(fw::current_frame().x[17])) return a0;
    return static_cast<long>(Error::Failed);
}
