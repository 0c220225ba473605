// SPDX-License-Identifier: BSD-2-Clause
// Linux kernel symbols and boot-time code patching (see kernel.hpp).
#include "kernel.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unordered_map>

namespace kernel {

bool Symbols::load(const std::string &path, std::string &err) {
    std::ifstream f(path);
    if (!f) {
        err = "cannot open " + path;
        return false;
    }
    std::string line;
    while (std::getline(f, line)) {
        std::istringstream ls(line);
        std::string a, t, n;
        if (!(ls >> a >> t >> n)) continue;
        char *end = nullptr;
        const uint64_t v = strtoull(a.c_str(), &end, 16);
        if (*end) continue;
        syms.push_back({v, n});
    }
    std::stable_sort(syms.begin(), syms.end(), [](const Sym &x, const Sym &y) { return x.addr < y.addr; });
    if (syms.empty()) {
        err = path + ": no symbols";
        return false;
    }
    return true;
}

bool Symbols::find(const std::string &name, uint64_t &addr) const {
    for (const Sym &s : syms)
        if (s.name == name) {
            addr = s.addr;
            return true;
        }
    return false;
}

long Symbols::lookup(uint64_t addr) const {
    auto it = std::upper_bound(syms.begin(), syms.end(), addr, [](uint64_t a, const Sym &s) { return a < s.addr; });
    return it == syms.begin() ? -1 : long(it - syms.begin()) - 1;
}

namespace {
constexpr uint32_t kNop = 0x00000013;

uint32_t rd32(const std::vector<uint8_t> &b, uint64_t off) {
    uint32_t v;
    memcpy(&v, b.data() + off, 4);
    return v;
}
int32_t jal_imm(uint32_t i) {
    uint32_t v = (i >> 31 & 1) << 20 | (i >> 12 & 0xFF) << 12 | (i >> 20 & 1) << 11 | (i >> 21 & 0x3FF) << 1;
    return int32_t(v << 11) >> 11;
}
uint32_t jal_with(uint32_t i, int32_t imm) {
    const uint32_t v = uint32_t(imm);
    return (i & 0xFFF) | (v >> 20 & 1) << 31 | (v >> 1 & 0x3FF) << 21 | (v >> 11 & 1) << 20 | (v >> 12 & 0xFF) << 12;
}
bool in_range(const std::vector<uint8_t> &img, uint64_t virt, uint64_t addr, uint64_t len) {
    return addr - virt <= img.size() && len <= img.size() - (addr - virt);
}

// The replacement of an alternative as the kernel writes it at old: jal and ra
// auipc+jalr pairs that leave the replacement keep their targets
// (riscv_alternative_fix_offsets).
void fix_offsets(std::vector<uint8_t> &b, uint64_t alt, uint64_t old) {
    const int64_t delta = int64_t(alt - old);
    const size_t n = b.size() / 4;
    auto get = [&](size_t i) {
        uint32_t v;
        memcpy(&v, b.data() + 4 * i, 4);
        return v;
    };
    auto put = [&](size_t i, uint32_t v) { memcpy(b.data() + 4 * i, &v, 4); };
    for (size_t i = 0; i < n; i++) {
        const uint32_t in = get(i);
        if ((in & 0x7F) == 0x17 && i + 1 < n) {
            const uint32_t in2 = get(i + 1);
            if ((in2 & 0x707F) != 0x67 || (in >> 7 & 31) != 1) continue;
            const int64_t off = int64_t(int32_t(in & 0xFFFFF000)) + (int32_t(in2) >> 20) + delta;
            const int64_t hi = (off + 0x800) >> 12, lo = off - (hi << 12);
            put(i, (in & 0xFFF) | uint32_t(hi << 12));
            put(i + 1, (in2 & 0xFFFFF) | uint32_t(lo) << 20);
            i++;
            continue;
        }
        if ((in & 0x7F) == 0x6F) {
            const int64_t t = int64_t(4 * i) + jal_imm(in);
            if (t >= 0 && t < int64_t(b.size())) continue; // inside the replacement
            put(i, jal_with(in, int32_t(jal_imm(in) + delta)));
        }
    }
}

// The return address of a call (auipc ra + jalr ra, ra) from function `from` to `to`.
uint64_t call_return(const std::vector<uint8_t> &img, uint64_t virt, const Symbols &syms, uint64_t from, uint64_t to) {
    const long si = syms.lookup(from);
    const uint64_t end = size_t(si + 1) < syms.syms.size() ? syms.syms[size_t(si) + 1].addr : from + 4096;
    for (uint64_t a = from; a + 8 <= end && in_range(img, virt, a, 8); a += 2) {
        const uint32_t i1 = rd32(img, a - virt), i2 = rd32(img, a + 4 - virt);
        if ((i1 & 0xFFF) != 0x097 || (i2 & 0xFFFFF) != 0x080E7) continue;
        if (a + int64_t(int32_t(i1 & 0xFFFFF000)) + (int32_t(i2) >> 20) == to) return a + 8;
    }
    return 0;
}
} // namespace

bool riscv_patches(const std::vector<uint8_t> &img, const uint8_t *fin, uint64_t virt, const Symbols &syms,
                   const rv::Options &o, trace::TextPatches &tp, PatchSummary &sum, std::string &err) {
    uint64_t mc0, mc1, alt0, alt1, j0, j1, init_nop, piw, patch_func, fix_offsets_fn, init0, init1;
    for (auto [n, p] : {std::pair<const char *, uint64_t *>{"__start_mcount_loc", &mc0}, {"__stop_mcount_loc", &mc1},
                        {"__alt_start", &alt0}, {"__alt_end", &alt1}, {"__start___jump_table", &j0},
                        {"__stop___jump_table", &j1}, {"ftrace_init_nop", &init_nop}, {"patch_insn_write", &piw},
                        {"riscv_cpufeature_patch_func", &patch_func},
                        {"riscv_alternative_fix_offsets", &fix_offsets_fn},
                        {"_sinittext", &init0}, {"_einittext", &init1}}) {
        if (!syms.find(n, *p)) {
            err = std::string("symbol ") + n + " missing (the kernel's patch tables need it)";
            return false;
        }
    }
    if (!in_range(img, virt, mc0, mc1 - mc0) || !in_range(img, virt, alt0, alt1 - alt0) ||
        !in_range(img, virt, j0, j1 - j0)) {
        err = "a patch table lies outside the image";
        return false;
    }
    // -1: malformed or overlapping, -2: the versions do not change the decoded flow.
    auto add = [&](uint64_t addr, const uint8_t *a, const uint8_t *b, unsigned len, bool sched) -> long {
        if (!in_range(img, virt, addr, len)) return -1;
        trace::PatchSite s;
        if (len != 8 && trace::TextPatches::make(addr - virt, a, b, len, false, o, s) && trace::TextPatches::flow_neutral(s))
            return -2;
        const size_t before = tp.count();
        if (!tp.add(addr - virt, a, b, len, sched, o)) return -1;
        return long(before);
    };
    // ftrace: __mcount_loc holds the sites' addresses (sorted at build time; the kernel
    // sorts them otherwise, and patches them in that order).
    std::vector<uint64_t> mc;
    for (uint64_t a = mc0; a + 8 <= mc1; a += 8) {
        uint64_t v;
        memcpy(&v, img.data() + (a - virt), 8);
        if (v) mc.push_back(v);
    }
    std::sort(mc.begin(), mc.end());
    // The trigger: the return from patch_insn_write() in ftrace_init_nop(), once the
    // site is written.
    sum.ftrace_trigger = call_return(img, virt, syms, init_nop, piw);
    if (!sum.ftrace_trigger) {
        err = "no call of patch_insn_write in ftrace_init_nop";
        return false;
    }
    const unsigned ftrace_trigger = tp.add_trigger(sum.ftrace_trigger, 1);
    std::vector<uint32_t> ftrace_sites;
    static const uint8_t cnops[8] = {1, 0, 1, 0, 1, 0, 1, 0}, nops[8] = {0x13, 0, 0, 0, 0x13, 0, 0, 0};
    for (uint64_t a : mc) {
        if (!in_range(img, virt, a, 8) || memcmp(img.data() + (a - virt), cnops, 8)) {
            sum.skipped++;
            continue;
        }
        const long i = add(a, cnops, nops, 8, true);
        if (i < 0) {
            sum.skipped++;
            continue;
        }
        ftrace_sites.push_back(uint32_t(i));
        sum.ftrace++;
    }
    for (size_t i = 0; i < ftrace_sites.size(); i++) tp.schedule(ftrace_sites[i], ftrace_trigger);
    sum.alt_trigger = call_return(img, virt, syms, patch_func, fix_offsets_fn);
    if (!sum.alt_trigger) {
        err = "no call of riscv_alternative_fix_offsets in riscv_cpufeature_patch_func";
        return false;
    }
    const unsigned alt_trigger = tp.add_trigger(sum.alt_trigger, 1);
    // The final text says what changed, except in the init text (freed and poisoned).
    auto final_known = [&](uint64_t a, unsigned len) { return fin && (a + len <= init0 || a >= init1); };
    // Static keys: struct jump_entry { s32 code, target; long key; }, relative offsets;
    // the key's low 2 bits are flags. A key's sites toggle together.
    std::unordered_map<uint64_t, uint32_t> key_group;
    for (uint64_t e = j0; e + 16 <= j1; e += 16) {
        const int32_t c = int32_t(rd32(img, e - virt)), t = int32_t(rd32(img, e + 4 - virt));
        const uint64_t code = e + int64_t(c), target = e + 4 + int64_t(t);
        if (!in_range(img, virt, code, 4)) {
            sum.skipped++;
            continue;
        }
        const uint32_t now = rd32(img, code - virt);
        const uint32_t jump = jal_with(0x6F, int32_t(target - code));
        uint32_t other;
        if (now == kNop) other = jump;
        else if (now == jump) other = kNop;
        else {
            sum.skipped++;
            continue;
        }
        if (final_known(code, 4) && !memcmp(fin + (code - virt), &now, 4)) continue; // same at the end
        const long r = add(code, reinterpret_cast<const uint8_t *>(&now), reinterpret_cast<const uint8_t *>(&other), 4, false);
        if (r >= 0) {
            sum.jump++;
            int64_t k;
            memcpy(&k, img.data() + (e + 8 - virt), 8);
            const uint64_t key = e + 8 + uint64_t(k & ~3ll);
            const auto g = key_group.emplace(key, uint32_t(key_group.size())).first->second;
            tp.join(uint32_t(r), g);
            if (final_known(code, 4)) sum.final_toggled.push_back(uint32_t(r));
        } else {
            sum.skipped++;
        }
    }
    // Alternatives: struct alt_entry { s32 old_offset, alt_offset; u16 vendor_id, alt_len;
    // u32 patch_id; }. Vendor errata (vendor_id != 0) need that vendor's harts.
    struct Alt {
        uint64_t old;
        std::vector<uint8_t> b;
        uint32_t id;
    };
    std::vector<Alt> alts;
    std::unordered_map<uint32_t, int> feature; // patch_id -> 1 patched, 0 not (from the final text)
    for (uint64_t e = alt0; e + 16 <= alt1; e += 16) {
        const int32_t oo = int32_t(rd32(img, e - virt)), ao = int32_t(rd32(img, e + 4 - virt));
        uint16_t vendor, len;
        memcpy(&vendor, img.data() + (e + 8 - virt), 2);
        memcpy(&len, img.data() + (e + 10 - virt), 2);
        const uint32_t id = rd32(img, e + 12 - virt);
        const uint64_t old = e + int64_t(oo), alt = e + 4 + int64_t(ao);
        if (vendor != 0) continue;
        if (!len || !in_range(img, virt, old, len) || !in_range(img, virt, alt, len)) {
            err = "malformed .alternative entry";
            return false;
        }
        std::vector<uint8_t> b(img.begin() + long(alt - virt), img.begin() + long(alt - virt + len));
        fix_offsets(b, alt, old);
        if (final_known(old, len) && memcmp(b.data(), img.data() + (old - virt), len))
            feature[id] = !memcmp(b.data(), fin + (old - virt), len);
        alts.push_back({old, std::move(b), id});
    }
    sum.features = feature.size();
    for (const Alt &x : alts) {
        const auto f = feature.find(x.id);
        const bool known = f != feature.end();
        if (known && !f->second) continue; // its feature is absent: never patched
        // Patched (the trigger fires for it) or unknown (the trace decides).
        const long r = add(x.old, img.data() + (x.old - virt), x.b.data(), unsigned(x.b.size()), known);
        if (r == -1 && memcmp(x.b.data(), img.data() + (x.old - virt), x.b.size())) sum.skipped++;
        if (known) {
            if (r >= 0) {
                tp.schedule(uint32_t(r), alt_trigger);
                sum.alternative++;
            } else {
                tp.schedule_nothing(alt_trigger);
            }
        } else if (r >= 0) {
            sum.alternative_free++;
        }
    }
    return true;
}

} // namespace kernel
