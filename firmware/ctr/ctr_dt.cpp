// SPDX-License-Identifier: BSD-2-Clause
// Device-tree side of emulated CTR (see ctr_dt.hpp).
#include "ctr_dt.hpp"

#include <libfdt.h>
#include "fdt_edit.hpp"

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

namespace {
// Whether the riscv,isa string isa[0..n) lists the multi-letter extension
// (after a '_', as isa_append looks for it).
bool isa_has(const char *isa, int n, const char *ext) {
    for (int i = 1; i < n; i++) {
        if (isa[i - 1] != '_') continue;
        int k = 0;
        while (ext[k] && i + k < n && isa[i + k] == ext[k]) k++;
        if (!ext[k] && (i + k == n || isa[i + k] == '_' || !isa[i + k])) return true;
    }
    return false;
}
} // namespace

int annotate(void *fdt, Source (*source)(unsigned long hartid), bool advertise, bool registers_only) {
    int cpus = fdt_path_offset(fdt, "/cpus");
    if (cpus < 0) return cpus == -FDT_ERR_NOTFOUND ? 0 : cpus;
    const int cells = fdt_address_cells(fdt, cpus);
    if (cells < 1 || cells > 2) return 0; // no node has a readable reg
    // Every cpu node in one pass over the tree (fdtw::rewrite_cpus): a
    // libfdt edit per node moved the rest of the tree once per hart.
    const int source_name_off = fdtw::string_offset(fdt, "tsbi,ctr-source");
    const int list_name = advertise ? fdtw::string_offset(fdt, "riscv,isa-extensions") : 0;
    const int isa_name = advertise ? fdtw::string_offset(fdt, "riscv,isa") : 0;
    if (source_name_off < 0 || list_name < 0 || isa_name < 0) return -FDT_ERR_NOSPACE;
    static constexpr char kBoth[] = "ssctr\0sscsrind", kIsaBoth[] = "_ssctr_sscsrind",
                          kIsaCtr[] = "_ssctr", kIsaInd[] = "_sscsrind";
    int err = fdtw::rewrite_cpus(fdt, cpus, [&](uint32_t, const fdtw::NodeProps &np,
                                                fdtw::Edit *e) -> unsigned {
        const fdtw::Prop *reg = np.find("reg");
        if (!reg || reg->len < cells * 4) return 0;
        const auto *r = static_cast<const fdt32_t *>(reg->data);
        const unsigned long id =
            cells == 2 ? static_cast<unsigned long>(static_cast<uint64_t>(fdt32_to_cpu(r[0])) << 32 |
                                                    fdt32_to_cpu(r[1]))
                       : fdt32_to_cpu(r[0]);
        const Source s = source(id);
        unsigned n = 0;
        uint32_t at;
        if (advertise && (s == Source::encoder || (s == Source::registers && registers_only))) {
            // riscv,isa-extensions, where the node has that list: the
            // missing ones of ssctr and sscsrind appended.
            if (const fdtw::Prop *l = np.find("riscv,isa-extensions", &at)) {
                const auto *list = static_cast<const char *>(l->data);
                const bool ctr = fdt_stringlist_contains(list, l->len, "ssctr"),
                           ind = fdt_stringlist_contains(list, l->len, "sscsrind");
                if (!ctr || !ind)
                    e[n++] = {at, 12 + fdtw::align4(uint32_t(l->len)), uint32_t(list_name),
                              !ctr ? kBoth : kBoth + 6, uint16_t(!ctr && !ind ? sizeof kBoth : !ctr ? 6 : 9),
                              1, 0};
            }
            // riscv,isa: "_ssctr" and "_sscsrind" before its NUL.
            const fdtw::Prop *i = np.find("riscv,isa", &at);
            if (i && i->len > 0 && i->len < kIsaMax) {
                const auto *isa = static_cast<const char *>(i->data);
                const bool nul = !isa[i->len - 1];
                const bool ctr = isa_has(isa, i->len, "ssctr"), ind = isa_has(isa, i->len, "sscsrind");
                if (!ctr || !ind)
                    e[n++] = {at, 12 + fdtw::align4(uint32_t(i->len)), uint32_t(isa_name),
                              !ctr && !ind ? kIsaBoth : !ctr ? kIsaCtr : kIsaInd,
                              uint16_t(!ctr && !ind ? sizeof kIsaBoth : !ctr ? sizeof kIsaCtr : sizeof kIsaInd),
                              1, uint8_t(nul)};
            }
        }
        const char *name = source_name(s);
        const uint16_t len = uint16_t(strlen(name) + 1);
        if (const fdtw::Prop *old = np.find("tsbi,ctr-source", &at)) {
            if (fdtw::align4(len) >= fdtw::align4(uint32_t(old->len)))
                e[n++] = {at, 12 + fdtw::align4(uint32_t(old->len)), uint32_t(source_name_off), name, len, 0, 0};
        } else {
            e[n++] = {np.start, 0, uint32_t(source_name_off), name, len, 0, 0}; // first, as libfdt adds it
        }
        // Ascending offsets (the two list edits come in the tree's order).
        for (unsigned k = 1; k < n; k++)
            for (unsigned j = k; j > 0 && e[j - 1].off > e[j].off; j--) {
                fdtw::Edit t = e[j];
                e[j] = e[j - 1];
                e[j - 1] = t;
            }
        return n;
    });
    return err ? -FDT_ERR_NOSPACE : 0;
}

unsigned long annotate_room(unsigned cpu_nodes, bool advertise) {
    // Per node: tsbi,ctr-source (its longest value, "registers"); with
    // `advertise`, "ssctr\0sscsrind" appended to riscv,isa-extensions and
    // "_ssctr_sscsrind" to riscv,isa (each at most 15 bytes more, 16 once
    // padded). Once: the three names in the strings block.
    constexpr unsigned long kSource = 12 + ((sizeof "registers" + 3) & ~3ul);
    constexpr unsigned long kAppend = 16;
    constexpr unsigned long kNames = sizeof "tsbi,ctr-source" + sizeof "riscv,isa-extensions" + sizeof "riscv,isa";
    return kNames + cpu_nodes * (kSource + (advertise ? 2 * kAppend : 0));
}

} // namespace ctr::dt
