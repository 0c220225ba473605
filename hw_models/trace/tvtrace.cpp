// SPDX-License-Identifier: BSD-2-Clause
// Tandem-verification trace protocol codec, dump and comparer (see tvtrace.hpp).
#include "tvtrace.hpp"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <algorithm>

namespace tv {

namespace {
uint64_t get_le(std::span<const uint8_t> b, size_t off, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n && i < 8; i++) v |= uint64_t(b[off + i]) << (8 * i);
    return v;
}
void put_le(std::vector<uint8_t> &o, uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; i++) o.push_back(i < 8 ? uint8_t(v >> (8 * i)) : 0);
}
bool req_has_data(uint8_t op) { return op == Store || op == Sc || (op >= AmoFirst && op <= AmoLast); }
bool rsp_has_data(uint8_t op) { return !(op == Store || op == Sc); }
unsigned reg_bytes(const Params &p, uint16_t a) { return (is_fpr(a) ? p.flen : p.xlen) / 8; }
// Payload bytes of additional state identifier, 0 if unknown.
unsigned state_bytes(const Params &p, uint8_t id) {
    switch (id) {
    case Priv: return 1;
    case PAddr:
    case EAddr:
    case PcPAddr: return p.mlen / 8;
    case StoreData8: return 1;
    case StoreData16: return 2;
    case StoreData32: return 4;
    case StoreData64: return 8;
    case MTime: return 8;
    case Pc:
    case PcAppendixC: return p.xlen / 8;
    default: return 0;
    }
}
} // namespace

const char *err_name(Err e) {
    switch (e) {
    case Err::None: return "none";
    case Err::UnknownOpcode: return "unknown opcode";
    case Err::Truncated: return "trace ends inside an item";
    case Err::UnknownStateId: return "unknown additional state identifier";
    case Err::BadMemSize: return "memory size code above 3";
    case Err::OrphanResponse: return "memory response without a request before it";
    case Err::GroupTooLong: return "group of more than 65536 items";
    case Err::ReadError: return "read error";
    }
    return "?";
}

Err decode_item(const Params &p, std::span<const uint8_t> b, size_t off, const Item *prev, Item &it) {
    it = Item{};
    it.op = b[off];
    it.offset = off;
    size_t pos = off + 1;
    auto need = [&](size_t n) { return b.size() - pos >= n; };
    switch (it.op) {
    case BeginGroup:
    case EndGroup:
    case IncPc:
    case Reset:
    case StateInit: break;
    case FullReg: {
        if (!need(2)) return Err::Truncated;
        it.reg = uint16_t(get_le(b, pos, 2));
        pos += 2;
        unsigned n = reg_bytes(p, it.reg);
        if (!need(n)) return Err::Truncated;
        it.value = get_le(b, pos, n);
        pos += n;
        break;
    }
    case IncRegAdd:
    case IncRegOr:
        if (!need(3)) return Err::Truncated;
        it.reg = uint16_t(get_le(b, pos, 2));
        it.value = b[pos + 2];
        pos += 3;
        break;
    case State: {
        if (!need(1)) return Err::Truncated;
        it.id = b[pos++];
        unsigned n = state_bytes(p, it.id);
        if (!n) return Err::UnknownStateId;
        if (!need(n)) return Err::Truncated;
        it.value = get_le(b, pos, n);
        pos += n;
        break;
    }
    case MemReq: {
        const unsigned n = p.mlen / 8;
        if (!need(n + 1)) return Err::Truncated;
        it.addr = get_le(b, pos, n);
        pos += n;
        it.mem_op = b[pos] & 0xF, it.mem_size = b[pos] >> 4;
        pos++;
        if (it.mem_size > 3) return Err::BadMemSize;
        if (req_has_data(it.mem_op)) {
            unsigned d = 1u << it.mem_size;
            if (!need(d)) return Err::Truncated;
            it.data = get_le(b, pos, d), it.has_data = true;
            pos += d;
        }
        break;
    }
    case MemRsp: {
        if (!prev) return Err::OrphanResponse;
        if (!need(1)) return Err::Truncated;
        it.mem_size = b[pos] & 0xF, it.mem_result = b[pos] >> 4;
        pos++;
        if (it.mem_size > 3) return Err::BadMemSize;
        it.mem_op = prev->mem_op;
        if (rsp_has_data(prev->mem_op)) {
            unsigned d = 1u << it.mem_size;
            if (!need(d)) return Err::Truncated;
            it.data = get_le(b, pos, d), it.has_data = true;
            pos += d;
        }
        break;
    }
    case Instr16:
        if (!need(2)) return Err::Truncated;
        it.value = get_le(b, pos, 2), pos += 2;
        break;
    case Instr32:
        if (!need(4)) return Err::Truncated;
        it.value = get_le(b, pos, 4), pos += 4;
        break;
    default: return Err::UnknownOpcode;
    }
    it.length = unsigned(pos - off);
    return Err::None;
}

