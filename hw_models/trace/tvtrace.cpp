// SPDX-License-Identifier: BSD-2-Clause
// Tandem-verification trace protocol codec, dump and comparer (see tvtrace.hpp).
#include "tvtrace.hpp"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <set>

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

namespace {
struct Group {
    size_t first, last; // item indices [first, last)
};
std::vector<Group> groups(const std::vector<Item> &v) {
    // A group runs from a begin group up to its end group (or the next begin group,
    // which implies the end); items outside groups form groups of their own.
    std::vector<Group> g;
    size_t i = 0;
    while (i < v.size()) {
        size_t s = i;
        if (v[i].op == BeginGroup) {
            i++;
            while (i < v.size() && v[i].op != EndGroup && v[i].op != BeginGroup) i++;
            if (i < v.size() && v[i].op == EndGroup) i++;
        } else {
            i++;
        }
        g.push_back({s, i});
    }
    return g;
}
std::string hex(uint64_t v) {
    char b[24];
    snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
    return b;
}
// Applies a group; pc advances by the instruction length when the group has IncPc.
void apply_group(const Params &p, Shadow &s, const std::vector<Item> &v, Group g, std::set<std::string> &touched) {
    bool inc = false;
    unsigned ilen = 0;
    for (size_t i = g.first; i < g.last; i++) {
        const Item &it = v[i];
        const Item *req = i > 0 && v[i - 1].op == MemReq ? &v[i - 1] : nullptr;
        if (it.op == IncPc) inc = true;
        if (it.op == Instr16) ilen = 2;
        if (it.op == Instr32) ilen = 4;
        s.apply(p, it, req);
        if (it.op == FullReg || it.op == IncRegAdd || it.op == IncRegOr) touched.insert("r" + std::to_string(it.reg));
        if (it.op == State) touched.insert(it.id == PcAppendixC || it.id == Pc ? "pc" : "s" + std::to_string(it.id));
        if (it.op == MemReq && it.has_data && it.mem_op == Store)
            for (unsigned k = 0; k < (1u << it.mem_size); k++) touched.insert("m" + std::to_string(it.addr + k));
    }
    if (inc && ilen) s.pc += ilen, touched.insert("pc");
}
bool lookup(const Shadow &s, const std::string &e, uint64_t &v) {
    if (e == "pc") {
        v = s.pc;
        return s.pc_known;
    }
    const uint64_t n = std::stoull(e.substr(1));
    switch (e[0]) {
    case 'r': {
        auto it = s.regs.find(uint16_t(n));
        if (it == s.regs.end()) return false;
        v = it->second;
        return true;
    }
    case 's': {
        auto it = s.state.find(uint8_t(n));
        if (it == s.state.end()) return false;
        v = it->second;
        return true;
    }
    default: {
        auto it = s.mem.find(n);
        if (it == s.mem.end()) return false;
        v = it->second;
        return true;
    }
    }
}
std::string element_name(const std::string &e) {
    if (e == "pc") return "pc";
    const uint64_t n = std::stoull(e.substr(1));
    if (e[0] == 'r') return reg_name(uint16_t(n));
    if (e[0] == 's') return "additional state " + std::to_string(n);
    return "memory " + hex(n);
}
} // namespace

