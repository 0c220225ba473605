// SPDX-License-Identifier: BSD-2-Clause
// Register-level tests of the project QEMU's trace components against the
// Trace Control Interface 1.0 register maps (reset values, WARL, Impl,
// Active/Enable/Empty sequencing, RAM sink pointers and SRAM data path).
// Run with -smp 2: the funnel then has two inputs.
#include "lib.h"

#define IMPL_VENDOR_QEMU TCI_SET(trImpl, Vendor, TCI_VENDOR_QEMU)
#define IMPL_VERSION_1_0 TCI_SET(trImpl, VerMajor, TCI_VERSION_MAJOR)

static void test_encoder(void)
{
    uintptr_t e = enc_base(0);
    uint32_t c;

    test_prefix = "encoder: ";
    wr32(e + TCI_trTeControl, 0);
    check_eq("reset control reads Active=0 Empty=1", rd32(e + TCI_trTeControl),
             TCI_BIT(trControl, Empty));
    wr32(e + TCI_trTeInstFeatures, 0xffffffffu);
    check_eq("registers ignore writes while Active=0", rd32(e + TCI_trTeInstFeatures), 0);
    check("release from reset", tr_reset(e));
    c = rd32(e + TCI_trTeControl);
    /* trTeInstMode resets to 0 (TCI 1.0: Undef; the model's choice). */
    check_eq("control defaults after Active=1", c,
             TCI_BIT(trControl, Active) | TCI_BIT(trControl, Empty) |
                 TCI_SET(trTeControl, InstMode, TCI_INSTMODE_OFF) |
                 TCI_SET(trTeControl, Format, TCI_FORMAT_NTRACE));
    wr32(e + TCI_trTeControl, c | TCI_SET(trTeControl, InstMode, TCI_INSTMODE_HTM));
    check_eq("InstMode ORed into the reset value (as Linux's rvtrace) is HTM",
             TCI_GET(rd32(e), trTeControl, InstMode), TCI_INSTMODE_HTM);
    check_eq("trTeImpl: 1.0 encoder, N-Trace 1.0", rd32(e + TCI_trTeImpl),
             IMPL_VENDOR_QEMU | TCI_SET(trTeImpl, ProtocolMajor, 1) |
                 TCI_SET(trImpl, CompType, TCI_COMPTYPE_ENCODER) | IMPL_VERSION_1_0);
    wr32(e + TCI_trTeControl,
         TCI_BIT(trControl, Active) | TCI_SET(trTeControl, InstMode, TCI_INSTMODE_HTM));
    check_eq("InstMode 6 (HTM) settable", TCI_GET(rd32(e), trTeControl, InstMode), 6);
    wr32(e + TCI_trTeControl, TCI_BIT(trControl, Active) | TCI_SET(trTeControl, InstMode, 5));
    check_eq("unsupported InstMode 5 reverts to non-zero 3",
             TCI_GET(rd32(e), trTeControl, InstMode), 3);
    wr32(e + TCI_trTeControl, TCI_BIT(trControl, Active) | TCI_SET(trTeControl, InstMode, 7));
    check_eq("unsupported InstMode 7 reverts to 6", TCI_GET(rd32(e), trTeControl, InstMode), 6);
    wr32(e + TCI_trTeControl, TCI_BIT(trControl, Active) | TCI_SET(trTeControl, InstMode, 0));
    check_eq("InstMode 0 settable", TCI_GET(rd32(e), trTeControl, InstMode), 0);
    /* trTeFormat (TCI 1.0): E-Trace (0) and N-Trace (1); other values are
     * WARL and read back as N-Trace. */
    wr32(e + TCI_trTeControl, TCI_BIT(trControl, Active) | TCI_SET(trTeControl, Format, 0));
    check_eq("Format 0 (E-Trace) settable", TCI_GET(rd32(e), trTeControl, Format), 0);
    wr32(e + TCI_trTeControl, TCI_BIT(trControl, Active) | TCI_SET(trTeControl, Format, 5));
    check_eq("Format 5 reverts to N-Trace", TCI_GET(rd32(e), trTeControl, Format),
             TCI_FORMAT_NTRACE);
    wr32(e + TCI_trTeControl,
         TCI_BIT(trControl, Active) | TCI_SET(trTeControl, Format, TCI_FORMAT_NTRACE));
    check_eq("Format 1 (N-Trace) settable", TCI_GET(rd32(e), trTeControl, Format),
             TCI_FORMAT_NTRACE);
    /* trTeDataControl: data trace with E-Trace only (N-Trace 1.0 requires
     * every trTeData field 0); with E-Trace: Implemented, Tracing, NoValue,
     * NoAddr (not with NoValue) writable, AddrCompress 3 (E-Trace's own),
     * triggers, stall and drop options unsupported (0); no data filters. */
    wr32(e + TCI_trTeDataControl, 0xffffffffu);
    check_eq("trTeDataControl reads 0 with N-Trace", rd32(e + TCI_trTeDataControl), 0);
    check_eq("trTeDataFilters reads 0", rd32(e + TCI_trTeDataFilters), 0);
    wr32(e + TCI_trTeControl, TCI_BIT(trControl, Active) | TCI_SET(trTeControl, Format, 0));
    check_eq("trTeDataControl all-ones with E-Trace: Tracing and NoValue (NoAddr dropped)",
             rd32(e + TCI_trTeDataControl),
             TCI_BIT(trTeDataControl, Implemented) | TCI_BIT(trTeDataControl, Tracing) |
                 TCI_BIT(trTeDataControl, NoValue) |
                 TCI_SET(trTeDataControl, AddrCompress, TCI_DADDRCOMPRESS_PROTOCOL));
    wr32(e + TCI_trTeDataControl, TCI_BIT(trTeDataControl, NoAddr));
    check_eq("trTeDataNoAddr alone settable", rd32(e + TCI_trTeDataControl),
             TCI_BIT(trTeDataControl, Implemented) | TCI_BIT(trTeDataControl, NoAddr) |
                 TCI_SET(trTeDataControl, AddrCompress, TCI_DADDRCOMPRESS_PROTOCOL));
    wr32(e + TCI_trTeDataControl, 0);
    wr32(e + TCI_trTeControl,
         TCI_BIT(trControl, Active) | TCI_SET(trTeControl, Format, TCI_FORMAT_NTRACE));
    wr32(e + TCI_trTeControl,
         TCI_BIT(trControl, Active) | TCI_SET(trTeControl, InstSyncMode, TCI_SYNCMODE_CYCLES));
    check_eq("InstSyncMode 2 (hart cycles) reads back", TCI_GET(rd32(e), trTeControl, InstSyncMode),
             TCI_SYNCMODE_CYCLES);
    wr32(e + TCI_trTeControl, TCI_BIT(trControl, Active) |
                                  TCI_SET(trTeControl, InstSyncMode, TCI_SYNCMODE_MESSAGES) |
                                  TCI_SET(trTeControl, InstSyncMax, 0xf));
    check_eq("InstSyncMode 1 and InstSyncMax 15",
             rd32(e) & (TCI_BIT(trTeControl, InstSyncMode) | TCI_BIT(trTeControl, InstSyncMax)),
             TCI_SET(trTeControl, InstSyncMode, TCI_SYNCMODE_MESSAGES) |
                 TCI_SET(trTeControl, InstSyncMax, 0xf));
    wr32(e + TCI_trTeControl, ~TCI_BIT(trControl, Enable));
    c = rd32(e + TCI_trTeControl);
    check_eq("all-ones control (Enable=0): only implemented fields", c,
             TCI_BIT(trControl, Active) | TCI_BIT(trControl, Empty) |
                 TCI_BIT(trTeControl, InstTracing) |
                 TCI_SET(trTeControl, InstMode, TCI_INSTMODE_HTM) | TCI_BIT(trTeControl, Context) |
                 TCI_BIT(trTeControl, InstTrigEnable) |
                 TCI_BIT(trTeControl, InstStallEna) | TCI_BIT(trTeControl, InhibitSrc) |
                 TCI_SET(trTeControl, InstSyncMode, TCI_SYNCMODE_HALFWORDS) |
                 TCI_SET(trTeControl, InstSyncMax, 0xf) |
                 TCI_SET(trTeControl, Format, TCI_FORMAT_NTRACE));
    check_eq("InstTrigEnable writable (the hart has Sdtrig: trace-on/off actions)",
             c & TCI_BIT(trTeControl, InstTrigEnable), TCI_BIT(trTeControl, InstTrigEnable));
    wr32(e + TCI_trTeControl, TCI_BIT(trControl, Active) | TCI_BIT(trControl, Enable) |
                                  TCI_BIT(trTeControl, InstTracing) |
                                  TCI_SET(trTeControl, InstMode, 6));
    // the encoder FIFO hands its messages on when tracing stops at the latest
    check("disable waits for Enable=0 and Empty=1", tr_disable(e));
    c = rd32(e + TCI_trTeControl);
    check("tracing into a disabled funnel drops messages: InstStallOrOverflow",
          c & TCI_BIT(trTeControl, InstStallOrOverflow));
    wr32(e + TCI_trTeControl,
         rd32(e + TCI_trTeControl) | TCI_BIT(trTeControl, InstStallOrOverflow));
    check_eq("InstStallOrOverflow is write-1-to-clear",
             rd32(e + TCI_trTeControl) & TCI_BIT(trTeControl, InstStallOrOverflow), 0);
    wr32(e + TCI_trTeInstFeatures, 0xffffffffu);
    check_eq("trTeInstFeatures WARL mask (NoAddrDiff/NoTrapAddr/BP/JTC 0, SrcBits<=12)",
             rd32(e + TCI_trTeInstFeatures), 0xcfff07ccu);
    wr32(e + TCI_trTeInstFeatures, 0);
    check_eq("trTeInstFeatures cleared", rd32(e + TCI_trTeInstFeatures), 0);
    wr32(e + TCI_trTeInstFilters, 0xffffffffu);
    check_eq("two filters: trTeInstFilters WARL bits 1:0", rd32(e + TCI_trTeInstFilters), 3);
    wr32(e + TCI_trTeInstFilters, 0);
    for (unsigned i = 0; i < 3; i++) {
        uintptr_t f = e + TCI_trTeFilter0Control_STRIDE * i;
        wr32(f + TCI_trTeFilter0Control, 0xffffffffu);
        wr32(f + TCI_trTeFilter0MatchInst, 0xffffffffu);
        wr32(f + TCI_trTeFilter0MatchEcauseLow, 0xffffffffu);
        wr32(f + TCI_trTeFilter0MatchEcauseHigh, 0xffffffffu);
        wr32(f + TCI_trTeFilter0MatchValueImpdef, 0xffffffffu);
        wr32(f + TCI_trTeFilter0MatchData, 0xffffffffu);
    }
    // Comp1..3 are WARL over the 4 comparators: 7 reads 3
    check_eq("filter 0 control: Enable, MatchPrivilege, MatchEcause, MatchInterrupt, "
             "MatchComp1..3 with comparators 3 (no impdef or data matches)",
             rd32(e + TCI_trTeFilter0Control), 0x777f);
    check_eq("filter 0 privilege choice U, S, M, D, VU, VS (2 and 7 reserved), ValueInterrupt",
             rd32(e + TCI_trTeFilter0MatchInst), 0x17b);
    check_eq("filter 0 ecause choice: causes 0..63",
             rd32(e + TCI_trTeFilter0MatchEcauseLow) & rd32(e + TCI_trTeFilter0MatchEcauseHigh),
             0xffffffffu);
    check_eq("filter 0 impdef and data matches unsupported",
             rd32(e + TCI_trTeFilter0MatchValueImpdef) | rd32(e + TCI_trTeFilter0MatchData), 0);
    check_eq("filter 1 implemented",
             rd32(e + TCI_trTeFilter0Control + TCI_trTeFilter0Control_STRIDE), 0x777f);
    wr32(e + TCI_trTeFilter0Control, TCI_BIT(trTeFilter0Control, MatchComp1) |
                                         TCI_SET(trTeFilter0Control, Comp1, 5));
    check_eq("filter 0 Comp1 = 5 reads comparator 1 (WARL)", rd32(e + TCI_trTeFilter0Control),
             TCI_BIT(trTeFilter0Control, MatchComp1) | TCI_SET(trTeFilter0Control, Comp1, 1));
    check_eq("filter 2 not implemented",
             rd32(e + TCI_trTeFilter0Control + 2 * TCI_trTeFilter0Control_STRIDE) |
                 rd32(e + TCI_trTeFilter0MatchInst + 2 * TCI_trTeFilter0Control_STRIDE),
             0);
    // Comparators 0..3: inputs iaddr and context (tval, daddr read iaddr),
    // every function and match mode, no notify
    for (unsigned j = 0; j < 5; j++) {
        uintptr_t cj = e + TCI_trTeComp0Control_STRIDE * j;
        wr32(cj + TCI_trTeComp0Control, 0xffffffffu);
        wr32(cj + TCI_trTeComp0PMatchLow, 0x12345678u + j);
        wr32(cj + TCI_trTeComp0PMatchHigh, 0x9abcdef0u);
        wr32(cj + TCI_trTeComp0SMatchLow, 0xffffffffu);
        wr32(cj + TCI_trTeComp0SMatchHigh, 0x1u);
    }
    check_eq("comparator 0 control: PInput tval/daddr -> iaddr, functions, MatchMode, no notify",
             rd32(e + TCI_trTeComp0Control),
             TCI_SET(trTeComp0Control, PFunction, 7) | TCI_SET(trTeComp0Control, SFunction, 7) |
                 TCI_SET(trTeComp0Control, MatchMode, TCI_COMPMODE_LATCH));
    check_eq("comparator 3 PMatch", rd32(e + TCI_trTeComp0PMatchLow + 3 * TCI_trTeComp0Control_STRIDE),
             0x12345678u + 3);
    check_eq("comparator 3 PMatchHigh, SMatch", rd32(e + TCI_trTeComp0PMatchHigh + 3 * TCI_trTeComp0Control_STRIDE) ^
                 rd32(e + TCI_trTeComp0SMatchLow + 3 * TCI_trTeComp0Control_STRIDE) ^
                 rd32(e + TCI_trTeComp0SMatchHigh + 3 * TCI_trTeComp0Control_STRIDE),
             0x9abcdef0u ^ 0xffffffffu ^ 1u);
    check_eq("comparator 4 not implemented",
             rd32(e + TCI_trTeComp0Control + 4 * TCI_trTeComp0Control_STRIDE) |
                 rd32(e + TCI_trTeComp0PMatchLow + 4 * TCI_trTeComp0Control_STRIDE), 0);
    wr32(e + TCI_trTeComp0Control, TCI_SET(trTeComp0Control, PInput, TCI_COMPINPUT_CONTEXT) |
                                       TCI_SET(trTeComp0Control, SInput, TCI_COMPINPUT_CONTEXT));
    check_eq("comparator 0 context inputs", rd32(e + TCI_trTeComp0Control),
             TCI_SET(trTeComp0Control, PInput, TCI_COMPINPUT_CONTEXT) |
                 TCI_SET(trTeComp0Control, SInput, TCI_COMPINPUT_CONTEXT));
    wr32(e + TCI_trTeComp0Control, 0);
    wr32(e + TCI_trTeFilter0Control, 0);
    wr32(e + TCI_trTeFilter0Control + TCI_trTeFilter0Control_STRIDE, 0);
    /* (trTeDataControl: checked with the formats above.) */
    wr32(e + TCI_trTeTrigExtInControl, 0xffffffffu);
    check_eq("no external triggers", rd32(e + TCI_trTeTrigExtInControl), 0);
    check_eq("reserved offset reads 0", rd32(e + 0x100), 0);
    check_eq("vendor range reads 0", rd32(e + 0xe00), 0);
    wr32(e + TCI_trTsControl, TCI_BIT(trControl, Active) |
                                  TCI_SET(trTsControl, Mode, TCI_TSMODE_INTERNAL) |
                                  TCI_BIT(trTsControl, Enable));
    check_eq("encoder timestamp: internal mode unsupported -> None", rd32(e + TCI_trTsControl),
             TCI_BIT(trControl, Active) | TCI_SET(trTsControl, Width, 48));
    wr32(e + TCI_trTsControl, TCI_BIT(trControl, Active) |
                                  TCI_SET(trTsControl, Mode, TCI_TSMODE_SHARED) |
                                  TCI_BIT(trTsControl, Enable));
    check_eq("encoder timestamp: shared mode, Enable, width 48", rd32(e + TCI_trTsControl),
             TCI_BIT(trControl, Active) | TCI_SET(trTsControl, Mode, TCI_TSMODE_SHARED) |
                 TCI_BIT(trTsControl, Enable) | TCI_SET(trTsControl, Width, 48));
    /* Internal Core: the hart's cycles (as mcycle counts them), encoders only. */
    wr32(e + TCI_trTsControl, TCI_BIT(trControl, Active) |
                                  TCI_SET(trTsControl, Mode, TCI_TSMODE_CORE) |
                                  TCI_BIT(trTsControl, Count) | TCI_BIT(trTsControl, Reset) |
                                  TCI_BIT(trTsControl, Enable));
    check_eq("encoder timestamp: internal core mode, Count, Enable, width 48",
             rd32(e + TCI_trTsControl),
             TCI_BIT(trControl, Active) | TCI_SET(trTsControl, Mode, TCI_TSMODE_CORE) |
                 TCI_BIT(trTsControl, Count) | TCI_BIT(trTsControl, Enable) |
                 TCI_SET(trTsControl, Width, 48));
    {
        uint32_t c0 = rd32(e + TCI_trTsCounterLow), c1;

        for (volatile int i = 0; i < 1000; i++) {
        }
        c1 = rd32(e + TCI_trTsCounterLow);
        check("internal core timestamp counts", c1 > c0);
    }
    wr32(e + TCI_trTsControl, 0);
    check_eq("trTsActive=0 resets the unit", rd32(e + TCI_trTsControl),
             TCI_SET(trTsControl, Width, 48));
    check("second encoder exists",
          tr_reset(enc_base(1)) &&
              TCI_GET(rd32(enc_base(1) + TCI_trTeImpl), trImpl, CompType) == TCI_COMPTYPE_ENCODER);
    wr32(enc_base(1), 0);
}

