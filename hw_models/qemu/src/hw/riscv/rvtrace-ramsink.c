/*
 * RISC-V Trace RAM Sink (Trace Control Interface 1.0, "Trace RAM Sink").
 *
 * Both modes are implemented (trRamHasSRAM = trRamHasSMEM = 1):
 *  - SRAM: a private buffer of "sram-size" bytes, read back through
 *    trRamRP/trRamData; trRamStart is fixed at 0 and trRamLimit can be
 *    trimmed.
 *  - SMEM: trace words are written to guest physical memory in
 *    [trRamStart, trRamLimit].
 * trRamLimit is the address of the last word of the buffer (inclusive):
 * after a word is written at Limit, WP returns to Start and trRamWrap is set;
 * with trRamStopOnWrap the sink then disables itself: a message that does
 * not fit is refused and the rest of the buffer filled with idle bytes, so
 * the buffer holds only whole messages.
 * Trace bytes are gathered into 32-bit words stored LSB first; disabling the
 * sink flushes a partial word padded with N-Trace idle bytes (0xFF).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qemu/bswap.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "exec/address-spaces.h"
#include "hw/riscv/rvtrace.h"
#include "trace.h"

/* Physical address bits an SMEM buffer may use (Sv57 physical addresses). */
#define RAMSINK_PA_MASK   MAKE_64BIT_MASK(0, 56)
#define RAMSINK_WORD_MASK (RAMSINK_PA_MASK & ~3ULL)
#define RAMSINK_IDLE      0xFF

static bool ramsink_is_smem(RVTraceRamSinkState *s)
{
    return FIELD_EX32(s->control, trRamControl, Mode) == TCI_RAMMODE_SMEM;
}

static uint32_t ramsink_impl(void)
{
    uint32_t v = 0;

    v = FIELD_DP32(v, trImpl, VerMajor, TCI_VERSION_MAJOR);
    v = FIELD_DP32(v, trImpl, CompType, TCI_COMPTYPE_RAMSINK);
    v = FIELD_DP32(v, trRamImpl, HasSRAM, 1);
    v = FIELD_DP32(v, trRamImpl, HasSMEM, 1);
    v = FIELD_DP32(v, trImpl, Vendor, RVTRACE_VENDOR_ID);
    return v;
}

/* Legal values of the address registers in the current mode (WARL). */
static uint64_t ramsink_legal_addr(RVTraceRamSinkState *s, uint64_t v)
{
    if (ramsink_is_smem(s)) {
        return v & RAMSINK_WORD_MASK;
    }
    return MIN(v & ~3ULL, (uint64_t)s->sram_size - 4);
}

static void ramsink_defaults(RVTraceRamSinkState *s)
{
    s->start = 0;
    s->limit = s->sram_size - 4;
    s->wp = 0;
    s->rp = 0;
    s->word = 0;
    s->word_fill = 0;
}

/* Write the staged SMEM words to guest memory (caller holds s->lock). */
static void ramsink_stage_flush(RVTraceRamSinkState *s)
{
    if (s->stage_len) {
        address_space_write(&address_space_memory, s->stage_addr,
                            MEMTXATTRS_UNSPECIFIED, s->stage, s->stage_len);
        s->stage_len = 0;
    }
}

static void ramsink_store_word(RVTraceRamSinkState *s, uint64_t addr,
                               uint32_t word)
{
    if (ramsink_is_smem(s)) {
        /* Contiguous words go out in one burst (at wrap, disable or MMIO). */
        if (s->stage_len == RVTRACE_SMEM_BURST ||
            (s->stage_len && addr != s->stage_addr + s->stage_len)) {
            ramsink_stage_flush(s);
        }
        if (s->stage_len == 0) {
            s->stage_addr = addr;
        }
        stl_le_p(s->stage + s->stage_len, word);
        s->stage_len += 4;
    } else {
        stl_le_p(s->sram + addr, word);
    }
}

static uint32_t ramsink_load_word(RVTraceRamSinkState *s, uint64_t addr)
{
    uint32_t le = 0;

    if (ramsink_is_smem(s)) {
        address_space_read(&address_space_memory, addr,
                           MEMTXATTRS_UNSPECIFIED, &le, 4);
        return le32_to_cpu(le);
    }
    return ldl_le_p(s->sram + addr);
}

/* Write the gathered word at WP and advance WP (caller holds s->lock). */
static void ramsink_commit_word(RVTraceRamSinkState *s)
{
    uint64_t wp = s->wp & ~3ULL;

    ramsink_store_word(s, wp, s->word);
    s->word = 0;
    s->word_fill = 0;
    /* A WP programmed above Limit wraps after its first word, too. */
    if (wp >= s->limit) {
        ramsink_stage_flush(s);
        s->wp = s->start | R_trRamWPLow_Wrap_MASK;
        if (FIELD_EX32(s->control, trRamControl, StopOnWrap)) {
            s->control = FIELD_DP32(s->control, trRamControl, Enable, 0);
            trace_rvtrace_ramsink_stop(s->wp);
        }
    } else {
        s->wp = (wp + 4) | (s->wp & R_trRamWPLow_Wrap_MASK);
    }
}

