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

/*
 * The register map, written once for the firmware, this model, the test
 * payloads and scripts (hw_models/trace/tci_regs.def, copied here by
 * scripts/qemu10.sh): REG32/FIELD for every register and field by the
 * specification's names (A_trTeControl, R_trTeControl_InstMode_MASK,
 * FIELD_EX32(v, trTeControl, InstMode)), and from tci_regs.h the named field
 * values (TCI_INSTMODE_HTM, TCI_TSMODE_SHARED, TCI_PRIV_M, ...), the
 * component size TCI_COMPONENT_SIZE and the filter stride
 * TCI_trTeFilter0Control_STRIDE.
 */
#include "hw/riscv/tci_regs.h"
#define TCI_REG(comp, reg, offset) REG32(reg, offset)
#define TCI_FIELD(reg, name, lsb, width) FIELD(reg, name, lsb, width)
#include "hw/riscv/tci_regs.def"

/* Implementation/vendor byte: 'Q' for this QEMU model. */
#define RVTRACE_VENDOR_ID    TCI_VENDOR_QEMU

/* Timestamp counter width (trTsWidth) of the encoders and funnels. */
#define RVTRACE_TS_WIDTH         48

/*
 * Timestamp unit state. Internal System (funnels) counts QEMU_CLOCK_VIRTUAL
 * (1 tick = 1 ns); Internal Core (encoders) counts the hart's cycles as its
 * mcycle does (rvtrace_hart_cycles).
 */
