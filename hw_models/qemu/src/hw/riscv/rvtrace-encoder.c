/*
 * RISC-V N-Trace encoder (N-Trace 1.0 with the Trace Control Interface 1.0
 * encoder registers), one per hart, fed by the TCG ingress port
 * (target/riscv/trace_ingress.h).
 *
 * Message layouts come from the project's N-Trace table
 * (hw/riscv/ntrace_msgs.def, shared with the host codec), so the field order
 * is written once for the encoder here and the host decoder.
 *
 * Threading: the encoder state below the registers is only touched by the
 * traced hart's vCPU thread (ingress helpers and run_on_cpu work); register
 * writes that start or stop tracing queue work on that vCPU, which runs at a
 * translation block boundary where env->pc is exact.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qemu/host-utils.h"
#include "qemu/main-loop.h"
#include "hw/qdev-properties.h"
#include "hw/core/cpu.h"
#include "migration/vmstate.h"
#include "system/runstate.h"
#include "target/riscv/cpu.h"
#include "target/riscv/trace_ingress.h"
#include "hw/riscv/rvtrace.h"
#include "trace.h"

/* ------------------------------------------------ message table (shared) */

typedef struct NtFieldRef {
    int8_t id;
    int8_t cond_id;      /* -1: always present */
    int8_t cond_val;
} NtFieldRef;

#define NTRACE_F(ID) { NT_FLD_##ID, -1, 0 },
#define NTRACE_FC(ID, CID, CVAL) { NT_FLD_##ID, NT_FLD_##CID, CVAL },
#define NTRACE_MSG(name, tcode, fields) \
    static const NtFieldRef nt_fields_##name[] = { fields { -1, -1, 0 } };
#include "hw/riscv/ntrace_msgs.def"

static const struct {
    uint8_t kind;
    uint8_t bits;
} nt_field_info[NT_FLD_COUNT] = {
#define NTRACE_FIELD(id, kind, bits) [NT_FLD_##id] = { kind, bits },
#include "hw/riscv/ntrace_msgs.def"
};

static const NtFieldRef *nt_msg_fields(unsigned tcode)
{
    switch (tcode) {
#define NTRACE_MSG(name, tcode, fields) case tcode: return nt_fields_##name;
#include "hw/riscv/ntrace_msgs.def"
    default:
        return NULL;
    }
}
#undef NTRACE_F
#undef NTRACE_FC

/* --------------------------------------------------- MDO/MSEO byte packer */

/*
 * Each byte carries MSEO in bits 1:0 and 6 MDO bits in 7:2 (N-Trace 1.0
 * "N-Trace Transmission Protocol"): fixed fields pack back to back,
 * a variable field ends on a byte with MSEO=01, the last byte has MSEO=11.
 */
typedef struct NtMsg {
    uint8_t b[RVTRACE_MSG_MAX];
    unsigned len;
    unsigned bit;            /* MDO bits used in b[len] */
} NtMsg;

#define NT_MSEO_END_FIELD 0x1
#define NT_MSEO_END_MSG   0x3
#define NT_MDO_BITS       6

static inline __attribute__((always_inline)) void nt_bits(NtMsg *m, unsigned n,
                                                         uint64_t v)
{
    while (n) {
        unsigned take = MIN(NT_MDO_BITS - m->bit, n);

        if (m->bit == 0) {
            m->b[m->len] = 0;
        }
        m->b[m->len] |= (uint8_t)((v & MAKE_64BIT_MASK(0, take)) << (2 + m->bit));
        v = take < 64 ? v >> take : 0;
        n -= take;
        m->bit += take;
        if (m->bit == NT_MDO_BITS) {
            m->len++;
            m->bit = 0;
        }
    }
}

static void nt_close_field(NtMsg *m)
{
    if (m->bit) {
        m->len++;
        m->bit = 0;
    }
    m->b[m->len - 1] |= NT_MSEO_END_FIELD;
}

static void nt_var(NtMsg *m, uint64_t v)
{
    nt_bits(m, v ? 64 - clz64(v) : 1, v);
    nt_close_field(m);
}

/*
 * Address field of @w bits (XLEN-1). With trTeInstExtendAddrMSB the field
 * ends on an MDO boundary and the decoder extends its most significant bit
 * (N-Trace 1.0 "Virtual Addresses Optimization"): send the fewest whole
 * MDO groups whose extension gives back the value.
 */
static void nt_addr(NtMsg *m, uint64_t a, bool extend, unsigned w)
{
    unsigned k;

    if (!extend) {
        nt_var(m, a);
        return;
    }
    for (k = NT_MDO_BITS - m->bit; k < w; k += NT_MDO_BITS) {
        if ((sextract64(a, 0, k) & MAKE_64BIT_MASK(0, w)) == a) {
            break;
        }
    }
    nt_bits(m, MIN(k, w), a);
    nt_close_field(m);
}

/* ------------------------------------------------------------ encoder core */

#define ENC_MAX_HREPEAT MAKE_64BIT_MASK(0, NT_LIMIT_MAX_HREPEAT)
#define ENC_MAX_BCNT    MAKE_64BIT_MASK(0, NT_LIMIT_MAX_BCNT)
/* ImplicitReturnMode=2 compares this many low address bits. */
#define ENC_PARTIAL_RET_BITS 16

static unsigned enc_inst_mode(RVTraceEncoderState *s)
{
    return FIELD_EX32(s->control, TR_TE_CONTROL, INST_MODE);
}

static bool enc_htm(RVTraceEncoderState *s)
{
    return enc_inst_mode(s) == RVTRACE_INST_MODE_HTM;
}

