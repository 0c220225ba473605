/*
 * Ssamb asynchronous memory buffer (RISC-V self-hosted trace draft,
 * riscv/self-hosted-trace asyncmbuf.adoc, March 2026) for the hart's
 * self-hosted trace (Smstrcn): a trace sink the hart's encoder writes into
 * while its CSRs own it (rvtrace-encoder.c "Self-hosted trace").
 *
 * The buffer is 2^(SIZE+12) bytes, aligned to its size, at a virtual
 * address. Writes use the privilege menvcfg.STRCS selects: 1 is S/HS-mode
 * through satp (with SUM=0), 0 is M-mode without translation
 * ("Asynchronous Write Privilege and Address Translation"). Translations
 * are cached in a two-entry AMB TLB, the current page and the next one
 * ("AMB Page Pre-translation"); SFENCE.VMA drops them. A translation that
 * fails sets sambcs.TF and TFPTR, pends LAMBI and suspends pre-translation
 * until software clears TF; it never raises an exception. The AMB takes
 * data only while the translated room minus a reserve for the encoder's
 * whole internal buffer is enough (backpressure: the source drops whole
 * messages, recoverable loss), so the flush at disable never needs a
 * translation (the flush then uses the reserve). Whole N-Trace messages only are written; with SOF the rest
 * of the buffer is filled with idle bytes 0xFF at the first message that
 * does not fit. Choices the draft leaves open are in
 * hw_models/qemu/README.md, "Self-hosted trace".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qemu/main-loop.h"
#include "exec/address-spaces.h"
#include "hw/core/cpu.h"
#include "target/riscv/cpu.h"
#include "target/riscv/trace_ingress.h"
#include "hw/riscv/rvtrace.h"

#define AMB_PAGE 4096ULL
/* Room kept free for the flush at disable: the encoder's FIFO, whole. */
#define AMB_RESERVE (RVTRACE_FIFO_SIZE + RVTRACE_FIFO_STALL_ROOM + RVTRACE_MSG_MAX)

/* Writable sambcs fields (EMPTY and TRV are computed, A:30-76). */
#define AMB_CS_STORED (SAMBCS_EN | SAMBCS_TF | SAMBCS_BMI | SAMBCS_SIZE | \
                       SAMBCS_TFPTR | SAMBCS_BMITH | SAMBCS_BMIEN | \
                       SAMBCS_SOF | SAMBCS_WRAP)

static uint64_t amb_size(RVTraceAmbState *a)
{
    return AMB_PAGE << ((a->cs & SAMBCS_SIZE) >> SAMBCS_SIZE_SHIFT);
}

static uint64_t amb_offset(RVTraceAmbState *a, uint64_t va)
{
    return va & (amb_size(a) - 1);
}

static uint64_t amb_base(RVTraceAmbState *a)
{
    return a->addr & ~(amb_size(a) - 1);
}

/* The page after @page inside the buffer (wrapping at its end). */
static uint64_t amb_next_page(RVTraceAmbState *a, uint64_t page)
{
    return amb_base(a) | amb_offset(a, page + AMB_PAGE);
}

static bool amb_smode(RVTraceAmbState *a)
{
    return a->env->menvcfg & STRC_MENVCFG_STRCS;
}

static void amb_lambi(RVTraceAmbState *a)
{
    riscv_cpu_update_mip(a->env, MIP_LAMBIP, MIP_LAMBIP);
}

/*
 * Translate @page into @e. A fault sets TF and TFPTR (the page's offset in
 * the buffer, A:54), pends LAMBI and suspends pre-translation (A:173).
 */
static bool amb_translate(RVTraceAmbState *a, RVTraceAmbTlb *e, uint64_t page)
{
    hwaddr pa;

    if (a->suspended) {
        return false;
    }
    if (riscv_cpu_amb_translate(a->env, page, amb_smode(a), &pa) !=
        TRANSLATE_SUCCESS) {
        a->suspended = true;
        a->cs = (a->cs & ~SAMBCS_TFPTR) | SAMBCS_TF |
                ((amb_offset(a, page) >> 12) << SAMBCS_TFPTR_SHIFT);
        amb_lambi(a);
        return false;
    }
    e->va = page;
    e->pa = pa;
    e->valid = true;
    return true;
}

