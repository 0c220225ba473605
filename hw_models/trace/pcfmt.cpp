// SPDX-License-Identifier: BSD-2-Clause
// PC-only and PC-info text formats (see pcfmt.hpp).
#include "pcfmt.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>

namespace trace {

namespace {
// Hex digit values (0xFF: not a digit): the PC text is read a character at a time.
constexpr struct HexVal {
    uint8_t v[256];
    constexpr HexVal() : v() {
        for (auto &x : v) x = 0xFF;
        for (int i = 0; i < 10; i++) v['0' + i] = uint8_t(i);
        for (int i = 0; i < 6; i++) v['a' + i] = v['A' + i] = uint8_t(10 + i);
    }
} kHexVal;

bool parse_hex(std::string_view &s, uint64_t &v) {
    const char *p = s.data();
    const size_t n = s.size();
    size_t i = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\t')) i++;
    if (n - i >= 2 && p[i] == '0' && (p[i + 1] == 'x' || p[i + 1] == 'X')) i += 2;
    const size_t first = i;
    uint64_t x = 0;
    for (uint8_t d; i < n && (d = kHexVal.v[uint8_t(p[i])]) < 16; i++) x = x << 4 | d;
    if (i == first || i - first > 16) return false;
    v = x;
    s.remove_prefix(i);
    return true;
}
template <typename F> bool for_lines(std::string_view text, size_t &err_line, F f) {
    size_t line = 0;
    while (!text.empty()) {
        size_t e = text.find('\n');
        std::string_view l = text.substr(0, e);
        text.remove_prefix(e == std::string_view::npos ? text.size() : e + 1);
        line++;
        while (!l.empty() && (l.back() == '\r' || l.back() == ' ')) l.remove_suffix(1);
        if (l.empty() || l.front() == '#') continue;
        if (!f(l)) {
            err_line = line;
            return false;
        }
    }
    return true;
}
} // namespace

bool parse_pc_line(std::string_view l, uint64_t &v) { return parse_hex(l, v) && l.empty(); }

// The PC-info TYPE spellings (L, BN, BD, JD, JI, CD, CI, R) and the reference code's
// PC-sequence ones (NexRv -conv ... -pcseq: B, J and C without D are the taken direct
// branch, direct jump and direct call); canonical name to `out`, false if unknown.
static bool pcinfo_type(char c0, char c1, char out[3]) {
    static constexpr struct {
        char in[2];
        char name[3];
    } kTypes[] = {{{'L', 0}, "L"},     {{'R', 0}, "R"},     {{'B', 'N'}, "BN"}, {{'B', 'D'}, "BD"},
                  {{'B', 0}, "BD"},    {{'J', 'D'}, "JD"},  {{'J', 'I'}, "JI"}, {{'J', 0}, "JD"},
                  {{'C', 'D'}, "CD"},  {{'C', 'I'}, "CI"},  {{'C', 0}, "CD"}};
    for (const auto &t : kTypes)
        if (t.in[0] == c0 && t.in[1] == c1) {
            memcpy(out, t.name, 3);
            return true;
        }
    return false;
}

bool parse_pcinfo_line(std::string_view l, PcInfo &p) {
    p.size = 4, p.dest = 0, p.has_dest = false;
    if (!parse_hex(l, p.addr) || l.empty() || l.front() != ',') return false;
    l.remove_prefix(1);
    size_t n = 0;
    while (n < l.size() && n < 2 && l[n] >= 'A' && l[n] <= 'Z') n++;
    if (n == 0 || !pcinfo_type(l[0], n == 2 ? l[1] : 0, p.type)) return false;
    l.remove_prefix(n);
    if (l.empty() || (l.front() != '2' && l.front() != '4')) return false;
    p.size = uint8_t(l.front() - '0');
    l.remove_prefix(1);
    if (!l.empty()) {
        if (l.front() != ',') return false;
        l.remove_prefix(1);
        if (!parse_hex(l, p.dest) || !l.empty()) return false;
        p.has_dest = true;
    }
    return true;
}

bool parse_pc_list(std::string_view text, std::vector<uint64_t> &out, size_t &err_line) {
    return for_lines(text, err_line, [&](std::string_view l) {
        uint64_t v;
        if (!parse_pc_line(l, v)) return false;
        out.push_back(v);
        return true;
    });
}

bool parse_pcinfo(std::string_view text, std::vector<PcInfo> &out, size_t &err_line) {
    return for_lines(text, err_line, [&](std::string_view l) {
        PcInfo p;
        if (!parse_pcinfo_line(l, p)) return false;
        out.push_back(p);
        return true;
    });
}

void LineReader::refill() {
    // Keep the unread part, read the next chunk after it.
    buf_.erase(0, pos_);
    pos_ = 0;
    const size_t have = buf_.size();
    buf_.resize(have + kChunk);
    const size_t got = fread(buf_.data() + have, 1, kChunk, f_);
    buf_.resize(have + got);
    if (got < kChunk) eof_ = true, error_ = ferror(f_) != 0;
}

bool LineReader::next(std::string_view &l) {
    for (;;) {
        size_t e = buf_.find('\n', pos_);
        if (e == std::string::npos && !eof_) {
            refill();
            continue;
        }
        if (e == std::string::npos && pos_ >= buf_.size()) return false;
        const size_t end = e == std::string::npos ? buf_.size() : e;
        l = std::string_view(buf_).substr(pos_, end - pos_);
        pos_ = end + 1;
        line_++;
        while (!l.empty() && (l.back() == '\r' || l.back() == ' ')) l.remove_suffix(1);
        if (l.empty() || l.front() == '#') continue;
        return true;
    }
}

namespace {
// Hex digits at q (at most 16; the buffer's terminating NUL stops the scan).
const char *hex_digits(const char *q, uint64_t &v) {
    const char *first = q;
    uint64_t x = 0;
    for (uint8_t d; (d = kHexVal.v[uint8_t(*q)]) < 16; q++) x = x << 4 | d;
    if (q == first || q - first > 16) return nullptr;
    v = x;
    return q;
}
} // namespace

int LineReader::next_pcinfo(PcInfo &p) {
    // A whole line is in the buffer unless it is longer than kFastLine (then, or for
    // any other spelling, the general path below).
    if (buf_.size() - pos_ < kFastLine && !eof_) refill();
    const char *q = buf_.c_str() + pos_;
    if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X') && (q = hex_digits(q + 2, p.addr)) && *q == ',') {
        const char c0 = q[1], c1 = q[2] >= 'A' && q[2] <= 'Z' ? q[2] : 0;
        q += c1 ? 3 : 2;
        if ((*q == '2' || *q == '4') && pcinfo_type(c0, c1, p.type)) {
            p.size = uint8_t(*q++ - '0');
            p.has_dest = *q == ',';
            p.dest = 0;
            if (p.has_dest && !(q[1] == '0' && (q[2] == 'x' || q[2] == 'X') && (q = hex_digits(q + 3, p.dest))))
                q = nullptr;
            if (q && *q == '\r') q++;
            if (q && *q == '\n') {
                pos_ = size_t(q + 1 - buf_.c_str());
                line_++;
                return 1;
            }
        }
    }
    std::string_view l;
    if (!next(l)) return 0;
    return parse_pcinfo_line(l, p) ? 1 : -1;
}

