/*
 * tvtrace: QEMU TCG plugin that writes the tandem-verification trace of
 * every hart (Bluespec "Trace Protocol Specification" 2018-11-20, seed 002),
 * one group per retired instruction or trap, for tandem verification
 * against a hardware core's trace with `tsbi-trace tv compare`.
 *
 *   -plugin libtvtrace.so,out=PATH[,limit=N]
 *
 * Output: PATH.<vcpu>, RV64 encoding (XLEN = FLEN = MLEN = 64, Appendix C).
 * Record 0 of each hart is {begin, hart reset, pc, privilege, end}; then
 * per instruction, in program order:
 *   begin group
 *   increment pc (3) when the next pc is pc + length, else additional
 *     state pc (7/0x10, the identifier as Appendix C prints it)
 *   16- or 32-bit instruction (16/17)
 *   full register (4): the GPR (0x1000 + n) or FPR (0x1020 + n) the
 *     instruction writes, the CSR a Zicsr instruction writes, mstatus after
 *     mret/sret; fcsr (0x003) after a floating-point instruction that
 *     changed it, as incremental OR (6) when it only set flag bits (C.3)
 *   additional state: physical address (2) of a load/store/AMO, effective
 *     address (3) when it differs from the physical one, store data (4-7)
 *     of a store, AMO or successful sc; privilege (1) after mret/sret
 *   end group
 * An exception is the group of the instruction that raised it (C.7): new
 * pc (the trap vector), the instruction, xepc, xcause, xstatus, xtval and
 * the privilege, no destination register. An interrupt (or a fetch fault
 * at the next pc) is a group of its own after the last retired
 * instruction, without an instruction (C.8).
 *
 * Register values are read through the plugin API (qemu_plugin_read_register)
 * at the start of the next instruction, which is when TCG has committed the
 * previous one. Not produced: memory request/response (8, 9; TCG has no bus
 * transactions, the instruction-centric addresses and store data above are
 * given instead), mtime (8; not architectural state of the hart, and
 * nondeterministic without -icount), pc physical address (9), state
 * initialization (11), vector registers, writes to CSRs missing from the
 * gdbstub's list (their access check failed when the vCPU was created, e.g.
 * stimecmp: it needs the timer the machine connects afterwards; named once
 * on stderr). Limits: a trap is recognised when
 * the next pc is not the one the instruction leads to (every exception
 * vectors elsewhere; interrupts are taken between blocks); two traps without
 * an instruction between them appear as one (the second); a CSR write by
 * the instruction just before an interrupt is seen only in the interrupt's
 * values; the last instruction before QEMU exits has no pc or register
 * values (nothing runs after it). limit=N stops QEMU (exit 0) once every
 * hart wrote N records (the benchmark's bounded Linux boot).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <glib.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MAX_VCPUS 64

/* Trace protocol opcodes and additional state identifiers (chapter 2). */
enum {
    OP_BEGIN = 1, OP_END = 2, OP_INCPC = 3, OP_FULLREG = 4, OP_INCREG_OR = 6,
    OP_STATE = 7, OP_RESET = 10, OP_INSN16 = 16, OP_INSN32 = 17,
};
enum {
    ST_PRIV = 1, ST_PADDR = 2, ST_EADDR = 3, ST_STORE8 = 4,
    ST_PC = 0x10, /* Appendix C's spelling of identifier 10 (tvtrace.hpp) */
};
/* Register addresses of the Debug specification (the protocol's notes). */
#define REG_CSR(n) ((uint16_t)(n))
#define REG_GPR(n) ((uint16_t)(0x1000 + (n)))
#define REG_FPR(n) ((uint16_t)(0x1020 + (n)))
#define CSR_FCSR 0x003
#define CSR_SSTATUS 0x100
#define CSR_SEPC 0x141
#define CSR_SCAUSE 0x142
#define CSR_STVAL 0x143
#define CSR_MSTATUS 0x300
#define CSR_MEPC 0x341
#define CSR_MCAUSE 0x342
#define CSR_MTVAL 0x343
#define CSR_MNEPC 0x741
#define PRIV_M 3
#define MSTATUS_SPP (1ull << 8)
#define MSTATUS_MPP_SHIFT 11

