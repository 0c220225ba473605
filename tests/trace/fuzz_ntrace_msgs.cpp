// SPDX-License-Identifier: BSD-2-Clause
// libFuzzer: N-Trace message layer (framing, table decode, dump) on arbitrary bytes.
#include "ntrace.hpp"

namespace {
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
    return 0;
}
