/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * strc_regs.h - the self-hosted trace CSRs (Smstrcn/Ssstrcn) and the
 * asynchronous memory buffer (Ssamb), written once for the firmware, the
 * project QEMU's model (copied to include/hw/riscv/ by scripts/qemu10.sh),
 * the test payloads and the host tests. Plain C; include-only.
 *
 * Source: riscv/self-hosted-trace 3633cce8 (2026-03-09, draft, CC-BY-4.0),
 * ../shared/specs/self-hosted-trace/: smstrc.adoc ("S") and asyncmbuf.adoc
 * ("A"). Field positions come from the register diagrams (S:21-49,
 * A:33-47). The draft gives no CSR numbers, no mstateen0 bit and no LAMBI
 * interrupt number: those marked PROPOSED are this project's choice
 * (hw_models/qemu/README.md "Self-hosted trace"), in one place so that a
 * later assignment is a one-line change.
 */
#ifndef TSBI_STRC_REGS_H
#define TSBI_STRC_REGS_H

/* CSR numbers (PROPOSED; free in QEMU 10; each M/S/VS trio shares its low
 * byte as Smctr's mctrctl/sctrctl/vsctrctl do). */
#define STRC_CSR_MSTRCCTL     0x346
#define STRC_CSR_SSTRCCTL     0x146
#define STRC_CSR_VSSTRCCTL    0x246
#define STRC_CSR_SSTRCAMBCS   0x147
#define STRC_CSR_SSTRCAMBADDR 0x148

/* mstrcctl / sstrcctl / vsstrcctl fields (S:21-87). */
#define STRCCTL_EN     (1ULL << 0)
#define STRCCTL_EMPTY  (1ULL << 1)
#define STRCCTL_IT     (1ULL << 2)
#define STRCCTL_CEN    (1ULL << 8)
#define STRCCTL_ITEN   (1ULL << 10)
#define STRCCTL_STOF   (1ULL << 11)
#define STRCCTL_STEN   (1ULL << 12)
#define STRCCTL_SMOD_SHIFT 15
#define STRCCTL_SMOD   (3ULL << STRCCTL_SMOD_SHIFT)
#define STRCCTL_SMAX_SHIFT 19
#define STRCCTL_SMAX   (15ULL << STRCCTL_SMAX_SHIFT)
#define STRCCTL_NTA    (1ULL << 32)
#define STRCCTL_ESJ    (1ULL << 33)
#define STRCCTL_EIR    (1ULL << 34)
#define STRCCTL_EBP    (1ULL << 35)
#define STRCCTL_ETC    (1ULL << 36)
#define STRCCTL_ERH    (1ULL << 37)
#define STRCCTL_EAJ    (1ULL << 38)
#define STRCCTL_EAM    (1ULL << 39)
#define STRCCTL_TSEN   (1ULL << 60)
#define STRCCTL_U      (1ULL << 61)
#define STRCCTL_S      (1ULL << 62)
#define STRCCTL_M      (1ULL << 63)   /* read-only 0 in sstrcctl (S:103) */

/* sambcs = sstrcambcs (A:30-76). */
#define SAMBCS_EN      (1ULL << 0)
#define SAMBCS_TF      (1ULL << 1)
#define SAMBCS_BMI     (1ULL << 2)
#define SAMBCS_SIZE_SHIFT 7
#define SAMBCS_SIZE    (31ULL << SAMBCS_SIZE_SHIFT)
#define SAMBCS_SIZE_MAX 20            /* 4 GiB (A:60) */
#define SAMBCS_TFPTR_SHIFT 12
#define SAMBCS_TFPTR   (0xFFFFFULL << SAMBCS_TFPTR_SHIFT)
#define SAMBCS_BMITH_SHIFT 32
#define SAMBCS_BMITH   (3ULL << SAMBCS_BMITH_SHIFT)
#define SAMBCS_BMIEN   (1ULL << 34)
#define SAMBCS_SOF     (1ULL << 35)
#define SAMBCS_WRAP    (1ULL << 61)
#define SAMBCS_EMPTY   (1ULL << 62)
#define SAMBCS_TRV     (1ULL << 63)

/* Enables (S:97, S:125 give the menvcfg/henvcfg bits; S:150 names
 * mstateen0.STRC without a number: PROPOSED, the free bit below CTR). */
#define STRC_MENVCFG_STRCS    (1ULL << 58)
#define STRC_HENVCFG_STRCV    (1ULL << 58)
#define STRC_MSTATEEN0_STRC   (1ULL << 53)

/* Local asynchronous memory buffer interrupt (A:92: no number; PROPOSED:
 * 14, the first reserved standard local interrupt after LCOFI 13). */
#define STRC_IRQ_LAMBI        14

#endif
