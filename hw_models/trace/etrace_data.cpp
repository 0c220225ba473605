// SPDX-License-Identifier: BSD-2-Clause
// E-Trace data trace packets (see etrace_data.hpp).
#include "etrace_data.hpp"

#include <bit>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace etrace {

namespace {
constexpr unsigned kFmtLoad = 0, kFmtStore = 2, kFmtSplitData = 4, kFmtCsr = 5, kFmtAtomic = 6,
                   kFmtSplitAtomicData = 7;
constexpr unsigned kScFailSubtype = 7;
constexpr unsigned kCsrAddrOnlySubtypeBits = 3; // Table 39 (Tables 37, 38: 2)
constexpr unsigned kMaxPayload = 63;
constexpr uint64_t mask(unsigned n) { return n >= 64 ? ~0ull : (1ull << n) - 1; }
constexpr unsigned clog2(uint64_t x) { return x <= 1 ? 0 : 64 - std::countl_zero(x - 1); }
uint64_t sext(uint64_t v, unsigned from, unsigned to) {
    v &= mask(from);
    if (from && from < 64 && (v >> (from - 1) & 1)) v |= mask(to) & ~mask(from);
    return v & mask(to);
}
// Fewest bytes whose sign extension to `width` bits gives v (8.1.4).
unsigned sext_bytes(uint64_t v, unsigned width) {
    v &= mask(width);
    for (unsigned n = 1; n * 8 < width; n++)
        if (sext(v, 8 * n, width) == v) return n;
    return (width + 7) / 8;
}

struct BitWriter {
    std::vector<uint8_t> b;
    unsigned n = 0;
    void put(uint64_t v, unsigned bits) {
        for (unsigned i = 0; i < bits; i++, n++) {
            if (n % 8 == 0) b.push_back(0);
            if (v >> i & 1) b.back() |= uint8_t(1u << (n % 8));
        }
    }
    // Truncates trailing bytes that equal the sign extension of the bit before them.
    std::vector<uint8_t> finish() {
        if (b.empty()) b.push_back(0);
        const unsigned last = (n - 1) % 8;
        const bool top = b.back() >> last & 1;
        if (top && last != 7) b.back() |= uint8_t(0xFF << (last + 1));
        while (b.size() > 1) {
            const bool prev_top = b[b.size() - 2] >> 7 & 1;
            if (b.back() != (prev_top ? 0xFF : 0x00)) break;
            b.pop_back();
        }
        return b;
    }
};

struct BitReader {
    std::span<const uint8_t> b;
    size_t n = 0;
    bool bit(size_t i) const {
        if (i < b.size() * 8) return b[i / 8] >> (i % 8) & 1;
        return b.back() >> 7 & 1; // beyond the packet: sign extension of the last bit
    }
    uint64_t get(unsigned bits) {
        uint64_t v = 0;
        for (unsigned i = 0; i < bits; i++)
            if (bit(n + i)) v |= 1ull << i;
        n += bits;
        return v;
    }
};
} // namespace

unsigned Params::size_bits() const {
    unsigned s = clog2(clog2(data_width / 8 + 1));
    return s < 1 ? 1 : s;
}

bool Params::valid() const {
    return (data_width == 8 || data_width == 16 || data_width == 32 || data_width == 64) &&
           daddress_width >= 1 && daddress_width <= 64 && lrid_width <= 8 && compress <= 3 &&
           (csr_width == 32 || csr_width == 64);
}

void State::reset() {
    addr_valid.fill(false), data_valid.fill(false);
    csr_valid = false;
    lrid_pending.fill(false);
}

const char *err_name(Err e) {
    switch (e) {
    case Err::None: return "none";
    case Err::Empty: return "empty packet";
    case Err::TooLong: return "packet longer than any defined format";
    case Err::Reserved: return "reserved format or code";
    case Err::UnknownLrid: return "response for an unknown load request ID";
    case Err::BadParams: return "invalid parameters";
    case Err::NoSync: return "compressed value before any full value of this size";
    }
    return "?";
}

