// SPDX-License-Identifier: BSD-2-Clause
// SiFive CLINT, RISC-V ACLINT (MSWI + MTIMER) and the T-Head C9xx variants of
// both. Layout per the ACLINT specification: MSWI msip[i] at +4*i; MTIMER
// mtimecmp[i] at +8*i and mtime at +0x7ff8 of the MTIMER block. A CLINT is
// an MSWI at +0 followed by an MTIMER at +0x4000.
#include "drivers.hpp"
#include "fw.hpp"
#include <libfdt.h>
#ifdef __riscv
#include "riscv/csr.hpp"
#endif

namespace drivers {
namespace {
constexpr uintptr_t CLINT_MTIMER_OFFSET = 0x4000, MTIME_OFFSET = 0x7ff8;
constexpr unsigned IRQ_M_SOFT = 3, IRQ_M_TIMER = 7;

// What a compatible string says about the device. The T-Head facts are those
// of the Linux bindings thead,c900-aclint-mswi.yaml, -mtimer.yaml and
// sifive,clint.yaml (thead,c900-clint), as OpenSBI's fdt_ipi_mswi.c and
// fdt_timer_mtimer.c read them: the C9xx CLINT and ACLINT MTIMER have no
// memory-mapped mtime (the harts read the time CSR) and take only 32-bit
// writes to mtimecmp; the ACLINT MTIMER node's reg is the compare block
// alone ("mtimecmp" in reg-names).
enum class Layout { Clint, Mswi, Mtimer };
struct Kind {
    const char *compat;
    Layout layout;
    bool mmio_mtime; // an mtime register (else the time CSR)
    bool narrow;     // mtimecmp written as two 32-bit halves
};
constexpr Kind kKinds[] = {
    {"riscv,clint0", Layout::Clint, true, false},
    {"sifive,clint0", Layout::Clint, true, false},
    {"thead,c900-clint", Layout::Clint, false, true},
    {"riscv,aclint-mswi", Layout::Mswi, false, false},
    {"thead,c900-aclint-mswi", Layout::Mswi, false, false},
    {"riscv,aclint-mtimer", Layout::Mtimer, true, false},
    {"thead,c900-aclint-mtimer", Layout::Mtimer, false, true},
};

// Per hart, by dense hart index (fw::hart_index: the core maps the harts
// before the platform's cold init): its MSIP word and its mtimecmp.
// `narrow` sits beside the compare pointers so set_timecmp reaches both
// from one address.
volatile uint32_t *msip[fw::kMaxHarts];
struct Timecmp {
    volatile uint64_t *at[fw::kMaxHarts];
    bool narrow;
} timecmp;
volatile uint64_t *mtime; // null: the time CSR
// SG2042 has one MSWI and 16 MTIMER blocks.
constexpr unsigned kMaxBlocks = 24;
AclintBlock blocks[kMaxBlocks];
unsigned nblocks;

void add_block(uint64_t base, uint64_t size) {
    if (nblocks < kMaxBlocks && size) blocks[nblocks++] = {base, size};
}

template <typename T> T *reg_ptr(uint64_t a) { return reinterpret_cast<T *>(static_cast<uintptr_t>(a)); }

// Walks interrupts-extended (<phandle irq> pairs). A CLINT lists two
// entries per hart (M soft, M timer); ACLINT devices list one.
IntcMap intc_map; // filled once by aclint_init_from_fdt
template <typename F> void for_each_context(const void *fdt, int node, F f) {
    int len;
    auto *ie = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, "interrupts-extended", &len));
    if (!ie) return;
    for (int i = 0; i + 1 < len / 4; i += 2) {
        long hartid = intc_map.hartid(fdt32_to_cpu(ie[i]));
        unsigned irq = fdt32_to_cpu(ie[i + 1]);
        const unsigned index = hartid >= 0 ? fw::hart_index(static_cast<unsigned long>(hartid)) : fw::kNoHart;
        if (index < fw::kMaxHarts) f(i / 2, index, irq);
    }
}

// reg entry `name` of reg-names (DT spec 2.3.6 style "<prop>-names").
bool reg_by_name(const void *fdt, int node, const char *name, uint64_t &addr, uint64_t &size) {
    int i = fdt_stringlist_search(fdt, node, "reg-names", name);
    return i >= 0 && fdt_get_reg(fdt, node, i, addr, size);
}

bool init_clint(const void *fdt, int node, const Kind &k) {
    uint64_t addr, size;
    if (!fdt_get_reg(fdt, node, 0, addr, size)) return false;
    add_block(addr, size);
    for_each_context(fdt, node, [&](int ctx, unsigned long hart, unsigned irq) {
        if (irq == IRQ_M_SOFT) msip[hart] = reg_ptr<volatile uint32_t>(addr + 4 * (ctx / 2));
        if (irq == IRQ_M_TIMER)
            timecmp.at[hart] = reg_ptr<volatile uint64_t>(addr + CLINT_MTIMER_OFFSET + 8 * (ctx / 2));
    });
    if (k.mmio_mtime) mtime = reg_ptr<volatile uint64_t>(addr + CLINT_MTIMER_OFFSET + MTIME_OFFSET);
    return true;
}

