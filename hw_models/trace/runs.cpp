// SPDX-License-Identifier: BSD-2-Clause
// Instruction-run files (see runs.hpp).
#include "runs.hpp"

#include <cinttypes>
#include <cstring>

namespace runs {

using varfile::put_varint;

Writer::Writer(FILE *f) : f_(f) { fwrite(kMagic, 1, sizeof kMagic, f_); }

void Writer::flush_run() {
    if (!n_) return;
    const int64_t d = int64_t(start_ - prev_);
    put_varint(f_, (uint64_t(d) << 1) ^ uint64_t(d >> 63));
    put_varint(f_, n_);
    fwrite(steps_, 1, (n_ - 1 + 7) / 8, f_);
    memset(steps_, 0, (n_ - 1 + 7) / 8);
    total_ += n_;
    prev_ = last_;
    n_ = 0;
}

Reader::Reader(const std::string &path) {
    ok_ = in_.open(path, kMagic, "an instruction-run file");
    if (!ok_) err_ = in_.error();
}

bool Reader::next_run() {
    if (!ok_) return false;
    uint64_t zz, n;
    if (in_.at_end()) return false; // clean end
    if (!in_.varint(zz) || !in_.varint(n) || n == 0 || n > (1u << 24)) {
        err_ = "truncated or corrupt run";
        ok_ = false;
        return false;
    }
    const int64_t d = int64_t(zz >> 1) ^ -int64_t(zz & 1);
    const uint64_t prev_last = pc_;
    steps_.resize((n - 1 + 7) / 8);
    for (auto &b : steps_) {
        int c = in_.get();
        if (c < 0) {
            err_ = "truncated run";
            ok_ = false;
            return false;
        }
        b = uint8_t(c);
    }
    pc_ = prev_last + uint64_t(d);
    n_ = uint32_t(n), i_ = 0;
    return true;
}

CompareResult compare(Reader &decoded, Reader &record, uint64_t max_tail) {
    CompareResult r;
    uint64_t a = 0, b = 0, last = 0;
    char msg[256];
    for (;;) {
        const bool ha = decoded.next(a), hb = record.next(b);
        if (!ha || !hb) {
            if (!decoded.error().empty() || !record.error().empty()) {
                r.message = "read error: " + (decoded.error().empty() ? record.error() : decoded.error());
                return r;
            }
            if (ha) {
                snprintf(msg, sizeof msg, "the record ends after %" PRIu64 " instructions, the decoded stream goes on (0x%" PRIx64 ")",
                         r.compared, a);
                r.message = msg;
                return r;
            }
            if (hb) {
                r.record_tail = 1;
                while (record.next(b)) r.record_tail++;
            }
            r.equal = r.record_tail <= max_tail;
            snprintf(msg, sizeof msg, "%" PRIu64 " instructions equal%s", r.compared,
                     r.record_tail ? (r.equal ? " (the record continues: allowed tail)" : "; the record continues") : "");
            r.message = msg;
            if (r.record_tail) {
                snprintf(msg, sizeof msg, ", %" PRIu64 " more recorded instructions", r.record_tail);
                r.message += msg;
            }
            return r;
        }
        if (a != b) {
            snprintf(msg, sizeof msg,
                     "differ at instruction %" PRIu64 ": decoded 0x%" PRIx64 ", recorded 0x%" PRIx64
                     " (previous instruction 0x%" PRIx64 ")",
                     r.compared, a, b, last);
            r.message = msg;
            return r;
        }
        last = a;
        r.compared++;
    }
}

} // namespace runs