static bool enc_feature(RVTraceEncoderState *s, uint32_t mask)
{
    return s->inst_features & mask;
}

static CPURISCVState *enc_env(RVTraceEncoderState *s)
{
    return s->env;
}

static unsigned enc_addr_bits(RVTraceEncoderState *s)
{
    return riscv_cpu_mxl(enc_env(s)) == MXL_RV32 ? 31 : 63;
}

static uint32_t enc_process(CPURISCVState *env)
{
    /* PROCESS = {CONTEXT, V, PRV[1:0], FORMAT[1:0]} with FORMAT 0 (V/PRV). */
    return (NT_PROCESS_FORMAT_PRIV) | ((env->priv & 3) << 2) |
           ((env->virt_enabled ? 1 : 0) << 4);
}

static bool enc_push(RVTraceEncoderState *s, NtMsg *m)
{
    trace_rvtrace_encoder_msg(s->port, m->b[0] >> 2, m->len);
    return s->out_k->push(s->out_if, s->port, m->b, m->len);
}

static bool enc_stall_ena(RVTraceEncoderState *s)
{
    return FIELD_EX32(s->control, TR_TE_CONTROL, INST_STALL_ENA);
}

/*
 * InstStallEna=1: the hart stalls until the sink takes the held messages.
 * This runs on the traced hart between translation blocks, so the hart
 * executes nothing meanwhile; the BQL is released while waiting so other
 * harts (which may drain the sink) and devices keep running.
 */
static void enc_stall_work(CPUState *cs, run_on_cpu_data data)
{
    RVTraceEncoderState *s = data.host_ptr;

    trace_rvtrace_encoder_stall(s->port, s->stall_len);
    while (s->stall_len) {
        uint32_t n = s->stall_buf[0];

        if (s->out_k->push(s->out_if, s->port, s->stall_buf + 1, n)) {
            s->stall_len -= 1 + n;
            memmove(s->stall_buf, s->stall_buf + 1 + n, s->stall_len);
            continue;
        }
        if (!enc_stall_ena(s) || !(s->control & R_TR_TE_CONTROL_ACTIVE_MASK)) {
            /* Stalling switched off: what is held is lost. */
            s->stall_len = 0;
            s->lost = true;
            s->need_sync = true;
            s->sync_reason = NT_SYNC_FIFO_OVERRUN;
            break;
        }
        if (qatomic_read(&cs->stop) || cs->stopped) {
            /* The VM is pausing: resume the stall at the next message. */
            break;
        }
        bql_unlock();
        g_usleep(100);
        bql_lock();
    }
    s->stall_queued = false;
}

/* Hand a finished message on; false when it had to be dropped. */
static bool enc_output(RVTraceEncoderState *s, NtMsg *m)
{
    if (s->stall_len == 0 && enc_push(s, m)) {
        return true;
    }
    if (!enc_stall_ena(s) || s->stall_len + 1 + m->len > RVTRACE_STALL_BUF) {
        return false;
    }
    s->stall_buf[s->stall_len] = m->len;
    memcpy(s->stall_buf + s->stall_len + 1, m->b, m->len);
    s->stall_len += 1 + m->len;
    s->control = FIELD_DP32(s->control, TR_TE_CONTROL,
                            INST_STALL_OR_OVERFLOW, 1);
    if (!s->stall_queued) {
        s->stall_queued = true;
        async_run_on_cpu(CPU(s->cpu), enc_stall_work, RUN_ON_CPU_HOST_PTR(s));
    }
    return true;
}

static void enc_lose(RVTraceEncoderState *s)
{
    /* Message dropped: report the gap with Error + SYNC=7 when possible. */
    s->lost = true;
    s->need_sync = true;
    s->sync_reason = NT_SYNC_FIFO_OVERRUN;
    s->control = FIELD_DP32(s->control, TR_TE_CONTROL,
                            INST_STALL_OR_OVERFLOW, 1);
}

static bool enc_is_sync_tcode(unsigned tcode)
{
    return tcode == NT_TCODE_ProgTraceSync ||
           tcode == NT_TCODE_DirectBranchSync ||
           tcode == NT_TCODE_IndirectBranchSync ||
           tcode == NT_TCODE_IndirectBranchHistSync;
}

static void enc_send(RVTraceEncoderState *s, unsigned tcode, uint64_t *f);

static void enc_flush_repeats(RVTraceEncoderState *s, unsigned tcode,
                              uint64_t rcode)
{
    uint64_t f[NT_FLD_COUNT];

    if (likely(!s->bcnt && !s->hrepeat)) {
        return;
    }
    memset(f, 0, sizeof(f));
    if (tcode != NT_TCODE_RepeatBranch && s->bcnt) {
        f[NT_FLD_BCNT] = s->bcnt;
        s->bcnt = 0;
        enc_send(s, NT_TCODE_RepeatBranch, f);
    }
    if (!(tcode == NT_TCODE_ResourceFull && rcode == NT_RCODE_HIST_REPEAT) &&
        s->hrepeat) {
        memset(f, 0, sizeof(f));
        f[NT_FLD_RCODE] = NT_RCODE_HIST_REPEAT;
        f[NT_FLD_RDATA] = s->rep_hist;
        f[NT_FLD_HREPEAT] = s->hrepeat;
        s->hrepeat = 0;
        enc_send(s, NT_TCODE_ResourceFull, f);
    }
}

/*
 * Error message (ETYPE 0, program trace lost) reporting a gap; it goes out
 * as soon as there is room, before the next synchronizing message or as the
 * last message when tracing stops (N-Trace 1.0 "Error Message").
 */
