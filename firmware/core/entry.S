/* SPDX-License-Identifier: BSD-2-Clause */
/* Reset entry, the M-mode trap vector and the hand-off to S-mode.
 *
 * Trap entry keeps the invariant "mscratch = this hart's stack top while the
 * hart runs below M-mode, 0 while it runs in M-mode", so a trap taken in
 * M-mode (a firmware bug) is recognised instead of running on S-mode's stack.
 * Supervisor ecalls take a short path that saves only the registers the C++
 * handler may clobber; every other trap saves the full frame so emulation can
 * read and write any register by number. */
#include "asm.h"

/* FRAME_SAVE/FRAME_LOAD n...: store/load x<n> in its trap-frame slot, for
 * each register number given (the same instructions as one REG_S/REG_L each). */
.macro FRAME_SAVE regs:vararg
    .irp r, \regs
    REG_S   x\r, FRAME_REG(\r)(sp)
    .endr
.endm
.macro FRAME_LOAD regs:vararg
    .irp r, \regs
    REG_L   x\r, FRAME_REG(\r)(sp)
    .endr
.endm

/* STACK_TOP sp_out, id, t: the top of the carved stack of the hart with ID
 * \id, a hart with an index (core/hartmap.hpp): fw_hart_map's table, or
 * index = ID when it has none; then fw_stacks_base + (index + 1) <<
 * FW_STACK_SHIFT. */
.macro STACK_TOP out, id, t
    lla     \t, fw_hart_map
    REG_L   \t, REGBYTES(\t)           /* table */
    mv      \out, \id
    beqz    \t, 9f
    slli    \out, \id, 1
    add     \t, \t, \out
    lhu     \out, 0(\t)
9:  addi    \out, \out, 1
    slli    \out, \out, FW_STACK_SHIFT
    lla     \t, fw_stacks_base
    REG_L   \t, 0(\t)
    add     \out, \out, \t
.endm

    .option norvc
    .section .text.entry, "ax"
    .globl _start
_start:
    csrw    mie, zero
    csrw    mscratch, zero
    /* Smdbltrp: mstatus.MDT resets to 1, and while it is 1 a trap taken in
     * M-mode is a double trap the hart does not survive (privileged spec,
     * "Machine Double Trap"). Clear it before the first probe that may trap.
     * On RV32 it is in mstatush, which a hart older than priv 1.12 lacks:
     * that access traps (then there is no MDT either) and expected_trap
     * skips it. */
    la      t0, expected_trap
    csrw    mtvec, t0
#if __riscv_xlen == 32
    li      t0, MSTATUSH_MDT
    csrc    mstatush, t0
#else
    li      t0, 1
    slli    t0, t0, MSTATUS_MDT_SHIFT
    csrc    mstatus, t0
#endif
    la      t0, trap_entry
    csrw    mtvec, t0
    csrr    s0, mhartid
    mv      s1, a1
    mv      s2, a2
    li      t1, FW_HARTID_LIMIT
    bgeu    s0, t1, hart_park
    /* The boot hart: the one a fw_dynamic_info of version 2 or later names
     * (fw_dynamic image only), else the first to take the lottery. It runs
     * cold boot on the boot stack; the per-hart stacks do not exist yet
     * (cold boot carves them after the image, sized by the device tree's
     * harts: core/README.md "Firmware memory"). */
    lla     t0, fw_image_dynamic
    lbu     t0, 0(t0)
    beqz    t0, .Llottery
    beqz    s2, .Llottery
    REG_L   t1, 0(s2)                   /* magic */
    li      t2, FW_DYNAMIC_INFO_MAGIC
    bne     t1, t2, .Llottery
    REG_L   t1, REGBYTES(s2)            /* version */
    li      t2, 2
    bltu    t1, t2, .Llottery
    REG_L   t1, 5 * REGBYTES(s2)        /* boot_hart */
    li      t2, -1
    beq     t1, t2, .Llottery
    bne     t1, s0, .Lwait
    j       .Lboot
.Llottery:
    lla     t0, fw_boot_lottery
    li      t1, 1
    amoswap.w.aqrl t1, t1, (t0)
    bnez    t1, .Lwait