Err decode_all(const Params &p, std::span<const uint8_t> b, std::vector<Item> &out, size_t &err_off) {
    const Item *req = nullptr;
    size_t req_idx = SIZE_MAX;
    for (size_t off = 0; off < b.size();) {
        Item it;
        if (req_idx != SIZE_MAX) req = &out[req_idx];
        Err e = decode_item(p, b, off, req, it);
        if (e != Err::None) {
            err_off = off;
            return e;
        }
        // A response must immediately follow its request.
        req_idx = it.op == MemReq ? out.size() : SIZE_MAX;
        req = nullptr;
        out.push_back(it);
        off += it.length;
    }
    return Err::None;
}

void encode_item(const Params &p, const Item &it, std::vector<uint8_t> &o) {
    o.push_back(it.op);
    switch (it.op) {
    case FullReg:
        put_le(o, it.reg, 2);
        put_le(o, it.value, reg_bytes(p, it.reg));
        break;
    case IncRegAdd:
    case IncRegOr:
        put_le(o, it.reg, 2);
        o.push_back(uint8_t(it.value));
        break;
    case State:
        o.push_back(it.id);
        put_le(o, it.value, state_bytes(p, it.id));
        break;
    case MemReq:
        put_le(o, it.addr, p.mlen / 8);
        o.push_back(uint8_t(it.mem_op | it.mem_size << 4));
        if (req_has_data(it.mem_op)) put_le(o, it.data, 1u << it.mem_size);
        break;
    case MemRsp:
        o.push_back(uint8_t(it.mem_size | it.mem_result << 4));
        if (rsp_has_data(it.mem_op)) put_le(o, it.data, 1u << it.mem_size);
        break;
    case Instr16: put_le(o, it.value, 2); break;
    case Instr32: put_le(o, it.value, 4); break;
    default: break;
    }
}

std::string reg_name(uint16_t a) {
    char b[32];
    if (a >= 0x1000 && a <= 0x101F) snprintf(b, sizeof b, "x%u", a - 0x1000);
    else if (is_fpr(a)) snprintf(b, sizeof b, "f%u", a - 0x1020);
    else if (a <= 0xFFF) snprintf(b, sizeof b, "csr 0x%03x", a);
    else snprintf(b, sizeof b, "reg 0x%04x", a);
    return b;
}

