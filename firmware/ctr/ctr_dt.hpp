// SPDX-License-Identifier: BSD-2-Clause
// Device-tree side of emulated CTR (libfdt only, host-testable).
#pragma once

namespace ctr::dt {

// Adds "ssctr" and "sscsrind" to every CPU node's riscv,isa-extensions (when
// the node has that list) and riscv,isa string, unless already listed, so
// S-mode finds the CTR the firmware emulates. Returns 0 or a libfdt error.
int advertise(void *fdt);

// Appends "_<ext>" to the riscv,isa string in buf (length n, capacity cap)
// unless the multi-letter extension is already there. Returns the new length,
// or -1 when it does not fit.
int isa_append(char *buf, int n, int cap, const char *ext);

} // namespace ctr::dt
