// SPDX-License-Identifier: BSD-2-Clause
// Every SBI extension this firmware has, one descriptor per file (the
// legacy extensions one per EID), the table that maps EIDs to them, and
// sbi_probe_extension.
#pragma once
#include "asm.h"
#include "sbi/ecall.hpp"

namespace sbi {
extern const Extension sbi_ext_base, sbi_ext_time, sbi_ext_ipi, sbi_ext_rfence, sbi_ext_hsm,
    sbi_ext_srst, sbi_ext_dbcn, sbi_ext_fwft, sbi_ext_susp, sbi_ext_dbtr, sbi_ext_sse;
// The legacy extensions, EIDs 0x00-0x08: one descriptor per EID (legacy.cpp).
constexpr unsigned long kLegacyCount = eid::legacy_shutdown + 1;
extern const Extension sbi_ext_legacy[kLegacyCount];
// The subsystems' extensions (firmware/sbi/pmu.cpp, trace.cpp), listed only
// when they are built (TSBI_SUBSYSTEMS, firmware/build.mk).
extern const Extension sbi_ext_pmu, sbi_ext_trace;

// The EID lookup table (ecall.cpp): slot ext_slot(e) holds EID e and its
// descriptor, or an EID that does not hash there and no descriptor.
// entry.S computes the same hash from SBI_EXT_HASH_SHIFT and SBI_EXT_SLOTS.
struct ExtSlot {
    long eid;
    const Extension *ext;
};
struct ExtTable {
    ExtSlot s[SBI_EXT_SLOTS];
};
constexpr unsigned ext_slot(unsigned long eid) {
    return (eid ^ (eid >> SBI_EXT_HASH_SHIFT)) & (SBI_EXT_SLOTS - 1);
}
} // namespace sbi
extern "C" const sbi::ExtTable sbi_ext_table;

namespace sbi {
// sbi_probe_extension (ext-base.adoc): 0 when `eid` is absent, else its
// descriptor's probe value (1 without a probe function). An EID with bits
// set above the 32-bit EID space matches nothing.
inline SbiRet probe_extension(unsigned long eid) {
    const ExtSlot &s = sbi_ext_table.s[ext_slot(eid)];
    if (s.eid != static_cast<long>(eid)) return ok(0);
    return ok(s.ext->probe ? static_cast<unsigned long>(s.ext->probe()) : 1);
}
} // namespace sbi