.Lboot:
    lla     sp, fw_boot_stack_top
    mv      a0, s0
    mv      a1, s1
    mv      a2, s2
    li      a3, 1
    call    fw_entry
    /* The other harts wait in WFI until cold boot is done, as OpenSBI does,
     * not spinning: cold boot parses and edits the device tree, and a
     * spinning hart costs the host (or a simulator, or a trace) that whole
     * time. The flag is read before every WFI, so a release that came
     * before this hart got here is seen; the waking IPI stays pending for
     * stopped_loop's process_ipis(), which cannot lose an HSM start sent
     * meanwhile. */
.Lwait:
    /* An AIA machine may send IPIs to the hart's M-level IMSIC file instead
     * (platform::ipi_irq_bit): the wake-up then arrives as the machine
     * external interrupt, so the file delivers identity 1 from here on, as
     * OpenSBI's nascent_init does (AIA 3.8: eithreshold 0, eie bit 1,
     * eidelivery 1). A hart without Smaia or without a file traps on the
     * access, which expected_trap skips. */
    la      t0, expected_trap
    csrw    mtvec, t0
    li      t0, AIA_EITHRESHOLD
    csrw    CSR_MISELECT, t0
    csrw    CSR_MIREG, zero
    li      t0, AIA_EIE0
    csrw    CSR_MISELECT, t0
    li      t0, 1 << AIA_IPI_IDENTITY
    csrs    CSR_MIREG, t0
    li      t0, AIA_EIDELIVERY
    csrw    CSR_MISELECT, t0
    li      t0, 1
    csrw    CSR_MIREG, t0
    la      t0, trap_entry
    csrw    mtvec, t0
    li      t0, MIP_MSIP | MIP_MEIP
    csrw    mie, t0
1:  lla     t0, fw_cold_boot_done
    REG_L   t1, 0(t0)
    fence   r, rw
    bnez    t1, 2f
    wfi
    j       1b
    /* A hart with a stack carved for it (an index in fw_hart_map: its ID
     * below id_limit, and no hole in the table). Others park. */
2:  lla     t0, fw_hart_map
    REG_L   t1, 0(t0)                   /* id_limit */
    bgeu    s0, t1, hart_park
    REG_L   t1, REGBYTES(t0)            /* table */
    beqz    t1, 3f
    slli    t2, s0, 1
    add     t1, t1, t2
    lhu     t1, 0(t1)
    li      t2, HARTMAP_NO_INDEX
    beq     t1, t2, hart_park
3:  STACK_TOP sp, s0, t0
    mv      a0, s0
    mv      a1, s1
    mv      a2, s2
    li      a3, 0
    call    fw_entry
hart_park:
    csrw    mie, zero
1:  wfi
    j       1b

    /* Written before .bss is cleared (the lottery) or read by harts that
     * never see .bss cleared (the release flag), so in .data. */
    .section .data
    .balign REGBYTES
    .globl fw_cold_boot_done
fw_cold_boot_done:
    .zero   REGBYTES
fw_boot_lottery:
    .word   0

    /* The boot hart's stack for cold boot and its own warm init, outside
     * .bss (cold boot clears .bss on it) and below _fw_end; the boot hart
     * takes its carved stack when it leaves M-mode (smode_enter). */
    .section .stacks, "aw", @nobits
    .balign 16
    .globl fw_boot_stack
fw_boot_stack:
    .skip   FW_BOOT_STACK_SIZE
fw_boot_stack_top:
    .size   fw_boot_stack, FW_BOOT_STACK_SIZE

    .text
    /* The trap vector of SoCs whose TLB needs a fence at every M-mode entry
     * (the T-Head C910/C920 erratum, platform/generic/vendor.cpp): the
     * fence OpenSBI's thead_c9xx_tlb_trap_handler.S issues, then the usual
     * vector. t0 is S-mode's, unsaved yet: used here as an operand only. */
    .align 4
    .globl trap_entry_tlb_flush
