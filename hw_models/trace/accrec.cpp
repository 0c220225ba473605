// SPDX-License-Identifier: BSD-2-Clause
// Access-record files (see accrec.hpp).
#include "accrec.hpp"

#include <cinttypes>
#include <cstring>
#include <deque>

namespace acc {

namespace {
void put_varint(FILE *f, uint64_t v) {
    while (v >= 0x80) {
        putc_unlocked(int(v & 0x7F) | 0x80, f);
        v >>= 7;
    }
    putc_unlocked(int(v), f);
}
uint64_t zigzag(uint64_t d) { return (d << 1) ^ uint64_t(int64_t(d) >> 63); }
uint64_t unzigzag(uint64_t z) { return (z >> 1) ^ (0 - (z & 1)); }
} // namespace

const char *class_name(unsigned c) {
    static const char *const names[kClasses] = {"plain", "atomic", "vector", "other"};
    return c < kClasses ? names[c] : "?";
}

std::string format(const Access &a) {
    if (a.lost) return "data_lost";
    char s[160];
    int n = snprintf(s, sizeof s, "%s size=%u addr=0x%" PRIx64 " data=0x%" PRIx64, a.store ? "store" : "load", a.size,
                     a.addr, a.value);
    if (a.cls != kPlain) n += snprintf(s + n, sizeof s - size_t(n), " %s", class_name(a.cls));
    if (a.has_pc) snprintf(s + n, sizeof s - size_t(n), " (pc 0x%" PRIx64 ")", a.pc);
    return s;
}

Writer::Writer(FILE *f) : f_(f) { fwrite(kMagic, 1, sizeof kMagic, f_); }

void Writer::add(const Access &a) {
    n_++;
    if (a.lost) {
        putc_unlocked(kLost, f_);
        return;
    }
    const unsigned size = a.size > kMaxSize ? kMaxSize : a.size;
    putc_unlocked(int(size | (a.store ? kStore : 0) | (a.cls & 3) << kClassShift | (a.has_pc ? kHasPc : 0)), f_);
    put_varint(f_, zigzag(a.addr - addr_));
    addr_ = a.addr;
    const uint64_t v = a.value & value_mask(size);
    put_varint(f_, zigzag(v - value_[size]));
    value_[size] = v;
    if (a.has_pc) {
        put_varint(f_, zigzag(a.pc - pc_));
        pc_ = a.pc;
    }
}

Reader::Reader(const std::string &path) : name_(path), buf_(1 << 20) {
    f_ = fopen(path.c_str(), "rb");
    if (!f_) {
        err_ = "cannot open " + path;
        return;
    }
    start();
}

Reader::Reader(FILE *f, const std::string &name) : f_(f), name_(name), buf_(1 << 20) { start(); }

void Reader::start() {
    char m[sizeof kMagic];
    if (fread(m, 1, sizeof m, f_) != sizeof m || memcmp(m, kMagic, sizeof m)) {
        err_ = name_ + ": not an access-record file (no TSBIACC1 magic)";
        return;
    }
    ok_ = true;
}

Reader::~Reader() {
    if (f_) fclose(f_);
}

bool Reader::refill() {
    if (!f_) return false;
    len_ = fread(buf_.data(), 1, buf_.size(), f_);
    pos_ = 0;
    return len_ > 0;
}

bool Reader::fail(const char *what) {
    char s[96];
    snprintf(s, sizeof s, ": %s at access %" PRIu64, what, n_);
    err_ = name_ + s;
    ok_ = false;
    return false;
}

bool Reader::varint(uint64_t &v) {
    v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        int c = get();
        if (c < 0) return false;
        v |= uint64_t(c & 0x7F) << shift;
        if (!(c & 0x80)) return true;
    }
    return false;
}

bool Reader::next(Access &a) {
    if (!ok_) return false;
    const int h = get();
    if (h < 0) return false; // clean end
    a = Access{};
    if (h & kLost) {
        if (h != kLost) return fail("lost marker with other bits");
        a.lost = true;
        n_++;
        return true;
    }
    a.size = uint8_t(h & kSizeMask);
    if (a.size > kMaxSize) return fail("size above 16 bytes");
    a.store = h & kStore;
    a.cls = uint8_t((h & kClassMask) >> kClassShift);
    a.has_pc = h & kHasPc;
    uint64_t za, zv, zp = 0;
    if (!varint(za) || !varint(zv) || (a.has_pc && !varint(zp))) return fail("truncated or corrupt access");
    a.addr = addr_ += unzigzag(za);
    a.value = value_[a.size] += unzigzag(zv);
    if (a.value & ~value_mask(a.size)) return fail("value wider than its size");
    if (a.has_pc) a.pc = pc_ += unzigzag(zp);
    n_++;
    return true;
}

