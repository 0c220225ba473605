// SPDX-License-Identifier: BSD-2-Clause
// SBI call dispatch: the one list of extensions, the lookup and the guard
// that only spec-defined error codes leave the firmware.
#include "sbi/ecall.hpp"
#include "ecall_list.hpp"

namespace sbi {

const Extension *find_extension(long eid) {
    switch (eid) {
    case eid::time: return &sbi_ext_time;
    case eid::ipi: return &sbi_ext_ipi;
    case eid::rfence: return &sbi_ext_rfence;
    case eid::base: return &sbi_ext_base;
    case eid::pmu: return &sbi_ext_pmu ? &sbi_ext_pmu : nullptr;
    case eid::hsm: return &sbi_ext_hsm;
    case eid::dbcn: return &sbi_ext_dbcn;
    case eid::srst: return &sbi_ext_srst;
    case eid::legacy_set_timer ... eid::legacy_shutdown: return &sbi_ext_legacy;
    default: return nullptr;
    }
}

} // namespace sbi

using namespace sbi;

extern "C" SbiRet sbi_ecall_dispatch(unsigned long a0, unsigned long a1, unsigned long a2,
                                     unsigned long a3, unsigned long a4, unsigned long a5,
                                     unsigned long fid, unsigned long eid) {
    // An EID with bits set above the 32-bit EID space matches nothing.
    const Extension *ext = find_extension(static_cast<long>(eid));
    if (!ext) return err(Error::NotSupported);
    // Legacy extensions take the EID in place of the FID.
    SbiRet r = ext->handle(a0, a1, a2, a3, a4, a5, ext == &sbi_ext_legacy ? eid : fid);
    if (r.error > 0 || r.error < kLowestError) [[unlikely]]
        r.error = static_cast<long>(Error::Failed);
    return r;
}
