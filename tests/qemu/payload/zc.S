/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Zcmp and Zcmt code for the trace validation (CFG->kernel == 2, on a hart
 * with zcmp/zcmt and without Zcd): cm.push/cm.popret/cm.popretz returns and
 * cm.jt/cm.jalt table jumps, which N-Trace 1.0's itype table reports as a
 * return, a direct jump and a direct call. The encodings are written as
 * .2byte so any binutils assembles them.
 */
#define CSR_JVT 0x017
/* cm.push/cm.pop*: 101 | funct5 | rlist[7:4] | spimm[3:2] | 10 */
#define CM_PUSH_RA_S0_S1    0xB862  /* cm.push {ra, s0-s1}, -32 */
#define CM_POPRET_RA_S0_S1  0xBE62  /* cm.popret {ra, s0-s1}, 32 */
#define CM_PUSH_RA          0xB842  /* cm.push {ra}, -16 */
#define CM_POPRETZ_RA       0xBC42  /* cm.popretz {ra}, 16 */
/* cm.jt / cm.jalt: 101 000 index[9:2] 10; index >= 32 is cm.jalt */
#define CM_JT(i)            (0xA002 | ((i) << 2))
#define ZC_JT_INDEX         1
#define ZC_JALT_INDEX       32

    .text
    .globl zc_run
/* unsigned long zc_run(unsigned long iterations): returns a checksum */
zc_run:
    addi    sp, sp, -32
    sd      ra, 0(sp)
    sd      s0, 8(sp)
    sd      s1, 16(sp)
    mv      s1, a0
    li      s0, 0
    la      t0, zc_table
    csrw    CSR_JVT, t0             /* jvt.mode 0: jump table */
1:  mv      a0, s1
    call    zc_leaf                 /* returns with cm.popret */
    add     s0, s0, a0
    .2byte  CM_JT(ZC_JALT_INDEX)    /* cm.jalt: call zc_leaf2 through the table */
    add     s0, s0, a0
    call    zc_jt                   /* cm.jt to zc_jt_target, which returns */
    add     s0, s0, a0
    addi    s1, s1, -1
    bnez    s1, 1b
    mv      a0, s0
    ld      ra, 0(sp)
    ld      s0, 8(sp)
    ld      s1, 16(sp)
    addi    sp, sp, 32
    ret

zc_leaf:
    .2byte  CM_PUSH_RA_S0_S1
    addi    s0, a0, 1
    andi    s1, s0, 3
    beqz    s1, 2f
    add     s0, s0, s1
2:  add     a0, s0, s0
    .2byte  CM_POPRET_RA_S0_S1

zc_jt:
    li      a0, 7
    .2byte  CM_JT(ZC_JT_INDEX)

zc_leaf2:
    .2byte  CM_PUSH_RA
    addi    t1, a0, 3
    .2byte  CM_POPRETZ_RA           /* returns with a0 = 0 */

zc_jt_target:
    addi    a0, a0, 5
    ret

    /* cm.jt/cm.jalt fetch the table as instructions: keep it in .text */
    .balign 64
    .globl zc_table
zc_table:
    .dword  0
    .dword  zc_jt_target            /* ZC_JT_INDEX */
    .fill   30, 8, 0
    .dword  zc_leaf2                /* ZC_JALT_INDEX */
