// SPDX-License-Identifier: BSD-2-Clause
// The firmware's one memory region at the start of RAM (core/README.md
// "Firmware memory"): the image rounded up to a naturally aligned power of
// two, one PMP entry and one /reserved-memory node. Pure, host-tested.
#pragma once
#include <stdint.h>

namespace fw::region {

// The region [start, end) after carving, and the lowest byte carved so far
// (0: nothing yet); base is 0 when the request cannot be met.
struct Carve {
    uint64_t base, end, lowest;
};

// `size` bytes (a power of two, naturally aligned) from the top of the
// region, below what was carved before and above the image (`image_end`).
// When they do not fit the region doubles, as long as it stays naturally
// aligned and ends at or below `limit` (the next stage, the end of RAM).
constexpr Carve carve_top(uint64_t start, uint64_t end, uint64_t lowest, uint64_t image_end,
                          uint64_t size, uint64_t limit) {
    if (size == 0 || (size & (size - 1))) return {0, end, lowest};
    for (uint64_t e = end;;) {
        const uint64_t top = lowest && e == end ? lowest : e;
        const uint64_t base = (top - size) & ~(size - 1);
        if (top >= size && base >= image_end) return {base, e, base};
        const uint64_t grown_size = 2 * (e - start);
        if ((start & (grown_size - 1)) || start + grown_size > limit || grown_size < e - start)
            return {0, end, lowest};
        e = start + grown_size;
    }
}

// The smallest power of two, at least 4 KiB, that holds `size` bytes.
constexpr uint64_t napot_size(uint64_t size) {
    uint64_t s = 4096;
    while (s < size) s <<= 1;
    return s;
}

// Per-hart memory carved at cold boot right after the image (issue 29):
// `n` stack chunks of `chunk` bytes (a power of two, each aligned to its
// size, so a hart finds its chunk by masking sp), then `n` state blocks of
// `stride` bytes (64-byte aligned), then `table_bytes` (the hart-ID table,
// 0 in contiguous mode). The region [start, start + napot_size(end - start))
// must stay naturally aligned and end at or below `limit` (the next stage,
// the end of RAM); when all `n` do not fit, `fits` says how many do (the
// lowest indices), and the layout is for those.
struct Layout {
    uint64_t chunks, blocks, table, end; // addresses; end: first byte after the carve
    uint64_t region_end;                 // start + the NAPOT size covering [start, end)
    unsigned fits;                       // harts with a chunk and a block (<= n)
};

constexpr uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

constexpr Layout plan_layout_for(uint64_t image_end, unsigned n, uint64_t chunk, uint64_t stride,
                                 uint64_t table_bytes) {
    Layout l{};
    l.chunks = align_up(image_end, chunk);
    l.blocks = align_up(l.chunks + n * chunk, 64);
    l.table = align_up(l.blocks + n * stride, 64);
    l.end = l.table + table_bytes;
    l.fits = n;
    return l;
}

constexpr bool layout_ok(uint64_t start, const Layout &l, uint64_t limit) {
    const uint64_t size = napot_size(l.end - start);
    return (start & (size - 1)) == 0 && start + size <= limit && start + size > start;
}

constexpr Layout plan_layout(uint64_t start, uint64_t image_end, unsigned n, uint64_t chunk,
                             uint64_t stride, uint64_t table_bytes, uint64_t limit) {
    for (unsigned k = n;; k--) {
        Layout l = plan_layout_for(image_end, k, chunk, stride, table_bytes);
        if (layout_ok(start, l, limit) || k == 0) {
            l.region_end = start + napot_size(l.end - start);
            if (!layout_ok(start, l, limit)) l.region_end = 0; // not even the image fits
            return l;
        }
    }
}

// The harts' region (issue 29; core/README.md "Harts and their memory"):
// `size` bytes (a power of two) at the top of [lo, hi) (the /memory range
// the firmware starts in, ending below the device tree when the tree lies
// in it), aligned to `size` so one NAPOT PMP entry covers it, at or above
// `floor` (where the next stage's early memory ends) and clear of
// [avoid, avoid_end) (the initrd; empty when avoid_end <= avoid): below it
// when the top is taken. 0 when it does not fit.
constexpr uint64_t place_top(uint64_t lo, uint64_t hi, uint64_t size, uint64_t floor,
                             uint64_t avoid, uint64_t avoid_end) {
    if (size == 0 || (size & (size - 1))) return 0;
    for (int tries = 0; tries < 2; tries++) {
        if (hi < size || hi - size < lo) return 0;
        const uint64_t base = (hi - size) & ~(size - 1);
        if (base < lo || base < floor) return 0;
        if (avoid_end <= avoid || base >= avoid_end || base + size <= avoid) return base;
        hi = avoid;
    }
    return 0;
}

} // namespace fw::region
