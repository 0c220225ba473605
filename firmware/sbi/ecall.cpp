// SPDX-License-Identifier: BSD-2-Clause
// SBI call dispatch: the one list of extensions, the lookup and the guard
// that only spec-defined error codes leave the firmware.
#include "sbi/ecall.hpp"
#include "ecall_list.hpp"



using namespace sbi;

extern "C" SbiRet sbi_ecall_dispatch(unsigned long a0, unsigned long a1, unsigned long a2,
                                     unsigned long a3, unsigned long a4, unsigned long a5,
                                     unsigned long fid, unsigned long eid) {
    // An EID with bits set above the 32-bit EID space matches nothing.
    const Extension *ext = find_extension(static_cast<long>(eid));
    if (!ext) return err(Error::NotSupported);
    // Legacy extensions take the EID in place of the FID.
    SbiRet r = ext->handle(a0, a1, a2, a3, a4, a5, ext == &sbi_ext_legacy ? eid : fid);
    // Only the spec's error codes leave the firmware (legacy calls return
    // their own values in a0 and are exempt).
    if (static_cast<unsigned long>(r.error - kLowestError) > static_cast<unsigned long>(-kLowestError) &&
        ext != &sbi_ext_legacy) [[unlikely]]
        return {static_cast<long>(Error::Failed), r.value};
    return r;
}
