// SPDX-License-Identifier: BSD-2-Clause
// Boot-cost probe (README.md here): prints the M-mode instructions before the
// boot hart's first S-mode instruction, then starts every other hart through
// HSM, one at a time, and prints what each start cost until the started
// hart's first S-mode instruction. Works on any SBI firmware with HSM, IPI
// and the legacy console (OpenSBI 1.1 and later, tsbi).
#include <stdint.h>

uint64_t boot_instret;
volatile uint64_t sec_instret;
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
static inline uint64_t instret(void) { uint64_t v; asm volatile("rdtime %0" : "=r"(v)); return v; }

#define HSM 0x48534D
#define MAX_ID 4096

void bootcost_main(unsigned long hartid, unsigned long fdt) {
    (void)fdt;
    puts_("BOOTCOST boot_hart="); putu(hartid);
    puts_(" boot_minsns="); putu(boot_instret * 100); puts_("\n");
    // sip.SSIP wakes the WFI below (sie.SSIE set, sstatus.SIE clear: no trap).
    asm volatile("csrs sie, %0" :: "r"(1ul << 1));
    uint64_t total = 0, max = 0; unsigned n = 0; unsigned long max_id = 0;
    for (unsigned long h = 0; h < MAX_ID; h++) {
        if (h == hartid) continue;
        if (ecall(HSM, 2, h, 0, 0).err != 0) continue; // not a hart
        sec_instret = 0;
        asm volatile("csrc sip, %0" :: "r"(1ul << 1));
        uint64_t t0 = instret();
        struct Ret r = ecall(HSM, 0, h, (unsigned long)secondary_entry, hartid);
        if (r.err) { puts_("BOOTCOST start_failed="); putu(h); puts_("\n"); continue; }
        while (!sec_instret) asm volatile("wfi");
        uint64_t d = (sec_instret - t0) * 100;
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
