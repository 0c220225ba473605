// SPDX-License-Identifier: BSD-2-Clause
// Shared helpers of the CTR host tests: an emulated hart with a configuration
// and CSR accessors that check the access result.
#pragma once
#include <doctest/doctest.h>

#include <initializer_list>
#include <ios>

#include "ctr_emul.hpp"

namespace ctrtest {

using ctr::CsrResult;

// Access contexts (priv, V, hstateen0.CTR, hardware xiselect).
inline constexpr ctr::Access kM{3, false, true, 0};
inline constexpr ctr::Access kS{1, false, true, 0};
inline constexpr ctr::Access kU{0, false, true, 0};
inline constexpr ctr::Access kVS{1, true, true, 0};
inline constexpr ctr::Access kVU{0, true, true, 0};

struct Emu {
    ctr::Config c;
    ctr::Hart h;
    explicit Emu(ctr::Config cfg = {}) : c(cfg) {
        c.finish();
        ctr::reset(c, h);
    }
    CsrResult try_read(unsigned csr, const ctr::Access &a, unsigned long &v) {
        return ctr::read_csr(c, h, csr, a, v);
    }
    CsrResult try_write(unsigned csr, const ctr::Access &a, unsigned long v) {
        return ctr::write_csr(c, h, csr, a, v);
    }
    unsigned long rd(unsigned csr, const ctr::Access &a = kS) {
        unsigned long v = 0xDEAD;
        CsrResult r = try_read(csr, a, v);
        INFO("csr 0x" << std::hex << csr);
        CHECK(r == CsrResult::Done);
        return v;
    }
    void wr(unsigned csr, unsigned long v, const ctr::Access &a = kS) {
        CsrResult r = try_write(csr, a, v);
        INFO("csr 0x" << std::hex << csr);
        CHECK(r == CsrResult::Done);
    }
    // Entry access through siselect/sireg*, as S-mode software does it.
    unsigned long entry(unsigned index, unsigned reg, const ctr::Access &a = kS) {
        wr(ctr::ind::siselect, ctr::ind::ctr_first + index, a);
        return rd(reg == 0 ? ctr::ind::sireg : reg == 1 ? ctr::ind::sireg2 : ctr::ind::sireg3, a);
    }
    void set_entry(unsigned index, unsigned reg, unsigned long v, const ctr::Access &a = kS) {
        wr(ctr::ind::siselect, ctr::ind::ctr_first + index, a);
        wr(reg == 0 ? ctr::ind::sireg : reg == 1 ? ctr::ind::sireg2 : ctr::ind::sireg3, v, a);
    }
    void transfer(ctr::Mode m, unsigned long from, unsigned long to, ctr::Type t) {
        ctr::record_transfer(c, h, m, from, to, t);
    }
    void trap(ctr::Mode from, ctr::Mode to, unsigned long epc, unsigned long tvec,
              bool irq, unsigned long code) {
        ctr::record_trap(c, h, from, to, epc, tvec, irq, code);
    }
    void xret(ctr::Mode from, ctr::Mode to, unsigned long pc, unsigned long epc) {
        ctr::record_trap_return(c, h, from, to, pc, epc);
    }
    unsigned wrptr() { return ctr::controls(h).status & ctr::ratified::status::WRPTR; }
};

inline ctr::Config ratified_only() {
    ctr::Config c;
    c.views = ctr::VIEW_RATIFIED;
    return c;
}
inline ctr::Config draft_only() {
    ctr::Config c;
    c.views = ctr::VIEW_DRAFT;
    return c;
}
inline ctr::Config with_h(ctr::Config c = {}) {
    c.has_h = true;
    return c;
}

} // namespace ctrtest
