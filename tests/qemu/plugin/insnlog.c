/*
 * insnlog: QEMU TCG plugin that records every retired instruction address
 * per vCPU, the reference the trace validation compares decoded N-Trace
 * against. Output: <file>.<vcpu>, one "0xADDR" line per instruction.
 *
 * Instructions are logged when they start executing; the ones that never
 * retire because they always trap (ecall, ebreak, c.ebreak, unimp) are
 * left out so the record equals the retired-instruction stream the trace
 * encoder sees. Test payloads raise exceptions only with those.
 *
 *   -plugin libinsnlog.so,out=PATH[,priv=on][,mem=on|mem=S]
 *   -plugin libinsnlog.so,out=PATH[,runs=S][,acc=S]
 *
 * mem=on also records every load and store in <file>.mem.<vcpu>, one line
 * per access, in execution order:
 *
 *   IDX 0xPC L|S SIZE 0xADDR 0xVALUE [a|v|o]
 *
 * IDX is the line number (from 0) of the accessing instruction in the
 * instruction record, PC its address, L a load, S a store, SIZE log2 of the
 * bytes, ADDR the virtual address, VALUE the value loaded or stored (its
 * 2^SIZE bytes as memory holds them), then the access class as acc=S has it:
 * "a" an atomic instruction (AMO, LR, SC: an AMO is a load of the old value
 * and a store of the new one), "v" a vector one, "o" another (cbo.zero,
 * whose 64 byte stores QEMU reports one by one). What
 * tests/qemu/compare_data.py compares E-Trace data trace with. mem=S (with
 * priv=on) records only the accesses of S-mode instructions.
 *
 * acc=S records every load and store of S-mode code in <file>.acc.<vcpu> as
 * a compact binary access record (hw_models/trace/accrec.hpp, "TSBIACC1":
 * per access a header byte with size, load/store and class, then the
 * address, value and pc as zigzag varint deltas; 4 to 31 bytes an access,
 * 10.4 on average over a Linux boot), in execution order: what `tsbi-trace
 * acc compare` compares the decoded data trace of a whole Linux boot with
 * (`make trace-linux-data`). Classes: 0 plain, 1 atomic (AMO, LR, SC), 2
 * vector (OP-V loads and stores), 3 other (cache-block operations:
 * cbo.zero); the ones the project QEMU's data trace does not report are
 * told apart, not left out. S-mode is the translation block's privilege (a
 * RISC-V block flag, read once at translation), so there is no callback per
 * instruction, only one per access. acc=S combines with runs=S (one boot,
 * both references) and excludes priv=on and mem=.
 *
 * priv=on adds the privilege level each instruction executes in (the
 * gdbstub's virtual "priv" register: 0 U, 1 S, 3 M) to its line, and logs
 * the instructions that never retire with the flag "x" and trap returns
 * with "r": what tests/qemu/compare.py needs to follow trace filters by
 * privilege and by trap (ecause, interrupt).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MAX_VCPUS 64
#define OPCODE_AMO 0x2f
#define INSN_ECALL   0x00000073u
#define INSN_EBREAK  0x00100073u
#define INSN_UNIMP   0xc0001073u
#define INSN_CEBREAK 0x9002u
#define INSN_CUNIMP  0x0000u

static FILE *out[MAX_VCPUS];
static char *path;
static bool with_priv;
/* mem=on: loads and stores in memout, numbered by the instruction lines */
static bool with_mem;
static int mem_priv = -1;              /* mem=S: 1, the privilege recorded */
static FILE *memout[MAX_VCPUS];
static uint64_t nlines[MAX_VCPUS];
static unsigned cur_priv[MAX_VCPUS];   /* priv=on: of the last instruction */
/* runs=S mode (the only privilege it supports: the trap check knows S-mode's
 * way in, stvec, and M-mode's) */
static bool with_runs;
static struct qemu_plugin_register *priv_reg[MAX_VCPUS];
static GByteArray *priv_buf[MAX_VCPUS];

