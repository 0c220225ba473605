// SPDX-License-Identifier: BSD-2-Clause
#include "dt.hpp"
#include "hart.hpp"
#include <libfdt.h>
#include <string.h>
#include "fdt_edit.hpp"

namespace fw::dt {
namespace {

// Multi-letter extension names as they appear in ISA strings (lower case).
struct ExtName {
    const char *name;
    Ext ext;
};
constexpr ExtName kExtNames[] = {
    {"h", EXT_H},           {"sstc", EXT_SSTC},         {"sscofpmf", EXT_SSCOFPMF},
    {"smstateen", EXT_SMSTATEEN}, {"smcntrpmf", EXT_SMCNTRPMF}, {"smctr", EXT_SMCTR},
    {"ssctr", EXT_SSCTR},   {"smcsrind", EXT_SMCSRIND}, {"sscsrind", EXT_SSCSRIND},
    {"svpbmt", EXT_SVPBMT}, {"zicbom", EXT_ZICBOM},     {"zicboz", EXT_ZICBOZ},
    {"zkr", EXT_ZKR},       {"smaia", EXT_SMAIA},       {"ssaia", EXT_SSAIA},
    {"svadu", EXT_SVADU},   {"svade", EXT_SVADE},       {"smdbltrp", EXT_SMDBLTRP},
    {"smcdeleg", EXT_SMCDELEG}, {"ssccfg", EXT_SSCCFG},
    {"smstrcn", EXT_SMSTRCN}, {"ssstrcn", EXT_SSSTRCN},  {"ssamb", EXT_SSAMB},
};

// Each ISA string token is compared with every name (once per hart, at
// boot): lengths known at compile time keep that to a compare of lengths.
constexpr int const_len(const char *s) { return *s ? 1 + const_len(s + 1) : 0; }
template <unsigned N> struct ExtLens {
    int len[N];
    constexpr ExtLens(const ExtName (&names)[N]) : len{} {
        for (unsigned i = 0; i < N; i++) len[i] = const_len(names[i].name);
    }
};
constexpr ExtLens kExtLens(kExtNames);

uint64_t ext_bit(const char *s, int len) {
    for (unsigned i = 0; i < sizeof kExtNames / sizeof *kExtNames; i++)
        if (kExtLens.len[i] == len && !strncmp(kExtNames[i].name, s, len)) return 1ull << kExtNames[i].ext;
    return 0;
}

uint64_t read_cells(const fdt32_t *p, int cells) {
    uint64_t v = 0;
    for (int i = 0; i < cells; i++) v = (v << 32) | fdt32_to_cpu(p[i]);
    return v;
}

bool status_okay(const char *st) { return !strcmp(st, "okay") || !strcmp(st, "ok"); }

} // namespace

uint64_t parse_isa_string(const char *s, int len) {
    // rv32/rv64, then single letters up to the first '_', then '_'-separated
    // multi-letter extensions (ISA manual, "ISA Extension Naming Conventions").
    uint64_t bits = 0;
    int i = 0;
    if (len >= 4 && (s[0] == 'r' || s[0] == 'R')) i = 4;
    for (; i < len && s[i] && s[i] != '_'; i++)
        if (s[i] == 'h' || s[i] == 'H') bits |= 1ull << EXT_H;
    while (i < len && s[i]) {
        while (i < len && s[i] == '_') i++;
        int start = i;
        while (i < len && s[i] && s[i] != '_') i++;
        if (i > start) bits |= ext_bit(s + start, i - start);
    }
    return bits;
}

uint64_t parse_isa_extensions(const char *list, int len) {
    uint64_t bits = 0;
    for (int i = 0; i < len;) {
        int n = strnlen(list + i, len - i);
        bits |= ext_bit(list + i, n);
        i += n + 1;
    }
    return bits;
}

unsigned scan_harts(const void *fdt, HartDesc *out, unsigned max, Beyond *beyond) {
    // One pass over /cpus, each property read once (libfdt's fdt_getprop
    // walks a node's properties again for every name asked, and
    // fdt_for_each_subnode re-reads every name byte by byte): the cost per
    // hart is what keeps the cold boot flat as harts grow.
    if (beyond) beyond->count = 0, beyond->cpu_nodes = 0;
    int cpus = fdt_path_offset(fdt, "/cpus");
    if (cpus < 0) return 0;
    struct Visitor {
        HartDesc *out;
        unsigned max, n = 0;
        Beyond *beyond;
        int ac = 2; // /cpus #address-cells (libfdt's default when absent)
        const fdt32_t *reg;
        int reg_len, isa_len, ext_len;
        const char *isa, *ext;
        bool is_cpu, enabled, smode;
        const char *last_src = nullptr; // the ISA string parsed last, its length and kind, its bits
        int src_len = -1;
        bool src_ext = false;
        uint64_t last_bits = 0;
        bool begin(int, int depth, const char *) {
            if (depth == 1) {
                reg = nullptr, isa = ext = nullptr;
                reg_len = isa_len = ext_len = 0;
                is_cpu = smode = false, enabled = true;
            }
            return depth <= 1;
        }
        void prop(int, int depth, const fdtw::Prop &p) {
            if (depth == 0) {
                if (p.len == 4 && fdtw::name_is(p, "#address-cells")) ac = int(fdtw::be32(p.data));
                return;
            }
            const char *v = static_cast<const char *>(p.data);
            if (fdtw::name_is(p, "device_type")) is_cpu = p.len > 0 && !strcmp(v, "cpu");
            else if (fdtw::name_is(p, "reg")) reg = static_cast<const fdt32_t *>(p.data), reg_len = p.len;
            else if (fdtw::name_is(p, "status")) enabled = p.len > 0 && status_okay(v);
            else if (fdtw::name_is(p, "riscv,isa")) isa = v, isa_len = p.len;
            else if (fdtw::name_is(p, "riscv,isa-extensions")) ext = v, ext_len = p.len;
            else if (fdtw::name_is(p, "mmu-type")) smode = true;
        }
        void end(int, int depth) {
            if (depth == 1 && is_cpu && beyond) beyond->cpu_nodes++;
            if (depth != 1 || !is_cpu || !enabled || !reg || ac < 1 || ac > 2 || reg_len < ac * 4) return;
            const uint64_t id = read_cells(reg, ac);
            if (beyond && (id >= beyond->limit || n >= max)) {
                if (beyond->count < Beyond::kNamed) beyond->ids[beyond->count] = static_cast<unsigned long>(id);
                beyond->count++;
                return;
            }
            if (n >= max) return;
            out[n].hartid = static_cast<unsigned long>(id);
            // Harts of one kind list the same string: parsed once.
            const char *src = ext ? ext : isa;
            const int len = ext ? ext_len : isa_len;
            if (!src || src_len != len || src_ext != (ext != nullptr) || memcmp(src, last_src, len)) {
                last_bits = ext ? parse_isa_extensions(ext, ext_len) : isa ? parse_isa_string(isa, isa_len) : 0;
                last_src = src, src_len = len, src_ext = ext != nullptr;
            }
            out[n].isa = last_bits;
            out[n].smode = smode;
            n++;
        }
    } v{out, max, 0, beyond};
    fdtw::walk(fdt, cpus, v);
    return v.n;
}

int isa_list_remove(char *list, int len, const char *ext) {
    int out = 0;
    for (int i = 0; i < len;) {
        int n = strnlen(list + i, len - i);
        bool drop = !strncmp(list + i, ext, n) && ext[n] == 0;
        if (!drop) {
            memmove(list + out, list + i, n);
            out += n;
            if (i + n < len) list[out++] = 0;
        }
        i += n + 1;
    }
    return out;
}

int isa_string_remove(char *isa, int len, const char *ext) {
    const int e = static_cast<int>(strlen(ext));
    int n = strnlen(isa, len);
    // Multi-letter extensions follow a '_' (ISA manual, "ISA Extension
    // Naming Conventions"); a token equal to `ext` goes with its '_'.
    for (int i = 0; i + e < n;) {
        if (isa[i] == '_' && !strncmp(isa + i + 1, ext, e) && (i + 1 + e == n || isa[i + 1 + e] == '_')) {
            memmove(isa + i, isa + i + 1 + e, n - (i + 1 + e));
            n -= 1 + e;
            isa[n] = 0;
        } else {
            i++;
        }
    }
    return n < len ? n + 1 : n;
}

// A property's value (`data`, `len` bytes) cut to its first `n` bytes where it lies: the
// words it no longer needs become FDT_NOP tokens (Devicetree Specification
// 5.4.1: a NOP may stand wherever a token may), so nothing after it moves.
// libfdt's fdt_setprop_placeholder would move the rest of the blob up, once
// per edited property: quadratic in harts for an edit of every cpu node.
void shrink_prop_inplace(char *data, int len, int n) {
    const int keep = (n + 3) & ~3, had = (len + 3) & ~3;
    for (int k = n; k < keep; k++) data[k] = 0;
    for (int k = keep; k < had; k += 4) {
        const fdt32_t nop = cpu_to_fdt32(FDT_NOP);
        memcpy(data + k, &nop, 4);
    }
    const fdt32_t l = cpu_to_fdt32(static_cast<uint32_t>(n));
    memcpy(data - 8, &l, 4); // the property's length word (FDT_PROP, len, nameoff, value)
}

int fixup_withhold_extensions(void *fdt, const Withhold *w, unsigned count) {
    int cpus = fdt_path_offset(fdt, "/cpus");
    if (cpus < 0) return 0;
    // Edited where they are and cut short in place: nothing moves, so one
    // walk reads and edits every cpu node. Harts of one kind list the same
    // strings: a node whose property is the one the previous node had
    // before its edit (kept in `was`) gets the previous node's result.
    constexpr int kMemo = 512;
    struct Memo {
        char was[kMemo];
        int was_len = -1;
        uint64_t isa = 0;
        bool own = false;             // isa was parsed from this property
        const char *result = nullptr; // the previous node's edited value
        int result_len = 0;
    };
    static Memo memo[2];
    for (Memo &m : memo) m.was_len = -1;
    int err = 0;
    auto edit = [&](int, uint32_t, const fdtw::NodeProps &np) {
        const fdtw::Prop *list = np.find("riscv,isa-extensions"), *str = np.find("riscv,isa");
        // The node's extensions before any edit, read as scan_harts does.
        const fdtw::Prop *src = list ? list : str;
        Memo &sm = memo[list ? 0 : 1];
        uint64_t isa = 0;
        if (src && sm.own && sm.was_len == src->len && !memcmp(sm.was, src->data, src->len)) isa = sm.isa;
        else if (list) isa = parse_isa_extensions(static_cast<const char *>(list->data), list->len);
        else if (str) isa = parse_isa_string(static_cast<const char *>(str->data), str->len);
        struct Edit {
            const fdtw::Prop *p;
            int (*remove)(char *, int, const char *);
        } const edits[] = {{list, isa_list_remove}, {str, isa_string_remove}};
        for (unsigned k = 0; k < 2; k++) {
            const Edit &e = edits[k];
            Memo &m = memo[k];
            if (!e.p || e.p->len <= 0) {
                m.was_len = -1;
                continue;
            }
            auto *data = static_cast<char *>(const_cast<void *>(e.p->data));
            const int len = e.p->len;
            int n = len;
            if (m.was_len == len && m.isa == isa && !memcmp(m.was, data, len)) {
                n = m.result_len;
                memcpy(data, m.result, n);
            } else {
                const bool keep = len <= kMemo;
                if (keep) memcpy(m.was, data, len);
                for (unsigned i = 0; i < count; i++)
                    if (!((isa >> w[i].unless) & 1)) n = e.remove(data, n, w[i].ext);
                m.was_len = keep ? len : -1;
                m.isa = isa;
                m.own = k == 0 || !list;
            }
            m.result = data;
            m.result_len = n;
            if (n != len) shrink_prop_inplace(data, len, n);
        }
        if (np.overflow) err = -FDT_ERR_NOSPACE; // properties past NodeProps::kMax unread
    };
    if (!fdtw::for_each_cpu_props(fdt, cpus, edit)) return -FDT_ERR_BADSTRUCTURE;
    return err;
}

int fixup_disable_harts(void *fdt, bool (*served)(uint64_t hartid)) {
    int cpus = fdt_path_offset(fdt, "/cpus");
    if (cpus < 0) return 0;
    int ac = fdt_address_cells(fdt, cpus);
    if (ac < 1 || ac > 2) return 0;
    const int status = fdtw::string_offset(fdt, "status");
    if (status < 0) return -FDT_ERR_NOSPACE;
    static constexpr char kDisabled[] = "disabled";
    // Every cpu node in one pass over the tree (fdtw::rewrite_cpus):
    // "disabled" is longer than "okay", and a libfdt edit per node moved the
    // rest of the tree once per hart.
    int err = fdtw::rewrite_cpus(fdt, cpus, [&](uint32_t, const fdtw::NodeProps &np,
                                                fdtw::Edit *e) -> unsigned {
        const fdtw::Prop *reg = np.find("reg");
        if (!reg || reg->len < ac * 4) return 0;
        uint64_t id = read_cells(static_cast<const fdt32_t *>(reg->data), ac);
        uint32_t at = np.start; // where libfdt would add it: first
        const fdtw::Prop *st = np.find("status", &at);
        const bool enabled = !st || (st->len > 0 && status_okay(static_cast<const char *>(st->data)));
        if (!enabled || served(id)) return 0;
        // "ok" and "okay" are shorter than "disabled": the edit only grows.
        e[0] = {at, st ? 12 + fdtw::align4(uint32_t(st->len)) : 0, uint32_t(status), kDisabled,
                sizeof kDisabled, 0, 0};
        return 1;
    });
    return err ? -FDT_ERR_NOSPACE : 0;
}

bool scan_memory(const void *fdt, Memory &m) {
    // The root's children in one walk (dt.hpp: one property pass per node),
    // and on the way what the tree keeps after it must not overwrite
    // (growth_limit): /reserved-memory's children and /chosen's initrd.
    m.count = 0;
    m.resv_count = 0;
    m.resv_more = false;
    m.initrd = 0;
    struct Visitor {
        Memory &m;
        int ac = 2, sc = 1; // the root's cells (libfdt's defaults when absent)
        int rac = 2, rsc = 1; // /reserved-memory's
        bool is_memory, enabled, in_resv = false, in_chosen = false;
        const fdt32_t *reg;
        int reg_len;
        bool begin(int, int depth, const char *name) {
            if (depth == 1) {
                is_memory = false, enabled = true, reg = nullptr, reg_len = 0;
                in_resv = !strcmp(name, "reserved-memory");
                in_chosen = !strcmp(name, "chosen");
            }
            return depth <= 1 || (depth == 2 && in_resv);
        }
        void prop(int, int depth, const fdtw::Prop &p) {
            if (depth == 0 && p.len == 4 && fdtw::name_is(p, "#address-cells")) ac = int(fdtw::be32(p.data));
            else if (depth == 0 && p.len == 4 && fdtw::name_is(p, "#size-cells")) sc = int(fdtw::be32(p.data));
            else if (depth == 2) resv_reg(p);
            else if (depth != 1) return;
            else if (in_resv && p.len == 4 && fdtw::name_is(p, "#address-cells")) rac = int(fdtw::be32(p.data));
            else if (in_resv && p.len == 4 && fdtw::name_is(p, "#size-cells")) rsc = int(fdtw::be32(p.data));
            else if (in_chosen && (p.len == 4 || p.len == 8) && fdtw::name_is(p, "linux,initrd-start"))
                m.initrd = read_cells(static_cast<const fdt32_t *>(p.data), p.len / 4);
            else if (fdtw::name_is(p, "device_type")) is_memory = p.len > 0 && !strcmp(static_cast<const char *>(p.data), "memory");
            else if (fdtw::name_is(p, "status")) enabled = p.len > 0 && status_okay(static_cast<const char *>(p.data));
            else if (fdtw::name_is(p, "reg")) reg = static_cast<const fdt32_t *>(p.data), reg_len = p.len;
        }
        void resv_reg(const fdtw::Prop &p) {
            if (!fdtw::name_is(p, "reg") || rac < 1 || rac > 2 || rsc < 0 || rsc > 2) return;
            for (int i = 0; (i + 1) * (rac + rsc) * 4 <= p.len; i++) {
                if (m.resv_count == Memory::kMaxResv) {
                    m.resv_more = true;
                    return;
                }
                m.resv[m.resv_count++] = read_cells(static_cast<const fdt32_t *>(p.data) + i * (rac + rsc), rac);
            }
        }
        void end(int, int depth) {
            if (depth != 1 || !is_memory || !enabled || !reg || ac < 1 || ac > 2 || sc < 1 || sc > 2) return;
            for (int i = 0; (i + 1) * (ac + sc) * 4 <= reg_len && m.count < kMaxMemRegions; i++) {
                const fdt32_t *p = reg + i * (ac + sc);
                MemRegion r{read_cells(p, ac), read_cells(p + ac, sc)};
                if (r.size) m.r[m.count++] = r;
            }
        }
    } v{m};
    if (!fdtw::walk(fdt, 0, v)) return false;
    if (v.ac < 1 || v.ac > 2 || v.sc < 1 || v.sc > 2) return false;
    return m.count > 0;
}

bool range_in_memory(const Memory &m, uint64_t excl_start, uint64_t excl_end, uint64_t addr,
                     uint64_t size) {
    uint64_t last = addr + (size ? size - 1 : 0);
    if (last < addr) return false; // wraps around
    if (addr < excl_end && last >= excl_start) return false;
    for (unsigned i = 0; i < m.count; i++) {
        const MemRegion &r = m.r[i];
        if (addr >= r.base && last - r.base < r.size) return true;
    }
    return false;
}

int open_for_fixup(void *fdt, unsigned extra) {
    int err = fdt_check_header(fdt);
    if (err) return err;
    return fdt_open_into(fdt, fdt, fdt_totalsize(fdt) + extra);
}

int setprop_reg(void *fdt, int node, int ac, int sc, uint64_t base, uint64_t size) {
    fdt32_t reg[4];
    int n = 0;
    if (ac == 2) reg[n++] = cpu_to_fdt32(static_cast<uint32_t>(base >> 32));
    reg[n++] = cpu_to_fdt32(static_cast<uint32_t>(base));
    if (sc == 2) reg[n++] = cpu_to_fdt32(static_cast<uint32_t>(size >> 32));
    reg[n++] = cpu_to_fdt32(static_cast<uint32_t>(size));
    return fdt_setprop(fdt, node, "reg", reg, n * 4);
}

namespace {
// Builds structure-block tokens (Devicetree Specification 5.4.1) in a buffer.
struct Tokens {
    static constexpr unsigned kMax = kReserveTokens;
    uint8_t b[kMax];
    uint32_t n = 0;
    bool ok = true;
    void word(uint32_t v) {
        if (n + 4 > kMax) { ok = false; return; }
        fdtw::put_be32(b + n, v);
        n += 4;
    }
    void bytes(const void *p, uint32_t len) { // padded to 4
        if (n + fdtw::align4(len) > kMax) { ok = false; return; }
        if (len) memcpy(b + n, p, len);
        for (uint32_t k = len; k < fdtw::align4(len); k++) b[n + k] = 0;
        n += fdtw::align4(len);
    }
    void begin(const char *name) {
        word(fdtw::TOKEN_BEGIN_NODE);
        bytes(name, static_cast<uint32_t>(strlen(name)) + 1);
    }
    void prop(int nameoff, const void *v, uint32_t len) {
        if (nameoff < 0) ok = false;
        word(fdtw::TOKEN_PROP);
        word(len);
        word(static_cast<uint32_t>(nameoff));
        bytes(v, len);
    }
    void cells(int nameoff, const uint64_t *v, unsigned count, const int *ncells) {
        fdt32_t c[8];
        unsigned k = 0;
        for (unsigned i = 0; i < count; i++) {
            if (ncells[i] == 2) c[k++] = cpu_to_fdt32(static_cast<uint32_t>(v[i] >> 32));
            c[k++] = cpu_to_fdt32(static_cast<uint32_t>(v[i]));
        }
        prop(nameoff, c, 4 * k);
    }
};
} // namespace

int fixup_reserve(void *fdt, uint64_t base, uint64_t size, const char *prefix) {
    // One walk of the root and its children finds /reserved-memory and
    // where a node goes, and the new node(s) go in with one move of what
    // follows: libfdt's path look-up, fdt_add_subnode and each fdt_setprop
    // walked or moved the whole tree once each, growing with the harts.
    struct Visitor {
        const uint8_t *base;
        int ac = 2, sc = 1;              // the root's cells (libfdt's defaults when absent)
        int resv = -1, rac = -1, rsc = -1; // /reserved-memory and its cells
        uint32_t root_end = 8, resv_end = 0; // right after each one's properties
        bool in_resv = false, exists = false;
        const char *child;                // the name the new node gets
        bool begin(int off, int depth, const char *name) {
            if (depth == 1) {
                in_resv = !strcmp(name, "reserved-memory") && resv < 0;
                if (in_resv) resv = off, resv_end = static_cast<uint32_t>(off) + 4 + fdtw::align4(static_cast<uint32_t>(strlen(name)) + 1);
            }
            if (depth == 2 && !strcmp(name, child)) exists = true;
            return depth == 0 || (depth == 1 && in_resv);
        }
        void prop(int, int depth, const fdtw::Prop &p) {
            const uint32_t end = static_cast<uint32_t>(static_cast<const uint8_t *>(p.data) - base) +
                                 fdtw::align4(static_cast<uint32_t>(p.len));
            const bool cells = p.len == 4 && (fdtw::name_is(p, "#address-cells") || fdtw::name_is(p, "#size-cells"));
            const int v = cells ? static_cast<int>(fdtw::be32(p.data)) : 0;
            if (depth == 0) {
                root_end = end;
                if (cells) (p.name[1] == 'a' ? ac : sc) = v;
            } else if (depth == 1 && in_resv) {
                resv_end = end;
                if (cells) (p.name[1] == 'a' ? rac : rsc) = v;
            }
        }
        void end(int, int depth) {
            if (depth == 1) in_resv = false;
        }
    } v{static_cast<const uint8_t *>(fdt) + fdtw::header(fdt, fdtw::HDR_OFF_STRUCT)};
    char name[48];
    {
        int k = 0;
        while (prefix[k] && k < 30) {
            name[k] = prefix[k];
            k++;
        }
        name[k++] = '@';
        name[k] = 0;
        char hex[17];
        int n = 0;
        uint64_t x = base;
        do {
            unsigned d = x & 15;
            hex[n++] = static_cast<char>(d < 10 ? '0' + d : 'a' + d - 10);
            x >>= 4;
        } while (x);
        while (n) name[k++] = hex[--n];
        name[k] = 0;
    }
    v.child = name;
    if (!fdtw::walk(fdt, 0, v)) return -FDT_ERR_BADSTRUCTURE;
    if (v.ac < 1 || v.ac > 2 || v.sc < 1 || v.sc > 2) return -FDT_ERR_BADNCELLS;
    if (v.exists) return -FDT_ERR_EXISTS;
    // Reserved-memory binding: a new /reserved-memory has the root's cells
    // and identity ranges; an existing one keeps its own (absent: 2 and 1).
    int ac = v.ac, sc = v.sc;
    if (v.resv >= 0) {
        ac = v.rac < 0 ? 2 : v.rac;
        sc = v.rsc < 0 ? 1 : v.rsc;
        if (ac < 1 || ac > 2 || sc < 1 || sc > 2) return -FDT_ERR_BADNCELLS;
    }
    const int reg = fdtw::string_offset(fdt, "reg"), nomap = fdtw::string_offset(fdt, "no-map");
    Tokens t;
    if (v.resv < 0) {
        const int acn = fdtw::string_offset(fdt, "#address-cells"), scn = fdtw::string_offset(fdt, "#size-cells"),
                  ranges = fdtw::string_offset(fdt, "ranges");
        const fdt32_t a = cpu_to_fdt32(static_cast<uint32_t>(ac)), s = cpu_to_fdt32(static_cast<uint32_t>(sc));
        t.begin("reserved-memory");
        t.prop(acn, &a, 4);
        t.prop(scn, &s, 4);
        t.prop(ranges, nullptr, 0);
    }
    t.begin(name);
    const uint64_t r[2] = {base, size};
    const int n[2] = {ac, sc};
    t.cells(reg, r, 2, n);
    t.prop(nomap, nullptr, 0);
    t.word(fdtw::TOKEN_END_NODE);
    if (v.resv < 0) t.word(fdtw::TOKEN_END_NODE);
    if (!t.ok) return -FDT_ERR_NOSPACE;
    // Where libfdt's fdt_add_subnode puts a node: its parent's first child.
    return fdtw::insert(fdt, v.resv < 0 ? v.root_end : v.resv_end, t.b, t.n) ? -FDT_ERR_NOSPACE : 0;
}

uint64_t growth_limit(const void *fdt, uint64_t at, const Memory &m) {
    const uint64_t end = at + fdt_totalsize(fdt);
    uint64_t limit = end;
    for (unsigned i = 0; i < m.count; i++)
        if (at >= m.r[i].base && end - m.r[i].base <= m.r[i].size) limit = m.r[i].base + m.r[i].size;
    // What lies after the tree and must stay: only regions that start at or
    // after its end (one that holds the tree is the tree's own reservation).
    auto clip = [&](uint64_t base) {
        if (base >= end && base < limit) limit = base;
    };
    for (int i = 0, n = fdt_num_mem_rsv(fdt); i < n; i++) {
        uint64_t a, s;
        if (!fdt_get_mem_rsv(fdt, i, &a, &s) && s) clip(a);
    }
    for (unsigned i = 0; i < m.resv_count; i++) clip(m.resv[i]);
    if (m.initrd) clip(m.initrd);
    if (!m.resv_more) return limit;
    // More /reserved-memory children than scan_memory keeps: all of them
    // (the binding's #address-cells and #size-cells; 2 and 1 when absent).
    const int resv = fdtw::root_child(fdt, "reserved-memory");
    const int ac = fdt_address_cells(fdt, resv), sc = fdt_size_cells(fdt, resv);
    if (resv < 0 || ac < 1 || ac > 2 || sc < 0 || sc > 2) return limit;
    int node;
    fdt_for_each_subnode(node, fdt, resv) {
        int len;
        auto *reg = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, "reg", &len));
        for (int k = 0; reg && (k + 1) * (ac + sc) * 4 <= len; k++) clip(read_cells(reg + k * (ac + sc), ac));
    }
    return limit;
}

} // namespace fw::dt
