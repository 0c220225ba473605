// SPDX-License-Identifier: BSD-2-Clause
// Access-level fakes of memory-mapped devices for host programs (x86-64
// Linux): the device's window is mapped PROT_NONE, so every load or store
// the driver makes faults; the handler asks the device model for the value
// a load returns (or, for a store, what a read-modify-write instruction
// would see), opens the window, single-steps the instruction (EFLAGS.TF)
// and, on the trap after it, hands a store's value to the model and closes
// the window again. A driver compiled unchanged thus talks to a model that
// answers each register access in order, as the device would: status bits
// that change, FIFOs, registers that clear on read.
//
// Accesses are taken as aligned 32-bit words (the register width of the
// devices modelled). The handlers run on the faulting thread at a known
// point of the driver, so the models may allocate.
#pragma once
#include <csignal>
#include <cstdint>
#include <cstring>
#include <sys/mman.h>
#include <ucontext.h>

namespace mmio_fake {

struct Device {
    virtual ~Device() = default;
    virtual uint32_t read(unsigned off) = 0;  // a load, with its side effects
    virtual uint32_t peek(unsigned off) = 0;  // the value, without them
    virtual void write(unsigned off, uint32_t value) = 0;
};

struct Window {
    uintptr_t base;
    size_t size;
    Device *dev;
};
inline Window windows[8];
inline unsigned nwindows;
inline Window *pending;
inline unsigned pending_off;
inline bool pending_write;
constexpr unsigned long kTrapFlag = 0x100; // EFLAGS.TF

inline Window *find(uintptr_t a) {
    for (unsigned i = 0; i < nwindows; i++)
        if (a >= windows[i].base && a - windows[i].base < windows[i].size) return &windows[i];
    return nullptr;
}

// Closes every window (after code that changed page protections wholesale).
inline void protect_all() {
    for (unsigned i = 0; i < nwindows; i++)
        mprotect(reinterpret_cast<void *>(windows[i].base), windows[i].size, PROT_NONE);
}

// Maps `size` bytes (a page multiple) for `dev` at `at` (replacing what is
// mapped there), or anywhere for nullptr; returns the window's address.
inline void *attach(Device &dev, void *at, size_t size) {
    void *p = mmap(at, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | (at ? MAP_FIXED : 0), -1, 0);
    if (p == MAP_FAILED || nwindows == sizeof windows / sizeof windows[0]) return nullptr;
    windows[nwindows++] = {reinterpret_cast<uintptr_t>(p), size, &dev};
    return p;
}

// SIGSEGV: true if the fault was a window's (the access is then set up).
inline bool on_segv(siginfo_t *si, void *ctx) {
    auto a = reinterpret_cast<uintptr_t>(si->si_addr);
    Window *w = find(a);
    if (!w || pending) return false;
    auto *uc = static_cast<ucontext_t *>(ctx);
    bool write = uc->uc_mcontext.gregs[REG_ERR] & 2; // page-fault error code: W/R
    unsigned off = static_cast<unsigned>(a - w->base) & ~3u;
    mprotect(reinterpret_cast<void *>(w->base), w->size, PROT_READ | PROT_WRITE);
    uint32_t v = write ? w->dev->peek(off) : w->dev->read(off);
    std::memcpy(reinterpret_cast<void *>(w->base + off), &v, 4);
    pending = w;
    pending_off = off;
    pending_write = write;
    uc->uc_mcontext.gregs[REG_EFL] |= kTrapFlag;
    return true;
}

// SIGTRAP after the single step: true if it was ours.
inline bool on_trap(void *ctx) {
    if (!pending) return false;
    auto *uc = static_cast<ucontext_t *>(ctx);
    uc->uc_mcontext.gregs[REG_EFL] &= ~kTrapFlag;
    Window *w = pending;
    pending = nullptr;
    if (pending_write) {
        uint32_t v;
        std::memcpy(&v, reinterpret_cast<void *>(w->base + pending_off), 4);
        w->dev->write(pending_off, v);
    }
    mprotect(reinterpret_cast<void *>(w->base), w->size, PROT_NONE);
    return true;
}

// Handlers for a program with no SIGSEGV handler of its own.
inline void install() {
    struct sigaction sa {};
    sa.sa_flags = SA_SIGINFO;
    sa.sa_sigaction = [](int, siginfo_t *si, void *ctx) {
        if (!on_segv(si, ctx)) {
            signal(SIGSEGV, SIG_DFL); // a real fault: crash there
        }
    };
    sigaction(SIGSEGV, &sa, nullptr);
    sa.sa_sigaction = [](int, siginfo_t *, void *ctx) {
        if (!on_trap(ctx)) signal(SIGTRAP, SIG_DFL);
    };
    sigaction(SIGTRAP, &sa, nullptr);
}

} // namespace mmio_fake
