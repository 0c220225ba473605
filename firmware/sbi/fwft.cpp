// SPDX-License-Identifier: BSD-2-Clause
// Firmware Features extension (ext-firmware-features.adoc, EID "FWFT").
// Every feature is local (per hart) and lives in the hart's own CSRs:
// misaligned exception delegation in medeleg, the others in menvcfg
// (privileged spec, "Machine Environment Configuration Register"). A feature
// is supported when the hart keeps its bits (WARL fields, probed once per
// hart); only the lock bits are firmware state.
#include "ecall_list.hpp"
#include "fw.hpp"
#include "hart_enables.hpp"
#include "riscv/csr.hpp"
#include "riscv/csr_safe.hpp"
#include "services.hpp"

namespace sbi {
namespace {

enum : unsigned long { FWFT_SET = 0, FWFT_GET = 1 };
// Table "FWFT Feature Types".
enum : uint32_t {
    MISALIGNED_EXC_DELEG = 0,
    LANDING_PAD = 1,
    SHADOW_STACK = 2,
    DOUBLE_TRAP = 3,
    PTE_AD_HW_UPDATING = 4,
    POINTER_MASKING_PMLEN = 5,
    kNumFeatures = 6,
};
// Table "FWFT Firmware Features Set Flags".
constexpr unsigned long LOCK = 1;

// menvcfg fields: LPE (Zicfilp), SSE (Zicfiss), PMM (Ssnpm), DTE
// (Ssdbltrp), ADUE (Svadu).
using csr::menvcfg_bits::LPE, csr::menvcfg_bits::SSE, csr::menvcfg_bits::DTE,
    csr::menvcfg_bits::ADUE, csr::menvcfg_bits::PMM;
constexpr unsigned kPmmShift = csr::menvcfg_bits::PMM_SHIFT;
// PMM encodings (Ssnpm): 2 = PMLEN 7, 3 = PMLEN 16.
constexpr uint64_t kPmmPmlen7 = 2, kPmmPmlen16 = 3;
constexpr uint64_t kEnvFeatureBits = LPE | SSE | DTE | ADUE | PMM;
constexpr unsigned long kMisalignedDeleg =
    (1ul << csr::cause::load_misaligned) | (1ul << csr::cause::store_misaligned);

constexpr uint64_t env_bit(uint32_t feature) {
    switch (feature) {
    case LANDING_PAD: return LPE;
    case SHADOW_STACK: return SSE;
    case DOUBLE_TRAP: return DTE;
    case PTE_AD_HW_UPDATING: return ADUE;
    default: return 0;
    }
}


static_assert(csr::safe_listed(csr::menvcfg) && csr::safe_listed(csr::menvcfgh));

// menvcfg as 64 bits (menvcfgh holds the upper half on RV32); 0 and no
// effect when the hart has no menvcfg.
uint64_t env_read() {
    csr::SafeResult lo = csr::csr_read_safe_num(csr::menvcfg);
    if (lo.trapped) return 0;
    uint64_t v = lo.value;
    if constexpr (sizeof(long) == 4)
        v |= static_cast<uint64_t>(csr::csr_read_safe_num(csr::menvcfgh).value) << 32;
    return v;
}
void env_write(uint64_t v) {
    csr::csr_write_safe_num(csr::menvcfg, static_cast<unsigned long>(v));
    if constexpr (sizeof(long) == 4)
        csr::csr_write_safe_num(csr::menvcfgh, static_cast<unsigned long>(v >> 32));
}

// Which fields this hart implements: set them, read back, restore. Only
// M-mode runs meanwhile, so the S-mode features have no effect.
HartFeatures &probe() {
    HartFeatures &f = fw::this_block().fwft;
    if (f.probed) return f;
    unsigned long deleg = csr_read(csr::medeleg);
    csr_write(csr::medeleg, deleg | kMisalignedDeleg);
    f.deleg_ok = (csr_read(csr::medeleg) & kMisalignedDeleg) == kMisalignedDeleg;
    csr_write(csr::medeleg, deleg);
    uint64_t env = env_read();
    env_write(env | (kEnvFeatureBits & ~PMM) | kPmmPmlen7 << kPmmShift);
    uint64_t got = env_read();
    f.env_ok = got & (kEnvFeatureBits & ~PMM);
    // PTE_AD_HW_UPDATING: only where the device tree lists both Svade and
    // Svadu; with one of them ADUE is what the boot set (core/hart_enables.hpp).
    if (!fw::enables::fwft_adue_toggles(fw::this_hart().isa)) f.env_ok &= ~ADUE;
    f.pmlen7 = ((got & PMM) >> kPmmShift) == kPmmPmlen7;
    env_write((env & ~PMM) | kPmmPmlen16 << kPmmShift);
    f.pmlen16 = ((env_read() & PMM) >> kPmmShift) == kPmmPmlen16;
    env_write(env);
    f.probed = true;
    return f;
}

bool supported(const HartFeatures &f, uint32_t feature) {
    switch (feature) {
    case MISALIGNED_EXC_DELEG: return f.deleg_ok;
    case POINTER_MASKING_PMLEN: return f.pmlen7 || f.pmlen16;
    default: return (f.env_ok & env_bit(feature)) != 0;
    }
}

unsigned long get(uint32_t feature) {
    if (feature == MISALIGNED_EXC_DELEG)
        return (csr_read(csr::medeleg) & kMisalignedDeleg) == kMisalignedDeleg;
    uint64_t env = env_read();
    if (feature == POINTER_MASKING_PMLEN) {
        uint64_t pmm = (env & PMM) >> kPmmShift;
        return pmm == kPmmPmlen7 ? 7 : pmm == kPmmPmlen16 ? 16 : 0;
    }
    return (env & env_bit(feature)) != 0;
}

// Applies a validated value; false if the hart did not take it.
bool apply(uint32_t feature, unsigned long value) {
    if (feature == MISALIGNED_EXC_DELEG) {
        if (value) csr_set(csr::medeleg, kMisalignedDeleg);
        else csr_clear(csr::medeleg, kMisalignedDeleg);
    } else if (feature == POINTER_MASKING_PMLEN) {
        uint64_t pmm = value == 7 ? kPmmPmlen7 : value == 16 ? kPmmPmlen16 : 0;
        env_write((env_read() & ~PMM) | pmm << kPmmShift);
    } else {
        uint64_t env = env_read();
        env_write(value ? env | env_bit(feature) : env & ~env_bit(feature));
    }
    return get(feature) == value;
}

bool value_valid(const HartFeatures &f, uint32_t feature, unsigned long value) {
    if (feature != POINTER_MASKING_PMLEN) return value <= 1;
    // PMLEN: 0 (off) or a length the hart implements (Ssnpm: 7 or 16).
    return value == 0 || (value == 7 && f.pmlen7) || (value == 16 && f.pmlen16);
}

SbiRet set(uint32_t feature, unsigned long value, unsigned long flags) {
    // Reserved and platform-specific types (we implement none): DENIED.
    if (feature >= kNumFeatures) return err(Error::Denied);
    HartFeatures &f = probe();
    if (!supported(f, feature)) return err(Error::NotSupported);
    if ((flags & ~LOCK) || !value_valid(f, feature, value)) return err(Error::InvalidParam);
    // A locked feature refuses every set, also of its current value (README).
    if (f.locked & (1u << feature)) return err(Error::DeniedLocked);
    if (!apply(feature, value)) return err(Error::Failed);
    if (flags & LOCK) f.locked |= 1u << feature;
    return ok();
}

SbiRet handle(unsigned long a0, unsigned long a1, unsigned long a2, unsigned long,
              unsigned long, unsigned long, unsigned long fid) {
    // feature is uint32_t: only its low 32 bits count (binary-encoding.adoc).
    uint32_t feature = static_cast<uint32_t>(a0);
    switch (fid) {
    case FWFT_SET: return set(feature, a1, a2);
    case FWFT_GET:
        if (feature >= kNumFeatures) return err(Error::Denied);
        if (!supported(probe(), feature)) return err(Error::NotSupported);
        return ok(get(feature));
    default: return err(Error::NotSupported);
    }
}
} // namespace

bool fwft_double_trap_backed() { return supported(probe(), DOUBLE_TRAP); }
// On the trap-redirect path: a hart that backs DOUBLE_TRAP has menvcfg, so
// the plain CSR read serves (no trap-safe access).
bool fwft_double_trap_enabled() {
    if (!fwft_double_trap_backed()) return false;
    if constexpr (sizeof(long) == 8) return (csr_read(csr::menvcfg) & DTE) != 0;
    else return (csr_read(csr::menvcfgh) & static_cast<unsigned long>(DTE >> 32)) != 0;
}

void fwft_hart_reset() {
    // "Upon hart reset, local feature values are not retained and reset to
    // their default reset values": misaligned faults stay with M-mode (our
    // implementation-defined reset value), every menvcfg feature is 0. A bit
    // no feature backs (ADUE for Svadu alone) keeps its boot value.
    HartFeatures &f = probe();
    csr_clear(csr::medeleg, kMisalignedDeleg);
    uint64_t bits = f.env_ok | (f.pmlen7 || f.pmlen16 ? PMM : 0);
    if (bits) env_write(env_read() & ~bits);
    f.locked = 0;
}

extern const Extension sbi_ext_fwft = {nullptr, handle};
} // namespace sbi
