// SPDX-License-Identifier: BSD-2-Clause
// Payload runtime: boot and secondary entry, the S-mode trap handler,
// per-hart job mailboxes, expected-exception windows and non-retentive
// suspend support.
#include "internal.hpp"
#include "riscv/csr.hpp"

extern "C" {
volatile unsigned pl_boot_claim __attribute__((section(".data"))) = 0;
volatile unsigned pl_extra_entries __attribute__((section(".data"))) = 0;
volatile unsigned long pl_extra_entry_hartid __attribute__((section(".data"))) = 0;
volatile unsigned long pl_bad_entry_a0;
volatile unsigned long pl_bad_resume_a0, pl_bad_resume_a1;
// Slot 0: the boot hart; slot i + 1: the hart of index i (payload_asm.h).
// Outside .bss (link.ld): crt0 clears .bss, and 8 MiB of stacks need no
// clearing.
alignas(16) uint8_t pl_stacks[PL_MAX_HARTS + 1][PL_STACK_SIZE] __attribute__((section(".pl_stacks")));
uint16_t pl_hart_slot[PL_MAX_HARTID]; // by hart ID: index + 1, 0 for none (fdt.cpp)
alignas(RCTX_SIZE) unsigned long pl_resume_ctx[PL_MAX_HARTS][RCTX_SIZE / SZREG];
long pl_suspend_nonret(unsigned long type, void *ctx, unsigned long resume_addr, long eid, long fid);
void pl_secondary_entry();
void pl_resume_entry();
void pl_boot(unsigned long hartid, unsigned long fdt);
void pl_secondary(unsigned long a0, unsigned long a1, unsigned long satp, unsigned long sstatus);
void pl_trap(pl::TrapFrame *f);
}