static bool enc_error(RVTraceEncoderState *s)
{
    unsigned srcbits = FIELD_EX32(s->inst_features, TR_TE_INST_FEATURES, SRC_BITS);
    NtMsg e = { .len = 0 };

    nt_bits(&e, 6, NT_TCODE_Error);
    if (srcbits && !FIELD_EX32(s->control, TR_TE_CONTROL, INHIBIT_SRC)) {
        nt_bits(&e, srcbits,
                FIELD_EX32(s->inst_features, TR_TE_INST_FEATURES, SRC_ID));
    }
    nt_bits(&e, 4, NT_ETYPE_FIFO_OVERRUN);
    nt_var(&e, NT_ECODE_PROGRAM_LOST);
    e.b[e.len - 1] |= NT_MSEO_END_MSG;
    if (!enc_push(s, &e)) {
        return false;
    }
    s->lost = false;
    return true;
}

/* Build and send one message; @f holds field values indexed by NT_FLD_*. */
static void enc_send(RVTraceEncoderState *s, unsigned tcode, uint64_t *f)
{
    const NtFieldRef *r = nt_msg_fields(tcode);
    bool extend = enc_feature(s, R_TR_TE_INST_FEATURES_EXTEND_ADDR_MSB_MASK);
    unsigned srcbits = FIELD_EX32(s->inst_features, TR_TE_INST_FEATURES, SRC_BITS);
    bool sync = enc_is_sync_tcode(tcode);
    bool repeatable = !enc_htm(s) &&
        enc_feature(s, R_TR_TE_INST_FEATURES_EN_REPEATED_HISTORY_MASK) &&
        (tcode == NT_TCODE_DirectBranch || tcode == NT_TCODE_IndirectBranch);
    NtMsg m = { .len = 0 };

    enc_flush_repeats(s, tcode, f[NT_FLD_RCODE]);
    if (s->lost) {
        /* Only a synchronizing message may follow the Error message. */
        if (!sync || !enc_error(s)) {
            return;
        }
    }

    nt_bits(&m, 6, tcode);
    if (srcbits && !FIELD_EX32(s->control, TR_TE_CONTROL, INHIBIT_SRC)) {
        nt_bits(&m, srcbits,
                FIELD_EX32(s->inst_features, TR_TE_INST_FEATURES, SRC_ID));
    }
    for (; r && r->id >= 0; r++) {
        if (r->cond_id >= 0 && f[r->cond_id] != (uint64_t)r->cond_val) {
            continue;
        }
        switch (nt_field_info[r->id].kind) {
        case NTRACE_KIND_FIX:
            nt_bits(&m, nt_field_info[r->id].bits, f[r->id]);
            break;
        case NTRACE_KIND_VAR:
            nt_var(&m, f[r->id]);
            break;
        case NTRACE_KIND_ADDR:
            nt_addr(&m, f[r->id], extend, enc_addr_bits(s));
            break;
        default:
            break;
        }
    }
    if (m.bit) {
        m.len++;
        m.bit = 0;
    }

    if (repeatable) {
        /*
         * RepeatBranch: same I-CNT (and fields) and the same target address
         * as the previous branch message (N-Trace 1.0 "RepeatBranch").
         */
        if (s->bcnt_valid && m.len == s->last_len &&
            s->msg_target == s->last_target &&
            !memcmp(m.b, s->last_msg, m.len)) {
            if (++s->bcnt == ENC_MAX_BCNT) {
                uint64_t g[NT_FLD_COUNT] = { 0 };

                g[NT_FLD_BCNT] = s->bcnt;
                s->bcnt = 0;
                enc_send(s, NT_TCODE_RepeatBranch, g);
            }
            return;
        }
        memcpy(s->last_msg, m.b, m.len);
        s->last_len = m.len;
        s->last_target = s->msg_target;
        s->bcnt_valid = true;
    } else if (tcode != NT_TCODE_RepeatBranch) {
        s->bcnt_valid = false;
    }

    if (FIELD_EX32(s->ts.control, TR_TS_CONTROL, ENABLE)) {
        /* Absolute TSTAMP in synchronizing messages, relative otherwise. */
        uint64_t now = s->out_k->timestamp ? s->out_k->timestamp(s->out_if) : 0;

        nt_var(&m, sync ? now : now - s->last_ts);
        s->last_ts = now;
    }
    m.b[m.len - 1] |= NT_MSEO_END_MSG;

    if (!enc_output(s, &m)) {
        enc_lose(s);
        return;
    }
    if (FIELD_EX32(s->control, TR_TE_CONTROL, INST_SYNC_MODE) ==
        RVTRACE_SYNC_MODE_MESSAGES) {
        s->sync_count++;
    }
}

static void enc_check_periodic(RVTraceEncoderState *s)
{
    unsigned max = FIELD_EX32(s->control, TR_TE_CONTROL, INST_SYNC_MAX);

    if (FIELD_EX32(s->control, TR_TE_CONTROL, INST_SYNC_MODE) !=
            RVTRACE_SYNC_MODE_OFF &&
        s->sync_count >= (1ULL << (max + 4)) && !s->need_sync) {
        s->need_sync = true;
        s->sync_reason = NT_SYNC_PERIODIC;
    }
}

static void enc_ownership(RVTraceEncoderState *s, CPURISCVState *env,
                          bool force)
{
    uint32_t p = enc_process(env);
    uint64_t f[NT_FLD_COUNT] = { 0 };

    if (!FIELD_EX32(s->control, TR_TE_CONTROL, CONTEXT) ||
        (!force && p == s->priv)) {
        s->priv = p;
        return;
    }
    s->priv = p;
    f[NT_FLD_PROCESS] = p;
    enc_send(s, NT_TCODE_Ownership, f);
}

