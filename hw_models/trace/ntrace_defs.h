/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ntrace_defs.h - plain C view of ntrace_msgs.def (for the QEMU device model and any C
 * code): TCODE values, field kinds/ids, named values and limits. Include-only; no code.
 * Trace Control Interface registers and fields are in tci_regs.h (TCI_*).
 *
 *   NT_TCODE_<Message>          e.g. NT_TCODE_IndirectBranchHist == 28
 *   NT_FLD_<Field>              field ids in .def order (NT_FLD_COUNT = number of fields)
 *   NT_<GROUP>_<NAME>           e.g. NT_SYNC_PERIODIC, NT_BTYPE_EXCEPTION, NT_ITYPE_RETURN
 *   NT_LIMIT_<NAME>             e.g. NT_LIMIT_MAX_ICNT
 */
#ifndef TSBI_NTRACE_DEFS_H
#define TSBI_NTRACE_DEFS_H

enum NtraceKind { NTRACE_KIND_FIX, NTRACE_KIND_VAR, NTRACE_KIND_ADDR, NTRACE_KIND_SRC };

enum NtraceTcode {
#define NTRACE_MSG(name, tcode, fields) NT_TCODE_##name = tcode,
#include "ntrace_msgs.def"
};

enum NtraceFieldId {
#define NTRACE_FIELD(id, kind, bits) NT_FLD_##id,
#include "ntrace_msgs.def"
    NT_FLD_COUNT
};

enum NtraceNamedValue {
#define NTRACE_ENUM(group, name, value) NT_##group##_##name = value,
#include "ntrace_msgs.def"
};

enum NtraceLimit {
#define NTRACE_LIMIT(name, value) NT_LIMIT_##name = value,
#include "ntrace_msgs.def"
};

#endif