std::string dump_item(const Params &, std::span<const uint8_t> b, const Item &it) {
    static const char *const mem_ops[] = {"load", "store", "lr", "sc", "amoswap", "amoadd", "amoxor",
                                          "amoand", "amoor", "amomin", "amomax", "amominu", "amomaxu",
                                          "fetch"};
    static const char *const ids[] = {"?", "privilege mode", "physical address", "effective address",
                                      "store data 8", "store data 16", "store data 32", "store data 64",
                                      "mtime", "pc physical address", "pc"};
    std::string s;
    char buf[160];
    snprintf(buf, sizeof buf, "%08llx:", (unsigned long long)it.offset);
    s += buf;
    for (unsigned i = 0; i < it.length; i++) {
        snprintf(buf, sizeof buf, " %02x", b[it.offset + i]);
        s += buf;
    }
    s += "  ";
    const char *mop = it.mem_op < 14 ? mem_ops[it.mem_op] : "reserved";
    switch (it.op) {
    case BeginGroup: s += "begin group"; break;
    case EndGroup: s += "end group"; break;
    case IncPc: s += "increment pc"; break;
    case FullReg:
        snprintf(buf, sizeof buf, "full register %s = 0x%llx", reg_name(it.reg).c_str(), (unsigned long long)it.value);
        s += buf;
        break;
    case IncRegAdd:
        snprintf(buf, sizeof buf, "incremental register %s += %d", reg_name(it.reg).c_str(), int(int8_t(it.value)));
        s += buf;
        break;
    case IncRegOr:
        snprintf(buf, sizeof buf, "incremental register %s |= 0x%02llx", reg_name(it.reg).c_str(), (unsigned long long)it.value);
        s += buf;
        break;
    case State:
        snprintf(buf, sizeof buf, "additional state %s = 0x%llx",
                 it.id == PcAppendixC ? "pc" : it.id <= Pc ? ids[it.id] : "?", (unsigned long long)it.value);
        s += buf;
        break;
    case MemReq:
        snprintf(buf, sizeof buf, "memory request %s size %u addr 0x%llx", mop, 8u << it.mem_size,
                 (unsigned long long)it.addr);
        s += buf;
        if (it.has_data) snprintf(buf, sizeof buf, " data 0x%llx", (unsigned long long)it.data), s += buf;
        break;
    case MemRsp:
        snprintf(buf, sizeof buf, "memory response size %u %s", 8u << it.mem_size,
                 it.mem_result == 0 ? "success" : it.mem_result == 1 ? "failure" : "reserved-result");
        s += buf;
        if (it.has_data) snprintf(buf, sizeof buf, " data 0x%llx", (unsigned long long)it.data), s += buf;
        break;
    case Reset: s += "hart reset"; break;
    case StateInit: s += "state initialization"; break;
    case Instr16: snprintf(buf, sizeof buf, "16-bit instruction 0x%04llx", (unsigned long long)it.value), s += buf; break;
    case Instr32: snprintf(buf, sizeof buf, "32-bit instruction 0x%08llx", (unsigned long long)it.value), s += buf; break;
    default: s += "?"; break;
    }
    return s;
}

void Shadow::apply(const Params &p, const Item &it, const Item *req) {
    switch (it.op) {
    case FullReg: regs[it.reg] = it.value; break;
    case IncRegAdd: regs[it.reg] += uint64_t(int64_t(int8_t(it.value))); break;
    case IncRegOr: regs[it.reg] |= it.value; break;
    case State:
        if (it.id == Pc || it.id == PcAppendixC) {
            pc = it.value, pc_known = true;
        } else {
            state[it.id] = it.value;
        }
        break;
    case MemReq:
        if (it.has_data && (it.mem_op == Store))
            for (unsigned i = 0; i < (1u << it.mem_size); i++) mem[it.addr + i] = uint8_t(it.data >> (8 * i));
        break;
    case MemRsp:
        if (req && it.has_data && (req->mem_op == Load || req->mem_op == Fetch || req->mem_op == Lr))
            for (unsigned i = 0; i < (1u << it.mem_size); i++) mem[req->addr + i] = uint8_t(it.data >> (8 * i));
        break;
    case Reset:
        regs.clear(), state.clear(), pc_known = false;
        break;
    default: break;
    }
    (void)p;
}

// ---- streaming ------------------------------------------------------------------------

size_t FileSource::read(uint8_t *dst, size_t n) { return std::fread(dst, 1, n, f); }

size_t SpanSource::read(uint8_t *dst, size_t n) {
    const size_t k = std::min(n, b.size() - pos);
    std::copy(b.begin() + long(pos), b.begin() + long(pos + k), dst);
    pos += k;
    return k;
}

ItemStream::ItemStream(const Params &p, Source &s, size_t buffer)
    : p_(p), src_(s), buf_(std::max<size_t>(std::min(buffer, s.size_hint() < SIZE_MAX - 64 ? s.size_hint() + 16 : SIZE_MAX), 64)) {}