/* A synchronizing message fully resets the encoder state (N-Trace 1.0). */
static void enc_after_sync(RVTraceEncoderState *s, CPURISCVState *env,
                           uint64_t addr)
{
    s->need_sync = false;
    s->sync_count = 0;
    s->last_addr = addr;
    s->stack_depth = 0;
    s->call_count = 0;
    s->rep_valid = false;
    s->bcnt_valid = false;
    enc_ownership(s, env, true);
}

static void enc_resource_full(RVTraceEncoderState *s, unsigned rcode,
                              uint64_t rdata)
{
    uint64_t f[NT_FLD_COUNT] = { 0 };

    f[NT_FLD_RCODE] = rcode;
    f[NT_FLD_RDATA] = rdata;
    enc_send(s, NT_TCODE_ResourceFull, f);
}

/*
 * Take the I-CNT counter for a message. Periodic synchronization in
 * halfwords counts here, when the instructions are reported: the sync
 * message can only go out at a message anyway.
 */
static uint64_t enc_take_icnt(RVTraceEncoderState *s)
{
    uint64_t n = s->env->trace_icnt;

    s->env->trace_icnt = 0;
    if (FIELD_EX32(s->control, TR_TE_CONTROL, INST_SYNC_MODE) ==
        RVTRACE_SYNC_MODE_HALFWORDS) {
        s->sync_count += n;
    }
    return n;
}

/* Retire @n halfwords; a full I-CNT counter goes out in ResourceFull. */
static void enc_icnt_add(RVTraceEncoderState *s, uint64_t n)
{
    uint64_t max = s->env->trace_icnt_max;

    if (s->env->trace_icnt + n > max) {
        if (s->env->trace_icnt) {
            enc_resource_full(s, NT_RCODE_ICNT_FULL, enc_take_icnt(s));
        }
        if (n > max) {
            /* One straight run longer than the counter: report it whole. */
            s->env->trace_icnt = n;
            enc_resource_full(s, NT_RCODE_ICNT_FULL, enc_take_icnt(s));
            n = 0;
        }
    }
    s->env->trace_icnt += n;
}

/* Instructions from run_start up to (not including) @end have retired. */
static void enc_retire_to(RVTraceEncoderState *s, uint64_t end)
{
    if (end >= s->env->trace_run_start) {
        enc_icnt_add(s, (end - s->env->trace_run_start) >> 1);
    }
}

static void enc_hist_full(RVTraceEncoderState *s);

static void enc_hist_add(RVTraceEncoderState *s, unsigned taken)
{
    s->env->trace_hist = (s->env->trace_hist << 1) | taken;
    if (s->env->trace_hist >= s->env->trace_hist_full) {
        enc_hist_full(s);
    }
}

/* HIST register full: its stop bit reached the top position. */
static void enc_hist_full(RVTraceEncoderState *s)
{
    if (enc_feature(s, R_TR_TE_INST_FEATURES_EN_REPEATED_HISTORY_MASK) &&
        s->rep_valid && s->env->trace_hist == s->rep_hist) {
        if (++s->hrepeat == ENC_MAX_HREPEAT) {
            enc_flush_repeats(s, NT_TCODE_ProgTraceSync, 0);
        }
    } else {
        enc_flush_repeats(s, NT_TCODE_ProgTraceSync, 0);
        enc_resource_full(s, NT_RCODE_HIST_FULL, s->env->trace_hist);
        s->rep_hist = s->env->trace_hist;
        s->rep_valid = true;
    }
    s->env->trace_hist = 1;
}

/* Taken direct branch in BTM (or a direct jump with EnAllJumps). */
static void enc_direct(RVTraceEncoderState *s, CPURISCVState *env,
                       uint64_t next)
{
    uint64_t f[NT_FLD_COUNT] = { 0 };

    f[NT_FLD_ICNT] = enc_take_icnt(s);
    if (s->need_sync) {
        f[NT_FLD_SYNC] = s->sync_reason;
        f[NT_FLD_FADDR] = next >> 1;
        enc_send(s, NT_TCODE_DirectBranchSync, f);
        if (!s->lost) {
            enc_after_sync(s, env, next);
        }
        return;
    }
    s->msg_target = next;
    enc_send(s, NT_TCODE_DirectBranch, f);
}

/* Uninferable transfer: indirect jump, trap, trap return. */
static void enc_indirect(RVTraceEncoderState *s, CPURISCVState *env,
                         uint64_t next, unsigned btype)
{
    uint64_t f[NT_FLD_COUNT] = { 0 };
    bool htm = enc_htm(s) && s->env->trace_hist != 1;

    f[NT_FLD_BTYPE] = btype;
    f[NT_FLD_ICNT] = enc_take_icnt(s);
    f[NT_FLD_HIST] = s->env->trace_hist;
    s->env->trace_hist = 1;
    if (s->need_sync) {
        f[NT_FLD_SYNC] = s->sync_reason;
        f[NT_FLD_FADDR] = next >> 1;
        enc_send(s, htm ? NT_TCODE_IndirectBranchHistSync :
                          NT_TCODE_IndirectBranchSync, f);
        if (!s->lost) {
            enc_after_sync(s, env, next);
        }
        return;
    }
    f[NT_FLD_UADDR] = (next ^ s->last_addr) >> 1;
    s->last_addr = next;
    s->msg_target = next;
    enc_send(s, htm ? NT_TCODE_IndirectBranchHist : NT_TCODE_IndirectBranch, f);
}

