// SPDX-License-Identifier: BSD-2-Clause
// Firmware-wide services the SBI extensions use (implemented in firmware/core).
#pragma once
#include <stdint.h>
#include <stddef.h>
#include "fw_limits.h"
#include "../core/hartmap.hpp"

namespace fw {

// Harts are served by dense hart index 0..hart_count()-1, in ascending
// hart-ID order (core/hartmap.hpp, core/README.md "Harts and their memory"):
// at most kMaxHarts of them, with hart IDs below kHartIdLimit. Per-hart
// state is found by index, so sparse IDs cost memory for the harts present.
constexpr unsigned kMaxHarts = FW_MAX_HARTS;
constexpr unsigned long kHartIdLimit = FW_HARTID_LIMIT;
constexpr unsigned long kStackSize = FW_STACK_SIZE; // per hart, M-mode
constexpr unsigned kNoHart = hartmap::kNoIndex;
static_assert(kMaxHarts < kNoHart && kHartIdLimit <= 0x10000, "indices and IDs fit the uint16_t table");

// The map from hart ID to index, built by cold boot from the device tree
// (zero, no hart, before); entry.S reads its first two words.
extern "C" hartmap::Map fw_hart_map;
inline unsigned hart_count() { return fw_hart_map.n; }
// Index of hart `hartid`, or kNoHart when the firmware does not serve it.
inline unsigned long hart_index(unsigned long hartid) { return hartmap::index_of(fw_hart_map, hartid); }

#ifdef __riscv
// Not volatile: mhartid never changes, so the compiler may merge the reads
// of one function (the SBI fast paths look the calling hart up several
// times: its PMU counters, its HartBlock, the platform's timer).
inline unsigned long current_hartid() {
    unsigned long v;
    asm("csrr %0, mhartid" : "=r"(v));
    return v;
}
// The calling hart's index: it runs the firmware, so it has one (no bound
// check on the fast paths: one load and a branch in contiguous mode). An
// unsigned long, below kMaxHarts: on RV64 an unsigned would cost a
// zero-extension at every use as an array index.
// Always inline: under -Os GCC would call it, and the call and return are
// two of the few instructions of CTR's emulated CSR reads (bench 16).
__attribute__((always_inline)) inline unsigned long this_index() {
    const unsigned long id = current_hartid();
    const uint16_t *t = fw_hart_map.table;
    return __builtin_expect(t != nullptr, 0) ? t[id] : id; // contiguous falls through
}
#endif

// Bit i (of word i / XLEN) set when the hart of index i is enabled in the
// device tree and available to S-mode (SBI "Hart list parameter"). Written
// by the boot hart at cold boot, before any hart runs S-mode; read-only after.
constexpr unsigned kHartWords = kMaxHarts / (sizeof(long) * 8);
extern unsigned long hart_valid_bits[kHartWords];
// Words of hart_valid_bits (and of every hart bitmap) that hold a hart.
inline unsigned hart_words() {
    constexpr unsigned xlen = sizeof(long) * 8;
    return (fw_hart_map.n + xlen - 1) / xlen;
}
inline bool index_valid(unsigned index) {
    constexpr unsigned xlen = sizeof(long) * 8;
    return index < kMaxHarts && ((hart_valid_bits[index / xlen] >> (index % xlen)) & 1);
}
inline bool hart_valid(unsigned long hartid) { return index_valid(hart_index(hartid)); }

// SBI "Shared memory physical address range parameter": true when
// [addr_lo | addr_hi << XLEN, + size) lies in memory S-mode may access
// (a /memory range of the device tree, outside the firmware's own region),
// without wrap-around, and the firmware can reach it: below 2^XLEN, so
// addr_hi is 0 (on RV32 memory above 4 GiB is refused). size may be 0 (then
// only addr itself is checked).
bool s_mode_range_ok(unsigned long addr_lo, unsigned long addr_hi, unsigned long size);

// A remote fence of more pages than this flushes the whole TLB instead
// (firmware/core/ipi.cpp); a platform quirk may lower it (SiFive CIP-1200: 0).
extern unsigned long max_page_fences;

// PMP entries left, on the boot hart, to close a subsystem's regions to
// S-mode (Subsystem::mmode_regions) once the core's own are closed: 0 on a
// hart without PMP. A subsystem asks in its cold_init and offers S-mode
// nothing whose safety rests on an entry it does not get.
unsigned pmp_spare_entries();

// Boot hart, cold_init only: `size` bytes (a power of two, naturally
// aligned) of the firmware's own region, above its image, for a subsystem's
// memory S-mode must not touch; the region grows when needed. 0 if there is
// no room.
uintptr_t carve_fw_memory(unsigned long size);

// Boot hart, cold_init only: hart_count() x `size` bytes, zeroed, in the
// firmware's own region right after the image and the core's per-hart
// state, each hart's `size` bytes at (result + index * size); `align` a
// power of two (the array's start). Null when they do not fit below the
// next stage: the caller cannot offer what needs them.
void *carve_per_hart(unsigned long size, unsigned long align);

// Boot hart, cold_init only: `size` bytes aligned to `align` after
// everything carved so far, below the next stage, for tables used only
// while cold_init runs (not kept: the next carve may reuse them). Null when
// there is no room.
void *cold_scratch(unsigned long size, unsigned long align);

// Firmware's own memory [start, end), protected by PMP from S/U-mode where
// the hart has PMP (core/README.md).
uintptr_t fw_region_start();
uintptr_t fw_region_end();
// The harts' region, [0, 0) when the harts' memory fits in the first one
// (core/README.md "Harts and their memory"): also the firmware's, also
// protected, at the top of RAM.
uintptr_t fw_hart_region_start();
uintptr_t fw_hart_region_end();

// Console output from M-mode (boot banner, diagnostics).
void puts(const char *s);
void printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
// A failure the firmware must not boot past (S-mode could reach M-mode
// memory, or nothing S-mode passes could be checked): prints why and parks
// this hart for good.
[[noreturn]] void fatal(const char *why);
// Raw bytes to the console under the same lock as printf (DBCN, legacy
// putchar), so firmware messages and S-mode output never interleave mid-line.
void console_write(const volatile char *buf, unsigned long n);
// One byte from the console, -1 if none; up to n bytes, returns how many.
int console_getc();
unsigned long console_read(volatile char *buf, unsigned long n);

} // namespace fw