trap_entry_tlb_flush:
    sfence.vma zero, t0
    j       trap_entry

    .align 4
    .globl trap_entry
trap_entry:
    csrrw   sp, mscratch, sp
    beqz    sp, .Ltrap_from_m
    addi    sp, sp, -FRAME_SIZE
    REG_S   t0, FRAME_REG(5)(sp)
    csrrw   t0, mscratch, zero
    REG_S   t0, FRAME_REG(2)(sp)
    csrr    t0, mcause
    addi    t0, t0, -9                  /* CAUSE_SUPERVISOR_ECALL */
    bnez    t0, .Lnot_ecall

    /* SBI call: a0..a7 go to the handler untouched. */
    FRAME_SAVE 1, 6, 7, 12, 13, 14, 15, 16, 17, 28, 29, 30, 31
    /* The handler of EID a7: its slot in sbi_ext_table (sbi/ecall.cpp,
     * which checks the hash and layout of asm.h against the C++ side) holds
     * the EID and its descriptor; every slot that could match holds one. */
    srli    t0, a7, SBI_EXT_HASH_SHIFT
    xor     t0, t0, a7
    andi    t0, t0, SBI_EXT_SLOTS - 1
    slli    t0, t0, SBI_EXT_SLOT_SHIFT
    lla     t1, sbi_ext_table
    add     t0, t0, t1
    REG_L   t1, 0(t0)
    bne     t1, a7, .Lno_extension
    REG_L   t0, REGBYTES(t0)
    REG_L   t0, EXT_HANDLER(t0)
    jalr    t0
    /* Only the spec's error codes (0..SBI_LOWEST_ERROR) leave the firmware:
     * any other a0 goes through sbi_ecall_guard (sbi/ecall.cpp), which keeps
     * it for legacy EIDs and a resumed SSE context and makes the rest
     * SBI_ERR_FAILED. a1 waits in the frame's a1 slot, unused on this path. */
    addi    t0, a0, -SBI_LOWEST_ERROR
    sltiu   t0, t0, 1 - SBI_LOWEST_ERROR
    bnez    t0, 1f
    REG_S   a1, FRAME_REG(11)(sp)
    call    sbi_ecall_guard
    REG_L   a1, FRAME_REG(11)(sp)
1:  csrr    t0, mepc
    addi    t0, t0, 4
    csrw    mepc, t0
    addi    t0, sp, FRAME_SIZE
    csrw    mscratch, t0
    FRAME_LOAD 1, 5, 6, 7, 12, 13, 14, 15, 16, 17, 28, 29, 30, 31, 2
    mret
.Lno_extension:
    /* An EID nobody implements (an EID above the 32-bit EID space, too). */
    li      a0, SBI_ERR_NOT_SUPPORTED
    li      a1, 0
    j       1b

.Lnot_ecall:
    addi    t0, t0, 9 - 2               /* CAUSE_ILLEGAL_INSTRUCTION */
    bnez    t0, .Lslow
    /* Only a CSR instruction in mtval (SYSTEM, funct3 not 0 or 4) can be
     * served here: the others (and mtval = 0, no instruction given) go the
     * full way at once. */
    REG_S   t1, FRAME_REG(6)(sp)
    csrr    t0, mtval
    andi    t1, t0, 0x7f
    addi    t1, t1, -0x73               /* OPCODE_SYSTEM */
    bnez    t1, .Lnot_csr
    srli    t0, t0, 12
    andi    t0, t0, 3                   /* funct3 0 (ecall, xRET, sctrclr ...) or 4 */
    beqz    t0, .Lnot_csr
    /* Illegal instruction: a CSR the firmware emulates (CTR's, time) is
     * served with the registers a C++ call may clobber in the frame, the
     * others left in place (emulate_csr_fast only takes instructions whose
     * rd/rs1 are among the saved ones). Anything else: reload them and take
     * the full path from scratch. */
    FRAME_SAVE 1, 7, 10, 11, 12, 13, 14, 15, 16, 17, 28, 29, 30, 31
    mv      a0, sp
    csrr    a1, mtval
    csrr    a2, mstatus
    call    emulate_csr_fast
    beqz    a0, .Lillegal_slow
    /* Served: past the instruction (a CSR instruction is 4 bytes). mstatus
     * is as the trap left it (emulation restores what it changes). */
    csrr    t0, mepc
    addi    t0, t0, 4
    csrw    mepc, t0
    addi    t0, sp, FRAME_SIZE
    csrw    mscratch, t0
    FRAME_LOAD 1, 5, 6, 7, 10, 11, 12, 13, 14, 15, 16, 17, 28, 29, 30, 31, 2
    mret