static void insn_exec(unsigned int vcpu, void *udata)
{
    if (vcpu < MAX_VCPUS && out[vcpu]) {
        fprintf(out[vcpu], "0x%" PRIx64 "\n", (uint64_t)(uintptr_t)udata);
        nlines[vcpu]++;
    }
}

/* priv=on: per instruction its address and flag (0, 'x' or 'r'). */
typedef struct InsnInfo {
    uint64_t addr;
    char flag;
} InsnInfo;

#define INSN_MRET 0x30200073u
#define INSN_SRET 0x10200073u
#define INSN_MNRET 0x70200073u

static void insn_exec_priv(unsigned int vcpu, void *udata)
{
    const InsnInfo *ii = udata;
    unsigned priv = 0xff;

    if (vcpu >= MAX_VCPUS || !out[vcpu]) {
        return;
    }
    if (priv_reg[vcpu]) {
        g_byte_array_set_size(priv_buf[vcpu], 0);
        if (qemu_plugin_read_register(priv_reg[vcpu], priv_buf[vcpu]) > 0) {
            priv = priv_buf[vcpu]->data[0];
        }
    }
    if (ii->flag) {
        fprintf(out[vcpu], "0x%" PRIx64 " %u %c\n", ii->addr, priv, ii->flag);
    } else {
        fprintf(out[vcpu], "0x%" PRIx64 " %u\n", ii->addr, priv);
    }
    nlines[vcpu]++;
    cur_priv[vcpu] = priv;
}

/* Access classes (accrec.hpp), of mem=on's records and acc=S's. */
#define ACC_PLAIN 0
#define ACC_ATOMIC 1
#define ACC_VECTOR 2
#define ACC_OTHER 3
/* mem=on's mark of each class after the value (compare_data.py reads it) */
static const char *const mem_mark[] = {"", " a", " v", " o"};

/* mem=on: per instruction its address and access class. */
typedef struct MemInsn {
    uint64_t addr;
    uint8_t cls;
} MemInsn;

/* The value an access loaded or stored (the low 64 bits of a 128-bit one). */
static uint64_t mem_value(qemu_plugin_meminfo_t info)
{
    qemu_plugin_mem_value v = qemu_plugin_mem_get_value(info);

    switch (v.type) {
    case QEMU_PLUGIN_MEM_VALUE_U8: return v.data.u8;
    case QEMU_PLUGIN_MEM_VALUE_U16: return v.data.u16;
    case QEMU_PLUGIN_MEM_VALUE_U32: return v.data.u32;
    case QEMU_PLUGIN_MEM_VALUE_U64: return v.data.u64;
    case QEMU_PLUGIN_MEM_VALUE_U128: return v.data.u128.low;
    }
    return 0;
}

static void mem_access(unsigned int vcpu, qemu_plugin_meminfo_t info,
                       uint64_t vaddr, void *udata)
{
    const MemInsn *mi = udata;
    uint64_t val;

    if (vcpu >= MAX_VCPUS || !memout[vcpu] || !nlines[vcpu] ||
        (mem_priv >= 0 && cur_priv[vcpu] != (unsigned)mem_priv)) {
        return;
    }
    val = mem_value(info);
    fprintf(memout[vcpu], "%" PRIu64 " 0x%" PRIx64 " %c %u 0x%" PRIx64
            " 0x%" PRIx64 "%s\n", nlines[vcpu] - 1, mi->addr,
            qemu_plugin_mem_is_store(info) ? 'S' : 'L',
            qemu_plugin_mem_size_shift(info), vaddr, val,
            mem_mark[mi->cls]);
}

static uint32_t insn_word(struct qemu_plugin_insn *insn)
{
    uint32_t op = 0;
    size_t n = qemu_plugin_insn_size(insn);

    qemu_plugin_insn_data(insn, &op, n < 4 ? n : 4);
    return n == 2 ? op & 0xffff : op;
}

