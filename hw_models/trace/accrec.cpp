// SPDX-License-Identifier: BSD-2-Clause
// Access-record files (see accrec.hpp).
#include "accrec.hpp"

#include <cinttypes>
#include <cstring>
#include <deque>

namespace acc {

using varfile::put_varint;
using varfile::unzigzag;
using varfile::zigzag;

const char *class_name(unsigned c) {
    static const char *const names[kClasses] = {"plain", "atomic", "vector", "other"};
    return c < kClasses ? names[c] : "?";
}

std::string format(const Access &a) {
    if (a.lost) return "data_lost";
    char s[160];
    int n = snprintf(s, sizeof s, "%s size=%u addr=0x%" PRIx64 " data=0x%" PRIx64, a.store ? "store" : "load", a.size,
                     a.addr, a.value);
    if (a.packet && a.op == kOpScFail)
        n = snprintf(s, sizeof s, "sc_fail size=%u addr=0x%" PRIx64, a.size, a.addr);
    else if (a.packet)
        n = snprintf(s, sizeof s, "amo op=%u size=%u addr=0x%" PRIx64 " data=0x%" PRIx64 " operand=0x%" PRIx64,
                     a.op, a.size, a.addr, a.value, a.operand);
    else if (a.cls != kPlain)
        n += snprintf(s + n, sizeof s - size_t(n), " %s", class_name(a.cls));
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
    const unsigned cls = a.packet ? unsigned(kAtomic) : a.cls & 3u;
    putc_unlocked(int(size | (a.store ? kStore : 0) | cls << kClassShift | (a.packet ? kLost : 0) |
                      (a.has_pc ? kHasPc : 0)),
                  f_);
    put_varint(f_, zigzag(a.addr - addr_));
    addr_ = a.addr;
    const uint64_t v = a.value & value_mask(size);
    put_varint(f_, zigzag(v - value_[size]));
    value_[size] = v;
    if (a.has_pc) {
        put_varint(f_, zigzag(a.pc - pc_));
        pc_ = a.pc;
    }
    if (a.packet) {
        putc_unlocked(a.op & 7, f_);
        put_varint(f_, a.operand);
    }
}

Reader::Reader(const std::string &path) : name_(path) {
    ok_ = in_.open(path, kMagic, "an access-record file");
    if (!ok_) err_ = in_.error();
}

Reader::Reader(FILE *f, const std::string &name) : name_(name) {
    ok_ = in_.adopt(f, name, kMagic, "an access-record file");
    if (!ok_) err_ = in_.error();
}

bool Reader::fail(const char *what) {
    char s[96];
    snprintf(s, sizeof s, ": %s at access %" PRIu64, what, n_);
    err_ = name_ + s;
    ok_ = false;
    return false;
}

bool Reader::next(Access &a) {
    if (!ok_) return false;
    const int h = in_.get();
    if (h < 0) return false; // clean end
    a = Access{};
    if (h == kLost) {
        a.lost = true;
        n_++;
        return true;
    }
    a.packet = h & kLost;
    if (a.packet && (h & kClassMask) >> kClassShift != kAtomic) return fail("packet flag on a non-atomic access");
    a.size = uint8_t(h & kSizeMask);
    if (a.size > kMaxSize) return fail("size above 16 bytes");
    a.store = h & kStore;
    a.cls = uint8_t((h & kClassMask) >> kClassShift);
    a.has_pc = h & kHasPc;
    uint64_t za, zv, zp = 0;
    if (!in_.varint(za) || !in_.varint(zv) || (a.has_pc && !in_.varint(zp))) return fail("truncated or corrupt access");
    a.addr = addr_ += unzigzag(za);
    a.value = value_[a.size] += unzigzag(zv);
    if (a.value & ~value_mask(a.size)) return fail("value wider than its size");
    if (a.has_pc) a.pc = pc_ += unzigzag(zp);
    if (a.packet) {
        const int op = in_.get();
        if (op < 0 || op > 7 || !in_.varint(a.operand)) return fail("truncated or corrupt atomic packet");
        a.op = uint8_t(op);
    }
    n_++;
    return true;
}

namespace {
bool same(const Access &x, const Access &y) {
    return x.lost == y.lost && x.store == y.store && x.size == y.size && x.cls == y.cls && x.addr == y.addr &&
           x.value == y.value && x.packet == y.packet && (!x.packet || (x.op == y.op && x.operand == y.operand));
}

// The values an AMO may store: the operand (QEMU's parallel TCG reports it) or the
// operation applied to the value loaded (serial TCG), max/min in either signedness.
bool amo_stores(unsigned op, unsigned size, uint64_t old, uint64_t operand, uint64_t stored) {
    const uint64_t m = value_mask(size), sign = (m >> 1) + 1;
    old &= m, operand &= m, stored &= m;
    if (stored == operand) return true;
    auto sx = [&](uint64_t x) { return int64_t(x ^ sign) - int64_t(sign); }; // sign-extend from the size
    switch (op) {
    case 1: return stored == ((old + operand) & m);
    case 2: return stored == (old & operand);
    case 3: return stored == (old | operand);
    case 4: return stored == (old ^ operand);
    case 5: return stored == (sx(old) > sx(operand) ? old : operand) || stored == (old > operand ? old : operand);
    case 6: return stored == (sx(old) < sx(operand) ? old : operand) || stored == (old < operand ? old : operand);
    default: return false; // swap: the operand
    }
}

// One step of the record: an access, or with pair_atomics an atomic instruction's
// load and store (same pc and address).
struct RecItem {
    Access a, st;
    bool pair = false;
};
} // namespace

CompareResult compare(Reader &decoded, Reader &record, const CompareOptions &o) {
    CompareResult r;
    const unsigned skip = o.pair_atomics ? o.skip & ~(1u << kAtomic) : o.skip;
    // Next access of a side that is not of a skipped class (counted there).
    auto next = [skip](Reader &rd, std::array<uint64_t, kClasses> &skipped, Access &a) {
        while (rd.next(a)) {
            if (!a.lost && (skip >> a.cls & 1)) {
                skipped[a.cls]++;
                continue;
            }
            return true;
        }
        return false;
    };
    Access peeked;
    bool has_peeked = false;
    auto next_rec = [&](RecItem &it) {
        it.pair = false;
        if (has_peeked)
            it.a = peeked, has_peeked = false;
        else if (!next(record, r.skipped_record, it.a))
            return false;
        if (o.pair_atomics && it.a.cls == kAtomic && !it.a.store) {
            if (next(record, r.skipped_record, peeked)) {
                if (peeked.cls == kAtomic && peeked.store && peeked.pc == it.a.pc && peeked.addr == it.a.addr)
                    it.st = peeked, it.pair = true;
                else
                    has_peeked = true;
            }
        }
        return true;
    };
    auto skipped_text = [&r, &o]() {
        std::string s;
        char b[160];
        for (unsigned c = 1; c < kClasses; c++) {
            if (!r.skipped_record[c] && !r.skipped_decoded[c]) continue;
            snprintf(b, sizeof b, "%s%" PRIu64 " %s accesses recorded and %" PRIu64 " decoded left out",
                     s.empty() ? "" : ", ", r.skipped_record[c], class_name(c), r.skipped_decoded[c]);
            s += b;
        }
        if (o.pair_atomics) {
            snprintf(b, sizeof b,
                     "%satomics paired: %" PRIu64 " AMOs, %" PRIu64 " LRs, %" PRIu64 " SCs stored, %" PRIu64
                     " failed, %" PRIu64 " failed without an access",
                     s.empty() ? "" : ", ", r.amos, r.lrs, r.sc_stored, r.sc_failed, r.sc_no_access);
            s += b;
        }
        return s.empty() ? s : " (" + s + ")";
    };
    // The last LR (an atomic load alone): QEMU's SC stores when its load finds that value.
    bool lr_valid = false;
    uint64_t lr_value = 0;
    // Whether the decoded access d accounts for the record's step it (and counts it).
    auto match = [&](const Access &d, const RecItem &it) {
        if (!it.pair) {
            if (!same(d, it.a)) {
                // An LR is recorded as an atomic load and traced as a load.
                Access plain = it.a;
                plain.cls = kPlain;
                if (!(o.pair_atomics && it.a.cls == kAtomic && same(d, plain))) return false;
                r.lrs++;
                lr_valid = true, lr_value = it.a.value;
            }
            return true;
        }
        const Access &ld = it.a, &st = it.st;
        if (d.size != ld.size || d.addr != ld.addr) return false;
        const bool sc_ok = lr_valid && lr_value == ld.value;
        if (d.packet && d.op == kOpScFail) {
            if (sc_ok) return false;
            r.sc_failed++;
        } else if (d.packet) {
            if (d.value != ld.value || !amo_stores(d.op, d.size, ld.value, d.operand, st.value)) return false;
            r.amos++;
        } else {
            if (!d.store || d.cls != kPlain || d.value != st.value || !sc_ok) return false;
            r.sc_stored++;
        }
        return true;
    };
    std::deque<Access> before; // the last equal accesses, as recorded
    char msg[256];
    Access a;
    RecItem b;
    for (;;) {
        bool ha = next(decoded, r.skipped_decoded, a), hb = next_rec(b);
        if (!decoded.error().empty() || !record.error().empty()) {
            r.message = "read error: " + (decoded.error().empty() ? record.error() : decoded.error());
            return r;
        }
        // A failed SC whose reservation was gone made no access.
        while (ha && o.pair_atomics && a.packet && a.op == kOpScFail && !(hb && b.pair && match(a, b))) {
            r.sc_no_access++;
            ha = next(decoded, r.skipped_decoded, a);
        }
        if (!decoded.error().empty()) {
            r.message = "read error: " + decoded.error();
            return r;
        }
        if (ha && hb && a.packet && a.op == kOpScFail && b.pair) {
            // matched (and counted) by the loop's condition
            r.compared++;
            before.push_back(b.a);
            if (before.size() > o.context) before.pop_front();
            continue;
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
            while (next(record, r.skipped_record, b.a)) r.record_tail++;
            r.record_tail += has_peeked + b.pair;
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
                r.message += "\n  last equal accesses:";
                for (const Access &x : before) r.message += "\n    " + format(x);
            }
            return r;
        }
        if (ha && hb && match(a, b)) {
            r.compared++;
            before.push_back(b.a);
            if (before.size() > o.context) before.pop_front();
            continue;
        }
        // First difference: the context before it, then the next accesses of each side.
        snprintf(msg, sizeof msg,
                 "first difference at access %" PRIu64 " (decoded file access %" PRIu64 ", record access %" PRIu64
                 "): %s",
                 r.compared, decoded.read() - (ha ? 1 : 0), record.read() - (hb ? 1 + b.pair : 0) - has_peeked,
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
            r.message += msg + (hb ? format(b.a) + (b.pair ? " + " + format(b.st) : std::string()) : std::string("(end)"));
            if (ha) ha = next(decoded, r.skipped_decoded, a);
            if (hb) hb = next_rec(b);
        }
        return r;
    }
}

} // namespace acc