bool ItemStream::next(Item &it) {
    if (err_ != Err::None) return false;
    for (;;) {
        if (lo_ < hi_) {
            std::span<const uint8_t> w(buf_.data(), hi_);
            Err e = decode_item(p_, w, lo_, have_req_ ? &req_ : nullptr, it);
            // An item cut by the end of the buffer: read more unless the stream ended.
            if (e == Err::None || e != Err::Truncated || eof_) {
                if (e != Err::None) {
                    err_ = e, err_off_ = base_ + lo_;
                    return false;
                }
                it.offset += base_;
                lo_ += it.length;
                have_req_ = it.op == MemReq; // a response must follow its request at once
                if (have_req_) req_ = it;
                return true;
            }
        } else if (eof_) {
            return false;
        }
        // Keep the unread tail, fill the rest.
        std::copy(buf_.begin() + long(lo_), buf_.begin() + long(hi_), buf_.begin());
        base_ += lo_, hi_ -= lo_, lo_ = 0;
        const size_t got = src_.read(buf_.data() + hi_, buf_.size() - hi_);
        if (!got) eof_ = true;
        hi_ += got;
    }
}

namespace {
const char *const kStateNames[] = {"state 0", "privilege mode", "physical address", "effective address",
                                   "store data 8", "store data 16", "store data 32", "store data 64",
                                   "mtime", "pc physical address"};
constexpr size_t kMaxFields = 1 << 16; // a longer group is not an instruction's
std::string hex(uint64_t v) {
    char b[24];
    snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
    return b;
}
} // namespace

std::string field_name(uint32_t key) {
    const uint32_t sub = key & 0xFFFFFF;
    switch (FieldKind(key >> 24)) {
    case FNextPc: return sub ? "pc increment" : "next pc";
    case FInsn: return "instruction";
    case FReg: return reg_name(uint16_t(sub));
    case FState: return sub < std::size(kStateNames) ? kStateNames[sub] : "state " + std::to_string(sub);
    case FMemReq:
        return "memory request " + std::to_string(sub / 4) + (sub % 4 == 0 ? " address" : sub % 4 == 1 ? " op/size" : " data");
    case FMemRsp: return "memory response " + std::to_string(sub / 4) + (sub % 4 == 0 ? " size/result" : " data");
    case FReset: return "hart reset";
    case FStateInit: return "state initialization";
    }
    return "field " + hex(key);
}

std::string field_value(uint32_t key, uint64_t v) {
    if (key >> 24 == FInsn) {
        char b[24];
        snprintf(b, sizeof b, v >> 32 == 2 ? "0x%04llx" : "0x%08llx", (unsigned long long)(v & 0xFFFFFFFF));
        return b;
    }
    if (key >> 24 == FReset || key >> 24 == FStateInit) return "present";
    return hex(v);
}

std::string record_text(const Record &r) {
    std::string s = "#" + std::to_string(r.index) + " pc " + (r.pc_known ? hex(r.pc) : std::string("?")) + ":";
    std::string next;
    for (const Field &f : r.fields) {
        if (f.key == field_key(FNextPc, 0)) {
            next = " -> " + hex(f.value);
            continue;
        }
        s += ' ';
        s += field_name(f.key);
        if (f.key >> 24 != FReset && f.key >> 24 != FStateInit) s += '=' + field_value(f.key, f.value);
    }
    return s + next;
}

RecordStream::RecordStream(const Params &p, Source &s)
    : items_(p, s) {}

