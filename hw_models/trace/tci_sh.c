/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tci_sh: prints the Trace Control Interface register map (tci_regs.def) as
 * shell assignments, so test scripts use the same numbers as the C code:
 *   TCI_trTeControl=0x0  TCI_trTeControl_InstMode_LSB=4  TCI_INSTMODE_HTM=6 ...
 * Usage: eval "$(build/trace/tci_sh)"
 */
#include <stdio.h>

int main(void)
{
#define TCI_REG(comp, reg, offset) printf("TCI_%s=%d\n", #reg, offset);
#define TCI_FIELD(reg, name, lsb, width)                                                           \
    printf("TCI_%s_%s_LSB=%d\nTCI_%s_%s_WIDTH=%d\n", #reg, #name, lsb, #reg, #name, width);
#define TCI_VALUE(group, name, value) printf("TCI_%s_%s=%d\n", #group, #name, value);
#define TCI_ARRAY(reg, stride, count)                                                              \
    printf("TCI_%s_STRIDE=%d\nTCI_%s_COUNT=%d\n", #reg, stride, #reg, count);
#include "tci_regs.def"
    return 0;
}