// ---- encoder -------------------------------------------------------------------------
namespace {
// Data compression choice: returns the diff/resp code class and the value to send.
enum class DMode { Full, Xor, Diff };
DMode pick(const Params &p, bool valid, uint64_t v, uint64_t ref, unsigned w, uint64_t &out) {
    out = v & mask(w);
    DMode m = DMode::Full;
    if (!valid) return m;
    unsigned best = sext_bytes(out, w);
    if (p.compress & 1) {
        uint64_t x = (v ^ ref) & mask(w);
        if (sext_bytes(x, w) < best) best = sext_bytes(x, w), out = x, m = DMode::Xor;
    }
    if (p.compress & 2) {
        uint64_t d = (v - ref) & mask(w);
        if (sext_bytes(d, w) < best) best = sext_bytes(d, w), out = d, m = DMode::Diff;
    }
    return m;
}
unsigned data_only_code(const Params &p, DMode m) {
    if (m == DMode::Full) return 0;
    if (p.data_diff_bits() == 1) return 1;
    return m == DMode::Xor ? 1 : 3;
}
DMode data_only_mode(const Params &p, unsigned code, bool &reserved) {
    reserved = false;
    if (code == 0) return DMode::Full;
    if (p.data_diff_bits() == 1) {
        if (p.compress == 0) reserved = true;
        return p.compress == 2 ? DMode::Diff : DMode::Xor;
    }
    if (code == 2 || (code == 1 && !(p.compress & 1)) || (code == 3 && !(p.compress & 2))) reserved = true;
    return code == 1 ? DMode::Xor : DMode::Diff;
}
uint64_t apply(DMode m, uint64_t v, uint64_t ref, unsigned w) {
    switch (m) {
    case DMode::Xor: return (v ^ ref) & mask(w);
    case DMode::Diff: return (v + ref) & mask(w);
    default: return v & mask(w);
    }
}
} // namespace