namespace {
// Eight nibbles to eight ASCII hex digits at once, most significant first.
uint64_t hex8(uint32_t v) {
    uint64_t x = v;
    x = (x & 0xFFFF0000ull) << 16 | (x & 0xFFFFull);
    x = (x & 0x0000FF000000FF00ull) << 8 | (x & 0x000000FF000000FFull);
    x = (x & 0x00F000F000F000F0ull) << 4 | (x & 0x000F000F000F000Full);
    // Nibbles 10..15: 7 more to reach 'A' from '0' + 10.
    const uint64_t letters = ((x + 0x0606060606060606ull) >> 4) & 0x0101010101010101ull;
    return __builtin_bswap64(x + 0x3030303030303030ull + letters * 7);
}
} // namespace

const char LineWriter::kPairs[256][2] = {
#define P(h) {"0123456789ABCDEF"[(h) >> 4], "0123456789ABCDEF"[(h) & 15]}
#define P16(h) P(h), P(h + 1), P(h + 2), P(h + 3), P(h + 4), P(h + 5), P(h + 6), P(h + 7), P(h + 8), P(h + 9), \
    P(h + 10), P(h + 11), P(h + 12), P(h + 13), P(h + 14), P(h + 15)
    P16(0x00), P16(0x10), P16(0x20), P16(0x30), P16(0x40), P16(0x50), P16(0x60), P16(0x70),
    P16(0x80), P16(0x90), P16(0xA0), P16(0xB0), P16(0xC0), P16(0xD0), P16(0xE0), P16(0xF0)
#undef P16
#undef P
};

