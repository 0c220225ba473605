/*
 * RISC-V Trace Control Interface 1.0 components for the virt machine:
 * N-Trace encoder (one per hart), trace funnel, trace RAM sink.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_RISCV_RVTRACE_H
#define HW_RISCV_RVTRACE_H

#include "hw/sysbus.h"
#include "hw/registerfields.h"
#include "qemu/thread.h"
#include "qom/object.h"

/* Every component occupies one 4 KiB register block (TCI 1.0 "Trace Components"). */
#define RVTRACE_REG_SIZE 0x1000

/* tr??Impl common fields (TCI 1.0 "Versioning of Components"). */
REG32(TR_IMPL, 0x004)
    FIELD(TR_IMPL, VER_MAJOR, 0, 4)
    FIELD(TR_IMPL, VER_MINOR, 4, 4)
    FIELD(TR_IMPL, COMP_TYPE, 8, 4)
    FIELD(TR_IMPL, TE_PROTO_MAJOR, 16, 4)
    FIELD(TR_IMPL, TE_PROTO_MINOR, 20, 4)
    FIELD(TR_IMPL, RAM_HAS_SRAM, 12, 1)
    FIELD(TR_IMPL, RAM_HAS_SMEM, 13, 1)
    FIELD(TR_IMPL, VENDOR, 24, 8)

#define RVTRACE_COMP_ENCODER 0x1
#define RVTRACE_COMP_FUNNEL  0x8
#define RVTRACE_COMP_RAMSINK 0x9
/* Implementation/vendor byte: 'Q' for this QEMU model. */
#define RVTRACE_VENDOR_ID    0x51

/* Timestamp unit, shared by encoder and funnel at +0x040 (TCI 1.0 "Timestamp Unit"). */
REG32(TR_TS_CONTROL, 0x040)
    FIELD(TR_TS_CONTROL, ACTIVE, 0, 1)
    FIELD(TR_TS_CONTROL, COUNT, 1, 1)
    FIELD(TR_TS_CONTROL, RESET, 2, 1)
    FIELD(TR_TS_CONTROL, RUN_IN_DEBUG, 3, 1)
    FIELD(TR_TS_CONTROL, MODE, 4, 3)
    FIELD(TR_TS_CONTROL, PRESCALE, 8, 2)
    FIELD(TR_TS_CONTROL, ENABLE, 15, 1)
    FIELD(TR_TS_CONTROL, WIDTH, 24, 6)
REG32(TR_TS_COUNTER_LOW, 0x048)
REG32(TR_TS_COUNTER_HIGH, 0x04C)

#define RVTRACE_TS_MODE_NONE     0
#define RVTRACE_TS_MODE_INTERNAL 2
#define RVTRACE_TS_MODE_SHARED   4
#define RVTRACE_TS_WIDTH         48

/* Timestamp unit state; the counter runs on QEMU_CLOCK_VIRTUAL (1 tick = 1 ns). */
typedef struct RVTraceTimestamp {
    uint32_t control;
    uint64_t base;       /* counter value at start_ns */
    int64_t start_ns;    /* virtual time when counting (re)started */
} RVTraceTimestamp;

/*
 * The connection between components: a funnel or a sink accepts whole
 * N-Trace messages (TCI 1.0 "Connections Between Components": a partial
 * message is never sent). A push hands over a run of whole messages (each
 * ends with a byte whose MSEO is 11); the receiver takes a prefix of whole
 * messages and returns its length in bytes.
 */
#define TYPE_RVTRACE_SINK_IF "rvtrace-sink-if"
typedef struct RVTraceSinkIf RVTraceSinkIf;
typedef struct RVTraceSinkIfClass {
    InterfaceClass parent;
    /* Take whole messages from input @port; returns the bytes taken. */
    unsigned (*push)(RVTraceSinkIf *sink, unsigned port, const uint8_t *msg,
                     unsigned len);
    /* Shared timestamp value (0 when this component has no running unit). */
    uint64_t (*timestamp)(RVTraceSinkIf *sink);
} RVTraceSinkIfClass;
DECLARE_CLASS_CHECKERS(RVTraceSinkIfClass, RVTRACE_SINK_IF, TYPE_RVTRACE_SINK_IF)
#define RVTRACE_SINK_IF(obj) \
    INTERFACE_CHECK(RVTraceSinkIf, (obj), TYPE_RVTRACE_SINK_IF)

uint64_t rvtrace_sink_timestamp(Object *sink);

/* Timestamp unit helpers (hw/riscv/rvtrace-common.c). */
uint64_t rvtrace_ts_value(RVTraceTimestamp *ts);
void rvtrace_ts_write(RVTraceTimestamp *ts, uint32_t val, bool internal_ok,
                      bool shared_ok, bool is_encoder);