bool Encoder::encode(const Record &r, std::vector<uint8_t> &out) {
    if (!p_.valid()) return false;
    BitWriter w;
    unsigned msg_type = 1;
    const unsigned sb = p_.size_bits(), fb = p_.format_bits();
    const unsigned size = r.size;
    const unsigned aw = 8u << size; // access width in bits
    const bool need_size = r.kind != Kind::Csr && r.kind != Kind::SplitAtomicData && r.kind != Kind::Sync &&
                           r.kind != Kind::Support;
    if (need_size && (aw > p_.data_width || size >= (1u << sb))) return false;
    if (r.lrid >> p_.lrid_width) return false;
    const bool unaligned = (r.addr & mask(size)) != 0;
    const unsigned sh = unaligned ? 0 : size;
    const unsigned daw = p_.daddress_width;
    // Address: full or differential against the last address of the same size.
    auto address = [&](bool allow_diff, bool &diff) {
        // Arithmetic shift of the sign-extended address, so that high addresses stay
        // all-ones above their significant bits and truncate well.
        auto shifted = [&](uint64_t a) { return uint64_t(int64_t(sext(a, daw, 64)) >> sh) & mask(daw); };
        const uint64_t enc = shifted(r.addr);
        diff = allow_diff && st_.addr_valid[size];
        uint64_t v = diff ? (enc - shifted(st_.addr[size])) & mask(daw) : enc;
        st_.addr[size] = r.addr, st_.addr_valid[size] = true;
        return v;
    };
    auto put_len_data = [&](uint64_t v, unsigned width, unsigned len_bits) {
        const unsigned n = sext_bytes(v, width);
        w.put(n - 1, len_bits);
        w.put(v, 8 * n);
    };
    auto split_check = [&](bool want_split) { return p_.split == want_split && !p_.unified_only; };
    // Address only (Tables 28, 30, 33): whether it is differential, then it.
    auto put_address = [&] {
        bool d;
        const uint64_t a = address(true, d);
        w.put(d, 1);
        w.put(a, daw);
    };
    // The 2-bit code of unified and split data (Tables 27, 31, 32, 36; 0 is
    // sync or error): 1 XOR, 2 full, 3 differential.
    auto data_code = [](DMode m) -> unsigned { return m == DMode::Xor ? 1 : m == DMode::Full ? 2 : 3; };
    // Later data of size s is compressed against this one.
    auto remember = [&](unsigned s) { st_.data[s] = r.data & mask(8u << s), st_.data_valid[s] = true; };
    // The body of a unified load, store or atomic (Tables 27-29, 32-34); an
    // atomic also carries its operand.
    auto put_access = [&](bool with_operand) {
        auto put_operand = [&] {
            if (with_operand) put_len_data(r.operand & mask(aw), aw, size);
        };
        if (p_.no_data) return put_address(); // Tables 28, 33
        uint64_t v;
        if (p_.no_addr) { // Tables 29, 34
            DMode m = pick(p_, st_.data_valid[size], r.data, st_.data[size], aw, v);
            w.put(data_only_code(p_, m), p_.data_diff_bits());
            put_operand();
            w.put(sext(v, aw, 64), p_.data_width);
        } else { // Tables 27, 32
            const bool sync = !st_.addr_valid[size] || !st_.data_valid[size];
            DMode m = sync ? (v = r.data & mask(aw), DMode::Full)
                           : pick(p_, true, r.data, st_.data[size], aw, v);
            bool d;
            uint64_t a = address(!sync, d);
            w.put(sync ? 0 : data_code(m), 2);
            put_operand();
            put_len_data(v, aw, size);
            w.put(a, daw);
        }
        remember(size);
    };
    // A split response (Tables 31, 36) to a request of size s: code 0 for an
    // error, else the data's code and the data, at full width (load) or with
    // its length (atomic).
    auto put_response = [&](unsigned s, bool with_len) {
        if (r.error) {
            w.put(0, 2);
        } else {
            const unsigned ws = 8u << s;
            uint64_t v;
            DMode m = pick(p_, st_.data_valid[s], r.data, st_.data[s], ws, v);
            w.put(data_code(m), 2);
            if (with_len) put_len_data(v, ws, s);
            else w.put(sext(v, ws, 64), p_.data_width);
            remember(s);
        }
        st_.lrid_pending[r.lrid] = false;
    };
    const bool atomic = r.kind == Kind::Atomic || r.kind == Kind::ScFail || r.kind == Kind::SplitAtomicAddr;
    if (atomic && unaligned) return false; // atomics are aligned to their size
    switch (r.kind) {
    case Kind::Load:
    case Kind::Store:
        if (r.kind == Kind::Load && p_.split) return false;
        w.put((r.kind == Kind::Load ? kFmtLoad : kFmtStore) + unaligned, fb);
        w.put(size, sb);
        put_access(false);
        break;
    case Kind::ScFail:
        if (p_.unified_only) return false;
        w.put(kFmtAtomic, fb);
        w.put(kScFailSubtype, 3);
        w.put(size, sb);
        put_address();
        break;
    case Kind::Atomic:
        if (!split_check(false) || r.subtype >= kScFailSubtype) return false;
        w.put(kFmtAtomic, fb);
        w.put(r.subtype, 3);
        w.put(size, sb);
        put_access(true);
        break;
    case Kind::SplitLoadAddr: { // Table 30
        if (!split_check(true)) return false;
        w.put(kFmtLoad + unaligned, fb);
        w.put(size, sb);
        w.put(r.lrid, p_.lrid_width);
        put_address();
        st_.lrid_size[r.lrid] = uint8_t(size), st_.lrid_pending[r.lrid] = true;
        break;
    }
    case Kind::SplitLoadData: { // Table 31
        if (!split_check(true)) return false;
        w.put(kFmtSplitData, fb);
        w.put(size, sb);
        w.put(r.lrid, p_.lrid_width);
        put_response(size, false);
        break;
    }
    case Kind::SplitAtomicAddr: { // Table 35
        if (!split_check(true) || r.subtype >= kScFailSubtype) return false;
        w.put(kFmtAtomic, fb);
        w.put(r.subtype, 3);
        w.put(size, sb);
        w.put(r.lrid, p_.lrid_width);
        bool d;
        uint64_t a = address(true, d);
        w.put(d ? (p_.data_diff_bits() == 2 ? 2 : 1) : 0, p_.data_diff_bits());
        put_len_data(r.operand & mask(aw), aw, size);
        w.put(a, daw);
        st_.lrid_size[r.lrid] = uint8_t(size), st_.lrid_pending[r.lrid] = true;
        break;
    }
    case Kind::SplitAtomicData: { // Table 36
        if (!split_check(true) || !st_.lrid_pending[r.lrid]) return false;
        w.put(kFmtSplitAtomicData, fb);
        w.put(r.lrid, p_.lrid_width);
        put_response(st_.lrid_size[r.lrid], true);
        break;
    }
    case Kind::Csr: { // Tables 37-39
        if (p_.unified_only || r.addr > 0xFFF || r.subtype > 2) return false;
        const unsigned cw = p_.csr_width, lb = cw == 64 ? 3 : 2;
        w.put(kFmtCsr, fb);
        if (p_.no_data) {
            // Table 39: subtype 3 bits (the other CSR tables have 2), diff
            // "0 or 1" bits: 0, CSR numbers are never sent differentially.
            w.put(r.subtype, kCsrAddrOnlySubtypeBits);
            w.put(r.addr >> 6, 6);
            w.put(r.addr & 0x3F, 6);
            break;
        }
        w.put(r.subtype, 2);
        uint64_t v;
        DMode m = pick(p_, st_.csr_valid, r.data, st_.csr_data, cw, v);
        w.put(data_only_code(p_, m), p_.data_diff_bits());
        put_len_data(v, cw, lb);
        w.put(r.addr >> 6, 6);
        if ((r.addr >> 10) != 3) put_len_data(r.operand & mask(cw), cw, lb);
        w.put(r.addr & 0x3F, 6);
        st_.csr_data = r.data & mask(cw), st_.csr_valid = true;
        break;
    }
    case Kind::Sync: // format 3 subformat 0: only its type matters to the data decoder
        msg_type = 0;
        w.put(3, 2);
        w.put(0, 2);
        st_.reset();
        break;
    case Kind::Support: // format 3 subformat 3
        msg_type = 0;
        w.put(3, 2);
        w.put(3, 2);
        w.put(r.ienable, 1);
        w.put(0, 1); // encoder_mode: branch trace
        w.put(r.qual_status, 2);
        w.put(r.ioptions, 6);
        w.put(r.denable, 1);
        w.put(r.dloss, 1);
        w.put(unsigned(p_.no_data) | unsigned(p_.no_addr) << 1, 2);
        break;
    }
    std::vector<uint8_t> b = w.finish();
    if (b.size() > kMaxPayload) return false;
    out.push_back(uint8_t(b.size() | msg_type << 6));
    out.insert(out.end(), b.begin(), b.end());
    return true;
}