/* Flush a partial word padded with idle bytes (caller holds s->lock). */
static void ramsink_flush(RVTraceRamSinkState *s)
{
    if (s->word_fill) {
        while (s->word_fill < 4) {
            s->word |= (uint32_t)RAMSINK_IDLE << (8 * s->word_fill);
            s->word_fill++;
        }
        ramsink_commit_word(s);
    }
}

/* Append one byte to the word being gathered (caller holds s->lock). */
static void ramsink_put_byte(RVTraceRamSinkState *s, uint8_t b)
{
    s->word |= (uint32_t)b << (8 * s->word_fill);
    if (++s->word_fill == 4) {
        ramsink_commit_word(s);
    }
}

/*
 * Store @len bytes at WP (caller holds s->lock). Bytes pack LSB first into
 * little-endian words, so the memory holds the stream in order: whole words
 * are copied up to Limit at a time.
 */
static void ramsink_put(RVTraceRamSinkState *s, const uint8_t *p, unsigned len)
{
    while (len && (s->control & R_trRamControl_Enable_MASK)) {
        uint64_t wp = s->wp & ~3ULL;
        uint64_t n;

        if (s->word_fill || len < 4 || wp >= s->limit) {
            ramsink_put_byte(s, *p++);
            len--;
            continue;
        }
        /* Whole words from WP up to (not including) the word at Limit. */
        n = MIN((uint64_t)(len & ~3u), s->limit - wp);
        if (ramsink_is_smem(s)) {
            uint64_t k = 0;

            while (k < n) {
                uint64_t chunk;

                if (s->stage_len == RVTRACE_SMEM_BURST ||
                    (s->stage_len &&
                     wp + k != s->stage_addr + s->stage_len)) {
                    ramsink_stage_flush(s);
                }
                if (s->stage_len == 0) {
                    s->stage_addr = wp + k;
                }
                chunk = MIN(n - k, (uint64_t)RVTRACE_SMEM_BURST - s->stage_len);
                memcpy(s->stage + s->stage_len, p + k, chunk);
                s->stage_len += chunk;
                k += chunk;
            }
        } else {
            memcpy(s->sram + wp, p, n);
        }
        s->wp = (wp + n) | (s->wp & R_trRamWPLow_Wrap_MASK);
        p += n;
        len -= n;
    }
}

/*
 * Length of the longest prefix of whole messages in @msg (each ends with
 * MSEO=11) that is at most @room bytes.
 */
static unsigned ramsink_whole_messages(const uint8_t *msg, unsigned len,
                                       uint64_t room)
{
    unsigned i, end = 0;

    for (i = 0; i < len && i < room; i++) {
        if ((msg[i] & 3) == 3) {
            end = i + 1;
        }
    }
    return end;
}

static unsigned ramsink_push(RVTraceSinkIf *sif, unsigned port,
                             const uint8_t *msg, unsigned len)
{
    /* Unchecked cast: the interface pointer is the sink (hot path). */
    RVTraceRamSinkState *s = (RVTraceRamSinkState *)sif;
    uint32_t need = R_trRamControl_Active_MASK | R_trRamControl_Enable_MASK;
    unsigned take = len;

    qemu_mutex_lock(&s->lock);
    if ((s->control & need) != need) {
        qemu_mutex_unlock(&s->lock);
        return 0;
    }
    if (FIELD_EX32(s->control, trRamControl, StopOnWrap)) {
        uint64_t wp = s->wp & ~3ULL;
        uint64_t room = wp > s->limit ? 0 :
                        s->limit + 4 - wp - s->word_fill;

        if (len > room) {
            /*
             * Messages are stored whole: store those that fit, fill the
             * rest of the buffer with idle bytes, which completes it and
             * stops the capture, and refuse the others (the encoder drops
             * them or stalls).
             */
            take = ramsink_whole_messages(msg, len, room);
            ramsink_put(s, msg, take);
            while (s->control & R_trRamControl_Enable_MASK) {
                ramsink_put_byte(s, RAMSINK_IDLE);
            }
            qemu_mutex_unlock(&s->lock);
            return take;
        }
    }
    ramsink_put(s, msg, len);
    qemu_mutex_unlock(&s->lock);
    return take;
}

