// SPDX-License-Identifier: BSD-2-Clause
// Entry accesses served in one trap (firmware/ctr/ctr_follow.hpp, README
// "Entry accesses in one trap"): which instruction words the trap serves,
// where it may read them, and when an interrupt forbids it. The words are
// what GNU as 2.40 (riscv64-linux-gnu-as -march=rv64imac_zicsr) assembles
// for the instruction in the comment.
#include <doctest/doctest.h>

#include "ctr_follow.hpp"

using namespace ctr::follow;

namespace {
// ra, t0-t2, a0-a7, t3-t6 and x0: the CSR fast path's frame
// (firmware/core/trap.hpp kFastFrameRegs, restated here from the calling
// convention: the registers a call may clobber).
constexpr uint32_t kFrame = 1u << 0 | 1u << 1 | 1u << 5 | 1u << 6 | 1u << 7 | 0xFFu << 10 | 0xFu << 28;
constexpr unsigned kA0 = 10, kA2 = 12, kA3 = 13, kA5 = 15, kA6 = 16, kT6 = 31;
} // namespace

TEST_CASE("follow: csrw siselect, rs1 with rs1 in the frame") {
    CHECK(is_select_write(0x15079073, kFrame)); // csrw siselect, a5
    CHECK(rs1_of(0x15079073) == kA5);
    CHECK(is_write(0x15079073));
    CHECK(is_select_write(0x15001073, kFrame)); // csrw siselect, zero
    CHECK(rs1_of(0x15001073) == 0);
    CHECK_FALSE(is_select_write(0x15041073, kFrame)); // csrw siselect, s0: not in the frame
    CHECK(is_select_write(0x15041073, kFrame | 1u << 8));
    CHECK_FALSE(is_select_write(0x15059573, kFrame)); // csrrw a0, siselect, a1: rd != x0
    CHECK_FALSE(is_select_write(0x15002573, kFrame)); // csrr a0, siselect
    CHECK_FALSE(is_select_write(0x1502d073, kFrame)); // csrwi siselect, 5
    CHECK_FALSE(is_select_write(0x15151073, kFrame)); // csrw sireg, a0
    CHECK_FALSE(is_select_write(0x151026f3, kFrame)); // csrr a3, sireg
}

TEST_CASE("follow: csrr rd, sireg/sireg2/sireg3 with rd in the frame") {
    CHECK(is_entry_read(0x151026f3, kFrame)); // csrr a3, sireg
    CHECK(rd_of(0x151026f3) == kA3);
    CHECK(entry_reg(0x151026f3) == 0);
    CHECK_FALSE(is_write(0x151026f3));
    CHECK(is_entry_read(0x15202673, kFrame)); // csrr a2, sireg2
    CHECK(rd_of(0x15202673) == kA2);
    CHECK(entry_reg(0x15202673) == 1);
    CHECK(is_entry_read(0x15302873, kFrame)); // csrr a6, sireg3
    CHECK(rd_of(0x15302873) == kA6);
    CHECK(entry_reg(0x15302873) == 2);
    CHECK(is_entry_read(0x15302ff3, kFrame)); // csrr t6, sireg3
    CHECK(rd_of(0x15302ff3) == kT6);
    CHECK(is_entry_read(0x15102073, kFrame)); // csrr zero, sireg: read, nothing written
    CHECK(rd_of(0x15102073) == 0);
    CHECK_FALSE(is_entry_read(0x152024f3, kFrame)); // csrr s1, sireg2: not in the frame
    CHECK_FALSE(is_entry_read(0x1515a573, kFrame)); // csrrs a0, sireg, a1: sets bits
    CHECK_FALSE(is_entry_read(0x15103573, kFrame)); // csrrc a0, sireg, zero
    CHECK_FALSE(is_entry_read(0x15502573, kFrame)); // csrr a0, sireg4 (not an entry register)
    CHECK_FALSE(is_entry_read(0x25102573, kFrame)); // csrr a0, vsireg
    CHECK_FALSE(is_entry_read(0x15002573, kFrame)); // csrr a0, siselect
    CHECK_FALSE(is_entry_read(0x15151073, kFrame)); // csrw sireg, a0
    CHECK_FALSE(is_entry_read(0x15079073, kFrame)); // csrw siselect, a5
    CHECK_FALSE(is_entry_read(0x00000013, kFrame)); // nop
    (void)kA0;
}

TEST_CASE("follow: the instructions after pc must lie in the page of its last byte") {
    constexpr unsigned long page = 0x80200000;
    CHECK(same_page(page, page + 4));
    CHECK(same_page(page + 0xFF0, page + 0xFFC)); // the last word of the page
    CHECK_FALSE(same_page(page + 0xFF0, page + 0x1000));
    CHECK_FALSE(same_page(page + 0xFF4, page + 0xFFE)); // an instruction across the page end
    // A trapping instruction across the page end: its later page counts.
    CHECK(same_page(page + 0xFFE, page + 0x1002));
    CHECK(same_page(page + 0xFFE, page + 0x100E));
    // kMaxFollowing instructions after one at pc, as csr_fast asks.
    CHECK(same_page(page + 0xFF0 - 4 * kMaxFollowing, page + 0xFF0));
    CHECK_FALSE(same_page(page + 0xFF8, page + 0xFF8 + 4 * kMaxFollowing));
}

TEST_CASE("follow: an interrupt taken after mret forbids serving what follows") {
    // Bit numbers from the privileged spec's mip/mie layout.
    constexpr unsigned long SSI = 1ul << 1, MSI = 1ul << 3, STI = 1ul << 5, MTI = 1ul << 7, SEI = 1ul << 9,
                            VSSI = 1ul << 2, LCOFI = 1ul << 13;
    constexpr unsigned long deleg = SSI | STI | SEI | LCOFI;
    // Nothing pending.
    CHECK_FALSE(interrupt_due(0, MSI | MTI | SSI, deleg, 0, SSI, true));
    // Pending but not enabled.
    CHECK_FALSE(interrupt_due(MTI, MSI, deleg, 0, 0, true));
    // M-level, pending and enabled: taken below M-mode whatever sstatus.SIE.
    CHECK(interrupt_due(MTI, MTI, deleg, 0, 0, false));
    CHECK(interrupt_due(MSI, MSI | MTI, deleg, 0, 0, true));
    // LCOFI routed to M-mode (mideleg cleared for the CTR freeze): M-level.
    CHECK(interrupt_due(LCOFI, LCOFI, deleg & ~LCOFI, 0, 0, false));
    // S-level: only with sstatus.SIE.
    CHECK_FALSE(interrupt_due(STI, STI, deleg, STI, STI, false));
    CHECK(interrupt_due(STI, STI, deleg, STI, STI, true));
    // Smaia: pending in sip (mvip) with no bit in mip.
    CHECK(interrupt_due(0, 0, deleg, SEI, SEI, true));
    CHECK_FALSE(interrupt_due(0, 0, deleg, SEI, SEI, false));
    // A VS-level interrupt (hideleg) with V=0 is not taken; counted with SIE
    // all the same (conservative), never without.
    CHECK(interrupt_due(VSSI, VSSI, deleg | VSSI, 0, 0, true));
    CHECK_FALSE(interrupt_due(VSSI, VSSI, deleg | VSSI, 0, 0, false));
}
