// SPDX-License-Identifier: BSD-2-Clause
// How an SBI extension plugs into the ecall dispatcher (firmware/sbi/ecall.cpp).
// One file per extension defines one `const Extension` and it is listed once
// in firmware/sbi/ecall.cpp.
#pragma once
#include "sbi/sbi.hpp"

namespace sbi {

// Arguments arrive exactly as S-mode put them in a0..a5, a6 = FID, so the
// dispatcher can tail-call the handler without moving registers.
using Handler = SbiRet (*)(unsigned long a0, unsigned long a1, unsigned long a2,
                           unsigned long a3, unsigned long a4, unsigned long a5,
                           unsigned long fid);

struct Extension {
    long eid_first;
    long eid_last;
    // Value sbi_probe_extension returns (0 = not available). nullptr means 1.
    long (*probe)();
    Handler handle;
    // The handler may return S-mode's own a0/a1 (SSE complete resumes an
    // interrupted context), so the dispatcher leaves its a0 unguarded.
    bool returns_context = false;
};

} // namespace sbi