/* What decides the pc after an instruction. */
enum Flow { F_SEQ, F_BRANCH, F_JAL, F_JALR, F_MRET, F_SRET, F_MNRET, F_TRAP };

typedef struct Insn {
    uint64_t pc;
    uint32_t bits;
    uint8_t len;
    uint8_t flow;
    uint8_t rd;       /* GPR written, 0 none */
    uint8_t frd;      /* FPR written + 1, 0 none */
    bool fp;          /* may set fcsr flags */
    uint8_t rs1;      /* jalr base */
    int16_t csr;      /* CSR written, -1 none */
    int64_t imm;      /* branch/jal offset, jalr displacement */
} Insn;

typedef struct Hart {
    FILE *f;
    const Insn *pend;       /* started, not yet written */
    uint64_t target;        /* jalr/xret destination read before it ran */
    uint64_t records;
    uint64_t fcsr, priv;
    bool mem, store;
    uint8_t store_shift;
    uint64_t paddr, eaddr, sdata;
    bool done;
    uint64_t exceptions, interrupts, unexplained; /* reported at the end */
    GByteArray *buf;
    uint8_t rec[512];
    unsigned n;
} Hart;

static Hart harts[MAX_VCPUS];
static char *path;
static uint64_t limit;
static unsigned nharts, ndone;
static struct qemu_plugin_register *gpr[32], *fpr[32], *reg_priv;
static GHashTable *by_name; /* CSR name -> handle */
static GHashTable *csr_handles; /* the CSR feature's handles */
/* QEMU numbers a CSR's gdbstub register base + csrno and its plugin handle
 * is that number + 1 (plugins/api.c); used only when the named CSRs below
 * all agree with it (checked in vcpu_init), else names only. */
static intptr_t csr_handle_base;
static bool csr_numbered;
static struct qemu_plugin_register *csr_reg[4096];
static bool csr_looked[4096];
static GMutex lock;

static const char *const gpr_names[32] = {
    "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "fp", "s1", "a0",
    "a1", "a2", "a3", "a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5",
    "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
};
static const char *const fpr_names[32] = {
    "ft0", "ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7", "fs0", "fs1",
    "fa0", "fa1", "fa2", "fa3", "fa4", "fa5", "fa6", "fa7", "fs2", "fs3",
    "fs4", "fs5", "fs6", "fs7", "fs8", "fs9", "fs10", "fs11", "ft8", "ft9",
    "ft10", "ft11",
};

/* ---- decoding (translation time) ---------------------------------------- */

static int64_t sext(uint64_t v, unsigned bits)
{
    return (int64_t)(v << (64 - bits)) >> (64 - bits);
}

