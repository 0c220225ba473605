// SPDX-License-Identifier: BSD-2-Clause
// Just enough of a flattened device tree reader (Devicetree Specification,
// "Flattened Devicetree (DTB) Format") to learn the harts, the first memory
// range, the timebase and the boot hart's ISA string.
#include "internal.hpp"

namespace pl {

namespace {

Platform plat;

constexpr uint32_t FDT_MAGIC = 0xd00dfeed, FDT_BEGIN_NODE = 1, FDT_END_NODE = 2, FDT_PROP = 3,
                   FDT_NOP = 4, FDT_END = 9;

uint32_t be32(const void *p) {
    const uint8_t *b = static_cast<const uint8_t *>(p);
    return (uint32_t(b[0]) << 24) | (uint32_t(b[1]) << 16) | (uint32_t(b[2]) << 8) | b[3];
}

// Two cells are 64 bits even on RV32 (the virt DT uses them there too).
uint64_t cells64(const uint8_t *p, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) v = (v << 32) | be32(p + 4 * i);
    return v;
}
unsigned long cells(const uint8_t *p, unsigned n) { return static_cast<unsigned long>(cells64(p, n)); }

bool starts_with(const char *s, const char *prefix) {
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

struct Cpu {
    unsigned long reg = ~0ul;
    bool is_cpu = false, disabled = false;
    const char *isa = nullptr;
    unsigned long timebase = 0;
};

} // namespace

const Platform &platform() { return plat; }

unsigned long bootarg(const char *key, unsigned long dflt) {
    size_t klen = strlen(key);
    for (const char *p = plat.bootargs; *p;) {
        while (*p == ' ') p++;
        if (!strncmp(p, key, klen) && p[klen] == '=') {
            p += klen + 1;
            unsigned long v = 0, radix = 10;
            if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) p += 2, radix = 16;
            for (;; p++) {
                unsigned d;
                if (*p >= '0' && *p <= '9') d = *p - '0';
                else if (radix == 16 && *p >= 'a' && *p <= 'f') d = *p - 'a' + 10;
                else if (radix == 16 && *p >= 'A' && *p <= 'F') d = *p - 'A' + 10;
                else break;
                v = v * radix + d;
            }
            return v;
        }
        while (*p && *p != ' ') p++;
    }
    return dflt;
}