// ---- decoder -------------------------------------------------------------------------
bool next_packet(std::span<const uint8_t> s, size_t &off, unsigned &type, std::span<const uint8_t> &payload) {
    if (off >= s.size()) return false;
    const unsigned len = s[off] & 0x3F;
    type = s[off] >> 6;
    if (len == 0 || s.size() - off - 1 < len) return false;
    payload = s.subspan(off + 1, len);
    off += 1 + len;
    return true;
}

Err Decoder::decode(unsigned msg_type, std::span<const uint8_t> pl, Record &r) {
    r = Record{};
    if (!p_.valid()) return Err::BadParams;
    if (pl.empty()) return Err::Empty;
    if (pl.size() > kMaxPayload) return Err::TooLong;
    BitReader rd{pl};
    if (msg_type == 0) {
        if (rd.get(2) != 3) return Err::Reserved; // other instruction trace packets
        const unsigned sub = unsigned(rd.get(2));
        // The synchronization packets (payload.adoc "Format 3 packets":
        // subformats 0 and 1) restart data compression (8.1.3).
        if (sub == 0 || sub == 1) {
            r.kind = Kind::Sync;
            st_.reset();
            return Err::None;
        }
        if (sub != 3) return Err::Reserved;
        r.kind = Kind::Support;
        r.ienable = rd.get(1);
        rd.get(1);
        r.qual_status = unsigned(rd.get(2));
        r.ioptions = unsigned(rd.get(6));
        r.denable = rd.get(1);
        r.dloss = rd.get(1);
        const unsigned dopt = unsigned(rd.get(2));
        p_.no_data = dopt & 1, p_.no_addr = dopt >> 1 & 1;
        return Err::None;
    }
    if (msg_type != 1) return Err::Reserved;
    const unsigned sb = p_.size_bits(), fb = p_.format_bits();
    const unsigned daw = p_.daddress_width;
    const unsigned fmt = unsigned(rd.get(fb));
    auto address = [&](unsigned size, bool unaligned, bool diff, uint64_t v, Err &e) {
        const unsigned sh = unaligned ? 0 : size;
        uint64_t enc = v & mask(daw);
        if (diff) {
            if (!st_.addr_valid[size]) e = Err::NoSync;
            enc = (enc + (uint64_t(int64_t(sext(st_.addr[size], daw, 64)) >> sh) & mask(daw))) & mask(daw);
        }
        uint64_t a = (enc << sh) & mask(daw);
        st_.addr[size] = a, st_.addr_valid[size] = true;
        return a;
    };
    auto len_data = [&](unsigned width, unsigned len_bits) {
        const unsigned n = unsigned(rd.get(len_bits)) + 1;
        return sext(rd.get(8 * n > 64 ? 64 : 8 * n), 8 * n > 64 ? 64 : 8 * n, width);
    };
    auto data_of = [&](DMode m, uint64_t v, unsigned size, unsigned aw, Err &e) {
        if (m != DMode::Full && !st_.data_valid[size]) e = Err::NoSync;
        uint64_t d = apply(m, v, st_.data[size], aw);
        st_.data[size] = d, st_.data_valid[size] = true;
        return d;
    };
    Err e = Err::None;
    // Address only (Tables 28, 30, 33): whether it is differential, then it.
    auto get_address = [&](bool unaligned) {
        const bool d = rd.get(1);
        return address(r.size, unaligned, d, rd.get(daw), e);
    };
    // The 2-bit data code of unified and split data (the encoder's data_code).
    auto mode_of = [](unsigned code) { return code == 1 ? DMode::Xor : code == 3 ? DMode::Diff : DMode::Full; };
    // The body of a unified load, store or atomic (Tables 27-29, 32-34); an
    // atomic also carries its operand. False: a reserved code.
    auto get_access = [&](bool unaligned, bool with_operand, unsigned aw) {
        auto get_operand = [&] {
            if (with_operand) r.operand = len_data(aw, r.size);
        };
        if (p_.no_data) { // Tables 28, 33
            r.addr = get_address(unaligned);
            return true;
        }
        if (p_.no_addr) { // Tables 29, 34
            bool reserved;
            DMode m = data_only_mode(p_, unsigned(rd.get(p_.data_diff_bits())), reserved);
            if (reserved) return false;
            get_operand();
            r.data = data_of(m, rd.get(p_.data_width), r.size, aw, e);
            return true;
        }
        const unsigned diff = unsigned(rd.get(2)); // Tables 27, 32
        if (diff == 1 && !(p_.compress & 1)) return false;
        if (diff == 3 && !(p_.compress & 2)) return false;
        get_operand();
        const uint64_t v = len_data(aw, r.size);
        r.data = data_of(mode_of(diff), v, r.size, aw, e);
        r.addr = address(r.size, unaligned, diff != 0, rd.get(daw), e);
        return true;
    };
    switch (fmt) {
    case kFmtLoad:
    case kFmtLoad + 1:
    case kFmtStore:
    case kFmtStore + 1: {
        const bool unaligned = fmt & 1;
        r.size = unsigned(rd.get(sb));
        const unsigned aw = 8u << r.size;
        if (aw > p_.data_width) return Err::Reserved;
        if (fmt < kFmtStore && p_.split) { // Table 30
            r.kind = Kind::SplitLoadAddr;
            r.lrid = unsigned(rd.get(p_.lrid_width));
            r.addr = get_address(unaligned);
            st_.lrid_size[r.lrid] = uint8_t(r.size), st_.lrid_pending[r.lrid] = true;
            break;
        }
        r.kind = fmt < kFmtStore ? Kind::Load : Kind::Store;
        if (!get_access(unaligned, false, aw)) return Err::Reserved;
        break;
    }
    case kFmtSplitData: {
        if (!p_.split) return Err::Reserved;
        r.kind = Kind::SplitLoadData;
        r.size = unsigned(rd.get(sb));
        const unsigned aw = 8u << r.size;
        if (aw > p_.data_width) return Err::Reserved;
        r.lrid = unsigned(rd.get(p_.lrid_width));
        const unsigned resp = unsigned(rd.get(2));
        if (!st_.lrid_pending[r.lrid]) e = Err::UnknownLrid;
        st_.lrid_pending[r.lrid] = false;
        if (resp == 0) {
            r.error = true;
            break;
        }
        r.data = data_of(mode_of(resp), rd.get(p_.data_width), r.size, aw, e);
        break;
    }
    case kFmtAtomic: {
        r.subtype = unsigned(rd.get(3));
        r.size = unsigned(rd.get(sb));
        const unsigned aw = 8u << r.size;
        if (aw > p_.data_width) return Err::Reserved;
        if (r.subtype == kScFailSubtype) {
            r.kind = Kind::ScFail;
            r.addr = get_address(false);
            break;
        }
        if (p_.split) { // Table 35
            r.kind = Kind::SplitAtomicAddr;
            r.lrid = unsigned(rd.get(p_.lrid_width));
            const bool d = rd.get(p_.data_diff_bits()) != 0;
            r.operand = len_data(aw, r.size);
            r.addr = address(r.size, false, d, rd.get(daw), e);
            st_.lrid_size[r.lrid] = uint8_t(r.size), st_.lrid_pending[r.lrid] = true;
            break;
        }
        r.kind = Kind::Atomic;
        if (!get_access(false, true, aw)) return Err::Reserved;
        break;
    }
    case kFmtSplitAtomicData: {
        if (!p_.split) return Err::Reserved;
        r.kind = Kind::SplitAtomicData;
        r.lrid = unsigned(rd.get(p_.lrid_width));
        if (!st_.lrid_pending[r.lrid]) return Err::UnknownLrid;
        st_.lrid_pending[r.lrid] = false;
        r.size = st_.lrid_size[r.lrid];
        const unsigned aw = 8u << r.size;
        const unsigned resp = unsigned(rd.get(2));
        if (resp == 0) {
            r.error = true;
            break;
        }
        r.data = data_of(mode_of(resp), len_data(aw, r.size), r.size, aw, e);
        break;
    }
    case kFmtCsr: {
        r.kind = Kind::Csr;
        r.size = p_.csr_width == 64 ? 3 : 2;
        r.subtype = unsigned(rd.get(p_.no_data ? kCsrAddrOnlySubtypeBits : 2));
        if (r.subtype >= 3) return Err::Reserved;
        const unsigned cw = p_.csr_width, lb = cw == 64 ? 3 : 2;
        if (p_.no_data) { // Table 39
            r.addr = rd.get(6) << 6;
            r.addr |= rd.get(6);
            break;
        }
        bool reserved;
        DMode m = data_only_mode(p_, unsigned(rd.get(p_.data_diff_bits())), reserved);
        if (reserved) return Err::Reserved;
        const uint64_t v = len_data(cw, lb);
        if (m != DMode::Full && !st_.csr_valid) e = Err::NoSync;
        r.data = apply(m, v, st_.csr_data, cw);
        st_.csr_data = r.data, st_.csr_valid = true;
        r.addr = rd.get(6) << 6;
        if ((r.addr >> 10) != 3) r.operand = len_data(cw, lb);
        r.addr |= rd.get(6);
        break;
    }
    default: return Err::Reserved;
    }
    return e;
}

