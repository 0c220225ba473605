// SPDX-License-Identifier: BSD-2-Clause
// Device-tree edits of every cpu node in one pass over the blob (issue 29,
// "apply fix-ups in one pass"). libfdt splices the blob at every edit that
// changes a node's length (fdt_setprop, fdt_appendprop): everything after
// the edit moves, so an edit of every cpu node moved the tail of the tree
// once per hart. rewrite_cpus plans each node's edits in one walk, moves the
// blocks up by the total growth once, and copies them back down in a second
// walk with the edits written in (Devicetree Specification v0.4, 5.4
// "Structure Block": a property is FDT_PROP, its length, its name's offset
// in the strings block, its value padded to 4 bytes; libfdt's fdt_open_into
// leaves the strings block right after the structure block).
//
// Edits only grow or keep a property (boot fix-ups add properties, append to
// lists and lengthen strings; what they remove is cut in place with FDT_NOP
// tokens, dt::shrink_prop_inplace). Header-only: the host tests compare its
// results with libfdt's edits.
#pragma once
#include "fdt_walk.hpp"

namespace fdtw {

// One property written at structure-block offset `off` in place of the
// `del` bytes there (0: inserted; otherwise the whole old property, token
// to padding). Its value: the old property's value without its last `drop`
// bytes when `keep_old` (e.g. a string's NUL), then `value[0..vlen)`.
struct Edit {
    uint32_t off, del;
    uint32_t nameoff;
    const char *value;
    uint16_t vlen;
    uint8_t keep_old, drop;
};

constexpr uint32_t align4(uint32_t n) { return (n + 3) & ~3u; }

inline void put_be32(void *p, uint32_t v) {
    auto *b = static_cast<uint8_t *>(p);
    b[0] = uint8_t(v >> 24), b[1] = uint8_t(v >> 16), b[2] = uint8_t(v >> 8), b[3] = uint8_t(v);
}
inline void set_header(void *fdt, unsigned word, uint32_t v) {
    put_be32(static_cast<uint8_t *>(fdt) + 4 * word, v);
}

// The old property's value length at structure offset `off` (a FDT_PROP token).
inline uint32_t old_len(const void *fdt, uint32_t off) {
    return be32(static_cast<const uint8_t *>(fdt) + header(fdt, HDR_OFF_STRUCT) + off + 4);
}

// Bytes the property of edit `e` occupies once written.
inline uint32_t edit_size(const void *fdt, const Edit &e) {
    uint32_t n = e.vlen;
    if (e.keep_old) n += old_len(fdt, e.off) - e.drop;
    return 12 + align4(n);
}

// The offset of `s` in the strings block, appended when absent; -1 when the
// blob has no room for it. Only whole strings are matched.
inline int string_offset(void *fdt, const char *s) {
    auto *strings = static_cast<char *>(fdt) + header(fdt, HDR_OFF_STRINGS);
    const uint32_t size = header(fdt, HDR_SIZE_STRINGS);
    const uint32_t n = static_cast<uint32_t>(strlen(s)) + 1;
    for (uint32_t i = 0; i < size;) {
        const uint32_t l = static_cast<uint32_t>(strnlen(strings + i, size - i)) + 1;
        if (l == n && !memcmp(strings + i, s, n)) return static_cast<int>(i);
        i += l;
    }
    if (header(fdt, HDR_OFF_STRINGS) + size + n > header(fdt, HDR_TOTALSIZE)) return -1;
    memcpy(strings + size, s, n);
    set_header(fdt, HDR_SIZE_STRINGS, size + n);
    return static_cast<int>(size);
}

// Inserts `len` bytes (a whole number of tokens, len a multiple of 4) at
// structure offset `off`: what follows, the strings block included, moves
// once. Returns 0, or -1 (tree unchanged) without room in the blob.
inline int insert(void *fdt, uint32_t off, const void *bytes, uint32_t len) {
    const uint32_t off_struct = header(fdt, HDR_OFF_STRUCT), size_struct = header(fdt, HDR_SIZE_STRUCT);
    const uint32_t off_strings = header(fdt, HDR_OFF_STRINGS), size_strings = header(fdt, HDR_SIZE_STRINGS);
    if (off_strings != off_struct + size_struct || (len & 3) || (off & 3) || off > size_struct ||
        uint64_t(off_strings) + size_strings + len > header(fdt, HDR_TOTALSIZE))
        return -1;
    auto *base = static_cast<uint8_t *>(fdt) + off_struct;
    memmove(base + off + len, base + off, size_struct + size_strings - off);
    memcpy(base + off, bytes, len);
    set_header(fdt, HDR_SIZE_STRUCT, size_struct + len);
    set_header(fdt, HDR_OFF_STRINGS, off_strings + len);
    return 0;
}

// Per cpu node of /cpus (a child of `cpus` whose device_type is "cpu"), in
// one walk: f(node, props_end, props) with the structure offset right after
// its last property and its properties, called when the node has closed (f
// may edit it in place). props.start is the offset right after the node's
// name, where libfdt's fdt_setprop puts a new property (first). Returns
// false when the walk failed.
struct NodeProps {
    static constexpr unsigned kMax = 32;
    uint32_t off[kMax]; // of each FDT_PROP token
    Prop prop[kMax];
    unsigned n;
    bool overflow;  // the node has more than kMax properties: the rest are not here
    uint32_t start; // right after the node's name: where a new property goes
    // The property `s`, or null; its FDT_PROP offset in `at`.
    const Prop *find(const char *s, uint32_t *at = nullptr) const {
        for (unsigned i = 0; i < n; i++)
            if (name_is(prop[i], s)) {
                if (at) *at = off[i];
                return &prop[i];
            }
        return nullptr;
    }
};
template <class F> bool for_each_cpu_props(const void *fdt, int cpus, F &f) {
    struct Visitor {
        const uint8_t *base;
        F &f;
        NodeProps np;
        int node;
        uint32_t props_end;
        bool cpu;
        bool begin(int off, int depth, const char *name) {
            if (depth == 1) {
                node = off, cpu = false, np.n = 0, np.overflow = false;
                props_end = static_cast<uint32_t>(after_name(reinterpret_cast<const uint8_t *>(name)) - base);
                np.start = props_end;
            }
            return depth <= 1;
        }
        void prop(int, int depth, const Prop &p) {
            if (depth != 1) return;
            const uint32_t data = static_cast<uint32_t>(static_cast<const uint8_t *>(p.data) - base);
            props_end = data + align4(static_cast<uint32_t>(p.len));
            if (is_cpu_type(p)) cpu = true;
            if (np.n < NodeProps::kMax) {
                np.off[np.n] = data - 12;
                np.prop[np.n++] = p;
            } else {
                np.overflow = true;
            }
        }
        void end(int, int depth) {
            if (depth == 1 && cpu) f(node, props_end, static_cast<const NodeProps &>(np));
        }
    } v{static_cast<const uint8_t *>(fdt) + header(fdt, HDR_OFF_STRUCT), f, {}, 0, 0, false};
    return walk(fdt, cpus, v);
}

// At most this many edits per cpu node.
constexpr unsigned kMaxNodeEdits = 4;

// Edits the cpu nodes of /cpus (`cpus`, a structure offset) in one pass:
// plan(props_end, props, edits) fills up to kMaxNodeEdits edits of one node
// in ascending offset order (a replaced property's FDT_PROP offset, or
// props.start or props_end for a new one) and returns how many; it is called twice per node
// with the same tree and must answer the same. The first walk sums the
// growth; then the structure and strings blocks move up by it at once and a
// second walk copies them back down, writing each edit where it lands, so
// every byte moves twice whatever the number of edits (the copy never
// overtakes what it still has to read: it trails the read position by the
// growth still to come). Names of new properties must be in the strings
// block already (string_offset). Returns 0, or -1 (tree unchanged) when the
// walk fails, an edit shrinks, overlaps or is out of order, or the blob has
// no room for the growth.
template <class P> int rewrite_cpus(void *fdt, int cpus, P plan) {
    const uint32_t off_struct = header(fdt, HDR_OFF_STRUCT), size_struct = header(fdt, HDR_SIZE_STRUCT);
    const uint32_t off_strings = header(fdt, HDR_OFF_STRINGS), size_strings = header(fdt, HDR_SIZE_STRINGS);
    if (off_strings != off_struct + size_struct) return -1;
    uint64_t growth = 0;
    bool ok = true;
    auto measure = [&](int, uint32_t props_end, const NodeProps &np) {
        Edit e[kMaxNodeEdits];
        const unsigned n = plan(props_end, np, e);
        uint32_t prev = 0;
        for (unsigned i = 0; i < n && i < kMaxNodeEdits; i++) {
            const uint32_t size = edit_size(fdt, e[i]);
            if (size < e[i].del || (e[i].off & 3) || e[i].off < prev || e[i].off + e[i].del > props_end ||
                (e[i].keep_old && old_len(fdt, e[i].off) < e[i].drop))
                ok = false;
            prev = e[i].off + e[i].del;
            growth += size - e[i].del;
        }
        if (n > kMaxNodeEdits || np.overflow) ok = false;
    };
    if (!for_each_cpu_props(fdt, cpus, measure) || !ok) return -1;
    if (!growth) return 0;
    if (uint64_t(off_strings) + size_strings + growth > header(fdt, HDR_TOTALSIZE)) return -1;
    auto *fdtb = static_cast<uint8_t *>(fdt);
    const uint32_t g = static_cast<uint32_t>(growth), total = size_struct + size_strings;
    uint8_t *dst = fdtb + off_struct;
    memmove(dst + g, dst, total);
    // The walk reads the moved copy; offsets within it are the old ones.
    set_header(fdt, HDR_OFF_STRUCT, off_struct + g);
    set_header(fdt, HDR_OFF_STRINGS, off_strings + g);
    const uint8_t *src = dst + g;
    uint32_t read = 0; // bytes of the moved copy written back so far
    auto copy = [&](int, uint32_t props_end, const NodeProps &np) {
        Edit e[kMaxNodeEdits];
        const unsigned n = plan(props_end, np, e);
        for (unsigned i = 0; i < n; i++) {
            memmove(dst, src + read, e[i].off - read);
            dst += e[i].off - read;
            const uint32_t size = edit_size(fdt, e[i]);
            const uint32_t kept = e[i].keep_old ? old_len(fdt, e[i].off) - e[i].drop : 0;
            const uint32_t len = kept + e[i].vlen;
            memmove(dst + 12, src + e[i].off + 12, kept);
            put_be32(dst, TOKEN_PROP);
            put_be32(dst + 4, len);
            put_be32(dst + 8, e[i].nameoff);
            memcpy(dst + 12 + kept, e[i].value, e[i].vlen);
            for (uint32_t k = 12 + len; k < size; k++) dst[k] = 0;
            dst += size;
            read = e[i].off + e[i].del;
        }
    };
    for_each_cpu_props(fdt, cpus, copy);
    memmove(dst, src + read, total - read);
    set_header(fdt, HDR_OFF_STRUCT, off_struct);
    set_header(fdt, HDR_SIZE_STRUCT, size_struct + g);
    set_header(fdt, HDR_OFF_STRINGS, off_strings + g);
    return 0;
}

} // namespace fdtw