// The encoder's vendor control (tci_regs.def trTeVendorControl): NoMmode
// is set by writing 1 and stays set, through tr??Active resets, until the
// machine resets. On the second encoder: the first one traces below.
static void test_vendor(void)
{
    const uint32_t no_mmode = TCI_BIT(trTeVendorControl, NoMmode);
    uintptr_t e = enc_base(1);

    test_prefix = "encoder vendor control: ";
    check("release from reset", tr_reset(e));
    check_eq("NoMmode reads 0 after machine reset", rd32(e + TCI_trTeVendorControl), 0);
    wr32(e + TCI_trTeVendorControl, ~0u);
    check_eq("writing 1 sets NoMmode, nothing else", rd32(e + TCI_trTeVendorControl), no_mmode);
    wr32(e + TCI_trTeVendorControl, 0);
    check_eq("writing 0 does not clear it", rd32(e + TCI_trTeVendorControl), no_mmode);
    check("reset again", tr_reset(e));
    check_eq("a tr??Active reset does not clear it", rd32(e + TCI_trTeVendorControl), no_mmode);
    wr32(e, 0);
}

static void test_funnel(void)
{
    uintptr_t f = TR_FUNNEL_BASE;
    uint32_t a, b;

    test_prefix = "funnel: ";
    wr32(f, 0);
    check_eq("reset control", rd32(f), TCI_BIT(trControl, Empty));
    check("release from reset", tr_reset(f));
    check_eq("trFunnelImpl: 1.0 funnel", rd32(f + TCI_trFunnelImpl),
             IMPL_VENDOR_QEMU | TCI_SET(trImpl, CompType, TCI_COMPTYPE_FUNNEL) | IMPL_VERSION_1_0);
    wr32(f + TCI_trFunnelDisInput, 0xffffu);
    check_eq("DisInput WARL: one bit per input (2 harts)", rd32(f + TCI_trFunnelDisInput), 3);
    wr32(f + TCI_trFunnelDisInput, 0);
    wr32(f, TCI_BIT(trControl, Active) | TCI_BIT(trControl, Enable));
    check_eq("Enable", rd32(f),
             TCI_BIT(trControl, Active) | TCI_BIT(trControl, Enable) | TCI_BIT(trControl, Empty));
    check("disable", tr_disable(f));
    wr32(f + TCI_trTsControl,
         TCI_BIT(trControl, Active) | TCI_SET(trTsControl, Mode, TCI_TSMODE_SHARED));
    check_eq("funnel timestamp: shared unsupported -> None",
             TCI_GET(rd32(f + TCI_trTsControl), trTsControl, Mode), TCI_TSMODE_NONE);
    wr32(f + TCI_trTsControl,
         TCI_BIT(trControl, Active) | TCI_SET(trTsControl, Mode, TCI_TSMODE_CORE));
    check_eq("funnel timestamp: internal core unsupported -> None",
             TCI_GET(rd32(f + TCI_trTsControl), trTsControl, Mode), TCI_TSMODE_NONE);
    wr32(f + TCI_trTsControl, TCI_BIT(trControl, Active) |
                                  TCI_SET(trTsControl, Mode, TCI_TSMODE_INTERNAL) |
                                  TCI_BIT(trTsControl, Count) | TCI_BIT(trTsControl, Reset));
    a = rd32(f + TCI_trTsCounterLow);
    for (volatile int i = 0; i < 10000; i++) {
    }
    b = rd32(f + TCI_trTsCounterLow);
    check("internal timestamp counts", b > a);
    wr32(f + TCI_trTsControl,
         TCI_BIT(trControl, Active) | TCI_SET(trTsControl, Mode, TCI_TSMODE_INTERNAL));
    a = rd32(f + TCI_trTsCounterLow);
    for (volatile int i = 0; i < 10000; i++) {
    }
    check_eq("Count=0 stops the counter", rd32(f + TCI_trTsCounterLow), a);
    wr32(f + TCI_trTsControl, TCI_BIT(trControl, Active) |
                                  TCI_SET(trTsControl, Mode, TCI_TSMODE_INTERNAL) |
                                  TCI_BIT(trTsControl, Reset));
    check_eq("Reset clears the counter", rd32(f + TCI_trTsCounterLow), 0);
    wr32(f + TCI_trTsControl, TCI_BIT(trControl, Active) |
                                  TCI_SET(trTsControl, Mode, TCI_TSMODE_INTERNAL) |
                                  TCI_BIT(trTsControl, Count) | TCI_SET(trTsControl, Prescale, 3));
    check_eq("Prescale /64 settable", TCI_GET(rd32(f + TCI_trTsControl), trTsControl, Prescale), 3);
    tr_reset(enc_base(0));
    wr32(enc_base(0) + TCI_trTsControl,
         TCI_BIT(trControl, Active) | TCI_SET(trTsControl, Mode, TCI_TSMODE_SHARED));
    a = rd32(enc_base(0) + TCI_trTsCounterLow);
    for (volatile int i = 0; i < 100000; i++) {
    }
    check("encoder shares the funnel timestamp",
          a != 0 && rd32(enc_base(0) + TCI_trTsCounterLow) > a);
    wr32(enc_base(0), 0);
    wr32(f + TCI_trTsControl, 0);
    wr32(f, 0);
}

