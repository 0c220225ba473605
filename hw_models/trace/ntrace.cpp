// SPDX-License-Identifier: BSD-2-Clause
// N-Trace message layer: MSEO/MDO framing (N-Trace 1.0 ch. 3), table-driven field
// encoding/decoding (ch. 6-7), address MSB extension (8.2).
#include "ntrace.hpp"

#include <cstdio>

namespace ntrace {

namespace {
using namespace wire;

// Field references of one message after applying conditions, in order: the table
// rows plus TCODE/SRC in front (TSTAMP is handled by the caller).
bool field_present(const FieldRef &r, const Msg &m) {
    return !r.conditional || (m.has(r.cond_field) && m.get(r.cond_field) == r.cond_value);
}
} // namespace

// ---- encoding ----------------------------------------------------------------------------
void Writer::push(uint8_t mseo) {
    out_.push_back(uint8_t(mdo_ << 2 | mseo));
    mdo_ = 0, pos_ = 0;
}

void Writer::fixed(uint64_t v, unsigned bits) {
    while (bits) {
        unsigned take = std::min(kMdoBits - pos_, bits);
        mdo_ |= uint8_t((v & mask(take)) << pos_);
        pos_ += take, bits -= take, v >>= take;
        if (pos_ == kMdoBits) push(kMseoData);
    }
}

void Writer::var_bits(uint64_t v, unsigned nbits, bool last, bool) {
    // A variable-length field takes at least the rest of the current MDO and ends on a
    // byte boundary (3.1); high-order zero bits are not sent.
    for (;;) {
        unsigned take = kMdoBits - pos_;
        mdo_ |= uint8_t((v & mask(take)) << pos_);
        v >>= take;
        nbits = nbits > take ? nbits - take : 0;
        pos_ = kMdoBits;
        if (!nbits) {
            push(last ? kMseoEndMsg : kMseoEndField);
            return;
        }
        push(kMseoData);
    }
}

void Writer::addr(uint64_t v, unsigned width, bool extend, bool last) {
    v &= mask(width);
    if (!extend) {
        var_bits(v, 64 - std::countl_zero(v), last, false);
        return;
    }
    // 8.2: the decoder repeats the top transmitted bit up to the address MSB, so pick
    // the shortest byte-aligned length whose top bit is either 0 with nothing above it,
    // or 1 with only ones above it.
    for (unsigned t = kMdoBits - pos_;; t += kMdoBits) {
        if (t >= width || (v >> (t - 1)) == 0 || (v >> (t - 1)) == mask(width - (t - 1))) {
            var_bits(v & mask(t), t, last, true);
            return;
        }
    }
}

void encode(const Framing &fr, const Msg &m, std::vector<uint8_t> &out) {
    const MsgDesc *d = find_msg(m.tcode);
    if (!d) {
        out.insert(out.end(), m.raw.begin(), m.raw.end());
        return;
    }
    Writer w(out);
    w.fixed(m.tcode, 6);
    if (fr.src_bits) w.fixed(m.get(Fld::SRC), fr.src_bits);
    const bool ts = fr.tstamp && m.has(Fld::TSTAMP);
    // The last present field closes the message with MSEO=11.
    int last = -1;
    for (int i = 0; i < d->nfields; i++)
        if (field_present(d->fields[i], m)) last = i;
    for (int i = 0; i < d->nfields; i++) {
        const FieldRef &r = d->fields[i];
        if (!field_present(r, m)) continue;
        const bool end = !ts && i == last;
        const FieldDesc &fd = kFields[unsigned(r.id)];
        uint64_t v = m.get(r.id);
        switch (fd.kind) {
        case Kind::Fix: w.fixed(v, fd.bits); break;
        case Kind::Var: w.var(v, end); break;
        case Kind::Addr: w.addr(v, fr.xlen - 1, fr.extend_addr, end); break;
        case Kind::Src: w.fixed(v, fr.src_bits); break;
        }
    }
    if (ts) w.var(m.get(Fld::TSTAMP), true);
}

// ---- decoding ----------------------------------------------------------------------------
const char *err_name(Err e) {
    switch (e) {
    case Err::None: return "none";
    case Err::ReservedMseo: return "reserved MSEO=10";
    case Err::Truncated: return "stream ends inside a message";
    case Err::FieldOverflow: return "variable-length field longer than 64 bits";
    case Err::MissingField: return "message ends before a required field";
    case Err::ExtraField: return "message has more fields than its TCODE defines";
    case Err::FixedAcrossEnd: return "fixed-length field crosses an end-of-field byte";
    case Err::NoStart: return "bytes outside a message that are not idle";
    case Err::ReservedTcode: return "reserved TCODE";
    }
    return "?";
}

Err parse_one(const Framing &fr, std::span<const uint8_t> bytes, Msg &m) {
    m.length = uint32_t(bytes.size());
    m.raw = bytes;
    return decode_fields(fr, bytes.data(), bytes.size(), m.tcode, m.present,
                         [&](Fld f, uint64_t val, unsigned nb, size_t end) {
                             m.v[unsigned(f)] = val;
                             m.nbits[unsigned(f)] = uint8_t(std::min(nb, 255u));
                             m.endbyte[unsigned(f)] = uint16_t(std::min<size_t>(end, 0xFFFF));
                         });
}

namespace {
// One complete message to the callbacks (a reserved TCODE is reported, then passed on).
// values_only: the field values without their bit widths and end bytes (the dump's
// layout), read by the core's faster reader.
void deliver(const Framing &fr, const uint8_t *b, size_t n, uint64_t off, Msg &m, Callbacks &cb,
             bool values_only = false) {
    if (values_only) {
        Fields f;
        const Err e = decode_fields(fr, b, n, f);
        if (e != Err::None) cb.on_error(off, e);
        if (e == Err::None || e == Err::ReservedTcode) cb.on_fields(f, off, std::span<const uint8_t>(b, n));
        return;
    }
    m.offset = off;
    const Err e = parse_one(fr, std::span<const uint8_t>(b, n), m);
    if (e == Err::None) {
        cb.on_msg(m);
    } else if (e == Err::ReservedTcode) {
        cb.on_error(off, e);
        cb.on_msg(m);
    } else {
        cb.on_error(off, e);
    }
}
} // namespace

void Callbacks::on_fields(const Fields &f, uint64_t offset, std::span<const uint8_t> raw) {
    Msg m;
    m.tcode = f.tcode, m.present = f.present, m.offset = offset, m.length = uint32_t(raw.size()), m.raw = raw;
    for (uint32_t p = f.present; p; p &= p - 1) m.v[unsigned(std::countr_zero(p))] = f.v[std::countr_zero(p)];
    on_msg(m);
}

void parse(const Framing &fr, std::span<const uint8_t> bytes, Callbacks &cb, bool mid_stream) {
    Msg m;
    size_t end = split_messages(
        bytes.data(), bytes.size(), mid_stream,
        [&](const uint8_t *b, size_t n, size_t off) { deliver(fr, b, n, off, m, cb); },
        [&](size_t off, Err e) { cb.on_error(off, e); });
    if (end < bytes.size()) cb.on_error(end, Err::Truncated);
}

// b[0, n) starts at stream offset base_, where the splitter starts afresh; returns where
// an unfinished message starts (n: none).
size_t StreamParser::split(const uint8_t *b, size_t n) {
    const uint64_t base = base_;
    return split_messages(
        b, n, false, [&](const uint8_t *p, size_t k, size_t off) { deliver(fr_, p, k, base + off, m_, cb_, values_only_); },
        [&](size_t off, Err e) { cb_.on_error(base + off, e); });
}

void StreamParser::feed(const uint8_t *b, size_t n) {
    using namespace wire;
    if (skip_) {
        size_t i = 0;
        while (i < n && (b[i] & 3) != kMseoEndMsg) i++;
        if (i == n) {
            base_ += n;
            return;
        }
        skip_ = false;
        base_ += i + 1, b += i + 1, n -= i + 1;
    }
    size_t last = n;
    while (last && (b[last - 1] & 3) != kMseoEndMsg) last--;
    if (!last) { // no end byte: all of it belongs to the unfinished message
        carry_.insert(carry_.end(), b, b + n);
        if (carry_.size() > kMaxCarry) {
            // What is no message: the splitter reports what it can, then the rest is
            // dropped up to the next end byte.
            const size_t end = split(carry_.data(), carry_.size());
            if (end < carry_.size()) cb_.on_error(base_ + end, Err::FieldOverflow);
            base_ += carry_.size();
            carry_.clear();
            skip_ = true;
        }
        return;
    }
    if (!carry_.empty()) {
        // Complete the carried message with this piece up to its first end byte.
        size_t first = 0;
        while ((b[first] & 3) != kMseoEndMsg) first++;
        carry_.insert(carry_.end(), b, b + first + 1);
        split(carry_.data(), carry_.size());
        base_ += carry_.size();
        carry_.clear();
        b += first + 1, n -= first + 1, last -= first + 1;
    }
    split(b, last);
    base_ += last;
    carry_.assign(b + last, b + n);
}

void StreamParser::finish() {
    if (carry_.empty()) return;
    const size_t end = split(carry_.data(), carry_.size());
    if (end < carry_.size()) cb_.on_error(base_ + end, Err::Truncated);
    base_ += carry_.size();
    carry_.clear();
}

// ---- dump --------------------------------------------------------------------------------
const char *tcode_name(unsigned tcode) {
    if (const MsgDesc *d = find_msg(tcode)) return d->name;
    return is_vendor_tcode(tcode) ? "VendorDefined" : "Reserved";
}

static void append_field(std::string &s, const Msg &m, Fld f) {
    char buf[96];
    uint64_t v = m.get(f);
    if (f == Fld::TCODE)
        snprintf(buf, sizeof buf, "TCODE[6] = %u - %s", unsigned(v), tcode_name(unsigned(v)));
    else
        snprintf(buf, sizeof buf, "%s[%u] = 0x%llX", kFields[unsigned(f)].name,
                 unsigned(m.nbits[unsigned(f)]), (unsigned long long)v);
    s += buf;
}

std::string dump(const Framing &, const Msg &m) {
    std::string s;
    char buf[64];
    for (size_t i = 0; i < m.raw.size(); i++) {
        uint8_t b = m.raw[i];
        snprintf(buf, sizeof buf, "0x%02X %c%c%c%c%c%c_%c%c", b, '0' + (b >> 7 & 1),
                 '0' + (b >> 6 & 1), '0' + (b >> 5 & 1), '0' + (b >> 4 & 1), '0' + (b >> 3 & 1),
                 '0' + (b >> 2 & 1), '0' + (b >> 1 & 1), '0' + (b & 1));
        s += buf;
        bool first = true;
        for (unsigned f = 0; f < kFieldCount; f++) {
            if (!(m.present >> f & 1) || m.endbyte[f] != i) continue;
            s += first ? " " : "\n               ";
            append_field(s, m, Fld(f));
            first = false;
        }
        s += '\n';
    }
    return s;
}

std::string dump_fields(const Msg &m) {
    std::string s;
    char buf[96];
    snprintf(buf, sizeof buf, "TCODE=%u (%s)\n", m.tcode, tcode_name(m.tcode));
    s += buf;
    // Fields in transmission order: SRC, table fields, TSTAMP.
    auto one = [&](Fld f) {
        if (!m.has(f)) return;
        snprintf(buf, sizeof buf, "%s=0x%llX\n", kFields[unsigned(f)].name,
                 (unsigned long long)m.get(f));
        s += buf;
    };
    one(Fld::SRC);
    if (const MsgDesc *d = find_msg(m.tcode)) {
        for (unsigned i = 0; i < d->nfields; i++) one(d->fields[i].id);
    } else {
        s += "RAW=";
        for (uint8_t b : m.raw) {
            snprintf(buf, sizeof buf, "%02X", b);
            s += buf;
        }
        s += '\n';
    }
    one(Fld::TSTAMP);
    return s;
}

} // namespace ntrace