void rvtrace_ts_reset(RVTraceTimestamp *ts);
extern const VMStateDescription vmstate_rvtrace_ts;

/* ---------------------------------------------------------------- funnel */
REG32(TR_FUNNEL_CONTROL, 0x000)
    FIELD(TR_FUNNEL_CONTROL, ACTIVE, 0, 1)
    FIELD(TR_FUNNEL_CONTROL, ENABLE, 1, 1)
    FIELD(TR_FUNNEL_CONTROL, EMPTY, 3, 1)
REG32(TR_FUNNEL_DIS_INPUT, 0x008)

#define TYPE_RVTRACE_FUNNEL "riscv.trace.funnel"
OBJECT_DECLARE_SIMPLE_TYPE(RVTraceFunnelState, RVTRACE_FUNNEL)

struct RVTraceFunnelState {
    SysBusDevice parent_obj;
    MemoryRegion mmio;
    Object *output;
    RVTraceSinkIf *out_if;   /* @output's interface, resolved at realize */
    RVTraceSinkIfClass *out_k;
    uint32_t num_inputs;
    uint32_t port;           /* input number at @output */
    bool ts_shared;          /* below another funnel: forwards its timestamp */
    uint32_t control;
    uint32_t dis_input;
    RVTraceTimestamp ts;
};

/* -------------------------------------------------------------- RAM sink */
REG32(TR_RAM_CONTROL, 0x000)
    FIELD(TR_RAM_CONTROL, ACTIVE, 0, 1)
    FIELD(TR_RAM_CONTROL, ENABLE, 1, 1)
    FIELD(TR_RAM_CONTROL, EMPTY, 3, 1)
    FIELD(TR_RAM_CONTROL, MODE, 4, 1)
    FIELD(TR_RAM_CONTROL, STOP_ON_WRAP, 8, 1)
    FIELD(TR_RAM_CONTROL, MEM_FORMAT, 9, 2)
    FIELD(TR_RAM_CONTROL, ASYNC_FREQ, 12, 3)
REG32(TR_RAM_START_LOW, 0x010)
REG32(TR_RAM_START_HIGH, 0x014)
REG32(TR_RAM_LIMIT_LOW, 0x018)
REG32(TR_RAM_LIMIT_HIGH, 0x01C)
REG32(TR_RAM_WP_LOW, 0x020)
    FIELD(TR_RAM_WP_LOW, WRAP, 0, 1)
REG32(TR_RAM_WP_HIGH, 0x024)
REG32(TR_RAM_RP_LOW, 0x028)
REG32(TR_RAM_RP_HIGH, 0x02C)
REG32(TR_RAM_DATA, 0x040)

/* SMEM writes are issued in bursts of up to this many bytes. */
#define RVTRACE_SMEM_BURST 4096

#define RVTRACE_RAM_MODE_SRAM 0
#define RVTRACE_RAM_MODE_SMEM 1

#define TYPE_RVTRACE_RAMSINK "riscv.trace.ramsink"
OBJECT_DECLARE_SIMPLE_TYPE(RVTraceRamSinkState, RVTRACE_RAMSINK)

struct RVTraceRamSinkState {
    SysBusDevice parent_obj;
    MemoryRegion mmio;
    QemuMutex lock;          /* encoders on several vCPU threads push here */
    uint32_t sram_size;      /* bytes, power of two */
    uint8_t *sram;
    uint32_t control;
    uint64_t start, limit, wp, rp;  /* wp bit 0 is trRamWrap */
    uint32_t word;           /* bytes gathered for the next 32-bit write */
    uint32_t word_fill;
    /* SMEM: committed words not yet written to guest memory (one burst) */
    uint8_t stage[RVTRACE_SMEM_BURST];
    uint64_t stage_addr;
    uint32_t stage_len;
};

/* ---------------------------------------------------------------- encoder */
REG32(TR_TE_CONTROL, 0x000)
    FIELD(TR_TE_CONTROL, ACTIVE, 0, 1)
    FIELD(TR_TE_CONTROL, ENABLE, 1, 1)
    FIELD(TR_TE_CONTROL, INST_TRACING, 2, 1)
    FIELD(TR_TE_CONTROL, EMPTY, 3, 1)
    FIELD(TR_TE_CONTROL, INST_MODE, 4, 3)
    FIELD(TR_TE_CONTROL, CONTEXT, 9, 1)
    FIELD(TR_TE_CONTROL, INST_TRIG_ENABLE, 11, 1)
    FIELD(TR_TE_CONTROL, INST_STALL_OR_OVERFLOW, 12, 1)
    FIELD(TR_TE_CONTROL, INST_STALL_ENA, 13, 1)
    FIELD(TR_TE_CONTROL, INHIBIT_SRC, 15, 1)
    FIELD(TR_TE_CONTROL, INST_SYNC_MODE, 16, 2)
    FIELD(TR_TE_CONTROL, INST_SYNC_MAX, 20, 4)
    FIELD(TR_TE_CONTROL, FORMAT, 24, 3)
