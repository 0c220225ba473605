/*
 * RISC-V trace ingress port: what TCG reports to the hart's trace encoder.
 *
 * The port follows the E-Trace ingress model of a block of retired
 * instructions per cycle: every control transfer reports the address and
 * size of the transferring instruction, its 4-bit itype (N-Trace 1.0 table
 * "Generating itype for different instructions") and the next address; the
 * instructions retired between two reports are the sequential run from the
 * previous next address up to the reported instruction, so every retired
 * instruction is covered. Traps report the trap PC and handler address.
 * Translation adds the calls only to translation blocks created while the
 * hart's encoder is tracing (cs_base bit 0), so untraced code runs exactly
 * the code it always did. Conditional branches in HTM, not-taken ones in
 * BTM and plain direct jumps (without EnAllJumps) are handled inline: a
 * transfer adds a constant to trace_icnt_k (I-CNT relative to the start of
 * the current run, see cpu.h), an HTM branch shifts its outcome into
 * trace_hist, and helper_trace_fixup runs only when HIST is full. A taken
 * branch in BTM, which does need a message, is queued in trace_batch and
 * the encoder encodes the queue when it is full (helper_trace_flush) or
 * before anything else reaches it, so the messages are those of one report
 * per branch.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef RISCV_TRACE_INGRESS_H
#define RISCV_TRACE_INGRESS_H

#include "hw/riscv/ntrace_defs.h"

/* info argument of helper_trace_cf: itype[3:0], instruction halfwords[7:4] */
#define RISCV_TRACE_INFO_ITYPE_MASK 0xf
#define RISCV_TRACE_INFO_LEN_SHIFT  4

/* cs_base bits: blocks that carry ingress calls; encoder in HTM mode. */
#define RISCV_TRACE_CS_BASE_INGRESS 1
#define RISCV_TRACE_CS_BASE_HTM     2
/* EnAllJumps: plain direct jumps are reported too. */
#define RISCV_TRACE_CS_BASE_ALL_JUMPS 4
/*
 * EnSequentialJump: a register jump right after the lui/c.lui/auipc that
 * loaded its register (in the same block, so retired consecutively) is
 * reported as the direct jump of the same kind (N-Trace 1.0 "Sequential
 * Jump Optimization"); across a block boundary it stays uninferable, which
 * the encoder may choose and the decoder sees from the message.
 */
#define RISCV_TRACE_CS_BASE_SEQ_JUMP 8
/*
 * E-Trace data trace (trTeDataTracing): every retired load and store is
 * reported after its access succeeded, with helper_trace_data(addr, value,
 * info), the E-Trace "Data Trace Interface" (ingressPort.adoc) in its
 * unified form: dretire, dtype (load 0, store 1), daddr, dsize and data.
 * Atomics too (patch 0011): an LR is a load, an AMO or SC calls
 * helper_trace_atomic(addr, operand, value, info) with the store data
 * (rs2) as operand and, for an AMO, the value loaded, for an SC its
 * result (0: stored). CSR accesses, optional there, are not reported
 * (hw_models/qemu/README.md "E-Trace data trace").
 */
#define RISCV_TRACE_CS_BASE_DATA 16

/* info argument of helper_trace_data: dsize[1:0] (2^dsize bytes), store[2] */
#define RISCV_TRACE_DATA_SIZE_MASK 3
#define RISCV_TRACE_DATA_STORE     4
/*
 * info argument of helper_trace_atomic: dsize[1:0], dtype[7:4] as the
 * ingress port's dtype table (ingressPort.adoc "Data access type"), and
 * RISCV_TRACE_DTYPE_SC, which the encoder turns into dtype 1 (store) or
 * 15 (conditional store failure) by the SC's result.
 */
