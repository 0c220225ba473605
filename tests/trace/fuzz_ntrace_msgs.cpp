// SPDX-License-Identifier: BSD-2-Clause
// libFuzzer: N-Trace message layer (framing, table decode, dump) on arbitrary bytes, and
// the streaming reader (StreamParser) in pieces against parse() over the whole input.
#include <algorithm>
#include <cstdlib>
#include <string>

#include "ntrace.hpp"

namespace {
// What a Callbacks sees, as text.
struct Log : ntrace::Callbacks {
    std::string s;
    void on_msg(const ntrace::Msg &m) override {
        s += "m" + std::to_string(m.offset) + ":" + std::to_string(m.tcode) + ":" + std::to_string(m.present);
        for (unsigned f = 0; f < ntrace::kFieldCount; f++)
            if (m.present >> f & 1) s += "," + std::to_string(m.v[f]);
        s += "\n";
    }
    void on_error(uint64_t off, ntrace::Err e) override {
        s += "e" + std::to_string(off) + ":" + ntrace::err_name(e) + "\n";
    }
};
struct Cb : ntrace::Callbacks {
    ntrace::Framing fr;
    size_t n = 0;
    void on_msg(const ntrace::Msg &m) override {
        n += ntrace::dump(fr, m).size() + ntrace::dump_fields(m).size();
        std::vector<uint8_t> again;
        ntrace::encode(fr, m, again); // re-encoding a decoded message must not crash
    }
    void on_error(uint64_t, ntrace::Err e) override { n += ntrace::err_name(e)[0]; }
};
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
    if (n < 1) return 0;
    Cb cb;
    cb.fr.src_bits = uint8_t(d[0] % 13);
    cb.fr.tstamp = d[0] & 0x10;
    cb.fr.extend_addr = d[0] & 0x20;
    cb.fr.xlen = d[0] & 0x40 ? 32 : 64;
    ntrace::parse(cb.fr, std::span<const uint8_t>(d + 1, n - 1), cb, d[0] & 0x80);
    // The same bytes in pieces whose sizes come from the input itself.
    Log whole, pieces;
    ntrace::parse(cb.fr, std::span<const uint8_t>(d + 1, n - 1), whole, d[0] & 0x80);
    ntrace::StreamParser sp(cb.fr, pieces, d[0] & 0x80, n & 1);
    for (size_t i = 1; i < n;) {
        const size_t k = std::min<size_t>(n - i, 1 + d[i] % 17);
        sp.feed(d + i, k);
        i += k;
    }
    sp.finish();
    if (whole.s != pieces.s) abort();
    return 0;
}
