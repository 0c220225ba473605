// SPDX-License-Identifier: BSD-2-Clause
// SiFive CLINT and RISC-V ACLINT (MSWI + MTIMER). Layout per the ACLINT
// specification: MSWI msip[i] at +4*i; MTIMER mtimecmp[i] at +8*i and mtime
// at +0x7ff8 of the MTIMER block. A CLINT is an MSWI at +0 followed by an
// MTIMER at +0x4000.
#include "drivers.hpp"
#include "fw.hpp"
#include <libfdt.h>

namespace drivers {
namespace {
constexpr uintptr_t CLINT_MTIMER_OFFSET = 0x4000, MTIME_OFFSET = 0x7ff8;
// Per hart: its MSIP word and its mtimecmp.
volatile uint32_t *msip[fw::kMaxHarts];
volatile uint64_t *mtimecmp[fw::kMaxHarts];
volatile uint64_t *mtime;
AclintBlock blocks[8];
unsigned nblocks;

void add_block(uint64_t base, uint64_t size) {
    if (nblocks < 8 && size) blocks[nblocks++] = {base, size};
}

// Walks interrupts-extended (<phandle irq> pairs). A CLINT lists two
// entries per hart (M soft, M timer); ACLINT devices list one.
template <typename F> void for_each_context(const void *fdt, int node, F f) {
    int len;
    auto *ie = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, "interrupts-extended", &len));
    if (!ie) return;
    for (int i = 0; i + 1 < len / 4; i += 2) {
        long hartid = fdt_intc_phandle_to_hartid(fdt, fdt32_to_cpu(ie[i]));
        unsigned irq = fdt32_to_cpu(ie[i + 1]);
        if (hartid >= 0 && hartid < (long)fw::kMaxHarts) f(i / 2, (unsigned long)hartid, irq);
    }
}
} // namespace

bool aclint_init_from_fdt(const void *fdt) {
    bool found = false;
    int node = -1;
    constexpr unsigned IRQ_M_SOFT = 3, IRQ_M_TIMER = 7;
    const char *clints[] = {"riscv,clint0", "sifive,clint0"};
    for (const char *compat : clints) {
        node = -1;
        while ((node = fdt_node_offset_by_compatible(fdt, node, compat)) >= 0) {
            // A node listing both strings (QEMU's) is taken once, at the first.
            if (compat != clints[0] && !fdt_node_check_compatible(fdt, node, clints[0])) continue;
            uint64_t addr, size;
            if (!fdt_get_reg(fdt, node, 0, addr, size)) continue;
            add_block(addr, size);
            auto b = static_cast<uintptr_t>(addr);
            for_each_context(fdt, node, [&](int ctx, unsigned long hart, unsigned irq) {
                if (irq == IRQ_M_SOFT)
                    msip[hart] = reinterpret_cast<volatile uint32_t *>(b + 4 * (ctx / 2));
                if (irq == IRQ_M_TIMER)
                    mtimecmp[hart] = reinterpret_cast<volatile uint64_t *>(
                        b + CLINT_MTIMER_OFFSET + 8 * (ctx / 2));
            });
            mtime = reinterpret_cast<volatile uint64_t *>(b + CLINT_MTIMER_OFFSET + MTIME_OFFSET);
            found = true;
        }
    }
    node = -1;
    while ((node = fdt_node_offset_by_compatible(fdt, node, "riscv,aclint-mswi")) >= 0) {
        uint64_t addr, size;
        if (!fdt_get_reg(fdt, node, 0, addr, size)) continue;
        add_block(addr, size);
        auto b = static_cast<uintptr_t>(addr);
        for_each_context(fdt, node, [&](int ctx, unsigned long hart, unsigned) {
            msip[hart] = reinterpret_cast<volatile uint32_t *>(b + 4 * ctx);
        });
        found = true;
    }
    node = -1;
    while ((node = fdt_node_offset_by_compatible(fdt, node, "riscv,aclint-mtimer")) >= 0) {
        // reg: <mtime>, <mtimecmp array> (two entries) or one block.
        uint64_t a0, s0, a1, s1;
        if (!fdt_get_reg(fdt, node, 0, a0, s0)) continue;
        add_block(a0, s0);
        uintptr_t cmp = static_cast<uintptr_t>(a0), tim = static_cast<uintptr_t>(a0) + MTIME_OFFSET;
        if (fdt_get_reg(fdt, node, 1, a1, s1)) {
            add_block(a1, s1);
            tim = static_cast<uintptr_t>(a0);
            cmp = static_cast<uintptr_t>(a1);
        }
        mtime = reinterpret_cast<volatile uint64_t *>(tim);
        for_each_context(fdt, node, [&](int ctx, unsigned long hart, unsigned) {
            mtimecmp[hart] = reinterpret_cast<volatile uint64_t *>(cmp + 8 * ctx);
        });
        found = true;
    }
    return found;
}

unsigned aclint_blocks(AclintBlock *out, unsigned max) {
    unsigned n = nblocks < max ? nblocks : max;
    for (unsigned i = 0; i < n; i++) out[i] = blocks[i];
    return n;
}

void aclint_ipi_send(unsigned long hartid) {
    if (msip[hartid]) *msip[hartid] = 1;
}
void aclint_ipi_clear(unsigned long hartid) {
    if (msip[hartid]) *msip[hartid] = 0;
}
uint64_t aclint_time() { return mtime ? *mtime : 0; }
void aclint_set_timecmp(unsigned long hartid, uint64_t v) {
    if (!mtimecmp[hartid]) return;
#if __riscv_xlen == 32
    // Avoid a spurious interrupt between the two halves (privileged spec 3.2.1).
    auto *p = reinterpret_cast<volatile uint32_t *>(mtimecmp[hartid]);
    p[0] = 0xffffffff;
    p[1] = static_cast<uint32_t>(v >> 32);
    p[0] = static_cast<uint32_t>(v);
#else
    *mtimecmp[hartid] = v;
#endif
}

} // namespace drivers
