/*
 * RISC-V trace encoder (N-Trace 1.0, or E-Trace 2.0 instruction trace when
 * trTeFormat is 0, with the Trace Control Interface 1.0 encoder registers),
 * one per hart, fed by the TCG ingress port (target/riscv/trace_ingress.h).
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
#include "qemu/bswap.h"
#include "qemu/main-loop.h"
#include "hw/qdev-properties.h"
#include "hw/core/cpu.h"
#include "migration/vmstate.h"
#include "system/runstate.h"
#include "system/cpu-timers.h"
#include "qemu/timer.h"
#include "exec/tb-flush.h"
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
    unsigned len;            /* complete bytes in b */
    uint64_t acc;            /* MDO bits not yet in a byte (fewer than 6) */
    unsigned nacc;
} NtMsg;

#define NT_MSEO_END_FIELD 0x1
#define NT_MSEO_END_MSG   0x3
#define NT_MDO_BITS       6

/* Append the @n (at most 32) low bits of @v, which has no others set. */
static inline __attribute__((always_inline)) void nt_put(NtMsg *m, unsigned n,
                                                        uint64_t v)
{
    m->acc |= v << m->nacc;
    m->nacc += n;
    while (m->nacc >= NT_MDO_BITS) {
        m->b[m->len++] = (m->acc & MAKE_64BIT_MASK(0, NT_MDO_BITS)) << 2;
        m->acc >>= NT_MDO_BITS;
        m->nacc -= NT_MDO_BITS;
    }
}

static inline __attribute__((always_inline)) void nt_bits(NtMsg *m, unsigned n,
                                                         uint64_t v)
{
    if (n == 0) {
        return;
    }
    v &= MAKE_64BIT_MASK(0, n);
    while (n > 32) {
        nt_put(m, 32, v & MAKE_64BIT_MASK(0, 32));
        v >>= 32;
        n -= 32;
    }
    nt_put(m, n, v);
}

/* Complete the current byte (if started). */
static inline void nt_pad(NtMsg *m)
{
    if (m->nacc) {
        m->b[m->len++] = m->acc << 2;
        m->acc = 0;
        m->nacc = 0;
    }
}

static inline __attribute__((always_inline)) void nt_close_field(NtMsg *m)
{
    nt_pad(m);
    m->b[m->len - 1] |= NT_MSEO_END_FIELD;
}

static inline __attribute__((always_inline)) void nt_var(NtMsg *m, uint64_t v)
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
    for (k = NT_MDO_BITS - m->nacc; k < w; k += NT_MDO_BITS) {
        if ((sextract64(a, 0, k) & MAKE_64BIT_MASK(0, w)) == a) {
            break;
        }
    }
    nt_bits(m, MIN(k, w), a);
    nt_close_field(m);
}

/* ------------------------------------------------------------ encoder core */

/*
 * QEMU builds with -ftrivial-auto-var-init=zero; the message path's field
 * arrays and message buffers are filled before use, and clearing them for
 * every message would cost more than building it.
 */
#if __has_attribute(uninitialized)
#define ENC_NOINIT __attribute__((uninitialized))
#else
#define ENC_NOINIT
#endif

#define ENC_MAX_HREPEAT MAKE_64BIT_MASK(0, NT_LIMIT_MAX_HREPEAT)
#define ENC_MAX_BCNT    MAKE_64BIT_MASK(0, NT_LIMIT_MAX_BCNT)
/* ImplicitReturnMode=2 compares this many low address bits. */
#define ENC_PARTIAL_RET_BITS 16

static unsigned enc_inst_mode(RVTraceEncoderState *s)
{
    return FIELD_EX32(s->control, trTeControl, InstMode);
}

