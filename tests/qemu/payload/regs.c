// SPDX-License-Identifier: BSD-2-Clause
// Register-level tests of the project QEMU's trace components against the
// Trace Control Interface 1.0 register maps (reset values, WARL, Impl,
// Active/Enable/Empty sequencing, RAM sink pointers and SRAM data path).
// Run with -smp 2: the funnel then has two inputs.
#include "lib.h"

#define IMPL_VENDOR_QEMU (0x51u << 24)

static void test_encoder(void)
{
    uintptr_t e = enc_base(0);
    uint32_t c;

    test_prefix = "encoder: ";
    wr32(e + trTeControl, 0);
    check_eq("reset control reads Active=0 Empty=1", rd32(e + trTeControl), TR_EMPTY);
    wr32(e + trTeInstFeatures, 0xffffffffu);
    check_eq("registers ignore writes while Active=0", rd32(e + trTeInstFeatures), 0);
    check("release from reset", tr_reset(e));
    c = rd32(e + trTeControl);
    check_eq("control defaults after Active=1", c,
             TR_ACTIVE | TR_EMPTY | TE_INST_MODE(NT_INSTMODE_BTM) | TE_FORMAT(NT_FORMAT_NTRACE));
    check_eq("trTeImpl: 1.0 encoder, N-Trace 1.0", rd32(e + trTeImpl),
             IMPL_VENDOR_QEMU | (1u << 16) | (1u << 8) | 1u);
    wr32(e + trTeControl, TR_ACTIVE | TE_INST_MODE(NT_INSTMODE_HTM));
    check_eq("InstMode 6 (HTM) settable", (rd32(e) >> 4) & 7, 6);
    wr32(e + trTeControl, TR_ACTIVE | TE_INST_MODE(5));
    check_eq("unsupported InstMode 5 reverts to non-zero 3", (rd32(e) >> 4) & 7, 3);
    wr32(e + trTeControl, TR_ACTIVE | TE_INST_MODE(7));
    check_eq("unsupported InstMode 7 reverts to 6", (rd32(e) >> 4) & 7, 6);
    wr32(e + trTeControl, TR_ACTIVE | TE_INST_MODE(0));
    check_eq("InstMode 0 settable", (rd32(e) >> 4) & 7, 0);
    wr32(e + trTeControl, TR_ACTIVE | TE_FORMAT(0));
    check_eq("Format is WARL N-Trace only", (rd32(e) >> 24) & 7, NT_FORMAT_NTRACE);
    wr32(e + trTeControl, TR_ACTIVE | TE_SYNC_MODE(NT_SYNCMODE_CYCLES));
    check_eq("InstSyncMode 2 (hart cycles) reads back", (rd32(e) >> 16) & 3, NT_SYNCMODE_CYCLES);
    wr32(e + trTeControl, TR_ACTIVE | TE_SYNC_MODE(NT_SYNCMODE_MESSAGES) | TE_SYNC_MAX(0xf));
    check_eq("InstSyncMode 1 and InstSyncMax 15", rd32(e) & 0xf30000u, 0xf10000u);
    wr32(e + trTeControl, ~TR_ENABLE);
    c = rd32(e + trTeControl);
    check_eq("all-ones control (Enable=0): only implemented fields", c,
             TR_ACTIVE | TR_EMPTY | TE_INST_TRACING | TE_INST_MODE(6) | TE_CONTEXT |
             TE_STALL_ENA | (1u << 15) | TE_SYNC_MODE(3) | TE_SYNC_MAX(0xf) | TE_FORMAT(1));
    check_eq("InstTrigEnable unsupported (no triggers)", c & (1u << 11), 0);
    wr32(e + trTeControl, TR_ACTIVE | TR_ENABLE | TE_INST_TRACING | TE_INST_MODE(6));
    // the encoder FIFO hands its messages on when tracing stops at the latest
    check("disable waits for Enable=0 and Empty=1", tr_disable(e));
    c = rd32(e + trTeControl);
    check("tracing into a disabled funnel drops messages: InstStallOrOverflow", c & TE_STALL_OR_OVERFLOW);
    wr32(e + trTeControl, rd32(e + trTeControl) | TE_STALL_OR_OVERFLOW);
    check_eq("InstStallOrOverflow is write-1-to-clear", rd32(e + trTeControl) & TE_STALL_OR_OVERFLOW, 0);
    wr32(e + trTeInstFeatures, 0xffffffffu);
    check_eq("trTeInstFeatures WARL mask (NoAddrDiff/NoTrapAddr/BP/JTC 0, SrcBits<=12)",
             rd32(e + trTeInstFeatures), 0xcfff07ccu);
    wr32(e + trTeInstFeatures, 0);
    check_eq("trTeInstFeatures cleared", rd32(e + trTeInstFeatures), 0);
    wr32(e + trTeInstFilters, 0xffffffffu);
    check_eq("two filters: trTeInstFilters WARL bits 1:0", rd32(e + trTeInstFilters), 3);
    wr32(e + trTeInstFilters, 0);
    for (unsigned i = 0; i < 3; i++) {
        uintptr_t f = e + trTeFilter0Control + 0x20 * i;
        wr32(f, 0xffffffffu);
        wr32(f + 4, 0xffffffffu);
        wr32(f + 8, 0xffffffffu);
        wr32(f + 0xc, 0xffffffffu);
        wr32(f + 0x10, 0xffffffffu);
        wr32(f + 0x18, 0xffffffffu);
    }
    check_eq("filter 0 control: Enable, MatchPrivilege, MatchEcause, MatchInterrupt "
             "(no comparator, impdef or data matches)", rd32(e + trTeFilter0Control), 0xf);
    check_eq("filter 0 privilege choice U, S, M, D, VU, VS (2 and 7 reserved), ValueInterrupt",
             rd32(e + trTeFilter0MatchInst), 0x17b);
    check_eq("filter 0 ecause choice: causes 0..63",
             rd32(e + trTeFilter0MatchEcauseLow) & rd32(e + trTeFilter0MatchEcauseHigh),
             0xffffffffu);
    check_eq("filter 0 impdef and data matches unsupported",
             rd32(e + trTeFilter0Control + 0x10) | rd32(e + trTeFilter0Control + 0x18), 0);
    check_eq("filter 1 implemented", rd32(e + trTeFilter0Control + 0x20), 0xf);
    check_eq("filter 2 not implemented", rd32(e + trTeFilter0Control + 0x40) |
             rd32(e + trTeFilter0Control + 0x44), 0);
    wr32(e + trTeComp0Control, 0xffffffffu);
    check_eq("no comparators: trTeComp0Control reads 0", rd32(e + trTeComp0Control), 0);
    wr32(e + trTeFilter0Control, 0);
    wr32(e + trTeFilter0Control + 0x20, 0);
    wr32(e + trTeDataControl, 0xffffffffu);
    check_eq("no data trace: trTeDataControl reads 0", rd32(e + trTeDataControl), 0);
    wr32(e + trTeTrigExtInControl, 0xffffffffu);
    check_eq("no external triggers", rd32(e + trTeTrigExtInControl), 0);
    check_eq("reserved offset reads 0", rd32(e + 0x100), 0);
    check_eq("vendor range reads 0", rd32(e + 0xe00), 0);
    wr32(e + trTsControl, TR_ACTIVE | TS_MODE(TS_MODE_INTERNAL) | TS_ENABLE);
    check_eq("encoder timestamp: internal mode unsupported -> None", rd32(e + trTsControl),
             TR_ACTIVE | (48u << 24));
    wr32(e + trTsControl, TR_ACTIVE | TS_MODE(TS_MODE_SHARED) | TS_ENABLE);
    check_eq("encoder timestamp: shared mode, Enable, width 48", rd32(e + trTsControl),
             TR_ACTIVE | TS_MODE(TS_MODE_SHARED) | TS_ENABLE | (48u << 24));
    wr32(e + trTsControl, 0);
    check_eq("trTsActive=0 resets the unit", rd32(e + trTsControl), 48u << 24);
    check("second encoder exists", tr_reset(enc_base(1)) &&
          (rd32(enc_base(1) + trTeImpl) & 0xf00) == 0x100);
    wr32(enc_base(1), 0);
}