static void decode32(Insn *d)
{
    uint32_t b = d->bits;
    unsigned op = b & 0x7f, rd = b >> 7 & 31, f3 = b >> 12 & 7, rs1 = b >> 15 & 31;

    switch (op) {
    case 0x37: case 0x17: case 0x13: case 0x1b: case 0x33: case 0x3b:
    case 0x03: case 0x2f:
        d->rd = rd;
        break;
    case 0x07: /* LOAD-FP: scalar widths only (vector loads share the opcode) */
        if (f3 >= 1 && f3 <= 4) {
            d->frd = rd + 1;
        }
        break;
    case 0x43: case 0x47: case 0x4b: case 0x4f:
        d->frd = rd + 1, d->fp = true;
        break;
    case 0x53: {
        unsigned f5 = b >> 27;
        /* compares, fcvt to integer, fmv.x/fclass write a GPR */
        if (f5 == 0x14 || f5 == 0x18 || f5 == 0x1c) {
            d->rd = rd;
        } else {
            d->frd = rd + 1;
        }
        d->fp = true;
        break;
    }
    case 0x57: /* OP-V: the scalar results (vector registers are not traced) */
        if (f3 == 7 || (f3 == 2 && b >> 26 == 0x10)) {
            d->rd = rd;           /* vsetvl(i), vsetivli; vmv.x.s, vcpop.m, vfirst.m */
        } else if (f3 == 1 && b >> 26 == 0x10) {
            d->frd = rd + 1;      /* vfmv.f.s */
        }
        break;
    case 0x63:
        d->flow = F_BRANCH;
        d->imm = sext((b >> 31 & 1) << 12 | (b >> 7 & 1) << 11 |
                      (b >> 25 & 0x3f) << 5 | (b >> 8 & 0xf) << 1, 13);
        break;
    case 0x6f:
        d->flow = F_JAL, d->rd = rd;
        d->imm = sext((b >> 31 & 1) << 20 | (b >> 12 & 0xff) << 12 |
                      (b >> 20 & 1) << 11 | (b >> 21 & 0x3ff) << 1, 21);
        break;
    case 0x67:
        d->flow = F_JALR, d->rd = rd, d->rs1 = rs1;
        d->imm = sext(b >> 20, 12);
        break;
    case 0x73:
        if (f3 == 0) {
            if (b == 0x00000073 || b == 0x00100073) {
                d->flow = F_TRAP; /* ecall, ebreak */
            } else if (b == 0x30200073) {
                d->flow = F_MRET;
            } else if (b == 0x10200073) {
                d->flow = F_SRET;
            } else if (b == 0x70200073) {
                d->flow = F_MNRET;
            }
        } else if (f3 == 4) {
            d->rd = rd; /* hypervisor loads */
        } else {
            d->rd = rd;
            /* csrrw/csrrwi always write; csrrs/c(i) with x0/0 only read */
            if ((f3 & 3) == 1 || rs1 != 0) {
                d->csr = (int16_t)(b >> 20);
            }
            if (b >> 20 == 0xc0001073u >> 20 && rd == 0 && rs1 == 0 && f3 == 1) {
                d->flow = F_TRAP; /* unimp: csrrw x0, cycle, x0 */
            }
        }
        break;
    default:
        break;
    }
}

static void decode16(Insn *d)
{
    uint32_t c = d->bits & 0xffff;
    unsigned q = c & 3, f3 = c >> 13, rd = c >> 7 & 31, rdp = 8 + (c >> 2 & 7);
    unsigned rs2 = c >> 2 & 31;

    if (c == 0) {
        d->flow = F_TRAP; /* defined illegal */
        return;
    }
    switch (q) {
    case 0:
        if (f3 == 0 || f3 == 2 || f3 == 3) {
            d->rd = rdp;          /* c.addi4spn, c.lw, c.ld */
        } else if (f3 == 1) {
            d->frd = rdp + 1;     /* c.fld */
        } else if (f3 == 4 && (c >> 10 & 0x3f) <= 0x21) {
            d->rd = rdp;          /* Zcb c.lbu, c.lhu, c.lh */
        }
        break;
    case 1:
        if (f3 <= 3) {
            d->rd = rd;           /* c.addi, c.addiw, c.li, c.lui/c.addi16sp */
        } else if (f3 == 4) {
            d->rd = 8 + (c >> 7 & 7);
        } else if (f3 == 5) {
            d->flow = F_JAL;
            d->imm = sext((c >> 12 & 1) << 11 | (c >> 11 & 1) << 4 |
                          (c >> 9 & 3) << 8 | (c >> 8 & 1) << 10 |
                          (c >> 7 & 1) << 6 | (c >> 6 & 1) << 7 |
                          (c >> 3 & 7) << 1 | (c >> 2 & 1) << 5, 12);
        } else {
            d->flow = F_BRANCH;
            d->imm = sext((c >> 12 & 1) << 8 | (c >> 10 & 3) << 3 |
                          (c >> 5 & 3) << 6 | (c >> 3 & 3) << 1 |
                          (c >> 2 & 1) << 5, 9);
        }
        break;
    case 2:
        if (f3 == 0 || f3 == 2 || f3 == 3) {
            d->rd = rd;           /* c.slli, c.lwsp, c.ldsp */
        } else if (f3 == 1) {
            d->frd = rd + 1;      /* c.fldsp */
        } else if (f3 == 4) {
            bool b12 = c >> 12 & 1;
            if (rs2 != 0) {
                d->rd = rd;       /* c.mv, c.add */
            } else if (!b12) {
                d->flow = F_JALR, d->rs1 = rd; /* c.jr */
            } else if (rd == 0) {
                d->flow = F_TRAP; /* c.ebreak */
            } else {
                d->flow = F_JALR, d->rs1 = rd, d->rd = 1; /* c.jalr */
            }
        }
        break;
    }
}

