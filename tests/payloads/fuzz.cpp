// SPDX-License-Identifier: BSD-2-Clause
// SBI fuzzer (issue 13): a fixed-seed stream of calls over every EID and FID
// with hostile arguments (firmware addresses, MMIO, wrap-around ranges, huge
// sizes, random hart masks, garbage above 32-bit parameters), on every hart
// at once. Every call goes through the library's pl_ecall_checked, which
// loads a pattern into every register, makes the ecall and reports which
// registers changed and any exception redirected to S-mode. Checked per call: every register
// except a0/a1 preserved (a1 too for legacy EIDs), no exception except the
// load access fault a legacy hart-mask pointer may raise (and must, when it
// points into the firmware), only the spec's error codes, and the exact
// result wherever the spec and the README's choices fix it (unknown EIDs and
// FIDs NOT_SUPPORTED, hart masks, HSM states, DBCN ranges, ...). Checked
// afterwards: canary memory and this payload's text intact, the firmware's
// text and read-only data unchanged (the runner compares them through the
// QEMU monitor with the firmware ELF, protocol line "TSBI-FWTEXT:"), the
// firmware still answering.
//
// Calls that would end or stop the run are restricted so that they must
// fail: SRST only with an invalid type or reason (low 32 bits), the legacy
// shutdown never, hart_stop never, hart_suspend only with an invalid type or
// (non-retentive) an invalid resume address, hart_start of started harts
// only, FWFT LANDING_PAD only set to 0 (no landing pads in this code). Calls that write S-mode memory get only this payload's own buffers
// as valid targets (PMU snapshot and event_get_info, DBCN read), DBCN and
// legacy console output only '.' bytes (so the console stays readable).
//
// bootargs (run.py --qemu-arg=-append --qemu-arg="..."): fuzz.calls=N (total
// over all harts, default 100000), fuzz.seed=S (default below), fuzz.harts=N
// (how many harts make calls, default all).
#include "payload.hpp"
#include "riscv/csr.hpp"

using namespace pl;

PAYLOAD_NAME("fuzz");

