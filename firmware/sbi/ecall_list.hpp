// SPDX-License-Identifier: BSD-2-Clause
// Every SBI extension this firmware has, one descriptor per file.
#pragma once
#include "sbi/ecall.hpp"

namespace sbi {
extern const Extension sbi_ext_base, sbi_ext_time, sbi_ext_ipi, sbi_ext_rfence, sbi_ext_hsm,
    sbi_ext_srst, sbi_ext_dbcn, sbi_ext_legacy;
// Present when the PMU extension is linked in (firmware/sbi/pmu.cpp).
extern const Extension sbi_ext_pmu __attribute__((weak));

// The one list of extensions, as a switch so lookup inlines into the
// dispatcher (a compare tree instead of a table walk).
inline const Extension *find_extension(long eid) {
    switch (eid) {
    case eid::time: return &sbi_ext_time;
    case eid::ipi: return &sbi_ext_ipi;
    case eid::rfence: return &sbi_ext_rfence;
    case eid::base: return &sbi_ext_base;
    case eid::pmu: return &sbi_ext_pmu ? &sbi_ext_pmu : nullptr;
    case eid::hsm: return &sbi_ext_hsm;
    case eid::dbcn: return &sbi_ext_dbcn;
    case eid::srst: return &sbi_ext_srst;
    case eid::legacy_set_timer... eid::legacy_shutdown: return &sbi_ext_legacy;
    default: return nullptr;
    }
}
} // namespace sbi