char *LineWriter::put_hex(char *p, uint64_t v) {
    const unsigned nd = v ? unsigned(67 - std::countl_zero(v)) / 4 : 1;
    *p++ = '0', *p++ = 'x';
    if (nd <= 8) {
        const uint64_t lo = hex8(uint32_t(v) << (32 - 4 * nd));
        memcpy(p, &lo, 8);
        return p + nd;
    }
    const uint64_t hi = hex8(uint32_t(v >> 32) << (64 - 4 * nd)), lo = hex8(uint32_t(v));
    memcpy(p, &hi, 8), memcpy(p + nd - 8, &lo, 8);
    return p + nd;
}

void LineWriter::pcinfo(const PcInfo &p) {
    char *o = put_hex(room(), p.addr);
    *o++ = ',';
    for (const char *t = p.type; *t;) *o++ = *t++;
    *o++ = char('0' + p.size);
    if (p.has_dest) *o++ = ',', o = put_hex(o, p.dest);
    *o++ = '\n';
    len_ = size_t(o - buf_.data());
}

void LineWriter::text(const char *s, size_t n) {
    if (len_ + n > kBuf) flush();
    if (n > kBuf) {
        error_ |= fwrite(s, 1, n, f_) != n;
        return;
    }
    memcpy(buf_.data() + len_, s, n);
    len_ += n;
}

bool LineWriter::flush() {
    if (len_) error_ |= fwrite(buf_.data(), 1, len_, f_) != len_;
    len_ = 0;
    return !error_;
}

std::string format_pc_list(const std::vector<uint64_t> &pcs) {
    std::string s;
    s.reserve(pcs.size() * 12);
    char b[32];
    for (uint64_t a : pcs) {
        int n = snprintf(b, sizeof b, "0x%llX\n", (unsigned long long)a);
        s.append(b, size_t(n));
    }
    return s;
}

std::string format_pcinfo(const std::vector<PcInfo> &v) {
    std::string s;
    char b[64];
    for (const PcInfo &p : v) {
        int n = p.has_dest ? snprintf(b, sizeof b, "0x%llX,%s%u,0x%llX\n", (unsigned long long)p.addr,
                                      p.type, p.size, (unsigned long long)p.dest)
                           : snprintf(b, sizeof b, "0x%llX,%s%u\n", (unsigned long long)p.addr, p.type,
                                      p.size);
        s.append(b, size_t(n));
    }
    return s;
}

PcInfo pcinfo_one(const Image &img, uint64_t pc, bool have_next, uint64_t next) {
    PcInfo p;
    p.addr = pc;
    const rv::Insn *in = img.at(pc);
    if (!in) return p;
    p.size = in->size;
    const uint64_t target = pc + uint64_t(int64_t(in->offset));
    auto set = [&](const char *t, bool dest) {
        strcpy(p.type, t);
        p.has_dest = dest, p.dest = dest ? target : 0;
    };
    switch (in->kind) {
    case rv::Kind::Branch:
        if (have_next && next == target && in->offset != in->size) set("BD", true);
        else set("BN", false);
        break;
    case rv::Kind::DirectJump: set(in->pushes() ? "CD" : "JD", true); break;
    case rv::Kind::TableJump: set(in->pushes() ? "CI" : "JI", false); break; // target from the table
    case rv::Kind::Indirect: set(in->itype == NT_ITYPE_RETURN ? "R" : in->pushes() ? "CI" : "JI", false); break;
    case rv::Kind::TrapReturn: set("JI", false); break;
    default: set("L", false); break;
    }
    return p;
}

std::vector<PcInfo> pcinfo_from_pcs(const Image &img, const std::vector<uint64_t> &pcs) {
    std::vector<PcInfo> out;
    out.reserve(pcs.size());
    for (size_t i = 0; i < pcs.size(); i++)
        out.push_back(pcinfo_one(img, pcs[i], i + 1 < pcs.size(), i + 1 < pcs.size() ? pcs[i + 1] : 0));
    return out;
}