static void test_funnel(void)
{
    uintptr_t f = TR_FUNNEL_BASE;
    uint32_t a, b;

    test_prefix = "funnel: ";
    wr32(f, 0);
    check_eq("reset control", rd32(f), TR_EMPTY);
    check("release from reset", tr_reset(f));
    check_eq("trFunnelImpl: 1.0 funnel", rd32(f + trFunnelImpl), IMPL_VENDOR_QEMU | 0x801u);
    wr32(f + trFunnelDisInput, 0xffffu);
    check_eq("DisInput WARL: one bit per input (2 harts)", rd32(f + trFunnelDisInput), 3);
    wr32(f + trFunnelDisInput, 0);
    wr32(f, TR_ACTIVE | TR_ENABLE);
    check_eq("Enable", rd32(f), TR_ACTIVE | TR_ENABLE | TR_EMPTY);
    check("disable", tr_disable(f));
    wr32(f + trTsControl, TR_ACTIVE | TS_MODE(TS_MODE_SHARED));
    check_eq("funnel timestamp: shared unsupported -> None", (rd32(f + trTsControl) >> 4) & 7, 0);
    wr32(f + trTsControl, TR_ACTIVE | TS_MODE(TS_MODE_INTERNAL) | TS_COUNT | TS_RESET);
    a = rd32(f + trTsCounterLow);
    for (volatile int i = 0; i < 10000; i++) {
    }
    b = rd32(f + trTsCounterLow);
    check("internal timestamp counts", b > a);
    wr32(f + trTsControl, TR_ACTIVE | TS_MODE(TS_MODE_INTERNAL));
    a = rd32(f + trTsCounterLow);
    for (volatile int i = 0; i < 10000; i++) {
    }
    check_eq("Count=0 stops the counter", rd32(f + trTsCounterLow), a);
    wr32(f + trTsControl, TR_ACTIVE | TS_MODE(TS_MODE_INTERNAL) | TS_RESET);
    check_eq("Reset clears the counter", rd32(f + trTsCounterLow), 0);
    wr32(f + trTsControl, TR_ACTIVE | TS_MODE(TS_MODE_INTERNAL) | TS_COUNT | (3u << 8));
    check_eq("Prescale /64 settable", (rd32(f + trTsControl) >> 8) & 3, 3);
    tr_reset(enc_base(0));
    wr32(enc_base(0) + trTsControl, TR_ACTIVE | TS_MODE(TS_MODE_SHARED));
    a = rd32(enc_base(0) + trTsCounterLow);
    for (volatile int i = 0; i < 100000; i++) {
    }
    check("encoder shares the funnel timestamp",
          a != 0 && rd32(enc_base(0) + trTsCounterLow) > a);
    wr32(enc_base(0), 0);
    wr32(f + trTsControl, 0);
    wr32(f, 0);
}