typedef struct RVTraceTimestamp {
    uint32_t control;
    uint64_t base;       /* counter value at start_ns */
    int64_t start_ns;    /* the mode's clock when counting (re)started */
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
uint64_t rvtrace_hart_cycles(void);
uint64_t rvtrace_ts_value(RVTraceTimestamp *ts);
void rvtrace_ts_write(RVTraceTimestamp *ts, uint32_t val, bool internal_ok,
                      bool shared_ok, bool is_encoder);
void rvtrace_ts_reset(RVTraceTimestamp *ts);
extern const VMStateDescription vmstate_rvtrace_ts;

/* ---------------------------------------------------------------- funnel */
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
/* SMEM writes are issued in bursts of up to this many bytes. */
#define RVTRACE_SMEM_BURST 4096

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

/* ------------------------------------------- asynchronous memory buffer */
/*
 * Ssamb (draft asyncmbuf.adoc): the hart's self-hosted trace buffer, a
 * sink the encoder's output is switched to while its CSRs own it. It writes
 * whole messages at virtual addresses, translated as menvcfg.STRCS says,
 * with a two-entry AMB TLB (current and next page).
 */
#include "hw/riscv/strc_regs.h"

#define TYPE_RVTRACE_AMB "riscv.trace.amb"
OBJECT_DECLARE_SIMPLE_TYPE(RVTraceAmbState, RVTRACE_AMB)

typedef struct RVTraceAmbTlb {
    uint64_t va;             /* page */
    uint64_t pa;
    bool valid;
} RVTraceAmbTlb;

struct RVTraceAmbState {
    Object parent_obj;
    struct RVTraceEncoderState *enc;
    struct CPUArchState *env;
    uint64_t cs;             /* sambcs without EMPTY and TRV (computed) */
    uint64_t addr;           /* sambaddr */
    RVTraceAmbTlb tlb[2];    /* the current page and the next one */
    bool suspended;          /* pre-translation stopped at a fault (TF) */
};

void rvtrace_amb_write_cs(RVTraceAmbState *a, uint64_t val);
uint64_t rvtrace_amb_read_cs(RVTraceAmbState *a, bool source_empty);
void rvtrace_amb_tlb_flush(RVTraceAmbState *a);

/* ---------------------------------------------------------------- encoder */
/*
 * Filters the model implements: privilege, ecause and interrupt matching
 * and up to three comparators each (impdef and data matches read back 0).
 */
#define RVTRACE_NUM_FILTERS 2
/*
 * Comparators (trTeComp*, 4 of the 8 TCI 1.0 has room for): inputs iaddr
 * and context (scontext), every function and match mode; notify reads 0.
 */
#define RVTRACE_NUM_COMPS 4
typedef struct RVTraceComp {
    uint32_t control;
    uint64_t pmatch;
    uint64_t smatch;
} RVTraceComp;
/* Nested traps a trap-window filter counts before it saturates. */
#define RVTRACE_FILTER_TRAP_DEPTH_MAX 255
/* Ingress-port priv values (TCI_PRIV_*) that exist: 2 and 7 are reserved. */
#define RVTRACE_PRIV_CHOICE_MASK \
    ((1u << TCI_PRIV_U) | (1u << TCI_PRIV_S) | (1u << TCI_PRIV_M) | \
     (1u << TCI_PRIV_D) | (1u << TCI_PRIV_VU) | (1u << TCI_PRIV_VS))

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
/* Entries of the encoder's table of DirectBranch messages by I-CNT. */
#define RVTRACE_DTAB_SIZE 256

/*
 * E-Trace instruction trace (trTeFormat 0): the encoder walks the retired
 * instructions of each ingress report and runs the E-Trace 2.0 algorithm on
 * them one by one (rvtrace-encoder.c "E-Trace").
 */
typedef struct RVTraceETraceState {
    uint64_t pc;             /* the next instruction to retire */
    uint64_t last_addr;      /* last reported address (differential) */
    uint64_t last_retired;   /* the last retired instruction */
    uint32_t map, nmap;      /* branch map (bit 0 oldest; 1 = not taken) */
    bool need_sync;          /* the next retired instruction gets format 3 */
    bool trap_pending;       /* ... and it is the handler of this trap */
    bool prev_updiscon;      /* the last retired was uninferable */
    bool unreported;         /* retired since the last reported address */
    bool lost;               /* a packet was dropped: support trace_lost */
    bool pend_valid;         /* format 1/2 for an updiscon target, held */
    bool notify_pending;     /* trace-notify: report notify_pc when it retires */
    uint64_t notify_pc;
    uint8_t sync_priv;       /* priv of the instruction the sync reports */
    uint8_t code_priv;       /* priv (and V) the code since the last report */
    bool code_virt;          /* ran at: the walk reads it with that */
    /*
     * ... and the translation it was fetched through, taken when the run
     * starts (a satp write inside the run, as in Linux's
     * relocate_enable_mmu, must not change how its start is read).
     */
    uint64_t code_satp, code_vsatp, code_hgatp;
    /*
     * Code pages the walk reads (direct mapped by virtual page): the host
     * address of the RAM behind a virtual page under the translation in
     * the key; NULL host: not RAM (read with cpu_memory_rw_debug). Dropped
     * by SFENCE.VMA on this hart and when tracing starts.
     */
    struct {
        uint64_t vpage;      /* virtual address >> TARGET_PAGE_BITS; ~0: none */
        uint64_t satp, vsatp, hgatp;
        uint8_t priv;
        bool virt;
        uint8_t *host;
    } cpage[16];
    bool trap_interrupt;
    uint64_t trap_cause, trap_tval;
    uint64_t pend_addr;
    uint32_t pend_map, pend_nmap;
    uint64_t desync;         /* walks that failed (resynchronised) */
    uint64_t fail_pc;        /* the last failed walk: where, and why */
    unsigned fail_why;       /* (ET_FAIL_* in rvtrace-encoder.c) */
    unsigned cf_len;         /* the reporting transfer's length (bytes) */
    /*
     * Data trace (dataTracePayload.adoc): on (denable) and doptions as the
     * last support packet said, a dropped data packet not yet reported
     * (dloss), and the compression references per access size (2^size
     * bytes): the last address and value, valid once a full one was sent
     * after the last synchronization packet (8.1.3).
     */
    bool data;
    bool dloss;
    uint8_t dopt;
    uint8_t daddr_valid, ddata_valid;
    uint64_t daddr[4], ddata[4];
} RVTraceETraceState;

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
    uint32_t data_control;   /* trTeDataControl (E-Trace data trace) */
    uint32_t filter_control[RVTRACE_NUM_FILTERS];
    uint32_t filter_match_inst[RVTRACE_NUM_FILTERS];
    uint64_t filter_ecause[RVTRACE_NUM_FILTERS];
    /* Ecause/interrupt filters: nested traps since the matching one (0: none). */
    uint32_t filter_trap_depth[RVTRACE_NUM_FILTERS];
    /* Tracing, but the filters do not qualify the current instructions. */
    bool filtered;
    /* trTeVendorControl.NoMmode: M-mode never qualifies (until machine reset). */
    bool no_mmode;
    /*
     * Comparators: the registers, and the settings tracing uses (taken
     * when it starts, with the translations made for them: comp_cs, the
     * cs_base bits with generation comp_gen); match mode 3's output and
     * secondary result at the last block that started.
     */
    RVTraceComp comp[RVTRACE_NUM_COMPS];
    RVTraceComp comp_act[RVTRACE_NUM_COMPS];
    uint32_t comp_cs;
    uint32_t comp_gen;
    bool comp_latch[RVTRACE_NUM_COMPS];
    bool comp_s_last[RVTRACE_NUM_COMPS];
    /* Sdtrig trace action that switched tracing at this pc (ignored once). */
    bool trig_skip;
    uint64_t trig_skip_pc;
    /*
     * Trace-notify sent at notify_pc, and no ingress report (or queued
     * branch) since: QEMU
     * checks a breakpoint twice before a block it still has to translate.
     */
    bool notify_live;
    uint64_t notify_pc;
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
    /*
     * Queued BTM branches (enc_batch_run): the DirectBranch of each I-CNT
     * up to dtab_max for the TCODE and SRC in dtab_key, its bytes with its
     * length in bits 63:56; every such message is at most dtab_len bytes.
     */
    uint64_t dtab[RVTRACE_DTAB_SIZE];
    uint64_t dtab_key;
    uint64_t dtab_max;
    uint32_t dtab_len;
    /* (slack: a message is copied in with a fixed-size copy) */
    uint8_t fifo[RVTRACE_FIFO_SIZE + RVTRACE_FIFO_STALL_ROOM + RVTRACE_MSG_MAX];
    uint32_t fifo_len;
    bool stall_queued;       /* stall work queued on the hart */
    uint64_t stack[RVTRACE_CALL_STACK];
    uint32_t stack_depth;
    uint32_t call_count;     /* ImplicitReturnMode=1 nesting counter */
    /*
     * Self-hosted trace (Smstrcn): the CSR front end. sh_owner while the
     * CSRs own the engine (from mstrcctl.EN 0->1 until it has stopped and
     * drained); the output is then the AMB and MMIO writes are ignored.
     */
    bool sh_owner;
    bool sh_hard_refuse;     /* the AMB refused for a fault or SOF: drop */
    uint64_t sh_ctl;         /* mstrcctl's stored fields */
    uint8_t sh_vs;           /* vsstrcctl.U (bit 0), .S (bit 1) */
    RVTraceAmbState *amb;    /* with Smstrcn only */
    Object *mmio_output;     /* the TCI output, kept while the AMB is used */
    RVTraceSinkIf *mmio_out_if;
    RVTraceSinkIfClass *mmio_out_k;
    uint32_t mmio_port;
    /* trTeFormat latched when tracing starts: this session speaks E-Trace. */
    bool etrace;
    RVTraceETraceState et;
};

#endif