namespace pl {

namespace {

constexpr unsigned long kSie = csr::mstatus_bits::SIE;
constexpr unsigned long kSsip = 1ul << csr::irq::SSI, kStip = 1ul << csr::irq::STI;
// The tag leaves the low 16 bits to the hart ID (IDs below PL_MAX_HARTID).
constexpr unsigned long kOpaqueTag =
    sizeof(long) == 8 ? static_cast<unsigned long>(0x5EC0DA7A00000000ull) : 0x5EC00000ul;

struct Mailbox {
    JobFn fn;
    void *arg;
    volatile unsigned long req, done;
};

struct HartData {
    HartIrq irq;
    Mailbox mb;
    volatile bool checked_in;
    EntryState entry;
    volatile bool expecting;
    volatile unsigned long caught_cause, caught_tval;
};
// By hart index; the last one is a hart's before the device tree is read
// (the boot hart, while it reads it).
HartData harts[kMaxHarts + 1];

HartData &of(unsigned long id) {
    const unsigned i = hart_index(id);
    return harts[i < kMaxHarts ? i : kMaxHarts];
}
HartData &me() { return of(hartid()); }

unsigned long insn_length(unsigned long pc) {
    uint16_t lo = *reinterpret_cast<volatile uint16_t *>(pc);
    return (lo & 3) == 3 ? 4 : 2;
}

[[noreturn]] void job_loop() {
    HartData &h = me();
    h.mb.done = h.mb.req;
    __atomic_store_n(&h.checked_in, true, __ATOMIC_RELEASE);
    for (;;) {
        unsigned long req = __atomic_load_n(&h.mb.req, __ATOMIC_ACQUIRE);
        if (req == h.mb.done) continue;
        h.mb.fn(h.mb.arg);
        __atomic_store_n(&h.mb.done, req, __ATOMIC_RELEASE);
    }
}

} // namespace

unsigned long hartid() {
    unsigned long t;
    asm volatile("mv %0, tp" : "=r"(t));
    return t;
}

unsigned hart_index(unsigned long id) {
    return id < PL_MAX_HARTID && pl_hart_slot[id] ? pl_hart_slot[id] - 1u : ~0u;
}

IndexSet all_indices() {
    IndexSet s{};
    for (unsigned i = 0; i < platform().nharts; i++) s.set(i);
    return s;
}

unsigned long secondary_hartid(unsigned i) {
    for (unsigned k = 0; k < platform().nharts; k++) {
        unsigned long h = platform().hartids[k];
        if (h == platform().boot_hartid) continue;
        if (i-- == 0) return h;
    }
    return ~0ul;
}

unsigned long image_start() { return reinterpret_cast<uintptr_t>(_start); }
unsigned long image_end() { return reinterpret_cast<uintptr_t>(_end); }

unsigned long us_to_ticks(unsigned long us) {
    // In 64 bits: on RV32 us * (hz / 1000) wraps above 429 ms at QEMU's
    // 10 MHz, which made a 1 s wait 141 ms and a 10 s deadline 121 ms away.
    const uint64_t hz = platform().timebase_hz ? platform().timebase_hz : 10000000;
    return static_cast<unsigned long>(static_cast<uint64_t>(us) * (hz / 1000) / 1000);
}

void delay_us(unsigned long us) {
    const unsigned long start = rdtime(), ticks = us_to_ticks(us);
    while (rdtime() - start < ticks) {
    }
}

namespace {
volatile unsigned long patience_gone; // a word: amoswap has no byte form
}
unsigned long patience_us() { return patience_gone ? 500000 : 5000000; }
void patience_spent() {
    if (__atomic_exchange_n(&patience_gone, 1ul, __ATOMIC_RELAXED)) return;
    note("a wait for an expected event timed out after %lu ms (hart %lu); later waits give up "
         "after %lu ms", 5000ul, hartid(), patience_us() / 1000);
}

HartIrq &irq_state(unsigned long id) { return of(id).irq; }

bool (*irq_hook)(unsigned long code);

bool irq_enable(bool on) {
    unsigned long old;
    if (on) asm volatile("csrrs %0, sstatus, %1" : "=r"(old) : "r"(kSie) : "memory");
    else asm volatile("csrrc %0, sstatus, %1" : "=r"(old) : "r"(kSie) : "memory");
    return old & kSie;
}
void sie_set(unsigned long bits) { csr_set(csr::sie, bits); }
void sie_clear(unsigned long bits) { csr_clear(csr::sie, bits); }

unsigned long catch_exception(void (*fn)(void *), void *arg, unsigned long *tval) {
    HartData &h = me();
    h.caught_cause = ~0ul;
    h.caught_tval = 0;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    h.expecting = true;
    fn(arg);
    h.expecting = false;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (tval) *tval = h.caught_tval;
    return h.caught_cause;
}

// --- secondaries and jobs ---------------------------------------------------
unsigned long secondary_entry() { return reinterpret_cast<uintptr_t>(pl_secondary_entry); }
unsigned long secondary_opaque(unsigned long id) { return kOpaqueTag | id; }
bool secondary_checked_in(unsigned long id) {
    return __atomic_load_n(&of(id).checked_in, __ATOMIC_ACQUIRE);
}
void reset_checkin(unsigned long id) { of(id).checked_in = false; }
EntryState entry_state(unsigned long id) {
    EntryState e;
    memcpy(&e, const_cast<EntryState *>(&of(id).entry), sizeof e);
    return e;
}

bool start_secondaries() {
    bool ok = true;
    for (unsigned i = 0; i < platform().nharts; i++) {
        unsigned long id = platform().hartids[i];
        if (id == hartid() || secondary_checked_in(id)) continue;
        SbiRet r = sbi_hart_start(id, secondary_entry(), secondary_opaque(id));
        bool up = r.error == 0 && wait_until([&] { return secondary_checked_in(id); }, kPatience);
        if (!up) {
            char why[120];
            snprintf(why, sizeof why, "hart_start error=%ld (%s), checked in: %d", r.error,
                     error_name(r.error), secondary_checked_in(id));
            fail(why, "smp/start_hart%lu", id);
            ok = false;
        }
    }
    return ok;
}

void post_job(unsigned long id, JobFn fn, void *arg) {
    Mailbox &mb = of(id).mb;
    mb.fn = fn;
    mb.arg = arg;
    __atomic_store_n(&mb.req, mb.req + 1, __ATOMIC_RELEASE);
}

bool job_done(unsigned long id) {
    Mailbox &mb = of(id).mb;
    return __atomic_load_n(&mb.done, __ATOMIC_ACQUIRE) == mb.req;
}

bool wait_job(unsigned long id, unsigned long timeout_us) {
    return wait_until([&] { return job_done(id); }, timeout_us);
}

bool run_on(unsigned long id, JobFn fn, void *arg, unsigned long timeout_us) {
    if (id == hartid()) {
        fn(arg);
        return true;
    }
    if (!secondary_checked_in(id)) return false;
    post_job(id, fn, arg);
    return wait_job(id, timeout_us);
}

namespace {
struct StopJob {
    volatile bool returned;
};
void stop_job(void *arg) {
    irq_enable(false);
    sbi_call(eid::hsm, fid::hsm::hart_stop);
    static_cast<StopJob *>(arg)->returned = true;
}
} // namespace

bool stop_secondary(unsigned long id, unsigned long timeout_us) {
    static StopJob jobs[kMaxHarts];
    StopJob &j = jobs[hart_index(id)];
    j.returned = false;
    post_job(id, stop_job, &j);
    bool stopped = wait_until(
        [&] { return sbi_hart_get_status(id).value == hsm_state::stopped; }, timeout_us);
    if (stopped) reset_checkin(id);
    return stopped && !j.returned;
}

// --- non-retentive suspend ------------------------------------------------------
unsigned long resume_entry() { return reinterpret_cast<uintptr_t>(pl_resume_entry); }
unsigned long resume_opaque() { return reinterpret_cast<uintptr_t>(pl_resume_ctx[hart_index(hartid())]); }

bool expect_resume_contract(long r, const EntryState &seen, const char *name) {
    char why[64];
    snprintf(why, sizeof why, "returned %ld (1 = resumed at resume_addr)", r);
    if (r != 1) return fail(why, "%s/resumed_at_resume_addr", name);
    pass("%s/resumed_at_resume_addr", name);
    expect_eq(seen.a0, hartid(), "%s/a0_is_hartid", name);
    expect_eq(seen.a1, resume_opaque(), "%s/a1_is_opaque", name);
    expect_eq(seen.satp, 0, "%s/satp_zero", name);
    expect_eq(seen.sstatus & csr::mstatus_bits::SIE, 0, "%s/sstatus_sie_zero", name);
    return true;
}

long suspend_non_retentive(unsigned long type, EntryState *seen) {
    return suspend_non_retentive_at(type, resume_entry(), seen);
}

long suspend_non_retentive_at(unsigned long type, unsigned long resume_addr, EntryState *seen) {
    return suspend_call(eid::hsm, fid::hsm::hart_suspend, type, resume_addr, seen);
}

long suspend_call(long ext, long func, unsigned long type, unsigned long resume_addr,
                  EntryState *seen) {
    if (skipping_calls()) return ERR_FAILED;
    unsigned long *ctx = pl_resume_ctx[hart_index(hartid())];
    for (unsigned off = RCTX_SEEN_A0; off <= RCTX_SEEN_SSTATUS; off += SZREG) ctx[off / SZREG] = ~0ul;
    unsigned long stvec = csr_read(csr::stvec), sie = csr_read(csr::sie),
                  sscratch = csr_read(csr::sscratch);
    bool was_on = irq_enable(false);
    long r = pl_suspend_nonret(type, ctx, resume_addr, ext, func);
    csr_write(csr::stvec, stvec);
    csr_write(csr::sscratch, sscratch);
    csr_write(csr::sie, sie);
    if (seen) {
        seen->a0 = ctx[RCTX_SEEN_A0 / SZREG];
        seen->a1 = ctx[RCTX_SEEN_A1 / SZREG];
        seen->satp = ctx[RCTX_SEEN_SATP / SZREG];
        seen->sstatus = ctx[RCTX_SEEN_SSTATUS / SZREG];
        seen->count = r == 1;
    }
    if (was_on) irq_enable(true);
    return r;
}

// --- strings and memory ---------------------------------------------------------------
size_t strlen(const char *s) {
    size_t n = 0;
    while (s[n]) n++;
    return n;
}
int strcmp(const char *a, const char *b) {
    while (*a && *a == *b) a++, b++;
    return (unsigned char)*a - (unsigned char)*b;
}
int strncmp(const char *a, const char *b, size_t n) {
    for (; n; n--, a++, b++) {
        if (*a != *b || !*a) return (unsigned char)*a - (unsigned char)*b;
    }
    return 0;
}

} // namespace pl

