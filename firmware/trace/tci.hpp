// SPDX-License-Identifier: BSD-2-Clause
// Trace Control Interface 1.0 register map for the firmware: the one table
// (hw_models/trace/tci_regs.def, through its C view) plus field helpers.
#pragma once
#include <stdint.h>
#include "tci_regs.h"

// Field value of `reg`.`name` in register value `v`, and a register value
// holding `x` in that field (x is truncated to the field's width).
#define TCI_GET(v, reg, name) ((static_cast<uint32_t>(v) & TCI_##reg##_##name##_MASK) >> TCI_##reg##_##name##_LSB)
#define TCI_SET(reg, name, x) ((static_cast<uint32_t>(x) << TCI_##reg##_##name##_LSB) & TCI_##reg##_##name##_MASK)
#define TCI_BIT(reg, name) static_cast<uint32_t>(TCI_##reg##_##name##_MASK)
