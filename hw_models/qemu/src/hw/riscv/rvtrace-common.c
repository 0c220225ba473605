/*
 * RISC-V trace components: the component-to-component interface and the
 * timestamp unit shared by encoders and funnels (Trace Control Interface 1.0,
 * "Timestamp Unit").
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/timer.h"
#include "system/cpu-timers.h"
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

/*
 * The hart's clock cycles as the model's mcycle counts them
 * (target/riscv/csr.c get_ticks: host ticks, or the instruction counter
 * with -icount). A hart's trace helpers run at the end of the translation
 * block of the transfer they report (a branch or jump ends the block) or
 * after a trap restored the count, so under -icount the value is exact there.
 */
uint64_t rvtrace_hart_cycles(void)
{
    return icount_enabled() ? icount_get() : cpu_get_host_ticks();
}

/* The clock the counter of @mode counts. */
static int64_t ts_clock(uint32_t mode)
{
    return mode == TCI_TSMODE_CORE ? (int64_t)rvtrace_hart_cycles() :
           qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static bool ts_counts(uint32_t mode)
{
    return mode == TCI_TSMODE_INTERNAL || mode == TCI_TSMODE_CORE;
}

uint64_t rvtrace_ts_value(RVTraceTimestamp *ts)
{
    uint64_t v = ts->base;
    uint32_t mode = FIELD_EX32(ts->control, trTsControl, Mode);

    if (FIELD_EX32(ts->control, trTsControl, Active) && ts_counts(mode) &&
        FIELD_EX32(ts->control, trTsControl, Count)) {
        unsigned shift = 2 * FIELD_EX32(ts->control, trTsControl, Prescale);
        v += (uint64_t)(ts_clock(mode) - ts->start_ns) >> shift;
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
 * the shared and internal-core modes only in the encoders (TCI 1.0 "Internal
 * Core - core clock ... (only for Trace Encoders)"); an unsupported trTsMode
 * reads back as 0 (None), which is how software discovers the supported
 * modes. trTsWidth is 0 when no mode is supported. trTsRunInDebug reads 0:
 * the model's harts are never halted by a debugger.
 */
void rvtrace_ts_write(RVTraceTimestamp *ts, uint32_t val, bool internal_ok,
                      bool shared_ok, bool is_encoder)
{
    uint64_t cur = rvtrace_ts_value(ts);
    uint32_t mode = FIELD_EX32(val, trTsControl, Mode);
    uint32_t nc = 0;

    if (!FIELD_EX32(val, trTsControl, Active)) {
        /* trTsActive=0 holds the unit in reset. */
        rvtrace_ts_reset(ts);
        ts->control = FIELD_DP32(0, trTsControl, Width,
                                 (internal_ok || shared_ok) ? RVTRACE_TS_WIDTH : 0);
        return;
    }
    if (!((mode == TCI_TSMODE_INTERNAL && internal_ok) ||
          (mode == TCI_TSMODE_SHARED && shared_ok) ||
          (mode == TCI_TSMODE_CORE && is_encoder))) {
        mode = TCI_TSMODE_NONE;
    }
    nc = FIELD_DP32(nc, trTsControl, Active, 1);
    nc = FIELD_DP32(nc, trTsControl, Mode, mode);
    if (ts_counts(mode)) {
        nc = FIELD_DP32(nc, trTsControl, Count,
                        FIELD_EX32(val, trTsControl, Count));
        nc = FIELD_DP32(nc, trTsControl, Prescale,
                        FIELD_EX32(val, trTsControl, Prescale));
    }
    if (is_encoder && mode != TCI_TSMODE_NONE) {
        nc = FIELD_DP32(nc, trTsControl, Enable,
                        FIELD_EX32(val, trTsControl, Enable));
    }
    nc = FIELD_DP32(nc, trTsControl, Width,
                    (internal_ok || shared_ok) ? RVTRACE_TS_WIDTH : 0);
    /* Re-base so that a change of Count or Prescale keeps the value. */
    ts->base = FIELD_EX32(val, trTsControl, Reset) ? 0 : cur;
    ts->start_ns = ts_clock(mode);
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
