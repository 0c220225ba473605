/* SPDX-License-Identifier: BSD-2-Clause */
/* Firmware limits that assembly and C++ both need, written once as
 * preprocessor constants (entry.S cannot read a constexpr). C++ code uses the
 * fw:: names in fw.hpp, derived from these. */
#pragma once
/* Harts are indexed by hart ID; IDs at or above this are parked at boot. */
#define FW_MAX_HARTS 64
/* Per-hart M-mode stack, carved at cold boot after the image (core/init.cpp):
 * entry.S computes sp = fw_stacks_base + (id+1) << shift. */
#define FW_STACK_SHIFT 12
#define FW_STACK_SIZE (1 << FW_STACK_SHIFT)
/* The boot hart's stack for cold boot (entry.S, in .stacks below _fw_end). */
#define FW_BOOT_STACK_SIZE 4096
