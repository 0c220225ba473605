// SPDX-License-Identifier: BSD-2-Clause
// What the posted Linux CTR driver (drivers/perf/riscv_ctr.c, reference
// linux.md) does with the ratified registers, run against the emulation.
#include "fixture.hpp"

using namespace ctr;
using namespace ctrtest;
namespace rc = ratified::ctl;
namespace rs = ratified::status;

TEST_CASE("linux: probe depth, probe filters, sample with LCOFIFRZ, read, unfreeze, clear") {
    Emu e(ratified_only());
    // Depth: write the largest encoding, read back what is supported.
    e.wr(ratified::sctrdepth, ratified::depth::DEPTH);
    unsigned depth = 16u << e.rd(ratified::sctrdepth);
    CHECK(depth == kCapacity);
    // Filters: write ~0, read back what is implemented, restore 0.
    e.wr(ratified::sctrctl, ~0ul);
    unsigned long supported = e.rd(ratified::sctrctl);
    CHECK((supported & rc::FILTERS) == rc::FILTERS);
    CHECK((supported & (rc::U | rc::S | rc::LCOFIFRZ | rc::BPFRZ | rc::RASEMU | rc::STE)) ==
          (rc::U | rc::S | rc::LCOFIFRZ | rc::BPFRZ | rc::RASEMU | rc::STE));
    CHECK((supported & (rc::M | rc::MTE)) == 0);
    e.wr(ratified::sctrctl, 0);
    // Enable: user + kernel, LCOFIFRZ; clear the buffer first.
    CHECK(ctr::sctrclr(e.c, e.h, kS) == CsrResult::Done);
    e.wr(ratified::sctrctl, rc::U | rc::S | rc::LCOFIFRZ);
    // Some recorded transfers, then a counter overflow interrupt into S.
    for (unsigned i = 0; i < 5; i++) e.transfer(MODE_U, 0x10000 + 8 * i, 0x20000 + 8 * i, TYPE_DIRECT_CALL);
    e.trap(MODE_U, MODE_S, 0x10040, 0xFFFF0000, true, 13);
    CHECK(e.rd(ratified::sctrstatus) == (rs::FROZEN | 5));
    // The ISR's own transfers are not recorded while frozen.
    e.transfer(MODE_S, 0xFFFF0004, 0xFFFF1000, TYPE_DIRECT_CALL);
    // Read entries 0..depth-1 until V=0.
    unsigned n = 0;
    for (unsigned i = 0; i < depth; i++) {
        unsigned long src = e.entry(i, 0);
        if (!(src & entry::source_V)) break;
        CHECK(src == ((0x10000 + 8 * (4 - i)) | 1));
        CHECK(e.entry(i, 1) == 0x20000 + 8 * (4 - i));
        CHECK((e.entry(i, 2) & entry::data_TYPE) == TYPE_DIRECT_CALL);
        n++;
    }
    CHECK(n == 5);
    // Clear FROZEN before returning; recording resumes.
    e.wr(ratified::sctrstatus, e.rd(ratified::sctrstatus) & ~rs::FROZEN);
    e.transfer(MODE_U, 0x30000, 0x30100, TYPE_DIRECT_CALL);
    CHECK(e.entry(0, 0) == (0x30000 | 1));
    // Context switch out: SCTRCLR.
    CHECK(ctr::sctrclr(e.c, e.h, kS) == CsrResult::Done);
    CHECK(e.entry(0, 0) == 0);
}