/* Fill the AMB TLB for the current page and the next one, in that order. */
static void amb_pretranslate(RVTraceAmbState *a)
{
    uint64_t cur = a->addr & ~(AMB_PAGE - 1);

    if (!(a->cs & SAMBCS_EN)) {
        return;
    }
    if (!a->tlb[0].valid && !amb_translate(a, &a->tlb[0], cur)) {
        return;
    }
    if (!a->tlb[1].valid && amb_size(a) > AMB_PAGE) {
        amb_translate(a, &a->tlb[1], amb_next_page(a, cur));
    }
}

void rvtrace_amb_tlb_flush(RVTraceAmbState *a)
{
    a->tlb[0].valid = false;
    a->tlb[1].valid = false;
}

/* Translated bytes from sambaddr on. */
static uint64_t amb_room(RVTraceAmbState *a)
{
    uint64_t room;

    if (!a->tlb[0].valid) {
        return 0;
    }
    room = AMB_PAGE - (a->addr & (AMB_PAGE - 1));
    if (amb_size(a) == AMB_PAGE) {
        /* One page: it is its own next page. */
        return room + AMB_PAGE;
    }
    if (a->tlb[1].valid) {
        room += AMB_PAGE;
    }
    return room;
}

/* Length of the longest prefix of whole N-Trace messages (MSEO=11 ends one). */
static unsigned amb_whole(const uint8_t *msg, unsigned len, uint64_t room)
{
    unsigned i, end = 0;

    for (i = 0; i < len && i < room; i++) {
        if ((msg[i] & 3) == 3) {
            end = i + 1;
        }
    }
    return end;
}

/*
 * Write @len bytes at sambaddr, page by page, advancing it: WRAP at the end
 * of the buffer, BMI when the offset's two top bits become BMITH (A:64).
 */
static void amb_write(RVTraceAmbState *a, const uint8_t *buf, uint64_t len,
                      bool fill)
{
    CPUState *cs = env_cpu(a->env);
    uint64_t size = amb_size(a), quarter = size / 4;
    uint64_t bmi_at = ((a->cs & SAMBCS_BMITH) >> SAMBCS_BMITH_SHIFT) * quarter;
    static const uint8_t idle[256] = {
        [0 ... 255] = 0xff,
    };

    if (!bmi_at) {
        bmi_at = size;
    }
    while (len) {
        uint64_t off = amb_offset(a, a->addr);
        uint64_t in_page = AMB_PAGE - (a->addr & (AMB_PAGE - 1));
        uint64_t n = MIN(len, in_page);
        hwaddr pa = a->tlb[0].pa | (a->addr & (AMB_PAGE - 1));

        if (fill) {
            n = MIN(n, sizeof(idle));
        }
        address_space_write(cs->as, pa, MEMTXATTRS_UNSPECIFIED,
                            fill ? idle : buf, n);
        if ((a->cs & SAMBCS_BMIEN) && off < bmi_at && off + n >= bmi_at) {
            a->cs |= SAMBCS_BMI;
            amb_lambi(a);
        }
        if (off + n == size) {
            a->cs |= SAMBCS_WRAP;
        }
        a->addr = amb_base(a) | amb_offset(a, a->addr + n);
        if (n == in_page) {
            /* On to the next page: it was translated; translate the one after. */
            if (size == AMB_PAGE) {
                /* (the same page again) */
            } else {
                a->tlb[0] = a->tlb[1];
                a->tlb[1].valid = false;
                amb_pretranslate(a);
            }
        }
        if (!fill) {
            buf += n;
        }
        len -= n;
        if (!a->tlb[0].valid && len) {
            /* Cannot happen within the room amb_push checked. */
            break;
        }
    }
}