bool RecordStream::next(Record &r) {
    if (err_ != Err::None) return false;
    Item it;
    if (have_la_) {
        it = la_, have_la_ = false;
    } else if (!items_.next(it)) {
        return false;
    }
    r.index = index_++;
    r.offset = it.offset;
    r.pc = pc_, r.pc_known = pc_known_;
    r.fields.clear();
    bool inc = false, new_pc = false;
    uint64_t pc = 0;
    unsigned ilen = 0, nreq = 0, nrsp = 0;
    auto apply = [&](const Item &x) {
        switch (x.op) {
        case IncPc: inc = true; break;
        case Instr16:
        case Instr32:
            ilen = x.op == Instr16 ? 2 : 4;
            r.fields.push_back({field_key(FInsn, 0), x.value | uint64_t(ilen) << 32});
            break;
        case FullReg:
        case IncRegAdd:
        case IncRegOr: {
            if (!regs_) regs_.reset(new uint64_t[size_t(1) << 16]), reg_known_.resize(size_t(1) << 16);
            uint64_t &v = regs_[x.reg];
            if (!reg_known_[x.reg]) v = 0, reg_known_[x.reg] = true;
            v = x.op == FullReg ? x.value : x.op == IncRegOr ? v | x.value : v + uint64_t(int64_t(int8_t(x.value)));
            r.fields.push_back({field_key(FReg, x.reg), v});
            break;
        }
        case State:
            if (x.id == Pc || x.id == PcAppendixC) pc = x.value, new_pc = true;
            else r.fields.push_back({field_key(FState, x.id), x.value});
            break;
        case MemReq:
            r.fields.push_back({field_key(FMemReq, nreq * 4), x.addr});
            r.fields.push_back({field_key(FMemReq, nreq * 4 + 1), uint64_t(x.mem_op | x.mem_size << 4)});
            if (x.has_data) r.fields.push_back({field_key(FMemReq, nreq * 4 + 2), x.data});
            nreq++;
            break;
        case MemRsp:
            r.fields.push_back({field_key(FMemRsp, nrsp * 4), uint64_t(x.mem_size | x.mem_result << 4)});
            if (x.has_data) r.fields.push_back({field_key(FMemRsp, nrsp * 4 + 1), x.data});
            nrsp++;
            break;
        case Reset: r.fields.push_back({field_key(FReset, 0), 1}); break;
        case StateInit: r.fields.push_back({field_key(FStateInit, 0), 1}); break;
        default: break;
        }
    };
    if (it.op == BeginGroup) {
        while (items_.next(it)) {
            if (it.op == EndGroup) break;
            if (it.op == BeginGroup) { // implies the end of this group
                la_ = it, have_la_ = true;
                break;
            }
            if (r.fields.size() >= kMaxFields) {
                err_ = Err::GroupTooLong, err_off_ = r.offset;
                return false;
            }
            apply(it);
        }
        if (items_.err() != Err::None) return false;
    } else {
        apply(it);
    }
    if (new_pc) {
        pc_ = pc, pc_known_ = true;
    } else if (inc && ilen) {
        pc_ += ilen;
    }
    if (new_pc || (inc && ilen && pc_known_)) r.fields.push_back({field_key(FNextPc, 0), pc_});
    else if (inc) r.fields.push_back({field_key(FNextPc, 1), ilen}); // pc not known yet
    // Sorted by key; of a register written twice the last value counts.
    std::stable_sort(r.fields.begin(), r.fields.end(), [](const Field &x, const Field &y) { return x.key < y.key; });
    size_t w = 0;
    for (size_t i = 0; i < r.fields.size(); i++) {
        if (i + 1 < r.fields.size() && r.fields[i + 1].key == r.fields[i].key) continue;
        r.fields[w++] = r.fields[i];
    }
    r.fields.resize(w);
    return true;
}

