// SPDX-License-Identifier: BSD-2-Clause
// Every SBI extension this firmware has, one descriptor per file, and the
// lookup from EID to descriptor.
#pragma once
#include "sbi/ecall.hpp"

namespace sbi {
extern const Extension sbi_ext_base, sbi_ext_time, sbi_ext_ipi, sbi_ext_rfence, sbi_ext_hsm,
    sbi_ext_srst, sbi_ext_dbcn, sbi_ext_fwft, sbi_ext_susp, sbi_ext_dbtr, sbi_ext_sse,
    sbi_ext_legacy;
// The subsystems' extensions (firmware/sbi/pmu.cpp, trace.cpp), listed only
// when they are built (TSBI_SUBSYSTEMS, firmware/build.mk).
extern const Extension sbi_ext_pmu, sbi_ext_trace;

// sbi_probe_extension (ext-base.adoc): 0 when `eid` is absent, else its
// descriptor's probe value (1 without a probe function).
SbiRet probe_extension(unsigned long eid);
} // namespace sbi