static bool enc_implicit_return(RVTraceEncoderState *s)
{
    return enc_feature(s, R_TR_TE_INST_FEATURES_EN_IMPLICIT_RETURN_MASK);
}

static void enc_push_call(RVTraceEncoderState *s, uint64_t ret)
{
    if (!enc_implicit_return(s)) {
        return;
    }
    if (s->call_count < RVTRACE_CALL_STACK) {
        s->call_count++;
    }
    if (s->stack_depth == RVTRACE_CALL_STACK) {
        /* Full: the oldest entry is forgotten. */
        memmove(&s->stack[0], &s->stack[1],
                sizeof(s->stack[0]) * (RVTRACE_CALL_STACK - 1));
        s->stack_depth--;
    }
    s->stack[s->stack_depth++] = ret;
}

/* Pop the expected return address; true if the return to @next is inferable. */
static bool enc_pop_return(RVTraceEncoderState *s, uint64_t next)
{
    unsigned mode = FIELD_EX32(s->inst_features, TR_TE_INST_FEATURES,
                               IMPLICIT_RETURN_MODE);
    uint64_t expect;

    if (!enc_implicit_return(s) || s->stack_depth == 0) {
        return false;
    }
    expect = s->stack[--s->stack_depth];
    if (s->call_count) {
        s->call_count--;
    }
    switch (mode) {
    case RVTRACE_IRET_MODE_COUNT:
        return true;
    case RVTRACE_IRET_MODE_PARTIAL:
        return extract64(expect ^ next, 1, ENC_PARTIAL_RET_BITS) == 0;
    default:
        return expect == next;
    }
}

void riscv_trace_cf(CPURISCVState *env, target_ulong pc, target_ulong next,
                    uint32_t info)
{
    RVTraceEncoderState *s = env->trace_encoder;
    unsigned itype = info & RISCV_TRACE_INFO_ITYPE_MASK;
    uint64_t succ = pc + 2 * (info >> RISCV_TRACE_INFO_LEN_SHIFT);
    bool all_jumps;

    if (!s || !s->tracing) {
        return;
    }
    enc_retire_to(s, succ);
    s->env->trace_run_start = next;
    all_jumps = enc_feature(s, R_TR_TE_INST_FEATURES_EN_ALL_JUMPS_MASK);

    switch (itype) {
    case NT_ITYPE_BRANCH_NOT_TAKEN:
        if (enc_htm(s)) {
            enc_hist_add(s, 0);
        }
        break;
    case NT_ITYPE_DIRECT_CALL:
    case NT_ITYPE_DIRECT_JUMP_NOLINK:
    case NT_ITYPE_DIRECT_JUMP_LINK:
        if (itype == NT_ITYPE_DIRECT_CALL) {
            enc_push_call(s, succ);
        }
        if (!all_jumps) {
            break;
        }
        /* EnAllJumps: the ingress reports direct jumps as taken branches. */
        /* fall through */
    case NT_ITYPE_BRANCH_TAKEN:
        if (enc_htm(s)) {
            enc_hist_add(s, 1);
        } else {
            enc_direct(s, env, next);
        }
        break;
    case NT_ITYPE_INDIRECT_CALL:
        enc_push_call(s, succ);
        enc_indirect(s, env, next, NT_BTYPE_INDIRECT);
        break;
    case NT_ITYPE_COROUTINE_SWAP:
        if (enc_pop_return(s, next)) {
            enc_push_call(s, succ);
            break;
        }
        enc_push_call(s, succ);
        enc_indirect(s, env, next, NT_BTYPE_INDIRECT);
        break;
    case NT_ITYPE_RETURN:
        if (enc_pop_return(s, next)) {
            break;
        }
        enc_indirect(s, env, next, NT_BTYPE_INDIRECT);
        break;
    case NT_ITYPE_TRAP_RETURN:
    case NT_ITYPE_INDIRECT_JUMP:
    case NT_ITYPE_INDIRECT_JUMP_NOLINK:
    case NT_ITYPE_INDIRECT_JUMP_LINK:
    default:
        enc_indirect(s, env, next, NT_BTYPE_INDIRECT);
        break;
    }
    if (itype == NT_ITYPE_TRAP_RETURN) {
        enc_ownership(s, env, false);
    }
    enc_check_periodic(s);
}

void riscv_trace_trap(CPURISCVState *env, target_ulong epc,
                      target_ulong handler, bool interrupt)
{
    RVTraceEncoderState *s = env->trace_encoder;

    if (!s || !s->tracing) {
        return;
    }
    /*
     * An exception's instruction at epc did not retire; an interrupt is
     * taken before the instruction at epc. Either way the run ends at epc.
     */
    enc_retire_to(s, epc);
    s->env->trace_run_start = handler;
    enc_indirect(s, env, handler,
                 interrupt ? NT_BTYPE_INTERRUPT : NT_BTYPE_EXCEPTION);
    enc_ownership(s, env, false);
    enc_check_periodic(s);
}

/*
 * The inline HTM branch path (translate.c gen_trace_branch) updated
 * trace_run_start, trace_icnt and trace_hist and found the HIST register full
 * or the I-CNT counter past its maximum: emit the ResourceFull messages. An
 * I-CNT above the maximum is reported whole (N-Trace 1.0 "I-CNT Details"
 * allows a bigger value).
 */
void riscv_trace_fixup(CPURISCVState *env)
{
    RVTraceEncoderState *s = env->trace_encoder;

    if (!s || !s->tracing) {
        return;
    }
    if (env->trace_hist >= env->trace_hist_full) {
        enc_hist_full(s);
    }
    if (env->trace_icnt > env->trace_icnt_max) {
        enc_resource_full(s, NT_RCODE_ICNT_FULL, enc_take_icnt(s));
    }
    enc_check_periodic(s);
}

