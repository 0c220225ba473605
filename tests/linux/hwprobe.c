// SPDX-License-Identifier: BSD-2-Clause
// tsbi-hwprobe: prints /proc/cpuinfo (TSBI-CPUINFO lines) and the kernel's
// riscv_hwprobe answers (TSBI-HWPROBE lines) for the CPU-model comparison
// (tests/suites/62-cpu-models.sh, tests/linux/README.md "CPU models").
// Run as the initramfs's init (rdinit=/bin/tsbi-hwprobe) it mounts /proc,
// prints /init's markers (TSBI-RESULT init=ok ... and the final one, as
// tests/linux/init does) and powers off at once: no shell, no busybox, the
// cheapest boot that gets the kernel's answers. As init it does the probes
// in a child process (the kernel logs every signal init takes, handled or
// not, and its lines would cut into ours) and first lowers the console log
// level to 4, as `quiet` does, so that no other kernel message does either
// (errors, oopses and panics still show).
//
// Freestanding and static (no libc: the cross compiler's libc6-dev is only
// a recommendation of its package), calling the syscall by number, since
// the cross toolchain's kernel headers (6.1) predate <asm/hwprobe.h>.
// Every key from 0 to KEYS-1 is asked for, so keys a newer kernel adds
// (IMA_EXT_1 and the rest) show up without changing this file; the kernel
// answers an unknown key by setting it to -1 (Documentation/arch/riscv/
// hwprobe.rst), printed as "K=-".
//
// Lines (one query each):
//   TSBI-HWPROBE cpus=all rc=0 0=0x0 1=0x0 ... : all online CPUs (cpu_count 0)
//   TSBI-HWPROBE cpus=N rc=0 ...                : CPU N alone, for each online CPU
//   TSBI-HWPROBE flags=bad rc=-22               : an unknown flag must fail (EINVAL)
//   TSBI-HWPROBE cpus=none rc=-22               : an empty CPU set must fail
//   TSBI-UPROBE cbo.zero=0x40 seed=SIGILL ...   : U-mode uses of what the
//       answers advertise, where an M-mode enable decides the outcome
//       (menvcfg.CBZE, mseccfg.USEED, mcounteren, mstatus.TW and VS, the
//       handling of misaligned accesses): each probe's result is "ok" (or a
//       value) or the signal it raised.

#define SYS_ioctl 29
#define SYS_mount 40
#define SYS_openat 56
#define SYS_close 57
#define SYS_read 63
#define SYS_write 64
#define SYS_sync 81
#define SYS_exit_group 94
#define SYS_syslog 116
#define SYS_rt_sigaction 134
#define SYS_reboot 142
#define SYS_getpid 172
#define SYS_clone 220
#define SYS_wait4 260
#define SYS_riscv_hwprobe 258 // __NR_arch_specific_syscall (244) + 14

#define AT_FDCWD (-100)
#define LINUX_REBOOT_MAGIC1 0xfee1deadL
#define LINUX_REBOOT_MAGIC2 672274793L
#define LINUX_REBOOT_CMD_POWER_OFF 0x4321fedcL

#define SIGILL 4
#define SIGBUS 7
#define SIGSEGV 11
#define SIGCHLD 17
#define SYSLOG_ACTION_CONSOLE_LEVEL 8
#define TCSBRK 0x5409 // with argument 1: tcdrain()
#define SA_SIGINFO 4
// ucontext_t's uc_mcontext.__gregs[0] (the pc) on riscv64: 176 bytes in
// (struct ucontext: flags, link, stack_t, sigset_t, 120 bytes of padding,
// then the 16-byte-aligned sigcontext, whose first register is the pc).
#define UCONTEXT_PC 176

#define KEYS 24
#define MAX_CPUS 64

struct riscv_hwprobe {
    long long key;
    unsigned long long value;
};