REG32(TR_TE_INST_FEATURES, 0x008)
    FIELD(TR_TE_INST_FEATURES, NO_ADDR_DIFF, 0, 1)
    FIELD(TR_TE_INST_FEATURES, NO_TRAP_ADDR, 1, 1)
    FIELD(TR_TE_INST_FEATURES, EN_SEQUENTIAL_JUMP, 2, 1)
    FIELD(TR_TE_INST_FEATURES, EN_IMPLICIT_RETURN, 3, 1)
    FIELD(TR_TE_INST_FEATURES, EN_BRANCH_PREDICTION, 4, 1)
    FIELD(TR_TE_INST_FEATURES, EN_JUMP_TARGET_CACHE, 5, 1)
    FIELD(TR_TE_INST_FEATURES, IMPLICIT_RETURN_MODE, 6, 2)
    FIELD(TR_TE_INST_FEATURES, EN_REPEATED_HISTORY, 8, 1)
    FIELD(TR_TE_INST_FEATURES, EN_ALL_JUMPS, 9, 1)
    FIELD(TR_TE_INST_FEATURES, EXTEND_ADDR_MSB, 10, 1)
    FIELD(TR_TE_INST_FEATURES, SRC_ID, 16, 12)
    FIELD(TR_TE_INST_FEATURES, SRC_BITS, 28, 4)
REG32(TR_TE_INST_FILTERS, 0x00C)
    FIELD(TR_TE_INST_FILTERS, FILTERS, 0, 16)
REG32(TR_TE_DATA_CONTROL, 0x010)
REG32(TR_TE_DATA_FILTERS, 0x01C)
REG32(TR_TE_TRIG_DBG_CONTROL, 0x050)
REG32(TR_TE_TRIG_EXT_IN_CONTROL, 0x054)
REG32(TR_TE_TRIG_EXT_OUT_CONTROL, 0x058)
/* Filter i at +0x400 + 0x20 * i (TCI 1.0 "Trace Encoder Filter Registers"). */
REG32(TR_TE_FILTER0_CONTROL, 0x400)
    FIELD(TR_TE_FILTER_CONTROL, ENABLE, 0, 1)
    FIELD(TR_TE_FILTER_CONTROL, MATCH_PRIVILEGE, 1, 1)
    FIELD(TR_TE_FILTER_CONTROL, MATCH_ECAUSE, 2, 1)
    FIELD(TR_TE_FILTER_CONTROL, MATCH_INTERRUPT, 3, 1)
REG32(TR_TE_FILTER0_MATCH_INST, 0x404)
    FIELD(TR_TE_FILTER_MATCH_INST, CHOICE_PRIVILEGE, 0, 8)
    FIELD(TR_TE_FILTER_MATCH_INST, VALUE_INTERRUPT, 8, 1)
REG32(TR_TE_FILTER0_MATCH_ECAUSE_LOW, 0x408)
REG32(TR_TE_FILTER0_MATCH_ECAUSE_HIGH, 0x40C)
#define RVTRACE_FILTER_STRIDE 0x20
/*
 * Filters the model implements: privilege, ecause and interrupt matching
 * (comparator, impdef and data matches read back 0, as do the comparators).
 */
#define RVTRACE_NUM_FILTERS 2
/* Nested traps a trap-window filter counts before it saturates. */
#define RVTRACE_FILTER_TRAP_DEPTH_MAX 255
/* Ingress-port priv values (E-Trace 2.0 "priv" encoding): 2 and 7 reserved. */
#define RVTRACE_PRIV_U  0
#define RVTRACE_PRIV_S  1
#define RVTRACE_PRIV_M  3
#define RVTRACE_PRIV_D  4
#define RVTRACE_PRIV_VU 5
#define RVTRACE_PRIV_VS 6
#define RVTRACE_PRIV_CHOICE_MASK \
    ((1u << RVTRACE_PRIV_U) | (1u << RVTRACE_PRIV_S) | (1u << RVTRACE_PRIV_M) | \
     (1u << RVTRACE_PRIV_D) | (1u << RVTRACE_PRIV_VU) | (1u << RVTRACE_PRIV_VS))

