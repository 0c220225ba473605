// SPDX-License-Identifier: BSD-2-Clause
// libFuzzer: tandem-verification trace decoder, dump and comparer.
#include "tvtrace.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
    if (n < 1) return 0;
    tv::Params p;
    p.xlen = d[0] & 1 ? 32 : 64;
    p.flen = d[0] & 2 ? 32 : 64;
    p.mlen = d[0] & 4 ? 40 : 64;
    std::span<const uint8_t> s(d + 1, n - 1);
    std::vector<tv::Item> items;
    size_t off = 0;
    tv::decode_all(p, s, items, off);
    size_t k = 0;
    for (const tv::Item &it : items) k += tv::dump_item(p, s, it).size();
    // Compare against itself and against a shifted copy.
    std::vector<tv::Item> half(items.begin() + long(items.size() / 2), items.end());
    (void)tv::compare(p, items, items, d[0] & 8);
    (void)tv::compare(p, items, half, d[0] & 8);
    // The streaming comparer straight on the bytes (errors included), against itself
    // and against the bytes from the middle on.
    tv::SpanSource a(s), b(s), c(s.subspan(s.size() / 2));
    (void)tv::compare_streams(p, a, b, d[0] & 8);
    tv::SpanSource a2(s);
    (void)tv::compare_streams(p, a2, c, d[0] & 8, 2);
    return int(k & 0);
}
