// SPDX-License-Identifier: BSD-2-Clause
// Every SBI extension this firmware has, one descriptor per file (the
// legacy extensions one per EID), and sbi_probe_extension.
#pragma once
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

// sbi_probe_extension (ext-base.adoc): 0 when `eid` is absent, else its
// descriptor's probe value (1 without a probe function).
SbiRet probe_extension(unsigned long eid);
} // namespace sbi
