// SPDX-License-Identifier: BSD-2-Clause
// One pass over a flattened device tree's structure block, every node and
// property visited once (Devicetree Specification v0.4, 5.4 "Structure
// Block"). libfdt answers one question per walk: fdt_getprop compares the
// name of every property of the node it is asked about, fdt_next_node reads
// node names a byte at a time, and a tree walk for each look-up made the cold
// boot grow by hundreds of thousands of instructions per hart. Boot code that
// needs several facts about many nodes reads them here in one pass instead.
// Offsets are libfdt's (from the start of the structure block), so a node
// found here can be handed to libfdt. The blob is trusted as libfdt is told
// to trust it (firmware/build.mk, FDT_ASSUME_MASK); a token the walk does
// not know ends it.
#pragma once
#include <stdint.h>
#include <string.h>

namespace fdtw {

constexpr uint32_t FDT_MAGIC_VALUE = 0xd00dfeed;
// Structure block tokens (Devicetree Specification, 5.4.1 "Lexical structure").
constexpr uint32_t TOKEN_BEGIN_NODE = 1, TOKEN_END_NODE = 2, TOKEN_PROP = 3, TOKEN_NOP = 4,
                   TOKEN_END = 9;
// Header fields (5.2 "Header"), as 32-bit big-endian word indices.
constexpr unsigned HDR_MAGIC = 0, HDR_TOTALSIZE = 1, HDR_OFF_STRUCT = 2, HDR_OFF_STRINGS = 3,
                   HDR_VERSION = 5, HDR_SIZE_STRINGS = 8, HDR_SIZE_STRUCT = 9;

// Inlined: every token of every walk reads one to three of these, and a
// call each made the walks' per-hart cost (issue 29) a fifth larger.
[[gnu::always_inline]] inline uint32_t be32(const void *p) {
    const auto *b = static_cast<const uint8_t *>(p);
    return uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 | uint32_t(b[2]) << 8 | b[3];
}
inline uint32_t header(const void *fdt, unsigned word) {
    return be32(static_cast<const uint8_t *>(fdt) + 4 * word);
}

// The header says it is a tree whose blocks lie inside it (version 17, the
// one with size_dt_struct, which every producer writes), at an 8-byte
// aligned address with its structure block 4-aligned (Devicetree
// Specification v0.4, 5.1 and 5.4.2; libfdt refuses a misaligned blob too,
// FDT_ERR_ALIGNMENT): the walks below read its tokens as aligned words.
inline bool header_ok(const void *fdt) {
    if ((reinterpret_cast<uintptr_t>(fdt) & 7) || header(fdt, HDR_MAGIC) != FDT_MAGIC_VALUE ||
        header(fdt, HDR_VERSION) < 17 || (header(fdt, HDR_OFF_STRUCT) & 3))
        return false;
    const uint64_t total = header(fdt, HDR_TOTALSIZE);
    return uint64_t(header(fdt, HDR_OFF_STRUCT)) + header(fdt, HDR_SIZE_STRUCT) <= total &&
           uint64_t(header(fdt, HDR_OFF_STRINGS)) + header(fdt, HDR_SIZE_STRINGS) <= total;
}

struct Prop {
    const char *name;
    const void *data;
    int len;
};

// A token as a native 32-bit load of its big-endian word reads it, so a
// token is told from another without swapping its bytes.
constexpr uint32_t raw_token(uint32_t t) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return t >> 24 | (t >> 8 & 0xff00u) | (t << 8 & 0xff0000u) | t << 24;
#else
    return t;
#endif
}
typedef uint32_t __attribute__((may_alias)) Word32;

// The structure block's word at `p`, as loaded (a token's offset is a
// multiple of 4, and header_ok checked the block's alignment).
[[gnu::always_inline]] inline uint32_t raw_word(const uint8_t *p) {
    return *static_cast<const Word32 *>(__builtin_assume_aligned(p, 4));
}

// The token after a node's name at `p`: the name and its NUL are padded to a
// word (5.4.1), so the first word holding a zero byte is its last. A word at
// a time, where strlen would measure every name of every walk.
[[gnu::always_inline]] inline const uint8_t *after_name(const uint8_t *p) {
    uint32_t w;
    do {
        w = raw_word(p);
        p += 4;
    } while (!((w - 0x01010101u) & ~w & 0x80808080u));
    return p;
}