static bool never_retires(struct qemu_plugin_insn *insn)
{
    uint32_t op = insn_word(insn);

    if (qemu_plugin_insn_size(insn) == 2) {
        return op == INSN_CEBREAK || op == INSN_CUNIMP;
    }
    return op == INSN_ECALL || op == INSN_EBREAK || op == INSN_UNIMP;
}

static bool is_trap_return(struct qemu_plugin_insn *insn)
{
    uint32_t op = insn_word(insn);

    return qemu_plugin_insn_size(insn) == 4 &&
           (op == INSN_MRET || op == INSN_SRET || op == INSN_MNRET);
}


/* ---- runs= mode ---------------------------------------------------------- */

/* One translated block of the recorded privilege. */
typedef struct RunTb {
    uint64_t *addr;       /* instruction addresses */
    uint8_t *steps;       /* bit i: instruction i + 1 is 4 bytes after i */
    uint32_t n;
    uint64_t may_trap;    /* bit per instruction, for the first 64 */
    bool tail_may_trap;   /* an instruction at index >= 64 may trap */
} RunTb;

/* Per-vCPU scoreboard: index + 1 of the last started recorded instruction;
 * 1 while a block waits for its trap check (the M-mode callback's
 * condition). */
typedef struct RunScore {
    uint64_t started;
    uint64_t pending;
} RunScore;

static struct qemu_plugin_scoreboard *run_score;
static qemu_plugin_u64 run_started, run_pending;
static const RunTb *run_open[MAX_VCPUS];  /* block whose record is not written */
static uint64_t run_prev[MAX_VCPUS];      /* last instruction of the previous run */
static struct qemu_plugin_register *reg_priv, *reg_stvec, *reg_scause,
    *reg_sepc, *reg_mcause, *reg_mepc;
static GByteArray *reg_buf[MAX_VCPUS];

/* acc=S: the access record of each vCPU and its delta state */
static bool with_acc;
typedef struct AccState {
    FILE *f;
    uint64_t addr, pc, value[5];
} AccState;
static AccState acc[MAX_VCPUS];
/* per instruction: its pc and class (accrec.hpp) */
typedef struct AccInsn {
    uint64_t pc;
    uint8_t cls;
} AccInsn;
#define ACC_STORE 0x08
#define ACC_HAS_PC 0x80

static void put_varint(FILE *f, uint64_t v)
{
    while (v >= 0x80) {
        putc_unlocked((int)(v & 0x7f) | 0x80, f);
        v >>= 7;
    }
    putc_unlocked((int)v, f);
}

static void put_zigzag(FILE *f, uint64_t d)
{
    put_varint(f, (d << 1) ^ (uint64_t)((int64_t)d >> 63));
}

static void acc_access(unsigned int vcpu, qemu_plugin_meminfo_t info,
                       uint64_t vaddr, void *udata)
{
    const AccInsn *ai = udata;
    unsigned size;
    uint64_t val;
    AccState *a;

    if (vcpu >= MAX_VCPUS || !acc[vcpu].f) {
        return;
    }
    a = &acc[vcpu];
    val = mem_value(info);
    size = qemu_plugin_mem_size_shift(info);
    if (size > 4) {
        size = 4;
    }
    putc_unlocked((int)(size | (qemu_plugin_mem_is_store(info) ? ACC_STORE : 0) |
                        ai->cls << 4 | ACC_HAS_PC), a->f);
    put_zigzag(a->f, vaddr - a->addr);
    a->addr = vaddr;
    put_zigzag(a->f, val - a->value[size]);
    a->value[size] = val;
    put_zigzag(a->f, ai->pc - a->pc);
    a->pc = ai->pc;
}

/* The access class of an instruction (accrec.hpp): AMO/LR/SC, the vector
 * loads and stores (LOAD-FP/STORE-FP with a width that is no FP width), and
 * "other": the cache-block operations (MISC-MEM: cbo.zero's stores, which
 * QEMU reports byte by byte; Linux's clear_page uses it). */
