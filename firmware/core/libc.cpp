// SPDX-License-Identifier: BSD-2-Clause
// The few C library routines libfdt and the compiler need in a freestanding
// image. Built with -fno-tree-loop-distribute-patterns so the loops below are
// not turned back into calls to themselves.
#include <stddef.h>
#include <stdint.h>

extern "C" {

// Word copies where both pointers share their alignment (device-tree edits
// move the blob's tail by multiples of 4 bytes; the bss is 16-byte aligned):
// a machine word a step, or 4 bytes where the two are 4 apart mod 8, instead
// of a byte.
extern "C++" {
namespace {
typedef unsigned long __attribute__((may_alias)) Word;
typedef uint32_t __attribute__((may_alias)) Word32;

// The widest unit both `d` and `s` are aligned to once `head` bytes are done.
template <class W> inline bool same_phase(const void *d, const void *s) {
    return ((reinterpret_cast<uintptr_t>(d) ^ reinterpret_cast<uintptr_t>(s)) & (sizeof(W) - 1)) == 0;
}

template <class W> void copy_forward(unsigned char *dp, const unsigned char *sp, size_t n) {
    while (n && (reinterpret_cast<uintptr_t>(dp) & (sizeof(W) - 1))) *dp++ = *sp++, n--;
    for (; n >= sizeof(W); n -= sizeof(W), dp += sizeof(W), sp += sizeof(W))
        *reinterpret_cast<W *>(dp) = *reinterpret_cast<const W *>(sp);
    while (n--) *dp++ = *sp++;
}

template <class W> void copy_backward(unsigned char *dp, const unsigned char *sp, size_t n) {
    while (n && (reinterpret_cast<uintptr_t>(dp + n) & (sizeof(W) - 1))) n--, dp[n] = sp[n];
    for (; n >= sizeof(W); n -= sizeof(W))
        *reinterpret_cast<W *>(dp + n - sizeof(W)) = *reinterpret_cast<const W *>(sp + n - sizeof(W));
    while (n--) dp[n] = sp[n];
}
} // namespace
} // extern "C++"

void *memcpy(void *d, const void *s, size_t n) {
    auto *dp = static_cast<unsigned char *>(d);
    auto *sp = static_cast<const unsigned char *>(s);
    if (same_phase<Word>(dp, sp)) copy_forward<Word>(dp, sp, n);
    else if (same_phase<Word32>(dp, sp)) copy_forward<Word32>(dp, sp, n);
    else copy_forward<unsigned char>(dp, sp, n);
    return d;
}

void *memmove(void *d, const void *s, size_t n) {
    auto *dp = static_cast<unsigned char *>(d);
    auto *sp = static_cast<const unsigned char *>(s);
    if (dp < sp) return memcpy(d, s, n); // a forward copy never overwrites what it still reads
    if (dp == sp) return d;
    if (same_phase<Word>(dp, sp)) copy_backward<Word>(dp, sp, n);
    else if (same_phase<Word32>(dp, sp)) copy_backward<Word32>(dp, sp, n);
    else copy_backward<unsigned char>(dp, sp, n);
    return d;
}

void *memset(void *d, int c, size_t n) {
    auto *dp = static_cast<unsigned char *>(d);
    const auto b = static_cast<unsigned char>(c);
    while (n && (reinterpret_cast<uintptr_t>(dp) & (sizeof(Word) - 1))) {
        *dp++ = b;
        n--;
    }
    const Word w = static_cast<Word>(b) * (~static_cast<Word>(0) / 0xff);
    // Four words a step: cold boot clears every hart's carved state with it.
    for (; n >= 4 * sizeof(Word); n -= 4 * sizeof(Word), dp += 4 * sizeof(Word)) {
        auto *q = reinterpret_cast<Word *>(dp);
        q[0] = w, q[1] = w, q[2] = w, q[3] = w;
    }
    for (; n >= sizeof(Word); n -= sizeof(Word), dp += sizeof(Word)) *reinterpret_cast<Word *>(dp) = w;
    while (n--) *dp++ = b;
    return d;
}

// Words first where both share their alignment (cold boot compares each
// cpu node's ISA string with the previous node's, issue 29), then bytes
// from the first word that differs.
int memcmp(const void *a, const void *b, size_t n) {
    auto *ap = static_cast<const unsigned char *>(a);
    auto *bp = static_cast<const unsigned char *>(b);
    if (same_phase<Word32>(ap, bp)) {
        for (; n && (reinterpret_cast<uintptr_t>(ap) & 3); n--, ap++, bp++)
            if (*ap != *bp) return *ap - *bp;
        for (; n >= 4 && *reinterpret_cast<const Word32 *>(ap) == *reinterpret_cast<const Word32 *>(bp);
             n -= 4, ap += 4, bp += 4) {}
    }
    for (; n; n--, ap++, bp++)
        if (*ap != *bp) return *ap - *bp;
    return 0;
}

void *memchr(const void *s, int c, size_t n) {
    auto *p = static_cast<const unsigned char *>(s);
    for (; n; n--, p++)
        if (*p == static_cast<unsigned char>(c)) return const_cast<unsigned char *>(p);
    return nullptr;
}

// A machine word at a time once aligned (device-tree walks measure every
// node name: cold boot's cost per hart, issue 29): a word holds a zero byte
// iff (w - 0x01..01) & ~w & 0x80..80 is non-zero. The bytes read past the
// terminator lie in its aligned word: the same page, and memory (the image,
// the device tree in RAM) that comes in whole aligned words.
size_t strlen(const char *s) {
    const char *p = s;
    for (; reinterpret_cast<uintptr_t>(p) & (sizeof(Word) - 1); p++)
        if (!*p) return static_cast<size_t>(p - s);
    constexpr Word kOnes = ~static_cast<Word>(0) / 0xff, kHighs = kOnes << 7;
    auto *w = reinterpret_cast<const Word *>(p);
    while (!((*w - kOnes) & ~*w & kHighs)) w++;
    for (p = reinterpret_cast<const char *>(w); *p; p++) {}
    return static_cast<size_t>(p - s);
}

size_t strnlen(const char *s, size_t max) {
    size_t n = 0;
    while (n < max && s[n]) n++;
    return n;
}

char *strchr(const char *s, int c) {
    for (;; s++) {
        if (*s == static_cast<char>(c)) return const_cast<char *>(s);
        if (!*s) return nullptr;
    }
}

char *strrchr(const char *s, int c) {
    const char *last = nullptr;
    for (;; s++) {
        if (*s == static_cast<char>(c)) last = s;
        if (!*s) return const_cast<char *>(last);
    }
}

int strcmp(const char *a, const char *b) {
    while (*a && *a == *b) a++, b++;
    return static_cast<unsigned char>(*a) - static_cast<unsigned char>(*b);
}

int strncmp(const char *a, const char *b, size_t n) {
    for (; n; n--, a++, b++) {
        if (*a != *b) return static_cast<unsigned char>(*a) - static_cast<unsigned char>(*b);
        if (!*a) return 0;
    }
    return 0;
}

unsigned long strtoul(const char *s, char **end, int base) {
    unsigned long v = 0;
    if (base == 0) base = 10;
    for (;; s++) {
        int d = (*s >= '0' && *s <= '9') ? *s - '0'
                : (*s >= 'a' && *s <= 'z') ? *s - 'a' + 10
                : (*s >= 'A' && *s <= 'Z') ? *s - 'A' + 10
                : 99;
        if (d >= base) break;
        v = v * base + d;
    }
    if (end) *end = const_cast<char *>(s);
    return v;
}

} // extern "C"