/* ----------------------------------------------------- start/stop tracing */

static bool enc_want_tracing(RVTraceEncoderState *s)
{
    uint32_t need = R_TR_TE_CONTROL_ACTIVE_MASK | R_TR_TE_CONTROL_ENABLE_MASK |
                    R_TR_TE_CONTROL_INST_TRACING_MASK;

    return (s->control & need) == need &&
           enc_inst_mode(s) != RVTRACE_INST_MODE_OFF;
}

static void enc_start(RVTraceEncoderState *s, CPURISCVState *env,
                      unsigned reason)
{
    uint64_t f[NT_FLD_COUNT] = { 0 };
    uint64_t pc = env->pc;

    s->tracing = true;
    s->env->trace_icnt = 0;
    s->env->trace_hist = 1;
    s->hrepeat = 0;
    s->bcnt = 0;
    s->env->trace_run_start = pc;
    s->need_sync = false;
    if (s->lost) {
        reason = NT_SYNC_FIFO_OVERRUN;
    }
    f[NT_FLD_SYNC] = reason;
    f[NT_FLD_FADDR] = pc >> 1;
    enc_send(s, NT_TCODE_ProgTraceSync, f);
    if (!s->lost) {
        enc_after_sync(s, env, pc);
    }
    env->trace_ingress = RISCV_TRACE_CS_BASE_INGRESS |
                         (enc_htm(s) ? RISCV_TRACE_CS_BASE_HTM : 0);
}

static void enc_stop(RVTraceEncoderState *s, CPURISCVState *env,
                     unsigned evcode)
{
    uint64_t f[NT_FLD_COUNT] = { 0 };

    enc_retire_to(s, env->pc);
    f[NT_FLD_EVCODE] = evcode;
    f[NT_FLD_CDF] = enc_htm(s) ? 1 : 0;
    f[NT_FLD_ICNT] = enc_take_icnt(s);
    f[NT_FLD_HIST] = s->env->trace_hist;
    enc_send(s, NT_TCODE_ProgTraceCorrelation, f);
    if (s->lost) {
        /* The gap is reported even when no synchronizing message follows. */
        enc_error(s);
    }
    s->env->trace_icnt = 0;
    s->env->trace_hist = 1;
    s->tracing = false;
    env->trace_ingress = 0;
}

static void enc_apply_work(CPUState *cs, run_on_cpu_data data)
{
    RVTraceEncoderState *s = data.host_ptr;
    CPURISCVState *env = enc_env(s);
    bool want = enc_want_tracing(s);

    if (want && !s->tracing) {
        enc_start(s, env, NT_SYNC_TRACE_ENABLE);
    } else if (!want && s->tracing) {
        enc_stop(s, env, NT_EVCODE_TRACE_DISABLED);
    }
    qatomic_set(&s->pending, false);
}

static void enc_schedule_apply(RVTraceEncoderState *s)
{
    if (enc_want_tracing(s) == qatomic_read(&s->tracing)) {
        return;
    }
    qatomic_set(&s->pending, true);
    async_run_on_cpu(CPU(s->cpu), enc_apply_work, RUN_ON_CPU_HOST_PTR(s));
}

/*
 * A debugger stop is the model's debug-mode entry: report it with
 * ProgTraceCorrelation EVCODE=0 and resynchronise with SYNC=3 on resume.
 * vCPUs are stopped while this runs, so env->pc is exact.
 */
static void enc_vm_state_change(void *opaque, bool running, RunState state)
{
    RVTraceEncoderState *s = opaque;
    CPURISCVState *env = enc_env(s);

    if (!running && state == RUN_STATE_DEBUG && s->tracing) {
        enc_stop(s, env, NT_EVCODE_DEBUG_ENTRY);
        s->debug_stopped = true;
    } else if (running && s->debug_stopped) {
        s->debug_stopped = false;
        if (enc_want_tracing(s)) {
            enc_start(s, env, NT_SYNC_EXIT_DEBUG);
        }
    }
}

/* -------------------------------------------------------------- registers */

static uint32_t enc_impl(void)
{
    uint32_t v = 0;

    v = FIELD_DP32(v, TR_IMPL, VER_MAJOR, 1);
    v = FIELD_DP32(v, TR_IMPL, COMP_TYPE, RVTRACE_COMP_ENCODER);
    v = FIELD_DP32(v, TR_IMPL, TE_PROTO_MAJOR, 1);
    v = FIELD_DP32(v, TR_IMPL, TE_PROTO_MINOR, 0);
    v = FIELD_DP32(v, TR_IMPL, VENDOR, RVTRACE_VENDOR_ID);
    return v;
}

/* Defaults taken when trTeActive goes 0 -> 1. */
static void enc_defaults(RVTraceEncoderState *s)
{
    uint32_t c = R_TR_TE_CONTROL_ACTIVE_MASK;

    c = FIELD_DP32(c, TR_TE_CONTROL, INST_MODE, RVTRACE_INST_MODE_BTM);
    c = FIELD_DP32(c, TR_TE_CONTROL, FORMAT, RVTRACE_FORMAT_NTRACE);
    s->control = c;
    s->inst_features = 0;
    rvtrace_ts_write(&s->ts, R_TR_TS_CONTROL_ACTIVE_MASK, false, true, true);
}