static uint8_t acc_class(uint32_t op, size_t n)
{
    unsigned opc = op & 0x7f, width = op >> 12 & 7;

    if (n != 4) {
        return ACC_PLAIN;
    }
    if (opc == OPCODE_AMO) {
        return ACC_ATOMIC;
    }
    if ((opc == 0x07 || opc == 0x27) && (width == 0 || width >= 5)) {
        return ACC_VECTOR;
    }
    if (opc == 0x0f) {
        return ACC_OTHER;
    }
    return ACC_PLAIN;
}

static uint64_t read_reg_buf(GByteArray *b, struct qemu_plugin_register *r,
                             bool *ok)
{
    uint64_t v = 0;

    g_byte_array_set_size(b, 0);
    int n = r ? qemu_plugin_read_register(r, b) : -1;
    if (n <= 0) {
        *ok = false;
        return 0;
    }
    memcpy(&v, b->data, n < 8 ? n : 8);
    return v;
}

static uint64_t read_reg(unsigned vcpu, struct qemu_plugin_register *r,
                         bool *ok)
{
    return read_reg_buf(reg_buf[vcpu], r, ok);
}

/* Writes the first k instructions of tb as one run. */
static void run_write(unsigned vcpu, const RunTb *tb, uint32_t k)
{
    FILE *f = out[vcpu];
    int64_t d;

    if (!k || !f) {
        return;
    }
    d = (int64_t)(tb->addr[0] - run_prev[vcpu]);
    put_varint(f, ((uint64_t)d << 1) ^ (uint64_t)(d >> 63));
    put_varint(f, k);
    for (uint32_t i = 0; i + 1 < k; i += 8) {
        uint32_t bits = k - 1 - i < 8 ? k - 1 - i : 8;
        putc_unlocked(tb->steps[i / 8] & ((1u << bits) - 1), f);
    }
    run_prev[vcpu] = tb->addr[k - 1];
}

static bool run_may_trap(const RunTb *tb, uint32_t i)
{
    return i < 64 ? (tb->may_trap >> i & 1) : tb->tail_may_trap;
}

/*
 * Closes the open block of vcpu and writes its retired instructions. mode:
 * the privilege now running ('S': at is the block starting, a trap into
 * S-mode starts at stvec; 'M': the first M-mode block, only reached by a
 * trap), whose trap registers tell whether the last started instruction
 * raised an exception.
 */
static void run_close(unsigned vcpu, char mode, uint64_t at)
{
    const RunTb *tb = run_open[vcpu];
    uint64_t started = qemu_plugin_u64_get(run_started, vcpu);
    uint32_t k = started > tb->n ? tb->n : (uint32_t)started;
    bool ok = true;

    run_open[vcpu] = NULL;
    qemu_plugin_u64_set(run_pending, vcpu, 0);
    if (!k) {
        return;
    }
    if (k < tb->n || run_may_trap(tb, k - 1)) {
        uint64_t pc = tb->addr[k - 1], cause = 0, epc = 1;

        if (mode == 'S') {
            uint64_t tvec = read_reg(vcpu, reg_stvec, &ok);
            if (ok && (tvec & ~3ull) == at) {
                cause = read_reg(vcpu, reg_scause, &ok);
                epc = read_reg(vcpu, reg_sepc, &ok);
            }
        } else if (mode == 'M') {
            cause = read_reg(vcpu, reg_mcause, &ok);
            epc = read_reg(vcpu, reg_mepc, &ok);
        }
        if (!ok) {
            fprintf(stderr, "insnlog: cannot read the trap registers\n");
            exit(1);
        }
        if (!(cause >> 63) && epc == pc) {
            k--; /* the instruction raised an exception: not retired */
        }
    }
    run_write(vcpu, tb, k);
}