#define RISCV_TRACE_DATA_DTYPE_SHIFT 4
#define RISCV_TRACE_DATA_DTYPE_MASK  0xf0
#define RISCV_TRACE_DTYPE_SWAP      8
#define RISCV_TRACE_DTYPE_ADD       9
#define RISCV_TRACE_DTYPE_AND       10
#define RISCV_TRACE_DTYPE_OR        11
#define RISCV_TRACE_DTYPE_XOR       12
#define RISCV_TRACE_DTYPE_MAX       13
#define RISCV_TRACE_DTYPE_MIN       14
#define RISCV_TRACE_DTYPE_SC_FAIL   15
#define RISCV_TRACE_DTYPE_LOAD      0
#define RISCV_TRACE_DTYPE_STORE     1
#define RISCV_TRACE_DTYPE_SC        2   /* reserved there: resolved as above */


void riscv_trace_cf(CPURISCVState *env, target_ulong pc, target_ulong next,
                    uint32_t info);
void riscv_trace_trap(CPURISCVState *env, target_ulong epc,
                      target_ulong handler, bool interrupt);
void riscv_trace_fixup(CPURISCVState *env, target_ulong next);
void riscv_trace_flush(CPURISCVState *env);
void riscv_trace_idle(CPURISCVState *env);
void riscv_trace_context(CPURISCVState *env);
void riscv_trace_data(CPURISCVState *env, target_ulong addr, uint64_t value,
                      uint32_t info);
void riscv_trace_atomic(CPURISCVState *env, target_ulong addr,
                        uint64_t operand, uint64_t value, uint32_t info);

/*
 * Comparator filters (trTeComp*, trTeFilterMatchComp*; rvtrace-encoder.c
 * "Comparators"): while a selected filter uses a comparator, blocks are
 * translated apart (cs_base RISCV_TRACE_CS_BASE_ADDR and a generation of
 * the comparator settings in bits 31:16), each holds instructions of one
 * riscv_trace_addr_class only (the results of the address comparisons;
 * RISCV_TRACE_ADDR_CLASS_END: the block ends after this instruction) and
 * starts with helper_trace_block, where the encoder checks qualification.
 */
#define RISCV_TRACE_CS_BASE_ADDR         0x80
#define RISCV_TRACE_CS_BASE_ADDR_GEN_SHIFT 16
#define RISCV_TRACE_ADDR_CLASS_END       0x80000000u
uint32_t riscv_trace_addr_class(CPURISCVState *env, target_ulong pc);
void riscv_trace_block(CPURISCVState *env, target_ulong pc);
/*
 * Sdtrig trace actions (debug.c): whether the encoder takes @action, and
 * an execute trigger with it at @pc; true when the hart must look up its
 * translation again (the trace was switched on or off).
 */
bool riscv_trace_trigger_supported(CPURISCVState *env, int action);
bool riscv_trace_trigger(CPURISCVState *env, target_ulong pc, int action);

/*
 * Self-hosted trace (draft Smstrcn/Ssstrcn, Ssamb; hw_models/trace/
 * strc_regs.h): csr.c forwards the CSRs to the hart's encoder, which is
 * the same engine the Trace Control Interface drives (rvtrace-encoder.c
 * "Self-hosted trace"), and whose output then goes to the hart's
 * asynchronous memory buffer (rvtrace-amb.c).
 */
enum {
    RISCV_STRC_MCTL,        /* mstrcctl */
    RISCV_STRC_SCTL,        /* sstrcctl (V=0) */
    RISCV_STRC_VSCTL,       /* vsstrcctl, or sstrcctl with V=1 */
    RISCV_STRC_AMBCS,       /* sstrcambcs */
    RISCV_STRC_AMBADDR,     /* sstrcambaddr */
};
void riscv_strc_rmw(CPURISCVState *env, int which, target_ulong *ret_val,
                    target_ulong new_val, target_ulong wr_mask);
/* SFENCE.VMA: drop the AMB's cached translations. */
void riscv_strc_tlb_flush(CPURISCVState *env);
/* cpu_helper.c: translate an AMB page; TRANSLATE_* result, no exception. */
int riscv_cpu_amb_translate(CPURISCVState *env, vaddr va, bool smode,
                            hwaddr *pa);

#endif