static uint64_t ramsink_read(void *opaque, hwaddr addr, unsigned size)
{
    RVTraceRamSinkState *s = opaque;
    bool smem;
    uint32_t v = 0;

    qemu_mutex_lock(&s->lock);
    /* Software looking at the sink sees all committed words in memory. */
    ramsink_stage_flush(s);
    smem = ramsink_is_smem(s);
    switch (addr) {
    case A_trRamControl:
        v = s->control;
        if (s->word_fill == 0) {
            v |= R_trRamControl_Empty_MASK;
        }
        break;
    case A_trRamImpl:
        v = ramsink_impl();
        break;
    case A_trRamStartLow:
        v = s->start;
        break;
    case A_trRamStartHigh:
        v = smem ? s->start >> 32 : 0;
        break;
    case A_trRamLimitLow:
        v = s->limit;
        break;
    case A_trRamLimitHigh:
        v = smem ? s->limit >> 32 : 0;
        break;
    case A_trRamWPLow:
        v = s->wp;
        break;
    case A_trRamWPHigh:
        v = smem ? s->wp >> 32 : 0;
        break;
    case A_trRamRPLow:
        v = s->rp;
        break;
    case A_trRamRPHigh:
        v = smem ? s->rp >> 32 : 0;
        break;
    case A_trRamData:
        if (s->control & R_trRamControl_Enable_MASK) {
            /* Reading while trace is being stored is not supported. */
            break;
        }
        v = ramsink_load_word(s, s->rp);
        s->rp = (s->rp == s->limit) ? s->start : s->rp + 4;
        break;
    default:
        break;
    }
    if (!(s->control & R_trRamControl_Active_MASK) &&
        addr != A_trRamControl) {
        v = 0;
    }
    qemu_mutex_unlock(&s->lock);
    trace_rvtrace_ramsink_read(addr, v);
    return v;
}

static void ramsink_write_control(RVTraceRamSinkState *s, uint32_t val)
{
    bool was_active = s->control & R_trRamControl_Active_MASK;
    bool was_enabled = s->control & R_trRamControl_Enable_MASK;
    uint32_t nc;

    if (!(val & R_trRamControl_Active_MASK)) {
        s->control = 0;
        ramsink_defaults(s);
        return;
    }
    if (!was_active) {
        /* Leaving reset: every WARL field takes its default. */
        s->control = R_trRamControl_Active_MASK;
        ramsink_defaults(s);
        return;
    }
    nc = R_trRamControl_Active_MASK;
    nc |= val & (R_trRamControl_Enable_MASK |
                 R_trRamControl_StopOnWrap_MASK);
    if (was_enabled) {
        /* The mode cannot change under a running capture. */
        nc = FIELD_DP32(nc, trRamControl, Mode,
                        FIELD_EX32(s->control, trRamControl, Mode));
    } else {
        nc = FIELD_DP32(nc, trRamControl, Mode,
                        FIELD_EX32(val, trRamControl, Mode));
    }
    /* MemFormat and AsyncFreq: only 0 (plain bytes, no alignment sync). */
    if (FIELD_EX32(nc, trRamControl, Mode) !=
        FIELD_EX32(s->control, trRamControl, Mode)) {
        /* Registers behave differently per mode: re-legalise them. */
        if (FIELD_EX32(nc, trRamControl, Mode) == TCI_RAMMODE_SRAM) {
            s->start = 0;
            s->limit = s->sram_size - 4;
            s->wp = 0;
            s->rp = 0;
        }
    }
    s->control = nc;
    if (was_enabled && !(nc & R_trRamControl_Enable_MASK)) {
        ramsink_flush(s);
        trace_rvtrace_ramsink_stop(s->wp);
    }
}

