// SPDX-License-Identifier: BSD-2-Clause
// SBI binary encoding (SBI spec, chapter "Binary Encoding"): error codes,
// the sbiret pair and the extension IDs this firmware knows about.
#pragma once
#include <stdint.h>

namespace sbi {

// Table "Standard SBI Errors".
enum class Error : long {
    Success = 0,
    Failed = -1,
    NotSupported = -2,
    InvalidParam = -3,
    Denied = -4,
    InvalidAddress = -5,
    AlreadyAvailable = -6,
    AlreadyStarted = -7,
    AlreadyStopped = -8,
    NoShmem = -9,
    InvalidState = -10,
    BadRange = -11,
    Timeout = -12,
    Io = -13,
    DeniedLocked = -14,
};
constexpr long kLowestError = static_cast<long>(Error::DeniedLocked);
constexpr bool is_error_code(long e) { return e <= 0 && e >= kLowestError; }

// struct sbiret: returned in a0 (error) and a1 (value). Aligned to its
// size (2 x XLEN), which the psABI still returns in a0/a1: with the natural
// XLEN alignment GCC 12 reserves a stack frame it never uses (two
// instructions in every function returning one; bench 10, 15).
struct alignas(2 * sizeof(long)) SbiRet {
    long error;
    unsigned long value;
};

constexpr SbiRet ok(unsigned long value = 0) { return {0, value}; }
constexpr SbiRet err(Error e) { return {static_cast<long>(e), 0}; }

// Extension IDs (each extension's chapter title).
namespace eid {
constexpr long legacy_set_timer = 0x00;
constexpr long legacy_console_putchar = 0x01;
constexpr long legacy_console_getchar = 0x02;
constexpr long legacy_clear_ipi = 0x03;
constexpr long legacy_send_ipi = 0x04;
constexpr long legacy_remote_fence_i = 0x05;
constexpr long legacy_remote_sfence_vma = 0x06;
constexpr long legacy_remote_sfence_vma_asid = 0x07;
constexpr long legacy_shutdown = 0x08;
constexpr long base = 0x10;
constexpr long time = 0x54494D45;   // "TIME"
constexpr long ipi = 0x735049;      // "sPI"
constexpr long rfence = 0x52464E43; // "RFNC"
constexpr long hsm = 0x48534D;      // "HSM"
constexpr long srst = 0x53525354;   // "SRST"
constexpr long pmu = 0x504D55;      // "PMU"
constexpr long dbcn = 0x4442434E;   // "DBCN"
constexpr long susp = 0x53555350;   // "SUSP"
constexpr long fwft = 0x46574654;   // "FWFT"
constexpr long dbtr = 0x44425452;   // "DBTR"
constexpr long sse = 0x535345;      // "SSE"
} // namespace eid

// System Reset (ext-sys-reset.adoc, tables "SBI System Reset Types" and
// "SBI System Reset Reasons"); both are 32-bit parameters.
namespace srst {
constexpr uint32_t TYPE_SHUTDOWN = 0, TYPE_COLD_REBOOT = 1, TYPE_WARM_REBOOT = 2;
constexpr uint32_t REASON_NONE = 0, REASON_SYSTEM_FAILURE = 1;
} // namespace srst

// This implementation: "tsbi". The registered IDs (ext-base.adoc, "SBI
// Implementation IDs") run 0..11 and are handed out in order; we take a value
// far above that range, spelling "tsbi" in ASCII, so it cannot collide with
// the next registrations. See README "Implementation ID".
constexpr unsigned long kImplId = 0x74736269;
constexpr unsigned long kImplVersion = 0x00000001; // major << 16 | minor

namespace eid {
// Firmware-specific extensions (ext-firmware.adoc): 0x0A000000 | the low
// 24 bits of the implementation ID. The trace service (firmware/trace).
constexpr long tsbi_trace = 0x0A000000 | (kImplId & 0xFFFFFF);
} // namespace eid

} // namespace sbi