static unsigned amb_push(RVTraceSinkIf *sif, unsigned port, const uint8_t *msg,
                         unsigned len)
{
    RVTraceAmbState *a = RVTRACE_AMB(sif);
    uint64_t room, to_end;
    unsigned take;
    bool sof = a->cs & SAMBCS_SOF;

    a->enc->sh_hard_refuse = false;
    if (!(a->cs & SAMBCS_EN) || (sof && (a->cs & SAMBCS_WRAP))) {
        /* Disabled, or full with stop-on-full: everything is dropped. */
        a->enc->sh_hard_refuse = true;
        return 0;
    }
    amb_pretranslate(a);
    room = amb_room(a);
    /* The reserve is for the flush after the source is disabled. */
    if (a->enc->sh_ctl & STRCCTL_EN) {
        room = room > AMB_RESERVE ? room - AMB_RESERVE : 0;
    }
    to_end = amb_size(a) - amb_offset(a, a->addr);
    if (sof && room >= to_end) {
        /* The end is translated: whole messages up to it, then idle bytes. */
        take = amb_whole(msg, len, to_end);
        amb_write(a, msg, take, false);
        if (take < len) {
            if (take < to_end) {
                amb_write(a, NULL, to_end - take, true);
            }
            a->enc->sh_hard_refuse = true;
        }
    } else {
        take = amb_whole(msg, len, room);
        amb_write(a, msg, take, false);
        if (take < len && a->suspended) {
            /* A fault is pending: the source drops instead of stalling. */
            a->enc->sh_hard_refuse = true;
        }
    }
    return take;
}

/* The shared timestamp is the hart's time CSR (smstrc.adoc "Timestamping"). */
static uint64_t amb_timestamp(RVTraceSinkIf *sif)
{
    RVTraceAmbState *a = RVTRACE_AMB(sif);
    CPURISCVState *env = a->env;

    if (!env->rdtime_fn) {
        return 0;
    }
    return env->rdtime_fn(env->rdtime_fn_arg) &
           MAKE_64BIT_MASK(0, RVTRACE_TS_WIDTH);
}

uint64_t rvtrace_amb_read_cs(RVTraceAmbState *a, bool source_empty)
{
    uint64_t v = a->cs;

    if (source_empty) {
        v |= SAMBCS_EMPTY;
    }
    if ((a->cs & SAMBCS_EN) && a->tlb[0].valid) {
        v |= SAMBCS_TRV;
    }
    return v;
}

/*
 * A sambcs write. EN 0->1 translates the current page and the next one
 * (TRV follows at once, or TF and LAMBI); clearing TF resumes
 * pre-translation (A:173); EN 1->0 drops the AMB TLB. SIZE is WARL 0..20.
 */
void rvtrace_amb_write_cs(RVTraceAmbState *a, uint64_t val)
{
    bool was_en = a->cs & SAMBCS_EN;
    uint64_t size = (val & SAMBCS_SIZE) >> SAMBCS_SIZE_SHIFT;

    if (size > SAMBCS_SIZE_MAX) {
        size = SAMBCS_SIZE_MAX;
    }
    val = (val & AMB_CS_STORED & ~SAMBCS_SIZE) | (size << SAMBCS_SIZE_SHIFT);
    if (!(val & SAMBCS_TF)) {
        a->suspended = false;
    }
    if ((val ^ a->cs) & SAMBCS_SIZE) {
        rvtrace_amb_tlb_flush(a);
    }
    a->cs = val;
    if (!(val & SAMBCS_EN)) {
        rvtrace_amb_tlb_flush(a);
    } else {
        if (!was_en) {
            rvtrace_amb_tlb_flush(a);
        }
        amb_pretranslate(a);
    }
}

static void amb_class_init(ObjectClass *klass, void *data)
{
    RVTraceSinkIfClass *sk = RVTRACE_SINK_IF_CLASS(klass);

    sk->push = amb_push;
    sk->timestamp = amb_timestamp;
}

static const TypeInfo amb_info = {
    .name = TYPE_RVTRACE_AMB,
    .parent = TYPE_OBJECT,
    .instance_size = sizeof(RVTraceAmbState),
    .class_init = amb_class_init,
    .interfaces = (InterfaceInfo[]) {
        { TYPE_RVTRACE_SINK_IF },
        { }
    },
};

static void amb_register_types(void)
{
    type_register_static(&amb_info);
}

type_init(amb_register_types)