/* ---- registers ----------------------------------------------------------- */

static uint64_t rd_reg(Hart *h, struct qemu_plugin_register *r)
{
    uint64_t v = 0;
    int n;

    if (!r) {
        return 0;
    }
    g_byte_array_set_size(h->buf, 0);
    n = qemu_plugin_read_register(r, h->buf);
    if (n <= 0) {
        static bool said;
        if (!said) {
            said = true;
            fprintf(stderr, "tvtrace: a register read failed: its value is given as 0\n");
        }
        return 0;
    }
    memcpy(&v, h->buf->data, n < 8 ? n : 8);
    return v;
}

/* The CSRs the plugin reads on its own, by their gdbstub names. */
static const struct {
    uint16_t no;
    const char *name;
} own_csrs[] = {
    {0x001, "fflags"}, {0x002, "frm"}, {CSR_FCSR, "fcsr"}, {CSR_SSTATUS, "sstatus"},
    {CSR_SEPC, "sepc"}, {CSR_SCAUSE, "scause"}, {CSR_STVAL, "stval"},
    {CSR_MSTATUS, "mstatus"}, {CSR_MEPC, "mepc"}, {CSR_MCAUSE, "mcause"},
    {CSR_MTVAL, "mtval"}, {CSR_MNEPC, "mnepc"},
};

/* The handle of CSR csrno: by number when QEMU's numbering was confirmed,
 * else by name: its gdbstub name is what QEMU's disassembler prints for it
 * (both come from the privileged specification's names), or "csrNNN" (the
 * gdbstub's name for CSRs without one). */
static struct qemu_plugin_register *find_csr_locked(unsigned csrno, const char *disas)
{
    struct qemu_plugin_register *r = NULL;

    if (csr_looked[csrno]) {
        r = csr_reg[csrno];
    } else {
        g_auto(GStrv) tok = g_strsplit_set(disas ? disas : "", " ,\t", -1);
        if (csr_numbered) {
            void *h = (void *)(csr_handle_base + (intptr_t)csrno);
            r = g_hash_table_contains(csr_handles, h) ? h : NULL;
        }
        for (size_t i = 0; i < G_N_ELEMENTS(own_csrs) && !r; i++) {
            if (own_csrs[i].no == csrno) {
                r = g_hash_table_lookup(by_name, own_csrs[i].name);
            }
        }
        for (int i = 0; tok[i] && !r; i++) {
            r = g_hash_table_lookup(by_name, tok[i]);
        }
        if (!r) {
            g_autofree char *n = g_strdup_printf("csr%03x", csrno);
            r = g_hash_table_lookup(by_name, n);
        }
        if (!r && disas) { /* of own_csrs only mnepc is optional (Smrnmi) */
            fprintf(stderr, "tvtrace: CSR 0x%03x (%s) has no gdbstub register: not traced\n",
                    csrno, disas ? disas : "");
        }
        csr_reg[csrno] = r;
        csr_looked[csrno] = true;
    }
    return r;
}

static struct qemu_plugin_register *find_csr(unsigned csrno, const char *disas)
{
    struct qemu_plugin_register *r;

    g_mutex_lock(&lock);
    r = find_csr_locked(csrno, disas);
    g_mutex_unlock(&lock);
    return r;
}

/* One of own_csrs: resolved in the first vcpu_init, before any vCPU runs,
 * and never written again, so read without the lock. */