// Bit-scan helpers the compiler calls on harts without Zbb. Debian's libgcc
// is built for the lp64d ABI and cannot be linked into this soft-float image.
extern "C" {
int __ctzdi2(unsigned long long x) {
    // De Bruijn multiply: isolate the lowest set bit, map it to its index.
    static const unsigned char kIndex[64] = {
        0,  1,  2,  53, 3,  7,  54, 27, 4,  38, 41, 8,  34, 55, 48, 28,
        62, 5,  39, 46, 44, 42, 22, 9,  24, 35, 59, 56, 49, 18, 29, 11,
        63, 52, 6,  26, 37, 40, 33, 47, 61, 45, 43, 21, 23, 58, 17, 10,
        51, 25, 36, 32, 60, 20, 57, 16, 50, 31, 19, 15, 30, 14, 13, 12};
    if (!x) return 64;
    return kIndex[((x & -x) * 0x022fdd63cc95386dull) >> 58];
}
int __ctzsi2(unsigned x) { return __ctzdi2(x | (1ull << 32)); }
int __clzdi2(unsigned long long x) {
    int n = 0;
    while (!(x >> 63) && n < 64) x <<= 1, n++;
    return n;
}
int __clzsi2(unsigned x) { return __clzdi2(static_cast<unsigned long long>(x) << 32) ; }
int __popcountdi2(unsigned long long x) {
    int n = 0;
    for (; x; x &= x - 1) n++;
    return n;
}
}