uint8_t pcinfo_itype(const PcInfo &p) {
    const char *t = p.type;
    switch (t[0]) {
    case 'B':
        if (t[1] == 'N' && !t[2]) return NT_ITYPE_BRANCH_NOT_TAKEN;
        if (t[1] == 'D' && !t[2]) return NT_ITYPE_BRANCH_TAKEN;
        break;
    case 'J':
        if (t[1] == 'D' && !t[2]) return NT_ITYPE_DIRECT_JUMP_NOLINK;
        if (t[1] == 'I' && !t[2]) return NT_ITYPE_INDIRECT_JUMP_NOLINK;
        break;
    case 'C':
        if (t[1] == 'D' && !t[2]) return NT_ITYPE_DIRECT_CALL;
        if (t[1] == 'I' && !t[2]) return NT_ITYPE_INDIRECT_CALL;
        break;
    case 'R':
        if (!t[1]) return NT_ITYPE_RETURN;
        break;
    default: break;
    }
    return NT_ITYPE_NONE;
}

namespace {
// RISC-V instruction fields (unprivileged ISA chapters 2.3 and 16.2).
constexpr uint32_t kOpBranch = 0x63, kOpJal = 0x6F, kOpJalr = 0x67, kNop = 0x13, kCNop = 0x0001;
constexpr unsigned kRa = 1, kT1 = 6; // t1: a register jump that is neither call nor return
uint32_t bit(int64_t v, unsigned from, unsigned to) { return uint32_t(uint64_t(v) >> from & 1) << to; }
uint32_t btype(int64_t off) { // bne x0, x1, off
    uint32_t i = kOpBranch | 1u << 12 | kRa << 20;
    for (unsigned b = 1; b <= 4; b++) i |= bit(off, b, 7 + b);
    for (unsigned b = 5; b <= 10; b++) i |= bit(off, b, 20 + b);
    return i | bit(off, 11, 7) | bit(off, 12, 31);
}
uint32_t jtype(int64_t off, unsigned rd) {
    uint32_t i = kOpJal | rd << 7;
    for (unsigned b = 1; b <= 10; b++) i |= bit(off, b, 20 + b);
    for (unsigned b = 12; b <= 19; b++) i |= bit(off, b, b);
    return i | bit(off, 11, 20) | bit(off, 20, 31);
}
uint32_t cbtype(int64_t off) { // c.bnez s0, off
    uint32_t i = 0xE001;
    i |= bit(off, 1, 3) | bit(off, 2, 4) | bit(off, 5, 2) | bit(off, 6, 5) | bit(off, 7, 6);
    return i | bit(off, 3, 10) | bit(off, 4, 11) | bit(off, 8, 12);
}
uint32_t cjtype(int64_t off, bool link) { // c.j / c.jal (RV32)
    uint32_t i = link ? 0x2001 : 0xA001;
    i |= bit(off, 5, 2) | bit(off, 1, 3) | bit(off, 2, 4) | bit(off, 3, 5) | bit(off, 7, 6) | bit(off, 6, 7);
    return i | bit(off, 10, 8) | bit(off, 8, 9) | bit(off, 9, 10) | bit(off, 4, 11) | bit(off, 11, 12);
}
} // namespace