static struct qemu_plugin_register *csr(unsigned csrno)
{
    return csr_reg[csrno];
}

/* ---- output -------------------------------------------------------------- */

static void put8(Hart *h, uint8_t v)
{
    h->rec[h->n++] = v;
}

static void put_le(Hart *h, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        put8(h, (uint8_t)(v >> (8 * i)));
    }
}

static void put_reg(Hart *h, uint16_t reg, uint64_t v)
{
    put8(h, OP_FULLREG);
    put_le(h, reg, 2);
    put_le(h, v, 8);
}

static void put_state(Hart *h, uint8_t id, uint64_t v, unsigned n)
{
    put8(h, OP_STATE);
    put8(h, id);
    put_le(h, v, n);
}

static void put_pc(Hart *h, uint64_t pc, uint64_t next, unsigned len)
{
    if (len && next == pc + len) {
        put8(h, OP_INCPC);
    } else {
        put_state(h, ST_PC, next, 8);
    }
}

static void put_insn(Hart *h, const Insn *d)
{
    put8(h, d->len == 2 ? OP_INSN16 : OP_INSN32);
    put_le(h, d->bits, d->len);
}

static void report(unsigned vcpu, const Hart *h)
{
    fprintf(stderr, "tvtrace: hart %u: %" PRIu64 " records, %" PRIu64 " exceptions, %" PRIu64
            " interrupts or fetch faults, %" PRIu64 " pc changes no trap explains\n",
            vcpu, h->records, h->exceptions, h->interrupts, h->unexplained);
}

static void end_record(Hart *h)
{
    put8(h, OP_END);
    if (!h->f) {
        h->n = 0;
        return;
    }
    fwrite(h->rec, 1, h->n, h->f);
    h->n = 0;
    if (limit && ++h->records >= limit && !h->done) {
        report((unsigned)(h - harts), h);
        fclose(h->f);
        h->f = NULL;
        h->done = true;
        g_mutex_lock(&lock);
        bool all = ++ndone >= nharts;
        g_mutex_unlock(&lock);
        if (all) {
            _exit(0); /* every trace is closed: nothing else to keep */
        }
    } else if (!limit) {
        h->records++;
    }
}

/* The trap registers of the privilege the trap went to. */
static void put_trap_regs(Hart *h, uint64_t priv, uint64_t cause, uint64_t epc)
{
    bool m = priv == PRIV_M;

    put_reg(h, REG_CSR(m ? CSR_MEPC : CSR_SEPC), epc);
    put_reg(h, REG_CSR(m ? CSR_MCAUSE : CSR_SCAUSE), cause);
    put_reg(h, REG_CSR(m ? CSR_MSTATUS : CSR_SSTATUS),
            rd_reg(h, csr(m ? CSR_MSTATUS : CSR_SSTATUS)));
    put_reg(h, REG_CSR(m ? CSR_MTVAL : CSR_STVAL), rd_reg(h, csr(m ? CSR_MTVAL : CSR_STVAL)));
    put_state(h, ST_PRIV, priv, 1);
    h->priv = priv;
}

