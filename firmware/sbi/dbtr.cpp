// SPDX-License-Identifier: BSD-2-Clause
// Debug Triggers extension (ext-debug-triggers.adoc, EID "DBTR"): the hart's
// Sdtrig triggers (RISC-V Debug Specification 1.0, "Sdtrig") for S-mode.
// The logical index trig_idx is the hardware index (tselect), so a chain
// installed on contiguous indexes is on contiguous hardware triggers. The
// trigger configuration lives in the trigger CSRs themselves; the firmware
// keeps per hart only what the CSRs cannot hold: trig_state (mapped and the
// saved mode bits), which types each trigger supports, and the shared
// memory address.
#include "ecall_list.hpp"
#include "fw.hpp"
#include "riscv/csr.hpp"
#include "riscv/csr_safe.hpp"
#include "dbtr_logic.hpp"
#include "services.hpp"

namespace sbi {
namespace {

using namespace dbtr;

enum : unsigned long {
    NUM_TRIGGERS = 0,
    SET_SHMEM = 1,
    READ_TRIGGERS = 2,
    INSTALL_TRIGGERS = 3,
    UPDATE_TRIGGERS = 4,
    UNINSTALL_TRIGGERS = 5,
    ENABLE_TRIGGERS = 6,
    DISABLE_TRIGGERS = 7,
};

// Sdtrig CSRs.
constexpr unsigned kTselect = 0x7A0, kTdata1 = 0x7A1, kTdata2 = 0x7A2, kTdata3 = 0x7A3,
                   kTinfo = 0x7A4;
constexpr unsigned kTdataCsr[3] = {kTdata1, kTdata2, kTdata3};
static_assert(kTselect == csr::tselect && csr::safe_listed(kTselect, kTinfo - kTselect + 1));
// The shared-memory entry: four XLEN-bit words per trigger (XLEN / 2 bytes).
constexpr unsigned kEntryWords = 4;
constexpr unsigned long kEntrySize = kEntryWords * sizeof(unsigned long);
constexpr unsigned long kShmemAlign = sizeof(unsigned long);
constexpr unsigned long kShmemDisable = ~0ul;


// Probes the trigger module with trap-safe CSR accesses (a hart without
// Sdtrig raises illegal instruction): tselect counts the triggers, tinfo
// gives each one's types; without tinfo, tdata1's current type is the only
// one known (Debug Specification, "tinfo").
HartTriggers &self() {
    HartTriggers &h = fw::this_block().dbtr;
    if (h.probed) return h;
    unsigned n = 0;
    for (; n < kMaxTriggers; n++) {
        if (csr::csr_write_safe_num(kTselect, n).trapped) break;
        csr::SafeResult sel = csr::csr_read_safe_num(kTselect);
        if (sel.trapped || sel.value != n) break;
        csr::SafeResult info = csr::csr_read_safe_num(kTinfo);
        unsigned long types;
        if (info.trapped) {
            csr::SafeResult t1 = csr::csr_read_safe_num(kTdata1);
            if (t1.trapped || type_of(t1.value) == TYPE_NONE) break;
            types = 1ul << type_of(t1.value);
        } else {
            types = info.value & kTinfoInfo;
            if (types == kTinfoNoTrigger) break;
        }
        h.types[n] = static_cast<uint16_t>(types);
    }
    h.count = static_cast<uint8_t>(n);
    h.probed = true;
    return h;
}

struct Tdata {
    unsigned long d[3];
};
Tdata read_hw(unsigned idx) {
    csr::csr_write_safe_num(kTselect, idx);
    Tdata t;
    for (unsigned i = 0; i < 3; i++) t.d[i] = csr::csr_read_safe_num(kTdataCsr[i]).value;
    return t;
}
// Turns trigger idx off: tdata1 = 0 ("it is guaranteed that writing 0 to
// tdata1 disables the trigger"); a trigger module that refuses type 0 (QEMU
// ignores the write) keeps its type with every match and mode bit clear.
void clear_hw(unsigned idx) {
    csr::csr_write_safe_num(kTselect, idx);
    csr::csr_write_safe_num(kTdata1, 0);
    unsigned long t1 = csr::csr_read_safe_num(kTdata1).value;
    if (t1) csr::csr_write_safe_num(kTdata1, static_cast<unsigned long>(type_of(t1)) << kTypeShift);
    csr::csr_write_safe_num(kTdata2, 0);
    csr::csr_write_safe_num(kTdata3, 0);
}
// Programs trigger idx with t. The trigger goes through an idle state of the
// new type (no mode bits), so tdata2/tdata3 are written for that type and
// nothing fires half-configured. False, with the trigger cleared, when the
// hart did not keep the values (unimplemented optional bits).
bool program_hw(unsigned idx, const Tdata &t) {
    clear_hw(idx);
    unsigned type = type_of(t.d[0]);
    csr::csr_write_safe_num(kTdata1, static_cast<unsigned long>(type) << kTypeShift);
    csr::csr_write_safe_num(kTdata2, t.d[1]);
    csr::csr_write_safe_num(kTdata3, t.d[2]);
    csr::csr_write_safe_num(kTdata1, t.d[0]);
    Tdata got = read_hw(idx);
    unsigned long hits = hit_bits(type);
    if ((got.d[0] & ~hits) == (t.d[0] & ~hits) && got.d[1] == t.d[1] && got.d[2] == t.d[2])
        return true;
    clear_hw(idx);
    return false;
}

volatile unsigned long *entry(const HartTriggers &h, unsigned long i) {
    return reinterpret_cast<volatile unsigned long *>(h.shmem + i * kEntrySize);
}

SbiRet num_triggers(unsigned long tdata1) {
    HartTriggers &h = self();
    if (tdata1 == 0) return ok(h.count);
    if (check_config(tdata1, false) != Error::Success) return ok(0);
    unsigned long n = 0;
    for (unsigned i = 0; i < h.count; i++) n += (h.types[i] >> type_of(tdata1)) & 1;
    return ok(n);
}

SbiRet set_shmem(unsigned long lo, unsigned long hi, unsigned long flags) {
    if (flags != 0) return err(Error::InvalidParam);
    HartTriggers &h = self();
    if (lo == kShmemDisable && hi == kShmemDisable) {
        h.shmem_on = false;
        return ok();
    }
    if (lo & (kShmemAlign - 1)) return err(Error::InvalidParam);
    // "the size of shared memory is assumed to be trig_max * (XLEN / 2) bytes";
    // read and written by the firmware (binary-encoding.adoc, shared memory).
    if (!fw::s_mode_range_ok(lo, hi, h.count * kEntrySize)) return err(Error::InvalidAddress);
    h.shmem = lo;
    h.shmem_on = true;
    return ok();
}

SbiRet read_triggers(unsigned long base, unsigned long count) {
    HartTriggers &h = self();
    if (!h.shmem_on) return err(Error::NoShmem);
    if (!range_ok(h.count, base, count)) return err(Error::BadRange);
    for (unsigned long i = 0; i < count; i++) {
        unsigned idx = static_cast<unsigned>(base + i);
        Tdata t = read_hw(idx);
        volatile unsigned long *e = entry(h, i);
        e[0] = h.state[idx];
        for (unsigned w = 0; w < 3; w++) e[1 + w] = t.d[w];
    }
    return ok();
}

// The configurations of one install/update call, copied out of shared
// memory once, so S-mode cannot change them between check and use.
struct Batch {
    unsigned long idx[kMaxTriggers];
    unsigned long tdata[3][kMaxTriggers]; // tdata1 of every entry, then tdata2, tdata3
    Tdata at(unsigned long i) const { return {{tdata[0][i], tdata[1][i], tdata[2][i]}}; }
};
// install/update: "trig_count" configurations "in the shared memory at
// offset 0x0", read once (NO_SHMEM and BAD_RANGE first).
Error load_batch(const HartTriggers &h, unsigned long count, Batch &b) {
    if (!h.shmem_on) return Error::NoShmem;
    if (count > h.count) return Error::BadRange;
    for (unsigned long i = 0; i < count; i++) {
        volatile unsigned long *e = entry(h, i);
        b.idx[i] = e[0];
        for (unsigned w = 0; w < 3; w++) b.tdata[w][i] = e[1 + w];
    }
    return Error::Success;
}

SbiRet fail_at(Error e, unsigned long i) { return {static_cast<long>(e), i}; }

// Installs all or nothing (README): a failure at configuration i uninstalls
// what this call installed before it.
SbiRet install_triggers(unsigned long count) {
    HartTriggers &h = self();
    Batch b;
    if (Error e = load_batch(h, count, b); e != Error::Success) return err(e);
    for (unsigned long i = 0; i < count; i++) {
        Error e = check_config(b.tdata[0][i], i + 1 == count);
        if (e != Error::Success) return fail_at(e, i);
    }
    uint32_t taken = 0;
    Error e = Error::Success;
    unsigned long i = 0;
    while (i < count && e == Error::Success) {
        unsigned long len = 1;
        while (b.tdata[0][i + len - 1] & CHAIN) len++;
        long s = find_run(h.count, h.state, h.types, &b.tdata[0][i], len, taken);
        if (s < 0) {
            e = Error::Failed;
            break;
        }
        for (unsigned long k = 0; k < len; k++, i++) {
            unsigned idx = static_cast<unsigned>(s + static_cast<long>(k));
            taken |= 1u << idx;
            b.idx[i] = idx;
            if (!program_hw(idx, b.at(i))) {
                e = Error::NotSupported;
                break;
            }
        }
    }
    if (e != Error::Success) {
        for (unsigned idx = 0; idx < h.count; idx++)
            if ((taken >> idx) & 1) clear_hw(idx);
        return fail_at(e, i);
    }
    for (unsigned long k = 0; k < count; k++) {
        unsigned idx = static_cast<unsigned>(b.idx[k]);
        h.state[idx] = static_cast<uint8_t>(TS_MAPPED | state_from_tdata1(b.tdata[0][k]));
        entry(h, k)[0] = idx;
    }
    return ok();
}

// Checks every configuration first; then updates in order. A configuration
// the hart does not keep fails with NOT_SUPPORTED and that trigger keeps its
// previous configuration (the ones before it are updated).
SbiRet update_triggers(unsigned long count) {
    HartTriggers &h = self();
    Batch b;
    if (Error e = load_batch(h, count, b); e != Error::Success) return err(e);
    for (unsigned long i = 0; i < count; i++) {
        if (b.idx[i] >= h.count) return fail_at(Error::InvalidParam, i);
        Error e = check_config(b.tdata[0][i], false);
        if (e != Error::Success) return fail_at(e, i);
        unsigned idx = static_cast<unsigned>(b.idx[i]);
        if (!(h.state[idx] & TS_MAPPED)) return fail_at(Error::Failed, i);
        unsigned long cur = read_hw(idx).d[0];
        if (type_of(cur) != type_of(b.tdata[0][i]) || ((cur ^ b.tdata[0][i]) & CHAIN))
            return fail_at(Error::InvalidParam, i);
    }
    for (unsigned long i = 0; i < count; i++) {
        unsigned idx = static_cast<unsigned>(b.idx[i]);
        Tdata old = read_hw(idx);
        if (!program_hw(idx, b.at(i))) {
            program_hw(idx, old);
            return fail_at(Error::NotSupported, i);
        }
        h.state[idx] = static_cast<uint8_t>(TS_MAPPED | state_from_tdata1(b.tdata[0][i]));
    }
    return ok();
}

enum class MaskOp { Uninstall, Enable, Disable };

// trig_idx_base + bit n of trig_idx_mask, for every set bit. All must be
// mapped triggers before any is changed.
SbiRet mask_op(unsigned long base, unsigned long mask, MaskOp op) {
    HartTriggers &h = self();
    if (!mask_ok(h.count, h.state, base, mask)) return err(Error::InvalidParam);
    for (unsigned n = 0; n < kXlen; n++) {
        if (!((mask >> n) & 1)) continue;
        unsigned idx = static_cast<unsigned>(base + n);
        if (op == MaskOp::Uninstall) {
            clear_hw(idx);
            h.state[idx] = 0;
            continue;
        }
        unsigned long t1 = read_hw(idx).d[0];
        unsigned type = type_of(t1);
        t1 &= ~mode_bits(type);
        if (op == MaskOp::Enable) t1 |= tdata1_modes_from_state(type, h.state[idx]);
        csr::csr_write_safe_num(kTdata1, t1);
    }
    return ok();
}

long probe() { return self().count ? 1 : 0; }

SbiRet handle(unsigned long a0, unsigned long a1, unsigned long a2, unsigned long,
              unsigned long, unsigned long, unsigned long fid) {
    switch (fid) {
    case NUM_TRIGGERS: return num_triggers(a0);
    case SET_SHMEM: return set_shmem(a0, a1, a2);
    case READ_TRIGGERS: return read_triggers(a0, a1);
    case INSTALL_TRIGGERS: return install_triggers(a0);
    case UPDATE_TRIGGERS: return update_triggers(a0);
    case UNINSTALL_TRIGGERS: return mask_op(a0, a1, MaskOp::Uninstall);
    case ENABLE_TRIGGERS: return mask_op(a0, a1, MaskOp::Enable);
    case DISABLE_TRIGGERS: return mask_op(a0, a1, MaskOp::Disable);
    default: return err(Error::NotSupported);
    }
}
} // namespace

void dbtr_hart_reset() {
    HartTriggers &h = self();
    for (unsigned idx = 0; idx < h.count; idx++)
        if (h.state[idx] & TS_MAPPED) clear_hw(idx);
    for (uint8_t &s : h.state) s = 0;
    h.shmem_on = false;
}

extern const Extension sbi_ext_dbtr = {probe, handle};
} // namespace sbi
