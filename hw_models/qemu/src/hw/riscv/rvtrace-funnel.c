/*
 * RISC-V Trace Funnel (Trace Control Interface 1.0, "Trace Funnel").
 *
 * Merges whole messages from up to 16 inputs (encoders or lower funnels)
 * into one output (a sink or a higher funnel). Messages are forwarded as
 * they arrive, so the funnel never buffers and trFunnelEmpty always reads 1.
 * The top-level funnel holds the system timestamp unit (Internal System
 * mode) that the encoders share; a funnel below another one ("ts-shared")
 * has a Shared unit that forwards the top-level value while it is Active
 * (TCI 1.0 "Timestamp Unit": mid-level funnels forward the timestamp).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "hw/riscv/rvtrace.h"
#include "trace.h"

#define FUNNEL_MAX_INPUTS 16

static uint32_t funnel_impl(void)
{
    uint32_t v = 0;

    v = FIELD_DP32(v, trImpl, VerMajor, TCI_VERSION_MAJOR);
    v = FIELD_DP32(v, trImpl, CompType, TCI_COMPTYPE_FUNNEL);
    v = FIELD_DP32(v, trImpl, Vendor, RVTRACE_VENDOR_ID);
    return v;
}

/* The timestamp this funnel provides to its inputs. */
static uint64_t funnel_ts(RVTraceFunnelState *s)
{
    if (s->ts_shared) {
        return (s->control & R_trFunnelControl_Active_MASK) ?
               rvtrace_sink_timestamp(s->output) : 0;
    }
    return rvtrace_ts_value(&s->ts);
}

static uint64_t funnel_read(void *opaque, hwaddr addr, unsigned size)
{
    RVTraceFunnelState *s = opaque;
    uint64_t ts;
    uint32_t v = 0;

    switch (addr) {
    case A_trFunnelControl:
        v = s->control | R_trFunnelControl_Empty_MASK;
        break;
    case A_trFunnelImpl:
        v = funnel_impl();
        break;
    case A_trFunnelDisInput:
        v = s->dis_input;
        break;
    case A_trTsControl:
        v = s->ts.control;
        break;
    case A_trTsCounterLow:
        v = funnel_ts(s);
        break;
    case A_trTsCounterHigh:
        ts = funnel_ts(s);
        v = ts >> 32;
        break;
    default:
        break;
    }
    if (!(s->control & R_trFunnelControl_Active_MASK) &&
        addr != A_trFunnelControl) {
        /* Held in reset: other registers are inaccessible (read 0). */
        v = 0;
    }
    trace_rvtrace_funnel_read(addr, v);
    return v;
}

static void funnel_write(void *opaque, hwaddr addr, uint64_t val64,
                         unsigned size)
{
    RVTraceFunnelState *s = opaque;
    uint32_t val = val64;
    bool active = s->control & R_trFunnelControl_Active_MASK;

    trace_rvtrace_funnel_write(addr, val);
    if (!active && addr != A_trFunnelControl) {
        return;
    }
    switch (addr) {
    case A_trFunnelControl:
        if (!(val & R_trFunnelControl_Active_MASK)) {
            /* Reset: Enable follows Active to 0 (TCI "Reset and Discovery"). */
            s->control = 0;
            s->dis_input = 0;
            rvtrace_ts_reset(&s->ts);
        } else {
            if (!active) {
                /* Leaving reset sets all fields to their defaults. */
                s->dis_input = 0;
                rvtrace_ts_write(&s->ts, 0, !s->ts_shared, s->ts_shared,
                                 false);
            }
            s->control = val & (R_trFunnelControl_Active_MASK |
                                R_trFunnelControl_Enable_MASK);
        }
        break;
    case A_trFunnelDisInput:
        s->dis_input = val & MAKE_64BIT_MASK(0, s->num_inputs);
        break;
    case A_trTsControl:
        rvtrace_ts_write(&s->ts, val, !s->ts_shared, s->ts_shared, false);
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "rvtrace-funnel: write to 0x%"
                      HWADDR_PRIx " ignored\n", addr);
        break;
    }
}