/* The instruction's own effects (it retired), next = the pc it led to. */
static void put_effects(Hart *h, const Insn *d, bool trap_after, uint64_t trap_priv,
                        uint64_t trap_status)
{
    if (d->rd) {
        put_reg(h, REG_GPR(d->rd), rd_reg(h, gpr[d->rd]));
    }
    if (d->frd) {
        put_reg(h, REG_FPR(d->frd - 1), rd_reg(h, fpr[d->frd - 1]));
    }
    if (d->csr >= 0 && csr_reg[d->csr]) {
        put_reg(h, REG_CSR(d->csr), rd_reg(h, csr_reg[d->csr]));
    }
    if (d->fp || d->csr >= 0) {
        uint64_t f = rd_reg(h, csr(CSR_FCSR));
        if (f != h->fcsr && d->fp && (f & h->fcsr) == h->fcsr && f - h->fcsr < 0x100 &&
            (f ^ h->fcsr) < 0x100) {
            put8(h, OP_INCREG_OR); /* only new flag bits (C.3) */
            put_le(h, CSR_FCSR, 2);
            put8(h, (uint8_t)(f ^ h->fcsr));
        } else if (f != h->fcsr && d->csr != CSR_FCSR) {
            put_reg(h, REG_CSR(CSR_FCSR), f);
        }
        h->fcsr = f;
    }
    if (d->flow == F_MRET || d->flow == F_SRET || d->flow == F_MNRET) {
        uint64_t p;
        if (trap_after) {
            /* The trap saved the privilege the xret went to in xPP. */
            p = trap_priv == PRIV_M ? trap_status >> MSTATUS_MPP_SHIFT & 3
                                    : !!(trap_status & MSTATUS_SPP);
        } else {
            p = rd_reg(h, reg_priv) & 3;
            put_reg(h, REG_CSR(CSR_MSTATUS), rd_reg(h, csr(CSR_MSTATUS)));
        }
        put_state(h, ST_PRIV, p, 1);
        h->priv = p;
    }
    if (h->mem) {
        put_state(h, ST_PADDR, h->paddr, 8);
        if (h->eaddr != h->paddr) {
            put_state(h, ST_EADDR, h->eaddr, 8);
        }
        if (h->store) {
            put_state(h, ST_STORE8 + h->store_shift, h->sdata, 1u << h->store_shift);
        }
    }
}

/* Writes the pending instruction; next = pc of the instruction now starting. */
static void finish(Hart *h, uint64_t next)
{
    const Insn *d = h->pend;
    uint64_t fall = d->pc + d->len, want = fall;
    bool ok;

    h->pend = NULL;
    switch (d->flow) {
    case F_BRANCH:
        want = next == d->pc + d->imm ? next : fall;
        break;
    case F_JAL:
        want = d->pc + d->imm;
        break;
    case F_JALR: case F_MRET: case F_SRET: case F_MNRET:
        want = h->target;
        break;
    case F_TRAP:
        want = ~0ull; /* never retires */
        break;
    }
    ok = next == want;
    put8(h, OP_BEGIN);
    if (ok) {
        put_pc(h, d->pc, next, d->len);
        put_insn(h, d);
        put_effects(h, d, false, 0, 0);
        end_record(h);
        return;
    }
    if (next == d->pc && d->flow == F_SEQ) {
        /* Started again: under -icount TCG ends a block at an MMIO access
         * and runs that instruction again (cpu_io_recompile). */
        h->n = 0;
        return;
    }
    /* A trap: the registers of the privilege it went to say which. */
    uint64_t priv = rd_reg(h, reg_priv) & 3;
    bool m = priv == PRIV_M;
    uint64_t cause = rd_reg(h, csr(m ? CSR_MCAUSE : CSR_SCAUSE));
    uint64_t epc = rd_reg(h, csr(m ? CSR_MEPC : CSR_SEPC));
    bool interrupt = cause >> 63;

    if (!interrupt && epc == d->pc) {
        /* The instruction raised it (C.7). */
        h->exceptions++;
        put_state(h, ST_PC, next, 8);
        put_insn(h, d);
        put_trap_regs(h, priv, cause, epc);
        end_record(h);
        return;
    }
    if (d->flow == F_BRANCH && epc == d->pc + d->imm) {
        want = epc;
    }
    if (epc != want || d->flow == F_TRAP) {
        /* Nothing explains the jump (no trap registers changed for it):
         * the instruction with the pc it reached. */
        h->unexplained++;
        put_state(h, ST_PC, next, 8);
        put_insn(h, d);
        put_effects(h, d, false, 0, 0);
        end_record(h);
        return;
    }
    /* The instruction retired, then an interrupt or a fetch fault (C.8). */
    h->interrupts++;
    put_pc(h, d->pc, epc, d->len);
    put_insn(h, d);
    put_effects(h, d, true, priv, rd_reg(h, csr(m ? CSR_MSTATUS : CSR_SSTATUS)));
    end_record(h);
    put8(h, OP_BEGIN);
    put_state(h, ST_PC, next, 8);
    put_trap_regs(h, priv, cause, epc);
    end_record(h);
}

