// SPDX-License-Identifier: BSD-2-Clause
// libFuzzer: text parsers (PC-only, PC-info, E-Trace records).
#include <string>

#include "etrace_data.hpp"
#include "pcfmt.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
    std::string_view t(reinterpret_cast<const char *>(d), n);
    std::vector<uint64_t> pcs;
    std::vector<trace::PcInfo> info;
    size_t line;
    trace::parse_pc_list(t, pcs, line);
    if (trace::parse_pcinfo(t, info, line)) (void)trace::format_pcinfo(info);
    etrace::Record r;
    std::string err;
    if (etrace::parse_record(std::string(t.substr(0, 200)), r, err)) (void)etrace::format_record(r);
    return 0;
}