#define RVTRACE_INST_MODE_OFF 0
#define RVTRACE_INST_MODE_BTM 3
#define RVTRACE_INST_MODE_HTM 6
#define RVTRACE_FORMAT_NTRACE 1
#define RVTRACE_SYNC_MODE_OFF      0
#define RVTRACE_SYNC_MODE_MESSAGES 1
#define RVTRACE_SYNC_MODE_CYCLES   2
#define RVTRACE_SYNC_MODE_HALFWORDS 3
#define RVTRACE_IRET_MODE_COUNT    1
#define RVTRACE_IRET_MODE_PARTIAL  2
#define RVTRACE_IRET_MODE_FULL     3

/* Implicit-return stack depth (N-Trace 1.0: never deeper than 32). */
#define RVTRACE_CALL_STACK 32
/* Largest N-Trace message: 38 bytes (N-Trace 1.0 "Transmission Protocol"). */
#define RVTRACE_MSG_MAX 48
/*
 * Encoder FIFO of whole messages, handed to the funnel/sink when the next
 * message does not fit, when tracing stops, when the hart idles (WFI) and
 * when the VM stops. With InstStallEna, messages of the rest of the
 * translation block (before the stall takes effect) use the extra room.
 */
#define RVTRACE_FIFO_SIZE 1024
#define RVTRACE_FIFO_STALL_ROOM 512

#define TYPE_RVTRACE_ENCODER "riscv.trace.encoder"
OBJECT_DECLARE_SIMPLE_TYPE(RVTraceEncoderState, RVTRACE_ENCODER)

struct RVTraceEncoderState {
    SysBusDevice parent_obj;
    MemoryRegion mmio;
    Object *cpu;             /* the hart this encoder traces (RISCVCPU) */
    /*
     * Its CPURISCVState; the current run start, I-CNT and HIST live there
     * (trace_run_start, trace_icnt, trace_hist) so translated code can
     * update them inline.
     */
    struct CPUArchState *env;
    Object *output;          /* funnel or sink */
    RVTraceSinkIf *out_if;   /* @output's interface, resolved at realize */
    RVTraceSinkIfClass *out_k;
    uint32_t port;           /* input number on @output */
    uint32_t icnt_bits;      /* I-CNT counter width (overflow at 2^bits) */
    uint64_t icnt_max;       /* its maximum value */
    uint32_t hist_bits;      /* HIST register width incl. stop bit (<= 32) */

    /* Registers. */
    uint32_t control;
    uint32_t inst_features;
    uint32_t inst_filters;
    uint32_t filter_control[RVTRACE_NUM_FILTERS];
    uint32_t filter_match_inst[RVTRACE_NUM_FILTERS];
    uint64_t filter_ecause[RVTRACE_NUM_FILTERS];
    /* Ecause/interrupt filters: nested traps since the matching one (0: none). */
    uint32_t filter_trap_depth[RVTRACE_NUM_FILTERS];
    /* Tracing, but the filters do not qualify the current instructions. */
    bool filtered;
    uint32_t trig_ext_in;
    RVTraceTimestamp ts;

    /* Encoder state, touched only by the traced hart's vCPU thread. */
    bool tracing;            /* ingress port feeding this encoder */
    bool pending;            /* start/stop queued on the hart (Empty=0) */
    bool debug_stopped;      /* stopped by a debugger (EVCODE=0 sent) */
    bool lost;               /* a message was dropped: Error + SYNC=7 next */
    bool need_sync;          /* next message must be a synchronizing one */
    uint8_t sync_reason;
    uint64_t last_addr;      /* reference for U-ADDR XOR compression */
    uint64_t last_ts;        /* last reported timestamp (for relative TSTAMP) */
    uint64_t sync_count;     /* periodic sync counter (messages or halfwords) */
    uint64_t sync_cycles;    /* InstSyncMode=2: hart cycle count at the last sync */
    uint64_t icnt;           /* I-CNT while an ingress report is processed */
    uint32_t priv;           /* last reported V/PRV */
    uint32_t rep_hist;       /* last full HIST reported (repeated history) */
    uint32_t hrepeat;        /* pending repeats of rep_hist */
    bool rep_valid;
    uint8_t last_msg[RVTRACE_MSG_MAX];  /* BTM RepeatBranch: last branch message */
    uint32_t last_len;
    uint64_t last_target;    /* its target address */
    uint64_t msg_target;     /* target of the branch message being sent */
    uint32_t bcnt;           /* pending RepeatBranch count */
    bool bcnt_valid;
    /* (slack: a message is copied in with a fixed-size copy) */
    uint8_t fifo[RVTRACE_FIFO_SIZE + RVTRACE_FIFO_STALL_ROOM + RVTRACE_MSG_MAX];
    uint32_t fifo_len;
    bool stall_queued;       /* stall work queued on the hart */
    uint64_t stack[RVTRACE_CALL_STACK];
    uint32_t stack_depth;
    uint32_t call_count;     /* ImplicitReturnMode=1 nesting counter */
};

#endif
