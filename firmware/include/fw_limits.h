/* SPDX-License-Identifier: BSD-2-Clause */
/* Firmware limits that assembly and C++ both need, written once as
 * preprocessor constants (entry.S cannot read a constexpr). C++ code uses the
 * fw:: names in fw.hpp, derived from these. */
#pragma once
/* Harts the firmware serves: per-hart state is indexed by a dense hart index
 * 0..n-1 (core/hartmap.hpp), at most this many (QEMU virt's -smp limit). */
#define FW_MAX_HARTS 512
/* Hart IDs the firmware can serve: below this (sparse IDs allowed, as
 * clusters number them). Harts with higher IDs are parked at reset. */
#define FW_HARTID_LIMIT 4096
/* Per-hart M-mode stack, carved at cold boot after the image (core/init.cpp):
 * entry.S computes sp = fw_stacks_base + (index+1) << shift, index the
 * hart's dense index. */
#define FW_STACK_SHIFT 12
#define FW_STACK_SIZE (1 << FW_STACK_SHIFT)
/* The boot hart's stack for cold boot (entry.S, in .stacks below _fw_end). */
#define FW_BOOT_STACK_SIZE 4096