extern "C" {

void *memset(void *d, int c, size_t n) {
    auto *p = static_cast<volatile uint8_t *>(d);
    for (size_t i = 0; i < n; i++) p[i] = static_cast<uint8_t>(c);
    return d;
}
void *memcpy(void *d, const void *s, size_t n) {
    auto *dp = static_cast<volatile uint8_t *>(d);
    auto *sp = static_cast<const volatile uint8_t *>(s);
    for (size_t i = 0; i < n; i++) dp[i] = sp[i];
    return d;
}
int memcmp(const void *a, const void *b, size_t n) {
    auto *x = static_cast<const uint8_t *>(a), *y = static_cast<const uint8_t *>(b);
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i]) return x[i] - y[i];
    return 0;
}

void pl_boot(unsigned long hartid, unsigned long fdt) {
    using namespace pl;
    parse_fdt(fdt, hartid);
    console_init();
    checks_init();
    printf("TSBI-START payload=%s hart=%lu harts=%u console=%s\n", pl_payload_name, hartid,
           platform().nharts, console_uses_dbcn() ? "dbcn" : "legacy");
    if (platform().nharts == 0 || hart_index(hartid) == ~0u)
        fail("boot hart not found among /cpus of the device tree", "boot/fdt_cpus");
    of(hartid).checked_in = true;
    sie_set(kSsip);
    irq_enable(true);
    payload_main();
    finish();
}