// ---- text ----------------------------------------------------------------------------
namespace {
const char *const kKindNames[] = {"load", "store", "amo", "sc_fail", "csr", "split_load_addr",
                                  "split_load_data", "split_amo_addr", "split_amo_data", "sync", "support"};
}

std::string format_record(const Record &r) {
    std::ostringstream s;
    s << kKindNames[unsigned(r.kind)] << std::hex;
    switch (r.kind) {
    case Kind::Sync: break;
    case Kind::Support:
        s << " ienable=" << r.ienable << " qual_status=" << r.qual_status << " ioptions=0x" << r.ioptions
          << " denable=" << r.denable << " dloss=" << r.dloss;
        break;
    case Kind::Csr:
        s << " op=" << r.subtype << " csr=0x" << r.addr << " data=0x" << r.data;
        if ((r.addr >> 10) != 3) s << " operand=0x" << r.operand;
        break;
    default:
        if (r.kind != Kind::SplitAtomicData) s << " size=" << r.size;
        if (r.kind == Kind::Atomic || r.kind == Kind::SplitAtomicAddr) s << " op=" << r.subtype;
        if (r.kind >= Kind::SplitLoadAddr) s << " lrid=" << r.lrid;
        if (r.kind != Kind::SplitLoadData && r.kind != Kind::SplitAtomicData) s << " addr=0x" << r.addr;
        if (r.error) s << " error";
        else if (r.kind != Kind::ScFail && r.kind != Kind::SplitLoadAddr && r.kind != Kind::SplitAtomicAddr)
            s << " data=0x" << r.data;
        if (r.kind == Kind::Atomic || r.kind == Kind::SplitAtomicAddr) s << " operand=0x" << r.operand;
        break;
    }
    return s.str();
}

