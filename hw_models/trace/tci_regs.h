/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tci_regs.h - plain C/C++ view of tci_regs.def (Trace Control Interface 1.0
 * register map). Include-only; no code.
 *
 *   TCI_<reg>                    register offset, e.g. TCI_trRamWPLow == 0x20
 *   TCI_<reg>_<field>_LSB/_WIDTH/_MASK
 *   TCI_<GROUP>_<NAME>           named values, e.g. TCI_INSTMODE_HTM == 6
 *   TCI_<reg>_STRIDE/_COUNT      register arrays (filters, comparators)
 */
#ifndef TSBI_TCI_REGS_H
#define TSBI_TCI_REGS_H

enum TciRegOffset {
#define TCI_REG(comp, reg, offset) TCI_##reg = offset,
#include "tci_regs.def"
};

enum TciField {
#define TCI_FIELD(reg, name, lsb, width)                                                           \
    TCI_##reg##_##name##_LSB = lsb, TCI_##reg##_##name##_WIDTH = width,                            \
    TCI_##reg##_##name##_MASK = (int)(((1ull << (width)) - 1u) << (lsb)),
#include "tci_regs.def"
};

enum TciValue {
#define TCI_VALUE(group, name, value) TCI_##group##_##name = value,
#include "tci_regs.def"
};

enum TciArray {
#define TCI_ARRAY(reg, stride, count) TCI_##reg##_STRIDE = stride, TCI_##reg##_COUNT = count,
#include "tci_regs.def"
};

#endif
