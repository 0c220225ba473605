// SPDX-License-Identifier: BSD-2-Clause
// System Reset extension (ext-sys-reset.adoc, EID "SRST").
#include "ecall_list.hpp"
#include "fw.hpp"
#include "subsystems.hpp"
#include "platform.hpp"
#include "services.hpp"

namespace sbi {

void system_reset_and_wait(uint32_t type, uint32_t reason) {
    // Trace in flight reaches its buffer before the machine goes away.
    fw::subsystems::system_reset();
    platform::system_reset(type, reason);
    // A reset device may act some time after the write (QEMU 10's test
    // device does); a successful reset must not return, so wait for it up
    // to about a second of a 10 MHz timebase before reporting failure.
    constexpr uint64_t kWaitTicks = 10'000'000;
    uint64_t start = platform::timer_value();
    while (platform::timer_value() - start < kWaitTicks) {
    }
}

namespace {

constexpr unsigned long SYSTEM_RESET = 0;
using namespace sbi::srst;

long probe() {
    return platform::system_reset_supported(TYPE_SHUTDOWN) ||
           platform::system_reset_supported(TYPE_COLD_REBOOT) ||
           platform::system_reset_supported(TYPE_WARM_REBOOT);
}

SbiRet handle(unsigned long a0, unsigned long a1, unsigned long, unsigned long, unsigned long,
              unsigned long, unsigned long fid) {
    if (fid != SYSTEM_RESET) return err(Error::NotSupported);
    // Both parameters are 32 bits wide: only their low 32 bits count
    // (binary-encoding.adoc; ext-sys-reset.adoc, "32 bits wide").
    uint32_t type = static_cast<uint32_t>(a0), reason = static_cast<uint32_t>(a1);
    // We implement no vendor/platform types and no implementation- or
    // vendor-specific reasons, so those are "platform-specific and
    // unimplemented" (INVALID_PARAM), like reserved ones.
    if (type > TYPE_WARM_REBOOT || reason > REASON_SYSTEM_FAILURE)
        return err(Error::InvalidParam);
    if (!platform::system_reset_supported(type)) return err(Error::NotSupported);
    fw::printf("\ntsbi: system %s requested\n", type == TYPE_SHUTDOWN ? "shutdown" : "reboot");
    system_reset_and_wait(type, reason);
    return err(Error::Failed);
}
} // namespace

extern const Extension sbi_ext_srst = {probe, handle};
} // namespace sbi