.Lillegal_slow:
    FRAME_LOAD 1, 6, 7, 10, 11, 12, 13, 14, 15, 16, 17, 28, 29, 30, 31
.Lnot_csr:
    REG_L   t1, FRAME_REG(6)(sp)
.Lslow:
    FRAME_SAVE 1, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
    csrr    t0, mepc
    REG_S   t0, FRAME_MEPC(sp)
    csrr    t0, mstatus
    REG_S   t0, FRAME_MSTATUS(sp)
    REG_S   zero, FRAME_WITNESS(sp)     /* fw::full_path_taken() */
    mv      a0, sp
    call    trap_handler
    /* The handler may have changed mepc/mstatus in the frame (redirects,
     * emulation); write them back. */
    .globl trap_return
trap_return:
    REG_L   t0, FRAME_MEPC(sp)
    csrw    mepc, t0
    REG_L   t0, FRAME_MSTATUS(sp)
    csrw    mstatus, t0
    addi    t0, sp, FRAME_SIZE
    csrw    mscratch, t0
    FRAME_LOAD 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 2
    mret

.Ltrap_from_m:
    /* mscratch now holds the M-mode sp: take it back and report. */
    csrrw   sp, mscratch, sp
    addi    sp, sp, -FRAME_SIZE
    REG_S   ra, FRAME_REG(1)(sp)
    csrr    a0, mcause
    csrr    a1, mepc
    csrr    a2, mtval
    call    trap_from_m_fatal
1:  wfi
    j       1b

/* [[noreturn]] void smode_enter(ulong a0, ulong a1, ulong pc): enter the next
 * stage (mstatus.MPP already set by the caller) on a fresh M-mode stack. */
    .globl smode_enter
smode_enter:
    csrw    mepc, a2
    csrr    t1, mhartid
    STACK_TOP t0, t1, t2
    csrw    mscratch, t0
    li      ra, 0
    li      sp, 0
    li      gp, 0
    li      tp, 0
    li      t0, 0
    li      t1, 0
    li      t2, 0
    li      a2, 0
    li      a3, 0
    li      a4, 0
    li      a5, 0
    li      a6, 0
    li      a7, 0
    mret

/* Trap-safe access. An expected trap lands in expected_trap, which records
 * mcause in a5 and skips the (4-byte) faulting instruction. The caller saves
 * and restores mtvec, mepc and mstatus around it, since a trap taken in M-mode
 * overwrites the outer trap's state. */
    .align 4
expected_trap:
    csrr    a5, mcause
    csrr    a4, mepc
    addi    a4, a4, 4
    csrw    mepc, a4
    mret

/* Runs the 2-instruction stub at a0 (csr access; ret) with mtvec pointing at
 * expected_trap. In: a0 = stub, a1 = value to write. Out: a0 = value read,
 * a1 = mcause or 0. */
    .globl run_trap_safe_stub
run_trap_safe_stub:
    addi    sp, sp, -4 * REGBYTES
    REG_S   ra, 0(sp)
    csrr    t0, mepc
    REG_S   t0, REGBYTES(sp)
    csrr    t0, mstatus
    REG_S   t0, 2 * REGBYTES(sp)
    la      t1, expected_trap
    csrrw   t2, mtvec, t1
    mv      t3, a0
    mv      a0, zero
    li      a5, 0
    jalr    ra, t3
    csrw    mtvec, t2
    REG_L   t0, 2 * REGBYTES(sp)
    csrw    mstatus, t0
    REG_L   t0, REGBYTES(sp)
    csrw    mepc, t0
    REG_L   ra, 0(sp)
    addi    sp, sp, 4 * REGBYTES
    mv      a1, a5
    ret