bool code_from_pcinfo(const std::vector<PcInfo> &v, const rv::Options &o, uint64_t &base, std::vector<uint8_t> &bytes,
                      std::string &err) {
    if (v.empty()) return err = "empty PC-info", false;
    uint64_t lo = ~0ull, hi = 0;
    for (const PcInfo &p : v) lo = std::min(lo, p.addr), hi = std::max(hi, p.addr + p.size);
    if (hi - lo > (64u << 20)) return err = "PC-info spans more than 64 MiB", false;
    base = lo;
    bytes.assign(hi - lo, 0);
    std::vector<bool> used(hi - lo);
    char where[64];
    for (const PcInfo &p : v) {
        snprintf(where, sizeof where, " at 0x%llX", (unsigned long long)p.addr);
        const int64_t off = int64_t(p.dest - p.addr);
        const uint8_t it = pcinfo_itype(p);
        const bool c = p.size == 2;
        uint32_t i;
        switch (it) {
        case NT_ITYPE_NONE: i = c ? kCNop : kNop; break;
        case NT_ITYPE_BRANCH_TAKEN:
        case NT_ITYPE_BRANCH_NOT_TAKEN: i = c ? cbtype(off) : btype(off); break;
        case NT_ITYPE_DIRECT_JUMP_NOLINK: i = c ? cjtype(off, false) : jtype(off, 0); break;
        case NT_ITYPE_DIRECT_CALL: i = c ? cjtype(off, true) : jtype(off, kRa); break;
        case NT_ITYPE_INDIRECT_JUMP_NOLINK: i = c ? 0x8002 | kT1 << 7 : kOpJalr | kT1 << 15; break;
        case NT_ITYPE_INDIRECT_CALL: i = c ? 0x9002 | kT1 << 7 : kOpJalr | kRa << 7 | kT1 << 15; break;
        default: i = c ? 0x8002 | kRa << 7 : kOpJalr | kRa << 15; break; // return
        }
        // The instruction must classify as the line says (this also catches a DEST out
        // of the instruction's reach: its offset would come out different).
        const rv::Insn in = rv::classify(i, o);
        const bool direct = it == NT_ITYPE_BRANCH_TAKEN || it == NT_ITYPE_BRANCH_NOT_TAKEN ||
                            it == NT_ITYPE_DIRECT_JUMP_NOLINK || it == NT_ITYPE_DIRECT_CALL;
        if (direct && !p.has_dest) return err = std::string("direct transfer without DEST") + where, false;
        const rv::Kind want = it == NT_ITYPE_NONE                                              ? rv::Kind::Linear
                              : it == NT_ITYPE_BRANCH_TAKEN || it == NT_ITYPE_BRANCH_NOT_TAKEN ? rv::Kind::Branch
                              : direct                                                         ? rv::Kind::DirectJump
                                                                                               : rv::Kind::Indirect;
        const bool call = it == NT_ITYPE_DIRECT_CALL || it == NT_ITYPE_INDIRECT_CALL;
        if (in.size != p.size || in.kind != want || (direct && in.offset != off) || in.pushes() != call ||
            in.pops() != (it == NT_ITYPE_RETURN))
            return err = std::string("no ") + p.type + char('0' + p.size) + " instruction can say this" + where,
                   false;
        const uint64_t at = p.addr - lo;
        for (unsigned k = 0; k < p.size; k++) {
            if (used[at + k]) return err = std::string("overlapping lines") + where, false;
            used[at + k] = true;
            bytes[at + k] = uint8_t(i >> 8 * k);
        }
    }
    return true;
}

void PcInfoFeeder::feed(const PcInfo &next) {
    if (!have_) {
        e_.start(next.addr);
    } else {
        step(next.addr);
    }
    pend_ = next, have_ = true;
}

void PcInfoFeeder::step(uint64_t next) {
    const PcInfo &p = pend_;
    const uint8_t it = pcinfo_itype(p);
    const bool indirect = it == NT_ITYPE_INDIRECT_JUMP_NOLINK || it == NT_ITYPE_INDIRECT_CALL ||
                          it == NT_ITYPE_RETURN;
    e_.retire(p.addr, p.size, itype4_ ? it : rv::itype3(it));
    // Direct taken transfers go to DEST; a PC-sequence line (no DEST) names the kind
    // only, and the next line is its target.
    const bool taken_direct = it == NT_ITYPE_BRANCH_TAKEN || it == NT_ITYPE_DIRECT_JUMP_NOLINK ||
                              it == NT_ITYPE_DIRECT_CALL;
    const uint64_t expect = p.has_dest && it != NT_ITYPE_BRANCH_NOT_TAKEN ? p.dest
                            : !p.has_dest && taken_direct                ? next
                                                                         : p.addr + p.size;
    // A discontinuity the instruction does not explain is an exception or interrupt
    // taken before the next instruction retired.
    if (!indirect && next != expect) e_.trap(expect, next, false);
}

void PcInfoFeeder::finish() {
    if (!have_) return;
    const PcInfo &l = pend_;
    const uint8_t it = pcinfo_itype(l);
    e_.retire(l.addr, l.size, itype4_ ? it : rv::itype3(it));
    e_.stop(l.has_dest ? l.dest : l.addr + l.size);
    have_ = false;
}

void encode_pcinfo(const std::vector<PcInfo> &v, ntrace::Encoder &e, bool itype4) {
    PcInfoFeeder f(e, itype4);
    for (const PcInfo &p : v) f.feed(p);
    f.finish();
}

} // namespace trace
