// SPDX-License-Identifier: BSD-2-Clause
// How an SBI extension plugs into the ecall dispatch (firmware/sbi/ecall.cpp's
// EID table, which entry.S looks EIDs up in). One file per extension defines
// one `const Extension` (legacy.cpp one per legacy EID) and it is listed once
// in firmware/sbi/ecall.cpp.
#pragma once
#include "sbi/sbi.hpp"

namespace sbi {

// Arguments arrive exactly as S-mode put them in a0..a5, a6 = FID, so the
// trap entry (entry.S) calls the handler without moving registers.
using Handler = SbiRet (*)(unsigned long a0, unsigned long a1, unsigned long a2,
                           unsigned long a3, unsigned long a4, unsigned long a5,
                           unsigned long fid);

// Its EID is where it is listed (kExtensions), not here.
struct Extension {
    // Value sbi_probe_extension returns (0 = not available). nullptr means 1.
    long (*probe)();
    Handler handle;
};

// For a handler that resumes an S-mode context (SSE complete): the a0 it
// returns is S-mode's own register, not an error code. Call only when that
// a0 is outside the spec's codes: the guard then lets it through once.
void keep_a0_once();

} // namespace sbi
