/* SPDX-License-Identifier: BSD-2-Clause */
/* Minimal runtime for bare-metal test payloads on the QEMU virt machine. */
#ifndef TSBI_QEMU_PAYLOAD_LIB_H
#define TSBI_QEMU_PAYLOAD_LIB_H
#include <stdint.h>
#include <stddef.h>
#include "ntrace_defs.h"

/* virt machine addresses (QEMU hw/riscv/virt.c and hw_models/qemu/README.md) */
#define VIRT_UART0        0x10000000UL
#define VIRT_TEST         0x100000UL
#define VIRT_CLINT        0x2000000UL
#define TR_ENCODER_BASE   0x3020000UL
#define TR_ENCODER_STRIDE 0x1000UL
#define TR_FUNNEL_BASE    0x6000000UL
#define TR_RAMSINK_BASE   0x6001000UL

/* Trace Control Interface 1.0 register offsets */
enum {
    trTeControl = 0x000, trTeImpl = 0x004, trTeInstFeatures = 0x008,
    trTeInstFilters = 0x00C, trTeDataControl = 0x010, trTeDataFilters = 0x01C,
    trTsControl = 0x040, trTsCounterLow = 0x048, trTsCounterHigh = 0x04C,
    trTeTrigDbgControl = 0x050, trTeTrigExtInControl = 0x054,
    trTeTrigExtOutControl = 0x058,
    trTeFilter0Control = 0x400, trTeFilter0MatchInst = 0x404,
    trTeFilter0MatchEcauseLow = 0x408, trTeFilter0MatchEcauseHigh = 0x40C,
    trTeComp0Control = 0x600,
    trFunnelControl = 0x000, trFunnelImpl = 0x004, trFunnelDisInput = 0x008,
    trRamControl = 0x000, trRamImpl = 0x004, trRamStartLow = 0x010,
    trRamStartHigh = 0x014, trRamLimitLow = 0x018, trRamLimitHigh = 0x01C,
    trRamWPLow = 0x020, trRamWPHigh = 0x024, trRamRPLow = 0x028,
    trRamRPHigh = 0x02C, trRamData = 0x040,
};

/* Control bits shared by every component (TCI 1.0) */
#define TR_ACTIVE  (1u << 0)
#define TR_ENABLE  (1u << 1)
#define TR_EMPTY   (1u << 3)
#define TE_INST_TRACING (1u << NT_trTeControl_InstTracing_LSB)
#define TE_INST_MODE(m) ((uint32_t)(m) << NT_trTeControl_InstMode_LSB)
#define TE_CONTEXT (1u << NT_trTeControl_Context_LSB)
#define TE_STALL_OR_OVERFLOW (1u << NT_trTeControl_InstStallOrOverflow_LSB)
#define TE_STALL_ENA (1u << NT_trTeControl_InstStallEna_LSB)
#define TE_SYNC_MODE(m) ((uint32_t)(m) << NT_trTeControl_InstSyncMode_LSB)
#define TE_SYNC_MAX(m) ((uint32_t)(m) << NT_trTeControl_InstSyncMax_LSB)
#define TE_FORMAT(f) ((uint32_t)(f) << NT_trTeControl_Format_LSB)
#define RAM_MODE_SMEM (1u << 4)
#define RAM_STOP_ON_WRAP (1u << 8)
#define RAM_WP_WRAP 1u
#define TS_MODE(m) ((uint32_t)(m) << 4)
#define TS_COUNT (1u << 1)
#define TS_RESET (1u << 2)
#define TS_ENABLE (1u << 15)
#define TS_MODE_INTERNAL 2
#define TS_MODE_SHARED 4
#define FILTER_ENABLE (1u << 0)
#define FILTER_MATCH_PRIVILEGE (1u << 1)
#define FILTER_MATCH_ECAUSE (1u << 2)
#define FILTER_MATCH_INTERRUPT (1u << 3)
#define FILTER_VALUE_INTERRUPT (1u << 8)

static inline uint32_t rd32(uintptr_t a) { return *(volatile uint32_t *)a; }
static inline void wr32(uintptr_t a, uint32_t v) { *(volatile uint32_t *)a = v; }
static inline uintptr_t enc_base(unsigned hart) { return TR_ENCODER_BASE + hart * TR_ENCODER_STRIDE; }

void putc_(char c);
void puts_(const char *s);
void puthex(uint64_t v);
void putdec(uint64_t v);
void poweroff(void);
/* check(name, cond): prints "PASS: <prefix>name" or "FAIL: <prefix>name" */
void check(const char *name, int ok);
void check_eq(const char *name, uint64_t got, uint64_t want);
extern const char *test_prefix;
extern unsigned test_failures;

uint64_t trap_handler(uint64_t mcause, uint64_t mepc);
/* hook a test may set: handles a trap, returns the new mepc */
extern uint64_t (*trap_hook)(uint64_t mcause, uint64_t mepc);

/* Bring a component out of reset (write 0, wait Active=0, write 1, wait Active=1). */
int tr_reset(uintptr_t base);
/* Disable (Enable=0) and wait for Enable=0 and Empty=1. */
int tr_disable(uintptr_t base);
void secondary_main(void);
/* The device tree QEMU passed to hart 0 in a1 (start.S). */
extern uintptr_t boot_fdt;
#endif
