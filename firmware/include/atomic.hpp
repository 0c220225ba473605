// SPDX-License-Identifier: BSD-2-Clause
// Word-sized atomics for the firmware on the compiler's __atomic builtins: the
// subset of std::atomic the firmware uses, without the hosted <atomic> (whose
// wait/notify pulls in Linux syscall headers). Only types no wider than a
// register, so every operation is one AMO or LR/SC loop and never a libatomic
// call (RISC-V A extension; RV32 has no 64-bit AMOs).
#pragma once

namespace fw {

enum memory_order : int {
    memory_order_relaxed = __ATOMIC_RELAXED,
    memory_order_acquire = __ATOMIC_ACQUIRE,
    memory_order_release = __ATOMIC_RELEASE,
    memory_order_acq_rel = __ATOMIC_ACQ_REL,
    memory_order_seq_cst = __ATOMIC_SEQ_CST,
};

template <class T> class atomic {
    static_assert(sizeof(T) <= sizeof(long) && sizeof(T) >= 4,
                  "one AMO wide: RISC-V has word and XLEN-sized AMOs only");
    T v_;

    // A failed compare-exchange is a load: it keeps only the acquire part.
    static constexpr int failure(memory_order o) {
        return o == memory_order_acq_rel ? __ATOMIC_ACQUIRE
               : o == memory_order_release ? __ATOMIC_RELAXED
                                           : o;
    }

public:
    constexpr atomic() : v_() {}
    constexpr atomic(T v) : v_(v) {}
    atomic(const atomic &) = delete;
    atomic &operator=(const atomic &) = delete;

    T load(memory_order o = memory_order_seq_cst) const { return __atomic_load_n(&v_, o); }
    void store(T v, memory_order o = memory_order_seq_cst) { __atomic_store_n(&v_, v, o); }
    T exchange(T v, memory_order o = memory_order_seq_cst) { return __atomic_exchange_n(&v_, v, o); }
    bool compare_exchange_strong(T &expected, T desired, memory_order o = memory_order_seq_cst) {
        return __atomic_compare_exchange_n(&v_, &expected, desired, false, o, failure(o));
    }
    T fetch_add(T v, memory_order o = memory_order_seq_cst) { return __atomic_fetch_add(&v_, v, o); }
    T fetch_sub(T v, memory_order o = memory_order_seq_cst) { return __atomic_fetch_sub(&v_, v, o); }
    T fetch_or(T v, memory_order o = memory_order_seq_cst) { return __atomic_fetch_or(&v_, v, o); }
    T fetch_and(T v, memory_order o = memory_order_seq_cst) { return __atomic_fetch_and(&v_, v, o); }
};

} // namespace fw