void pl_secondary(unsigned long a0, unsigned long a1, unsigned long satp, unsigned long sstatus) {
    using namespace pl;
    HartData &h = of(a0);
    h.entry.a0 = a0;
    h.entry.a1 = a1;
    h.entry.satp = satp;
    h.entry.sstatus = sstatus;
    h.entry.count++;
    h.expecting = false;
    sie_set(kSsip);
    irq_enable(true);
    job_loop();
}

void pl_trap(pl::TrapFrame *f) {
    using namespace pl;
    HartData &h = me();
    if (f->scause & csr::cause::interrupt_bit) {
        unsigned long code = f->scause & ~csr::cause::interrupt_bit;
        if (code == csr::irq::SSI) {
            csr_clear(csr::sip, kSsip);
            h.irq.ssi = h.irq.ssi + 1;
        } else if (code == csr::irq::STI) {
            // Mask rather than re-arm: the test that armed the timer decides
            // how to clear it (set_timer(~0) or a later deadline).
            csr_clear(csr::sie, kStip);
            h.irq.last_sti_time = rdtime();
            h.irq.sti = h.irq.sti + 1;
        } else if (!irq_hook || !irq_hook(code)) {
            csr_clear(csr::sie, 1ul << code);
            char why[80];
            snprintf(why, sizeof why, "interrupt %lu on hart %lu (masked it)", code, hartid());
            fail(why, "trap/unexpected_interrupt");
        }
        return;
    }
    if (h.expecting && h.caught_cause == ~0ul) {
        h.caught_cause = f->scause;
        h.caught_tval = f->stval;
        if (f->scause == csr::cause::insn_access || f->scause == csr::cause::insn_page_fault ||
            f->scause == csr::cause::insn_misaligned)
            f->sepc = f->x[1]; // fetch faults: return to the caller of the bad jump
        else
            f->sepc += insn_length(f->sepc);
        return;
    }
    char why[160];
    snprintf(why, sizeof why, "scause=0x%lx sepc=0x%lx stval=0x%lx hart=%lu", f->scause, f->sepc,
             f->stval, hartid());
    fail(why, "trap/unexpected_exception");
    if (hartid() == platform().boot_hartid) finish();
    pl_park();
}

} // extern "C"
