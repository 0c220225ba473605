/* SPDX-License-Identifier: BSD-2-Clause */
/* The N-Trace table must stay usable from C (the QEMU device model): this file is
 * compiled with -std=c11 -pedantic -Werror by tests/suites/40-trace.sh and prints the
 * message rows; the suite compares them with the expected layout. */
#include <stdio.h>

#include "ntrace_defs.h"
#include "tci_regs.h"

#define NTRACE_F(id) #id " "
#define NTRACE_FC(id, c, v) #id "(if " #c "==" #v ") "
#define NTRACE_MSG(name, tcode, fields) printf("%d %s %s\n", tcode, #name, fields);

int main(void) {
#include "ntrace_msgs.def"
    return NT_TCODE_IndirectBranchHist == 28 && TCI_trTeInstFeatures_SrcBits_LSB == 28 &&
                   NT_ITYPE_COROUTINE_SWAP == 12 && NT_LIMIT_MAX_HIST == 32
               ? 0
               : 1;
}