// The offset right after the FDT_END_NODE that closes the node whose
// properties start at `off` (its name read), reading the tokens alone; 0 at
// a token it does not know or past `size`. What every walk does with the
// subtrees it skips (the children of cpu nodes, /cpus for a walk of the
// devices), so its cost per hart is a few instructions a token.
inline uint32_t skip_subtree(const uint8_t *base, uint32_t off, uint32_t size) {
    const uint8_t *p = base + off, *const end = base + size;
    for (int depth = 1; p + 4 <= end;) {
        const uint32_t tok = raw_word(p);
        p += 4;
        if (tok == raw_token(TOKEN_PROP)) {
            p += 8 + ((be32(p) + 3) & ~3u);
        } else if (tok == raw_token(TOKEN_BEGIN_NODE)) {
            p = after_name(p);
            depth++;
        } else if (tok == raw_token(TOKEN_END_NODE)) {
            if (--depth == 0) return static_cast<uint32_t>(p - base);
        } else if (tok != raw_token(TOKEN_NOP)) {
            return 0;
        }
    }
    return 0;
}

// Walks the subtree at `node` (0: the whole tree), calling
//   v.begin(offset, depth, name)  for each node (depth 0: `node` itself),
//                                 returning false to skip its subtree,
//   v.prop(offset, depth, Prop)   for each of its properties,
//   v.end(offset, depth)          when the node closes.
// Returns false when the walk met a token it does not know.
template <class V> bool walk(const void *fdt, int node, V &v) {
    const auto *base = static_cast<const uint8_t *>(fdt) + header(fdt, HDR_OFF_STRUCT);
    const char *strings = static_cast<const char *>(fdt) + header(fdt, HDR_OFF_STRINGS);
    const uint32_t size = header(fdt, HDR_SIZE_STRUCT);
    constexpr int kMaxDepth = 32;
    int open[kMaxDepth]; // offsets of the nodes open at each depth
    uint32_t off = static_cast<uint32_t>(node);
    int depth = -1;
    while (off + 4 <= size) {
        const uint32_t tok = raw_word(base + off);
        const uint32_t at = off;
        off += 4;
        if (tok == raw_token(TOKEN_PROP)) { // the commonest token first
            const uint32_t len = be32(base + off);
            if (depth < 0) return false;
            v.prop(open[depth], depth, Prop{strings + be32(base + off + 4), base + off + 8, static_cast<int>(len)});
            off += 8 + ((len + 3) & ~3u);
        } else if (tok == raw_token(TOKEN_BEGIN_NODE)) {
            const char *name = reinterpret_cast<const char *>(base + off);
            off = static_cast<uint32_t>(after_name(base + off) - base);
            if (++depth >= kMaxDepth) return false;
            open[depth] = static_cast<int>(at);
            if (!v.begin(static_cast<int>(at), depth, name)) {
                // Skipped, its end() not called: the tokens alone.
                if (!(off = skip_subtree(base, off, size))) return false;
                if (--depth < 0) return true;
            }
        } else if (tok == raw_token(TOKEN_END_NODE)) {
            if (depth < 0) return false;
            v.end(open[depth], depth);
            if (--depth < 0) return true; // `node` closed
        } else if (tok != raw_token(TOKEN_NOP)) {
            return tok == raw_token(TOKEN_END);
        }
    }
    return false;
}

// A property named `s`: the first byte compared inline, since most names
// differ there (a walk compares every property of every cpu node).
[[gnu::always_inline]] inline bool name_is(const Prop &p, const char *s) {
    return p.name[0] == s[0] && !strcmp(p.name, s);
}

// The root's /cpus node (walked at depth 1 from the root): it holds the
// cpu nodes, their interrupt controllers and cpu-map (Devicetree
// Specification 3.7, 3.8), and grows with the harts; walks that look for
// devices skip it (issue 29, boot cost).
[[gnu::always_inline]] inline bool is_cpus(int depth, const char *name) {
    return depth == 1 && name[0] == 'c' && !strcmp(name, "cpus");
}