namespace {

// Every call goes through pl_ecall_checked (payload.hpp).
using Outcome = EcallOutcome;
extern "C" char _start[], __bench_cases_start[];

constexpr unsigned long kDefaultSeed = 0x7473626946555a5aul; // "tsbiFUZZ"
constexpr unsigned long kDefaultCalls = 100000;

// --- extension and function IDs -------------------------------------------------------------
namespace F = fid;
constexpr long kSse = 0x535345, kCppc = 0x43505043,
               kNacl = 0x4E41434C, kSta = 0x535441, kMpxy = 0x4D505859, kVendor = 0x09000000,
               kFirmware = 0x0A000000;
// EIDs this firmware does not implement today (probed at start: one that
// answers the probe is treated as implemented, with only generic checks).
constexpr long kOtherEids[] = {kCppc, kNacl, kSta, kMpxy,
                               0x09, 0x0F, kVendor, kFirmware};
// Number of functions of each implemented extension (their "Function Listing").
struct Ext {
    const char *name;
    long eid;
    long nfids;
};
const Ext kExts[] = {{"base", eid::base, 7},    {"time", eid::time, 1}, {"ipi", eid::ipi, 1},
                     {"rfence", eid::rfence, 7}, {"hsm", eid::hsm, 4},   {"srst", eid::srst, 1},
                     {"pmu", eid::pmu, 9},       {"dbcn", eid::dbcn, 3}, {"fwft", eid::fwft, 2},
                     {"susp", eid::susp, 1},     {"dbtr", eid::dbtr, 8},
                     {"sse", kSse, 10}};
constexpr unsigned kNumExts = sizeof kExts / sizeof kExts[0];
// Statistics rows: the extensions, then legacy 0x00-0x08, then "other".
constexpr unsigned kRowLegacy = kNumExts, kRowOther = kNumExts + 1, kRows = kNumExts + 2;
constexpr unsigned kFidSlots = 11; // FIDs 0..9, slot 10: FIDs beyond the listing

// --- random numbers (xorshift64*) --------------------------------------------------------------
struct Rng {
    unsigned long s;
    unsigned long next() {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        return s * 0x2545F4914F6CDD1Dul;
    }
    unsigned long below(unsigned long n) { return n ? next() % n : 0; }
    bool one_in(unsigned long n) { return below(n) == 0; }
};

// --- per-hart state ----------------------------------------------------------------------------
constexpr unsigned kDotBuf = 16;
constexpr unsigned kInfoEntries = 64;
constexpr unsigned kDbtrEntries = 32; // at least trig_max (firmware: at most 16)
struct alignas(4096) HartBuffers {
    unsigned char snapshot[4096];             // PMU snapshot shared memory
    unsigned long info[kInfoEntries * 2];     // PMU event_get_info entries (16 bytes each)
    char read_buf[64];                        // DBCN read target
    unsigned long mask_word[2];               // legacy hart-mask target (+1 byte: misaligned)
    unsigned long dbtr[kDbtrEntries * 4];     // DBTR shared memory (4 words per trigger)
    unsigned long sse_attrs[11];              // SSE read_attrs target (10 attributes, +8)
};
HartBuffers bufs[kMaxHarts];
const char kDots[kDotBuf + 1] = "................";

// A failed check: the first offending call of each kind, for the report.
struct FirstFail {
    unsigned long count, call;
    unsigned long in[8];
    Outcome out;
    char why[96];
};
enum Check { REGS, TRAP, CODES, RESULT, NUM_CHECKS };
const char *const kCheckName[NUM_CHECKS] = {"registers_preserved", "no_unexpected_trap",
                                            "spec_error_codes", "expected_results"};

struct HartFuzz {
    unsigned long hartid, seed, calls_planned, calls_done, restricted;
    unsigned long canary_checks;
    unsigned long row_fid[kRows][kFidSlots];
    unsigned long errors[16]; // by -error, 0..14; slot 15 legacy values
    FirstFail fails[NUM_CHECKS];
    bool canary_ok;
    volatile bool finished;
};
HartFuzz state[kMaxHarts];

// Canary: memory no call may change (its addresses are passed only where
// the firmware must not write: hart-mask pointers, DBCN read without input,
// ranges and start addresses). Filled from the seed.
constexpr unsigned kCanaryWords = 8192; // 64 KiB
alignas(4096) unsigned long canary[kCanaryWords];
unsigned long canary_word(unsigned long seed, unsigned i) {
    return (seed ^ (0x9E3779B97F4A7C15ul * (i + 1))) >> 3 | (static_cast<unsigned long>(i) << 61);
}
bool canary_intact(unsigned long seed, unsigned *bad) {
    for (unsigned i = 0; i < kCanaryWords; i++)
        if (canary[i] != canary_word(seed, i)) {
            *bad = i;
            return false;
        }
    return true;
}

unsigned long fnv(const char *p, const char *end) {
    unsigned long h = 0xcbf29ce484222325ul;
    for (; p < end; p++) h = (h ^ static_cast<unsigned char>(*p)) * 0x100000001b3ul;
    return h;
}

// --- what the firmware must answer -----------------------------------------------------------
bool hart_exists(unsigned long h) {
    const Platform &p = platform();
    for (unsigned i = 0; i < p.nharts; i++)
        if (p.hartids[i] == h) return true;
    return false;
}
// The hart-list rule (binary-encoding.adoc, README "Hart masks").
bool mask_valid(unsigned long mask, unsigned long base) {
    if (base == ~0ul) return true;
    for (unsigned i = 0; i < 64; i++)
        if ((mask >> i) & 1) {
            unsigned long h = base + i;
            if (h < base || !hart_exists(h)) return false;
        }
    return true;
}
bool other_eid_absent[sizeof kOtherEids / sizeof kOtherEids[0]];
bool has_h;

// --- argument pools ----------------------------------------------------------------------------
// Address kinds. S-readable: memory (or harmless MMIO) S-mode may load from.
enum AddrKind {
    A_FW,         // inside the firmware region: never accessible to S-mode
    A_FW_EDGE,    // straddling the start or end of the firmware region
    A_CLINT,      // M-mode-only MMIO (PMP-denied to S-mode)
    A_MMIO,       // other MMIO (UART, PLIC, test device, RTC, virtio): not memory
    A_BEYOND_RAM, // past the end of RAM (unmapped)
    A_TOP,        // near 2^64 (wrap-around with most sizes)
    A_RANDOM,     // any 64-bit value
    A_ZERO,       // NULL
    A_RAM,        // somewhere in RAM above this payload (S-accessible memory)
    A_CANARY,     // inside the canary
    NUM_KINDS
};
struct Addr {
    AddrKind kind;
    unsigned long v;
};
Addr pick_addr(Rng &r) {
    const Platform &p = platform();
    AddrKind k = static_cast<AddrKind>(r.below(NUM_KINDS));
    unsigned long v = 0;
    switch (k) {
    case A_FW: v = p.fw_base + r.below(p.fw_size); break;
    case A_FW_EDGE:
        v = r.one_in(2) ? p.fw_base - 1 - r.below(16) : p.fw_base + p.fw_size - 1 - r.below(16);
        break;
    case A_CLINT:
        v = (p.clint_base ? p.clint_base : 0x2000000ul) + (r.below(0xc000) & ~7ul);
        break;
    case A_MMIO: {
        const unsigned long mmio[] = {0x10000000ul, 0x0c000000ul, 0x100000ul, 0x101000ul,
                                      0x10001000ul};
        v = mmio[r.below(5)];
        break;
    }
    case A_BEYOND_RAM: v = p.ram_base + p.ram_size + r.below(1ul << 30); break;
    case A_TOP: v = ~0ul - r.below(0x2000); break;
    case A_RANDOM: v = r.next(); break;
    case A_ZERO: v = 0; break;
    case A_RAM: {
        unsigned long lo = image_end(), hi = p.ram_base + p.ram_size;
        v = lo + r.below(hi - lo - 64);
        // RAM the device tree reserves with no-map (the firmware's trace and
        // CTR buffers, PMP-closed) is no S memory: treated as firmware memory.
        for (unsigned i = 0; i < p.nreserved; i++) {
            const Platform::Region &z = p.reserved[i];
            if (z.no_map && v + 64 > z.base && v < z.base + z.size) k = A_FW;
        }
        break;
    }
    case A_CANARY: v = reinterpret_cast<uintptr_t>(canary) + r.below(sizeof canary - 64); break;
    default: break;
    }
    if (r.one_in(8)) v |= 1; // odd
    return {k, v};
}
bool s_memory(const Addr &a) { return a.kind == A_RAM || a.kind == A_CANARY; }
bool never_s_memory(const Addr &a) {
    return a.kind == A_FW || a.kind == A_FW_EDGE || a.kind == A_CLINT || a.kind == A_MMIO ||
           a.kind == A_BEYOND_RAM || a.kind == A_TOP || a.kind == A_ZERO;
}
unsigned long pick_size(Rng &r, unsigned long addr) {
    switch (r.below(9)) {
    case 0: return 0;
    case 1: return 1 + r.below(16);
    case 2: return 4096;
    case 3: return ~0ul;
    case 4: return ~0ul - r.below(8);
    case 5: return 1ul << (r.below(64));
    case 6: return 0 - addr;           // ends exactly at 2^64
    case 7: return 0 - addr + 1 + r.below(4096); // wraps
    default: return r.next();
    }
}
unsigned long pick_hartid(Rng &r) {
    const Platform &p = platform();
    switch (r.below(5)) {
    case 0:
    case 1: return p.hartids[r.below(p.nharts)];
    case 2: return p.max_hartid + 1 + r.below(64);
    case 3: return ~0ul - r.below(2);
    default: return r.next();
    }
}
void pick_mask(Rng &r, unsigned long &mask, unsigned long &base) {
    const Platform &p = platform();
    switch (r.below(6)) {
    case 0: mask = r.next(), base = r.below(4); break;
    case 1: mask = 1ul << r.below(64), base = r.below(8); break;
    case 2: mask = p.nharts < kXlen ? (1ul << p.nharts) - 1 : ~0ul, base = p.hartids[0]; break;
    case 3: mask = r.next(), base = ~0ul; break;
    case 4: mask = 0, base = r.next(); break;
    default: mask = r.next() & 0xf, base = ~0ul - r.below(4); break;
    }
}
// A 32-bit parameter: a reserved or valid low half under random garbage.
unsigned long garbage_hi(Rng &r, unsigned long low32) {
    return (r.one_in(2) ? r.next() << 32 : 0) | (low32 & 0xffffffffu);
}

// --- one generated call ------------------------------------------------------------------------
struct Gen {
    unsigned long in[8];
    unsigned row, fid_slot;
    bool legacy;
    // Expectations. Exactly one of: want_error (exact code), want_set (one of
    // a bitmask of -codes), or generic (any spec code).
    bool exact;
    long want;
    unsigned long allowed; // bit n: error -n allowed (when !exact)
    bool check_value;
    unsigned long want_value;
    // Legacy hart-mask pointer: fault rules.
    bool may_fault, must_fault;
    unsigned long fault_addr;
    // Post-check of the legacy return value (a0).
    enum { LV_ZERO, LV_ZERO_OR_NEG, LV_GETCHAR, LV_NONNEG, LV_NONE } legacy_val;
};
constexpr unsigned long bit(long e) { return 1ul << -e; }
constexpr unsigned long kAnySpec = (1ul << 15) - 1;

void expect_exact(Gen &g, long e) {
    g.exact = true;
    g.want = e;
}
void expect_set(Gen &g, unsigned long set) {
    g.exact = false;
    g.allowed = set;
}

void set_eid(Gen &g, long e, long f) {
    g.in[7] = static_cast<unsigned long>(e);
    g.in[6] = static_cast<unsigned long>(f);
}

void gen_base(Rng &r, Gen &g, unsigned long spec_version) {
    long f = r.one_in(10) ? 7 + r.below(100) : r.below(7);
    set_eid(g, eid::base, f);
    if (f >= 7) return expect_exact(g, ERR_NOT_SUPPORTED);
    expect_exact(g, SUCCESS);
    if (f == F::base::get_spec_version) {
        g.check_value = true;
        g.want_value = spec_version;
    }
    if (f == F::base::probe_extension) {
        unsigned i = r.below(sizeof kOtherEids / sizeof kOtherEids[0] + 2);
        if (i < sizeof kOtherEids / sizeof kOtherEids[0]) {
            g.in[0] = static_cast<unsigned long>(kOtherEids[i]);
            if (other_eid_absent[i]) g.check_value = true, g.want_value = 0;
        } else if (i == sizeof kOtherEids / sizeof kOtherEids[0]) {
            g.in[0] = static_cast<unsigned long>(kExts[r.below(kNumExts)].eid) | (r.next() << 32);
            g.check_value = (g.in[0] >> 32) != 0, g.want_value = 0;
        } else {
            g.in[0] = r.next();
        }
    }
}

void gen_rfence(Rng &r, Gen &g) {
    long f = r.one_in(12) ? 7 + r.below(100) : r.below(7);
    set_eid(g, eid::rfence, f);
    unsigned long mask, base;
    pick_mask(r, mask, base);
    Addr a = pick_addr(r);
    unsigned long size = r.one_in(4) ? 0 : pick_size(r, a.v);
    if (r.one_in(8)) a.v = 0, size = 0;
    g.in[0] = mask, g.in[1] = base, g.in[2] = a.v, g.in[3] = size;
    g.in[4] = r.one_in(2) ? r.below(4) : r.next();
    if (f >= 7) return expect_exact(g, ERR_NOT_SUPPORTED);
    const unsigned long fails = bit(ERR_INVALID_PARAM) | bit(ERR_FAILED) |
                                (f ? bit(ERR_INVALID_ADDRESS) : 0) |
                                (f >= F::rfence::remote_hfence_gvma_vmid ? bit(ERR_NOT_SUPPORTED) : 0);
    if (f >= F::rfence::remote_hfence_gvma_vmid && !has_h) return expect_exact(g, ERR_NOT_SUPPORTED);
    // An invalid hart is an error whatever else is wrong.
    expect_set(g, mask_valid(mask, base) ? fails | 1 : fails);
}

void gen_hsm(Rng &r, Gen &g, HartFuzz &st) {
    long f = r.one_in(12) ? 4 + r.below(100) : r.below(4);
    if (f == F::hsm::hart_stop) {
        // Restricted: would stop the fuzzing hart (covered by the hsm payload).
        st.restricted++;
        f = F::hsm::hart_get_status;
    }
    set_eid(g, eid::hsm, f);
    if (f >= 4) return expect_exact(g, ERR_NOT_SUPPORTED);
    unsigned long h = pick_hartid(r);
    bool valid = hart_exists(h);
    Addr a = pick_addr(r);
    switch (f) {
    case F::hsm::hart_start:
        g.in[0] = h, g.in[1] = a.v, g.in[2] = r.next();
        // Every hart is started: the call must fail, never start anything.
        if (!valid) return expect_exact(g, ERR_INVALID_PARAM);
        return expect_set(g, bit(ERR_INVALID_ADDRESS) | bit(ERR_ALREADY_AVAILABLE) |
                                 bit(ERR_FAILED));
    case F::hsm::hart_get_status:
        g.in[0] = h;
        if (!valid) return expect_exact(g, ERR_INVALID_PARAM);
        expect_exact(g, SUCCESS);
        g.check_value = true, g.want_value = hsm_state::started;
        return;
    default: {
        // Restricted to calls that must fail: a valid retentive type becomes
        // a reserved one; a valid non-retentive type gets a resume address
        // that is no S-mode memory (or an odd one).
        unsigned long low = r.one_in(2) ? r.next() & 0xffffffffu
                                         : (r.one_in(2) ? 0 : suspend_type::default_non_retentive);
        if (low == suspend_type::default_retentive) {
            st.restricted++;
            low = 1 + r.below(0x7fffffff);
        }
        unsigned long addr = a.v;
        bool nonret_valid = low == suspend_type::default_non_retentive;
        if (nonret_valid && !never_s_memory(a)) {
            st.restricted++;
            addr = s_memory(a) ? a.v | 1 : platform().fw_base + r.below(platform().fw_size);
        }
        g.in[0] = garbage_hi(r, low), g.in[1] = addr, g.in[2] = r.next();
        return expect_exact(g, nonret_valid ? ERR_INVALID_ADDRESS : ERR_INVALID_PARAM);
    }
    }
}

void gen_srst(Rng &r, Gen &g, HartFuzz &st) {
    long f = r.one_in(8) ? 1 + r.below(100) : 0;
    set_eid(g, eid::srst, f);
    if (f) return expect_exact(g, ERR_NOT_SUPPORTED);
    unsigned long type = r.one_in(2) ? r.below(3) : r.next() & 0xffffffffu;
    unsigned long reason = r.one_in(2) ? r.below(2) : r.next() & 0xffffffffu;
    if (type <= reset_type::warm_reboot && reason <= reset_reason::system_failure) {
        // Restricted: a valid reset would end the run.
        st.restricted++;
        reason = 2 + r.below(0xfffffff0);
    }
    g.in[0] = garbage_hi(r, type), g.in[1] = garbage_hi(r, reason);
    expect_exact(g, ERR_INVALID_PARAM);
}

void gen_pmu(Rng &r, Gen &g, HartFuzz &st, HartBuffers &b) {
    long f = r.one_in(12) ? 9 + r.below(100) : r.below(9);
    set_eid(g, eid::pmu, f);
    for (unsigned i = 0; i < 6; i++) {
        switch (r.below(4)) {
        case 0: g.in[i] = r.below(32); break;
        case 1: g.in[i] = 1ul << r.below(64); break;
        case 2: g.in[i] = r.below(0x30000); break;
        default: g.in[i] = r.next(); break;
        }
    }
    if (f >= 9) return expect_exact(g, ERR_NOT_SUPPORTED);
    expect_set(g, kAnySpec);
    if (f == F::pmu::snapshot_set_shmem || f == F::pmu::event_get_info) {
        // Only this hart's own buffers are valid targets (the firmware
        // writes there); otherwise addresses that are never S memory.
        Addr a = pick_addr(r);
        unsigned long lo = a.v, hi = r.one_in(6) ? r.next() : 0;
        bool own = r.one_in(3);
        if (own) {
            lo = f == F::pmu::snapshot_set_shmem ? reinterpret_cast<uintptr_t>(b.snapshot)
                                                 : reinterpret_cast<uintptr_t>(b.info);
            if (r.one_in(8)) lo += 8;
        } else if (!never_s_memory(a)) {
            st.restricted++;
            lo = platform().fw_base + (r.below(platform().fw_size) & ~0xffful);
        }
        if (f == F::pmu::snapshot_set_shmem) {
            if (r.one_in(4)) lo = ~0ul, hi = ~0ul; // disable
            g.in[0] = lo, g.in[1] = hi, g.in[2] = r.one_in(2) ? 0 : r.next();
        } else {
            for (unsigned i = 0; i < kInfoEntries * 2; i++) b.info[i] = r.next();
            g.in[0] = lo, g.in[1] = hi;
            g.in[2] = own ? r.below(kInfoEntries - (lo & 8 ? 1 : 0) + 1) : pick_size(r, lo);
            g.in[3] = r.one_in(2) ? 0 : r.next();
        }
    }
}

void gen_dbcn(Rng &r, Gen &g, HartBuffers &b) {
    long f = r.one_in(12) ? 3 + r.below(100) : r.below(3);
    set_eid(g, eid::dbcn, f);
    if (f >= 3) return expect_exact(g, ERR_NOT_SUPPORTED);
    if (f == F::dbcn::write_byte) {
        g.in[0] = (r.next() << 8) | '.';
        return expect_exact(g, SUCCESS);
    }
    Addr a = pick_addr(r);
    unsigned long num = pick_size(r, a.v), hi = r.one_in(8) ? 1 + r.below(~0ul - 1) : 0;
    if (r.one_in(8)) num = 0;
    if (f == F::dbcn::write) {
        // Output only dots: valid targets are the dot buffer alone.
        if (r.one_in(4)) {
            a = {A_RAM, reinterpret_cast<uintptr_t>(kDots)};
            num = r.below(kDotBuf + 1), hi = 0;
        } else if (!never_s_memory(a) && num) {
            a = {A_FW, platform().fw_base + r.below(platform().fw_size)};
        }
    } else if (r.one_in(4)) {
        a = {A_RAM, reinterpret_cast<uintptr_t>(b.read_buf)};
        num = r.below(sizeof b.read_buf + 1), hi = 0;
    }
    g.in[0] = num, g.in[1] = a.v, g.in[2] = hi;
    if (num == 0) {
        // README: a 0-byte read/write touches no memory and succeeds with 0.
        expect_exact(g, SUCCESS);
        g.check_value = true, g.want_value = 0;
        return;
    }
    if (hi || never_s_memory(a)) return expect_exact(g, ERR_INVALID_PARAM);
    const Platform &p = platform();
    const unsigned long ram_end = p.ram_base + p.ram_size;
    bool in_ram = a.v >= p.ram_base && a.v < ram_end && num <= ram_end - a.v;
    if (!in_ram) return expect_exact(g, ERR_INVALID_PARAM);
    expect_exact(g, SUCCESS);
    if (f == F::dbcn::read) g.check_value = true, g.want_value = 0; // no input is typed
}

// FWFT: every feature, reserved and platform-specific types (DENIED),
// garbage above bit 31, values and flags. LANDING_PAD is only set to 0
// (enabling it would fault this payload's indirect calls).
void gen_fwft(Rng &r, Gen &g, HartFuzz &st) {
    long f = r.one_in(12) ? 2 + r.below(100) : r.below(2);
    set_eid(g, eid::fwft, f);
    if (f >= 2) return expect_exact(g, ERR_NOT_SUPPORTED);
    unsigned long feature = r.one_in(2) ? r.below(8) : r.next() & 0xffffffffu;
    unsigned long value = r.one_in(2) ? r.below(2) : r.one_in(2) ? r.below(20) : r.next();
    if (feature == 1 && value != 0) {
        st.restricted++;
        value = 0;
    }
    g.in[0] = garbage_hi(r, feature), g.in[1] = value;
    g.in[2] = r.one_in(2) ? r.below(2) : r.next();
    if (feature >= 6) return expect_exact(g, ERR_DENIED);
    expect_set(g, f == 0 ? bit(ERR_NOT_SUPPORTED) | bit(ERR_INVALID_PARAM) |
                              bit(code(sbi::Error::DeniedLocked)) | bit(ERR_DENIED) |
                              bit(ERR_FAILED) | 1
                         : bit(ERR_NOT_SUPPORTED) | bit(ERR_DENIED) | bit(ERR_FAILED) | 1);
}

// SUSP: every sleep type class with garbage above bit 31. Restricted to
// calls that must fail: every other hart runs (DENIED); on one hart a
// SUSPEND_TO_RAM gets a resume address that is no S-mode memory (or odd).
void gen_susp(Rng &r, Gen &g, HartFuzz &st) {
    long f = r.one_in(8) ? 1 + r.below(100) : 0;
    set_eid(g, eid::susp, f);
    if (f) return expect_exact(g, ERR_NOT_SUPPORTED);
    unsigned long low = r.one_in(2) ? 0 : r.next() & 0xffffffffu;
    Addr a = pick_addr(r);
    unsigned long addr = a.v;
    bool alone = platform().nharts == 1;
    if (low == 0 && alone && !never_s_memory(a)) {
        st.restricted++;
        addr = s_memory(a) ? a.v | 1 : platform().fw_base + r.below(platform().fw_size);
    }
    g.in[0] = garbage_hi(r, low), g.in[1] = addr, g.in[2] = r.next();
    if (low) return expect_exact(g, ERR_INVALID_PARAM);
    expect_exact(g, alone ? ERR_INVALID_ADDRESS : ERR_DENIED);
}

// DBTR: every function with hostile indexes, masks, counts and shared
// memory (this hart's own buffer or addresses that are never S memory).
// Trigger configurations never enable S or U (or VS/VU): a trigger that
// fires would trap this payload (restricted).
constexpr unsigned long kDbtrModes = (1ul << 3) | (1ul << 4) | (1ul << 23) | (1ul << 24);
void gen_dbtr(Rng &r, Gen &g, HartFuzz &st, HartBuffers &b) {
    long f = r.one_in(12) ? 8 + r.below(100) : r.below(8);
    set_eid(g, eid::dbtr, f);
    if (f >= 8) return expect_exact(g, ERR_NOT_SUPPORTED);
    const unsigned long inv = bit(ERR_INVALID_PARAM), ok = 1;
    switch (f) {
    case F::dbtr::num_triggers:
        g.in[0] = r.one_in(4) ? 0 : r.one_in(2) ? (r.below(16) << 60) | r.below(1ul << 20) : r.next();
        return expect_exact(g, SUCCESS);
    case F::dbtr::set_shmem: {
        Addr a = pick_addr(r);
        unsigned long lo = a.v, hi = r.one_in(6) ? r.next() : 0;
        if (r.one_in(3)) {
            lo = reinterpret_cast<uintptr_t>(b.dbtr) + (r.one_in(8) ? 4 : 0);
        } else if (!never_s_memory(a)) {
            st.restricted++;
            lo = platform().fw_base + (r.below(platform().fw_size) & ~7ul);
        }
        if (r.one_in(6)) lo = ~0ul, hi = ~0ul; // disable
        g.in[0] = lo, g.in[1] = hi, g.in[2] = r.one_in(2) ? 0 : r.next();
        return expect_set(g, ok | inv | bit(ERR_INVALID_ADDRESS));
    }
    case F::dbtr::read_triggers:
        g.in[0] = r.one_in(2) ? r.below(4) : r.next(), g.in[1] = r.one_in(2) ? r.below(4) : r.next();
        return expect_set(g, ok | bit(ERR_NO_SHMEM) | bit(ERR_BAD_RANGE));
    case F::dbtr::install_triggers:
    case F::dbtr::update_triggers: {
        bool modes = false;
        for (unsigned i = 0; i < kDbtrEntries; i++) {
            unsigned long *e = &b.dbtr[4 * i];
            e[0] = r.one_in(2) ? r.below(4) : r.next();
            e[1] = (r.one_in(2) ? (r.one_in(2) ? 2ul : 6ul) : r.below(16)) << 60 |
                   (r.one_in(2) ? r.below(1ul << 27) : r.next() >> 4);
            modes |= (e[1] & kDbtrModes) != 0;
            e[1] &= ~kDbtrModes;
            e[2] = r.next(), e[3] = r.one_in(2) ? 0 : r.next();
        }
        st.restricted += modes;
        g.in[0] = r.one_in(2) ? r.below(4) : r.next();
        return expect_set(g, ok | inv | bit(ERR_NO_SHMEM) | bit(ERR_BAD_RANGE) | bit(ERR_FAILED) |
                                 bit(ERR_NOT_SUPPORTED));
    }
    default:
        g.in[0] = r.one_in(2) ? r.below(4) : r.next(), g.in[1] = r.one_in(2) ? r.below(8) : r.next();
        return expect_set(g, ok | inv);
    }
}

// SSE: every function with our events, standard ones QEMU virt cannot back,
// reserved and platform-specific IDs, garbage above bit 31, attribute
// ranges, buffers and values. Events stay masked (hart_unmask is never
// called): whatever the fuzzer registers and enables is never delivered.
void gen_sse(Rng &r, Gen &g, HartFuzz &st, HartBuffers &b) {
    long f = r.one_in(12) ? 10 + r.below(100) : r.below(10);
    set_eid(g, kSse, f);
    if (f >= 10) return expect_exact(g, ERR_NOT_SUPPORTED);
    static const unsigned long kIds[] = {0x10000, 0xffff0000, 0xffff8000, 0x0,    0x1,    0x8000,
                                         0x100000, 0x108000, 0x2,        0x4000, 0xc000, ~0u};
    unsigned long id = r.one_in(4) ? r.next() : kIds[r.below(sizeof kIds / sizeof kIds[0])];
    g.in[0] = garbage_hi(r, id);
    const unsigned long id_errors = bit(ERR_NOT_SUPPORTED) | bit(ERR_INVALID_PARAM);
    const unsigned long state = bit(code(sbi::Error::InvalidState));
    switch (f) {
    case 0:
    case 1: { // read_attrs, write_attrs
        g.in[1] = garbage_hi(r, r.one_in(4) ? r.next() : r.below(12));
        g.in[2] = garbage_hi(r, r.one_in(4) ? r.next() : r.below(12));
        Addr a = pick_addr(r);
        unsigned long lo = a.v;
        if (f == 0) { // the firmware writes there: our buffer or never S memory
            if (r.one_in(3)) lo = reinterpret_cast<uintptr_t>(b.sse_attrs) + 8 * r.below(2);
            else if (!never_s_memory(a)) {
                st.restricted++;
                lo = platform().fw_base + (r.below(platform().fw_size) & ~7ul);
            }
        }
        g.in[3] = lo, g.in[4] = r.one_in(8) ? r.next() : 0;
        return expect_set(g, id_errors | bit(code(sbi::Error::BadRange)) |
                                 bit(ERR_INVALID_ADDRESS) | 1 |
                                 (f == 1 ? bit(ERR_DENIED) | state : 0));
    }
    case 2: g.in[1] = r.one_in(2) ? r.next() : r.next() & ~1ul, g.in[2] = r.next(); break;
    case 6: expect_exact(g, SUCCESS), g.check_value = true, g.want_value = 0; return;
    case 7: {
        const Platform &p = platform();
        g.in[1] = r.one_in(2) ? p.hartids[r.below(p.nharts)] : r.next();
        return expect_set(g, id_errors | 1);
    }
    case 8: st.restricted++, set_eid(g, kSse, 9); [[fallthrough]];
    case 9: return expect_exact(g, ERR_ALREADY_STOPPED);
    default: break;
    }
    expect_set(g, id_errors | state | 1);
}

void gen_legacy(Rng &r, Gen &g, HartFuzz &st, HartBuffers &b) {
    long e = r.below(9);
    if (e == eid::legacy_shutdown) {
        st.restricted++; // would power off
        e = eid::legacy_clear_ipi;
    }
    set_eid(g, e, r.next());
    g.legacy = true;
    for (unsigned i = 0; i < 6; i++) g.in[i] = r.next();
    switch (e) {
    case eid::legacy_set_timer: g.legacy_val = Gen::LV_ZERO; return;
    case eid::legacy_console_putchar:
        g.in[0] = (g.in[0] << 8) | '.';
        g.legacy_val = Gen::LV_ZERO;
        return;
    case eid::legacy_console_getchar: g.legacy_val = Gen::LV_GETCHAR; return;
    case eid::legacy_clear_ipi: g.legacy_val = Gen::LV_NONNEG; return;
    default: break;
    }
    // send_ipi and the remote fences: a0 points to the hart mask.
    g.legacy_val = Gen::LV_ZERO_OR_NEG;
    Addr a = pick_addr(r);
    switch (r.below(4)) {
    case 0: g.in[0] = 0; return; // NULL: every hart
    case 1:
        b.mask_word[0] = r.one_in(2) ? r.next() : r.below(16);
        g.in[0] = reinterpret_cast<uintptr_t>(b.mask_word) + (r.one_in(4) ? 1 : 0);
        return;
    default: break;
    }
    g.in[0] = a.v;
    g.fault_addr = a.v;
    if (a.v == 0) return; // NULL: every hart
    // Firmware memory must fault like any memory S-mode cannot access
    // (issue 13); other non-memory addresses may fault.
    g.must_fault = a.kind == A_FW && a.v + 7 < platform().fw_base + platform().fw_size;
    g.may_fault = !s_memory(a);
    if (e >= eid::legacy_remote_sfence_vma) {
        Addr s = pick_addr(r);
        g.in[1] = s.v, g.in[2] = pick_size(r, s.v);
    }
}

unsigned row_of(long e) {
    for (unsigned i = 0; i < kNumExts; i++)
        if (kExts[i].eid == e) return i;
    return static_cast<unsigned long>(e) <= eid::legacy_shutdown ? kRowLegacy : kRowOther;
}

void gen_other(Rng &r, Gen &g) {
    unsigned n = sizeof kOtherEids / sizeof kOtherEids[0];
    unsigned i = r.below(n + 3);
    long e;
    bool absent;
    if (i < n) {
        bool range = kOtherEids[i] == kVendor || kOtherEids[i] == kFirmware;
        e = kOtherEids[i] + (range ? static_cast<long>(r.below(0x1000000)) : 0);
        absent = !range && other_eid_absent[i]; // a range is probed below
    } else if (i == n) {
        // An implemented EID with garbage above bit 31: no sign-extended
        // 32-bit value, so it names nothing (README).
        e = static_cast<long>(static_cast<unsigned long>(kExts[r.below(kNumExts)].eid) |
                              ((r.next() | 1) << 32));
        absent = true;
    } else if (i == n + 1) {
        e = static_cast<long>(0x80000000ul | r.next()) ; // negative (sign-extended or not)
        absent = true;
    } else {
        // Any 32-bit EID but the legacy range and the implemented ones (a
        // random SRST or legacy shutdown would end the run).
        e = static_cast<long>(r.next() & 0xffffffffu);
        if (e <= 0x0f) e |= 0x100;
        if (row_of(e) != kRowOther) e ^= 0x40000000;
        absent = false; // probed below
    }
    set_eid(g, e, r.below(4) ? r.below(16) : r.next());
    for (unsigned k = 0; k < 6; k++) g.in[k] = r.next();
    if (absent) return expect_exact(g, ERR_NOT_SUPPORTED);
    SbiRet p = sbi_probe(e);
    if (p.error == SUCCESS && p.value == 0) return expect_exact(g, ERR_NOT_SUPPORTED);
    expect_set(g, kAnySpec);
}

void generate(Rng &r, Gen &g, HartFuzz &st, HartBuffers &b, unsigned long spec_version) {
    g = Gen{};
    for (unsigned i = 0; i < 6; i++) g.in[i] = r.one_in(2) ? r.next() : r.below(64);
    expect_set(g, kAnySpec);
    switch (r.below(16)) {
    case 0: gen_base(r, g, spec_version); break;
    case 1:
        set_eid(g, eid::time, r.one_in(8) ? 1 + r.below(100) : 0);
        if (g.in[6]) expect_exact(g, ERR_NOT_SUPPORTED);
        else expect_exact(g, SUCCESS);
        break;
    case 2: {
        long f = r.one_in(8) ? 1 + r.below(100) : 0;
        set_eid(g, eid::ipi, f);
        pick_mask(r, g.in[0], g.in[1]);
        if (f) expect_exact(g, ERR_NOT_SUPPORTED);
        else expect_exact(g, mask_valid(g.in[0], g.in[1]) ? SUCCESS : ERR_INVALID_PARAM);
        break;
    }
    case 3:
    case 4: gen_rfence(r, g); break;
    case 5: gen_hsm(r, g, st); break;
    case 6: gen_srst(r, g, st); break;
    case 7: gen_pmu(r, g, st, b); break;
    case 8: gen_dbcn(r, g, b); break;
    case 9:
    case 10: gen_legacy(r, g, st, b); break;
    case 11: gen_fwft(r, g, st); break;
    case 12: gen_susp(r, g, st); break;
    case 13: gen_dbtr(r, g, st, b); break;
    case 14: gen_sse(r, g, st, b); break;
    default: gen_other(r, g); break;
    }
    g.row = row_of(static_cast<long>(g.in[7]));
    unsigned long fs = g.row == kRowLegacy ? g.in[7] : g.in[6];
    g.fid_slot = fs < kFidSlots - 1 ? static_cast<unsigned>(fs) : kFidSlots - 1;
}

void record(HartFuzz &st, Check c, unsigned long call, const Gen &g, const Outcome &o,
            const char *why) {
    FirstFail &f = st.fails[c];
    if (f.count++) return;
    f.call = call;
    for (unsigned i = 0; i < 8; i++) f.in[i] = g.in[i];
    f.out = o;
    snprintf(f.why, sizeof f.why, "%s", why);
}

void check(HartFuzz &st, unsigned long call, const Gen &g, const Outcome &o) {
    // Registers: a0 is the result; a1 the value except for legacy EIDs.
    unsigned long allowed = (1ul << 10) | (g.legacy ? 0 : 1ul << 11);
    if (o.clobbers & ~allowed) record(st, REGS, call, g, o, "registers changed (mask in clobbers)");
    if (g.legacy && g.in[1] != o.a1) record(st, REGS, call, g, o, "legacy call changed a1");
    // Exceptions: only the load access fault of a legacy hart-mask pointer,
    // at the ecall, with the faulting byte of the mask as stval.
    bool trapped = o.cause != 0;
    if (trapped) {
        bool ok = g.may_fault && o.cause == csr::cause::load_access &&
                  o.sepc == reinterpret_cast<uintptr_t>(pl_ecall_insn) &&
                  o.tval - g.fault_addr < sizeof(long);
        if (!ok) record(st, TRAP, call, g, o, "unexpected exception");
    } else if (g.must_fault) {
        record(st, RESULT, call, g, o, "firmware-memory hart mask read without a fault");
    }
    long e = static_cast<long>(o.a0);
    if (g.legacy) {
        st.errors[15]++;
        if (trapped) return;
        bool ok = true;
        switch (g.legacy_val) {
        case Gen::LV_ZERO: ok = e == 0; break;
        case Gen::LV_ZERO_OR_NEG: ok = e <= 0; break;
        case Gen::LV_GETCHAR: ok = e == -1; break; // nothing is typed
        case Gen::LV_NONNEG: ok = e >= 0; break;
        default: break;
        }
        if (!ok) record(st, RESULT, call, g, o, "legacy return value");
        return;
    }
    if (e > 0 || e < sbi::kLowestError) {
        record(st, CODES, call, g, o, "not a spec error code");
        return;
    }
    st.errors[-e]++;
    bool ok = g.exact ? e == g.want : ((g.allowed >> -e) & 1) != 0;
    if (ok && e == SUCCESS && g.check_value && o.a1 != g.want_value) ok = false;
    if (!ok) record(st, RESULT, call, g, o, g.exact ? "error or value differs" : "error not allowed");
}

unsigned long g_spec_version;
unsigned long g_seed;

void fuzz_hart(void *arg) {
    HartFuzz &st = *static_cast<HartFuzz *>(arg);
    HartBuffers &b = bufs[hart_index(st.hartid)];
    Rng r{st.seed ? st.seed : 1};
    st.canary_ok = true;
    Gen g;
    Outcome o;
    for (unsigned long i = 0; i < st.calls_planned; i++) {
        generate(r, g, st, b, g_spec_version);
        pl_ecall_checked(g.in, &o);
        st.calls_done++;
        st.row_fid[g.row][g.fid_slot]++;
        check(st, i, g, o);
        if ((i & 4095) == 4095) {
            unsigned bad;
            st.canary_checks++;
            if (st.canary_ok && !canary_intact(g_seed, &bad)) {
                st.canary_ok = false;
                Outcome none{};
                char why[64];
                snprintf(why, sizeof why, "canary word %u changed by call <= this one", bad);
                record(st, RESULT, i, g, none, why);
            }
        }
    }
    // Leave the hart as the other payloads expect it: no timer, no PMU
    // snapshot, counters stopped, no pending S-mode interrupts.
    sbi_set_timer(~0ull);
    sbi_call(eid::pmu, F::pmu::snapshot_set_shmem, ~0ul, ~0ul, 0);
    unsigned long counters = sbi_call(eid::pmu, F::pmu::num_counters).value;
    for (unsigned long c = 0; c < counters && c < 64; c++)
        sbi_call(eid::pmu, F::pmu::counter_stop, c, 1, 0);
    unsigned long triggers = sbi_call(eid::dbtr, F::dbtr::num_triggers, 0).value;
    for (unsigned long t = 0; t < triggers && t < 64; t++)
        sbi_call(eid::dbtr, F::dbtr::uninstall_triggers, t, 1);
    sbi_call(eid::dbtr, F::dbtr::set_shmem, ~0ul, ~0ul, 0);
    csr_clear(csr::sip, 1ul << csr::irq::SSI);
    __atomic_store_n(&st.finished, true, __ATOMIC_RELEASE);
}

// Asks the runner to compare the firmware's text and read-only data with
// its ELF (through the QEMU monitor) and waits for its '+' on the console.
void firmware_text_check(const char *label) {
    printf("TSBI-FWTEXT: %s\n", label);
    char c = 0;
    bool got = wait_until(
        [&] {
            SbiRet r = sbi_call(eid::dbcn, F::dbcn::read, 1, reinterpret_cast<uintptr_t>(&c), 0);
            return r.error == SUCCESS && r.value == 1 && c == '+';
        },
        30000000);
    expect_true(got, "fw_text_%s/runner_answered", label);
}

void report(const HartFuzz &st) {
    unsigned long h = st.hartid;
    expect_eq(st.calls_done, st.calls_planned, "hart%lu/calls_done", h);
    for (unsigned c = 0; c < NUM_CHECKS; c++) {
        const FirstFail &f = st.fails[c];
        if (!f.count) {
            pass("hart%lu/%s", h, kCheckName[c]);
            continue;
        }
        char why[400];
        snprintf(why, sizeof why,
                 "%lu calls; first: call %lu (seed 0x%lx) eid 0x%lx fid 0x%lx a0..a5 0x%lx 0x%lx "
                 "0x%lx 0x%lx 0x%lx 0x%lx -> a0 0x%lx a1 0x%lx clobbers 0x%lx scause 0x%lx "
                 "stval 0x%lx sepc 0x%lx: %s",
                 f.count, f.call, st.seed, f.in[7], f.in[6], f.in[0], f.in[1], f.in[2], f.in[3],
                 f.in[4], f.in[5], f.out.a0, f.out.a1, f.out.clobbers, f.out.cause, f.out.tval,
                 f.out.sepc, f.why);
        fail(why, "hart%lu/%s", h, kCheckName[c]);
    }
}

} // namespace

