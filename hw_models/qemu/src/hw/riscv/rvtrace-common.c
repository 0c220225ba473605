/*
 * RISC-V trace components: the component-to-component interface and the
 * timestamp unit shared by encoders and funnels (Trace Control Interface 1.0,
 * "Timestamp Unit").
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/timer.h"
#include "migration/vmstate.h"
#include "hw/riscv/rvtrace.h"

uint64_t rvtrace_sink_timestamp(Object *sink)
{
    RVTraceSinkIfClass *k;

    if (!sink) {
        return 0;
    }
    k = RVTRACE_SINK_IF_GET_CLASS(sink);
    return k->timestamp ? k->timestamp(RVTRACE_SINK_IF(sink)) : 0;
}

static uint64_t ts_mask(void)
{
    return MAKE_64BIT_MASK(0, RVTRACE_TS_WIDTH);
}

uint64_t rvtrace_ts_value(RVTraceTimestamp *ts)
{
    uint64_t v = ts->base;

    if (FIELD_EX32(ts->control, TR_TS_CONTROL, ACTIVE) &&
        FIELD_EX32(ts->control, TR_TS_CONTROL, MODE) == RVTRACE_TS_MODE_INTERNAL &&
        FIELD_EX32(ts->control, TR_TS_CONTROL, COUNT)) {
        int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
        unsigned shift = 2 * FIELD_EX32(ts->control, TR_TS_CONTROL, PRESCALE);
        v += (uint64_t)(now - ts->start_ns) >> shift;
    }
    return v & ts_mask();
}

void rvtrace_ts_reset(RVTraceTimestamp *ts)
{
    ts->control = 0;
    ts->base = 0;
    ts->start_ns = 0;
}

/*
 * trTsControl write. The internal-system counter exists only in the funnel,
 * the shared mode only in the encoders; an unsupported trTsMode reads back as
 * 0 (None), which is how software discovers the supported modes. trTsWidth is
 * 0 when no mode is supported.
 */
void rvtrace_ts_write(RVTraceTimestamp *ts, uint32_t val, bool internal_ok,
                      bool shared_ok, bool is_encoder)
{
    uint64_t cur = rvtrace_ts_value(ts);
    uint32_t mode = FIELD_EX32(val, TR_TS_CONTROL, MODE);
    uint32_t nc = 0;

    if (!FIELD_EX32(val, TR_TS_CONTROL, ACTIVE)) {
        /* trTsActive=0 holds the unit in reset. */
        rvtrace_ts_reset(ts);
        ts->control = FIELD_DP32(0, TR_TS_CONTROL, WIDTH,
                                 (internal_ok || shared_ok) ? RVTRACE_TS_WIDTH : 0);
        return;
    }
    if (!((mode == RVTRACE_TS_MODE_INTERNAL && internal_ok) ||
          (mode == RVTRACE_TS_MODE_SHARED && shared_ok))) {
        mode = RVTRACE_TS_MODE_NONE;
    }
    nc = FIELD_DP32(nc, TR_TS_CONTROL, ACTIVE, 1);
    nc = FIELD_DP32(nc, TR_TS_CONTROL, MODE, mode);
    if (mode == RVTRACE_TS_MODE_INTERNAL) {
        nc = FIELD_DP32(nc, TR_TS_CONTROL, COUNT,
                        FIELD_EX32(val, TR_TS_CONTROL, COUNT));
        nc = FIELD_DP32(nc, TR_TS_CONTROL, PRESCALE,
                        FIELD_EX32(val, TR_TS_CONTROL, PRESCALE));
    }
    if (is_encoder && mode != RVTRACE_TS_MODE_NONE) {
        nc = FIELD_DP32(nc, TR_TS_CONTROL, ENABLE,
                        FIELD_EX32(val, TR_TS_CONTROL, ENABLE));
    }
    nc = FIELD_DP32(nc, TR_TS_CONTROL, WIDTH,
                    (internal_ok || shared_ok) ? RVTRACE_TS_WIDTH : 0);
    /* Re-base so that a change of Count or Prescale keeps the value. */
    ts->base = FIELD_EX32(val, TR_TS_CONTROL, RESET) ? 0 : cur;
    ts->start_ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    ts->control = nc;
}

const VMStateDescription vmstate_rvtrace_ts = {
    .name = "rvtrace-timestamp",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(control, RVTraceTimestamp),
        VMSTATE_UINT64(base, RVTraceTimestamp),
        VMSTATE_INT64(start_ns, RVTraceTimestamp),
        VMSTATE_END_OF_LIST()
    }
};

static const TypeInfo rvtrace_sink_if_info = {
    .name = TYPE_RVTRACE_SINK_IF,
    .parent = TYPE_INTERFACE,
    .class_size = sizeof(RVTraceSinkIfClass),
};

static void rvtrace_common_register_types(void)
{
    type_register_static(&rvtrace_sink_if_info);
}

type_init(rvtrace_common_register_types)