namespace {
// Keys a trace has reported so far (partial trace, 3.2): a bit per key of each kind.
struct Seen {
    std::vector<bool> bits[9];
    bool has(uint32_t k) const {
        const auto &v = bits[k >> 24 < 9 ? k >> 24 : 0];
        return (k & 0xFFFFFF) < v.size() && v[k & 0xFFFFFF];
    }
    void add(uint32_t k) {
        auto &v = bits[k >> 24 < 9 ? k >> 24 : 0];
        const uint32_t i = std::min<uint32_t>(k & 0xFFFFFF, 1u << 20);
        if (i >= v.size()) v.resize(std::max<size_t>(i + 1, 2 * v.size()));
        v[i] = true;
    }
};
// The first key where the records differ; false if none.
bool differ(const Record &a, const Record &b, bool partial, const Seen &sa, const Seen &sb, uint32_t &key,
            std::string &va, std::string &vb) {
    size_t i = 0, j = 0;
    while (i < a.fields.size() || j < b.fields.size()) {
        const bool ha = i < a.fields.size(), hb = j < b.fields.size();
        const uint32_t k = !hb || (ha && a.fields[i].key < b.fields[j].key) ? a.fields[i].key : b.fields[j].key;
        const Field *fa = ha && a.fields[i].key == k ? &a.fields[i++] : nullptr;
        const Field *fb = hb && b.fields[j].key == k ? &b.fields[j++] : nullptr;
        if (fa && fb && fa->value == fb->value) continue;
        if (partial && (!fa || !fb) && !(sa.has(k) && sb.has(k))) continue; // absent, not different
        key = k;
        va = fa ? field_value(k, fa->value) : "absent";
        vb = fb ? field_value(k, fb->value) : "absent";
        return true;
    }
    return false;
}
bool same_record(const Record &a, const Record &b) {
    if (a.fields.size() != b.fields.size() || a.pc != b.pc || a.pc_known != b.pc_known) return false;
    for (size_t i = 0; i < a.fields.size(); i++)
        if (a.fields[i].key != b.fields[i].key || a.fields[i].value != b.fields[i].value) return false;
    return true;
}
void context_line(std::vector<std::string> &out, const Record *a, const Record *b) {
    if (a && b && same_record(*a, *b)) {
        out.push_back("    " + record_text(*a));
        return;
    }
    out.push_back(a ? "  a " + record_text(*a) : "  a (end of trace)");
    out.push_back(b ? "  b " + record_text(*b) : "  b (end of trace)");
}
} // namespace

Divergence compare_streams(const Params &p, Source &a, Source &b, bool partial, unsigned context,
                           uint64_t max_records) {
    Divergence d;
    RecordStream ra(p, a), rb(p, b);
    // The last `context` records of each trace, reused (no allocation per record once warm).
    const size_t ring = context + 1;
    std::vector<Record> ha(ring), hb(ring);
    Seen sa, sb;
    uint64_t n = 0;
    for (; !max_records || n < max_records; n++) {
        Record &x = ha[n % ring], &y = hb[n % ring];
        const bool gx = ra.next(x), gy = rb.next(y);
        if (ra.err() != Err::None || rb.err() != Err::None) {
            d.found = true;
            d.err_trace = ra.err() != Err::None ? 1 : 2;
            d.err = d.err_trace == 1 ? ra.err() : rb.err();
            d.err_offset = d.err_trace == 1 ? ra.err_offset() : rb.err_offset();
            d.group = n, d.records = n;
            d.element = "malformed trace";
            return d;
        }
        if (!gx && !gy) break;
        uint32_t key = 0;
        std::string va, vb;
        bool diff;
        if (!gx || !gy) {
            diff = true;
            d.element = "end of trace";
            va = gx ? "record" : "end", vb = gy ? "record" : "end";
        } else {
            if (partial)
                for (const Field &f : x.fields) sa.add(f.key);
            if (partial)
                for (const Field &f : y.fields) sb.add(f.key);
            diff = differ(x, y, partial, sa, sb, key, va, vb);
            if (diff) d.element = field_name(key);
        }
        if (!diff) continue;
        d.found = true;
        d.group = n, d.records = n;
        const Record &r = gx ? x : y;
        d.pc = r.pc, d.pc_known = r.pc_known;
        d.offset_a = gx ? x.offset : 0, d.offset_b = gy ? y.offset : 0;
        d.value_a = va, d.value_b = vb;
        for (uint64_t k = n >= context ? n - context : 0; k < n; k++) context_line(d.context, &ha[k % ring], &hb[k % ring]);
        context_line(d.context, gx ? &x : nullptr, gy ? &y : nullptr);
        // Two records after it, where there are.
        Record nx, ny;
        for (int k = 0; k < 2; k++) {
            const bool mx = gx && ra.next(nx), my = gy && rb.next(ny);
            if (!mx && !my) break;
            context_line(d.context, mx ? &nx : nullptr, my ? &ny : nullptr);
        }
        return d;
    }
    d.records = n;
    return d;
}