Divergence compare(const Params &p, const std::vector<Item> &a, const std::vector<Item> &b, bool partial) {
    Divergence d;
    const auto ga = groups(a), gb = groups(b);
    Shadow sa, sb;
    std::set<std::string> seen_a, seen_b; // every element each trace ever reported
    const size_t n = std::min(ga.size(), gb.size());
    for (size_t g = 0; g < n; g++) {
        std::set<std::string> ta, tb;
        apply_group(p, sa, a, ga[g], ta);
        apply_group(p, sb, b, gb[g], tb);
        seen_a.insert(ta.begin(), ta.end());
        seen_b.insert(tb.begin(), tb.end());
        std::set<std::string> check = ta;
        check.insert(tb.begin(), tb.end());
        for (const std::string &e : check) {
            // 3.2: an element one trace never reports is absent from it, not different.
            if (partial && (!seen_a.count(e) || !seen_b.count(e))) continue;
            uint64_t va = 0, vb = 0;
            const bool ha = lookup(sa, e, va), hb = lookup(sb, e, vb);
            if (ha == hb && va == vb) continue;
            d.found = true;
            d.group = g;
            d.offset_a = a[ga[g].first].offset, d.offset_b = b[gb[g].first].offset;
            d.element = element_name(e);
            d.value_a = ha ? hex(va) : "absent";
            d.value_b = hb ? hex(vb) : "absent";
            return d;
        }
    }
    if (ga.size() != gb.size()) {
        d.found = true;
        d.group = n;
        d.offset_a = n < ga.size() ? a[ga[n].first].offset : (a.empty() ? 0 : a.back().offset + a.back().length);
        d.offset_b = n < gb.size() ? b[gb[n].first].offset : (b.empty() ? 0 : b.back().offset + b.back().length);
        d.element = "number of groups";
        d.value_a = std::to_string(ga.size());
        d.value_b = std::to_string(gb.size());
    }
    return d;
}

namespace {
bool read_file(const std::string &path, std::vector<uint8_t> &out) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return false;
    out.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    return true;
}
} // namespace

int cli_main(const std::vector<std::string> &pos, const std::vector<std::pair<std::string, std::string>> &opts) {
    Params p;
    bool partial = false;
    for (auto &o : opts) {
        if (o.first == "--xlen") p.xlen = unsigned(std::stoul(o.second));
        if (o.first == "--partial") partial = true;
    }
    if (p.xlen != 32 && p.xlen != 64) return fprintf(stderr, "tsbi-trace: --xlen must be 32 or 64\n"), 2;
    p.flen = 64, p.mlen = p.xlen == 64 ? 64 : 40; // RV32 with Sv32: MLEN 34 rounded to 40
    const std::string &cmd = pos[1];
    if (cmd == "dump") {
        std::vector<uint8_t> b;
        if (pos.size() < 3 || !read_file(pos[2], b)) return fprintf(stderr, "tsbi-trace: cannot read trace\n"), 3;
        std::vector<Item> items;
        size_t eoff = 0;
        Err e = decode_all(p, b, items, eoff);
        for (const Item &it : items) printf("%s\n", dump_item(p, b, it).c_str());
        if (e != Err::None) {
            fprintf(stderr, "tsbi-trace: offset %zu: %s\n", eoff, err_name(e));
            return 1;
        }
        return 0;
    }
    if (cmd == "compare") {
        std::vector<uint8_t> ba, bb;
        if (pos.size() < 4 || !read_file(pos[2], ba) || !read_file(pos[3], bb))
            return fprintf(stderr, "tsbi-trace: tv compare needs two readable traces\n"), 3;
        std::vector<Item> ia, ib;
        size_t eoff = 0;
        Err e = decode_all(p, ba, ia, eoff);
        if (e != Err::None) return fprintf(stderr, "tsbi-trace: %s offset %zu: %s\n", pos[2].c_str(), eoff, err_name(e)), 1;
        e = decode_all(p, bb, ib, eoff);
        if (e != Err::None) return fprintf(stderr, "tsbi-trace: %s offset %zu: %s\n", pos[3].c_str(), eoff, err_name(e)), 1;
        Divergence d = compare(p, ia, ib, partial);
        if (!d.found) {
            printf("traces agree\n");
            return 0;
        }
        printf("first divergence in group %llu (offsets %llu and %llu): %s: %s vs %s\n",
               (unsigned long long)d.group, (unsigned long long)d.offset_a, (unsigned long long)d.offset_b,
               d.element.c_str(), d.value_a.c_str(), d.value_b.c_str());
        return 1;
    }
    fprintf(stderr, "tsbi-trace: unknown tv command %s\n", cmd.c_str());
    return 2;
}

} // namespace tv