static void test_ramsink(void)
{
    uintptr_t r = TR_RAMSINK_BASE;
    int ok = 1;

    test_prefix = "ramsink: ";
    wr32(r, 0);
    check_eq("reset control", rd32(r), TR_EMPTY);
    check("release from reset", tr_reset(r));
    check_eq("trRamImpl: 1.0 RAM sink with SRAM and SMEM", rd32(r + trRamImpl),
             IMPL_VENDOR_QEMU | (1u << 13) | (1u << 12) | 0x901u);
    check_eq("SRAM mode by default", rd32(r) & RAM_MODE_SMEM, 0);
    check_eq("SRAM Start fixed at 0", rd32(r + trRamStartLow), 0);
    check_eq("SRAM Limit resets to size-4", rd32(r + trRamLimitLow), 0xfffc);
    wr32(r + trRamStartLow, 0x1000);
    check_eq("SRAM Start not writable", rd32(r + trRamStartLow), 0);
    wr32(r + trRamLimitLow, 0);
    check_eq("Limit discovery: lowest", rd32(r + trRamLimitLow), 0);
    wr32(r + trRamLimitLow, 0xffffffffu);
    check_eq("Limit discovery: highest", rd32(r + trRamLimitLow), 0xfffc);
    wr32(r + trRamLimitHigh, 0xffffffffu);
    check_eq("SRAM LimitHigh not implemented", rd32(r + trRamLimitHigh), 0);
    wr32(r + trRamLimitLow, 0x1c);
    wr32(r + trRamRPLow, 0);
    for (uint32_t i = 0; i < 8; i++) {
        wr32(r + trRamData, 0x11111111u * i);
    }
    check_eq("RP wraps to Start after the word at Limit (Limit inclusive)",
             rd32(r + trRamRPLow), 0);
    for (uint32_t i = 0; i < 8; i++) {
        ok &= rd32(r + trRamData) == 0x11111111u * i;
    }
    check("trRamData reads back SRAM words with RP auto-increment", ok);
    wr32(r + trRamRPLow, 0x1c);
    check_eq("RP settable to Limit", rd32(r + trRamRPLow), 0x1c);
    wr32(r + trRamWPLow, 0x11);
    check_eq("WP aligned, Wrap bit writable", rd32(r + trRamWPLow), 0x11);
    wr32(r + trRamWPLow, 0);
    check_eq("writing WPLow clears Wrap", rd32(r + trRamWPLow), 0);
    wr32(r, TR_ACTIVE | RAM_MODE_SMEM);
    check_eq("SMEM mode settable", rd32(r) & RAM_MODE_SMEM, RAM_MODE_SMEM);
    wr32(r + trRamStartLow, 0xffffffffu);
    wr32(r + trRamStartHigh, 0xffffffffu);
    check_eq("SMEM Start highest (low)", rd32(r + trRamStartLow), 0xfffffffcu);
    check_eq("SMEM Start highest (high, 56-bit PA)", rd32(r + trRamStartHigh), 0x00ffffffu);
    wr32(r + trRamStartHigh, 0);
    wr32(r + trRamStartLow, 0x80400000u);
    wr32(r + trRamLimitHigh, 0);
    wr32(r + trRamLimitLow, 0x804000ffu);
    check_eq("SMEM Limit aligned to words", rd32(r + trRamLimitLow), 0x804000fcu);
    wr32(r + trRamWPLow, 0x80400000u);
    wr32(r, TR_ACTIVE | RAM_MODE_SMEM | TR_ENABLE);
    check_eq("Enable", rd32(r) & (TR_ENABLE | TR_EMPTY), TR_ENABLE | TR_EMPTY);
    wr32(r + trRamWPLow, 0x80400040u);
    check_eq("WP not writable while enabled", rd32(r + trRamWPLow), 0x80400000u);
    wr32(r, TR_ACTIVE);
    check_eq("mode kept when disabling", rd32(r) & RAM_MODE_SMEM, RAM_MODE_SMEM);
    wr32(r, TR_ACTIVE | RAM_MODE_SMEM);
    check_eq("Start/Limit kept across Enable", rd32(r + trRamStartLow), 0x80400000u);
    wr32(r, 0);
}

int main(void)
{
    test_encoder();
    test_funnel();
    test_ramsink();
    test_prefix = "";
    return 0;
}
