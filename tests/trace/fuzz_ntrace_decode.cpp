// SPDX-License-Identifier: BSD-2-Clause
// libFuzzer: N-Trace program-flow decoder. The input is split into a program image (random
// code, or a generated program) and a message stream; a step limit bounds each run.
#include "ntrace_dec.hpp"
#include "progen.hpp"

namespace {
struct Sink : ntrace::DecodeSink {
    uint64_t n = 0;
    void insns(const uint64_t *, size_t k) override { n += k; }
};
const trace::Program &generated() {
    static trace::Program p([] {
        trace::GenConfig g;
        g.nfuncs = 6;
        return g;
    }());
    return p;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
    if (n < 3) return 0;
    ntrace::DecoderConfig c;
    c.fr.src_bits = uint8_t(d[0] % 5);
    c.fr.tstamp = d[0] & 0x10;
    c.fr.extend_addr = d[0] & 0x20;
    c.implicit_return = d[1] & 1;
    c.all_jumps = d[1] & 2;
    c.seq_jump = d[0] & 0x80;
    c.src = d[1] & 4 ? int(d[1] >> 4) : -1;
    c.max_steps = 100000;
    const bool use_gen = d[1] & 8;
    const size_t img_len = use_gen ? 0 : std::min<size_t>(d[2] * 4u, n - 3);
    trace::Image own;
    own.opts.zcmp = own.opts.zcmt = d[0] & 0x40;
    own.opts.xlen = d[0] & 0x80 ? 32 : 64;
    own.add(0, std::vector<uint8_t>(d + 3, d + 3 + img_len));
    own.jvt = 0x40, own.has_jvt = true;
    const trace::Image &img = use_gen ? generated().image() : own;
    c.fr.xlen = uint8_t(img.opts.xlen);
    Sink s;
    ntrace::Decoder dec(c, img, s);
    dec.run(std::span<const uint8_t>(d + 3 + img_len, n - 3 - img_len), d[1] & 0x80);
    return 0;
}