static const MemoryRegionOps funnel_ops = {
    .read = funnel_read,
    .write = funnel_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

static unsigned funnel_push(RVTraceSinkIf *sif, unsigned port,
                            const uint8_t *msg, unsigned len)
{
    /* Unchecked cast: the interface pointer is the funnel (hot path). */
    RVTraceFunnelState *s = (RVTraceFunnelState *)sif;
    uint32_t need = R_trFunnelControl_Active_MASK |
                    R_trFunnelControl_Enable_MASK;

    if ((qatomic_read(&s->control) & need) != need) {
        return 0;
    }
    if (port < 32 && (qatomic_read(&s->dis_input) & (1u << port))) {
        /* A disabled input is read but its messages are discarded. */
        return len;
    }
    return s->out_k->push(s->out_if, s->port, msg, len);
}

static uint64_t funnel_timestamp(RVTraceSinkIf *sif)
{
    return funnel_ts(RVTRACE_FUNNEL(sif));
}

static void funnel_reset(DeviceState *dev)
{
    RVTraceFunnelState *s = RVTRACE_FUNNEL(dev);

    s->control = 0;
    s->dis_input = 0;
    rvtrace_ts_reset(&s->ts);
}

static void funnel_realize(DeviceState *dev, Error **errp)
{
    RVTraceFunnelState *s = RVTRACE_FUNNEL(dev);

    if (s->num_inputs == 0 || s->num_inputs > FUNNEL_MAX_INPUTS) {
        error_setg(errp, "rvtrace-funnel: num-inputs must be 1..%d",
                   FUNNEL_MAX_INPUTS);
        return;
    }
    if (!s->output || !object_dynamic_cast(s->output, TYPE_RVTRACE_SINK_IF)) {
        error_setg(errp, "rvtrace-funnel: 'output' must link a trace sink");
        return;
    }
    /* Resolved once: messages are pushed on the hot path. */
    s->out_if = RVTRACE_SINK_IF(s->output);
    s->out_k = RVTRACE_SINK_IF_GET_CLASS(s->output);
    memory_region_init_io(&s->mmio, OBJECT(dev), &funnel_ops, s,
                          TYPE_RVTRACE_FUNNEL, TCI_COMPONENT_SIZE);
    sysbus_init_mmio(SYS_BUS_DEVICE(dev), &s->mmio);
}

static const Property funnel_properties[] = {
    DEFINE_PROP_UINT32("num-inputs", RVTraceFunnelState, num_inputs, 1),
    /* Input number at the output when that is a funnel (its DisInput bit). */
    DEFINE_PROP_UINT32("port", RVTraceFunnelState, port, 0),
    DEFINE_PROP_BOOL("ts-shared", RVTraceFunnelState, ts_shared, false),
    DEFINE_PROP_LINK("output", RVTraceFunnelState, output, TYPE_DEVICE,
                     Object *),
};

static const VMStateDescription vmstate_funnel = {
    .name = TYPE_RVTRACE_FUNNEL,
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(control, RVTraceFunnelState),
        VMSTATE_UINT32(dis_input, RVTraceFunnelState),
        VMSTATE_STRUCT(ts, RVTraceFunnelState, 1, vmstate_rvtrace_ts,
                       RVTraceTimestamp),
        VMSTATE_END_OF_LIST()
    }
};

static void funnel_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    RVTraceSinkIfClass *sc = RVTRACE_SINK_IF_CLASS(klass);

    dc->realize = funnel_realize;
    device_class_set_legacy_reset(dc, funnel_reset);
    dc->vmsd = &vmstate_funnel;
    device_class_set_props(dc, funnel_properties);
    dc->user_creatable = false;
    sc->push = funnel_push;
    sc->timestamp = funnel_timestamp;
}

static const TypeInfo funnel_info = {
    .name = TYPE_RVTRACE_FUNNEL,
    .parent = TYPE_SYS_BUS_DEVICE,
    .instance_size = sizeof(RVTraceFunnelState),
    .class_init = funnel_class_init,
    .interfaces = (InterfaceInfo[]) {
        { TYPE_RVTRACE_SINK_IF },
        { }
    },
};

static void funnel_register_types(void)
{
    type_register_static(&funnel_info);
}

type_init(funnel_register_types)
