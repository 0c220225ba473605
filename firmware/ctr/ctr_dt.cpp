// SPDX-License-Identifier: BSD-2-Clause
// Device-tree side of emulated CTR (see ctr_dt.hpp).
#include "ctr_dt.hpp"

#include <libfdt.h>
#include "fdt_walk.hpp"

namespace ctr::dt {

namespace {
const char *const kExtensions[] = {"ssctr", "sscsrind"};
constexpr int kIsaMax = 512;

} // namespace

int isa_append(char *buf, int n, int cap, const char *ext) {
    // Multi-letter extensions are '_'-separated after the single letters.
    for (int i = 0; i < n; i++) {
        if (i && buf[i - 1] != '_') continue;
        int k = 0;
        while (ext[k] && i + k < n && buf[i + k] == ext[k]) k++;
        if (!ext[k] && (i + k == n || buf[i + k] == '_')) return n;
    }
    int len = 0;
    while (ext[len]) len++;
    if (n + 1 + len + 1 > cap) return -1;
    buf[n++] = '_';
    for (int k = 0; k < len; k++) buf[n++] = ext[k];
    buf[n] = 0;
    return n;
}

namespace {
int advertise_node(void *fdt, int node) {
    int len = 0;
    {
        for (const char *ext : kExtensions) {
            const char *list =
                static_cast<const char *>(fdt_getprop(fdt, node, "riscv,isa-extensions", &len));
            if (list && !fdt_stringlist_contains(list, len, ext)) {
                int err = fdt_appendprop_string(fdt, node, "riscv,isa-extensions", ext);
                if (err) return err;
            }
        }
    }
    const char *isa = static_cast<const char *>(fdt_getprop(fdt, node, "riscv,isa", &len));
    if (!isa || len <= 0 || len >= kIsaMax) return 0;
    char buf[kIsaMax];
    int n = 0;
    while (n < len - 1 && isa[n]) {
        buf[n] = isa[n];
        n++;
    }
    buf[n] = 0;
    for (const char *ext : kExtensions)
        if ((n = isa_append(buf, n, kIsaMax, ext)) < 0) return -FDT_ERR_NOSPACE;
    return fdt_setprop_string(fdt, node, "riscv,isa", buf);
}

// The hart ID in a CPU node's reg (one or two cells, as /cpus' #address-cells).
bool hartid_of(const void *fdt, int cpus, int node, unsigned long &id) {
    int len = 0;
    const auto *reg = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, "reg", &len));
    const int cells = fdt_address_cells(fdt, cpus);
    if (!reg || cells < 1 || cells > 2 || len < cells * 4) return false;
    id = cells == 2 ? static_cast<unsigned long>(static_cast<uint64_t>(fdt32_to_cpu(reg[0])) << 32 |
                                                 fdt32_to_cpu(reg[1]))
                    : fdt32_to_cpu(reg[0]);
    return true;
}
} // namespace

int advertise(void *fdt) {
    int cpus = fdt_path_offset(fdt, "/cpus");
    if (cpus < 0) return cpus == -FDT_ERR_NOTFOUND ? 0 : cpus;
    // Last cpu node first: each edit grows its node and moves only what
    // follows (fdtw::for_each_cpu_reverse), so no node is searched for twice.
    return fdtw::for_each_cpu_reverse(fdt, cpus, [&](int node) { return advertise_node(fdt, node); });
}

const char *source_name(Source s) {
    switch (s) {
    case Source::native: return "native";
    case Source::encoder: return "encoder";
    default: return "registers";
    }
}

int annotate(void *fdt, Source (*source)(unsigned long hartid), bool advertise, bool registers_only) {
    int cpus = fdt_path_offset(fdt, "/cpus");
    if (cpus < 0) return cpus == -FDT_ERR_NOTFOUND ? 0 : cpus;
    // Last cpu node first, as advertise().
    return fdtw::for_each_cpu_reverse(fdt, cpus, [&](int node) -> int {
        unsigned long id;
        if (!hartid_of(fdt, cpus, node, id)) return 0;
        const Source s = source(id);
        if (int err = fdt_setprop_string(fdt, node, "tsbi,ctr-source", source_name(s))) return err;
        if (advertise && (s == Source::encoder || (s == Source::registers && registers_only)))
            return advertise_node(fdt, node);
        return 0;
    });
}

} // namespace ctr::dt