bool parse_record(const std::string &line, Record &r, std::string &err) {
    r = Record{};
    std::istringstream in(line);
    std::string kind, tok;
    in >> kind;
    bool found = false;
    for (unsigned i = 0; i < std::size(kKindNames); i++)
        if (kind == kKindNames[i]) r.kind = Kind(i), found = true;
    if (!found) {
        err = "unknown record kind '" + kind + "'";
        return false;
    }
    while (in >> tok) {
        if (tok == "error") {
            r.error = true;
            continue;
        }
        const size_t eq = tok.find('=');
        if (eq == std::string::npos) {
            err = "expected key=value, got '" + tok + "'";
            return false;
        }
        const std::string k = tok.substr(0, eq), v = tok.substr(eq + 1);
        char *end = nullptr;
        const uint64_t x = strtoull(v.c_str(), &end, 16);
        if (v.empty() || *end) {
            err = "bad number in '" + tok + "'";
            return false;
        }
        if (k == "size") r.size = unsigned(x);
        else if (k == "addr" || k == "csr") r.addr = x;
        else if (k == "data") r.data = x;
        else if (k == "operand") r.operand = x;
        else if (k == "op") r.subtype = unsigned(x);
        else if (k == "lrid") r.lrid = unsigned(x);
        else if (k == "ienable") r.ienable = x;
        else if (k == "qual_status") r.qual_status = unsigned(x);
        else if (k == "ioptions") r.ioptions = unsigned(x);
        else if (k == "denable") r.denable = x;
        else if (k == "dloss") r.dloss = x;
        else {
            err = "unknown key '" + k + "'";
            return false;
        }
    }
    if (r.size > 3) {
        err = "size must be 0..3";
        return false;
    }
    return true;
}

