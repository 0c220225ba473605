// SPDX-License-Identifier: BSD-2-Clause
// Hart ID to dense hart index (issue 29; design in core/README.md, "Harts
// beyond 64"). Every hart the firmware serves gets an index 0..n-1 in
// ascending hart-ID order, and per-hart state is found by index, so sparse
// IDs (clusters numbered 0, 1, 64, 4095) cost memory for the harts present
// only. Two modes, both O(1):
//   contiguous: the IDs are exactly 0..n-1 (QEMU virt, most SoCs), index = ID;
//   table:      anything else, a uint16_t per ID up to the highest, kNoIndex
//               where there is no hart.
// Pure and header-only: the host tests use it as it is. Not used by the
// firmware yet.
#pragma once
#include <stdint.h>

namespace fw::hartmap {

constexpr unsigned kNoIndex = 0xFFFF;

struct Map {
    unsigned long id_limit; // contiguous: n; table: highest ID + 1; 0: no hart
    const uint16_t *table;  // null in contiguous mode
    unsigned n;             // dense indices 0..n-1
};

// An unsigned long (below kMaxHarts, or kNoIndex): as an unsigned it would
// cost RV64 a sign- and a zero-extension per use as an array index. Table
// mode is the rare one (sparse IDs), so contiguous mode falls through.
inline unsigned long index_of(const Map &m, unsigned long hartid) {
    if (hartid >= m.id_limit) return kNoIndex;
    return __builtin_expect(m.table != nullptr, 0) ? m.table[hartid] : hartid;
}

// What build() did with the IDs it was given.
struct Built {
    Map map;
    unsigned above_id_limit; // enabled harts with an ID at or above id_limit: left out
    unsigned beyond_count;   // harts past max_harts (the highest IDs): left out
    bool boot_missing;       // boot_id was not among the IDs: added
};

// Table entries build() needs for these IDs: the highest kept ID + 1 (IDs at
// or above `id_limit` are not kept), boot_id included. The caller provides
// that many uint16_t (cold-boot scratch).
inline unsigned long table_entries(const unsigned long *ids, unsigned count, unsigned long boot_id,
                                   unsigned long id_limit) {
    unsigned long top = boot_id < id_limit ? boot_id + 1 : 0;
    for (unsigned i = 0; i < count; i++)
        if (ids[i] < id_limit && ids[i] + 1 > top) top = ids[i] + 1;
    return top;
}

// Dense indices for `ids` (in any order, duplicates counted once) plus
// `boot_id`, which always gets one (the boot hart must have a stack even
// when the tree does not list it, or lists it too late). At most max_harts
// indices: past that the highest IDs are left out (but never boot_id). IDs
// at or above id_limit are left out. `table` has table_entries() entries;
// in contiguous mode the result does not point into it (the caller may
// reuse it), in table mode it does.
inline Built build(const unsigned long *ids, unsigned count, unsigned long boot_id,
                   unsigned long id_limit, unsigned max_harts, uint16_t *table) {
    Built b{{0, nullptr, 0}, 0, 0, true};
    const unsigned long entries = table_entries(ids, count, boot_id, id_limit);
    for (unsigned long i = 0; i < entries; i++) table[i] = kNoIndex;
    for (unsigned i = 0; i < count; i++) {
        if (ids[i] >= id_limit) {
            b.above_id_limit++;
            continue;
        }
        if (ids[i] == boot_id) b.boot_missing = false;
        table[ids[i]] = 0; // present; the rank comes below
    }
    if (boot_id < id_limit) table[boot_id] = 0;
    // Ranks in ascending ID order; boot_id keeps a slot when the rest would
    // fill every index before it.
    const bool boot_late = boot_id < id_limit && max_harts > 0;
    unsigned n = 0;
    for (unsigned long id = 0; id < entries; id++) {
        if (table[id] == kNoIndex) continue;
        const bool keep_room = boot_late && id < boot_id && n + 1 == max_harts;
        if (n < max_harts && !keep_room) {
            table[id] = static_cast<uint16_t>(n++);
        } else {
            table[id] = kNoIndex;
            b.beyond_count++;
        }
    }
    b.map.n = n;
    // Contiguous when every ID 0..n-1 got index = ID and nothing above.
    unsigned long last = 0;
    bool dense = true;
    for (unsigned long id = 0; id < entries; id++) {
        if (table[id] == kNoIndex) {
            if (id < n) dense = false;
            continue;
        }
        last = id;
        if (table[id] != id) dense = false;
    }
    if (n == 0) return b;
    if (dense && last + 1 == n) {
        b.map.id_limit = n;
        b.map.table = nullptr;
    } else {
        b.map.id_limit = last + 1;
        b.map.table = table;
    }
    return b;
}

} // namespace fw::hartmap