/* E-Trace needs every branch outcome: its ingress runs as for HTM. */
static bool enc_htm(RVTraceEncoderState *s)
{
    return s->etrace || enc_inst_mode(s) == TCI_INSTMODE_HTM;
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

/* PROCESS = {CONTEXT, V, PRV[1:0], FORMAT[1:0]} (N-Trace 1.0 Ownership). */
static uint64_t enc_process(CPURISCVState *env, unsigned format,
                            uint64_t context)
{
    return format | ((env->priv & 3) << 2) |
           ((env->virt_enabled ? 1 : 0) << 4) | (context << 5);
}

static bool enc_stall_ena(RVTraceEncoderState *s)
{
    return FIELD_EX32(s->control, trTeControl, InstStallEna);
}

/*
 * Hand the FIFO to the funnel/sink; true when it is empty afterwards. What
 * was not taken stays at the front of the FIFO.
 */
static bool enc_drain(RVTraceEncoderState *s)
{
    unsigned n;

    if (!s->fifo_len) {
        return true;
    }
    n = s->out_k->push(s->out_if, s->port, s->fifo, s->fifo_len);
    trace_rvtrace_encoder_drain(s->port, s->fifo_len, n);
    if (n == s->fifo_len) {
        qatomic_set(&s->fifo_len, 0);
        return true;
    }
    memmove(s->fifo, s->fifo + n, s->fifo_len - n);
    qatomic_set(&s->fifo_len, s->fifo_len - n);
    return false;
}

static void enc_lose(RVTraceEncoderState *s);
static void enc_batch_run(RVTraceEncoderState *s);
static void et_cf(RVTraceEncoderState *s, CPURISCVState *env, uint64_t succ,
                  uint64_t next, unsigned itype);
static void et_trap(RVTraceEncoderState *s, CPURISCVState *env,
                    target_ulong epc, target_ulong handler, bool interrupt);
static void et_fixup(RVTraceEncoderState *s, CPURISCVState *env,
                     target_ulong next);
static void enc_batch_arm(RVTraceEncoderState *s);

/*
 * InstStallEna=1: the hart stalls until the sink takes the FIFO. This runs
 * on the traced hart between translation blocks, so the hart executes
 * nothing meanwhile; the BQL is released while waiting so other harts
 * (which may drain the sink) and devices keep running.
 */
static void enc_stall_work(CPUState *cs, run_on_cpu_data data)
{
    RVTraceEncoderState *s = data.host_ptr;

    enc_batch_run(s);
    trace_rvtrace_encoder_stall(s->port, s->fifo_len);
    while (!enc_drain(s)) {
        if (!enc_stall_ena(s) || !(s->control & R_trTeControl_Active_MASK)) {
            /* Stalling switched off: what is held is lost. */
            qatomic_set(&s->fifo_len, 0);
            enc_lose(s);
            break;
        }
        if (qatomic_read(&cs->stop) || cs->stopped) {
            /* The VM is pausing: the next message retries. */
            break;
        }
        bql_unlock();
        g_usleep(100);
        bql_lock();
    }
    s->stall_queued = false;
    enc_batch_arm(s);
}

static void enc_request_stall(RVTraceEncoderState *s)
{
    s->control = FIELD_DP32(s->control, trTeControl,
                            InstStallOrOverflow, 1);
    if (!s->stall_queued) {
        s->stall_queued = true;
        async_run_on_cpu(CPU(s->cpu), enc_stall_work, RUN_ON_CPU_HOST_PTR(s));
    }
}

/*
 * The FIFO could not be handed on in full: with InstStallEna the hart
 * stalls until it is; otherwise what the sink refused is lost.
 */
static void enc_drain_failed(RVTraceEncoderState *s)
{
    /*
     * An AMB that refuses for a translation fault or a full stop-on-full
     * buffer would never take the data while the hart stalls (the LAMBI
     * that fixes it is taken by the hart): drop (README, "Self-hosted
     * trace", STEN).
     */
    if (enc_stall_ena(s) && !(s->sh_owner && s->sh_hard_refuse)) {
        enc_request_stall(s);
    } else {
        qatomic_set(&s->fifo_len, 0);
        enc_lose(s);
    }
}

/* Queue a finished message; false when it had to be dropped. */
static bool enc_output(RVTraceEncoderState *s, NtMsg *m)
{
    trace_rvtrace_encoder_msg(s->port, m->b[0] >> 2, m->len);
    if (unlikely(s->fifo_len + m->len > RVTRACE_FIFO_SIZE) && !enc_drain(s)) {
        enc_drain_failed(s);
        if (s->lost || s->fifo_len + m->len >
                         RVTRACE_FIFO_SIZE + RVTRACE_FIFO_STALL_ROOM) {
            return false;
        }
    }
    /* A fixed-size copy (the FIFO has the slack) is a few vector moves. */
    memcpy(s->fifo + s->fifo_len, m->b, sizeof(m->b));
    qatomic_set(&s->fifo_len, s->fifo_len + m->len);
    return true;
}

/* Tracing stopped or the hart idles: hand on what the FIFO holds. */
static void enc_flush(RVTraceEncoderState *s)
{
    if (!enc_drain(s)) {
        enc_drain_failed(s);
    }
}

static void enc_lose(RVTraceEncoderState *s)
{
    /* Message dropped: report the gap with Error + SYNC=7 when possible. */
    s->lost = true;
    s->need_sync = true;
    s->sync_reason = NT_SYNC_FIFO_OVERRUN;
    s->control = FIELD_DP32(s->control, trTeControl,
                            InstStallOrOverflow, 1);
}

static bool enc_is_sync_tcode(unsigned tcode)
{
    return tcode == NT_TCODE_ProgTraceSync ||
           tcode == NT_TCODE_DirectBranchSync ||
           tcode == NT_TCODE_IndirectBranchSync ||
           tcode == NT_TCODE_IndirectBranchHistSync;
}

static void enc_send(RVTraceEncoderState *s, unsigned tcode, uint64_t *f);

static void enc_flush_repeats_slow(RVTraceEncoderState *s, unsigned tcode,
                                   uint64_t rcode)
{
    uint64_t f[NT_FLD_COUNT];

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

/* Pending RepeatBranch / repeated-HIST counts go out before other messages. */
static inline void enc_flush_repeats(RVTraceEncoderState *s, unsigned tcode,
                                     uint64_t rcode)
{
    if (unlikely(s->bcnt || s->hrepeat)) {
        enc_flush_repeats_slow(s, tcode, rcode);
    }
}

/*
 * Error message (ETYPE 0, program trace lost) reporting a gap; it goes out
 * as soon as there is room, before the next synchronizing message or as the
 * last message when tracing stops (N-Trace 1.0 "Error Message").
 */
static bool enc_error(RVTraceEncoderState *s)
{
    unsigned srcbits = FIELD_EX32(s->inst_features, trTeInstFeatures, SrcBits);
    NtMsg e = { .len = 0, .acc = 0, .nacc = 0 };

    nt_bits(&e, 6, NT_TCODE_Error);
    if (srcbits && !FIELD_EX32(s->control, trTeControl, InhibitSrc)) {
        nt_bits(&e, srcbits,
                FIELD_EX32(s->inst_features, trTeInstFeatures, SrcID));
    }
    nt_bits(&e, 4, NT_ETYPE_FIFO_OVERRUN);
    nt_var(&e, NT_ECODE_PROGRAM_LOST);
    e.b[e.len - 1] |= NT_MSEO_END_MSG;
    s->lost = false;
    if (!enc_output(s, &e)) {
        s->lost = true;
        return false;
    }
    return true;
}

/*
 * Build and send one message; @f holds field values indexed by NT_FLD_*.
 * Only the fields of @tcode's table row are read (a conditional field only
 * when its condition holds), so callers on the hot path set just those.
 */
static void enc_send(RVTraceEncoderState *s, unsigned tcode, uint64_t *f)
{
    const NtFieldRef *r = nt_msg_fields(tcode);
    bool extend = enc_feature(s, R_trTeInstFeatures_ExtendAddrMSB_MASK);
    unsigned srcbits = FIELD_EX32(s->inst_features, trTeInstFeatures, SrcBits);
    bool sync = enc_is_sync_tcode(tcode);
    bool repeatable = !enc_htm(s) &&
        enc_feature(s, R_trTeInstFeatures_EnRepeatedHistory_MASK) &&
        (tcode == NT_TCODE_DirectBranch || tcode == NT_TCODE_IndirectBranch);
    NtMsg m ENC_NOINIT;

    enc_flush_repeats(s, tcode,
                      tcode == NT_TCODE_ResourceFull ? f[NT_FLD_RCODE] : 0);
    if (s->lost) {
        /* Only a synchronizing message may follow the Error message. */
        if (!sync || !enc_error(s)) {
            return;
        }
    }

    m.len = 0;
    m.acc = 0;
    m.nacc = 0;
    nt_bits(&m, 6, tcode);
    if (srcbits && !FIELD_EX32(s->control, trTeControl, InhibitSrc)) {
        nt_bits(&m, srcbits,
                FIELD_EX32(s->inst_features, trTeInstFeatures, SrcID));
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
    nt_pad(&m);

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

    if (FIELD_EX32(s->ts.control, trTsControl, Enable)) {
        /*
         * Absolute TSTAMP in synchronizing messages, relative otherwise: the
         * shared timestamp, or the hart's own cycles (Internal Core).
         */
        uint64_t now =
            FIELD_EX32(s->ts.control, trTsControl, Mode) == TCI_TSMODE_CORE ?
            rvtrace_ts_value(&s->ts) :
            s->out_k->timestamp ? s->out_k->timestamp(s->out_if) : 0;

        nt_var(&m, sync ? now : now - s->last_ts);
        s->last_ts = now;
    }
    m.b[m.len - 1] |= NT_MSEO_END_MSG;

    if (!enc_output(s, &m)) {
        enc_lose(s);
        return;
    }
    if (FIELD_EX32(s->control, trTeControl, InstSyncMode) ==
        TCI_SYNCMODE_MESSAGES) {
        s->sync_count++;
    }
}

/* The hart's clock cycles as the model's mcycle counts them. */
static uint64_t enc_hart_cycles(void)
{
    return rvtrace_hart_cycles();
}

/*
 * trTeInstSyncMode/trTeInstSyncMax (TCI 1.0): after 2^(max+4) messages,
 * hart cycles or halfwords the next message is a synchronizing one.
 */
static inline void enc_check_periodic(RVTraceEncoderState *s)
{
    unsigned max = FIELD_EX32(s->control, trTeControl, InstSyncMax);
    uint64_t n;

    switch (FIELD_EX32(s->control, trTeControl, InstSyncMode)) {
    case TCI_SYNCMODE_MESSAGES:
    case TCI_SYNCMODE_HALFWORDS:
        n = s->sync_count;
        break;
    case TCI_SYNCMODE_CYCLES:
        n = enc_hart_cycles() - s->sync_cycles;
        break;
    default:
        return;
    }
    if (n >= (1ULL << (max + 4)) && !s->need_sync) {
        s->need_sync = true;
        s->sync_reason = NT_SYNC_PERIODIC;
    }
}

static void enc_send_process(RVTraceEncoderState *s, uint64_t process)
{
    uint64_t f[NT_FLD_COUNT] = { 0 };

    f[NT_FLD_PROCESS] = process;
    enc_send(s, NT_TCODE_Ownership, f);
}

/*
 * Ownership messages (trTeContext). After a synchronizing message and when
 * scontext or hcontext is written (@context): the context values, hcontext
 * first when the hart has H (mcontext is hcontext then), and scontext when
 * the hart has Sdtrig; otherwise V/PRV when they changed (trap, trap return).
 */
static void enc_ownership(RVTraceEncoderState *s, CPURISCVState *env,
                          bool context)
{
    uint32_t p = enc_process(env, NT_PROCESS_FORMAT_PRIV, 0);
    bool changed = p != s->priv;

    if (s->etrace) {
        /* E-Trace: nocontext_p; the privilege is in every format 3 packet. */
        return;
    }

    s->priv = p;
    if (!FIELD_EX32(s->control, trTeControl, Context)) {
        return;
    }
    if (context && riscv_cpu_cfg(env)->debug) {
        if (riscv_has_ext(env, RVH)) {
            enc_send_process(s, enc_process(env, NT_PROCESS_FORMAT_HCONTEXT,
                                            env->mcontext));
        }
        if (riscv_has_ext(env, RVS)) {
            enc_send_process(s, enc_process(env, NT_PROCESS_FORMAT_SCONTEXT,
                                            env->scontext));
            return;
        }
    }
    if (context || changed) {
        enc_send_process(s, p);
    }
}

/* An instruction wrote scontext or hcontext (Sdtrig CSRs). */
void riscv_trace_context(CPURISCVState *env)
{
    RVTraceEncoderState *s = env->trace_encoder;

    if (!s) {
        return;
    }
    enc_batch_run(s);
    if (s->tracing && !s->filtered) {
        enc_ownership(s, env, true);
    }
    enc_batch_arm(s);
}

/* A synchronizing message fully resets the encoder state (N-Trace 1.0). */
static void enc_after_sync(RVTraceEncoderState *s, CPURISCVState *env,
                           uint64_t addr)
{
    s->need_sync = false;
    s->sync_count = 0;
    s->sync_cycles = enc_hart_cycles();
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
    uint64_t f[NT_FLD_COUNT] ENC_NOINIT;   /* only its fields are read */

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
    uint64_t n = s->icnt;

    s->icnt = 0;
    if (FIELD_EX32(s->control, trTeControl, InstSyncMode) ==
        TCI_SYNCMODE_HALFWORDS) {
        s->sync_count += n;
    }
    return n;
}

/*
 * An ingress report: the instructions up to (not including) @end have
 * retired. I-CNT comes from the inline state (trace_icnt_k in cpu.h); a
 * counter past its maximum goes out in ResourceFull messages of the maximum
 * value, the rest stays for the next message (the decoder adds them up,
 * N-Trace 1.0 "ResourceFull Message").
 */
static void enc_enter(RVTraceEncoderState *s, uint64_t end)
{
    s->icnt = (s->env->trace_icnt_k + end) >> 1;
    while (s->icnt > s->icnt_max) {
        s->icnt -= s->icnt_max;
        if (FIELD_EX32(s->control, trTeControl, InstSyncMode) ==
            TCI_SYNCMODE_HALFWORDS) {
            s->sync_count += s->icnt_max;
        }
        enc_resource_full(s, NT_RCODE_ICNT_FULL, s->icnt_max);
    }
}

/* End of an ingress report: the next sequential run starts at @next. */
static void enc_leave(RVTraceEncoderState *s, uint64_t next)
{
    s->env->trace_icnt_k = 2 * s->icnt - next;
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
/*
 * ResourceFull with a full HIST is the most frequent HTM message: built
 * directly when nothing else is due (no gap, no pending repeats, no
 * TSTAMP); enc_realize checks the table row has the layout used here.
 */
static bool enc_send_hist_full_fast(RVTraceEncoderState *s, uint32_t hist)
{
    unsigned srcbits = FIELD_EX32(s->inst_features, trTeInstFeatures,
                                  SrcBits);
    NtMsg m ENC_NOINIT;

    if (unlikely(s->lost || s->bcnt || s->hrepeat ||
                 FIELD_EX32(s->ts.control, trTsControl, Enable))) {
        return false;
    }
    m.len = 0;
    m.acc = 0;
    m.nacc = 0;
    nt_bits(&m, 6, NT_TCODE_ResourceFull);
    if (srcbits && !FIELD_EX32(s->control, trTeControl, InhibitSrc)) {
        nt_bits(&m, srcbits,
                FIELD_EX32(s->inst_features, trTeInstFeatures, SrcID));
    }
    nt_bits(&m, nt_field_info[NT_FLD_RCODE].bits, NT_RCODE_HIST_FULL);
    nt_var(&m, hist);
    m.b[m.len - 1] |= NT_MSEO_END_MSG;
    s->bcnt_valid = false;
    if (!enc_output(s, &m)) {
        enc_lose(s);
        return true;
    }
    if (FIELD_EX32(s->control, trTeControl, InstSyncMode) ==
        TCI_SYNCMODE_MESSAGES) {
        s->sync_count++;
    }
    return true;
}

static void enc_hist_full(RVTraceEncoderState *s)
{
    if (enc_feature(s, R_trTeInstFeatures_EnRepeatedHistory_MASK) &&
        s->rep_valid && s->env->trace_hist == s->rep_hist) {
        if (++s->hrepeat == ENC_MAX_HREPEAT) {
            enc_flush_repeats(s, NT_TCODE_ProgTraceSync, 0);
        }
    } else {
        if (!enc_send_hist_full_fast(s, s->env->trace_hist)) {
            enc_flush_repeats(s, NT_TCODE_ProgTraceSync, 0);
            enc_resource_full(s, NT_RCODE_HIST_FULL, s->env->trace_hist);
        }
        s->rep_hist = s->env->trace_hist;
        s->rep_valid = true;
    }
    s->env->trace_hist = 1;
}

/* Taken direct branch in BTM (or a direct jump with EnAllJumps). */
static void enc_direct(RVTraceEncoderState *s, CPURISCVState *env,
                       uint64_t next)
{
    uint64_t f[NT_FLD_COUNT] ENC_NOINIT;   /* only its fields are read */

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
    uint64_t f[NT_FLD_COUNT] ENC_NOINIT;   /* only its fields are read */
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
    return enc_feature(s, R_trTeInstFeatures_EnImplicitReturn_MASK);
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
    unsigned mode = FIELD_EX32(s->inst_features, trTeInstFeatures,
                               ImplicitReturnMode);
    uint64_t expect;

    if (!enc_implicit_return(s) || s->stack_depth == 0) {
        return false;
    }
    expect = s->stack[--s->stack_depth];
    if (s->call_count) {
        s->call_count--;
    }
    switch (mode) {
    case TCI_IRETMODE_COUNT:
        return true;
    case TCI_IRETMODE_PARTIAL:
        return extract64(expect ^ next, 1, ENC_PARTIAL_RET_BITS) == 0;
    default:
        return expect == next;
    }
}

/*
 * Comparators (TCI 1.0 "Trace Encoder Comparator Registers"). Each
 * compares an ingress-port input, iaddr (the instruction's address) or
 * context (this model's context signal: scontext, the value Ownership
 * FORMAT 2 reports), unsigned and in the hart's XLEN bits, with its
 * primary and secondary match values; tval and daddr read back as iaddr.
 * A filter using comparators is evaluated per instruction: while tracing
 * with one, every translation block starts with riscv_trace_block and
 * holds instructions whose address comparisons all give the same results
 * (riscv_trace_addr_class), and a block ends after an instruction whose
 * latching comparator's secondary result is true, so that checking where
 * blocks start decides every instruction. Context changes only by a CSR
 * write, which ends its block. The settings are taken when tracing
 * starts (writes while tracing take effect at the next start).
 */
#define ENC_COMP_CONTROL_MASK \
    (R_trTeComp0Control_PInput_MASK | R_trTeComp0Control_SInput_MASK | \
     R_trTeComp0Control_PFunction_MASK | R_trTeComp0Control_SFunction_MASK | \
     R_trTeComp0Control_MatchMode_MASK)

static uint64_t enc_comp_input(CPURISCVState *env, unsigned input, uint64_t pc)
{
    return input == TCI_COMPINPUT_CONTEXT ? env->scontext : pc;
}

static bool enc_comp_func(unsigned f, uint64_t in, uint64_t match)
{
    switch (f) {
    case TCI_COMPFUNC_EQ:
        return in == match;
    case TCI_COMPFUNC_NE:
        return in != match;
    case TCI_COMPFUNC_LT:
        return in < match;
    case TCI_COMPFUNC_LE:
        return in <= match;
    case TCI_COMPFUNC_GT:
        return in > match;
    case TCI_COMPFUNC_GE:
        return in >= match;
    case TCI_COMPFUNC_TRUE:
        return true;
    default:
        return false;
    }
}

/*
 * Comparator @j's primary (@secondary false) or secondary result for the
 * instruction at @pc. SFunction 6 makes SMatch the mask of the primary
 * comparison (and the secondary result true).
 */
static bool enc_comp_side(RVTraceEncoderState *s, CPURISCVState *env,
                          unsigned j, bool secondary, uint64_t pc)
{
    const RVTraceComp *c = &s->comp_act[j];
    uint64_t width = env->xl == MXL_RV32 ? UINT32_MAX : UINT64_MAX;
    unsigned sf = FIELD_EX32(c->control, trTeComp0Control, SFunction);
    uint64_t in, match;

    if (secondary) {
        if (sf == TCI_COMPFUNC_FALSE_OR_MASK) {
            return true;
        }
        in = enc_comp_input(env, FIELD_EX32(c->control, trTeComp0Control,
                                            SInput), pc);
        return enc_comp_func(sf, in & width, c->smatch & width);
    }
    in = enc_comp_input(env, FIELD_EX32(c->control, trTeComp0Control, PInput),
                        pc) & width;
    match = c->pmatch & width;
    if (sf == TCI_COMPFUNC_FALSE_OR_MASK) {
        in &= c->smatch;
        match &= c->smatch;
    }
    return enc_comp_func(FIELD_EX32(c->control, trTeComp0Control, PFunction),
                         in, match);
}

/*
 * Comparator @j's output for the instruction at @pc. Match mode 3 is set
 * by a primary match and stays until the instruction after a secondary
 * match: the latch and the secondary result of the last block that
 * started (enc_comp_step) give it, unchanged here.
 */
static bool enc_comp_out(RVTraceEncoderState *s, CPURISCVState *env,
                         unsigned j, uint64_t pc)
{
    bool p = enc_comp_side(s, env, j, false, pc);

    switch (FIELD_EX32(s->comp_act[j].control, trTeComp0Control, MatchMode)) {
    case TCI_COMPMODE_P:
        return p;
    case TCI_COMPMODE_P_AND_S:
        return p && enc_comp_side(s, env, j, true, pc);
    case TCI_COMPMODE_NOT_P_AND_S:
        return !(p && enc_comp_side(s, env, j, true, pc));
    default:
        return p || (s->comp_latch[j] && !s->comp_s_last[j]);
    }
}

/* A block starting at @pc runs: the latching comparators take it in. */
static void enc_comp_step(RVTraceEncoderState *s, CPURISCVState *env,
                          uint64_t pc)
{
    unsigned j;

    for (j = 0; j < RVTRACE_NUM_COMPS; j++) {
        if (FIELD_EX32(s->comp_act[j].control, trTeComp0Control, MatchMode) ==
            TCI_COMPMODE_LATCH) {
            s->comp_latch[j] = enc_comp_out(s, env, j, pc);
            s->comp_s_last[j] = enc_comp_side(s, env, j, true, pc);
        }
    }
}

/* Whether the comparators filter @c uses all match at @pc. */
static bool enc_filter_comps(RVTraceEncoderState *s, CPURISCVState *env,
                             uint32_t c, uint64_t pc)
{
    if (!s->comp_cs) {
        /* Comparators are taken into use when tracing starts. */
        return true;
    }
    if (FIELD_EX32(c, trTeFilter0Control, MatchComp1) &&
        !enc_comp_out(s, env, FIELD_EX32(c, trTeFilter0Control, Comp1), pc)) {
        return false;
    }
    if (FIELD_EX32(c, trTeFilter0Control, MatchComp2) &&
        !enc_comp_out(s, env, FIELD_EX32(c, trTeFilter0Control, Comp2), pc)) {
        return false;
    }
    return !FIELD_EX32(c, trTeFilter0Control, MatchComp3) ||
           enc_comp_out(s, env, FIELD_EX32(c, trTeFilter0Control, Comp3), pc);
}

/*
 * trTeInstFilters (TCI 1.0 "Trace Encoder Filter Registers"): with no
 * filter selected every instruction is traced; otherwise an instruction is
 * traced when a selected, enabled filter matches, and a filter matches when
 * all its enabled conditions hold: the hart's privilege (as the ingress
 * port's priv value) is one of trTeFilterMatchChoicePrivilege; with
 * MatchEcause/MatchInterrupt, the hart is inside a trap window (below);
 * with MatchComp1..3 the comparators they select match the instruction at
 * @pc. Privilege and windows change only at traps and trap returns, so
 * that is where qualification is evaluated, and at block starts while a
 * comparator is used. Above the filters, the vendor control
 * trTeVendorControl.NoMmode (tci_regs.def) takes M-mode out of every trace.
 */
static bool enc_qualified(RVTraceEncoderState *s, CPURISCVState *env,
                          uint64_t pc)
{
    unsigned priv = env->priv, i;

    if (s->no_mmode && env->priv == PRV_M) {
        return false;
    }
    if (!s->inst_filters) {
        return true;
    }
    if (env->virt_enabled) {
        priv = env->priv == PRV_U ? TCI_PRIV_VU : TCI_PRIV_VS;
    }
    for (i = 0; i < RVTRACE_NUM_FILTERS; i++) {
        uint32_t c = s->filter_control[i];

        if (!(s->inst_filters & (1u << i)) ||
            !FIELD_EX32(c, trTeFilter0Control, Enable)) {
            continue;
        }
        if (FIELD_EX32(c, trTeFilter0Control, MatchPrivilege) &&
            !(s->filter_match_inst[i] & (1u << priv))) {
            continue;
        }
        if ((c & (R_trTeFilter0Control_MatchEcause_MASK |
                  R_trTeFilter0Control_MatchInterrupt_MASK)) &&
            !s->filter_trap_depth[i]) {
            continue;
        }
        if (!enc_filter_comps(s, env, c, pc)) {
            continue;
        }
        return true;
    }
    return false;
}

/* Qualification can change at traps and trap returns. */
static inline bool enc_filtering(RVTraceEncoderState *s)
{
    return s->inst_filters || s->no_mmode;
}

/*
 * Trap windows of MatchEcause/MatchInterrupt filters: matching starts at a
 * trap whose cause is in trTeFilterMatchChoiceEcause (MatchEcause) and whose
 * kind is an interrupt or an exception as trTeFilterMatchValueInterrupt says
 * (MatchInterrupt), and stops after the return from that trap; traps nested
 * inside the window are counted (saturating, as TCI 1.0 allows) so that only
 * the matching trap's return closes it. The ingress port's ecause is the
 * cause the trap wrote, for exceptions and interrupts alike.
 */
static void enc_filter_trap(RVTraceEncoderState *s, CPURISCVState *env,
                            bool interrupt)
{
    target_ulong cause = env->priv == PRV_M ? env->mcause : env->scause;
    unsigned code = cause & ~((target_ulong)1 << (TARGET_LONG_BITS - 1));
    unsigned i;

    for (i = 0; i < RVTRACE_NUM_FILTERS; i++) {
        uint32_t c = s->filter_control[i];
        bool ecause = FIELD_EX32(c, trTeFilter0Control, MatchEcause);
        bool kind = FIELD_EX32(c, trTeFilter0Control, MatchInterrupt);

        if (!ecause && !kind) {
            continue;
        }
        if (s->filter_trap_depth[i]) {
            if (s->filter_trap_depth[i] < RVTRACE_FILTER_TRAP_DEPTH_MAX) {
                s->filter_trap_depth[i]++;
            }
            continue;
        }
        if (ecause && (code >= 64 || !(s->filter_ecause[i] >> code & 1))) {
            continue;
        }
        if (kind && interrupt != FIELD_EX32(s->filter_match_inst[i],
                                            trTeFilter0MatchInst,
                                            ValueInterrupt)) {
            continue;
        }
        s->filter_trap_depth[i] = 1;
    }
}

/* A trap return retired: it ends the innermost trap of each window. */
static void enc_filter_trap_return(RVTraceEncoderState *s)
{
    unsigned i;

    for (i = 0; i < RVTRACE_NUM_FILTERS; i++) {
        if (s->filter_trap_depth[i]) {
            s->filter_trap_depth[i]--;
        }
    }
}

static void enc_correlation(RVTraceEncoderState *s, unsigned evcode);
static void enc_sync_start(RVTraceEncoderState *s, CPURISCVState *env,
                           uint64_t pc, unsigned reason);

/*
 * Leaving qualified code ends the trace as a disable does: the instructions
 * retired so far (I-CNT taken by enc_enter) in ProgTraceCorrelation with
 * EVCODE=4. Until qualified code is entered again, at a trap or trap
 * return, nothing is reported.
 */
static void enc_filter_pause(RVTraceEncoderState *s)
{
    enc_correlation(s, NT_EVCODE_TRACE_DISABLED);
    s->filtered = true;
}

/* Entering qualified code at @pc: ProgTraceSync with SYNC=5 (trace enable). */
static void enc_filter_resume(RVTraceEncoderState *s, CPURISCVState *env,
                              uint64_t pc)
{
    s->filtered = false;
    enc_sync_start(s, env, pc, NT_SYNC_TRACE_ENABLE);
}

/*
 * MDO groups to bytes: the 6-bit groups of @mdo (at most 8) in bits 7:2
 * of consecutive bytes, MSEO bits 0.
 */
static inline uint64_t nt_mdo_spread(uint64_t mdo)
{
    mdo = (mdo & 0xffffffULL) | ((mdo & 0xffffff000000ULL) << 8);
    mdo = (mdo & 0x00000fff00000fffULL) | ((mdo & 0x00fff00000fff000ULL) << 4);
    mdo = (mdo & 0x003f003f003f003fULL) | ((mdo & 0x0fc00fc00fc00fc0ULL) << 2);
    return mdo << 2;
}

/*
 * A DirectBranch's TCODE and SRC (as enc_send writes them): their MDO
 * bits in @head, how many the result.
 */
static inline unsigned enc_direct_head(RVTraceEncoderState *s, uint64_t *head)
{
    uint32_t features = s->inst_features;
    unsigned srcbits = FIELD_EX32(features, trTeInstFeatures, SrcBits);

    *head = NT_TCODE_DirectBranch;
    if (srcbits && !FIELD_EX32(s->control, trTeControl, InhibitSrc)) {
        *head |= (uint64_t)FIELD_EX32(features, trTeInstFeatures, SrcID) << 6;
        return 6 + srcbits;
    }
    return 6;
}

/*
 * The DirectBranch with @icnt after @head (@hbits bits), I-CNT being the
 * last field: its bytes, LSB first, with the end-of-field MSEO bits on the
 * last one; its length in @len.
 */
static inline uint64_t enc_direct_word(uint64_t head, unsigned hbits,
                                       uint64_t icnt, unsigned *len)
{
    unsigned nbits = hbits + 64 - clz64(icnt | 1);

    *len = DIV_ROUND_UP(nbits, NT_MDO_BITS);
    return nt_mdo_spread(head | icnt << hbits) |
           (uint64_t)NT_MSEO_END_FIELD << 8 * (*len - 1);
}

/*
 * BTM sends one DirectBranch per taken branch, almost every message of a
 * BTM trace. Its usual form (TCODE, optional SRC and I-CNT, no gap, no
 * synchronizing form due, no pending repeat count, no TSTAMP) is packed
 * here in a register and stored to the FIFO at once; the bytes and the
 * encoder state afterwards are those enc_direct gives. @icnt2 is 2 * I-CNT
 * at the branch (trace_icnt_k + the address after it). False, with nothing
 * changed, when another case applies: enc_cf handles it.
 */
static inline bool enc_direct_fast(RVTraceEncoderState *s, uint64_t icnt2,
                                   uint64_t next)
{
    uint64_t icnt = icnt2 >> 1;
    uint64_t head, w, last;
    unsigned hbits, len, sync_mode;

    /*
     * Pending repeat counts go out before any branch message (enc_send),
     * a repeated one included.
     */
    if (unlikely(icnt > s->icnt_max || s->need_sync || s->lost ||
                 s->bcnt || s->hrepeat || enc_htm(s) ||
                 FIELD_EX32(s->ts.control, trTsControl, Enable) ||
                 s->fifo_len + sizeof(w) > RVTRACE_FIFO_SIZE)) {
        return false;
    }
    hbits = enc_direct_head(s, &head);
    w = enc_direct_word(head, hbits, icnt, &len);
    last = 8 * (len - 1);

    if (enc_feature(s, R_trTeInstFeatures_EnRepeatedHistory_MASK)) {
        /* RepeatBranch: the same bytes and target as the last branch. */
        if (s->bcnt_valid && len == s->last_len && next == s->last_target &&
            !((ldq_le_p(s->last_msg) ^ w) & MAKE_64BIT_MASK(0, last + 8))) {
            s->bcnt = 1;
            goto done;
        }
        stq_le_p(s->last_msg, w);
        s->last_len = len;
        s->last_target = next;
        s->bcnt_valid = true;
    } else {
        s->bcnt_valid = false;
    }
    trace_rvtrace_encoder_msg(s->port, NT_TCODE_DirectBranch, len);
    stq_le_p(s->fifo + s->fifo_len, w | (uint64_t)NT_MSEO_END_MSG << last);
    qatomic_set(&s->fifo_len, s->fifo_len + len);
done:
    s->msg_target = next;
    sync_mode = FIELD_EX32(s->control, trTeControl, InstSyncMode);
    if (unlikely(sync_mode != TCI_SYNCMODE_OFF)) {
        /* As enc_take_icnt and enc_send count them. */
        if (sync_mode == TCI_SYNCMODE_HALFWORDS) {
            s->sync_count += icnt;
        } else if (sync_mode == TCI_SYNCMODE_MESSAGES && !s->bcnt) {
            s->sync_count++;
        }
        enc_check_periodic(s);
    }
    s->icnt = 0;
    enc_leave(s, next);
    return true;
}

static __attribute__((noinline)) void enc_cf(RVTraceEncoderState *s,
                                             CPURISCVState *env, uint64_t succ,
                                             uint64_t next, unsigned itype)
{
    bool all_jumps;

    if (s->etrace) {
        et_cf(s, env, succ, next, itype);
        return;
    }
    if (unlikely(s->filtered)) {
        if (itype == NT_ITYPE_TRAP_RETURN) {
            enc_filter_trap_return(s);
            if (enc_qualified(s, env, next)) {
                enc_filter_resume(s, env, next);
            }
        }
        return;
    }
    enc_enter(s, succ);
    if (unlikely(itype == NT_ITYPE_TRAP_RETURN && enc_filtering(s))) {
        enc_filter_trap_return(s);
        if (!enc_qualified(s, env, next)) {
            /* The trap return retired in qualified code: it ends the trace. */
            enc_filter_pause(s);
            return;
        }
    }
    all_jumps = enc_feature(s, R_trTeInstFeatures_EnAllJumps_MASK);

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
    enc_leave(s, next);
}

/*
 * Whether every taken branch gives enc_direct_fast's DirectBranch and
 * nothing in its encoding depends on when it is encoded: no TSTAMP, no
 * periodic synchronization, no repeat counts, no pending gap or sync.
 */
static bool enc_batch_ok(RVTraceEncoderState *s)
{
    return s->tracing && !s->filtered && !s->lost && !s->need_sync &&
           !s->bcnt && !s->hrepeat && !enc_htm(s) &&
           !enc_feature(s, R_trTeInstFeatures_EnRepeatedHistory_MASK) &&
           FIELD_EX32(s->control, trTeControl, InstSyncMode) ==
               TCI_SYNCMODE_OFF &&
           !FIELD_EX32(s->ts.control, trTsControl, Enable);
}

/*
 * The messages of queued branches (enc_batch_run) are looked up, not
 * built: the DirectBranch for each I-CNT that fits in the MDO byte after
 * TCODE and SRC (and the rest of SRC's last byte; at most the table), so
 * that each is at most dtab_len bytes. Rebuilt when TCODE and SRC change.
 */
static void enc_dtab_update(RVTraceEncoderState *s)
{
    uint64_t head, key, i;
    unsigned hbits = enc_direct_head(s, &head), bits, len;

    key = head | (uint64_t)hbits << 32;
    if (likely(key == s->dtab_key)) {
        return;
    }
    s->dtab_key = key;
    s->dtab_len = DIV_ROUND_UP(hbits, NT_MDO_BITS) + 1;
    bits = s->dtab_len * NT_MDO_BITS - hbits;
    s->dtab_max = MIN(MIN(MAKE_64BIT_MASK(0, bits), RVTRACE_DTAB_SIZE - 1),
                      s->icnt_max);
    for (i = 0; i <= s->dtab_max; i++) {
        uint64_t w = enc_direct_word(head, hbits, i, &len);

        s->dtab[i] = w | (uint64_t)NT_MSEO_END_MSG << 8 * (len - 1) |
                     (uint64_t)len << 56;
    }
}

/*
 * What enc_direct_fast does for each of the first queued branches, with
 * their messages from the table; how many it encoded. enc_batch_ok holds
 * and every one finds the room enc_direct_fast wants in the FIFO
 * (enc_batch_arm): it stops at the first I-CNT past the table.
 */
static uint32_t enc_batch_direct(RVTraceEncoderState *s, uint32_t n)
{
    CPURISCVState *env = s->env;
    uint32_t i, fifo_len = s->fifo_len;

    for (i = 0; i < n; i++) {
        uint64_t icnt = env->trace_batch[i].icnt2 >> 1, e;

        if (icnt > s->dtab_max) {
            break;
        }
        e = s->dtab[icnt];
        trace_rvtrace_encoder_msg(s->port, NT_TCODE_DirectBranch, e >> 56);
        stq_le_p(s->fifo + fifo_len, e & MAKE_64BIT_MASK(0, 56));
        fifo_len += e >> 56;
    }
    if (i) {
        qatomic_set(&s->fifo_len, fifo_len);
        s->bcnt_valid = false;
        s->msg_target = env->trace_batch[i - 1].next;
    }
    return i;
}

/*
 * Encode the taken branches translated code queued (trace_batch in cpu.h,
 * translate.c gen_trace_direct_branch), in order, as if each had been
 * reported when it retired. Translated code started the run after each
 * one at 2 * I-CNT 0 (trace_icnt_k = -next), as enc_direct leaves it;
 * should the encoder have left anything else, it is carried over to the
 * next branch and the current run. Every entry to the encoder from the
 * hart starts here, so it sees every instruction retired before it.
 */
static void enc_batch_run(RVTraceEncoderState *s)
{
    CPURISCVState *env = s->env;
    uint32_t i = 0, n = env->trace_batch_n;
    target_ulong k, carry = 0;

    if (likely(!n)) {
        return;
    }
    s->notify_live = false;
    k = env->trace_icnt_k;
    if (enc_batch_ok(s)) {
        enc_dtab_update(s);
        if (s->fifo_len + (n - 1) * s->dtab_len + sizeof(uint64_t) <=
            RVTRACE_FIFO_SIZE) {
            i = enc_batch_direct(s, n);
        }
    }
    /* The rest as ingress reports, each a DirectBranch or what is due. */
    for (; i < n; i++) {
        target_ulong icnt2 = env->trace_batch[i].icnt2 + carry;
        target_ulong next = env->trace_batch[i].next;

        if (!s->tracing) {
            continue;
        }
        if (s->filtered || !enc_direct_fast(s, icnt2, next)) {
            env->trace_icnt_k = icnt2;
            enc_cf(s, env, 0, next, NT_ITYPE_BRANCH_TAKEN);
        }
        carry = env->trace_icnt_k + next;
    }
    qatomic_set(&env->trace_batch_n, 0);
    env->trace_icnt_k = k + carry;
}

/*
 * How many taken branches translated code may queue from now on: none
 * unless enc_batch_ok, and no more than the FIFO takes without handing
 * anything on (each finds the room enc_direct_fast wants), so that the
 * sink sees what it would have seen with one report per branch. A branch
 * whose I-CNT is past the table is handed over at once (translate.c), so
 * it can only be the last one queued.
 */
static void enc_batch_arm(RVTraceEncoderState *s)
{
    uint32_t lim = 0;

    if (enc_batch_ok(s) &&
        s->fifo_len + sizeof(uint64_t) <= RVTRACE_FIFO_SIZE) {
        enc_dtab_update(s);
        lim = MIN(RISCV_TRACE_BATCH,
                  (RVTRACE_FIFO_SIZE - sizeof(uint64_t) - s->fifo_len) /
                  s->dtab_len + 1);
        s->env->trace_batch_icnt_max = 2 * s->dtab_max + 1;
    }
    qatomic_set(&s->env->trace_batch_lim, lim);
}

void riscv_trace_flush(CPURISCVState *env)
{
    RVTraceEncoderState *s = env->trace_encoder;

    if (s) {
        enc_batch_run(s);
        enc_batch_arm(s);
    }
}

void riscv_trace_cf(CPURISCVState *env, target_ulong pc, target_ulong next,
                    uint32_t info)
{
    RVTraceEncoderState *s = env->trace_encoder;
    unsigned itype = info & RISCV_TRACE_INFO_ITYPE_MASK;
    uint64_t succ = pc + 2 * (info >> RISCV_TRACE_INFO_LEN_SHIFT);

    if (!s) {
        return;
    }
    s->notify_live = false;
    enc_batch_run(s);
    if (s->tracing) {
        s->et.cf_len = succ - pc;
        enc_cf(s, env, succ, next, itype);
    }
    enc_batch_arm(s);
}

static void enc_trap(RVTraceEncoderState *s, CPURISCVState *env,
                     target_ulong epc, target_ulong handler, bool interrupt)
{
    if (s->etrace) {
        et_trap(s, env, epc, handler, interrupt);
        return;
    }
    if (unlikely(enc_filtering(s))) {
        enc_filter_trap(s, env, interrupt);
    }
    if (unlikely(s->filtered)) {
        if (enc_qualified(s, env, handler)) {
            enc_filter_resume(s, env, handler);
        }
        return;
    }
    /*
     * An exception's instruction at epc did not retire; an interrupt is
     * taken before the instruction at epc. Either way the run ends at epc.
     */
    enc_enter(s, epc);
    if (unlikely(enc_filtering(s)) && !enc_qualified(s, env, handler)) {
        enc_filter_pause(s);
        return;
    }
    enc_indirect(s, env, handler,
                 interrupt ? NT_BTYPE_INTERRUPT : NT_BTYPE_EXCEPTION);
    enc_ownership(s, env, false);
    enc_check_periodic(s);
    enc_leave(s, handler);
}

void riscv_trace_trap(CPURISCVState *env, target_ulong epc,
                      target_ulong handler, bool interrupt)
{
    RVTraceEncoderState *s = env->trace_encoder;

    if (!s) {
        return;
    }
    s->notify_live = false;
    enc_batch_run(s);
    if (s->tracing) {
        enc_trap(s, env, epc, handler, interrupt);
    }
    enc_batch_arm(s);
}

/*
 * The inline HTM branch path (translate.c gen_trace_branch) to @next found
 * the HIST register full: emit ResourceFull (and any I-CNT overflow).
 */
static void enc_fixup(RVTraceEncoderState *s, CPURISCVState *env,
                      target_ulong next)
{
    if (s->etrace) {
        et_fixup(s, env, next);
        return;
    }
    if (unlikely(s->filtered)) {
        /* Nothing is reported until qualified code is entered again. */
        env->trace_hist = 1;
        return;
    }
    enc_enter(s, next);
    if (env->trace_hist >= env->trace_hist_full) {
        enc_hist_full(s);
    }
    enc_check_periodic(s);
    enc_leave(s, next);
}

void riscv_trace_fixup(CPURISCVState *env, target_ulong next)
{
    RVTraceEncoderState *s = env->trace_encoder;

    if (!s) {
        return;
    }
    s->notify_live = false;
    enc_batch_run(s);
    if (s->tracing) {
        enc_fixup(s, env, next);
    }
    enc_batch_arm(s);
}

/* The hart idles (WFI): its FIFO drains as a hardware one would. */
void riscv_trace_idle(CPURISCVState *env)
{
    RVTraceEncoderState *s = env->trace_encoder;

    if (!s) {
        return;
    }
    enc_batch_run(s);
    if (s->fifo_len && !enc_drain(s)) {
        enc_drain_failed(s);
    }
    enc_batch_arm(s);
}

/* ------------------------------------------------------------------ E-Trace */
/*
 * trTeFormat 0: E-Trace 2.0 instruction trace ("Instruction Trace Encoder
 * Output Packets", payload layouts in hw/riscv/etrace_pkts.def order). The
 * ingress runs as for HTM (every conditional branch's outcome in
 * trace_hist, a report at every uninferable transfer, trap and full HIST);
 * at each report the encoder walks the instructions it covers (from
 * et.pc, I-CNT halfwords, branches by their HIST bit, direct jumps by
 * their target, read with the translation they ran under) and runs the
 * E-Trace algorithm on each retired instruction (a report at a control
 * transfer takes a shortcut that gives the same packets: et_walk_cf_fast):
 *  - the first traced instruction and a trap handler's first instruction
 *    get format 3 subformat 0 / 1 (thaddr 1), with its own branch outcome;
 *  - the instruction after an uninferable discontinuity gets format 1
 *    (branches pending) or 2, held until the next instruction retires so
 *    that updiscon can say a format 3 follows at once;
 *  - a full branch map (31) goes out as format 1 without address;
 *  - before a trap or the end of tracing the last retired instruction is
 *    reported (format 1/2) unless a packet already did; an exception at
 *    the target of an updiscon, or at the first traced instruction, is
 *    format 3/1 with thaddr 0 and the EPC, the handler then format 3/0;
 *  - support packets (format 3/3) when tracing starts, ends (qual_status
 *    ended_rep/ended_ntr, ienable 0 when disabled) and after lost packets
 *    (trace_lost).
 * Parameters: iaddress_width_p 64, iaddress_lsb_p 1, privilege_width_p 3
 * (the ingress port's priv codes), ecause_width_p 6, notime_p, nocontext_p,
 * no return stack or call counter (irdepth 0 bits), no format 0, support
 * packet E=1, N=6, M=2 (all options 0: no implicit return, sequential
 * jumps, implicit exceptions, branch prediction, jump target cache or full
 * addresses; denable, dloss and doptions as the data trace below).
 * Packets are compressed as the spec recommends for the whole packet
 * (trailing bytes equal to the sign extension of the bit before them are
 * dropped, the last byte sign-filled). Encapsulation ("Unformatted Trace &
 * Diagnostic Data Packet Encapsulation for RISC-V"): a header byte {extend
 * 0, flow (0 instruction trace, 1 data trace), length[4:0] = payload
 * bytes}, the SrcID in ceil(trTeSrcBits / 8) bytes unless InhibitSrc, then
 * the payload.
 */
#define ET_IADDR_BITS   64
#define ET_IADDR_LSB    1
#define ET_PRIV_BITS    3
#define ET_ECAUSE_BITS  6
#define ET_MAP_MAX      31
#define ET_QUAL_NO_CHANGE 0
#define ET_QUAL_ENDED_REP 1
#define ET_QUAL_TRACE_LOST 2
#define ET_QUAL_ENDED_NTR 3
/*
 * The encapsulation header's 2-bit flow field tells instruction trace
 * packets (0) from data trace packets (1): the 2-bit message type the data
 * trace chapter suggests for telling trace types from one source apart
 * (project choice; the header's other fields are unchanged).
 */
#define ET_FLOW_SHIFT   5
#define ET_FLOW_INST    0
#define ET_FLOW_DATA    1
/*
 * Data trace parameters: unified loads, stores and atomics, no CSR
 * accesses (dtype_width_p 4, lrid_width_p 0: format 3 bits),
 * data_width_p 64 (size 2 bits), daddress_width_p 64, XOR and differential
 * data compression (diff 2 bits), differential addresses per size.
 */
#define ET_DFMT_BITS    3
#define ET_DFMT_LOAD    0
#define ET_DFMT_STORE   2
#define ET_DFMT_ATOMIC  6
#define ET_DSUBTYPE_BITS 3
#define ET_DSUBTYPE_SC_FAIL 7
#define ET_DSIZE_BITS   2
#define ET_DDIFF_BITS   2
#define ET_DADDR_BITS   64
#define ET_DATA_BITS    64
#define ET_DOPT_NO_DATA 1
#define ET_DOPT_NO_ADDR 2

typedef struct EtPkt {
    uint8_t b[32];
    unsigned nbits;
} EtPkt;

static void et_put(EtPkt *p, unsigned n, uint64_t v)
{
    /* A byte at a time: the address fields are 63 and 64 bits wide. */
    while (n) {
        unsigned bit = p->nbits & 7, take = MIN(8 - bit, n);

        if (!bit) {
            p->b[p->nbits >> 3] = 0;
        }
        p->b[p->nbits >> 3] |= (uint8_t)((v & ((1u << take) - 1)) << bit);
        v >>= take;
        n -= take;
        p->nbits += take;
    }
}

/*
 * Encapsulate and queue a packet; false when it had to be dropped. @flow:
 * ET_FLOW_INST or ET_FLOW_DATA.
 */
static bool et_put_packet(RVTraceEncoderState *s, EtPkt *p, unsigned flow)
{
    unsigned srcbits = FIELD_EX32(s->inst_features, trTeInstFeatures, SrcBits);
    unsigned len = DIV_ROUND_UP(p->nbits, 8), last = (p->nbits - 1) & 7, i;
    NtMsg m ENC_NOINIT;

    /* Sign-fill the last byte, then drop bytes the sign extension restores. */
    if ((p->b[len - 1] >> last) & 1) {
        p->b[len - 1] |= (uint8_t)(0xff << last);
    }
    while (len > 1 && p->b[len - 1] == ((p->b[len - 2] & 0x80) ? 0xff : 0)) {
        len--;
    }
    m.len = 0;
    m.b[m.len++] = len | flow << ET_FLOW_SHIFT;   /* extend 0, flow, length */
    if (srcbits && !FIELD_EX32(s->control, trTeControl, InhibitSrc)) {
        uint32_t id = FIELD_EX32(s->inst_features, trTeInstFeatures, SrcID);

        for (i = 0; i < DIV_ROUND_UP(srcbits, 8); i++) {
            m.b[m.len++] = id >> (8 * i);
        }
    }
    memcpy(m.b + m.len, p->b, len);
    m.len += len;
    return enc_output(s, &m);
}

static void et_emit(RVTraceEncoderState *s, EtPkt *p)
{
    if (!et_put_packet(s, p, ET_FLOW_INST)) {
        s->control = FIELD_DP32(s->control, trTeControl,
                                InstStallOrOverflow, 1);
        s->et.lost = true;
        s->et.need_sync = true;
        s->et.trap_pending = false;
        s->et.pend_valid = false;
        s->et.unreported = false;
        s->et.nmap = 0;
        s->et.map = 0;
    }
}

static unsigned et_priv(CPURISCVState *env)
{
    if (env->virt_enabled) {
        return env->priv == PRV_U ? TCI_PRIV_VU : TCI_PRIV_VS;
    }
    return env->priv;
}

static void et_support(RVTraceEncoderState *s, bool ienable, unsigned qual)
{
    EtPkt p = { .nbits = 0 };

    et_put(&p, 2, 3);
    et_put(&p, 2, 3);
    et_put(&p, 1, ienable);
    et_put(&p, 1, 0);        /* encoder_mode: branch trace */
    et_put(&p, 2, qual);
    et_put(&p, 6, 0);        /* ioptions */
    et_put(&p, 1, s->et.data);
    et_put(&p, 1, s->et.dloss);
    et_put(&p, 2, s->et.dopt);
    s->et.dloss = false;
    et_emit(s, &p);
}

/*
 * Format 1 (branches pending) or 2 reporting @addr; @flip: updiscon = !notify;
 * @notify: notify = !address[MSB] ("this packet is reporting an instruction
 * that is not the target of an uninferable discontinuity because a
 * notification was requested via trigger[2]", E-Trace 2.0 format 2).
 */
static void et_address_notify(RVTraceEncoderState *s, uint64_t addr,
                              uint32_t map, unsigned nmap, bool flip,
                              bool notify)
{
    EtPkt p = { .nbits = 0 };
    unsigned abits = ET_IADDR_BITS - ET_IADDR_LSB, mbits;
    uint64_t diff = sextract64(addr - s->et.last_addr, ET_IADDR_LSB, abits);
    bool msb;

    msb = ((diff >> (abits - 1)) & 1) ^ notify;
    if (nmap) {
        mbits = nmap == 1 ? 1 : nmap <= 3 ? 3 : nmap <= 7 ? 7 :
                nmap <= 15 ? 15 : 31;
        et_put(&p, 2, 1);
        et_put(&p, 5, nmap);
        et_put(&p, mbits, map);
    } else {
        et_put(&p, 2, 2);
    }
    et_put(&p, abits, diff);
    et_put(&p, 1, msb);                  /* notify */
    et_put(&p, 1, msb ^ flip);           /* updiscon */
    et_put(&p, 1, msb ^ flip);           /* irreport: no return stack */
    s->et.last_addr = addr;
    et_emit(s, &p);
}

static void et_address(RVTraceEncoderState *s, uint64_t addr, uint32_t map,
                       unsigned nmap, bool flip)
{
    et_address_notify(s, addr, map, nmap, flip, false);
}

static void et_flush_pending(RVTraceEncoderState *s, bool flip)
{
    if (s->et.pend_valid) {
        s->et.pend_valid = false;
        et_address(s, s->et.pend_addr, s->et.pend_map, s->et.pend_nmap, flip);
    }
}

/* Format 3 subformat 0 or 1 (@trap) at @addr. */
static void et_sync(RVTraceEncoderState *s, unsigned sub, uint64_t addr,
                    unsigned branch, bool thaddr)
{
    EtPkt p = { .nbits = 0 };

    if (s->et.lost) {
        s->et.lost = false;
        et_support(s, true, ET_QUAL_TRACE_LOST);
    }
    et_put(&p, 2, 3);
    et_put(&p, 2, sub);
    et_put(&p, 1, branch);
    et_put(&p, ET_PRIV_BITS, s->et.sync_priv);
    if (sub == 1) {
        et_put(&p, ET_ECAUSE_BITS, s->et.trap_cause);
        et_put(&p, 1, s->et.trap_interrupt);
        et_put(&p, 1, thaddr);
    }
    et_put(&p, ET_IADDR_BITS - ET_IADDR_LSB, addr >> ET_IADDR_LSB);
    if (sub == 1 && !s->et.trap_interrupt) {
        et_put(&p, ET_IADDR_BITS, s->et.trap_tval);
    }
    s->et.last_addr = addr;
    et_emit(s, &p);
    /* After a synchronization packet every size starts with full values. */
    s->et.daddr_valid = 0;
    s->et.ddata_valid = 0;
}

/* A full branch map (31 branches): format 1 without address. */
static void et_full_map(RVTraceEncoderState *s)
{
    EtPkt p = { .nbits = 0 };

    et_put(&p, 2, 1);
    et_put(&p, 5, 0);
    et_put(&p, ET_MAP_MAX, s->et.map);
    et_emit(s, &p);
    s->et.nmap = 0;
    s->et.map = 0;
}

/* One retired instruction: the E-Trace algorithm. */
static void et_retire(RVTraceEncoderState *s, uint64_t addr, bool branch,
                      bool taken, bool updiscon)
{
    RVTraceETraceState *e = &s->et;
    bool notify = e->notify_pending && e->notify_pc == addr;

    et_flush_pending(s, false);
    e->last_retired = addr;
    e->notify_pending &= !notify;
    if (e->need_sync) {
        et_sync(s, e->trap_pending ? 1 : 0, addr, branch ? !taken : 1,
                true);
        e->need_sync = false;
        e->trap_pending = false;
        e->unreported = false;
        e->nmap = 0;
        e->map = 0;
        e->prev_updiscon = updiscon;
        return;
    }
    if (branch) {
        e->map |= (uint32_t)!taken << e->nmap;
        e->nmap++;
    }
    if (e->prev_updiscon) {
        e->pend_valid = true;
        e->pend_addr = addr;
        e->pend_map = e->map;
        e->pend_nmap = e->nmap;
        e->unreported = false;
        e->nmap = 0;
        e->map = 0;
    } else if (notify) {
        /*
         * Trace-notify: reported now, with notify flipped. The target of
         * an uninferable jump (above) and a sync are reported anyway
         * ("because they would have been reported anyway", E-Trace 2.0
         * "Format 2 notify and updiscon fields" case 4).
         */
        et_address_notify(s, addr, e->map, e->nmap, false, true);
        e->unreported = false;
        e->nmap = 0;
        e->map = 0;
    } else {
        e->unreported = true;
        if (e->nmap == ET_MAP_MAX) {
            et_full_map(s);
        }
    }
    e->prev_updiscon = updiscon;
}

/*
 * Before a trap or the end of tracing: the last retired instruction is
 * reported; true when the held packet reported it (the "ntr" case).
 */
static bool et_report_last(RVTraceEncoderState *s, bool before_format3)
{
    if (s->et.pend_valid) {
        et_flush_pending(s, before_format3);
        return true;
    }
    if (s->et.unreported) {
        s->et.unreported = false;
        et_address(s, s->et.last_retired, s->et.map, s->et.nmap, false);
        s->et.nmap = 0;
        s->et.map = 0;
    }
    return false;
}

#define ET_CPAGES ARRAY_SIZE(((RVTraceETraceState *)0)->cpage)

static void et_cpage_flush(RVTraceEncoderState *s)
{
    unsigned i;

    for (i = 0; i < ET_CPAGES; i++) {
        s->et.cpage[i].vpage = ~0ull;
    }
}

/*
 * The code page @vpage under the translation the walk set up (et_advance):
 * false when it does not translate; *@host the host address of the RAM
 * behind it, or NULL when it is not RAM (then read with
 * cpu_memory_rw_debug). Cached, since a translation per instruction read
 * (cpu_memory_rw_debug) was what made the E-Trace walk slow.
 */
static bool et_code_page(RVTraceEncoderState *s, CPURISCVState *env,
                         uint64_t vpage, uint8_t **host)
{
    CPUState *cs = CPU(s->cpu);
    typeof(s->et.cpage[0]) *e = &s->et.cpage[vpage % ET_CPAGES];
    MemoryRegion *mr;
    hwaddr pa, xlat, plen = TARGET_PAGE_SIZE;

    if (e->vpage == vpage && e->satp == env->satp && e->priv == env->priv &&
        e->virt == env->virt_enabled && e->vsatp == env->vsatp &&
        e->hgatp == env->hgatp) {
        *host = e->host;
        return true;
    }
    pa = cpu_get_phys_page_debug(cs, vpage << TARGET_PAGE_BITS);
    if (pa == -1) {
        return false;
    }
    e->vpage = vpage;
    e->satp = env->satp;
    e->vsatp = env->vsatp;
    e->hgatp = env->hgatp;
    e->priv = env->priv;
    e->virt = env->virt_enabled;
    e->host = NULL;
    WITH_RCU_READ_LOCK_GUARD() {
        mr = address_space_translate(cs->as, pa, &xlat, &plen, false,
                                     MEMTXATTRS_UNSPECIFIED);
        /*
         * Guest RAM (and ROM) stays mapped for the machine's life, so the
         * pointer outlives the RCU section (virt has no RAM hot-unplug).
         */
        if (memory_region_is_ram(mr) && plen >= TARGET_PAGE_SIZE) {
            e->host = (uint8_t *)memory_region_get_ram_ptr(mr) + xlat;
        }
    }
    *host = e->host;
    return true;
}

/* Two bytes of code at @pc (halfword aligned, so within one page). */
static bool et_fetch16(RVTraceEncoderState *s, CPURISCVState *env,
                       uint64_t pc, uint8_t *b)
{
    uint8_t *host;

    if (!et_code_page(s, env, pc >> TARGET_PAGE_BITS, &host)) {
        return false;
    }
    if (host) {
        memcpy(b, host + (pc & ~TARGET_PAGE_MASK), 2);
        return true;
    }
    return !cpu_memory_rw_debug(CPU(s->cpu), pc, b, 2, false);
}

/* The instruction at @pc, read as the hart fetched it; its length in *len. */
static bool et_fetch(RVTraceEncoderState *s, CPURISCVState *env, uint64_t pc,
                     uint32_t *insn, unsigned *len)
{
    uint8_t b[4];

    if (!et_fetch16(s, env, pc, b)) {
        return false;
    }
    if ((b[0] & 3) != 3) {
        *insn = lduw_le_p(b);
        *len = 2;
        return true;
    }
    if (!et_fetch16(s, env, pc + 2, b + 2)) {
        return false;
    }
    *insn = ldl_le_p(b);
    *len = 4;
    return true;
}

enum { ET_SEQ, ET_BRANCH, ET_JUMP, ET_UNINFERABLE };
/* Why a walk failed (et.fail_why, in the -d guest_errors line). */
enum {
    ET_FAIL_FETCH = 1,       /* unreadable code, or past the report's end */
    ET_FAIL_NO_BIT,          /* a branch with no HIST bit left */
    ET_FAIL_UNINFERABLE,     /* an uninferable transfer inside the report */
    ET_FAIL_BITS_LEFT,       /* HIST bits left at the end */
    ET_FAIL_END,             /* ended elsewhere than the report says */
};

/* RV32/RV64 GC: the kind of control transfer and a direct one's target. */
static inline __attribute__((always_inline)) unsigned
et_classify(CPURISCVState *env, uint64_t pc, uint32_t i,
            unsigned len, uint64_t *target)
{
    if (len == 4) {
        switch (i & 0x7f) {
        case 0x63:
            *target = pc + (int32_t)((sextract32(i, 31, 1) << 12) |
                            (extract32(i, 7, 1) << 11) |
                            (extract32(i, 25, 6) << 5) |
                            (extract32(i, 8, 4) << 1));
            return ET_BRANCH;
        case 0x6f:
            *target = pc + (int32_t)((sextract32(i, 31, 1) << 20) |
                            (extract32(i, 12, 8) << 12) |
                            (extract32(i, 20, 1) << 11) |
                            (extract32(i, 21, 10) << 1));
            return ET_JUMP;
        case 0x67:
            return ET_UNINFERABLE;
        case 0x73:
            /* mret, sret, mnret, dret: uninferable trap returns */
            if (i == 0x30200073 || i == 0x10200073 || i == 0x70200073 ||
                i == 0x7b200073) {
                return ET_UNINFERABLE;
            }
            return ET_SEQ;
        default:
            return ET_SEQ;
        }
    }
    switch ((i & 3) | (extract32(i, 13, 3) << 2)) {
    case 1 | (6 << 2):       /* c.beqz */
    case 1 | (7 << 2):       /* c.bnez */
        *target = pc + (int32_t)((sextract32(i, 12, 1) << 8) |
                        (extract32(i, 5, 2) << 6) |
                        (extract32(i, 2, 1) << 5) |
                        (extract32(i, 10, 2) << 3) |
                        (extract32(i, 3, 2) << 1));
        return ET_BRANCH;
    case 1 | (1 << 2):       /* c.jal (RV32), c.addiw (RV64) */
        if (riscv_cpu_mxl(env) != MXL_RV32) {
            return ET_SEQ;
        }
        /* fall through */
    case 1 | (5 << 2):       /* c.j */
        *target = pc + (int32_t)((sextract32(i, 12, 1) << 11) |
                        (extract32(i, 8, 1) << 10) |
                        (extract32(i, 9, 2) << 8) |
                        (extract32(i, 6, 1) << 7) |
                        (extract32(i, 7, 1) << 6) |
                        (extract32(i, 2, 1) << 5) |
                        (extract32(i, 11, 1) << 4) |
                        (extract32(i, 3, 3) << 1));
        return ET_JUMP;
    case 2 | (4 << 2):       /* c.jr, c.jalr (rs1 != 0, rs2 == 0) */
        if (extract32(i, 7, 5) && !extract32(i, 2, 5)) {
            return ET_UNINFERABLE;
        }
        return ET_SEQ;
    default:
        return ET_SEQ;
    }
}

/*
 * A report at a control transfer (@has_next) without reading every
 * instruction: between the run's first instruction and the reporting one,
 * instructions produce no packet but the full branch maps, which depend on
 * the branch outcomes alone (they are in @hist). So the first instruction
 * is retired as et_walk would, the pending packet flushed as the second
 * one's retirement does, the remaining outcomes added to the branch map,
 * and the reporting instruction (read for its kind) made the last retired.
 * False when it does not apply (a run of one instruction, code that cannot
 * be read or that does not start as the report says): et_walk then does
 * the work. Unlike et_walk, it does not check that the code between
 * matches the report.
 */
static bool et_walk_cf_fast(RVTraceEncoderState *s, CPURISCVState *env,
                            uint64_t halfwords, uint32_t hist,
                            uint64_t succ, uint64_t last_next)
{
    RVTraceETraceState *e = &s->et;
    int nbits = 31 - clz32(hist);
    uint64_t pc = e->pc, last, target;
    uint32_t insn;
    unsigned len, kind, last_kind, cf_len = e->cf_len;
    bool taken = false;

    e->cf_len = 0;
    if (cf_len != 2 && cf_len != 4) {
        return false;
    }
    last = succ - cf_len;
    if (!et_fetch(s, env, pc, &insn, &len) || len / 2 >= halfwords) {
        return false;
    }
    kind = et_classify(env, pc, insn, len, &target);
    if (kind == ET_UNINFERABLE || (kind == ET_BRANCH && nbits <= 0)) {
        return false;
    }
    if (!et_fetch(s, env, last, &insn, &len) || len != cf_len) {
        return false;
    }
    last_kind = et_classify(env, last, insn, len, &target);
    if (kind == ET_BRANCH) {
        taken = (hist >> --nbits) & 1;
    }
    et_retire(s, pc, kind == ET_BRANCH, taken, false);
    /* The second instruction's retirement sends what the first held. */
    if (!e->need_sync) {
        et_flush_pending(s, false);
    }
    while (nbits > 0 && !e->need_sync) {
        e->map |= (uint32_t)!((hist >> --nbits) & 1) << e->nmap;
        if (++e->nmap == ET_MAP_MAX) {
            et_full_map(s);
        }
    }
    e->pc = last_next;
    if (e->need_sync) {
        /*
         * A packet was dropped (et_emit): the rest of the run is lost and
         * the next instruction is a sync after trace_lost (et_walk would
         * sync at the instruction after the drop, whose address this does
         * not know).
         */
        e->prev_updiscon = false;
        return true;
    }
    e->last_retired = last;
    e->unreported = true;
    e->prev_updiscon = last_kind == ET_UNINFERABLE;
    return true;
}

/*
 * Retire the @halfwords of instructions from et.pc, conditional branches
 * following the bits of @hist (HTM order: stop bit, oldest first). With
 * @last_next, the last one is the reported transfer and its successor is
 * @last_next; otherwise the walk must end at @end. False when the code
 * does not match the report (the position is then unknown: the caller
 * resynchronises).
 */
static bool et_walk(RVTraceEncoderState *s, CPURISCVState *env,
                    uint64_t halfwords, uint32_t hist, bool has_next,
                    uint64_t last_next, uint64_t end)
{
    RVTraceETraceState *e = &s->et;
    int nbits = 31 - clz32(hist);
    uint64_t pc = s->et.pc, page = ~0ull;
    uint8_t *host = NULL;

    while (halfwords) {
        uint32_t insn;
        unsigned len, kind;
        uint64_t target = 0, next, off = pc & ~TARGET_PAGE_MASK;
        bool taken = false;

        /*
         * The page the last instruction came from is read directly (the
         * common case); the cache of code pages otherwise.
         */
        if ((pc >> TARGET_PAGE_BITS) != page || !host ||
            off > TARGET_PAGE_SIZE - 4) {
            page = pc >> TARGET_PAGE_BITS;
            if (!et_code_page(s, env, page, &host)) {
                host = NULL;
            }
            if (!host || off > TARGET_PAGE_SIZE - 4) {
                host = NULL;
                if (!et_fetch(s, env, pc, &insn, &len)) {
                    len = 0;
                }
                goto fetched;
            }
        }
        insn = lduw_le_p(host + off);
        len = 2;
        if ((insn & 3) == 3) {
            insn = ldl_le_p(host + off);
            len = 4;
        }
    fetched:
        if (!len || len / 2 > halfwords) {
            s->et.fail_pc = pc;
            s->et.fail_why = ET_FAIL_FETCH;
            return false;
        }
        halfwords -= len / 2;
        kind = et_classify(env, pc, insn, len, &target);
        next = pc + len;
        if (kind == ET_BRANCH) {
            if (nbits <= 0) {
                s->et.fail_pc = pc;
                s->et.fail_why = ET_FAIL_NO_BIT;
                return false;
            }
            taken = (hist >> --nbits) & 1;
            if (taken) {
                next = target;
            }
        } else if (kind == ET_JUMP) {
            next = target;
        }
        if (!halfwords && has_next) {
            next = last_next;
        } else if (kind == ET_UNINFERABLE) {
            s->et.fail_pc = pc;
            s->et.fail_why = ET_FAIL_UNINFERABLE;
            return false;
        }
        if (kind != ET_BRANCH && kind != ET_UNINFERABLE && !e->pend_valid &&
            !e->need_sync && !e->prev_updiscon && !e->notify_pending) {
            /* What et_retire does for it: nothing to report. */
            e->last_retired = pc;
            e->unreported = true;
        } else {
            et_retire(s, pc, kind == ET_BRANCH, taken,
                      kind == ET_UNINFERABLE);
        }
        pc = next;
    }
    s->et.fail_pc = pc;
    s->et.fail_why = nbits ? ET_FAIL_BITS_LEFT : ET_FAIL_END;
    s->et.pc = pc;
    return nbits == 0 && (has_next || pc == end);
}

/*
 * The privilege the walked code ran at: the hart's at the end of the
 * previous report (privilege changes only at traps and trap returns, which
 * are reports; both are reported after the change). Likewise the
 * translation: taken here, when the run starts, so that a run which writes
 * satp (Linux's relocate_enable_mmu turns the MMU on and traps to the
 * virtual address at the next fetch) is read the way it was fetched.
 */
static void et_note_priv(RVTraceEncoderState *s, CPURISCVState *env)
{
    s->et.code_priv = env->priv;
    s->et.code_virt = env->virt_enabled;
    s->et.code_satp = env->satp;
    s->et.code_vsatp = env->vsatp;
    s->et.code_hgatp = env->hgatp;
}

/* Start of traced code at @pc: the next retired instruction is a sync. */
static void et_restart(RVTraceEncoderState *s, CPURISCVState *env,
                       uint64_t pc)
{
    s->et.pc = pc;
    s->et.need_sync = true;
    s->et.trap_pending = false;
    s->et.prev_updiscon = false;
    s->et.unreported = false;
    s->et.pend_valid = false;
    s->et.nmap = 0;
    s->et.map = 0;
    s->et.sync_priv = et_priv(env);
    et_note_priv(s, env);
    env->trace_hist = 1;
    env->trace_icnt_k = -pc;
}

/* A report covering the instructions up to @end (exclusive); @ok: walked. */
static bool et_advance(RVTraceEncoderState *s, CPURISCVState *env,
                       uint64_t end, bool has_next, uint64_t next)
{
    uint64_t halfwords = (env->trace_icnt_k + end) >> 1;
    uint64_t from = s->et.pc;
    uint32_t hist = env->trace_hist;
    target_ulong priv = env->priv, satp = env->satp, vsatp = env->vsatp;
    target_ulong hgatp = env->hgatp;
    uint64_t mstatus = env->mstatus;
    bool virt = env->virt_enabled, ok;

    /*
     * Read the code with the translation it was fetched with: the run's
     * privilege and page tables, as an instruction fetch (MPRV does not
     * apply, execute-only pages are readable).
     */
    env->priv = s->et.code_priv;
    env->virt_enabled = s->et.code_virt;
    env->satp = s->et.code_satp;
    env->vsatp = s->et.code_vsatp;
    env->hgatp = s->et.code_hgatp;
    env->mstatus = (mstatus & ~MSTATUS_MPRV) | MSTATUS_MXR;
    ok = (has_next && !s->et.notify_pending &&
          et_walk_cf_fast(s, env, halfwords, hist, end, next)) ||
         et_walk(s, env, halfwords, hist, has_next, next, end);
    env->priv = priv;
    env->virt_enabled = virt;
    env->satp = satp;
    env->vsatp = vsatp;
    env->hgatp = hgatp;
    env->mstatus = mstatus;

    env->trace_hist = 1;
    if (!ok) {
        /* Lost track of the code (it changed, or cannot be read). */
        s->et.desync++;
        qemu_log_mask(LOG_GUEST_ERROR, "rvtrace-encoder %u: E-Trace walk from "
                      "0x%" PRIx64 " over %" PRIu64 " halfwords, HIST 0x%x,"
                      " does not end at 0x%" PRIx64 " (last 0x%" PRIx64
                      " why %u at 0x%" PRIx64 "): resynchronising\n", s->port, from, halfwords, hist,
                      end, s->et.last_retired, s->et.fail_why, s->et.fail_pc);
        et_report_last(s, false);
        et_support(s, true, ET_QUAL_TRACE_LOST);
    }
    return ok;
}

/* Tracing ends (disable, debug, filters): the last address, then support. */
static void et_end(RVTraceEncoderState *s, bool ienable)
{
    unsigned qual = ET_QUAL_NO_CHANGE;

    if (s->et.pend_valid) {
        et_flush_pending(s, false);
        qual = ET_QUAL_ENDED_NTR;
    } else if (s->et.unreported) {
        et_report_last(s, false);
        qual = ET_QUAL_ENDED_REP;
    }
    et_support(s, ienable, qual);
    s->et.need_sync = true;
    s->et.trap_pending = false;
    /* A trace-notify for an instruction that did not retire in this trace. */
    s->et.notify_pending = false;
}

static void et_cf(RVTraceEncoderState *s, CPURISCVState *env, uint64_t succ,
                  uint64_t next, unsigned itype)
{
    if (unlikely(s->filtered)) {
        if (itype == NT_ITYPE_TRAP_RETURN) {
            enc_filter_trap_return(s);
            if (enc_qualified(s, env, next)) {
                s->filtered = false;
                et_restart(s, env, next);
            }
        }
        return;
    }
    if (!et_advance(s, env, succ, true, next)) {
        et_restart(s, env, next);
        return;
    }
    if (unlikely(itype == NT_ITYPE_TRAP_RETURN && enc_filtering(s))) {
        enc_filter_trap_return(s);
        if (!enc_qualified(s, env, next)) {
            et_end(s, true);
            s->filtered = true;
            return;
        }
    }
    et_note_priv(s, env);
    env->trace_icnt_k = -next;
}

static void et_trap(RVTraceEncoderState *s, CPURISCVState *env,
                    target_ulong epc, target_ulong handler, bool interrupt)
{
    RVTraceETraceState *e = &s->et;
    target_ulong cause = env->priv == PRV_M ? env->mcause : env->scause;
    target_ulong tval = env->priv == PRV_M ? env->mtval : env->stval;

    if (unlikely(enc_filtering(s))) {
        enc_filter_trap(s, env, interrupt);
    }
    if (unlikely(s->filtered)) {
        if (enc_qualified(s, env, handler)) {
            s->filtered = false;
            et_restart(s, env, handler);
        }
        return;
    }
    if (!et_advance(s, env, epc, false, 0)) {
        et_restart(s, env, handler);
        return;
    }
    if (unlikely(enc_filtering(s)) && !enc_qualified(s, env, handler)) {
        et_end(s, true);
        s->filtered = true;
        return;
    }
    et_report_last(s, true);
    if (e->need_sync && e->trap_pending) {
        /* The previous handler's first instruction never retired. */
        et_sync(s, 1, e->pc, 1, false);
        e->need_sync = false;
        e->trap_pending = false;
        e->prev_updiscon = false;
    }
    e->trap_cause = cause;
    e->trap_interrupt = interrupt;
    e->trap_tval = tval;
    e->sync_priv = et_priv(env);
    if (e->prev_updiscon || e->need_sync) {
        /*
         * The trap came before the target of an updiscon (or the first
         * traced instruction) retired: its EPC is not inferable, so it is
         * the address (thaddr 0), and the handler is a sync of its own.
         */
        et_sync(s, 1, epc, 1, false);
        e->prev_updiscon = false;
        e->need_sync = true;
        e->trap_pending = false;
    } else {
        e->need_sync = true;
        e->trap_pending = true;
    }
    e->pc = handler;
    et_note_priv(s, env);
    env->trace_icnt_k = -handler;
}

static void et_fixup(RVTraceEncoderState *s, CPURISCVState *env,
                     target_ulong next)
{
    if (unlikely(s->filtered)) {
        env->trace_hist = 1;
        return;
    }
    if (!et_advance(s, env, next, false, 0)) {
        et_restart(s, env, next);
        return;
    }
    env->trace_icnt_k = -next;
}

/*
 * E-Trace data trace ("Data Trace Encoder Output Packets",
 * dataTracePayload.adoc, the seed 000 tables; layouts as
 * hw/riscv/etrace_pkts.def's D_UNIFIED_* rows and the host codec
 * hw_models/trace/etrace_data.cpp, which decodes these packets). Each load,
 * store and atomic the ingress reports (translate.c gen_trace_data,
 * gen_trace_atomic) becomes one unified packet at once, in the same FIFO as
 * the instruction packets and with the header's flow 1. Encoding choices,
 * as the codec's:
 *  - format (3 bits): load 000, store 010, +1 when the address is not
 *    aligned to the size (then sent unshifted; aligned ones are shifted
 *    right by size); atomic 110 with the subtype (swap 0 .. min 6; the
 *    signed and unsigned max/min alike) and the operand (rs2) before the
 *    value loaded (Tables 32, 34; Table 33 with NoValue); an LR is a load,
 *    an SC that stored a store, one that failed the conditional store
 *    failure (subtype 7, Table 33 whatever the options: it has no value);
 *    atomics share the per-size compression references of loads and stores;
 *  - diff (Table 27): 00 full address and data (the first access of a
 *    size after a synchronization packet, 8.1.3), otherwise the address
 *    minus the last one of that size and the data as 01 XOR, 10 full or
 *    11 difference with the last value of that size, whichever needs the
 *    fewest bytes; data_len + 1 bytes of data whose sign extension
 *    restores the value (8.1.4);
 *  - trTeDataNoValue: Table 28 (diff 1: differential address);
 *    trTeDataNoAddr: Table 29 (diff as the data code: 00 full, 01 XOR,
 *    11 difference; data_width_p bits);
 *  - a dropped data packet restarts compression with full values (so the
 *    decoder never needs the lost one) and sets dloss in the next support
 *    packet, which is sent before the next data packet.
 */
static unsigned et_sext_bytes(uint64_t v, unsigned width)
{
    unsigned n;

    for (n = 1; n * 8 < width; n++) {
        if (((uint64_t)sextract64(v, 0, 8 * n) &
             MAKE_64BIT_MASK(0, width)) == v) {
            return n;
        }
    }
    return width / 8;
}

enum { ET_DMODE_FULL, ET_DMODE_XOR, ET_DMODE_DIFF };

/* The cheapest of full, XOR and difference for @v against @ref (@w bits). */
static unsigned et_dpick(bool valid, uint64_t v, uint64_t ref, unsigned w,
                         uint64_t *out)
{
    uint64_t m = MAKE_64BIT_MASK(0, w), x = (v ^ ref) & m, d = (v - ref) & m;
    unsigned best = et_sext_bytes(v, w), mode = ET_DMODE_FULL;

    *out = v;
    if (!valid) {
        return mode;
    }
    if (et_sext_bytes(x, w) < best) {
        best = et_sext_bytes(x, w);
        *out = x;
        mode = ET_DMODE_XOR;
    }
    if (et_sext_bytes(d, w) < best) {
        *out = d;
        mode = ET_DMODE_DIFF;
    }
    return mode;
}

static void et_data_reset(RVTraceEncoderState *s)
{
    s->et.daddr_valid = 0;
    s->et.ddata_valid = 0;
}

/* An atomic's op_len and operand (8.2.3: uncompressed, sign-truncated). */
static void et_data_operand(EtPkt *p, uint64_t operand, unsigned size)
{
    unsigned aw = 8u << size;
    uint64_t o = operand & MAKE_64BIT_MASK(0, aw);
    unsigned n = et_sext_bytes(o, aw);

    et_put(p, size, n - 1);                         /* op_len: size bits */
    et_put(p, 8 * n, o);
}

/* A data packet could not be written: compression restarts, dloss follows. */
static void et_data_lost(RVTraceEncoderState *s)
{
    s->data_control = FIELD_DP32(s->data_control, trTeDataControl,
                                 StallOrOverflow, 1);
    s->et.dloss = true;
    et_data_reset(s);
}

/*
 * One access: @dtype as the ingress port's (0 load, 1 store, 8..14 an AMO
 * with @operand, 15 a failed SC); @value the value loaded or stored.
 */
static void et_data(RVTraceEncoderState *s, uint64_t addr, uint64_t value,
                    uint64_t operand, unsigned size, unsigned dtype)
{
    RVTraceETraceState *e = &s->et;
    unsigned aw = 8u << size, bit = 1u << size, sh, mode, n;
    bool unaligned = addr & ((1u << size) - 1);
    bool sync = !(e->daddr_valid & bit) || !(e->ddata_valid & bit);
    bool atomic = dtype >= RISCV_TRACE_DTYPE_SWAP;
    uint64_t a = addr, v = value & MAKE_64BIT_MASK(0, aw), dv;
    EtPkt p = { .nbits = 0 };

    if (e->dloss) {
        et_support(s, true, ET_QUAL_NO_CHANGE);
    }
    if (atomic && unaligned) {
        /* No packet has an unaligned atomic (only Zama16b makes one). */
        et_data_lost(s);
        return;
    }
    sh = unaligned ? 0 : size;
    /* Arithmetic shift: high addresses keep their sign and compress well. */
    a = (uint64_t)((int64_t)addr >> sh);
    if (atomic) {
        et_put(&p, ET_DFMT_BITS, ET_DFMT_ATOMIC);
        /* subtype: swap 0 .. min 6 as dtype 8 .. 14, 7 SC failure (15) */
        et_put(&p, ET_DSUBTYPE_BITS, dtype - RISCV_TRACE_DTYPE_SWAP);
    } else {
        et_put(&p, ET_DFMT_BITS,
               (dtype == RISCV_TRACE_DTYPE_STORE ? ET_DFMT_STORE :
                                                   ET_DFMT_LOAD) + unaligned);
    }
    et_put(&p, ET_DSIZE_BITS, size);
    if ((e->dopt & ET_DOPT_NO_DATA) ||
        dtype == RISCV_TRACE_DTYPE_SC_FAIL) {       /* Tables 28, 33 */
        bool d = e->daddr_valid & bit;

        et_put(&p, 1, d);
        et_put(&p, ET_DADDR_BITS,
               d ? a - (uint64_t)((int64_t)e->daddr[size] >> sh) : a);
        e->daddr[size] = addr;
        e->daddr_valid |= bit;
    } else if (e->dopt & ET_DOPT_NO_ADDR) {         /* Tables 29, 34 */
        mode = et_dpick(e->ddata_valid & bit, v, e->ddata[size], aw, &dv);
        et_put(&p, ET_DDIFF_BITS, mode == ET_DMODE_FULL ? 0 :
                                  mode == ET_DMODE_XOR ? 1 : 3);
        if (atomic) {                               /* Table 34 */
            et_data_operand(&p, operand, size);
        }
        et_put(&p, ET_DATA_BITS, sextract64(dv, 0, aw));
        e->ddata[size] = v;
        e->ddata_valid |= bit;
    } else {                                        /* Tables 27, 32 */
        mode = sync ? ET_DMODE_FULL :
                      et_dpick(true, v, e->ddata[size], aw, &dv);
        if (sync) {
            dv = v;
        }
        et_put(&p, ET_DDIFF_BITS, sync ? 0 : mode == ET_DMODE_XOR ? 1 :
                                  mode == ET_DMODE_FULL ? 2 : 3);
        if (atomic) {                               /* Table 32 */
            et_data_operand(&p, operand, size);
        }
        n = et_sext_bytes(dv, aw);
        et_put(&p, size, n - 1);                    /* data_len: size bits */
        et_put(&p, 8 * n, dv);
        et_put(&p, ET_DADDR_BITS,
               sync ? a : a - (uint64_t)((int64_t)e->daddr[size] >> sh));
        e->daddr[size] = addr;
        e->ddata[size] = v;
        e->daddr_valid |= bit;
        e->ddata_valid |= bit;
    }
    if (!et_put_packet(s, &p, ET_FLOW_DATA)) {
        et_data_lost(s);
    }
}

/* trTeDataTracing and the run-time options, as the encoder applies them. */
static bool enc_data_tracing(RVTraceEncoderState *s)
{
    return s->etrace && FIELD_EX32(s->data_control, trTeDataControl, Tracing);
}

static unsigned enc_data_options(RVTraceEncoderState *s)
{
    return (FIELD_EX32(s->data_control, trTeDataControl, NoValue) ?
            ET_DOPT_NO_DATA : 0) |
           (FIELD_EX32(s->data_control, trTeDataControl, NoAddr) ?
            ET_DOPT_NO_ADDR : 0);
}

/*
 * Data trace switched on or off, or its options changed: a support packet
 * says so (payload.adoc, "Format 3 subformat 3": denable, doptions), and
 * compression restarts.
 */
static void et_data_config(RVTraceEncoderState *s, bool announce)
{
    bool on = enc_data_tracing(s);
    unsigned opt = enc_data_options(s);

    if (on == s->et.data && opt == s->et.dopt && announce) {
        return;
    }
    s->et.data = on;
    s->et.dopt = opt;
    et_data_reset(s);
    if (announce) {
        et_support(s, true, ET_QUAL_NO_CHANGE);
    }
}

void riscv_trace_data(CPURISCVState *env, target_ulong addr, uint64_t value,
                      uint32_t info)
{
    RVTraceEncoderState *s = env->trace_encoder;

    if (!s || !s->tracing || !s->etrace || !s->et.data || s->filtered) {
        return;
    }
    et_data(s, addr, value, 0, info & RISCV_TRACE_DATA_SIZE_MASK,
            info & RISCV_TRACE_DATA_STORE ? RISCV_TRACE_DTYPE_STORE :
                                            RISCV_TRACE_DTYPE_LOAD);
}

/*
 * An AMO (@value the value loaded, @operand rs2) or an SC (@value its
 * result: 0 it stored @operand, a store packet; else a conditional store
 * failure, Table 33).
 */
void riscv_trace_atomic(CPURISCVState *env, target_ulong addr,
                        uint64_t operand, uint64_t value, uint32_t info)
{
    RVTraceEncoderState *s = env->trace_encoder;
    unsigned size = info & RISCV_TRACE_DATA_SIZE_MASK;
    unsigned dtype = (info & RISCV_TRACE_DATA_DTYPE_MASK) >>
                     RISCV_TRACE_DATA_DTYPE_SHIFT;

    if (!s || !s->tracing || !s->etrace || !s->et.data || s->filtered) {
        return;
    }
    if (dtype == RISCV_TRACE_DTYPE_SC) {
        if (value) {
            et_data(s, addr, 0, 0, size, RISCV_TRACE_DTYPE_SC_FAIL);
        } else {
            et_data(s, addr, operand, 0, size, RISCV_TRACE_DTYPE_STORE);
        }
        return;
    }
    et_data(s, addr, value, operand, size, dtype);
}

/* ----------------------------------------------------- start/stop tracing */

static bool enc_want_tracing(RVTraceEncoderState *s)
{
    uint32_t need = R_trTeControl_Active_MASK | R_trTeControl_Enable_MASK |
                    R_trTeControl_InstTracing_MASK;

    return (s->control & need) == need &&
           enc_inst_mode(s) != TCI_INSTMODE_OFF;
}

/* Which translations the traced hart runs (trace_ingress.h cs_base bits). */
static uint32_t enc_cs_base(RVTraceEncoderState *s)
{
    uint32_t v = RISCV_TRACE_CS_BASE_INGRESS | s->comp_cs;

    if (enc_htm(s)) {
        v |= RISCV_TRACE_CS_BASE_HTM;
    }
    if (s->etrace) {
        /* N-Trace's all-jumps and sequential-jump options do not apply. */
        if (enc_data_tracing(s)) {
            v |= RISCV_TRACE_CS_BASE_DATA;
        }
        return v;
    }
    if (enc_feature(s, R_trTeInstFeatures_EnAllJumps_MASK)) {
        v |= RISCV_TRACE_CS_BASE_ALL_JUMPS;
    }
    if (enc_feature(s, R_trTeInstFeatures_EnSequentialJump_MASK)) {
        v |= RISCV_TRACE_CS_BASE_SEQ_JUMP;
    }
    return v;
}

/*
 * Tracing starts: the comparators' settings are taken and, when a selected
 * filter uses one, translations of their own (a new generation in cs_base
 * when the settings changed; all translations are dropped when it wraps).
 * Match mode 3's latch starts set with PFunction 6 ("Prime latch to 1").
 */
static void enc_comps_arm(RVTraceEncoderState *s)
{
    bool used = false;
    unsigned i, j;

    for (i = 0; i < RVTRACE_NUM_FILTERS; i++) {
        uint32_t c = s->filter_control[i];

        used |= (s->inst_filters & (1u << i)) &&
                FIELD_EX32(c, trTeFilter0Control, Enable) &&
                (c & (R_trTeFilter0Control_MatchComp1_MASK |
                      R_trTeFilter0Control_MatchComp2_MASK |
                      R_trTeFilter0Control_MatchComp3_MASK));
    }
    if (!used) {
        s->comp_cs = 0;
        return;
    }
    if (!s->comp_gen || memcmp(s->comp_act, s->comp, sizeof(s->comp))) {
        memcpy(s->comp_act, s->comp, sizeof(s->comp));
        if (++s->comp_gen >> (32 - RISCV_TRACE_CS_BASE_ADDR_GEN_SHIFT)) {
            s->comp_gen = 1;
            tb_flush(CPU(s->cpu));
        }
    }
    for (j = 0; j < RVTRACE_NUM_COMPS; j++) {
        uint32_t c = s->comp_act[j].control;

        s->comp_latch[j] =
            FIELD_EX32(c, trTeComp0Control, MatchMode) == TCI_COMPMODE_LATCH &&
            FIELD_EX32(c, trTeComp0Control, PFunction) ==
                TCI_COMPFUNC_FALSE_OR_MASK;
        s->comp_s_last[j] = false;
    }
    s->comp_cs = RISCV_TRACE_CS_BASE_ADDR |
                 s->comp_gen << RISCV_TRACE_CS_BASE_ADDR_GEN_SHIFT;
}

/*
 * The comparator class of the instruction at @pc (translation, on the
 * hart's thread): one bit per address comparison, and
 * RISCV_TRACE_ADDR_CLASS_END after a latching comparator's secondary
 * match on the address.
 */
uint32_t riscv_trace_addr_class(CPURISCVState *env, target_ulong pc)
{
    RVTraceEncoderState *s = env->trace_encoder;
    uint32_t cls = 0;
    unsigned j;

    if (!s || !s->comp_cs) {
        return 0;
    }
    for (j = 0; j < RVTRACE_NUM_COMPS; j++) {
        uint32_t c = s->comp_act[j].control;
        bool s_addr = FIELD_EX32(c, trTeComp0Control, SInput) !=
                          TCI_COMPINPUT_CONTEXT &&
                      FIELD_EX32(c, trTeComp0Control, SFunction) <
                          TCI_COMPFUNC_FALSE_OR_MASK;

        if (FIELD_EX32(c, trTeComp0Control, PInput) != TCI_COMPINPUT_CONTEXT &&
            enc_comp_side(s, env, j, false, pc)) {
            cls |= 1u << (2 * j);
        }
        if (s_addr && enc_comp_side(s, env, j, true, pc)) {
            cls |= 2u << (2 * j);
            if (FIELD_EX32(c, trTeComp0Control, MatchMode) ==
                TCI_COMPMODE_LATCH) {
                cls |= RISCV_TRACE_ADDR_CLASS_END;
            }
        }
    }
    return cls;
}

/*
 * A translation block of a comparator-filtered trace starts at @pc:
 * leaving qualified code ends the trace as a filter at a trap does
 * (ProgTraceCorrelation EVCODE=4 with the instructions before @pc; E-Trace:
 * the last address and a support packet), entering it starts it again
 * (ProgTraceSync SYNC=5 at @pc; E-Trace: a sync packet).
 */
void riscv_trace_block(CPURISCVState *env, target_ulong pc)
{
    RVTraceEncoderState *s = env->trace_encoder;
    bool q;

    if (!s) {
        return;
    }
    enc_batch_run(s);
    if (s->tracing && s->comp_cs) {
        q = enc_qualified(s, env, pc);
        enc_comp_step(s, env, pc);
        if (s->filtered && q) {
            s->filtered = false;
            if (s->etrace) {
                et_restart(s, env, pc);
            } else {
                enc_sync_start(s, env, pc, NT_SYNC_TRACE_ENABLE);
            }
        } else if (!s->filtered && !q) {
            if (s->etrace) {
                if (!et_advance(s, env, pc, false, 0)) {
                    et_restart(s, env, pc);
                }
                et_end(s, true);
                s->filtered = true;
            } else {
                enc_enter(s, pc);
                enc_filter_pause(s);
            }
        }
    }
    enc_batch_arm(s);
}

/* Start of a traced run at @pc: ProgTraceSync (SYNC=7 after lost data). */
static void enc_sync_start(RVTraceEncoderState *s, CPURISCVState *env,
                           uint64_t pc, unsigned reason)
{
    uint64_t f[NT_FLD_COUNT] = { 0 };

    s->icnt = 0;
    s->env->trace_hist = 1;
    s->hrepeat = 0;
    s->bcnt = 0;
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
    enc_leave(s, pc);
}

/*
 * Tracing starts (enable, resume after a debugger stop); when the filters
 * do not qualify the current code the first message waits for code they
 * do qualify.
 */
static void enc_start(RVTraceEncoderState *s, CPURISCVState *env,
                      unsigned reason)
{
    s->tracing = true;
    s->notify_live = false;
    /* Trap windows open at traps taken while tracing. */
    memset(s->filter_trap_depth, 0, sizeof(s->filter_trap_depth));
    enc_comps_arm(s);
    s->filtered = !enc_qualified(s, env, env->pc);
    s->etrace = FIELD_EX32(s->control, trTeControl, Format) ==
                TCI_FORMAT_ETRACE;
    if (s->etrace) {
        s->et.lost = false;
        s->et.dloss = false;
        s->et.notify_pending = false;
        et_cpage_flush(s);
        et_data_config(s, false);
        et_support(s, true, ET_QUAL_NO_CHANGE);
        et_restart(s, env, env->pc);
    } else if (!s->filtered) {
        enc_sync_start(s, env, env->pc, reason);
    }
    env->trace_ingress = enc_cs_base(s);
}

/* ProgTraceCorrelation with the I-CNT (and HIST) taken by enc_enter. */
static void enc_correlation(RVTraceEncoderState *s, unsigned evcode)
{
    uint64_t f[NT_FLD_COUNT] = { 0 };

    f[NT_FLD_EVCODE] = evcode;
    f[NT_FLD_CDF] = enc_htm(s) ? 1 : 0;
    f[NT_FLD_ICNT] = enc_take_icnt(s);
    f[NT_FLD_HIST] = s->env->trace_hist;
    enc_send(s, NT_TCODE_ProgTraceCorrelation, f);
    s->env->trace_hist = 1;
}

static void enc_stop(RVTraceEncoderState *s, CPURISCVState *env,
                     unsigned evcode)
{
    if (s->etrace) {
        if (!s->filtered) {
            et_advance(s, env, env->pc, false, 0);
        }
        if (s->et.lost) {
            s->et.lost = false;
            et_support(s, true, ET_QUAL_TRACE_LOST);
        }
        et_end(s, false);
        enc_flush(s);
        env->trace_hist = 1;
        s->tracing = false;
        s->filtered = false;
        s->etrace = false;
        s->et.data = false;
        env->trace_ingress = 0;
        return;
    }
    if (!s->filtered) {
        enc_enter(s, env->pc);
        enc_correlation(s, evcode);
    }
    if (s->lost) {
        /* The gap is reported even when no synchronizing message follows. */
        enc_error(s);
    }
    enc_flush(s);
    s->icnt = 0;
    s->env->trace_hist = 1;
    s->tracing = false;
    s->filtered = false;
    env->trace_ingress = 0;
}

static void strc_maybe_release(RVTraceEncoderState *s);

static void enc_apply_work(CPUState *cs, run_on_cpu_data data)
{
    RVTraceEncoderState *s = data.host_ptr;
    CPURISCVState *env = enc_env(s);
    bool want = enc_want_tracing(s);

    enc_batch_run(s);
    if (want && !s->tracing) {
        enc_start(s, env, NT_SYNC_TRACE_ENABLE);
    } else if (!want && s->tracing) {
        enc_stop(s, env, NT_EVCODE_TRACE_DISABLED);
    }
    qatomic_set(&s->pending, false);
    strc_maybe_release(s);
    enc_batch_arm(s);
}

/* Mode or features changed while tracing: new translations to match. */
static void enc_cs_base_work(CPUState *cs, run_on_cpu_data data)
{
    RVTraceEncoderState *s = data.host_ptr;

    enc_batch_run(s);
    if (s->tracing) {
        if (s->etrace) {
            et_data_config(s, true);
        }
        enc_env(s)->trace_ingress = enc_cs_base(s);
    }
    enc_batch_arm(s);
}

static void enc_schedule_apply(RVTraceEncoderState *s)
{
    if (enc_want_tracing(s) == qatomic_read(&s->tracing)) {
        if (qatomic_read(&s->tracing) &&
            qatomic_read(&enc_env(s)->trace_ingress) != enc_cs_base(s)) {
            async_run_on_cpu(CPU(s->cpu), enc_cs_base_work,
                             RUN_ON_CPU_HOST_PTR(s));
        }
        return;
    }
    qatomic_set(&s->pending, true);
    async_run_on_cpu(CPU(s->cpu), enc_apply_work, RUN_ON_CPU_HOST_PTR(s));
}

/*
 * Sdtrig trace actions (TCI 1.0 "Debug Trigger Module"; debug.c keeps
 * action 2 and 3 in mcontrol/mcontrol6 of execute triggers when this
 * returns true): trace-on and trace-off set and clear trTeInstTracing while
 * trTeInstTrigEnable is 1; trace-notify reports the trigger's address
 * (enc_notify). The trigger fires before the instruction at its address
 * executes, so trace-on traces that instruction first (SYNC=5) and
 * trace-off ends the trace before it (EVCODE=4), as the E-Trace ingress
 * port's "tracing starts from the oldest instruction retired in the cycle
 * that Trace-on is asserted".
 */
bool riscv_trace_trigger_supported(CPURISCVState *env, int action)
{
    return env->trace_encoder && (action == TCI_TRIGACTION_TRACE_ON ||
                                  action == TCI_TRIGACTION_TRACE_OFF ||
                                  action == TCI_TRIGACTION_TRACE_NOTIFY);
}

/*
 * Trace-notify (TCI 1.0: "If tracing is active (trTeInstTracing = 1), then
 * the encoder generates a packet with the current PC and, if enabled, a
 * timestamp") at @pc, the instruction about to execute. N-Trace 1.0 marks a
 * trace event with SYNC=6; the message carries the I-CNT (and HIST) of the
 * instructions before @pc, so no trace data is lost ("For HTM mode, the
 * IndirectBranchHistSync or IndirectBranchSync message with SYNC=6 (Trace
 * Event) should be used"), and B-TYPE=0 as synchronizing messages "not
 * related to code being executed (periodic, notifications etc.)" between
 * indirect jumps have it. BTM uses IndirectBranchSync for the same reason
 * (ProgTraceSync has no I-CNT). F-ADDR is @pc. A pending FIFO-overrun
 * restart keeps its SYNC=7. Nothing is sent while filters exclude the code
 * (not traced). E-Trace (trTeFormat 0): format 1/2 with the notify bit.
 */
static void enc_notify(RVTraceEncoderState *s, CPURISCVState *env,
                       uint64_t pc)
{
    if (!s->tracing || s->filtered) {
        return;
    }
    if (s->etrace) {
        /*
         * E-Trace reports retired instructions: the walk so far, then @pc
         * when it retires (et_retire). Checked twice, it is still one.
         */
        if (!et_advance(s, env, pc, false, 0)) {
            et_restart(s, env, pc);
        }
        env->trace_icnt_k = -pc;
        s->et.notify_pending = true;
        s->et.notify_pc = pc;
        return;
    }
    /*
     * The same execution checked again: nothing was reported since (a way
     * back to @pc is a reported transfer, a queued branch or a HIST bit).
     */
    if (s->notify_live && s->notify_pc == pc && env->trace_hist == 1) {
        return;
    }
    s->notify_live = true;
    s->notify_pc = pc;
    enc_enter(s, pc);
    if (!s->need_sync || s->sync_reason != NT_SYNC_FIFO_OVERRUN) {
        s->sync_reason = NT_SYNC_TRACE_EVENT;
    }
    s->need_sync = true;
    enc_indirect(s, env, pc, NT_BTYPE_INDIRECT);
    enc_leave(s, pc);
}

bool riscv_trace_trigger(CPURISCVState *env, target_ulong pc, int action)
{
    RVTraceEncoderState *s = env->trace_encoder;
    uint32_t was;
    bool want;

    if (!s) {
        return false;
    }
    if (s->trig_skip) {
        s->trig_skip = false;
        if (s->trig_skip_pc == pc) {
            return false;
        }
    }
    if (action == TCI_TRIGACTION_TRACE_NOTIFY) {
        /*
         * Whenever tracing is active (trTeInstTrigEnable only gates
         * trace-on/off), at every execution: translations stay the same.
         */
        enc_batch_run(s);
        enc_notify(s, env, pc);
        enc_batch_arm(s);
        return false;
    }
    if (s->sh_owner ||
        !FIELD_EX32(s->control, trTeControl, InstTrigEnable)) {
        return false;
    }
    if (action == TCI_TRIGACTION_TRACE_ON) {
        s->control |= R_trTeControl_InstTracing_MASK;
    } else if (action == TCI_TRIGACTION_TRACE_OFF) {
        s->control &= ~R_trTeControl_InstTracing_MASK;
    } else {
        return false;
    }
    was = env->trace_ingress;
    enc_batch_run(s);
    want = enc_want_tracing(s);
    if (want && !s->tracing) {
        enc_start(s, env, NT_SYNC_TRACE_ENABLE);
    } else if (!want && s->tracing) {
        enc_stop(s, env, NT_EVCODE_TRACE_DISABLED);
    }
    enc_batch_arm(s);
    if (env->trace_ingress == was) {
        return false;
    }
    s->trig_skip = true;
    s->trig_skip_pc = pc;
    return true;
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

    /* The vCPUs are stopped (or not yet resumed) while this runs. */
    enc_batch_run(s);
    if (!running && state == RUN_STATE_DEBUG && s->tracing) {
        enc_stop(s, env, NT_EVCODE_DEBUG_ENTRY);
        s->debug_stopped = true;
    } else if (!running) {
        /* Whoever looks at the stopped machine sees the trace so far. */
        enc_drain(s);
    } else if (running && s->debug_stopped) {
        s->debug_stopped = false;
        if (enc_want_tracing(s)) {
            enc_start(s, env, NT_SYNC_EXIT_DEBUG);
        }
    }
    enc_batch_arm(s);
}

/* -------------------------------------------------------------- registers */

/* The protocol version fields speak of the format trTeFormat selects. */
static uint32_t enc_impl(RVTraceEncoderState *s)
{
    bool etrace = FIELD_EX32(s->control, trTeControl, Format) ==
                  TCI_FORMAT_ETRACE;
    uint32_t v = 0;

    v = FIELD_DP32(v, trImpl, VerMajor, TCI_VERSION_MAJOR);
    v = FIELD_DP32(v, trImpl, CompType, TCI_COMPTYPE_ENCODER);
    /* N-Trace 1.0; E-Trace 2.0 */
    v = FIELD_DP32(v, trTeImpl, ProtocolMajor, etrace ? 2 : 1);
    v = FIELD_DP32(v, trTeImpl, ProtocolMinor, 0);
    v = FIELD_DP32(v, trImpl, Vendor, RVTRACE_VENDOR_ID);
    return v;
}

static void enc_filters_reset(RVTraceEncoderState *s)
{
    memset(s->comp, 0, sizeof(s->comp));
    s->inst_filters = 0;
    memset(s->filter_control, 0, sizeof(s->filter_control));
    memset(s->filter_match_inst, 0, sizeof(s->filter_match_inst));
    memset(s->filter_ecause, 0, sizeof(s->filter_ecause));
    memset(s->filter_trap_depth, 0, sizeof(s->filter_trap_depth));
}

/*
 * Defaults taken when trTeActive goes 0 -> 1. TCI 1.0's trTeControl table
 * gives trTeInstMode the reset value Undef ("This field/register may not
 * reset. Trace tool must write correct value before enabling the trace
 * component"); we reset it to 0 ("Full Instruction trace is disabled"), so
 * software that ORs a mode into the value after reset instead of writing
 * the field (Linux's posted rvtrace encoder driver ORs 6) gets that mode.
 */
static void enc_defaults(RVTraceEncoderState *s)
{
    uint32_t c = R_trTeControl_Active_MASK;

    c = FIELD_DP32(c, trTeControl, InstMode, TCI_INSTMODE_OFF);
    c = FIELD_DP32(c, trTeControl, Format, TCI_FORMAT_NTRACE);
    s->control = c;
    s->inst_features = 0;
    s->data_control = 0;
    enc_filters_reset(s);
    rvtrace_ts_write(&s->ts, R_trTsControl_Active_MASK, false, true, true);
}

static unsigned enc_legal_inst_mode(unsigned m)
{
    switch (m) {
    case TCI_INSTMODE_OFF:
    case TCI_INSTMODE_BTM:
    case TCI_INSTMODE_HTM:
        return m;
    case 7:
        return TCI_INSTMODE_HTM;
    default:
        /* Unsupported non-zero modes revert to a supported non-zero one. */
        return TCI_INSTMODE_BTM;
    }
}

static void enc_write_control(RVTraceEncoderState *s, uint32_t val)
{
    bool was_active = s->control & R_trTeControl_Active_MASK;
    bool was_enabled = s->control & R_trTeControl_Enable_MASK;
    uint32_t nc = R_trTeControl_Active_MASK;
    unsigned sync_mode;

    if (!(val & R_trTeControl_Active_MASK)) {
        s->control = 0;
        s->inst_features = 0;
        s->data_control = 0;
        rvtrace_ts_reset(&s->ts);
        enc_schedule_apply(s);
        return;
    }
    if (!was_active) {
        enc_defaults(s);
        return;
    }
    /* Trace-on/off from Sdtrig trigger actions (riscv_trace_trigger). */
    if (riscv_cpu_cfg(enc_env(s))->debug) {
        nc |= val & R_trTeControl_InstTrigEnable_MASK;
    }
    nc |= val & (R_trTeControl_Enable_MASK |
                 R_trTeControl_InstTracing_MASK |
                 R_trTeControl_Context_MASK |
                 R_trTeControl_InhibitSrc_MASK |
                 R_trTeControl_InstStallEna_MASK |
                 R_trTeControl_InstSyncMax_MASK);
    nc = FIELD_DP32(nc, trTeControl, InstMode,
                    enc_legal_inst_mode(FIELD_EX32(val, trTeControl,
                                                   InstMode)));
    sync_mode = FIELD_EX32(val, trTeControl, InstSyncMode);
    nc = FIELD_DP32(nc, trTeControl, InstSyncMode, sync_mode);
    /* trTeFormat: E-Trace (0) or N-Trace (1); other values select N-Trace. */
    nc = FIELD_DP32(nc, trTeControl, Format,
                    FIELD_EX32(val, trTeControl, Format) == TCI_FORMAT_ETRACE ?
                    TCI_FORMAT_ETRACE : TCI_FORMAT_NTRACE);
    /* InstStallOrOverflow: write 1 to clear; cleared when enabling. */
    if (!(val & R_trTeControl_InstStallOrOverflow_MASK) &&
        !(!was_enabled && (val & R_trTeControl_Enable_MASK))) {
        nc |= s->control & R_trTeControl_InstStallOrOverflow_MASK;
    }
    /* trTeDataStallOrOverflow too is cleared when enabling. */
    if (!was_enabled && (val & R_trTeControl_Enable_MASK)) {
        s->data_control &= ~R_trTeDataControl_StallOrOverflow_MASK;
    }
    s->control = nc;
    enc_schedule_apply(s);
}

/*
 * trTeDataControl. Data trace exists in E-Trace only (N-Trace 1.0 requires
 * every trTeData field to be 0), so with trTeFormat 1 the register reads 0;
 * with trTeFormat 0 Implemented reads 1. Writable: Tracing (takes effect at
 * once, also while tracing, announced by a support packet), NoValue and
 * NoAddr (not both: no packet has neither address nor data, so NoAddr is
 * dropped when NoValue is set). AddrCompress reads 3, protocol defined:
 * E-Trace's differential addresses (dataTracePayload.adoc 8.1.3).
 * StallOrOverflow is set when a data packet is dropped (write 1 to clear;
 * cleared when trTeEnable goes 1). TrigEnable, StallEna, Drop and DropEna
 * read 0: no triggers, and data packets share the FIFO with the
 * instruction packets, so they stall the hart with InstStallEna and are
 * dropped without it. trTeDataFilters reads 0: data trace is qualified as
 * instruction trace is (trTeInstFilters, NoMmode).
 */
static void enc_write_data_control(RVTraceEncoderState *s, uint32_t val)
{
    uint32_t nv = val & (R_trTeDataControl_Tracing_MASK |
                         R_trTeDataControl_NoValue_MASK);

    if (!(val & R_trTeDataControl_NoValue_MASK)) {
        nv |= val & R_trTeDataControl_NoAddr_MASK;
    }
    if (!(val & R_trTeDataControl_StallOrOverflow_MASK)) {
        nv |= s->data_control & R_trTeDataControl_StallOrOverflow_MASK;
    }
    s->data_control = nv;
    if (qatomic_read(&s->tracing) && s->etrace) {
        async_run_on_cpu(CPU(s->cpu), enc_cs_base_work, RUN_ON_CPU_HOST_PTR(s));
    }
}

static void enc_write_features(RVTraceEncoderState *s, uint32_t val)
{
    uint32_t mask = R_trTeInstFeatures_EnImplicitReturn_MASK |
                    R_trTeInstFeatures_ImplicitReturnMode_MASK |
                    R_trTeInstFeatures_EnRepeatedHistory_MASK |
                    R_trTeInstFeatures_EnAllJumps_MASK |
                    R_trTeInstFeatures_EnSequentialJump_MASK |
                    R_trTeInstFeatures_ExtendAddrMSB_MASK |
                    R_trTeInstFeatures_SrcID_MASK;
    uint32_t nv = val & mask;

    nv = FIELD_DP32(nv, trTeInstFeatures, SrcBits,
                    MIN(FIELD_EX32(val, trTeInstFeatures, SrcBits),
                        NT_LIMIT_MAX_SRC));
    s->inst_features = nv;
    enc_schedule_apply(s);
}

/* A register of an implemented comparator: its index and comparator-0 offset. */
static bool enc_comp_reg(hwaddr addr, unsigned *j, hwaddr *reg)
{
    if (addr < A_trTeComp0Control ||
        addr >= A_trTeComp0Control + RVTRACE_NUM_COMPS * TCI_trTeComp0Control_STRIDE) {
        return false;
    }
    *j = (addr - A_trTeComp0Control) / TCI_trTeComp0Control_STRIDE;
    *reg = A_trTeComp0Control + (addr - A_trTeComp0Control) % TCI_trTeComp0Control_STRIDE;
    return true;
}

/* A register of an implemented filter: its index and filter-0 offset. */
static bool enc_filter_reg(hwaddr addr, unsigned *i, hwaddr *reg)
{
    if (addr < A_trTeFilter0Control ||
        addr >= A_trTeFilter0Control + RVTRACE_NUM_FILTERS * TCI_trTeFilter0Control_STRIDE) {
        return false;
    }
    *i = (addr - A_trTeFilter0Control) / TCI_trTeFilter0Control_STRIDE;
    *reg = A_trTeFilter0Control + (addr - A_trTeFilter0Control) % TCI_trTeFilter0Control_STRIDE;
    return true;
}

static uint64_t enc_read(void *opaque, hwaddr addr, unsigned size)
{
    RVTraceEncoderState *s = opaque;
    uint32_t v = 0;
    unsigned i;
    hwaddr reg;

    switch (addr) {
    case A_trTeControl:
        v = s->control;
        if (!qatomic_read(&s->pending) && !qatomic_read(&s->fifo_len) &&
            !qatomic_read(&enc_env(s)->trace_batch_n)) {
            v |= R_trTeControl_Empty_MASK;
        }
        break;
    case A_trTeImpl:
        v = enc_impl(s);
        break;
    case A_trTeInstFeatures:
        v = s->inst_features;
        break;
    case A_trTeInstFilters:
        v = s->inst_filters;
        break;
    case A_trTeDataControl:
        if (FIELD_EX32(s->control, trTeControl, Format) == TCI_FORMAT_ETRACE) {
            v = s->data_control | R_trTeDataControl_Implemented_MASK;
            v = FIELD_DP32(v, trTeDataControl, AddrCompress,
                           TCI_DADDRCOMPRESS_PROTOCOL);
        }
        break;
    case A_trTeVendorControl:
        v = s->no_mmode ? R_trTeVendorControl_NoMmode_MASK : 0;
        break;
    case A_trTsControl:
        v = s->ts.control;
        break;
    case A_trTsCounterLow:
    case A_trTsCounterHigh:
        if (FIELD_EX32(s->ts.control, trTsControl, Mode) ==
            TCI_TSMODE_SHARED) {
            uint64_t ts = rvtrace_sink_timestamp(s->output);

            v = addr == A_trTsCounterLow ? (uint32_t)ts : ts >> 32;
        } else if (FIELD_EX32(s->ts.control, trTsControl, Mode) ==
                   TCI_TSMODE_CORE) {
            uint64_t ts = rvtrace_ts_value(&s->ts);

            v = addr == A_trTsCounterLow ? (uint32_t)ts : ts >> 32;
        }
        break;
    default:
        if (enc_filter_reg(addr, &i, &reg)) {
            v = reg == A_trTeFilter0Control ? s->filter_control[i] :
                reg == A_trTeFilter0MatchInst ? s->filter_match_inst[i] :
                reg == A_trTeFilter0MatchEcauseLow ? (uint32_t)s->filter_ecause[i] :
                reg == A_trTeFilter0MatchEcauseHigh ? s->filter_ecause[i] >> 32 : 0;
        } else if (enc_comp_reg(addr, &i, &reg)) {
            RVTraceComp *c = &s->comp[i];

            v = reg == A_trTeComp0Control ? c->control :
                reg == A_trTeComp0PMatchLow ? (uint32_t)c->pmatch :
                reg == A_trTeComp0PMatchHigh ? c->pmatch >> 32 :
                reg == A_trTeComp0SMatchLow ? (uint32_t)c->smatch :
                reg == A_trTeComp0SMatchHigh ? c->smatch >> 32 : 0;
        }
        /* External triggers, trTeDataFilters: none (read 0). */
        break;
    }
    if (!(s->control & R_trTeControl_Active_MASK) &&
        addr != A_trTeControl) {
        v = 0;
    }
    trace_rvtrace_encoder_read(s->port, addr, v);
    return v;
}

static void enc_write_reg(RVTraceEncoderState *s, hwaddr addr, uint32_t val)
{
    unsigned i;
    hwaddr reg;

    trace_rvtrace_encoder_write(s->port, addr, val);
    if (s->sh_owner) {
        /*
         * Self-hosted trace owns the encoder: the Trace Control Interface
         * shows its values (smstrc.adoc "Interoperability with Trace
         * Control Interface") but cannot change them, so whoever holds
         * the MMIO window cannot add M-mode or move the output.
         */
        qemu_log_mask(LOG_GUEST_ERROR, "rvtrace-encoder%u: write 0x%03x "
                      "ignored: self-hosted trace owns the encoder\n",
                      s->port, (unsigned)addr);
        return;
    }
    if (!(s->control & R_trTeControl_Active_MASK) &&
        addr != A_trTeControl) {
        return;
    }
    switch (addr) {
    case A_trTeControl:
        enc_write_control(s, val);
        break;
    case A_trTeInstFeatures:
        enc_write_features(s, val);
        break;
    case A_trTeDataControl:
        enc_write_data_control(s, val);
        break;
    case A_trTsControl:
        rvtrace_ts_write(&s->ts, val, false, true, true);
        break;
    case A_trTeInstFilters:
        /*
         * Filters are looked at when tracing starts and at traps and trap
         * returns; a change while tracing takes effect at the next one.
         */
        s->inst_filters = val & MAKE_64BIT_MASK(0, RVTRACE_NUM_FILTERS);
        break;
    case A_trTeVendorControl:
        /* Set only; taken into account as a filter change is. */
        if (val & R_trTeVendorControl_NoMmode_MASK) {
            s->no_mmode = true;
        }
        break;
    default:
        if (enc_filter_reg(addr, &i, &reg)) {
            if (reg == A_trTeFilter0Control) {
                uint32_t nv = val & (R_trTeFilter0Control_Enable_MASK |
                                     R_trTeFilter0Control_MatchPrivilege_MASK |
                                     R_trTeFilter0Control_MatchEcause_MASK |
                                     R_trTeFilter0Control_MatchInterrupt_MASK |
                                     R_trTeFilter0Control_MatchComp1_MASK |
                                     R_trTeFilter0Control_MatchComp2_MASK |
                                     R_trTeFilter0Control_MatchComp3_MASK);

                /* Comparator numbers: WARL, the implemented ones. */
                nv = FIELD_DP32(nv, trTeFilter0Control, Comp1,
                                FIELD_EX32(val, trTeFilter0Control, Comp1) %
                                RVTRACE_NUM_COMPS);
                nv = FIELD_DP32(nv, trTeFilter0Control, Comp2,
                                FIELD_EX32(val, trTeFilter0Control, Comp2) %
                                RVTRACE_NUM_COMPS);
                nv = FIELD_DP32(nv, trTeFilter0Control, Comp3,
                                FIELD_EX32(val, trTeFilter0Control, Comp3) %
                                RVTRACE_NUM_COMPS);
                s->filter_control[i] = nv;
            } else if (reg == A_trTeFilter0MatchInst) {
                s->filter_match_inst[i] = val & (RVTRACE_PRIV_CHOICE_MASK |
                    R_trTeFilter0MatchInst_ValueInterrupt_MASK);
            } else if (reg == A_trTeFilter0MatchEcauseLow) {
                s->filter_ecause[i] = deposit64(s->filter_ecause[i], 0, 32, val);
            } else if (reg == A_trTeFilter0MatchEcauseHigh) {
                s->filter_ecause[i] = deposit64(s->filter_ecause[i], 32, 32, val);
            }
        } else if (enc_comp_reg(addr, &i, &reg)) {
            RVTraceComp *c = &s->comp[i];

            if (reg == A_trTeComp0Control) {
                uint32_t nv = val & ENC_COMP_CONTROL_MASK;

                /* Inputs iaddr and context; tval and daddr read iaddr. */
                if (FIELD_EX32(nv, trTeComp0Control, PInput) !=
                    TCI_COMPINPUT_CONTEXT) {
                    nv = FIELD_DP32(nv, trTeComp0Control, PInput,
                                    TCI_COMPINPUT_IADDR);
                }
                if (FIELD_EX32(nv, trTeComp0Control, SInput) !=
                    TCI_COMPINPUT_CONTEXT) {
                    nv = FIELD_DP32(nv, trTeComp0Control, SInput,
                                    TCI_COMPINPUT_IADDR);
                }
                c->control = nv;
            } else if (reg == A_trTeComp0PMatchLow) {
                c->pmatch = deposit64(c->pmatch, 0, 32, val);
            } else if (reg == A_trTeComp0PMatchHigh) {
                c->pmatch = deposit64(c->pmatch, 32, 32, val);
            } else if (reg == A_trTeComp0SMatchLow) {
                c->smatch = deposit64(c->smatch, 0, 32, val);
            } else if (reg == A_trTeComp0SMatchHigh) {
                c->smatch = deposit64(c->smatch, 32, 32, val);
            }
        }
        /* Other unimplemented registers ignore writes (WARL 0). */
        break;
    }
}

/*
 * Whether this thread may touch the traced hart's encoder state: it is the
 * hart's own thread, or a vCPU thread while TCG runs every vCPU on one
 * thread, or the VM is stopped.
 */
static bool enc_hart_quiet(RVTraceEncoderState *s)
{
    return current_cpu == CPU(s->cpu) ||
           (current_cpu && !qemu_tcg_mttcg_enabled()) ||
           !runstate_is_running();
}

/*
 * The branches the hart queued retired before this write: they are encoded
 * with the registers as they were. Where the hart runs concurrently (another
 * vCPU thread), the write is not ordered with its instructions anyway; the
 * hart's next queued branch then encodes the queue and looks again.
 */
static void enc_write(void *opaque, hwaddr addr, uint64_t val64, unsigned size)
{
    RVTraceEncoderState *s = opaque;
    bool quiet = enc_hart_quiet(s);

    if (quiet) {
        enc_batch_run(s);
    }
    enc_write_reg(s, addr, val64);
    if (quiet) {
        enc_batch_arm(s);
    } else {
        qatomic_set(&s->env->trace_batch_lim, 0);
    }
}

/* ------------------------------------------------------ self-hosted trace */
/*
 * The draft's CSR front end (Smstrcn/Ssstrcn, smstrc.adoc) on the same
 * engine: a write of mstrcctl/sstrcctl/vsstrcctl loads the Trace Control
 * Interface values the draft's table gives ("Trace Control Interface
 * Values for Self-hosted Trace": HTM, InhibitSrc, N-Trace, filter 0 on
 * privilege from U/S/M and vsstrcctl's U/S as VU/VS, the shared timestamp
 * from time) into the TCI registers, and the existing start/stop machinery
 * runs. From mstrcctl.EN 0->1 until the stop has drained, the CSRs own the
 * encoder: its output is the hart's AMB, MMIO writes are ignored. While an
 * MMIO session has trTeEnable=1, EN does not stick (WARL).
 */

#define STRC_CTL_STORED (STRCCTL_EN | STRCCTL_IT | STRCCTL_CEN | STRCCTL_STEN | \
                         STRCCTL_SMOD | STRCCTL_SMAX | STRCCTL_ESJ | \
                         STRCCTL_EIR | STRCCTL_ERH | STRCCTL_EAJ | \
                         STRCCTL_EAM | STRCCTL_TSEN | STRCCTL_U | \
                         STRCCTL_S | STRCCTL_M)

static bool enc_empty(RVTraceEncoderState *s)
{
    return !qatomic_read(&s->pending) && !qatomic_read(&s->fifo_len) &&
           !qatomic_read(&enc_env(s)->trace_batch_n);
}

static uint64_t strc_read_ctl(RVTraceEncoderState *s, int which)
{
    uint64_t v = s->sh_ctl;

    if (enc_empty(s)) {
        v |= STRCCTL_EMPTY;
    }
    if (s->sh_owner &&
        FIELD_EX32(s->control, trTeControl, InstStallOrOverflow)) {
        v |= STRCCTL_STOF;
    }
    if (which == RISCV_STRC_SCTL) {
        v &= ~STRCCTL_M;        /* sstrcctl[63] is read-only 0 (S:103) */
    } else if (which == RISCV_STRC_VSCTL) {
        v &= ~(STRCCTL_U | STRCCTL_S | STRCCTL_M);
        v |= (s->sh_vs & 1 ? STRCCTL_U : 0) | (s->sh_vs & 2 ? STRCCTL_S : 0);
    }
    return v;
}

/* The TCI registers as the draft's table derives them from the CSRs. */
static void strc_load_tci(RVTraceEncoderState *s)
{
    uint64_t c = s->sh_ctl;
    uint32_t v = R_trTeControl_Active_MASK | R_trTeControl_InhibitSrc_MASK;
    uint32_t match = 0;

    if (c & STRCCTL_EN) {
        v |= R_trTeControl_Enable_MASK;
    }
    if (c & STRCCTL_IT) {
        v |= R_trTeControl_InstTracing_MASK;
    }
    if (c & STRCCTL_CEN) {
        v |= R_trTeControl_Context_MASK;
    }
    if (c & STRCCTL_STEN) {
        v |= R_trTeControl_InstStallEna_MASK;
    }
    v = FIELD_DP32(v, trTeControl, InstMode, TCI_INSTMODE_HTM);
    v = FIELD_DP32(v, trTeControl, InstSyncMode,
                   (c & STRCCTL_SMOD) >> STRCCTL_SMOD_SHIFT);
    v = FIELD_DP32(v, trTeControl, InstSyncMax,
                   (c & STRCCTL_SMAX) >> STRCCTL_SMAX_SHIFT);
    v = FIELD_DP32(v, trTeControl, Format, TCI_FORMAT_NTRACE);
    v |= s->control & R_trTeControl_InstStallOrOverflow_MASK;
    s->control = v;

    v = 0;
    if (c & STRCCTL_EIR) {
        v |= R_trTeInstFeatures_EnImplicitReturn_MASK;
        v = FIELD_DP32(v, trTeInstFeatures, ImplicitReturnMode,
                       TCI_IRETMODE_FULL);
    }
    v |= c & STRCCTL_ERH ? R_trTeInstFeatures_EnRepeatedHistory_MASK : 0;
    v |= c & STRCCTL_EAJ ? R_trTeInstFeatures_EnAllJumps_MASK : 0;
    v |= c & STRCCTL_ESJ ? R_trTeInstFeatures_EnSequentialJump_MASK : 0;
    v |= c & STRCCTL_EAM ? R_trTeInstFeatures_ExtendAddrMSB_MASK : 0;
    s->inst_features = v;

    match |= c & STRCCTL_U ? 1u << TCI_PRIV_U : 0;
    match |= c & STRCCTL_S ? 1u << TCI_PRIV_S : 0;
    match |= c & STRCCTL_M ? 1u << TCI_PRIV_M : 0;
    match |= s->sh_vs & 1 ? 1u << TCI_PRIV_VU : 0;
    match |= s->sh_vs & 2 ? 1u << TCI_PRIV_VS : 0;
    enc_filters_reset(s);
    s->inst_filters = 1;
    s->filter_control[0] = R_trTeFilter0Control_Enable_MASK |
                           R_trTeFilter0Control_MatchPrivilege_MASK;
    s->filter_match_inst[0] = match;

    v = R_trTsControl_Active_MASK;
    v = FIELD_DP32(v, trTsControl, Mode, TCI_TSMODE_SHARED);
    v = FIELD_DP32(v, trTsControl, Enable, !!(c & STRCCTL_TSEN));
    if (v != s->ts.control) {
        rvtrace_ts_write(&s->ts, v, false, true, true);
    }
}

/* The CSRs take the engine: its output becomes the AMB. */
static void strc_claim(RVTraceEncoderState *s)
{
    s->sh_owner = true;
    s->mmio_output = s->output;
    s->mmio_out_if = s->out_if;
    s->mmio_out_k = s->out_k;
    s->mmio_port = s->port;
    s->output = OBJECT(s->amb);
    s->out_if = RVTRACE_SINK_IF(s->amb);
    s->out_k = RVTRACE_SINK_IF_GET_CLASS(s->amb);
    /* InstStallOrOverflow (STOF) is cleared by EN 0->1 as TCI does. */
    s->control = 0;
    s->lost = false;
}

/*
 * Stopped and drained after EN 1->0: the MMIO side gets the encoder back
 * as after a reset (trTeActive=0); STOF stays readable in sh_ctl.
 */
static void strc_maybe_release(RVTraceEncoderState *s)
{
    if (!s->sh_owner || (s->sh_ctl & STRCCTL_EN) || s->tracing ||
        qatomic_read(&s->pending)) {
        return;
    }
    if (s->fifo_len && !enc_drain(s)) {
        qatomic_set(&s->fifo_len, 0);
        enc_lose(s);
    }
    if (FIELD_EX32(s->control, trTeControl, InstStallOrOverflow)) {
        s->sh_ctl |= STRCCTL_STOF;
    }
    s->sh_owner = false;
    s->output = s->mmio_output;
    s->out_if = s->mmio_out_if;
    s->out_k = s->mmio_out_k;
    s->port = s->mmio_port;
    s->control = 0;
    s->inst_features = 0;
    enc_filters_reset(s);
    rvtrace_ts_reset(&s->ts);
    s->lost = false;
}

static void strc_write_ctl(RVTraceEncoderState *s, int which, uint64_t val)
{
    uint64_t stored = STRC_CTL_STORED;
    uint64_t nc;

    if (which == RISCV_STRC_SCTL) {
        stored &= ~STRCCTL_M;
    } else if (which == RISCV_STRC_VSCTL) {
        stored &= ~(STRCCTL_U | STRCCTL_S | STRCCTL_M);
        s->sh_vs = (val & STRCCTL_U ? 1 : 0) | (val & STRCCTL_S ? 2 : 0);
    }
    /* STOF: hardware sets it, software writes 0 to clear it. */
    if (!(val & STRCCTL_STOF)) {
        s->sh_ctl &= ~STRCCTL_STOF;
        s->control = FIELD_DP32(s->control, trTeControl,
                                InstStallOrOverflow, 0);
    }
    nc = (s->sh_ctl & ~stored) | (val & stored);
    if ((nc & STRCCTL_EN) && !s->sh_owner &&
        (s->control & R_trTeControl_Enable_MASK)) {
        /* An MMIO session holds the encoder: EN does not stick. */
        nc &= ~STRCCTL_EN;
    }
    if ((nc & STRCCTL_EN) && !(s->sh_ctl & STRCCTL_EN)) {
        nc &= ~STRCCTL_STOF;
        if (!s->sh_owner) {
            strc_claim(s);
        }
    }
    s->sh_ctl = nc;
    if (!s->sh_owner) {
        return;
    }
    /*
     * A change of U/S/M while tracing takes effect as a TCI filter change
     * does, at the next trap or trap return (README, "Self-hosted trace").
     */
    strc_load_tci(s);
    enc_schedule_apply(s);
    if (!qatomic_read(&s->pending)) {
        strc_maybe_release(s);
    }
}

void riscv_strc_rmw(CPURISCVState *env, int which, target_ulong *ret_val,
                    target_ulong new_val, target_ulong wr_mask)
{
    RVTraceEncoderState *s = env->trace_encoder;
    uint64_t cur;

    /* The hart's own thread: queued branches retired before this write. */
    enc_batch_run(s);
    switch (which) {
    case RISCV_STRC_AMBCS:
        cur = rvtrace_amb_read_cs(s->amb, enc_empty(s));
        if (wr_mask) {
            rvtrace_amb_write_cs(s->amb, (cur & ~wr_mask) | (new_val & wr_mask));
        }
        break;
    case RISCV_STRC_AMBADDR:
        cur = s->amb->addr;
        if (wr_mask) {
            s->amb->addr = (cur & ~wr_mask) | (new_val & wr_mask);
            rvtrace_amb_tlb_flush(s->amb);
        }
        break;
    default:
        cur = strc_read_ctl(s, which);
        if (wr_mask) {
            strc_write_ctl(s, which, (cur & ~wr_mask) | (new_val & wr_mask));
        }
        break;
    }
    if (ret_val) {
        *ret_val = cur;
    }
    enc_batch_arm(s);
}

void riscv_strc_tlb_flush(CPURISCVState *env)
{
    RVTraceEncoderState *s = env->trace_encoder;

    if (s->amb) {
        rvtrace_amb_tlb_flush(s->amb);
    }
    /* The E-Trace walk's code pages too (page tables may have changed). */
    et_cpage_flush(s);
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

    if (s->sh_owner) {
        s->output = s->mmio_output;
        s->out_if = s->mmio_out_if;
        s->out_k = s->mmio_out_k;
        s->port = s->mmio_port;
        s->sh_owner = false;
    }
    s->sh_ctl = 0;
    s->sh_vs = 0;
    if (s->amb) {
        s->amb->cs = 0;
        s->amb->addr = 0;
        s->amb->suspended = false;
        rvtrace_amb_tlb_flush(s->amb);
    }

    s->control = 0;
    s->inst_features = 0;
    enc_filters_reset(s);
    rvtrace_ts_reset(&s->ts);
    s->tracing = false;
    s->filtered = false;
    s->no_mmode = false;
    s->lost = false;
    s->pending = false;
    s->fifo_len = 0;
    if (s->env) {
        s->env->trace_ingress = 0;
        s->env->trace_batch_n = 0;
        s->env->trace_batch_lim = 0;
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
    /* enc_send_hist_full_fast writes this row's layout itself. */
    g_assert(nt_fields_ResourceFull[0].id == NT_FLD_RCODE &&
             nt_fields_ResourceFull[0].cond_id < 0 &&
             nt_fields_ResourceFull[1].id == NT_FLD_RDATA &&
             nt_fields_ResourceFull[1].cond_id < 0 &&
             nt_fields_ResourceFull[2].cond_id == NT_FLD_RCODE &&
             nt_fields_ResourceFull[2].cond_val != NT_RCODE_HIST_FULL &&
             nt_fields_ResourceFull[3].id < 0 &&
             nt_field_info[NT_FLD_RDATA].kind == NTRACE_KIND_VAR);
    if (!s->output || !object_dynamic_cast(s->output, TYPE_RVTRACE_SINK_IF)) {
        error_setg(errp, "rvtrace-encoder: 'output' must link a funnel or sink");
        return;
    }
    /* Resolved once: messages are pushed on the hot path. */
    s->out_if = RVTRACE_SINK_IF(s->output);
    s->out_k = RVTRACE_SINK_IF_GET_CLASS(s->output);
    s->env = &RISCV_CPU(s->cpu)->env;
    s->env->trace_encoder = s;
    if (RISCV_CPU(s->cpu)->cfg.ext_smstrcn) {
        /* Self-hosted trace: the hart's asynchronous memory buffer. */
        s->amb = RVTRACE_AMB(object_new(TYPE_RVTRACE_AMB));
        object_property_add_child(OBJECT(dev), "amb", OBJECT(s->amb));
        object_unref(OBJECT(s->amb));
        s->amb->enc = s;
        s->amb->env = s->env;
    }
    s->icnt_max = MAKE_64BIT_MASK(0, s->icnt_bits);
    s->env->trace_hist_full = 1u << (s->hist_bits - 1);
    memory_region_init_io(&s->mmio, OBJECT(dev), &enc_ops, s,
                          TYPE_RVTRACE_ENCODER, TCI_COMPONENT_SIZE);
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

static bool enc_comps_needed(void *opaque)
{
    RVTraceEncoderState *s = opaque;
    unsigned j;

    for (j = 0; j < RVTRACE_NUM_COMPS; j++) {
        if (s->comp[j].control || s->comp[j].pmatch || s->comp[j].smatch) {
            return true;
        }
    }
    return false;
}

static const VMStateDescription vmstate_rvtrace_comp = {
    .name = "riscv.trace.encoder/comp",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(control, RVTraceComp),
        VMSTATE_UINT64(pmatch, RVTraceComp),
        VMSTATE_UINT64(smatch, RVTraceComp),
        VMSTATE_END_OF_LIST()
    }
};

/* The comparator registers (tracing itself does not migrate: README). */
static const VMStateDescription vmstate_enc_comps = {
    .name = "riscv.trace.encoder/comparators",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = enc_comps_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT_ARRAY(comp, RVTraceEncoderState, RVTRACE_NUM_COMPS, 1,
                             vmstate_rvtrace_comp, RVTraceComp),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_enc = {
    .name = TYPE_RVTRACE_ENCODER,
    .version_id = 4,
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
        VMSTATE_UINT64(sync_cycles, RVTraceEncoderState),
        VMSTATE_UINT32(priv, RVTraceEncoderState),
        VMSTATE_UINT32(rep_hist, RVTraceEncoderState),
        VMSTATE_UINT32(hrepeat, RVTraceEncoderState),
        VMSTATE_BOOL(rep_valid, RVTraceEncoderState),
        VMSTATE_UINT32(bcnt, RVTraceEncoderState),
        VMSTATE_UINT64_ARRAY(stack, RVTraceEncoderState, RVTRACE_CALL_STACK),
        VMSTATE_UINT32(stack_depth, RVTraceEncoderState),
        VMSTATE_UINT32(call_count, RVTraceEncoderState),
        VMSTATE_UINT32_V(inst_filters, RVTraceEncoderState, 2),
        VMSTATE_UINT32_ARRAY_V(filter_control, RVTraceEncoderState,
                               RVTRACE_NUM_FILTERS, 2),
        VMSTATE_UINT32_ARRAY_V(filter_match_inst, RVTraceEncoderState,
                               RVTRACE_NUM_FILTERS, 2),
        VMSTATE_BOOL_V(filtered, RVTraceEncoderState, 2),
        VMSTATE_UINT64_ARRAY_V(filter_ecause, RVTraceEncoderState,
                               RVTRACE_NUM_FILTERS, 2),
        VMSTATE_UINT32_ARRAY_V(filter_trap_depth, RVTraceEncoderState,
                               RVTRACE_NUM_FILTERS, 2),
        VMSTATE_BOOL_V(no_mmode, RVTraceEncoderState, 3),
        VMSTATE_UINT32_V(data_control, RVTraceEncoderState, 4),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * const []) {
        &vmstate_enc_comps,
        NULL
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