/* ---- callbacks ----------------------------------------------------------- */

static void insn_exec(unsigned int vcpu, void *udata)
{
    const Insn *d = udata;
    Hart *h;

    if (vcpu >= MAX_VCPUS || !harts[vcpu].f) {
        return;
    }
    h = &harts[vcpu];
    if (h->pend) {
        finish(h, d->pc);
    } else if (!h->records) {
        /* Record 0: the hart leaves reset here. */
        h->fcsr = rd_reg(h, csr(CSR_FCSR));
        h->priv = rd_reg(h, reg_priv) & 3;
        put8(h, OP_BEGIN);
        put8(h, OP_RESET);
        put_state(h, ST_PC, d->pc, 8);
        put_state(h, ST_PRIV, h->priv, 1);
        end_record(h);
    }
    if (!h->f) {
        return;
    }
    h->pend = d;
    h->mem = h->store = false;
    switch (d->flow) {
    case F_JALR:
        h->target = (rd_reg(h, gpr[d->rs1]) + d->imm) & ~1ull;
        break;
    case F_MRET:
        h->target = rd_reg(h, csr(CSR_MEPC));
        break;
    case F_SRET:
        h->target = rd_reg(h, csr(CSR_SEPC));
        break;
    case F_MNRET:
        h->target = rd_reg(h, csr(CSR_MNEPC));
        break;
    }
}

static void mem_access(unsigned int vcpu, qemu_plugin_meminfo_t info,
                       uint64_t vaddr, void *udata)
{
    Hart *h;
    struct qemu_plugin_hwaddr *hw;

    if (vcpu >= MAX_VCPUS || !harts[vcpu].pend) {
        return;
    }
    h = &harts[vcpu];
    hw = qemu_plugin_get_hwaddr(info, vaddr);
    h->mem = true;
    h->eaddr = vaddr;
    h->paddr = hw ? qemu_plugin_hwaddr_phys_addr(hw) : vaddr;
    if (qemu_plugin_mem_is_store(info)) {
        qemu_plugin_mem_value v = qemu_plugin_mem_get_value(info);
        unsigned sh = qemu_plugin_mem_size_shift(info);

        h->store = true;
        h->store_shift = sh > 3 ? 3 : sh;
        switch (v.type) {
        case QEMU_PLUGIN_MEM_VALUE_U8: h->sdata = v.data.u8; break;
        case QEMU_PLUGIN_MEM_VALUE_U16: h->sdata = v.data.u16; break;
        case QEMU_PLUGIN_MEM_VALUE_U32: h->sdata = v.data.u32; break;
        case QEMU_PLUGIN_MEM_VALUE_U64: h->sdata = v.data.u64; break;
        default: h->sdata = v.data.u128.low; break;
        }
    }
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    size_t n = qemu_plugin_tb_n_insns(tb);

    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        /* never freed: a few dozen bytes per translated instruction */
        Insn *d = g_new0(Insn, 1);
        size_t len = qemu_plugin_insn_size(insn);

        d->pc = qemu_plugin_insn_vaddr(insn);
        d->len = len == 2 ? 2 : 4;
        d->csr = -1;
        qemu_plugin_insn_data(insn, &d->bits, d->len);
        if (d->len == 2) {
            decode16(d);
        } else {
            decode32(d);
        }
        if (d->csr >= 0) {
            g_autofree char *dis = qemu_plugin_insn_disas(insn);
            find_csr((unsigned)d->csr, dis);
        }
        qemu_plugin_register_vcpu_insn_exec_cb(insn, insn_exec, QEMU_PLUGIN_CB_R_REGS, d);
        qemu_plugin_register_vcpu_mem_cb(insn, mem_access, QEMU_PLUGIN_CB_NO_REGS,
                                         QEMU_PLUGIN_MEM_RW, d);
    }
}