void parse_fdt(unsigned long fdt, unsigned long boot_hartid) {
    plat.fdt = fdt;
    plat.boot_hartid = boot_hartid;
    const uint8_t *base = reinterpret_cast<const uint8_t *>(fdt);
    if (!fdt || be32(base) != FDT_MAGIC) return;
    const uint8_t *structs = base + be32(base + 8);
    const char *strings = reinterpret_cast<const char *>(base + be32(base + 12));
    const uint8_t *p = structs;
    int depth = 0;
    bool in_cpus = false, in_memory = false, memory_seen = false, in_resv = false,
         in_chosen = false;
    unsigned root_ac = 2, root_sc = 2, cpus_ac = 1, resv_ac = 2, resv_sc = 2;
    Platform::Region resv{};
    const uint8_t *node_reg[16] = {};
    bool node_clint[16] = {};
    // AIA controllers (riscv,aplic, riscv,imsics) the tree says are disabled.
    bool node_aia[16] = {}, node_off[16] = {};
    bool resv_has_reg = false;
    Cpu cpu;
    const char *boot_isa = nullptr;
    unsigned long cpus_timebase = 0, boot_timebase = 0;
    unsigned long mem_base = 0;
    uint64_t mem_size = 0;
    const uint8_t *mem_reg = nullptr;
    for (;;) {
        uint32_t tok = be32(p);
        p += 4;
        if (tok == FDT_BEGIN_NODE) {
            const char *name = reinterpret_cast<const char *>(p);
            p += (strlen(name) + 4) & ~3ul;
            depth++;
            if (depth < 16) {
                node_reg[depth] = nullptr;
                node_clint[depth] = false;
                node_aia[depth] = node_off[depth] = false;
            }
            if (depth == 2) {
                in_cpus = strcmp(name, "cpus") == 0;
                in_memory = starts_with(name, "memory");
                in_resv = strcmp(name, "reserved-memory") == 0;
                in_chosen = strcmp(name, "chosen") == 0;
                mem_reg = nullptr;
            }
            if (depth == 3 && in_cpus) cpu = Cpu{};
            if (depth == 3 && in_resv) {
                resv = Platform::Region{};
                resv_has_reg = false;
            }
        } else if (tok == FDT_END_NODE) {
            if (depth < 16 && node_clint[depth] && node_reg[depth] && !plat.clint_base)
                plat.clint_base = cells(node_reg[depth], 2);
            if (depth < 16 && node_aia[depth] && node_off[depth] && node_reg[depth] && plat.n_aia_disabled < 4)
                plat.aia_disabled[plat.n_aia_disabled++] = cells(node_reg[depth], 2);
            if (depth == 3 && in_cpus && cpu.is_cpu && !cpu.disabled && cpu.reg < PL_MAX_HARTID &&
                plat.nharts < kMaxHarts) {
                plat.hartids[plat.nharts++] = cpu.reg;
                if (cpu.reg == boot_hartid) {
                    boot_isa = cpu.isa;
                    boot_timebase = cpu.timebase;
                }
            }
            if (depth == 3 && in_resv && resv_has_reg && plat.nreserved < 8)
                plat.reserved[plat.nreserved++] = resv;
            if (depth == 2 && in_memory && mem_reg && !memory_seen) {
                mem_base = cells(mem_reg, root_ac);
                mem_size = cells64(mem_reg + 4 * root_ac, root_sc);
                memory_seen = true;
            }
            depth--;
        } else if (tok == FDT_PROP) {
            uint32_t len = be32(p), nameoff = be32(p + 4);
            const uint8_t *val = p + 8;
            const char *pname = strings + nameoff;
            p += 8 + ((len + 3) & ~3u);
            if (depth < 16 && !strcmp(pname, "reg")) node_reg[depth] = val;
            if (depth < 16 && !strcmp(pname, "compatible")) {
                // A list of NUL-terminated strings.
                for (uint32_t off = 0; off < len; off += strlen((const char *)val + off) + 1)
                    if (!strcmp((const char *)val + off, "riscv,clint0")) node_clint[depth] = true;
                    else if (!strcmp((const char *)val + off, "riscv,aplic") ||
                             !strcmp((const char *)val + off, "riscv,imsics"))
                        node_aia[depth] = true;
            }
            if (depth < 16 && !strcmp(pname, "status"))
                node_off[depth] = !strcmp(reinterpret_cast<const char *>(val), "disabled");
            if (depth == 1) {
                if (!strcmp(pname, "#address-cells")) root_ac = be32(val);
                if (!strcmp(pname, "#size-cells")) root_sc = be32(val);
            } else if (depth == 2 && in_cpus) {
                if (!strcmp(pname, "#address-cells")) cpus_ac = be32(val);
                if (!strcmp(pname, "timebase-frequency")) cpus_timebase = cells(val, len / 4);
            } else if (depth == 2 && in_memory) {
                if (!strcmp(pname, "reg")) mem_reg = val;
            } else if (depth == 2 && in_chosen && !strcmp(pname, "bootargs") && len) {
                size_t n = len < sizeof plat.bootargs ? len : sizeof plat.bootargs;
                memcpy(plat.bootargs, val, n);
                plat.bootargs[n - 1] = 0;
            } else if (depth == 2 && in_resv) {
                if (!strcmp(pname, "#address-cells")) resv_ac = be32(val);
                if (!strcmp(pname, "#size-cells")) resv_sc = be32(val);
            } else if (depth == 3 && in_resv) {
                if (!strcmp(pname, "no-map")) resv.no_map = true;
                if (!strcmp(pname, "reg") && len >= 4 * (resv_ac + resv_sc)) {
                    resv.base = cells(val, resv_ac);
                    resv.size = cells(val + 4 * resv_ac, resv_sc);
                    resv_has_reg = true;
                }
            } else if (depth == 3 && in_cpus) {
                const char *s = reinterpret_cast<const char *>(val);
                if (!strcmp(pname, "device_type")) cpu.is_cpu = !strcmp(s, "cpu");
                if (!strcmp(pname, "reg")) cpu.reg = cells(val, cpus_ac);
                if (!strcmp(pname, "status"))
                    cpu.disabled = strcmp(s, "okay") != 0 && strcmp(s, "ok") != 0;
                if (!strcmp(pname, "riscv,isa")) cpu.isa = s;
                if (!strcmp(pname, "timebase-frequency")) cpu.timebase = cells(val, len / 4);
            }
        } else if (tok == FDT_NOP) {
            continue;
        } else {
            (void)FDT_END;
            break;
        }
    }
    // Sort hart IDs ascending (QEMU lists them so: one pass).
    for (unsigned i = 1; i < plat.nharts; i++)
        for (unsigned j = i; j > 0 && plat.hartids[j - 1] > plat.hartids[j]; j--) {
            unsigned long t = plat.hartids[j];
            plat.hartids[j] = plat.hartids[j - 1];
            plat.hartids[j - 1] = t;
        }
    plat.max_hartid = plat.nharts ? plat.hartids[plat.nharts - 1] : 0;
    // Hart ID to index (hart_index) and stack slot (crt0.S): index + 1.
    for (unsigned i = 0; i < plat.nharts; i++) pl_hart_slot[plat.hartids[i]] = static_cast<uint16_t>(i + 1);
    plat.ram_base = mem_base;
    plat.ram_size64 = mem_size;
    // RAM past 2^XLEN (RV32 -m 3G and more): ram_size stops below 2^XLEN.
    const unsigned long room = ~0ul - mem_base; // the last address minus mem_base
    plat.ram_size = static_cast<unsigned long>(mem_size == 0 || mem_size - 1 <= room ? mem_size : room);
    plat.timebase_hz = boot_timebase ? boot_timebase : cpus_timebase;
    plat.fw_base = mem_base;
    plat.fw_size = 0x200000;
    for (unsigned i = 0; i < plat.nreserved; i++) {
        const Platform::Region &r = plat.reserved[i];
        if (r.base <= mem_base && mem_base - r.base < r.size) {
            plat.fw_base = r.base;
            plat.fw_size = r.size;
        }
    }
    if (boot_isa) {
        size_t n = strlen(boot_isa);
        if (n >= sizeof plat.isa) n = sizeof plat.isa - 1;
        memcpy(plat.isa, boot_isa, n);
        plat.isa[n] = 0;
    }
}

bool has_isa_ext(char c) {
    // Single letters follow "rv64" up to the first '_' (or the end).
    const char *s = plat.isa;
    if (strncmp(s, "rv", 2) != 0) return false;
    s += 2;
    while (*s >= '0' && *s <= '9') s++;
    for (; *s && *s != '_'; s++) {
        if (*s == c) return true;
        // A multi-letter extension without '_' separator ends the letters.
        if (*s == 'z' || *s == 's' || *s == 'x') break;
    }
    return false;
}

bool has_isa_ext(const char *name) {
    size_t n = strlen(name);
    for (const char *s = plat.isa; *s; s++) {
        if (*s == '_' && strncmp(s + 1, name, n) == 0 && (s[1 + n] == 0 || s[1 + n] == '_'))
            return true;
    }
    return false;
}

} // namespace pl
