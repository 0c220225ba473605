// SPDX-License-Identifier: BSD-2-Clause
// libFuzzer: E-Trace data trace packet decoder with fuzzed parameters.
#include "etrace_data.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
    if (n < 3) return 0;
    etrace::Params p;
    static const unsigned widths[] = {8, 16, 32, 64};
    p.data_width = widths[d[0] & 3];
    p.daddress_width = 1 + (d[1] & 63);
    p.lrid_width = (d[0] >> 2) & 7;
    p.unified_only = d[0] & 0x20;
    p.split = d[0] & 0x40;
    p.compress = d[2] & 3;
    p.csr_width = d[2] & 4 ? 32 : 64;
    p.no_addr = d[2] & 8;
    p.no_data = d[2] & 16;
    etrace::Decoder dec(p);
    std::span<const uint8_t> s(d + 3, n - 3);
    size_t off = 0;
    unsigned type;
    std::span<const uint8_t> pl;
    while (etrace::next_packet(s, off, type, pl)) {
        etrace::Record r;
        if (dec.decode(type, pl, r) == etrace::Err::None) (void)etrace::format_record(r);
    }
    return 0;
}