static void ramsink_write(void *opaque, hwaddr addr, uint64_t val64,
                          unsigned size)
{
    RVTraceRamSinkState *s = opaque;
    uint32_t val = val64;
    bool smem;
    bool busy;

    trace_rvtrace_ramsink_write(addr, val);
    qemu_mutex_lock(&s->lock);
    ramsink_stage_flush(s);
    if (!(s->control & R_trRamControl_Active_MASK) &&
        addr != A_trRamControl) {
        goto out;
    }
    smem = ramsink_is_smem(s);
    /* Start/Limit/WP never change while Enable=1 or Empty=0. */
    busy = (s->control & R_trRamControl_Enable_MASK) || s->word_fill;
    switch (addr) {
    case A_trRamControl:
        ramsink_write_control(s, val);
        break;
    case A_trRamStartLow:
        if (!busy && smem) {
            s->start = ramsink_legal_addr(s, deposit64(s->start, 0, 32, val));
        }
        break;
    case A_trRamStartHigh:
        if (!busy && smem) {
            s->start = ramsink_legal_addr(s, deposit64(s->start, 32, 32, val));
        }
        break;
    case A_trRamLimitLow:
        if (!busy) {
            s->limit = ramsink_legal_addr(s, deposit64(s->limit, 0, 32, val));
        }
        break;
    case A_trRamLimitHigh:
        if (!busy && smem) {
            s->limit = ramsink_legal_addr(s, deposit64(s->limit, 32, 32, val));
        }
        break;
    case A_trRamWPLow:
        /* Writing WPLow is the only way to clear trRamWrap. */
        if (!busy) {
            s->wp = ramsink_legal_addr(s, deposit64(s->wp, 0, 32, val & ~3u)) |
                    (val & R_trRamWPLow_Wrap_MASK);
        }
        break;
    case A_trRamWPHigh:
        if (!busy && smem) {
            s->wp = ramsink_legal_addr(s, deposit64(s->wp, 32, 32, val)) |
                    (s->wp & R_trRamWPLow_Wrap_MASK);
        }
        break;
    case A_trRamRPLow:
        if (!(s->control & R_trRamControl_Enable_MASK)) {
            s->rp = ramsink_legal_addr(s, deposit64(s->rp, 0, 32, val));
        }
        break;
    case A_trRamRPHigh:
        if (!(s->control & R_trRamControl_Enable_MASK) && smem) {
            s->rp = ramsink_legal_addr(s, deposit64(s->rp, 32, 32, val));
        }
        break;
    case A_trRamData:
        /* Test-only write path into trace memory at RP. */
        if (!(s->control & R_trRamControl_Enable_MASK)) {
            ramsink_store_word(s, s->rp, val);
            s->rp = (s->rp == s->limit) ? s->start : s->rp + 4;
        }
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "rvtrace-ramsink: write to 0x%"
                      HWADDR_PRIx " ignored\n", addr);
        break;
    }
out:
    ramsink_stage_flush(s);
    qemu_mutex_unlock(&s->lock);
}

static const MemoryRegionOps ramsink_ops = {
    .read = ramsink_read,
    .write = ramsink_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

static void ramsink_reset(DeviceState *dev)
{
    RVTraceRamSinkState *s = RVTRACE_RAMSINK(dev);

    s->control = 0;
    ramsink_defaults(s);
}

static void ramsink_realize(DeviceState *dev, Error **errp)
{
    RVTraceRamSinkState *s = RVTRACE_RAMSINK(dev);

    if (s->sram_size < 16 || !is_power_of_2(s->sram_size)) {
        error_setg(errp, "rvtrace-ramsink: sram-size must be a power of two");
        return;
    }
    s->sram = g_malloc0(s->sram_size);
    qemu_mutex_init(&s->lock);
    memory_region_init_io(&s->mmio, OBJECT(dev), &ramsink_ops, s,
                          TYPE_RVTRACE_RAMSINK, TCI_COMPONENT_SIZE);
    sysbus_init_mmio(SYS_BUS_DEVICE(dev), &s->mmio);
}

static const Property ramsink_properties[] = {
    DEFINE_PROP_UINT32("sram-size", RVTraceRamSinkState, sram_size, 0x10000),
};

static const VMStateDescription vmstate_ramsink = {
    .name = TYPE_RVTRACE_RAMSINK,
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(control, RVTraceRamSinkState),
        VMSTATE_UINT64(start, RVTraceRamSinkState),
        VMSTATE_UINT64(limit, RVTraceRamSinkState),
        VMSTATE_UINT64(wp, RVTraceRamSinkState),
        VMSTATE_UINT64(rp, RVTraceRamSinkState),
        VMSTATE_UINT32(word, RVTraceRamSinkState),
        VMSTATE_UINT32(word_fill, RVTraceRamSinkState),
        VMSTATE_VBUFFER_UINT32(sram, RVTraceRamSinkState, 1, NULL, sram_size),
        VMSTATE_END_OF_LIST()
    }
};

static void ramsink_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    RVTraceSinkIfClass *sc = RVTRACE_SINK_IF_CLASS(klass);

    dc->realize = ramsink_realize;
    device_class_set_legacy_reset(dc, ramsink_reset);
    dc->vmsd = &vmstate_ramsink;
    device_class_set_props(dc, ramsink_properties);
    dc->user_creatable = false;
    sc->push = ramsink_push;
}

static const TypeInfo ramsink_info = {
    .name = TYPE_RVTRACE_RAMSINK,
    .parent = TYPE_SYS_BUS_DEVICE,
    .instance_size = sizeof(RVTraceRamSinkState),
    .class_init = ramsink_class_init,
    .interfaces = (InterfaceInfo[]) {
        { TYPE_RVTRACE_SINK_IF },
        { }
    },
};

static void ramsink_register_types(void)
{
    type_register_static(&ramsink_info);
}

type_init(ramsink_register_types)
