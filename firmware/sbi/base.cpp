// SPDX-License-Identifier: BSD-2-Clause
// Base extension (ext-base.adoc, EID 0x10).
#include "ecall_list.hpp"
#include "riscv/csr.hpp"

namespace sbi {
namespace {

// SBI 3.0: the highest version whose requirements every extension we
// advertise meets (README "SBI version"; of our extensions only PMU changed
// in 3.0: event_get_info and raw v2 events). Major in bits 30:24, minor 23:0.
constexpr unsigned long kSpecVersion = (3ul << 24) | 0;

enum : unsigned long {
    GET_SPEC_VERSION = 0,
    GET_IMPL_ID = 1,
    GET_IMPL_VERSION = 2,
    PROBE_EXTENSION = 3,
    GET_MVENDORID = 4,
    GET_MARCHID = 5,
    GET_MIMPID = 6,
};

SbiRet handle(unsigned long a0, unsigned long, unsigned long, unsigned long, unsigned long,
              unsigned long, unsigned long fid) {
    // The two calls S-mode makes most (every extension is probed before
    // use) are tested before the switch, whose jump table costs more.
    if (fid == GET_SPEC_VERSION) return ok(kSpecVersion);
    if (fid == PROBE_EXTENSION) return probe_extension(a0);
    switch (fid) {
    case GET_IMPL_ID: return ok(kImplId);
    case GET_IMPL_VERSION: return ok(kImplVersion);
    case GET_MVENDORID: return ok(csr_read(csr::mvendorid));
    case GET_MARCHID: return ok(csr_read(csr::marchid));
    case GET_MIMPID: return ok(csr_read(csr::mimpid));
    default: return err(Error::NotSupported);
    }
}
} // namespace

extern const Extension sbi_ext_base = {nullptr, handle};
} // namespace sbi