int cli_main(const std::vector<std::string> &pos, const std::vector<std::pair<std::string, std::string>> &opts) {
    Params p;
    std::string out_path;
    for (auto &o : opts) {
        char *end = nullptr;
        unsigned long v = strtoul(o.second.c_str(), &end, 0);
        if (o.first == "--data-width") p.data_width = unsigned(v);
        else if (o.first == "--daddress-width") p.daddress_width = unsigned(v);
        else if (o.first == "--lrid-width") p.lrid_width = unsigned(v);
        else if (o.first == "--no-compress") p.compress = 0;
        else if (o.first == "--compress") p.compress = unsigned(v);
        else if (o.first == "--csr-width") p.csr_width = unsigned(v);
        else if (o.first == "--split") p.split = true;
        else if (o.first == "--unified-only") p.unified_only = true;
        else if (o.first == "--no-addr") p.no_addr = true;
        else if (o.first == "--no-data") p.no_data = true;
        else if (o.first == "-o") out_path = o.second;
    }
    if (!p.valid()) return fprintf(stderr, "tsbi-trace: invalid E-Trace parameters\n"), 2;
    std::vector<uint8_t> in;
    const std::string path = pos.size() > 2 ? pos[2] : "-";
    if (path == "-") {
        in.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    } else {
        std::ifstream f(path, std::ios::binary);
        if (!f) return fprintf(stderr, "tsbi-trace: cannot read %s\n", path.c_str()), 3;
        in.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    }
    FILE *out = out_path.empty() || out_path == "-" ? stdout : fopen(out_path.c_str(), "wb");
    if (!out) return 3;
    int rc = 0;
    if (pos[1] == "dump") {
        Decoder d(p);
        size_t off = 0;
        while (off < in.size()) {
            const size_t at = off;
            unsigned type;
            std::span<const uint8_t> pl;
            if (!next_packet(in, off, type, pl)) {
                fprintf(stderr, "tsbi-trace: bad packet header at offset %zu\n", at);
                rc = 1;
                break;
            }
            Record r;
            Err e = d.decode(type, pl, r);
            if (e != Err::None && e != Err::NoSync && e != Err::UnknownLrid) {
                fprintf(out, "# offset %zu: %s\n", at, err_name(e));
                rc = 1;
                continue;
            }
            if (e != Err::None) {
                fprintf(out, "# offset %zu: %s\n", at, err_name(e));
                rc = 1;
            }
            fprintf(out, "%s\n", format_record(r).c_str());
        }
    } else if (pos[1] == "encode") {
        Encoder e(p);
        std::vector<uint8_t> bytes;
        std::string text(in.begin(), in.end()), line, err;
        std::istringstream ls(text);
        size_t n = 0;
        while (std::getline(ls, line)) {
            n++;
            if (line.empty() || line[0] == '#') continue;
            Record r;
            if (!parse_record(line, r, err) || !e.encode(r, bytes)) {
                fprintf(stderr, "tsbi-trace: line %zu: %s\n", n, err.empty() ? "record not encodable with these parameters" : err.c_str());
                rc = 1;
                break;
            }
        }
        if (!rc && fwrite(bytes.data(), 1, bytes.size(), out) != bytes.size()) rc = 3;
    } else {
        fprintf(stderr, "tsbi-trace: unknown etrace command %s\n", pos[1].c_str());
        rc = 2;
    }
    if (out != stdout) fclose(out);
    return rc;
}

} // namespace etrace
