// SPDX-License-Identifier: BSD-2-Clause
// System Reset extension (ext-sys-reset.adoc, EID "SRST").
#include "ecall_list.hpp"
#include "fw.hpp"
#include "platform.hpp"

namespace sbi {
namespace {

constexpr unsigned long SYSTEM_RESET = 0;
constexpr unsigned long TYPE_SHUTDOWN = 0, TYPE_COLD_REBOOT = 1, TYPE_WARM_REBOOT = 2;
constexpr unsigned long REASON_SYSTEM_FAILURE = 1;

long probe() {
    return platform::system_reset_supported(TYPE_SHUTDOWN) ||
           platform::system_reset_supported(TYPE_COLD_REBOOT) ||
           platform::system_reset_supported(TYPE_WARM_REBOOT);
}

SbiRet handle(unsigned long type, unsigned long reason, unsigned long, unsigned long,
              unsigned long, unsigned long, unsigned long fid) {
    if (fid != SYSTEM_RESET) return err(Error::NotSupported);
    // Both parameters are 32 bits wide; we implement no vendor/platform
    // types and no implementation- or vendor-specific reasons, so those are
    // "platform-specific and unimplemented" (INVALID_PARAM), like reserved ones.
    if (type > TYPE_WARM_REBOOT || reason > REASON_SYSTEM_FAILURE)
        return err(Error::InvalidParam);
    if (!platform::system_reset_supported(static_cast<uint32_t>(type)))
        return err(Error::NotSupported);
    fw::printf("\ntsbi: system %s requested\n", type == TYPE_SHUTDOWN ? "shutdown" : "reboot");
    platform::system_reset(static_cast<uint32_t>(type), static_cast<uint32_t>(reason));
    return err(Error::Failed);
}
} // namespace

extern const Extension sbi_ext_srst = {eid::srst, eid::srst, probe, handle};
} // namespace sbi
