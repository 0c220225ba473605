// SPDX-License-Identifier: BSD-2-Clause
// Synthetic RISC-V programs and their abstract execution, for round-trip tests and the
// benchmark: functions with loops (counted, patterned and random branches), direct and
// indirect calls, returns (occasionally to a non-matching address), indirect jumps,
// traps into a handler that returns with mret, privilege changes and trace on/off gaps.
// Only control flow is modelled; the image holds real encodings the classifier decodes.
#pragma once
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "image.hpp"

namespace trace {

struct GenConfig {
    uint64_t seed = 1;
    unsigned xlen = 64;
    uint64_t base = 0x80000000;
    unsigned nfuncs = 40;
    bool compressed = true;
    unsigned trap_per_million = 500;    // traps per 10^6 instructions
    unsigned gap_per_million = 0;       // trace stop/start gaps per 10^6 instructions
    unsigned bad_return_per_mille = 10; // returns to a non-matching address (longjmp-like)
};

struct GenEvent {
    enum Kind : uint8_t { Retire, Trap, Context, Start, Stop } kind;
    uint8_t size;   // Retire
    uint8_t itype;  // Retire: 4-bit itype (branches 4/5)
    bool interrupt; // Trap
    uint64_t addr;  // Retire: pc; Trap: epc; Start/Stop: pc; Context: privilege
    uint64_t target; // Trap: handler
};

// Passes one generated event to an encoder (ntrace::Encoder or alike: start, stop,
// trap, retire); the privilege changes (Context) are left to the caller.
template <class Enc> void to_encoder(const GenEvent &ev, Enc &e) {
    switch (ev.kind) {
    case GenEvent::Start: e.start(ev.addr); break;
    case GenEvent::Stop: e.stop(ev.addr); break;
    case GenEvent::Trap: e.trap(ev.addr, ev.target, ev.interrupt); break;
    case GenEvent::Context: break;
    case GenEvent::Retire: e.retire(ev.addr, ev.size, ev.itype); break;
    }
}

class Program {
  public:
    explicit Program(const GenConfig &c);
    const Image &image() const { return img_; }
    uint64_t entry() const { return entry_; }
    // Runs n retired instructions; calls f for each event. Deterministic for a seed.
    void run(uint64_t n, const std::function<void(const GenEvent &)> &f);

  private:
    struct Meta {
        uint8_t pattern = 0; // branches: 0 random, 1 taken, 2 not taken, 3 alternate, 4 loop
        uint16_t count = 0, period = 0;
        std::vector<uint64_t> targets; // indirect jumps/calls
    };
    uint64_t rnd();
    GenConfig cfg_;
    Image img_;
    uint64_t entry_ = 0, handler_ = 0;
    std::unordered_map<uint64_t, Meta> meta_;
    uint64_t rng_;
};

} // namespace trace