void payload_main() {
    const Platform &p = platform();
    g_seed = bootarg("fuzz.seed", kDefaultSeed);
    unsigned long total = bootarg("fuzz.calls", kDefaultCalls);
    g_spec_version = sbi_call(eid::base, F::base::get_spec_version).value;
    has_h = has_isa_ext('h');
    for (unsigned i = 0; i < sizeof kOtherEids / sizeof kOtherEids[0]; i++)
        other_eid_absent[i] = sbi_probe(kOtherEids[i]).value == 0;
    for (unsigned i = 0; i < kCanaryWords; i++) canary[i] = canary_word(g_seed, i);
    unsigned long text_hash = fnv(_start, __bench_cases_start);

    firmware_text_check("before");
    // hart_start is only fuzzed against started harts (it must fail).
    if (p.nharts > 1 && !start_secondaries()) return;
    // fuzz.harts: how many harts make calls (default all); the others wait
    // in the library's job loop and only receive IPIs and fences.
    unsigned n = p.nharts;
    unsigned long want_harts = bootarg("fuzz.harts", n);
    if (want_harts >= 1 && want_harts < n) n = static_cast<unsigned>(want_harts);
    for (unsigned i = 0; i < n; i++) {
        HartFuzz &st = state[i];
        st.hartid = i == 0 ? hartid() : secondary_hartid(i - 1);
        st.seed = g_seed ^ (0x9E3779B97F4A7C15ul * (st.hartid + 1));
        st.calls_planned = total / n + (i == 0 ? total % n : 0);
    }
    note("seed 0x%lx, %lu calls from %u of %u hart(s)", g_seed, total, n, p.nharts);
    unsigned long t0 = rdtime();
    for (unsigned i = 1; i < n; i++) post_job(state[i].hartid, fuzz_hart, &state[i]);
    fuzz_hart(&state[0]);
    bool all = true;
    bool finished[kMaxHarts] = {};
    for (unsigned i = 1; i < n; i++) {
        // The runner's timeout bounds a hang; this only waits long enough.
        finished[i] = wait_until(
            [&] { return __atomic_load_n(&state[i].finished, __ATOMIC_ACQUIRE); }, 1200000000ul);
    }
    unsigned long ticks = rdtime() - t0;
    printf("\n"); // ends the line of '.' the console calls wrote
    for (unsigned i = 1; i < n; i++)
        all &= expect_true(finished[i], "hart%lu/finished", state[i].hartid);

    unsigned long calls = 0, restricted = 0;
    unsigned long rows[kRows][kFidSlots] = {};
    unsigned long errs[16] = {};
    for (unsigned i = 0; i < n; i++) {
        report(state[i]);
        calls += state[i].calls_done;
        restricted += state[i].restricted;
        for (unsigned r = 0; r < kRows; r++)
            for (unsigned f = 0; f < kFidSlots; f++) rows[r][f] += state[i].row_fid[r][f];
        for (unsigned e = 0; e < 16; e++) errs[e] += state[i].errors[e];
        note("hart %lu: seed 0x%lx, %lu calls", state[i].hartid, state[i].seed,
             state[i].calls_done);
    }
    unsigned bad = 0;
    bool canary_ok = canary_intact(g_seed, &bad);
    char why[64];
    snprintf(why, sizeof why, "word %u changed", bad);
    if (canary_ok) pass("canary_intact");
    else fail(why, "canary_intact");
    expect_eq(fnv(_start, __bench_cases_start), text_hash, "payload_text_intact");
    expect_alive("after_fuzz");
    if (all) firmware_text_check("after");

    // Coverage: every implemented extension's every FID (hart_stop is
    // restricted) and beyond, every legacy EID except shutdown, others.
    for (unsigned r = 0; r < kRows; r++) {
        const char *name = r < kNumExts ? kExts[r].name : r == kRowLegacy ? "legacy" : "other";
        long nf = r < kNumExts ? kExts[r].nfids : r == kRowLegacy ? 9 : 0;
        char line[200];
        int len = snprintf(line, sizeof line, "FUZZ: %s", name);
        unsigned long sum = 0;
        for (unsigned f = 0; f < kFidSlots; f++) {
            sum += rows[r][f];
            if (static_cast<long>(f) < nf || f == kFidSlots - 1)
                len += snprintf(line + len, sizeof line - len, " %s%u=%lu",
                                f == kFidSlots - 1 ? ">" : "", f == kFidSlots - 1 ? kFidSlots - 2 : f,
                                rows[r][f]);
        }
        printf("%s | total %lu\n", line, sum);
        for (long f = 0; f < nf; f++) {
            bool skipped = (r < kNumExts && kExts[r].eid == eid::hsm && f == F::hsm::hart_stop) ||
                           (r < kNumExts && kExts[r].eid == kSse && f == 8) || // hart_unmask
                           (r == kRowLegacy && f == eid::legacy_shutdown);
            if (!skipped && rows[r][f] == 0) fail("never called", "coverage/%s/fid%ld", name, f);
        }
    }
    printf("FUZZ: errors 0=%lu -1=%lu -2=%lu -3=%lu -4=%lu -5=%lu -6=%lu -9=%lu -11=%lu "
           "legacy=%lu\n",
           errs[0], errs[1], errs[2], errs[3], errs[4], errs[5], errs[6], errs[9], errs[11],
           errs[15]);
    unsigned long ms = ticks / (p.timebase_hz / 1000 ? p.timebase_hz / 1000 : 1);
    printf("FUZZ: seed 0x%lx harts %u calling %u calls %lu restricted %lu time %lu ms\n", g_seed,
           p.nharts, n, calls, restricted, ms);
    expect_true(calls >= total, "calls_total_at_least_%lu", total);
}