static void vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
    g_autoptr(GArray) regs = qemu_plugin_get_registers();
    Hart *h;

    if (vcpu >= MAX_VCPUS) {
        return;
    }
    g_mutex_lock(&lock);
    if (!by_name) {
        by_name = g_hash_table_new(g_str_hash, g_str_equal);
        csr_handles = g_hash_table_new(g_direct_hash, g_direct_equal);
        for (guint i = 0; i < regs->len; i++) {
            qemu_plugin_reg_descriptor *r = &g_array_index(regs, qemu_plugin_reg_descriptor, i);

            if (!strcmp(r->feature, "org.gnu.gdb.riscv.csr")) {
                g_hash_table_insert(by_name, g_strdup(r->name), r->handle);
                g_hash_table_add(csr_handles, r->handle);
            }
            if (!strcmp(r->name, "priv")) {
                reg_priv = r->handle;
            }
            for (int k = 0; k < 32; k++) {
                if (!strcmp(r->name, gpr_names[k])) {
                    gpr[k] = r->handle;
                }
                if (!strcmp(r->name, fpr_names[k])) {
                    fpr[k] = r->handle;
                }
            }
        }
        void *ms = g_hash_table_lookup(by_name, "mstatus");
        csr_handle_base = (intptr_t)ms - CSR_MSTATUS;
        csr_numbered = ms != NULL;
        for (size_t i = 0; i < G_N_ELEMENTS(own_csrs); i++) {
            void *h = g_hash_table_lookup(by_name, own_csrs[i].name);
            if (h && (intptr_t)h != csr_handle_base + own_csrs[i].no) {
                csr_numbered = false;
            }
        }
        for (size_t i = 0; i < G_N_ELEMENTS(own_csrs); i++) {
            find_csr_locked(own_csrs[i].no, NULL);
        }
        if (!reg_priv || !gpr[1] || !g_hash_table_lookup(by_name, "mcause")) {
            fprintf(stderr, "tvtrace: QEMU offers no priv, GPR or CSR registers\n");
            exit(1);
        }
    }
    nharts++;
    g_mutex_unlock(&lock);
    h = &harts[vcpu];
    h->buf = g_byte_array_new();
    g_autofree char *name = g_strdup_printf("%s.%u", path, vcpu);
    h->f = fopen(name, "wb");
    if (!h->f) {
        fprintf(stderr, "tvtrace: cannot write %s\n", name);
        exit(1);
    }
    setvbuf(h->f, NULL, _IOFBF, 1 << 20);
}

static void plugin_exit(qemu_plugin_id_t id, void *p)
{
    for (int i = 0; i < MAX_VCPUS; i++) {
        Hart *h = &harts[i];

        if (!h->f) {
            continue;
        }
        /* The last instruction: nothing ran after it, so neither its next pc
         * nor its register values can be read; its memory effects are known. */
        if (h->pend) {
            put8(h, OP_BEGIN);
            put_insn(h, h->pend);
            if (h->mem) {
                put_state(h, ST_PADDR, h->paddr, 8);
                if (h->store) {
                    put_state(h, ST_STORE8 + h->store_shift, h->sdata, 1u << h->store_shift);
                }
            }
            put8(h, OP_END);
            fwrite(h->rec, 1, h->n, h->f);
            h->n = 0;
            h->records++;
        }
        report((unsigned)i, h);
        fclose(h->f);
        h->f = NULL;
    }
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
                                           const qemu_info_t *info,
                                           int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        if (g_str_has_prefix(argv[i], "out=")) {
            path = g_strdup(argv[i] + 4);
        } else if (g_str_has_prefix(argv[i], "limit=")) {
            limit = g_ascii_strtoull(argv[i] + 6, NULL, 0);
        } else {
            fprintf(stderr, "tvtrace: unknown argument %s\n", argv[i]);
            return -1;
        }
    }
    if (!path) {
        fprintf(stderr, "tvtrace: out=PATH is required\n");
        return -1;
    }
    if (strcmp(info->target_name, "riscv64")) {
        fprintf(stderr, "tvtrace: writes the RV64 encoding; target is %s\n", info->target_name);
        return -1;
    }
    qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
    return 0;
}
