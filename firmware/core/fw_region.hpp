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

} // namespace fw::region
