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
 *   -plugin libinsnlog.so,out=PATH[,priv=on]
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
#define INSN_ECALL   0x00000073u
#define INSN_EBREAK  0x00100073u
#define INSN_UNIMP   0xc0001073u
#define INSN_CEBREAK 0x9002u
#define INSN_CUNIMP  0x0000u

static FILE *out[MAX_VCPUS];
static char *path;
static bool with_priv;
static struct qemu_plugin_register *priv_reg[MAX_VCPUS];
static GByteArray *priv_buf[MAX_VCPUS];

static void insn_exec(unsigned int vcpu, void *udata)
{
    if (vcpu < MAX_VCPUS && out[vcpu]) {
        fprintf(out[vcpu], "0x%" PRIx64 "\n", (uint64_t)(uintptr_t)udata);
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

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    size_t n = qemu_plugin_tb_n_insns(tb);

    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

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

        out[vcpu] = fopen(name, "w");
        if (out[vcpu]) {
            setvbuf(out[vcpu], NULL, _IOFBF, 1 << 20);
        }
        g_free(name);
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
        if (out[i]) {
            fclose(out[i]);
            out[i] = NULL;
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
        }
    }
    if (!path) {
        fprintf(stderr, "insnlog: out=PATH is required\n");
        return -1;
    }
    qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
    return 0;
}