static long syscall5(long n, long a0, long a1, long a2, long a3, long a4) {
    register long r_a0 __asm__("a0") = a0;
    register long r_a1 __asm__("a1") = a1;
    register long r_a2 __asm__("a2") = a2;
    register long r_a3 __asm__("a3") = a3;
    register long r_a4 __asm__("a4") = a4;
    register long r_a7 __asm__("a7") = n;
    __asm__ volatile("ecall"
                     : "+r"(r_a0)
                     : "r"(r_a1), "r"(r_a2), "r"(r_a3), "r"(r_a4), "r"(r_a7)
                     : "memory");
    return r_a0;
}

// The compiler may turn loops into calls of these.
void *memset(void *d, int c, unsigned long n) {
    unsigned char *p = d;
    while (n--) *p++ = (unsigned char)c;
    return d;
}
void *memcpy(void *d, const void *s, unsigned long n) {
    unsigned char *p = d;
    const unsigned char *q = s;
    while (n--) *p++ = *q++;
    return d;
}

static char line[4096];
static unsigned long len;

static void put(const char *s) {
    while (*s && len < sizeof line - 1) line[len++] = *s++;
}
static void put_hex(unsigned long long v) {
    char b[19];
    int i = sizeof b;
    do {
        b[--i] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    b[--i] = 'x';
    b[--i] = '0';
    while (i < (int)sizeof b && len < sizeof line - 1) line[len++] = b[i++];
}
static void put_dec(long v) {
    char b[21];
    int i = sizeof b;
    unsigned long u = v < 0 ? -(unsigned long)v : (unsigned long)v;
    do {
        b[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) b[--i] = '-';
    while (i < (int)sizeof b && len < sizeof line - 1) line[len++] = b[i++];
}
// One whole line, and wait until the console has sent it: a firmware that
// prints from M-mode while a later probe traps into it (OpenSBI 1.6 does,
// for CSRs it cannot emulate) then cannot cut into it.
static void flush(void) {
    line[len++] = '\n';
    syscall5(SYS_write, 1, (long)line, (long)len, 0, 0);
    syscall5(SYS_ioctl, 1, TCSBRK, 1, 0, 0);
    len = 0;
}

// One query of keys 0..KEYS-1 into pairs; cpu < 0: all online CPUs (no
// CPU set), else CPU `cpu` alone. Returns the syscall's result.
static long query(struct riscv_hwprobe *pairs, int cpu, unsigned flags) {
    enum { BITS = 8 * sizeof(unsigned long) };
    unsigned long set[MAX_CPUS / BITS] = {0};
    for (int k = 0; k < KEYS; k++) {
        pairs[k].key = k;
        pairs[k].value = 0;
    }
    if (cpu >= 0) set[cpu / BITS] = 1UL << (cpu % BITS);
    return syscall5(SYS_riscv_hwprobe, (long)pairs, KEYS, cpu >= 0 ? (long)sizeof set : 0,
                    cpu >= 0 ? (long)set : 0, flags);
}

// Prints one query's line; a CPU past the last online one (EINVAL) prints
// nothing. Returns the syscall's result.
static long dump(int cpu) {
    struct riscv_hwprobe pairs[KEYS];
    long rc = query(pairs, cpu, 0);
    if (cpu >= 0 && rc != 0) return rc;
    put("TSBI-HWPROBE cpus=");
    if (cpu < 0) put("all");
    else put_dec(cpu);
    put(" rc=");
    put_dec(rc);
    for (int k = 0; rc == 0 && k < KEYS; k++) {
        put(" ");
        put_dec(k);
        put("=");
        if (pairs[k].key == -1) put("-");
        else put_hex(pairs[k].value);
    }
    flush();
    return rc;
}

// --- U-mode probes ---------------------------------------------------------
// The kernel's struct sigaction on riscv (no sa_restorer: the vDSO's
// sigreturn is used).
struct k_sigaction {
    void (*handler)(int, void *, void *);
    unsigned long flags;
    unsigned long mask;
};

static volatile int last_signal;

// A probe's instruction faulted: note the signal, step over the instruction
// (2 or 4 bytes) and go on.
static void on_signal(int sig, void *info, void *uc) {
    (void)info;
    unsigned long *pc = (unsigned long *)((char *)uc + UCONTEXT_PC);
    unsigned short first = *(unsigned short *)*pc;
    *pc += (first & 3) == 3 ? 4 : 2;
    last_signal = sig;
}

static void put_probe(const char *name, int ok, unsigned long long value, int show_value) {
    put(" ");
    put(name);
    put("=");
    if (last_signal == SIGILL) put("SIGILL");
    else if (last_signal == SIGSEGV) put("SIGSEGV");
    else if (last_signal == SIGBUS) put("SIGBUS");
    else if (last_signal) {
        put("signal");
        put_dec(last_signal);
    } else if (!ok) put("wrong");
    else if (show_value) put_hex(value);
    else put("ok");
    last_signal = 0;
}

#define CSR_READ(insn)                                                  \
    ({                                                                  \
        register unsigned long v_ __asm__("a0") = 0;                    \
        __asm__ volatile(".option push\n.option arch, +zkr, +v\n" insn \
                         "\n.option pop" : "+r"(v_) :: "memory");        \
        v_;                                                             \
    })

static unsigned char cbo_buf[8192] __attribute__((aligned(4096)));
static unsigned char mis_buf[32] __attribute__((aligned(16)));

static void uprobes(void) {
    struct k_sigaction sa = {on_signal, SA_SIGINFO, 0};
    syscall5(SYS_rt_sigaction, SIGILL, (long)&sa, 0, 8, 0);
    syscall5(SYS_rt_sigaction, SIGSEGV, (long)&sa, 0, 8, 0);
    syscall5(SYS_rt_sigaction, SIGBUS, (long)&sa, 0, 8, 0);
    put("TSBI-UPROBE");

    // cbo.zero (Zicboz): menvcfg.CBZE from M-mode, senvcfg.CBZE from the
    // kernel. The value is the number of bytes zeroed from the block's start.
    for (unsigned i = 0; i < sizeof cbo_buf; i++) cbo_buf[i] = 0xff;
    {
        register unsigned char *a __asm__("a0") = cbo_buf;
        __asm__ volatile(".option push\n.option arch, +zicboz\ncbo.zero (%0)\n.option pop"
                         :: "r"(a) : "memory");
    }
    unsigned long zeroed = 0;
    while (zeroed < sizeof cbo_buf && cbo_buf[zeroed] == 0) zeroed++;
    put_probe("cbo.zero", zeroed != 0, zeroed, 1);

    // seed (Zkr) from U-mode: mseccfg.USEED, which both firmwares leave 0.
    unsigned long v = CSR_READ("csrrw a0, seed, zero");
    put_probe("seed", 1, v, 0);
    // Counters (mcounteren, then the kernel's scounteren).
    v = CSR_READ("rdtime a0");
    put_probe("rdtime", v != 0, v, 0);
    v = CSR_READ("rdcycle a0");
    put_probe("rdcycle", 1, v, 0);
    v = CSR_READ("rdinstret a0");
    put_probe("rdinstret", 1, v, 0);
    // Vector (mstatus.VS): the kernel enables it at the first use; vlenb.
    CSR_READ("vsetvli a0, zero, e8, m1, ta, ma");
    put_probe("vsetvli", 1, 0, 0);
    v = CSR_READ("csrr a0, vlenb");
    put_probe("vlenb", 1, v, 1);
    // wrs.nto (Zawrs) in U-mode: mstatus.TW.
    __asm__ volatile(".option push\n.option arch, +zawrs\nwrs.nto\n.option pop" ::: "memory");
    put_probe("wrs.nto", 1, 0, 0);
    // Misaligned load and store: done by the hart or emulated by the firmware.
    for (unsigned i = 0; i < sizeof mis_buf; i++) mis_buf[i] = (unsigned char)i;
    unsigned long long got;
    __asm__ volatile("ld %0, 0(%1)" : "=r"(got) : "r"(mis_buf + 3) : "memory");
    put_probe("misaligned.ld", got == 0x0a09080706050403ull, got, 0);
    __asm__ volatile("sd %0, 0(%1)" :: "r"(0x1122334455667788ull), "r"(mis_buf + 5) : "memory");
    put_probe("misaligned.sd", mis_buf[5] == 0x88 && mis_buf[12] == 0x11 && mis_buf[4] == 4 && mis_buf[13] == 13,
              0, 0);
    flush();
}

// /proc/cpuinfo, each line prefixed (an empty line too: it separates harts).
static long cpuinfo(void) {
    static char buf[65536];
    unsigned long n = 0;
    long fd = syscall5(SYS_openat, AT_FDCWD, (long)"/proc/cpuinfo", 0, 0, 0);
    if (fd < 0) return fd;
    for (long r; n < sizeof buf && (r = syscall5(SYS_read, fd, (long)(buf + n), (long)(sizeof buf - n), 0, 0)) > 0;)
        n += (unsigned long)r;
    syscall5(SYS_close, fd, 0, 0, 0, 0);
    for (unsigned long i = 0; i < n;) {
        put("TSBI-CPUINFO ");
        while (i < n && buf[i] != '\n' && len < sizeof line - 2) line[len++] = buf[i++];
        i++;
        flush();
    }
    return 0;
}

// Everything the comparison reads, one line after the other.
static void dump_all(void) {
    long rc = cpuinfo();
    if (rc != 0) {
        put("TSBI-CPUINFO none rc=");
        put_dec(rc);
        flush();
    }
    dump(-1);
    for (int cpu = 0; cpu < MAX_CPUS; cpu++)
        if (dump(cpu) != 0) break;
    struct riscv_hwprobe pairs[KEYS];
    put("TSBI-HWPROBE flags=bad rc=");
    put_dec(query(pairs, -1, 0x80000000u));
    flush();
    // An empty set: cpu_count given, no bit set.
    struct riscv_hwprobe pair = {4, 0};
    unsigned long none = 0;
    put("TSBI-HWPROBE cpus=none rc=");
    put_dec(syscall5(SYS_riscv_hwprobe, (long)&pair, 1, sizeof none, (long)&none, 0));
    flush();
    uprobes();
}

int main(void) {
    if (syscall5(SYS_getpid, 0, 0, 0, 0, 0) != 1) {
        dump_all();
        return 0;
    }
    syscall5(SYS_mount, (long)"proc", (long)"/proc", (long)"proc", 0, 0);
    syscall5(SYS_syslog, SYSLOG_ACTION_CONSOLE_LEVEL, 0, 4, 0, 0);
    put("TSBI-RESULT init=ok test=hwprobe");
    flush();
    long pid = syscall5(SYS_clone, SIGCHLD, 0, 0, 0, 0);
    if (pid == 0) {
        dump_all();
        syscall5(SYS_exit_group, 0, 0, 0, 0, 0);
    }
    int status = 0;
    long rc = pid < 0 ? pid : syscall5(SYS_wait4, pid, (long)&status, 0, 0, 0);
    put("TSBI-RESULT end test=hwprobe rc=");
    // The child's exit status, or how it ended (a signal, a failed clone).
    put_dec(rc < 0 ? rc : (status & 0x7f) ? 128 + (status & 0x7f) : (status >> 8) & 0xff);
    put(" action=poweroff");
    flush();
    syscall5(SYS_sync, 0, 0, 0, 0, 0);
    syscall5(SYS_reboot, LINUX_REBOOT_MAGIC1, LINUX_REBOOT_MAGIC2, LINUX_REBOOT_CMD_POWER_OFF, 0, 0);
    // Only reached if the SBI system reset returned (as tests/linux/init).
    put("TSBI-RESULT reset-returned=1");
    flush();
    for (;;) {}
}

__asm__(".section .text._start\n"
        ".global _start\n"
        "_start:\n"
        ".option push\n"
        ".option norelax\n"
        "  la gp, __global_pointer$\n"
        ".option pop\n"
        "  andi sp, sp, -16\n"
        "  call main\n"
        "  li a7, 94\n"
        "  ecall\n");