static void run_tb_exec(unsigned int vcpu, void *udata)
{
    const RunTb *tb = udata;

    if (vcpu >= MAX_VCPUS) {
        return;
    }
    if (run_open[vcpu]) {
        run_close(vcpu, 'S', tb->addr[0]);
    }
    qemu_plugin_u64_set(run_started, vcpu, 0);
    qemu_plugin_u64_set(run_pending, vcpu, 1);
    run_open[vcpu] = tb;
}

/* First block of another privilege after a recorded one (only M-mode can be
 * entered by a trap from S-mode; U-mode only by sret, which retires). */
static void run_other_exec(unsigned int vcpu, void *udata)
{
    if (vcpu < MAX_VCPUS && run_open[vcpu]) {
        run_close(vcpu, (char)(uintptr_t)udata, 0);
    }
}

/* Instructions that can raise an exception (or stop a block): memory
 * accesses, SYSTEM, FENCE, floating point; plain ALU, branches and jumps
 * cannot. */
static bool insn_may_trap(struct qemu_plugin_insn *insn)
{
    uint32_t op = insn_word(insn);

    if (qemu_plugin_insn_size(insn) == 2) {
        unsigned q = op & 3, f3 = op >> 13 & 7;
        if (op == 0) {
            return true;
        }
            switch (q) {
        case 0: return true;   /* loads/stores (c.addi4spn is rare enough) */
        case 1: return false;  /* ALU, c.j, c.beqz/c.bnez */
        default:               /* c.slli; c.jr/c.mv/c.jalr/c.add; c.ebreak */
            return f3 == 0 ? false : f3 == 4 ? op == INSN_CEBREAK : true;
        }
    }
    switch (op & 0x7f) {
    case 0x13: case 0x1b: case 0x33: case 0x3b: case 0x37: case 0x17:
    case 0x63: case 0x6f: case 0x67:
        return false;
    default:
        return true;
    }
}

/* The privilege a block being translated runs in. Translation runs on the
 * vCPU that executes the block next, in its privilege, which a RISC-V block
 * keeps (a block flag). vCPUs translate in parallel: a buffer per thread. */
static uint64_t tb_priv(void)
{
    static __thread GByteArray *buf;
    uint64_t priv;
    bool ok = true;

    if (!buf) {
        buf = g_byte_array_new();
    }
    priv = read_reg_buf(buf, reg_priv, &ok) & 0xff;
    if (!ok) {
        fprintf(stderr, "insnlog: cannot read the privilege\n");
        exit(1);
    }
    return priv;
}

/* acc=S: a memory callback on every instruction of an S-mode block. */
static void acc_tb_trans(struct qemu_plugin_tb *tb)
{
    size_t n = qemu_plugin_tb_n_insns(tb);

    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        /* never freed, as RunTb: blocks are retranslated rarely */
        AccInsn *ai = g_new(AccInsn, 1);

        ai->pc = qemu_plugin_insn_vaddr(insn);
        ai->cls = acc_class(insn_word(insn), qemu_plugin_insn_size(insn));
        qemu_plugin_register_vcpu_mem_cb(insn, acc_access, QEMU_PLUGIN_CB_NO_REGS,
                                         QEMU_PLUGIN_MEM_RW, ai);
    }
}

