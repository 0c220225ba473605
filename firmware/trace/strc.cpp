// SPDX-License-Identifier: BSD-2-Clause
// Self-hosted trace hand-over (strc.hpp, README "Self-hosted trace").
#include "strc.hpp"
#include "core/hart.hpp"
#include "riscv/csr.hpp"
#include <libfdt.h>
#include "fdt_walk.hpp"

namespace trace::strc {

void decide(const void *fdt, bool boot_trace) {
    int chosen = fdtw::root_child(fdt, "chosen");
    int len;
    auto *p = chosen >= 0 ? static_cast<const char *>(fdt_getprop(fdt, chosen, "tsbi,strc", &len))
                          : nullptr;
    bool off = p && len > 0 && strcmp(p, "off") == 0;
    unsigned n = 0;
    for (unsigned i = 0; i < fw::hart_count(); i++)
        if (fw::index_valid(i) && fw::hart_has(fw::hart_at(i).hartid, fw::EXT_SMSTRCN)) n++;
    fw::strc_offered = !off && !boot_trace;
    if (!n) return;
    if (fw::strc_offered)
        fw::printf("tsbi: trace: self-hosted trace (Smstrcn, Ssamb) on %u hart(s) handed to "
                   "S-mode; M-mode is never traced\n", n);
    else
        fw::printf("tsbi: trace: self-hosted trace on %u hart(s) kept from S-mode (%s)\n", n,
                   off ? "tsbi,strc = \"off\"" : "boot-time trace");
}

void hart_init() {
    const unsigned long h = fw::current_hartid();
    if (!fw::hart_has(h, fw::EXT_SMSTRCN)) return;
    // mstrcctl.M is the only way M-mode is ever traced (smstrc.adoc
    // "mstrcctl"; sstrcctl[63] is read-only 0): 0, and this firmware never
    // writes a 1 there. The buffer is disabled and its status cleared.
    csr_write(csr::mstrcctl, 0);
    csr_write(csr::sstrcambcs, 0);
    csr_write(csr::sstrcambaddr, 0);
    if (!fw::hart_has(h, fw::EXT_SMSTATEEN)) return;
    if (fw::strc_offered) csr_set(csr::mstateen0, csr::mstateen0_bits::STRC);
    else csr_clear(csr::mstateen0, csr::mstateen0_bits::STRC);
}

} // namespace trace::strc