bool init_mswi(const void *fdt, int node) {
    uint64_t addr, size;
    if (!fdt_get_reg(fdt, node, 0, addr, size)) return false;
    add_block(addr, size);
    for_each_context(fdt, node, [&](int ctx, unsigned long hart, unsigned) {
        msip[hart] = reg_ptr<volatile uint32_t>(addr + 4 * ctx);
    });
    return true;
}

bool init_mtimer(const void *fdt, int node, const Kind &k) {
    // reg: named "mtime"/"mtimecmp"; else <mtime>, <mtimecmp array>; else
    // one block: the compare array with mtime at +0x7ff8, or (T-Head) the
    // compare array alone.
    uint64_t cmp, cmp_size, tim = 0, tim_size = 0;
    if (fdt_getprop(fdt, node, "reg-names", nullptr)) {
        if (!reg_by_name(fdt, node, "mtimecmp", cmp, cmp_size)) return false;
        reg_by_name(fdt, node, "mtime", tim, tim_size);
    } else if (fdt_get_reg(fdt, node, 1, cmp, cmp_size)) {
        fdt_get_reg(fdt, node, 0, tim, tim_size);
    } else {
        if (!fdt_get_reg(fdt, node, 0, cmp, cmp_size)) return false;
        if (k.mmio_mtime) tim = cmp + MTIME_OFFSET;
    }
    add_block(cmp, cmp_size);
    if (tim_size) add_block(tim, tim_size);
    if (tim) mtime = reg_ptr<volatile uint64_t>(tim);
    for_each_context(fdt, node, [&](int ctx, unsigned long hart, unsigned) {
        timecmp.at[hart] = reg_ptr<volatile uint64_t>(cmp + 8 * ctx);
    });
    return true;
}
} // namespace

bool aclint_init_from_fdt(const void *fdt) {
    bool found = false;
    intc_map.init(fdt);
    for (int node = fdt_next_device(fdt, -1); node >= 0; node = fdt_next_device(fdt, node)) {
        // The first kind the node is compatible with (a node listing both
        // "riscv,clint0" and "sifive,clint0", as QEMU's does, is one device).
        const Kind *k = nullptr;
        for (const Kind &c : kKinds)
            if (fdt_is_compatible(fdt, node, c.compat)) {
                k = &c;
                break;
            }
        if (!k) continue;
        bool ok = k->layout == Layout::Clint  ? init_clint(fdt, node, *k)
                  : k->layout == Layout::Mswi ? init_mswi(fdt, node)
                                              : init_mtimer(fdt, node, *k);
        if (ok && k->layout != Layout::Mswi) timecmp.narrow |= k->narrow;
        found |= ok;
    }
    return found;
}

unsigned aclint_blocks(AclintBlock *out, unsigned max) {
    unsigned n = nblocks < max ? nblocks : max;
    for (unsigned i = 0; i < n; i++) out[i] = blocks[i];
    return n;
}

bool aclint_ipi_present() {
    for (unsigned i = 0; i < fw::kMaxHarts; i++)
        if (msip[i]) return true;
    return false;
}

void aclint_ipi_send(unsigned long hartid) {
    const unsigned i = fw::hart_index(hartid);
    if (i < fw::kMaxHarts && msip[i]) *msip[i] = 1;
}
void aclint_ipi_clear(unsigned long hartid) {
    const unsigned i = fw::hart_index(hartid);
    if (i < fw::kMaxHarts && msip[i]) *msip[i] = 0;
}

#ifdef __riscv
uint64_t time_csr() {
#if __riscv_xlen == 32
    uint32_t hi, lo;
    do {
        hi = csr_read(csr::timeh);
        lo = csr_read(csr::time);
    } while (hi != csr_read(csr::timeh));
    return static_cast<uint64_t>(hi) << 32 | lo;
#else
    return csr_read(csr::time);
#endif
}
#endif

uint64_t aclint_time() { return mtime ? *mtime : time_csr(); }

void aclint_set_timecmp(unsigned long hartid, uint64_t v) {
    const unsigned i = fw::hart_index(hartid);
    volatile uint64_t *cmp = i < fw::kMaxHarts ? timecmp.at[i] : nullptr;
    if (!cmp) return;
    if (sizeof(long) == 4 || timecmp.narrow) {
        // Two 32-bit halves, low word parked at all-ones first so no
        // intermediate value lies in the past (privileged spec 3.2.1).
        auto *p = reinterpret_cast<volatile uint32_t *>(cmp);
        p[0] = 0xffffffff;
        p[1] = static_cast<uint32_t>(v >> 32);
        p[0] = static_cast<uint32_t>(v);
    } else {
        *cmp = v;
    }
}

} // namespace drivers