static unsigned enc_legal_inst_mode(unsigned m)
{
    switch (m) {
    case RVTRACE_INST_MODE_OFF:
    case RVTRACE_INST_MODE_BTM:
    case RVTRACE_INST_MODE_HTM:
        return m;
    case 7:
        return RVTRACE_INST_MODE_HTM;
    default:
        /* Unsupported non-zero modes revert to a supported non-zero one. */
        return RVTRACE_INST_MODE_BTM;
    }
}

static void enc_write_control(RVTraceEncoderState *s, uint32_t val)
{
    bool was_active = s->control & R_TR_TE_CONTROL_ACTIVE_MASK;
    bool was_enabled = s->control & R_TR_TE_CONTROL_ENABLE_MASK;
    uint32_t nc = R_TR_TE_CONTROL_ACTIVE_MASK;
    unsigned sync_mode;

    if (!(val & R_TR_TE_CONTROL_ACTIVE_MASK)) {
        s->control = 0;
        s->inst_features = 0;
        rvtrace_ts_reset(&s->ts);
        enc_schedule_apply(s);
        return;
    }
    if (!was_active) {
        enc_defaults(s);
        return;
    }
    nc |= val & (R_TR_TE_CONTROL_ENABLE_MASK |
                 R_TR_TE_CONTROL_INST_TRACING_MASK |
                 R_TR_TE_CONTROL_CONTEXT_MASK |
                 R_TR_TE_CONTROL_INHIBIT_SRC_MASK |
                 R_TR_TE_CONTROL_INST_STALL_ENA_MASK |
                 R_TR_TE_CONTROL_INST_SYNC_MAX_MASK);
    nc = FIELD_DP32(nc, TR_TE_CONTROL, INST_MODE,
                    enc_legal_inst_mode(FIELD_EX32(val, TR_TE_CONTROL,
                                                   INST_MODE)));
    sync_mode = FIELD_EX32(val, TR_TE_CONTROL, INST_SYNC_MODE);
    if (sync_mode == RVTRACE_SYNC_MODE_CYCLES) {
        /* Hart cycles are not modelled: count halfwords instead. */
        sync_mode = RVTRACE_SYNC_MODE_HALFWORDS;
    }
    nc = FIELD_DP32(nc, TR_TE_CONTROL, INST_SYNC_MODE, sync_mode);
    nc = FIELD_DP32(nc, TR_TE_CONTROL, FORMAT, RVTRACE_FORMAT_NTRACE);
    /* InstStallOrOverflow: write 1 to clear; cleared when enabling. */
    if (!(val & R_TR_TE_CONTROL_INST_STALL_OR_OVERFLOW_MASK) &&
        !(!was_enabled && (val & R_TR_TE_CONTROL_ENABLE_MASK))) {
        nc |= s->control & R_TR_TE_CONTROL_INST_STALL_OR_OVERFLOW_MASK;
    }
    s->control = nc;
    enc_schedule_apply(s);
}

static void enc_write_features(RVTraceEncoderState *s, uint32_t val)
{
    uint32_t mask = R_TR_TE_INST_FEATURES_EN_IMPLICIT_RETURN_MASK |
                    R_TR_TE_INST_FEATURES_IMPLICIT_RETURN_MODE_MASK |
                    R_TR_TE_INST_FEATURES_EN_REPEATED_HISTORY_MASK |
                    R_TR_TE_INST_FEATURES_EN_ALL_JUMPS_MASK |
                    R_TR_TE_INST_FEATURES_EXTEND_ADDR_MSB_MASK |
                    R_TR_TE_INST_FEATURES_SRC_ID_MASK;
    uint32_t nv = val & mask;

    nv = FIELD_DP32(nv, TR_TE_INST_FEATURES, SRC_BITS,
                    MIN(FIELD_EX32(val, TR_TE_INST_FEATURES, SRC_BITS),
                        NT_LIMIT_MAX_SRC));
    s->inst_features = nv;
}

static uint64_t enc_read(void *opaque, hwaddr addr, unsigned size)
{
    RVTraceEncoderState *s = opaque;
    uint32_t v = 0;

    switch (addr) {
    case A_TR_TE_CONTROL:
        v = s->control;
        if (!qatomic_read(&s->pending) && !qatomic_read(&s->stall_len)) {
            v |= R_TR_TE_CONTROL_EMPTY_MASK;
        }
        break;
    case A_TR_IMPL:
        v = enc_impl();
        break;
    case A_TR_TE_INST_FEATURES:
        v = s->inst_features;
        break;
    case A_TR_TS_CONTROL:
        v = s->ts.control;
        break;
    case A_TR_TS_COUNTER_LOW:
    case A_TR_TS_COUNTER_HIGH:
        if (FIELD_EX32(s->ts.control, TR_TS_CONTROL, MODE) ==
            RVTRACE_TS_MODE_SHARED) {
            uint64_t ts = rvtrace_sink_timestamp(s->output);

            v = addr == A_TR_TS_COUNTER_LOW ? (uint32_t)ts : ts >> 32;
        }
        break;
    default:
        /* Filters, comparators, triggers and data trace: not implemented. */
        break;
    }
    if (!(s->control & R_TR_TE_CONTROL_ACTIVE_MASK) &&
        addr != A_TR_TE_CONTROL) {
        v = 0;
    }
    trace_rvtrace_encoder_read(s->port, addr, v);
    return v;
}