Divergence compare(const Params &p, const std::vector<Item> &a, const std::vector<Item> &b, bool partial) {
    std::vector<uint8_t> ba, bb;
    for (const Item &it : a) encode_item(p, it, ba);
    for (const Item &it : b) encode_item(p, it, bb);
    SpanSource sa(ba), sb(bb);
    return compare_streams(p, sa, sb, partial);
}


int cli_main(const std::vector<std::string> &pos, const std::vector<std::pair<std::string, std::string>> &opts) {
    Params p;
    bool partial = false;
    uint64_t max_records = 0;
    for (auto &o : opts) {
        if (o.first == "--xlen") p.xlen = unsigned(std::stoul(o.second));
        if (o.first == "--partial") partial = true;
        if (o.first == "--records") max_records = std::stoull(o.second, nullptr, 0);
    }
    if (p.xlen != 32 && p.xlen != 64) return fprintf(stderr, "tsbi-trace: --xlen must be 32 or 64\n"), 2;
    p.flen = 64, p.mlen = p.xlen == 64 ? 64 : 40; // RV32 with Sv32: MLEN 34 rounded to 40
    const std::string &cmd = pos[1];
    if (cmd == "dump") {
        // Streamed like compare: a trace of any length in bounded memory.
        std::FILE *f = pos.size() < 3 ? nullptr : std::fopen(pos[2].c_str(), "rb");
        if (!f) return fprintf(stderr, "tsbi-trace: cannot read trace\n"), 3;
        FileSource src(f);
        ItemStream items(p, src);
        Item it;
        std::vector<uint8_t> bytes;
        while (items.next(it)) {
            // The item's bytes again (the codec round-trips byte for byte), printed at
            // its offset in the file.
            bytes.clear();
            encode_item(p, it, bytes);
            Item at0 = it;
            at0.offset = 0;
            const std::string line = dump_item(p, bytes, at0);
            printf("%08llx%s\n", (unsigned long long)it.offset, line.c_str() + line.find(':'));
        }
        std::fclose(f);
        if (items.err() != Err::None) {
            fprintf(stderr, "tsbi-trace: offset %llu: %s\n", (unsigned long long)items.err_offset(), err_name(items.err()));
            return 1;
        }
        return 0;
    }
    if (cmd == "compare") {
        if (pos.size() < 4) return fprintf(stderr, "tsbi-trace: tv compare needs two traces\n"), 2;
        std::FILE *fa = std::fopen(pos[2].c_str(), "rb"), *fb = std::fopen(pos[3].c_str(), "rb");
        if (!fa || !fb) {
            if (fa) std::fclose(fa);
            if (fb) std::fclose(fb);
            return fprintf(stderr, "tsbi-trace: tv compare needs two readable traces\n"), 3;
        }
        FileSource sa(fa), sb(fb);
        Divergence d = compare_streams(p, sa, sb, partial, 3, max_records);
        const bool io = std::ferror(fa) || std::ferror(fb);
        std::fclose(fa), std::fclose(fb);
        if (io) return fprintf(stderr, "tsbi-trace: read error\n"), 3;
        if (d.err != Err::None) {
            fprintf(stderr, "tsbi-trace: %s offset %llu (record %llu): %s\n", pos[1 + d.err_trace].c_str(),
                    (unsigned long long)d.err_offset, (unsigned long long)d.group, err_name(d.err));
            return 1;
        }
        if (!d.found) {
            printf("equal, %llu records\n", (unsigned long long)d.records);
            return 0;
        }
        printf("first divergence at record %llu, pc %s (offsets %llu and %llu): %s: %s vs %s\n",
               (unsigned long long)d.group, d.pc_known ? hex(d.pc).c_str() : "unknown",
               (unsigned long long)d.offset_a, (unsigned long long)d.offset_b, d.element.c_str(),
               d.value_a.c_str(), d.value_b.c_str());
        printf("context (a = %s, b = %s; one line where both agree):\n", pos[2].c_str(), pos[3].c_str());
        for (const std::string &l : d.context) printf("%s\n", l.c_str());
        return 1;
    }
    fprintf(stderr, "tsbi-trace: unknown tv command %s\n", cmd.c_str());
    return 2;
}

} // namespace tv
