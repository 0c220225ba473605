// SPDX-License-Identifier: BSD-2-Clause
// Device-tree side of emulated CTR (libfdt only, host-testable).
#pragma once

namespace ctr::dt {

// Adds "ssctr" and "sscsrind" to every CPU node's riscv,isa-extensions (when
// the node has that list) and riscv,isa string, unless already listed, so
// S-mode finds the CTR the firmware emulates. Returns 0 or a libfdt error.
int advertise(void *fdt);

// Where a hart's CTR records come from (README "Where records come from").
enum class Source : unsigned char {
    native,    // the hart's own Smctr
    encoder,   // emulated registers fed from the hart's N-Trace encoder
    registers, // emulated registers, nothing records S-mode's transfers
};
// The value of the CPU node property "tsbi,ctr-source".
const char *source_name(Source s);
// Per CPU node: "tsbi,ctr-source" = source_name(source(hartid)); with `advertise`
// ssctr/sscsrind are added (as advertise()) to emulated harts where they record
// (encoder), and where they do not only when registers_only
// (/chosen/tsbi,ctr-registers-only). A node without a readable reg is left
// alone. Returns 0 or a libfdt error.
int annotate(void *fdt, Source (*source)(unsigned long hartid), bool advertise, bool registers_only);
// What annotate adds at most to a tree of `cpu_nodes` cpu nodes: the room
// CTR's fix-up asks of the core (include/subsystem.hpp, fdt_room).
unsigned long annotate_room(unsigned cpu_nodes, bool advertise);

// Appends "_<ext>" to the riscv,isa string in buf (length n, capacity cap)
// unless the multi-letter extension is already there. Returns the new length,
// or -1 when it does not fit.
int isa_append(char *buf, int n, int cap, const char *ext);

} // namespace ctr::dt
