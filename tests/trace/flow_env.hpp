// SPDX-License-Identifier: BSD-2-Clause
// The core's program-flow walker (ntrace_core.hpp) run directly, without the host
// Decoder: an Env over a program image that keeps every retired address, transfer and
// error, with every feature compiled in (HTM, implicit return, sequential jumps,
// all-jumps, jump tables through JVT).
#pragma once
#include <doctest/doctest.h>

#include <string>
#include <tuple>
#include <vector>

#include "image.hpp"
#include "ntrace_core.hpp"

namespace flowtest {

struct PcEnv {
    explicit PcEnv(const trace::Image &i) : img(i) {}
    const trace::Image &img;
    std::vector<uint64_t> pcs;
    std::vector<std::tuple<uint64_t, uint64_t, unsigned>> transfers; // source, target, itype
    std::vector<std::string> errors;

    bool insn(uint64_t pc, rv::Insn &in) { return peek(pc, in); }
    bool peek(uint64_t pc, rv::Insn &in) const {
        const rv::Insn *p = img.at(pc);
        if (p) in = *p;
        return p;
    }
    bool jump_table(unsigned index, uint64_t &target) const {
        bool ok = img.has_jvt;
        target = ok ? img.read_xlen(img.jvt + index * (img.opts.xlen / 8), ok) : 0;
        return ok;
    }
    void retired(uint64_t pc) { pcs.push_back(pc); }
    void transfer(uint64_t s, uint64_t t, uint8_t itype) { transfers.emplace_back(s, t, itype); }
    void trap(uint64_t, uint64_t, bool) {}
    void leave(uint64_t, const rv::Insn *) {}
    void gap() {}
    void error(const char *what, uint64_t) { errors.emplace_back(what); }
};

struct Options {
    bool implicit_return = false, seq_jump = false, all_jumps = false;
    int src = -1;
};

// Splits and decodes the stream and walks it with env (a PcEnv or one derived from it).
template <class E> void walk(E &env, const ntrace::Framing &fr, const std::vector<uint8_t> &bytes, Options o = {}) {
    ntrace::FlowConfig fc;
    fc.xlen = env.img.opts.xlen;
    fc.src = o.src;
    fc.implicit_return = o.implicit_return, fc.seq_jump = o.seq_jump, fc.all_jumps = o.all_jumps;
    ntrace::FlowStateT<ntrace::kFlowAll> st{};
    ntrace::Flow<E, ntrace::kFlowAll> f(fc, st, env);
    ntrace::split_messages(
        bytes.data(), bytes.size(), false,
        [&](const uint8_t *m, size_t n, size_t) {
            ntrace::Fields fl;
            REQUIRE(ntrace::decode_fields(fr, m, n, fl) == ntrace::Err::None);
            f.on_msg(fl);
        },
        [&](size_t, ntrace::Err) { FAIL("framing"); });
}

} // namespace flowtest