static void run_tb_trans(struct qemu_plugin_tb *tb, uint64_t priv)
{
    size_t n = qemu_plugin_tb_n_insns(tb);

    if (priv != 1) {
        /* Only a trap leaves S-mode for M-mode: check the open block there.
         * U-mode is entered by sret, which retires, and gets no callback. */
        if (priv == 3) {
            qemu_plugin_register_vcpu_tb_exec_cond_cb(
                tb, run_other_exec, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_COND_NE,
                run_pending, 0, (void *)(uintptr_t)'M');
        }
        return;
    }
    /* never freed: blocks are retranslated rarely */
    RunTb *r = g_new0(RunTb, 1);
    r->n = n;
    r->addr = g_new(uint64_t, n);
    r->steps = g_new0(uint8_t, (n + 7) / 8);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

        r->addr[i] = qemu_plugin_insn_vaddr(insn);
        if (qemu_plugin_insn_size(insn) == 4) {
            r->steps[i / 8] |= 1u << (i % 8);
        }
        if (insn_may_trap(insn)) {
            if (i < 64) {
                r->may_trap |= 1ull << i;
            } else {
                r->tail_may_trap = true;
            }
        }
        qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(
            insn, QEMU_PLUGIN_INLINE_STORE_U64, run_started, i + 1);
    }
    qemu_plugin_register_vcpu_tb_exec_cb(tb, run_tb_exec, QEMU_PLUGIN_CB_R_REGS, r);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    size_t n = qemu_plugin_tb_n_insns(tb);

    if (with_runs || with_acc) {
        uint64_t priv = tb_priv();

        if (with_runs) {
            run_tb_trans(tb, priv);
        }
        if (with_acc && priv == 1) {
            acc_tb_trans(tb);
        }
        return;
    }

    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

        if (with_mem) {
            /* never freed, as InsnInfo below */
            MemInsn *mi = g_new(MemInsn, 1);

            mi->addr = qemu_plugin_insn_vaddr(insn);
            mi->cls = acc_class(insn_word(insn), qemu_plugin_insn_size(insn));
            qemu_plugin_register_vcpu_mem_cb(insn, mem_access,
                                             QEMU_PLUGIN_CB_NO_REGS,
                                             QEMU_PLUGIN_MEM_RW, mi);
        }
        if (with_priv) {
            /* never freed: a few bytes per translated instruction of a test run */
            InsnInfo *ii = g_new(InsnInfo, 1);

            ii->addr = qemu_plugin_insn_vaddr(insn);
            ii->flag = never_retires(insn) ? 'x' : is_trap_return(insn) ? 'r' : 0;
            qemu_plugin_register_vcpu_insn_exec_cb(insn, insn_exec_priv,
                                                   QEMU_PLUGIN_CB_R_REGS, ii);
            continue;
        }
        if (never_retires(insn)) {
            continue;
        }
        qemu_plugin_register_vcpu_insn_exec_cb(
            insn, insn_exec, QEMU_PLUGIN_CB_NO_REGS,
            (void *)(uintptr_t)qemu_plugin_insn_vaddr(insn));
    }
}

static void vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
    if (vcpu < MAX_VCPUS) {
        char *name = g_strdup_printf("%s.%u", path, vcpu);

        /* acc=S alone writes no instruction record */
        out[vcpu] = with_acc && !with_runs ? NULL : fopen(name, "wb");
        if (out[vcpu]) {
            setvbuf(out[vcpu], NULL, _IOFBF, 1 << 20);
        }
        g_free(name);
        if (with_acc) {
            name = g_strdup_printf("%s.acc.%u", path, vcpu);
            acc[vcpu].f = fopen(name, "wb");
            if (!acc[vcpu].f) {
                fprintf(stderr, "insnlog: cannot write %s\n", name);
                exit(1);
            }
            setvbuf(acc[vcpu].f, NULL, _IOFBF, 1 << 20);
            fputs("TSBIACC1", acc[vcpu].f);
            g_free(name);
        }
        if (with_mem) {
            name = g_strdup_printf("%s.mem.%u", path, vcpu);
            memout[vcpu] = fopen(name, "wb");
            if (memout[vcpu]) {
                setvbuf(memout[vcpu], NULL, _IOFBF, 1 << 20);
            }
            g_free(name);
        }
        if (with_runs || with_acc) {
            g_autoptr(GArray) regs = qemu_plugin_get_registers();
            static const struct {
                const char *name;
                struct qemu_plugin_register **reg;
            } want[] = {
                {"priv", &reg_priv}, {"stvec", &reg_stvec},
                {"scause", &reg_scause}, {"sepc", &reg_sepc},
                {"mcause", &reg_mcause}, {"mepc", &reg_mepc},
            };

            for (guint i = 0; i < regs->len; i++) {
                qemu_plugin_reg_descriptor *r =
                    &g_array_index(regs, qemu_plugin_reg_descriptor, i);

                for (size_t j = 0; j < G_N_ELEMENTS(want); j++) {
                    if (!strcmp(r->name, want[j].name)) {
                        *want[j].reg = r->handle;
                    }
                }
            }
            reg_buf[vcpu] = g_byte_array_new();
            if (out[vcpu]) {
                fputs("TSBIRUN1", out[vcpu]);
            }
            for (size_t j = 0; j < (with_runs ? G_N_ELEMENTS(want) : 1); j++) {
                if (!*want[j].reg) {
                    fprintf(stderr, "insnlog: no %s register\n", want[j].name);
                    exit(1);
                }
            }
        }
        if (with_priv) {
            g_autoptr(GArray) regs = qemu_plugin_get_registers();

            for (guint i = 0; i < regs->len; i++) {
                qemu_plugin_reg_descriptor *r =
                    &g_array_index(regs, qemu_plugin_reg_descriptor, i);

                if (!strcmp(r->name, "priv")) {
                    priv_reg[vcpu] = r->handle;
                }
            }
            priv_buf[vcpu] = g_byte_array_new();
            if (!priv_reg[vcpu]) {
                fprintf(stderr, "insnlog: no priv register\n");
            }
        }
    }
}

