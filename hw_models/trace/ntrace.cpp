// SPDX-License-Identifier: BSD-2-Clause
// N-Trace message layer: MSEO/MDO framing (N-Trace 1.0 ch. 3), table-driven field
// encoding/decoding (ch. 6-7), address MSB extension (8.2).
#include "ntrace.hpp"

#include <cstdio>

namespace ntrace {

namespace {
constexpr uint8_t kMseoData = 0, kMseoEndField = 1, kMseoReserved = 2, kMseoEndMsg = 3;
constexpr unsigned kMdoBits = 6;
constexpr uint64_t mask(unsigned n) { return n >= 64 ? ~0ull : (1ull << n) - 1; }

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

namespace {
struct Reader {
    std::span<const uint8_t> b;
    size_t idx = 0;
    unsigned pos = 0;
    bool ended = false; // the MSEO=11 byte has been consumed

    Err fixed(unsigned bits, uint64_t &v) {
        v = 0;
        unsigned got = 0;
        while (got < bits) {
            if (ended || idx >= b.size()) return Err::MissingField;
            uint8_t byte = b[idx];
            unsigned take = std::min(kMdoBits - pos, bits - got);
            v |= uint64_t((byte >> 2 >> pos) & mask(take)) << got;
            got += take, pos += take;
            if (pos == kMdoBits) {
                uint8_t mseo = byte & 3;
                idx++, pos = 0;
                if (mseo == kMseoEndMsg) ended = true;
                // A fixed field that fills a byte flagged as end of a variable field
                // leaves that variable field empty.
                if (mseo == kMseoEndField) return Err::FixedAcrossEnd;
                if (mseo == kMseoEndMsg && got < bits) return Err::FixedAcrossEnd;
            }
        }
        return Err::None;
    }

    Err var(uint64_t &v, unsigned &nbits) {
        v = 0, nbits = 0;
        if (ended || idx >= b.size()) return Err::MissingField;
        bool overflow = false;
        for (;;) {
            if (idx >= b.size()) return Err::MissingField;
            uint8_t byte = b[idx++];
            unsigned take = kMdoBits - pos;
            uint64_t bits = (byte >> 2 >> pos) & mask(take);
            if (nbits < 64) {
                v |= bits << nbits;
                if (nbits + take > 64 && (bits >> (64 - nbits))) overflow = true;
            } else if (bits) {
                overflow = true;
            }
            nbits += take, pos = 0;
            uint8_t mseo = byte & 3;
            if (mseo == kMseoEndMsg) ended = true;
            if (mseo != kMseoData) break;
        }
        return overflow ? Err::FieldOverflow : Err::None;
    }
};
} // namespace

uint64_t extend_addr_field(uint64_t field, unsigned nbits, unsigned xlen) {
    const unsigned width = xlen - 1;
    if (nbits == 0 || nbits >= width) return field;
    if (field >> (nbits - 1) & 1) field |= mask(width) & ~mask(nbits);
    return field;
}

Err parse_one(const Framing &fr, std::span<const uint8_t> bytes, Msg &m) {
    m.present = 0;
    m.length = uint32_t(bytes.size());
    m.raw = bytes;
    Reader r{bytes};
    uint64_t v;
    Err e;
    auto note = [&](Fld f, uint64_t val, unsigned nb) {
        m.set(f, val);
        m.nbits[unsigned(f)] = uint8_t(std::min(nb, 255u));
        size_t end = r.pos ? r.idx : r.idx - 1;
        m.endbyte[unsigned(f)] = uint16_t(std::min<size_t>(end, 0xFFFF));
    };
    if ((e = r.fixed(6, v)) != Err::None) return e;
    m.tcode = uint8_t(v);
    note(Fld::TCODE, v, 6);
    if (fr.src_bits) {
        if ((e = r.fixed(fr.src_bits, v)) != Err::None) return e;
        note(Fld::SRC, v, fr.src_bits);
    }
    const MsgDesc *d = find_msg(m.tcode);
    if (!d) return is_vendor_tcode(m.tcode) ? Err::None : Err::ReservedTcode;
    for (unsigned i = 0; i < d->nfields; i++) {
        const FieldRef &ref = d->fields[i];
        if (!field_present(ref, m)) continue;
        const FieldDesc &fd = kFields[unsigned(ref.id)];
        unsigned nb = 0;
        switch (fd.kind) {
        case Kind::Fix:
            e = r.fixed(fd.bits, v), nb = fd.bits;
            break;
        case Kind::Src:
            e = r.fixed(fr.src_bits, v), nb = fr.src_bits;
            break;
        case Kind::Var: e = r.var(v, nb); break;
        case Kind::Addr:
            e = r.var(v, nb);
            if (e == Err::None && fr.extend_addr) v = extend_addr_field(v, nb, fr.xlen);
            break;
        }
        if (e != Err::None) return e;
        note(ref.id, v, nb);
    }
    if (!r.ended && fr.tstamp) {
        unsigned nb;
        if ((e = r.var(v, nb)) != Err::None) return e;
        note(Fld::TSTAMP, v, nb);
    }
    if (!r.ended) return Err::ExtraField;
    return Err::None;
}

void parse(const Framing &fr, std::span<const uint8_t> bytes, Callbacks &cb, bool mid_stream) {
    const size_t n = bytes.size();
    size_t i = 0;
    if (mid_stream) {
        while (i < n && (bytes[i] & 3) != kMseoEndMsg) i++;
        if (i < n) i++;
    }
    Msg m;
    while (i < n) {
        if (bytes[i] == 0xFF) {
            i++;
            continue;
        }
        if ((bytes[i] & 3) != kMseoData) {
            // Not a message start: report once, then skip past the next end of message.
            cb.on_error(i, Err::NoStart);
            while (i < n && (bytes[i] & 3) != kMseoEndMsg) i++;
            i++;
            continue;
        }
        size_t start = i, j = i;
        while (j < n && (bytes[j] & 3) != kMseoEndMsg && (bytes[j] & 3) != kMseoReserved) j++;
        if (j >= n) {
            cb.on_error(start, Err::Truncated);
            return;
        }
        if ((bytes[j] & 3) == kMseoReserved) {
            cb.on_error(j, Err::ReservedMseo);
            while (j < n && (bytes[j] & 3) != kMseoEndMsg) j++;
            i = j + 1;
            continue;
        }
        i = j + 1;
        m.offset = start;
        Err e = parse_one(fr, bytes.subspan(start, j + 1 - start), m);
        if (e == Err::None) {
            cb.on_msg(m);
        } else if (e == Err::ReservedTcode) {
            cb.on_error(start, e);
            cb.on_msg(m);
        } else {
            cb.on_error(start, e);
        }
    }
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
