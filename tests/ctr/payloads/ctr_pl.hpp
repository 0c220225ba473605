// SPDX-License-Identifier: BSD-2-Clause
// Helpers of the CTR S-mode payloads: CSR access by constant number with the
// exception (if any) caught, and the register numbers and fields from
// firmware/ctr/ctr_spec.hpp.
#pragma once
#include "ctr_spec.hpp"
#include "payload.hpp"

namespace ctrpl {

constexpr unsigned long kNone = ~0ul; // no exception
constexpr unsigned long kIllegal = 2, kVirtual = 22;

struct Result {
    unsigned long value;
    unsigned long cause; // scause of the exception taken, or kNone
};

template <unsigned N> struct Csr {
    static void rd(void *p) {
        asm volatile("csrr %0, %1" : "=r"(*static_cast<unsigned long *>(p)) : "i"(N) : "memory");
    }
    static void wr(void *p) {
        asm volatile("csrw %0, %1" ::"i"(N), "r"(*static_cast<unsigned long *>(p)) : "memory");
    }
    static Result read() {
        unsigned long v = 0;
        unsigned long c = pl::catch_exception(rd, &v);
        return {v, c};
    }
    static unsigned long write(unsigned long v) { return pl::catch_exception(wr, &v); }
    // Writes v and reads back, then restores the old value, with no branch
    // in between (on a hart with real CTR, an enabled mode would record the
    // test's own branches).
    __attribute__((noinline)) static unsigned long probe(unsigned long v) {
        unsigned long old, got;
        asm volatile("csrrw %0, %2, %3\n\tcsrr %1, %2\n\tcsrw %2, %0"
                     : "=&r"(old), "=&r"(got)
                     : "i"(N), "r"(v)
                     : "memory");
        return got;
    }
};

using sctrctl = Csr<ctr::ratified::sctrctl>;
using sctrstatus = Csr<ctr::ratified::sctrstatus>;
using sctrdepth = Csr<ctr::ratified::sctrdepth>;
using vsctrctl = Csr<ctr::ratified::vsctrctl>;
using mctrctl = Csr<ctr::ratified::mctrctl>;
using sctrcontrol = Csr<ctr::draft::sctrcontrol>;
using sctrcontrolh = Csr<ctr::draft::sctrcontrolh>;
using dsctrstatus = Csr<ctr::draft::sctrstatus>;
using vsctrcontrol = Csr<ctr::draft::vsctrcontrol>;
using vsctrcontrolh = Csr<ctr::draft::vsctrcontrolh>;
using mctrcontrolh = Csr<ctr::draft::mctrcontrolh>;
using mctrcontrol = Csr<ctr::draft::mctrcontrol>;
using mctrstatus = Csr<ctr::draft::mctrstatus>;
using siselect = Csr<ctr::ind::siselect>;
using sireg = Csr<ctr::ind::sireg>;
using sireg2 = Csr<ctr::ind::sireg2>;
using sireg3 = Csr<ctr::ind::sireg3>;
using sireg4 = Csr<ctr::ind::sireg4>;
using sireg5 = Csr<ctr::ind::sireg5>;
using sireg6 = Csr<ctr::ind::sireg6>;

inline void sctrclr_fn(void *) { asm volatile(".4byte 0x10400073" ::: "memory"); }
inline unsigned long sctrclr() { return pl::catch_exception(sctrclr_fn, nullptr); }

// Entry register `reg` (0 source, 1 target, 2 data) of logical entry i.
inline unsigned long entry(unsigned i, unsigned reg) {
    siselect::write(ctr::ind::ctr_first + i);
    return reg == 0 ? sireg::read().value : reg == 1 ? sireg2::read().value : sireg3::read().value;
}
inline void set_entry(unsigned i, unsigned reg, unsigned long v) {
    siselect::write(ctr::ind::ctr_first + i);
    if (reg == 0) sireg::write(v);
    else if (reg == 1) sireg2::write(v);
    else sireg3::write(v);
}

// The first property `prop` in the flattened tree ("" when none): for CPU
// properties, the boot hart's on QEMU virt (cpu@0 comes first).
inline const char *fdt_first(const char *prop) {
    auto be = [](const void *p) {
        const uint8_t *b = static_cast<const uint8_t *>(p);
        return uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 | uint32_t(b[2]) << 8 | b[3];
    };
    const uint8_t *fdt = reinterpret_cast<const uint8_t *>(pl::platform().fdt);
    if (be(fdt) != 0xd00dfeed) return "";
    const uint8_t *st = fdt + be(fdt + 8);
    const char *strings = reinterpret_cast<const char *>(fdt + be(fdt + 12));
    for (uint32_t off = 0;;) {
        uint32_t tok = be(st + off);
        off += 4;
        if (tok == 1) { // FDT_BEGIN_NODE: name, padded
            while (st[off]) off++;
            off = (off + 4) & ~3u;
        } else if (tok == 3) { // FDT_PROP: len, nameoff, value, padded
            uint32_t len = be(st + off), name = be(st + off + 4);
            const char *value = reinterpret_cast<const char *>(st + off + 8);
            if (!pl::strcmp(strings + name, prop)) return value;
            off = (off + 8 + len + 3) & ~3u;
        } else if (tok == 2 || tok == 4) {
            continue;
        } else {
            return "";
        }
    }
}
// The boot hart's full riscv,isa string (the library's copy is truncated).
inline const char *fdt_isa() { return fdt_first("riscv,isa"); }
// A multi-letter extension in an ISA string ('_'-separated).
inline bool isa_has(const char *isa, const char *ext) {
    size_t n = pl::strlen(ext);
    for (const char *p = isa; *p; p++) {
        if (*p != '_' || pl::strncmp(p + 1, ext, n)) continue;
        if (p[1 + n] == 0 || p[1 + n] == '_') return true;
    }
    return false;
}

// One window: enable with `ctl`, a direct call to a function that returns,
// a taken branch, a not-taken branch, a direct jump, then disable.
struct Labels {
    unsigned long call, func, after_call, branch, after_branch, ntb, jump, after_jump;
};
__attribute__((noinline)) inline Labels window(unsigned long ctl) {
    Labels l;
    asm volatile(
        "   csrw 0x14E, %[ctl]\n"
        "1: jal ra, 10f\n"
        "2: beq zero, zero, 3f\n"
        "   nop\n"
        "3: bne zero, zero, 4f\n"
        "4: jal zero, 5f\n"
        "   nop\n"
        "5: csrw 0x14E, zero\n"
        "   jal zero, 99f\n"
        "10: jalr zero, 0(ra)\n"
        "99:\n"
        "   lla %[call], 1b\n"
        "   lla %[func], 10b\n"
        "   lla %[after_call], 2b\n"
        "   lla %[after_branch], 3b\n"
        "   lla %[jump], 4b\n"
        "   lla %[after_jump], 5b\n"
        : [call] "=&r"(l.call), [func] "=&r"(l.func), [after_call] "=&r"(l.after_call),
          [after_branch] "=&r"(l.after_branch), [jump] "=&r"(l.jump),
          [after_jump] "=&r"(l.after_jump)
        : [ctl] "r"(ctl)
        : "ra", "memory");
    l.branch = l.after_call;
    l.ntb = l.after_branch;
    return l;
}


// rdinstret, for the bench payloads.
inline unsigned long rdinstret() {
    unsigned long v;
    asm volatile("rdinstret %0" : "=r"(v)::"memory");
    return v;
}

// Reads the 16 entries the way Linux does (select, then the three
// registers).
inline void read_entry(unsigned long i) {
    unsigned long v = 0x200 + i, a, b, c;
    asm volatile("csrw 0x150, %3\n\tcsrr %0, 0x151\n\tcsrr %1, 0x152\n\tcsrr %2, 0x153"
                 : "=&r"(a), "=&r"(b), "=&r"(c)
                 : "r"(v)
                 : "memory");
}
inline void read_16_entries() {
    for (unsigned i = 0; i < 16; i++) read_entry(i);
}

struct LoopLabels {
    unsigned long call, func, after_call, branch;
};

// FROZEN set or cleared with WRPTR kept, as the hardware freezes (a write
// of sctrstatus also writes WRPTR).
inline void freeze(bool on) {
    unsigned long f = ctr::ratified::status::FROZEN;
    if (on) asm volatile("csrs 0x14F, %0" ::"r"(f) : "memory");
    else asm volatile("csrc 0x14F, %0" ::"r"(f) : "memory");
}

// One round: unfreeze, n iterations of "call; return; taken branch back"
// (the last branch falls through), freeze. Nothing else runs unfrozen. The
// addresses of the loop's transfers come back in `l`.
__attribute__((noinline)) inline void round(unsigned long n, LoopLabels &l) {
    unsigned long frozen = ctr::ratified::status::FROZEN;
    asm volatile("   csrc 0x14F, %5\n"
                 "1: jal ra, 10f\n"
                 "2: addi %0, %0, -1\n"
                 "3: bnez %0, 1b\n"
                 "   csrs 0x14F, %5\n"
                 "   jal zero, 99f\n"
                 "10: jalr zero, 0(ra)\n"
                 "99:\n"
                 "   lla %1, 1b\n"
                 "   lla %2, 10b\n"
                 "   lla %3, 2b\n"
                 "   lla %4, 3b\n"
                 : "+r"(n), "=&r"(l.call), "=&r"(l.func), "=&r"(l.after_call), "=&r"(l.branch)
                 : "r"(frozen)
                 : "ra", "memory");
}

enum Kind { kCall, kRet, kBranch, kEmpty, kBad };

// Entry i as one of the loop's transfers (round()).
inline Kind loop_kind(const LoopLabels &l, unsigned i) {
    unsigned long s = entry(i, 0), t = entry(i, 1), d = entry(i, 2) & ctr::entry::data_TYPE;
    if (s == (l.call | 1) && t == l.func && d == ctr::TYPE_DIRECT_CALL) return kCall;
    if (s == (l.func | 1) && t == l.after_call && d == ctr::TYPE_FUNCTION_RETURN) return kRet;
    if (s == (l.branch | 1) && t == l.call && d == ctr::TYPE_TAKEN_BRANCH) return kBranch;
    if (s == 0 && t == 0 && d == 0) return kEmpty;
    return kBad;
}

// The 16 entries after round(): newest first return, call, branch, return,
// call, ...; between rounds the oldest call of a round follows the previous
// return; empty entries only after the oldest record. `wrong` counts
// entries that are none of the loop's transfers.
inline bool loop_entries_ok(const LoopLabels &l, unsigned long &wrong) {
    Kind k[16];
    bool ok = true;
    for (unsigned i = 0; i < 16; i++) {
        k[i] = loop_kind(l, i);
        if (k[i] == kBad) wrong++, ok = false;
    }
    ok &= k[0] == kRet && k[1] == kCall;
    for (unsigned i = 0; ok && i + 1 < 16; i++) {
        Kind a = k[i], b = k[i + 1];
        ok = (a == kRet && (b == kCall || b == kEmpty)) ||
             (a == kCall && (b == kBranch || b == kRet || b == kEmpty)) ||
             (a == kBranch && (b == kRet || b == kEmpty)) || (a == kEmpty && b == kEmpty);
    }
    return ok;
}

} // namespace ctrpl
