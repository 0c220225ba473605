// SPDX-License-Identifier: BSD-2-Clause
// Host model of a hart with ratified Smctr/Ssctr (and Smcsrind, Smstateen,
// H), as M-mode firmware sees it through CSR instructions. It is the
// emulation (firmware/ctr/ctr_emul.hpp) configured for the ratified layout
// only, with every access made from M-mode, so a CSR the real hart would not
// accept counts as a fault (M-mode code touching it would trap). Used to test
// firmware/ctr/ctr_native.hpp on the host.
#pragma once
#include "ctr_emul.hpp"

namespace hwmodel {

class RatifiedCtrHart {
public:
    ctr::Config cfg;
    ctr::Hart state;
    uint64_t hstateen0 = ctr::ratified::stateen_CTR;
    unsigned faults = 0; // accesses that would trap in M-mode
    unsigned accesses = 0;

    RatifiedCtrHart() {
        cfg.views = ctr::VIEW_RATIFIED;
        cfg.has_h = true;
        cfg.finish();
        ctr::reset(cfg, state);
    }
    uint64_t read(unsigned csr) {
        accesses++;
        if (csr == kHstateen0) return hstateen0;
        unsigned long v = 0;
        if (ctr::read_csr(cfg, state, csr, kM, v) != ctr::CsrResult::Done) faults++;
        return v;
    }
    void write(unsigned csr, uint64_t v) {
        accesses++;
        if (csr == kHstateen0) {
            hstateen0 = v;
            return;
        }
        if (ctr::write_csr(cfg, state, csr, kM, v) != ctr::CsrResult::Done) faults++;
    }
    void sctrclr() {
        accesses++;
        if (ctr::sctrclr(cfg, state, kM) != ctr::CsrResult::Done) faults++;
    }

private:
    static constexpr unsigned kHstateen0 = 0x60C;
    static constexpr ctr::Access kM{3, false, true, 0};
};

} // namespace hwmodel