namespace {
bool same(const Access &x, const Access &y) {
    return x.lost == y.lost && x.store == y.store && x.size == y.size && x.cls == y.cls && x.addr == y.addr &&
           x.value == y.value;
}
} // namespace

CompareResult compare(Reader &decoded, Reader &record, const CompareOptions &o) {
    CompareResult r;
    // Next access of a side that is not of a skipped class (counted there).
    auto next = [&o](Reader &rd, std::array<uint64_t, kClasses> &skipped, Access &a) {
        while (rd.next(a)) {
            if (!a.lost && (o.skip >> a.cls & 1)) {
                skipped[a.cls]++;
                continue;
            }
            return true;
        }
        return false;
    };
    auto skipped_text = [&r]() {
        std::string s;
        for (unsigned c = 1; c < kClasses; c++) {
            if (!r.skipped_record[c] && !r.skipped_decoded[c]) continue;
            char b[120];
            snprintf(b, sizeof b, "%s%" PRIu64 " %s accesses recorded and %" PRIu64 " decoded left out",
                     s.empty() ? "" : ", ", r.skipped_record[c], class_name(c), r.skipped_decoded[c]);
            s += b;
        }
        return s.empty() ? s : " (" + s + ")";
    };
    std::deque<Access> before; // the last equal accesses, as recorded
    char msg[256];
    Access a, b;
    for (;;) {
        bool ha = next(decoded, r.skipped_decoded, a), hb = next(record, r.skipped_record, b);
        if (!decoded.error().empty() || !record.error().empty()) {
            r.message = "read error: " + (decoded.error().empty() ? record.error() : decoded.error());
            return r;
        }
        if (!ha && !hb) {
            r.equal = true;
            snprintf(msg, sizeof msg, "%" PRIu64 " accesses equal", r.compared);
            r.message = msg + skipped_text();
            return r;
        }
        if (!ha) {
            // The decoded stream ended: the rest of the record is its tail.
            r.record_tail = 1;
            while (next(record, r.skipped_record, b)) r.record_tail++;
            if (!record.error().empty()) {
                r.message = "read error: " + record.error();
                return r;
            }
            r.equal = r.record_tail <= o.max_tail;
            snprintf(msg, sizeof msg, "%" PRIu64 " accesses equal; the record continues: %" PRIu64
                     " more recorded accesses%s", r.compared, r.record_tail,
                     r.equal ? " (allowed tail)" : "");
            r.message = msg + skipped_text();
            if (!r.equal) {
                // Show where: the last equal ones.
                r.message += "\n  last equal accesses:";
                for (const Access &x : before) r.message += "\n    " + format(x);
            }
            return r;
        }
        if (ha && hb && same(a, b)) {
            r.compared++;
            before.push_back(b);
            if (before.size() > o.context) before.pop_front();
            continue;
        }
        // First difference: the context before it, then the next accesses of each side.
        snprintf(msg, sizeof msg,
                 "first difference at access %" PRIu64 " (decoded file access %" PRIu64 ", record access %" PRIu64
                 "): %s",
                 r.compared, decoded.read() - (ha ? 1 : 0), record.read() - (hb ? 1 : 0),
                 a.lost ? "the encoder lost data packets here" : !hb ? "the record ends, the decoded stream goes on"
                                                                     : "decoded and recorded differ");
        r.message = msg + skipped_text();
        uint64_t i = r.compared - before.size();
        for (const Access &x : before) {
            snprintf(msg, sizeof msg, "\n   %" PRIu64 " both:     ", i++);
            r.message += msg + format(x);
        }
        for (unsigned k = 0; k <= o.context; k++) {
            snprintf(msg, sizeof msg, "\n  %s%" PRIu64 " decoded:  ", k ? " " : "*", i + k);
            r.message += msg + (ha ? format(a) : std::string("(end)"));
            snprintf(msg, sizeof msg, "\n  %s%" PRIu64 " recorded: ", k ? " " : "*", i + k);
            r.message += msg + (hb ? format(b) : std::string("(end)"));
            if (ha) ha = next(decoded, r.skipped_decoded, a);
            if (hb) hb = next(record, r.skipped_record, b);
        }
        return r;
    }
}

} // namespace acc
