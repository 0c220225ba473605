// SPDX-License-Identifier: BSD-2-Clause
// Boot-cost probe (README.md here): prints the M-mode instructions before the
// boot hart's first S-mode instruction, then starts every other hart through
// HSM, one at a time, and prints what each start cost until the started
// hart's first S-mode instruction. Works on any SBI firmware with HSM, IPI
// and the legacy console (OpenSBI 1.1 and later, tsbi).
#include <stdint.h>

uint64_t boot_ticks;
volatile uint64_t sec_ticks;
extern char secondary_entry[];

struct Ret { long err, val; };
static struct Ret ecall(long ext, long fid, unsigned long a0, unsigned long a1, unsigned long a2) {
    register unsigned long r0 asm("a0") = a0, r1 asm("a1") = a1, r2 asm("a2") = a2;
    register long r6 asm("a6") = fid, r7 asm("a7") = ext;
    asm volatile("ecall" : "+r"(r0), "+r"(r1) : "r"(r2), "r"(r6), "r"(r7) : "memory");
    return (struct Ret){(long)r0, (long)r1};
}
static void putc_(char c) { ecall(1, 0, (unsigned char)c, 0, 0); }
static void puts_(const char *s) { while (*s) putc_(*s++); }
static void putu(uint64_t v) {
    char b[24]; int n = 0;
    do { b[n++] = '0' + v % 10; v /= 10; } while (v);
    while (n) putc_(b[--n]);
}
// QEMU virt's timebase is 10 MHz, and under -icount shift=0 one instruction
// takes 1 ns of virtual time: one time tick is 100 instructions.
#define TICK_INSNS 100
static inline uint64_t ticks(void) { uint64_t v; asm volatile("rdtime %0" : "=r"(v)); return v; }

static uint32_t be32(const void *p) {
    const uint8_t *b = p;
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}
static int streq(const char *a, const char *b) { while (*a && *a == *b) a++, b++; return *a == *b; }
static int starts(const char *a, const char *p) { while (*p && *a == *p) a++, p++; return !*p; }

// What the tree the firmware hands over says: its own memory (the sizes of
// the /reserved-memory children named mmode_resv*, both firmwares' names;
// <2 cells address, 2 cells size> on QEMU virt) and how many cpu nodes it
// disabled.
static void print_reserved(const uint8_t *fdt) {
    if (be32(fdt) != 0xd00dfeed) { puts_(" reserved=?"); return; }
    const uint8_t *st = fdt + be32(fdt + 8);
    const char *strs = (const char *)fdt + be32(fdt + 12);
    int depth = 0, in_resv = 0, mine = 0, in_cpus = 0; uint64_t total = 0;
    unsigned disabled = 0; // cpu nodes the firmware handed over disabled
    for (;;) {
        uint32_t tok = be32(st); st += 4;
        if (tok == 1) { // FDT_BEGIN_NODE
            const char *name = (const char *)st; unsigned n = 0;
            while (name[n]) n++;
            st += (n + 4) & ~3u;
            depth++;
            if (depth == 2) in_resv = streq(name, "reserved-memory"), in_cpus = streq(name, "cpus");
            if (depth == 3) mine = in_resv && starts(name, "mmode_resv");
        } else if (tok == 2) { // FDT_END_NODE
            if (depth == 2) in_resv = 0, in_cpus = 0;
            if (depth == 3) mine = 0;
            depth--;
        } else if (tok == 3) { // FDT_PROP
            uint32_t len = be32(st), nameoff = be32(st + 4);
            const uint8_t *data = st + 8;
            if (mine && depth == 3 && len == 16 && streq(strs + nameoff, "reg")) {
                uint64_t size = (uint64_t)be32(data + 8) << 32 | be32(data + 12);
                total += size;
            }
            if (in_cpus && depth == 3 && streq(strs + nameoff, "status") && streq((const char *)data, "disabled"))
                disabled++;
            st += 8 + ((len + 3) & ~3u);
        } else if (tok == 4) { // FDT_NOP
        } else break; // FDT_END or garbage
    }
    puts_(" reserved="); putu(total);
    puts_(" disabled_cpus="); putu(disabled);
}

#define HSM 0x48534D
#define MAX_ID 4096

void bootcost_main(unsigned long hartid, unsigned long fdt) {
    puts_("BOOTCOST boot_hart="); putu(hartid);
    puts_(" boot_minsns="); putu(boot_ticks * TICK_INSNS);
    print_reserved((const uint8_t *)fdt);
    puts_("\n");
    // sip.SSIP wakes the WFI below (sie.SSIE set, sstatus.SIE clear: no trap).
    asm volatile("csrs sie, %0" :: "r"(1ul << 1));
    uint64_t total = 0, max = 0; unsigned n = 0; unsigned long max_id = 0;
    for (unsigned long h = 0; h < MAX_ID; h++) {
        if (h == hartid) continue;
        if (ecall(HSM, 2, h, 0, 0).err != 0) continue; // not a hart
        sec_ticks = 0;
        asm volatile("csrc sip, %0" :: "r"(1ul << 1));
        uint64_t t0 = ticks();
        struct Ret r = ecall(HSM, 0, h, (unsigned long)secondary_entry, hartid);
        if (r.err) { puts_("BOOTCOST start_failed="); putu(h); puts_("\n"); continue; }
        while (!sec_ticks) asm volatile("wfi");
        uint64_t d = (sec_ticks - t0) * TICK_INSNS;
        total += d; n++; if (d > max) { max = d; max_id = h; }
        asm volatile("csrc sip, %0" :: "r"(1ul << 1));
        while (ecall(HSM, 2, h, 0, 0).val != 1) {} // STOPPED again
    }
    puts_("BOOTCOST secondaries="); putu(n);
    puts_(" secondary_max="); putu(max); puts_(" (hart "); putu(max_id);
    puts_(") secondary_mean="); putu(n ? total / n : 0); puts_("\n");
    puts_("BOOTCOST done\n");
    ecall(0x53525354, 0, 0, 0, 0); // SRST shutdown
    ecall(8, 0, 0, 0, 0);          // legacy shutdown
}