static void test_ramsink(void)
{
    uintptr_t r = TR_RAMSINK_BASE;
    int ok = 1;

    test_prefix = "ramsink: ";
    wr32(r, 0);
    check_eq("reset control", rd32(r), TCI_BIT(trControl, Empty));
    check("release from reset", tr_reset(r));
    check_eq("trRamImpl: 1.0 RAM sink with SRAM and SMEM", rd32(r + TCI_trRamImpl),
             IMPL_VENDOR_QEMU | TCI_BIT(trRamImpl, HasSMEM) | TCI_BIT(trRamImpl, HasSRAM) |
                 TCI_SET(trImpl, CompType, TCI_COMPTYPE_RAMSINK) | IMPL_VERSION_1_0);
    check_eq("SRAM mode by default", rd32(r) & TCI_SET(trRamControl, Mode, TCI_RAMMODE_SMEM), 0);
    check_eq("SRAM Start fixed at 0", rd32(r + TCI_trRamStartLow), 0);
    check_eq("SRAM Limit resets to size-4", rd32(r + TCI_trRamLimitLow), 0xfffc);
    wr32(r + TCI_trRamStartLow, 0x1000);
    check_eq("SRAM Start not writable", rd32(r + TCI_trRamStartLow), 0);
    wr32(r + TCI_trRamLimitLow, 0);
    check_eq("Limit discovery: lowest", rd32(r + TCI_trRamLimitLow), 0);
    wr32(r + TCI_trRamLimitLow, 0xffffffffu);
    check_eq("Limit discovery: highest", rd32(r + TCI_trRamLimitLow), 0xfffc);
    wr32(r + TCI_trRamLimitHigh, 0xffffffffu);
    check_eq("SRAM LimitHigh not implemented", rd32(r + TCI_trRamLimitHigh), 0);
    wr32(r + TCI_trRamLimitLow, 0x1c);
    wr32(r + TCI_trRamRPLow, 0);
    for (uint32_t i = 0; i < 8; i++) {
        wr32(r + TCI_trRamData, 0x11111111u * i);
    }
    check_eq("RP wraps to Start after the word at Limit (Limit inclusive)",
             rd32(r + TCI_trRamRPLow), 0);
    for (uint32_t i = 0; i < 8; i++) {
        ok &= rd32(r + TCI_trRamData) == 0x11111111u * i;
    }
    check("trRamData reads back SRAM words with RP auto-increment", ok);
    wr32(r + TCI_trRamRPLow, 0x1c);
    check_eq("RP settable to Limit", rd32(r + TCI_trRamRPLow), 0x1c);
    wr32(r + TCI_trRamWPLow, 0x11);
    check_eq("WP aligned, Wrap bit writable", rd32(r + TCI_trRamWPLow), 0x11);
    wr32(r + TCI_trRamWPLow, 0);
    check_eq("writing WPLow clears Wrap", rd32(r + TCI_trRamWPLow), 0);
    wr32(r, TCI_BIT(trControl, Active) | TCI_SET(trRamControl, Mode, TCI_RAMMODE_SMEM));
    check_eq("SMEM mode settable", rd32(r) & TCI_SET(trRamControl, Mode, TCI_RAMMODE_SMEM),
             TCI_SET(trRamControl, Mode, TCI_RAMMODE_SMEM));
    wr32(r + TCI_trRamStartLow, 0xffffffffu);
    wr32(r + TCI_trRamStartHigh, 0xffffffffu);
    check_eq("SMEM Start highest (low)", rd32(r + TCI_trRamStartLow), 0xfffffffcu);
    check_eq("SMEM Start highest (high, 56-bit PA)", rd32(r + TCI_trRamStartHigh), 0x00ffffffu);
    wr32(r + TCI_trRamStartHigh, 0);
    wr32(r + TCI_trRamStartLow, 0x80400000u);
    wr32(r + TCI_trRamLimitHigh, 0);
    wr32(r + TCI_trRamLimitLow, 0x804000ffu);
    check_eq("SMEM Limit aligned to words", rd32(r + TCI_trRamLimitLow), 0x804000fcu);
    wr32(r + TCI_trRamWPLow, 0x80400000u);
    wr32(r, TCI_BIT(trControl, Active) | TCI_SET(trRamControl, Mode, TCI_RAMMODE_SMEM) |
                TCI_BIT(trControl, Enable));
    check_eq("Enable", rd32(r) & (TCI_BIT(trControl, Enable) | TCI_BIT(trControl, Empty)),
             TCI_BIT(trControl, Enable) | TCI_BIT(trControl, Empty));
    wr32(r + TCI_trRamWPLow, 0x80400040u);
    check_eq("WP not writable while enabled", rd32(r + TCI_trRamWPLow), 0x80400000u);
    wr32(r, TCI_BIT(trControl, Active));
    check_eq("mode kept when disabling", rd32(r) & TCI_SET(trRamControl, Mode, TCI_RAMMODE_SMEM),
             TCI_SET(trRamControl, Mode, TCI_RAMMODE_SMEM));
    wr32(r, TCI_BIT(trControl, Active) | TCI_SET(trRamControl, Mode, TCI_RAMMODE_SMEM));
    check_eq("Start/Limit kept across Enable", rd32(r + TCI_trRamStartLow), 0x80400000u);
    wr32(r, 0);
}

int main(void)
{
    test_encoder();
    test_vendor();
    test_funnel();
    test_ramsink();
    test_prefix = "";
    return 0;
}