static void plugin_exit(qemu_plugin_id_t id, void *p)
{
    for (int i = 0; i < MAX_VCPUS; i++) {
        /* A block still open at exit ran up to its last started instruction
         * (the machine stopped; nothing trapped after it). */
        if (with_runs && run_open[i]) {
            uint64_t k = qemu_plugin_u64_get(run_started, i);
            run_write(i, run_open[i], k > run_open[i]->n ? run_open[i]->n : (uint32_t)k);
            run_open[i] = NULL;
        }
        if (out[i]) {
            fclose(out[i]);
            out[i] = NULL;
        }
        if (memout[i]) {
            fclose(memout[i]);
            memout[i] = NULL;
        }
        if (acc[i].f) {
            fclose(acc[i].f);
            acc[i].f = NULL;
        }
    }
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
                                           const qemu_info_t *info,
                                           int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        if (g_str_has_prefix(argv[i], "out=")) {
            path = g_strdup(argv[i] + 4);
        } else if (!strcmp(argv[i], "priv=on")) {
            with_priv = true;
        } else if (!strcmp(argv[i], "mem=on")) {
            with_mem = true;
        } else if (!strcmp(argv[i], "mem=S")) {
            with_mem = true;
            mem_priv = 1;
        } else if (g_str_has_prefix(argv[i], "acc=")) {
            with_acc = true;
            if (strcmp(argv[i] + 4, "S")) {
                fprintf(stderr, "insnlog: acc= supports S (S-mode) only\n");
                return -1;
            }
        } else if (g_str_has_prefix(argv[i], "runs=")) {
            with_runs = true;
            if (strcmp(argv[i] + 5, "S")) {
                fprintf(stderr, "insnlog: runs= supports S (S-mode) only\n");
                return -1;
            }
        }
    }
    if (!path) {
        fprintf(stderr, "insnlog: out=PATH is required\n");
        return -1;
    }
    if (mem_priv >= 0 && !with_priv) {
        fprintf(stderr, "insnlog: mem=S needs priv=on\n");
        return -1;
    }
    if ((with_runs || with_acc) && (with_priv || with_mem)) {
        fprintf(stderr, "insnlog: runs= and acc= exclude priv=on and mem=\n");
        return -1;
    }
    if (with_runs) {
        run_score = qemu_plugin_scoreboard_new(sizeof(RunScore));
        run_started = qemu_plugin_scoreboard_u64_in_struct(run_score, RunScore, started);
        run_pending = qemu_plugin_scoreboard_u64_in_struct(run_score, RunScore, pending);
    }
    qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
    return 0;
}
