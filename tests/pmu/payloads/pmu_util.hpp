// SPDX-License-Identifier: BSD-2-Clause
// Helpers shared by the PMU payloads: the PMU calls, direct counter reads,
// and what num_counters/counter_get_info say about this platform.
#pragma once
#include "../../../firmware/pmu/spec.hpp"
#include "payload.hpp"
#include "riscv/csr.hpp"

namespace pmupl {

using namespace pl;
using namespace pmu::spec;

inline SbiRet pmu(long f, unsigned long a0 = 0, unsigned long a1 = 0, unsigned long a2 = 0,
                  unsigned long a3 = 0, unsigned long a4 = 0, unsigned long a5 = 0) {
    return sbi_call(eid::pmu, f, a0, a1, a2, a3, a4, a5);
}
inline SbiRet num_counters() { return pmu(NUM_COUNTERS); }
inline SbiRet get_info(unsigned long i) { return pmu(COUNTER_GET_INFO, i); }
// event_data and initial_value are 64-bit: two registers on RV32, low first.
inline SbiRet match(unsigned long base, unsigned long mask, unsigned long flags,
                    unsigned long ev, uint64_t data = 0) {
    return pmu(COUNTER_CONFIG_MATCHING, base, mask, flags, ev, static_cast<unsigned long>(data),
               arg_hi(data));
}
inline SbiRet start(unsigned long base, unsigned long mask, unsigned long flags = 0,
                    uint64_t init = 0) {
    return pmu(COUNTER_START, base, mask, flags, static_cast<unsigned long>(init), arg_hi(init));
}
inline SbiRet stop(unsigned long base, unsigned long mask, unsigned long flags = 0) {
    return pmu(COUNTER_STOP, base, mask, flags);
}
inline SbiRet fw_read(unsigned long i) { return pmu(COUNTER_FW_READ, i); }
inline SbiRet fw_read_hi(unsigned long i) { return pmu(COUNTER_FW_READ_HI, i); }
inline SbiRet set_shmem(unsigned long lo, unsigned long hi = 0, unsigned long flags = 0) {
    return pmu(SNAPSHOT_SET_SHMEM, lo, hi, flags);
}
inline SbiRet event_info(unsigned long lo, unsigned long hi, unsigned long n,
                         unsigned long flags = 0) {
    return pmu(EVENT_GET_INFO, lo, hi, n, flags);
}

constexpr unsigned long kCycles = event_idx(TYPE_HW, HW_CPU_CYCLES);
constexpr unsigned long kInstr = event_idx(TYPE_HW, HW_INSTRUCTIONS);
constexpr unsigned long kDtlbRdMiss = event_idx(TYPE_CACHE, cache_code(DTLB, OP_READ, RESULT_MISS));
constexpr unsigned long kDtlbWrMiss = event_idx(TYPE_CACHE, cache_code(DTLB, OP_WRITE, RESULT_MISS));
constexpr unsigned long kItlbMiss = event_idx(TYPE_CACHE, cache_code(ITLB, OP_READ, RESULT_MISS));
constexpr unsigned long fw_event(unsigned code) { return event_idx(TYPE_FW, code); }
enum FwCode : unsigned {
    MISALIGNED_LOAD = 0, MISALIGNED_STORE, ACCESS_LOAD, ACCESS_STORE, ILLEGAL_INSN, SET_TIMER,
    IPI_SENT, IPI_RECEIVED, FENCE_I_SENT, FENCE_I_RECEIVED, SFENCE_VMA_SENT,
    SFENCE_VMA_RECEIVED, SFENCE_VMA_ASID_SENT, SFENCE_VMA_ASID_RECEIVED, HFENCE_GVMA_SENT,
    HFENCE_GVMA_RECEIVED, HFENCE_GVMA_VMID_SENT, HFENCE_GVMA_VMID_RECEIVED, HFENCE_VVMA_SENT,
    HFENCE_VVMA_RECEIVED, HFENCE_VVMA_ASID_SENT, HFENCE_VVMA_ASID_RECEIVED,
};

// S-mode read of cycle/instret/hpmcounterN by index (mcounteren opens them);
// on RV32 with its upper half (cycleh.., 0x80 above), read until stable.
constexpr unsigned kCounterHiOffset = 0x80;
template <unsigned N> uint64_t read_csr_n() {
    if constexpr (pl::kXlen == 64) {
        return csr_read(N);
    } else {
        unsigned long hi, lo;
        do {
            hi = csr_read(N + kCounterHiOffset);
            lo = csr_read(N);
        } while (hi != csr_read(N + kCounterHiOffset));
        return static_cast<uint64_t>(hi) << 32 | lo;
    }
}
template <unsigned... I> struct Seq {};
template <unsigned N, unsigned... I> struct MakeSeq : MakeSeq<N - 1, N - 1, I...> {};
template <unsigned... I> struct MakeSeq<0, I...> {
    using type = Seq<I...>;
};
struct Readers {
    uint64_t (*f[32])();
};
template <unsigned... I> constexpr Readers counter_readers(Seq<I...>) {
    return Readers{{&read_csr_n<csr::cycle + I>...}};
}
inline uint64_t read_counter(unsigned idx) {
    static constexpr Readers t = counter_readers(MakeSeq<32>::type{});
    return t.f[idx & 31]();
}

// The counters as counter_get_info describes them.
struct Counters {
    unsigned long n;
    uint64_t hw, fw;           // logical indices by type
    unsigned long info[64];
    unsigned first_fw() const {
        for (unsigned i = 0; i < 64; i++)
            if (fw >> i & 1) return i;
        return 0;
    }
};
inline Counters discover() {
    Counters c{};
    SbiRet r = num_counters();
    c.n = r.error ? 0 : (r.value > 64 ? 64 : r.value);
    for (unsigned i = 0; i < c.n; i++) {
        SbiRet in = get_info(i);
        if (in.error) continue;
        c.info[i] = in.value;
        if (in.value & kInfoTypeFw) c.fw |= 1ull << i;
        else c.hw |= 1ull << i;
    }
    return c;
}

// Touches `pages` distinct pages from `base`, which refills QEMU's TLB
// (its DTLB-miss event counts those refills).
inline void touch_pages(unsigned long base, unsigned pages) {
    for (unsigned i = 0; i < pages; i++)
        (void)*reinterpret_cast<volatile unsigned long *>(base + i * 4096ul);
}

} // namespace pmupl