static void enc_write(void *opaque, hwaddr addr, uint64_t val64, unsigned size)
{
    RVTraceEncoderState *s = opaque;
    uint32_t val = val64;

    trace_rvtrace_encoder_write(s->port, addr, val);
    if (!(s->control & R_TR_TE_CONTROL_ACTIVE_MASK) &&
        addr != A_TR_TE_CONTROL) {
        return;
    }
    switch (addr) {
    case A_TR_TE_CONTROL:
        enc_write_control(s, val);
        break;
    case A_TR_TE_INST_FEATURES:
        enc_write_features(s, val);
        break;
    case A_TR_TS_CONTROL:
        rvtrace_ts_write(&s->ts, val, false, true, true);
        break;
    default:
        /* Unimplemented registers ignore writes (WARL 0). */
        break;
    }
}

static const MemoryRegionOps enc_ops = {
    .read = enc_read,
    .write = enc_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

static void enc_reset(DeviceState *dev)
{
    RVTraceEncoderState *s = RVTRACE_ENCODER(dev);

    s->control = 0;
    s->inst_features = 0;
    rvtrace_ts_reset(&s->ts);
    s->tracing = false;
    s->lost = false;
    s->pending = false;
    s->stall_len = 0;
    if (s->cpu) {
        enc_env(s)->trace_ingress = 0;
    }
}

static void enc_realize(DeviceState *dev, Error **errp)
{
    RVTraceEncoderState *s = RVTRACE_ENCODER(dev);

    if (!s->cpu) {
        error_setg(errp, "rvtrace-encoder: 'cpu' link not set");
        return;
    }
    if (s->icnt_bits < 4 || s->icnt_bits > NT_LIMIT_MAX_ICNT) {
        error_setg(errp, "rvtrace-encoder: icnt-bits must be 4..%d",
                   NT_LIMIT_MAX_ICNT);
        return;
    }
    if (s->hist_bits < 3 || s->hist_bits > NT_LIMIT_MAX_HIST) {
        error_setg(errp, "rvtrace-encoder: hist-bits must be 3..%d",
                   NT_LIMIT_MAX_HIST);
        return;
    }
    if (!s->output || !object_dynamic_cast(s->output, TYPE_RVTRACE_SINK_IF)) {
        error_setg(errp, "rvtrace-encoder: 'output' must link a funnel or sink");
        return;
    }
    /* Resolved once: messages are pushed on the hot path. */
    s->out_if = RVTRACE_SINK_IF(s->output);
    s->out_k = RVTRACE_SINK_IF_GET_CLASS(s->output);
    s->env = &RISCV_CPU(s->cpu)->env;
    s->env->trace_encoder = s;
    s->env->trace_icnt_max = MAKE_64BIT_MASK(0, s->icnt_bits);
    s->env->trace_hist_full = 1u << (s->hist_bits - 1);
    memory_region_init_io(&s->mmio, OBJECT(dev), &enc_ops, s,
                          TYPE_RVTRACE_ENCODER, RVTRACE_REG_SIZE);
    sysbus_init_mmio(SYS_BUS_DEVICE(dev), &s->mmio);
    qemu_add_vm_change_state_handler(enc_vm_state_change, s);
}

static const Property enc_properties[] = {
    DEFINE_PROP_LINK("cpu", RVTraceEncoderState, cpu, TYPE_RISCV_CPU, Object *),
    DEFINE_PROP_LINK("output", RVTraceEncoderState, output, TYPE_DEVICE,
                     Object *),
    DEFINE_PROP_UINT32("port", RVTraceEncoderState, port, 0),
    DEFINE_PROP_UINT32("icnt-bits", RVTraceEncoderState, icnt_bits, 16),
    DEFINE_PROP_UINT32("hist-bits", RVTraceEncoderState, hist_bits, 32),
};

static const VMStateDescription vmstate_enc = {
    .name = TYPE_RVTRACE_ENCODER,
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(control, RVTraceEncoderState),
        VMSTATE_UINT32(inst_features, RVTraceEncoderState),
        VMSTATE_STRUCT(ts, RVTraceEncoderState, 1, vmstate_rvtrace_ts,
                       RVTraceTimestamp),
        VMSTATE_BOOL(tracing, RVTraceEncoderState),
        VMSTATE_BOOL(lost, RVTraceEncoderState),
        VMSTATE_BOOL(need_sync, RVTraceEncoderState),
        VMSTATE_UINT8(sync_reason, RVTraceEncoderState),
        VMSTATE_UINT64(last_addr, RVTraceEncoderState),
        VMSTATE_UINT64(last_ts, RVTraceEncoderState),
        VMSTATE_UINT64(sync_count, RVTraceEncoderState),
        VMSTATE_UINT32(priv, RVTraceEncoderState),
        VMSTATE_UINT32(rep_hist, RVTraceEncoderState),
        VMSTATE_UINT32(hrepeat, RVTraceEncoderState),
        VMSTATE_BOOL(rep_valid, RVTraceEncoderState),
        VMSTATE_UINT32(bcnt, RVTraceEncoderState),
        VMSTATE_UINT64_ARRAY(stack, RVTraceEncoderState, RVTRACE_CALL_STACK),
        VMSTATE_UINT32(stack_depth, RVTraceEncoderState),
        VMSTATE_UINT32(call_count, RVTraceEncoderState),
        VMSTATE_END_OF_LIST()
    }
};

static void enc_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);

    dc->realize = enc_realize;
    device_class_set_legacy_reset(dc, enc_reset);
    dc->vmsd = &vmstate_enc;
    device_class_set_props(dc, enc_properties);
    dc->user_creatable = false;
}

static const TypeInfo enc_info = {
    .name = TYPE_RVTRACE_ENCODER,
    .parent = TYPE_SYS_BUS_DEVICE,
    .instance_size = sizeof(RVTraceEncoderState),
    .class_init = enc_class_init,
};

static void enc_register_types(void)
{
    type_register_static(&enc_info);
}

type_init(enc_register_types)