// device_type = "cpu" (Devicetree Specification 3.8 "/cpus/cpu*").
[[gnu::always_inline]] inline bool is_cpu_type(const Prop &p) {
    return p.len == 4 && be32(p.data) == 0x63707500u && name_is(p, "device_type"); // "cpu\0"
}

// As fdt_path_offset(fdt, "/<name>") for a child of the root (a name
// without a unit address matches one that has one; the first in the tree),
// or -1 (-FDT_ERR_NOTFOUND): one walk of the root's children that crosses
// their subtrees a token at a time, where libfdt's look-up reads every
// earlier node byte by byte (/cpus, and the trace components of the project
// QEMU 10, grow with the harts).
inline int root_child(const void *fdt, const char *name) {
    const auto *base = static_cast<const uint8_t *>(fdt) + header(fdt, HDR_OFF_STRUCT);
    const uint32_t size = header(fdt, HDR_SIZE_STRUCT);
    const size_t n = strlen(name);
    if (size < 4 || raw_word(base) != raw_token(TOKEN_BEGIN_NODE)) return -1;
    uint32_t off = static_cast<uint32_t>(after_name(base + 4) - base); // the root's name
    while (off + 4 <= size) {
        const uint32_t tok = raw_word(base + off), at = off;
        off += 4;
        if (tok == raw_token(TOKEN_PROP)) {
            off += 8 + ((be32(base + off) + 3) & ~3u);
        } else if (tok == raw_token(TOKEN_BEGIN_NODE)) {
            const char *s = reinterpret_cast<const char *>(base + off);
            if (!strncmp(s, name, n) && (s[n] == 0 || s[n] == '@')) return static_cast<int>(at);
            off = static_cast<uint32_t>(after_name(base + off) - base);
            if (!(off = skip_subtree(base, off, size))) return -1;
        } else if (tok != raw_token(TOKEN_NOP)) {
            return -1; // the root's FDT_END_NODE, or a token not known
        }
    }
    return -1;
}

// Whether a stringlist property (e.g. compatible) holds `s`.
// __builtin_strlen: `s` is a constant at every call, and -ffreestanding
// would otherwise measure it once per property.
[[gnu::always_inline]] inline bool stringlist_has(const Prop &p, const char *s) {
    const char *d = static_cast<const char *>(p.data);
    const int n = static_cast<int>(__builtin_strlen(s)) + 1;
    for (int i = 0; i < p.len;) {
        int l = static_cast<int>(strnlen(d + i, p.len - i)) + 1;
        if (l == n && !memcmp(d + i, s, n)) return true;
        i += l;
    }
    return false;
}

// Calls f(node) for each child of `parent` whose device_type is "cpu" (the
// cpu nodes of /cpus), from the last to the first: an edit that grows or
// shrinks node k moves only what follows it, so the nodes still to come keep
// their offsets and no node is looked up twice. Offsets are gathered kChunk
// at a time (the last ones first) in one walk each. Stops at the first
// non-zero return of f and returns it.
template <class F> int for_each_cpu_reverse(void *fdt, int parent, F f) {
    constexpr unsigned kChunk = 64;
    int below = 0x7fffffff; // nodes at or after this offset are done
    for (;;) {
        struct Visitor {
            int below;
            int ring[kChunk];
            unsigned n = 0; // nodes seen (the last kChunk of them kept)
            int node;
            bool cpu;
            bool begin(int off, int depth, const char *) {
                if (depth == 1) node = off, cpu = false;
                return depth <= 1 && off < below;
            }
            void prop(int, int depth, const Prop &p) {
                if (depth == 1 && is_cpu_type(p)) cpu = true;
            }
            void end(int, int depth) {
                if (depth == 1 && cpu) ring[n++ % kChunk] = node;
            }
        } v{below, {}, 0, 0, false};
        if (!walk(fdt, parent, v) || !v.n) return 0;
        const unsigned kept = v.n < kChunk ? v.n : kChunk;
        for (unsigned i = 0; i < kept; i++) {
            const int node = v.ring[(v.n - 1 - i) % kChunk];
            if (int err = f(node)) return err;
            below = node;
        }
        if (v.n <= kChunk) return 0;
    }
}

} // namespace fdtw
