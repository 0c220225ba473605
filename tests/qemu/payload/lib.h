/* SPDX-License-Identifier: BSD-2-Clause */
/* Minimal runtime for bare-metal test payloads on the QEMU virt machine. */
#ifndef TSBI_QEMU_PAYLOAD_LIB_H
#define TSBI_QEMU_PAYLOAD_LIB_H
#include <stdint.h>
#include <stddef.h>
#include "tci_regs.h"

/* virt machine addresses (QEMU hw/riscv/virt.c and hw_models/qemu/README.md) */
#define VIRT_UART0        0x10000000UL
#define VIRT_TEST         0x100000UL
#define VIRT_CLINT        0x2000000UL
#define TR_ENCODER_BASE   0x3020000UL
#define TR_ENCODER_STRIDE 0x1000UL
#define TR_FUNNEL_BASE    0x6000000UL
#define TR_RAMSINK_BASE   0x6001000UL

/*
 * Trace Control Interface 1.0 fields by their tci_regs.def names (offsets
 * TCI_<reg> and values TCI_<GROUP>_<NAME> come from tci_regs.h); the same
 * helpers as the firmware's (firmware/trace/tci.hpp), in C:
 *   TCI_BIT(trControl, Active)                        a one-bit field's mask
 *   TCI_SET(trTeControl, InstMode, TCI_INSTMODE_HTM)  a value in its field
 *   TCI_GET(rd32(e), trTeControl, InstMode)           a field of a value
 */
#define TCI_BIT(reg, name) ((uint32_t)TCI_##reg##_##name##_MASK)
#define TCI_SET(reg, name, x) (((uint32_t)(x) << TCI_##reg##_##name##_LSB) & TCI_BIT(reg, name))
#define TCI_GET(v, reg, name) (((uint32_t)(v) & TCI_BIT(reg, name)) >> TCI_##reg##_##name##_LSB)

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
/* Semihosting call (work.S). */
long semihost(long op, void *arg);
/* Writes len bytes at p to the host file name through semihosting; checks
 * "<test_prefix>semihosting open/write". */
void write_host_file(const char *name, const uint8_t *p, uint32_t len);
/* The device tree QEMU passed to hart 0 in a1 (start.S). */
extern uintptr_t boot_fdt;
#endif
