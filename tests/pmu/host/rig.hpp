// SPDX-License-Identifier: BSD-2-Clause
// Test rig: the firmware's PMU service (through the SBI handler and the
// descriptor of pmu/subsystem.hpp, as the firmware calls them) running on
// hart_model::Machine.
#pragma once
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "../../../firmware/include/sbi/ecall.hpp"
#include "../../../firmware/pmu/service.hpp"
#include "../../../firmware/pmu/subsystem.hpp"
#include "../../../hw_models/hart/pmu_hart.hpp"

namespace sbi {
extern const Extension sbi_ext_pmu;
}

namespace rig {

using hart_model::Machine;
using hart_model::PmuHartConfig;
using hart_model::Priv;
using sbi::Error;
using sbi::SbiRet;
using namespace pmu::spec;

// A device-tree property of the riscv,pmu node: name and 32-bit cells.
struct Prop {
    std::string name;
    std::vector<uint32_t> cells;
};

// QEMU 7.2's virt node, five padding cells included (dumped with
// `qemu-system-riscv64 -M virt,dumpdtb=...`).
inline std::vector<Prop> qemu72_pmu() {
    return {{"riscv,event-to-mhpmcounters",
             {0x1, 0x1, 0x7fff9, 0x2, 0x2, 0x7fffc, 0x10019, 0x10019, 0x7fff8, 0x1001b, 0x1001b,
              0x7fff8, 0x10021, 0x10021, 0x7fff8, 0, 0, 0, 0, 0}}};
}

// A hart with Sscofpmf (overflow, mhpmevent filter bits), Smcntrpmf if asked.
inline PmuHartConfig sscof(bool smcntrpmf = false) {
    PmuHartConfig c;
    c.sscofpmf = true;
    c.smcntrpmf = smcntrpmf;
    return c;
}

// A flattened device tree with /soc/pmu (when `with_node`) holding `props`.
std::vector<uint8_t> make_fdt(const std::vector<Prop> &props, bool with_node = true);

constexpr uint64_t kRam = 0x80000000;
constexpr uint64_t kRamSize = 1 << 20;
constexpr uint64_t kFwSize = 0x40000;
constexpr uint64_t kShmem = kRam + 0x80000; // a page S-mode owns
constexpr unsigned long kAll = ~0ul;
constexpr bool kRv32 = kXlen == 32;
static_assert(kXlen == 32 || kXlen == 64);
// Linux's overflow restart base BITS_PER_LONG^2 (firmware/pmu/README.md,
// "Linux compatibility"), as the kernel of each XLEN passes it.
constexpr unsigned long kLinuxRestartBase = kRv32 ? 1024 : 4096;
// The top bit of an XLEN-wide argument.
constexpr unsigned long kTopBit = 1ul << (kXlen - 1);

// A 64-bit SBI argument as S-mode passes it (binary-encoding.adoc): one
// register on RV64 (the next one unused), two on RV32, low half first.
struct Arg64 {
    unsigned long first, second;
};
constexpr Arg64 arg64(uint64_t v) {
    if constexpr (kRv32) return {static_cast<unsigned long>(v), static_cast<unsigned long>(v >> 32)};
    return {static_cast<unsigned long>(v), 0};
}

// Event indices used throughout.
constexpr unsigned long kCycles = event_idx(TYPE_HW, HW_CPU_CYCLES);
constexpr unsigned long kInstr = event_idx(TYPE_HW, HW_INSTRUCTIONS);
constexpr unsigned long kDtlbRdMiss = event_idx(TYPE_CACHE, cache_code(DTLB, OP_READ, RESULT_MISS));
constexpr unsigned long kDtlbWrMiss = event_idx(TYPE_CACHE, cache_code(DTLB, OP_WRITE, RESULT_MISS));
constexpr unsigned long kItlbMiss = event_idx(TYPE_CACHE, cache_code(ITLB, OP_READ, RESULT_MISS));
constexpr unsigned long fw_ev(fw::FwEvent e) {
    return event_idx(TYPE_FW, static_cast<unsigned>(e));
}

struct Rig {
    Machine m;
    std::vector<uint8_t> fdt;

    explicit Rig(PmuHartConfig cfg = {}, std::vector<Prop> props = qemu72_pmu(),
                 unsigned harts = 1, bool with_node = true, uint64_t ram_base = kRam);
    ~Rig();

    SbiRet call(unsigned long fid, unsigned long a0 = 0, unsigned long a1 = 0,
                unsigned long a2 = 0, unsigned long a3 = 0, unsigned long a4 = 0,
                unsigned long a5 = 0) {
        return sbi::sbi_ext_pmu.handle(a0, a1, a2, a3, a4, a5, fid);
    }
    SbiRet num() { return call(NUM_COUNTERS); }
    SbiRet info(unsigned long i) { return call(COUNTER_GET_INFO, i); }
    SbiRet match(unsigned long base, unsigned long mask, unsigned long flags, unsigned long ev,
                 uint64_t data = 0) {
        Arg64 d = arg64(data);
        return call(COUNTER_CONFIG_MATCHING, base, mask, flags, ev, d.first, d.second);
    }
    SbiRet start(unsigned long base, unsigned long mask, unsigned long flags = 0,
                 uint64_t init = 0) {
        Arg64 i = arg64(init);
        return call(COUNTER_START, base, mask, flags, i.first, i.second);
    }
    SbiRet stop(unsigned long base, unsigned long mask, unsigned long flags = 0) {
        return call(COUNTER_STOP, base, mask, flags);
    }
    SbiRet fw_read(unsigned long i) { return call(COUNTER_FW_READ, i); }
    SbiRet fw_read_hi(unsigned long i) { return call(COUNTER_FW_READ_HI, i); }
    SbiRet set_shmem(unsigned long lo, unsigned long hi = 0, unsigned long flags = 0) {
        return call(SNAPSHOT_SET_SHMEM, lo, hi, flags);
    }
    SbiRet event_info(unsigned long lo, unsigned long hi, unsigned long n, unsigned long flags = 0) {
        return call(EVENT_GET_INFO, lo, hi, n, flags);
    }

    // The hardware side.
    hart_model::PmuHart &hart() { return m.hart(); }
    void on(unsigned h) { m.current = h; }
    void fw_event(fw::FwEvent e, unsigned n = 1) {
        for (unsigned i = 0; i < n; i++) pmu::kSubsystem.fw_event(e);
    }
    uint64_t snap_value(unsigned i, uint64_t base = kShmem) { return m.load_s(base + 8 + 8 * i, 8); }
    uint64_t snap_bitmap(uint64_t base = kShmem) { return m.load_s(base, 8); }
    unsigned fw_base() const { return pmu::g_config.fw_base; }
    unsigned total() const { return pmu::g_config.total; }
};

inline bool is(SbiRet r, Error e) { return r.error == static_cast<long>(e); }
inline bool ok(SbiRet r) { return r.error == 0; }

} // namespace rig

// The two checks almost every test makes.
#define CHECK_ERR(call, e) CHECK_EQ((call).error, static_cast<long>(rig::Error::e))
#define CHECK_OK(call) CHECK_EQ((call).error, 0)
