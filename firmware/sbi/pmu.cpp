// SPDX-License-Identifier: BSD-2-Clause
// PMU extension (ext-pmu.adoc, EID "PMU"): argument unpacking for the service
// in firmware/pmu/ (whose calls from the core are in pmu/subsystem.hpp).
#include "../pmu/service.hpp"
#include "sbi/ecall.hpp"

namespace sbi {
namespace {

using namespace pmu::spec;

// 64-bit arguments take two registers on RV32 (low word first).
inline uint64_t arg64(unsigned long lo, [[maybe_unused]] unsigned long hi) {
    if constexpr (kXlen == 32) return lo | (static_cast<uint64_t>(hi) << 32);
    return lo;
}

SbiRet handle(unsigned long a0, unsigned long a1, unsigned long a2, unsigned long a3,
              unsigned long a4, unsigned long a5, unsigned long fid) {
    // COUNTER_FW_READ before the jump table, served inline: Linux reads a
    // firmware event's count with it at every perf read, and the table's
    // bound check, indirect jump and the call were a third of its cost
    // (bench 15: two instructions more for the other FIDs, ten fewer here).
    if (fid == COUNTER_FW_READ) return pmu::counter_fw_read(a0);
    switch (fid) {
    case NUM_COUNTERS: return pmu::num_counters();
    case COUNTER_GET_INFO: return pmu::counter_get_info(a0);
    case COUNTER_CONFIG_MATCHING:
        return pmu::counter_config_matching(a0, a1, a2, a3, arg64(a4, a5));
    case COUNTER_START: return pmu::counter_start(a0, a1, a2, arg64(a3, a4));
    case COUNTER_STOP: return pmu::counter_stop(a0, a1, a2);
    case COUNTER_FW_READ_HI: return pmu::counter_fw_read_hi(a0);
    case SNAPSHOT_SET_SHMEM: return pmu::snapshot_set_shmem(a0, a1, a2);
    case EVENT_GET_INFO: return pmu::event_get_info(a0, a1, a2, a3);
    default: return err(Error::NotSupported);
    }
}

} // namespace

extern const Extension sbi_ext_pmu = {nullptr, handle};

} // namespace sbi
