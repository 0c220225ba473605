// SPDX-License-Identifier: BSD-2-Clause
// Control Transfer Records: the register maps of both specifications, written
// once. "ratified" is Smctr/Ssctr 1.0; "draft" is v0.1.4 (the project seed).
// Everything here is constexpr data or arithmetic with no hart access, shared
// by the emulation, the draft-on-ratified translation, the host model and the
// tests. Section names refer to the specification texts in specs/ctr/.
#pragma once
#include <stdint.h>

namespace ctr {

// ctrdata.TYPE encodings (ratified "Transfer Type Filtering", table "Control
// Transfer Type Definitions"; draft "Control Transfer Record Metadata").
enum Type : uint8_t {
    TYPE_NONE = 0,
    TYPE_EXCEPTION = 1,
    TYPE_INTERRUPT = 2,
    TYPE_TRAP_RETURN = 3,
    TYPE_NOT_TAKEN_BRANCH = 4,
    TYPE_TAKEN_BRANCH = 5,
    TYPE_INDIRECT_CALL = 8,
    TYPE_DIRECT_CALL = 9,
    TYPE_INDIRECT_JUMP = 10,
    TYPE_DIRECT_JUMP = 11,
    TYPE_COROUTINE_SWAP = 12,
    TYPE_FUNCTION_RETURN = 13,
    TYPE_OTHER_INDIRECT_JUMP = 14,
    TYPE_OTHER_DIRECT_JUMP = 15,
};

// The privilege mode of a transfer's source or target: the mstatus.MPP
// encoding with the virtualization mode in bit 2.
enum Mode : uint8_t { MODE_U = 0, MODE_S = 1, MODE_M = 3, MODE_VU = 4, MODE_VS = 5 };
constexpr unsigned kModeVirt = 4;
constexpr Mode make_mode(unsigned priv, bool virt) {
    return static_cast<Mode>(priv | (virt ? kModeVirt : 0));
}
constexpr bool mode_virt(Mode m) { return m & kModeVirt; }
constexpr unsigned mode_priv(Mode m) { return m & 3; }

// Indirect CSR access (Smcsrind/Sscsrind) and the CTR select range
// (ratified "Entry Registers"; draft "Entry Registers").
namespace ind {
constexpr unsigned miselect = 0x350, mireg = 0x351, mireg2 = 0x352, mireg3 = 0x353,
                   mireg4 = 0x355, mireg5 = 0x356, mireg6 = 0x357;
constexpr unsigned siselect = 0x150, sireg = 0x151, sireg2 = 0x152, sireg3 = 0x153,
                   sireg4 = 0x155, sireg5 = 0x156, sireg6 = 0x157;
constexpr unsigned vsiselect = 0x250, vsireg = 0x251, vsireg2 = 0x252, vsireg3 = 0x253,
                   vsireg4 = 0x255, vsireg5 = 0x256, vsireg6 = 0x257;
// The xireg* number relative to xiselect: 1..3 and 5..7 (4 is not an ireg).
constexpr unsigned ireg_slot(unsigned csr) { return csr & 0xF; }
// Smcsrind: xiselect holds at least 0..0xFFF; this is what we keep.
constexpr unsigned long select_mask = 0xFFF;
constexpr unsigned long ctr_first = 0x200, ctr_last = 0x2FF;
} // namespace ind

// Entry registers (ratified "ctrsource", "ctrtarget", "ctrdata"; same in the
// draft). Entries 0..255 (xiselect 0x200 + index).
namespace entry {
constexpr unsigned kMaxEntries = 256;
constexpr unsigned long source_V = 1;    // ctrsource.V
constexpr unsigned long target_MISP = 1; // ctrtarget.MISP
constexpr uint32_t data_TYPE = 0xF, data_CCV = 1u << 15;
constexpr unsigned data_CC_shift = 16;   // CC[15:0] in ctrdata[31:16]
constexpr uint32_t data_CCM = 0xFFFu << 16, data_CCE = 0xFu << 28;
} // namespace entry

// Cycle counting (ratified "Cycle Counting"; the draft has the same formula).
// CC[15:12] = CCE, CC[11:0] = CCM; value = CCE==0 ? CCM : (4096+CCM) << (CCE-1).
namespace cc {
constexpr unsigned kMantBits = 12;
constexpr uint32_t kMant = (1u << kMantBits) - 1;
// Largest elapsed count representable with `cce_bits` implemented exponent
// bits (table "Cycle Counter Size Options").
constexpr uint64_t max_count(unsigned cce_bits) {
    unsigned emax = (1u << cce_bits) - 1;
    return emax == 0 ? kMant : (uint64_t(1u << kMantBits) + kMant) << (emax - 1);
}
constexpr uint64_t decode(uint32_t cc16) {
    unsigned e = cc16 >> kMantBits, m = cc16 & kMant;
    return e == 0 ? m : (uint64_t(1u << kMantBits) + m) << (e - 1);
}
// Encodes a CtrCycleCounter value, saturating at all implemented bits one.
constexpr uint32_t encode(uint64_t count, unsigned cce_bits) {
    unsigned emax = (1u << cce_bits) - 1;
    if (count <= kMant) return uint32_t(count);
    unsigned msb = 63 - __builtin_clzll(count);
    unsigned e = msb - (kMantBits - 1); // 4096..8191 -> 1
    if (e > emax) return (emax << kMantBits) | kMant;
    return (e << kMantBits) | uint32_t((count >> (e - 1)) & kMant);
}
} // namespace cc

// The transfer-type filter bit of a type: bit 32 + TYPE in both layouts
// (EXCINH = 33 ... DIRLJMPINH = 47; NTBREN at 36 has the opposite polarity).
constexpr uint64_t filter_bit(unsigned type) { return 1ull << (32 + type); }

// ---------------------------------------------------------------------------
// Ratified 1.0 ("CSRs").
namespace ratified {
constexpr unsigned sctrctl = 0x14E, sctrstatus = 0x14F, sctrdepth = 0x15F, vsctrctl = 0x24E,
                   mctrctl = 0x34E;
constexpr unsigned sctrclr_insn = 0x10400073; // "Supervisor CTR Clear Instruction"
namespace ctl {
constexpr uint64_t U = 1ull << 0, S = 1ull << 1, M = 1ull << 2, RASEMU = 1ull << 7,
                   STE = 1ull << 8, MTE = 1ull << 9, BPFRZ = 1ull << 11,
                   LCOFIFRZ = 1ull << 12, EXCINH = 1ull << 33, INTRINH = 1ull << 34,
                   TRETINH = 1ull << 35, NTBREN = 1ull << 36, TKBRINH = 1ull << 37,
                   INDCALLINH = 1ull << 40, DIRCALLINH = 1ull << 41, INDJMPINH = 1ull << 42,
                   DIRJMPINH = 1ull << 43, CORSWAPINH = 1ull << 44, RETINH = 1ull << 45,
                   INDLJMPINH = 1ull << 46, DIRLJMPINH = 1ull << 47, CUSTOM = 0xFull << 60;
constexpr uint64_t FILTERS = EXCINH | INTRINH | TRETINH | NTBREN | TKBRINH | INDCALLINH |
                             DIRCALLINH | INDJMPINH | DIRJMPINH | CORSWAPINH | RETINH |
                             INDLJMPINH | DIRLJMPINH;
// Every standard field of mctrctl.
constexpr uint64_t DEFINED = U | S | M | RASEMU | STE | MTE | BPFRZ | LCOFIFRZ | FILTERS;
// Read-only 0 through sctrctl and vsctrctl ("sctrctl": bits 2 and 9).
constexpr uint64_t M_ONLY = M | MTE;
// Required fields ("mctrctl": all optional except M, S, U and BPFRZ).
constexpr uint64_t REQUIRED = U | S | M | BPFRZ;
} // namespace ctl
namespace status {
constexpr uint32_t WRPTR = 0xFF, FROZEN = 1u << 31;
constexpr uint32_t DEFINED = WRPTR | FROZEN;
} // namespace status
namespace depth {
constexpr unsigned long DEPTH = 7; // sctrdepth[2:0]
constexpr unsigned kMax = 4;       // '100 = 256; '11x reserved
constexpr unsigned entries(unsigned enc) { return 16u << enc; }
} // namespace depth
constexpr uint64_t stateen_CTR = 1ull << 54; // "State Enable Access Control"
} // namespace ratified

// ---------------------------------------------------------------------------
// Draft v0.1.4 ("CSRs").
namespace draft {
constexpr unsigned sctrcontrol = 0x181, sctrcontrolh = 0x182, sctrstatus = 0x183,
                   vsctrcontrol = 0x281, vsctrcontrolh = 0x282, mctrcontrol = 0x381,
                   mctrcontrolh = 0x382, mctrstatus = 0x383;
namespace ctl {
constexpr uint64_t M = 1ull << 0, S = 1ull << 1, U = 1ull << 2, CLR = 1ull << 7,
                   MTE = 1ull << 8, STE = 1ull << 9, RASEMU = 1ull << 10, BPFRZ = 1ull << 11,
                   LCOFIFRZ = 1ull << 12, ETEN = 1ull << 38, CUSTOM = 0xFull << 60;
constexpr unsigned DEPTH_shift = 16;
constexpr uint64_t DEPTH = 0xFull << DEPTH_shift;
// sctrcontrol: bits 0 and 8 read-only 0 ("Supervisor Control Transfer
// Record Control"); vsctrcontrol has the same holes.
constexpr uint64_t M_ONLY = M | MTE;
} // namespace ctl
namespace status {
constexpr uint32_t WRPTR = 0xFF, WRAP = 1u << 14, FROZEN = 1u << 15;
constexpr uint32_t DEFINED = WRPTR | WRAP | FROZEN;
} // namespace status
// DEPTH is a thermometer code: '0000 = 16, '0001 = 32, '0011 = 64,
// '0111 = 128, '1111 = 256. A written value is legalised to the code whose
// length is its highest set bit, so all-ones selects the maximum
// (draft "Discovery").
constexpr uint64_t depth_code(unsigned enc) { return (1u << enc) - 1; }
constexpr unsigned depth_enc(uint64_t code) {
    code &= 0xF;
    return code ? 32 - __builtin_clz(unsigned(code)) : 0;
}
constexpr uint64_t stateen_CTR = 1ull << 55;
} // namespace draft

// ---------------------------------------------------------------------------
// The canonical state layout: the ratified mctrctl / sctrstatus layout, plus
// draft-only state kept in bits that are WPRI (never visible) in ratified.
namespace canon {
constexpr uint64_t ETEN = draft::ctl::ETEN; // bit 38: draft ETEN
constexpr uint64_t DRAFT = 1ull << 39;      // last written through the draft layout
                                            // (draft external-trap rule)
constexpr uint32_t WRAP = draft::status::WRAP; // bit 14: draft WRAP
} // namespace canon

// Fields whose position differs between the layouts (tables under "mctrctl"
// and "mctrcontrol"); every other shared field has the same position.
struct BitMove {
    uint8_t draft, ratified;
};
inline constexpr BitMove kMovedBits[] = {
    {0, 2},  // M
    {2, 0},  // U
    {8, 9},  // MTE
    {9, 8},  // STE
    {10, 7}, // RASEMU
};
constexpr uint64_t kSamePosition = ratified::ctl::S | ratified::ctl::BPFRZ |
                                   ratified::ctl::LCOFIFRZ | ratified::ctl::FILTERS |
                                   canon::ETEN;

// Draft control value (without CLR and DEPTH) to canonical, and back.
constexpr uint64_t draft_to_canon(uint64_t d) {
    uint64_t c = d & kSamePosition;
    for (auto mv : kMovedBits) c |= ((d >> mv.draft) & 1) << mv.ratified;
    return c;
}
constexpr uint64_t canon_to_draft(uint64_t c) {
    uint64_t d = c & kSamePosition;
    for (auto mv : kMovedBits) d |= ((c >> mv.ratified) & 1) << mv.draft;
    return d;
}
constexpr uint32_t draft_status_from_canon(uint32_t s) {
    return (s & (ratified::status::WRPTR | canon::WRAP)) |
           ((s & ratified::status::FROZEN) ? draft::status::FROZEN : 0);
}
constexpr uint32_t canon_status_from_draft(uint32_t d) {
    return (d & (draft::status::WRPTR | canon::WRAP)) |
           ((d & draft::status::FROZEN) ? ratified::status::FROZEN : 0);
}

} // namespace ctr