/* Unprivileged loads and stores on behalf of the trapping mode: in a0 =
 * address, a1 = mstatus to use (MPRV=1, MPP = trapping mode, MXR as needed),
 * a2 = value to store. Out: a0 = value, a1 = mcause or 0.
 *
 * Each accessor exists twice, in .unpriv_a and .unpriv_b, which the linker
 * script places at the two ends of .text, at least two pages apart. QEMU 7.2
 * looks MPRV accesses up in M-mode's TLB (its MMU index is the current
 * privilege), where the fetch of the accessor's own code has just put that
 * page with M-mode permissions: an access to the accessor's own page would
 * bypass the PMP entry that denies S-mode the firmware. fw::unpriv_*
 * (trap.hpp) call the copy whose page the access does not touch. Each copy
 * is 64-byte aligned and shorter than 64 bytes (unpriv_lx3: 128), so it lies
 * in one page. */
/* The frame every accessor shares: mtvec points at expected_trap (which
 * sets a5 to mcause and skips the access) while MPRV is set from a1. */
.macro UNPRIV_BEGIN name, slot=64
    .balign \slot
    .globl \name
\name:
    csrr    t0, mepc
    csrr    t4, mstatus
    la      t1, expected_trap
    csrrw   t2, mtvec, t1
    li      a5, 0
    csrw    mstatus, a1
.endm
.macro UNPRIV_RESTORE
    csrw    mstatus, t4
    csrw    mtvec, t2
    csrw    mepc, t0
.endm
.macro UNPRIV_END name, slot=64
    mv      a1, a5
    ret
    .if (. - \name) > \slot
    .error "unprivileged accessor longer than its slot"
    .endif
.endm
.macro UNPRIV name, insn, isstore
    UNPRIV_BEGIN \name
    .if \isstore
    \insn   a2, 0(a0)
    .else
    \insn   a0, 0(a0)
    .endif
    UNPRIV_RESTORE
    UNPRIV_END \name
.endm
/* Two XLEN-bit words at a0 and a0 + REGBYTES in one go: the first in a0,
 * the second stored at a2 (M-mode memory, written once MPRV is off again). */
.macro UNPRIV_LX2 name
    UNPRIV_BEGIN \name
    REG_L   t3, REGBYTES(a0)
    REG_L   a0, 0(a0)
    UNPRIV_RESTORE
    REG_S   t3, 0(a2)
    UNPRIV_END \name
.endm
/* Three XLEN-bit words at a0, a0 + REGBYTES and a0 + 2 * REGBYTES: the
 * first in a0, the others stored at a2 and a2 + REGBYTES (CTR's entry rows
 * whose three instructions span three words). Longer than 64 bytes: 128-byte
 * aligned and shorter than that, so it too lies in one page. */
.macro UNPRIV_LX3 name
    UNPRIV_BEGIN \name, 128
    REG_L   t3, REGBYTES(a0)
    REG_L   t5, 2 * REGBYTES(a0)
    REG_L   a0, 0(a0)
    UNPRIV_RESTORE
    REG_S   t3, 0(a2)
    REG_S   t5, REGBYTES(a2)
    UNPRIV_END \name, 128
.endm
    .section .unpriv_a, "ax"
UNPRIV unpriv_lbu_a, lbu, 0
UNPRIV unpriv_lhu_a, lhu, 0
UNPRIV unpriv_lx_a, REG_L, 0
UNPRIV_LX2 unpriv_lx2_a
UNPRIV_LX3 unpriv_lx3_a
UNPRIV unpriv_sb_a, sb, 1
    .section .unpriv_b, "ax"
UNPRIV unpriv_lbu_b, lbu, 0
UNPRIV unpriv_lhu_b, lhu, 0
UNPRIV unpriv_lx_b, REG_L, 0
UNPRIV_LX2 unpriv_lx2_b
UNPRIV_LX3 unpriv_lx3_b
UNPRIV unpriv_sb_b, sb, 1
