// SPDX-License-Identifier: BSD-2-Clause
// The board probe: runs the generic image's cold-boot initialisation (the
// firmware's own platform/generic/platform.cpp, firmware/drivers,
// firmware/core/dt.cpp and firmware/pmu/dt.cpp, compiled for the host) against
// one board's device tree and prints what it found, one "key value" line each,
// for tests/boards/boards.py to judge.
//
// Fake MMIO: every `reg` of every memory-mapped node is mapped at its own
// address in this process (anonymous memory), so a driver's loads and stores
// land where they would on the board; an access outside every `reg` is a
// SIGSEGV the probe reports. Writes are logged: before each operation the
// pages are made read-only, the first store to a page faults, the handler
// copies the page and opens it, and afterwards the copies are compared with
// the pages, word by word.
//
//     probe <board.dtb>
#include "core/dt.hpp"
#include "drivers/drivers.hpp"
#include "fw.hpp"
#include "generic/vendor.hpp"
#include "platform.hpp"
#include "pmu/dt.hpp"
#include "pmu/service.hpp"
#include "../host/i2c_models.hpp"
#include <libfdt.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <sys/mman.h>
#include <sys/time.h>

// The core's hart map (fw.hpp), which the ACLINT driver indexes its harts
// by: hart index = hart ID, as on a board numbered 0..n-1.
extern "C" {
fw::hartmap::Map fw_hart_map = {fw::kMaxHarts, nullptr, fw::kMaxHarts};
}
#include <unistd.h>
#include <vector>

namespace {

constexpr uint64_t kPage = 4096;

struct Region {
    uint64_t base, size;
    std::string path;
};
std::vector<Region> regions; // every mapped reg, page-aligned, merged

// ---- write log (async-signal-safe parts use fixed arrays) ----
constexpr unsigned kMaxLogged = 4096;
uint64_t logged_page[kMaxLogged];
uint8_t *logged_copy; // kMaxLogged pages
unsigned nlogged;
bool logging;

bool in_regions(uint64_t a) {
    for (const Region &r : regions)
        if (a >= r.base && a - r.base < r.size) return true;
    return false;
}

void on_segv(int, siginfo_t *si, void *ctx) {
    if (mmio_fake::on_segv(si, ctx)) return; // a modelled device's register
    auto a = reinterpret_cast<uint64_t>(si->si_addr);
    uint64_t page = a & ~(kPage - 1);
    if (logging && nlogged < kMaxLogged && in_regions(a)) {
        std::memcpy(logged_copy + nlogged * kPage, reinterpret_cast<void *>(page), kPage);
        logged_page[nlogged++] = page;
        mprotect(reinterpret_cast<void *>(page), kPage, PROT_READ | PROT_WRITE);
        return;
    }
    char buf[96];
    int n = snprintf(buf, sizeof buf, "fault 0x%llx outside every reg\n", (unsigned long long)a);
    (void)!write(1, buf, n);
    _exit(3);
}

struct Write {
    uint64_t addr;
    uint32_t value; // the 32-bit word after the operation
};

// Runs `op` with the write log on; returns the 32-bit words it changed.
template <typename F> std::vector<Write> writes_of(F op) {
    for (const Region &r : regions) mprotect(reinterpret_cast<void *>(r.base), r.size, PROT_READ);
    mmio_fake::protect_all();
    nlogged = 0;
    logging = true;
    op();
    logging = false;
    for (const Region &r : regions)
        mprotect(reinterpret_cast<void *>(r.base), r.size, PROT_READ | PROT_WRITE);
    mmio_fake::protect_all();
    std::vector<Write> w;
    for (unsigned i = 0; i < nlogged; i++) {
        auto *now = reinterpret_cast<const uint32_t *>(logged_page[i]);
        auto *old = reinterpret_cast<const uint32_t *>(logged_copy + i * kPage);
        for (unsigned k = 0; k < kPage / 4; k++)
            if (now[k] != old[k]) w.push_back({logged_page[i] + 4 * k, now[k]});
    }
    std::sort(w.begin(), w.end(), [](const Write &a, const Write &b) { return a.addr < b.addr; });
    return w;
}

std::string node_of(const void *fdt, uint64_t a);

std::string hex(uint64_t v) {
    char b[24];
    snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
    return b;
}

std::string describe(const void *fdt, const std::vector<Write> &w) {
    std::string s;
    for (size_t i = 0; i < w.size() && i < 4; i++)
        s += (i ? "," : "") + node_of(fdt, w[i].addr) + "+" + hex(w[i].addr) + "=" + hex(w[i].value);
    if (w.size() > 4) s += ",...";
    return s.empty() ? "nothing" : s;
}

// ---- device tree walking ----
uint64_t cells(const fdt32_t *p, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = v << 32 | fdt32_to_cpu(p[i]);
    return v;
}

std::string path_of(const void *fdt, int node) {
    char buf[256];
    return fdt_get_path(fdt, node, buf, sizeof buf) ? "?" : buf;
}

bool disabled(const void *fdt, int node) {
    for (; node >= 0; node = fdt_parent_offset(fdt, node)) {
        const char *st = static_cast<const char *>(fdt_getprop(fdt, node, "status", nullptr));
        if (st && !strcmp(st, "disabled")) return true;
        if (node == 0) break;
    }
    return false;
}

// The CPU address of `addr` in `node`'s parent bus, through every `ranges`
// up to the root (DT spec 2.3.8); false if some ancestor has none (an I2C
// device's reg, a CPU's hart ID).
bool translate(const void *fdt, int node, uint64_t &addr) {
    for (int bus = fdt_parent_offset(fdt, node); bus > 0; bus = fdt_parent_offset(fdt, bus)) {
        int len;
        auto *r = static_cast<const fdt32_t *>(fdt_getprop(fdt, bus, "ranges", &len));
        if (!r) return false;
        if (!len) continue;
        int parent = fdt_parent_offset(fdt, bus);
        int cac = fdt_address_cells(fdt, bus), pac = fdt_address_cells(fdt, parent),
            sc = fdt_size_cells(fdt, bus);
        int stride = cac + pac + sc;
        bool found = false;
        for (int i = 0; (i + 1) * stride * 4 <= len; i++) {
            const fdt32_t *e = r + i * stride;
            uint64_t child = cells(e, cac), par = cells(e + cac, pac), size = cells(e + cac + pac, sc);
            if (addr >= child && addr - child < size) {
                addr = addr - child + par;
                found = true;
                break;
            }
        }
        if (!found) return false;
    }
    return true;
}

struct Reg {
    uint64_t base, size;
    int node;
};
std::vector<Reg> all_regs;

void collect_regs(const void *fdt) {
    for (int node = fdt_next_node(fdt, 0, nullptr); node >= 0; node = fdt_next_node(fdt, node, nullptr)) {
        const char *dt = static_cast<const char *>(fdt_getprop(fdt, node, "device_type", nullptr));
        if (dt && !strcmp(dt, "memory")) continue;
        std::string p = path_of(fdt, node);
        if (p.rfind("/reserved-memory", 0) == 0 || p.rfind("/cpus", 0) == 0) continue;
        int parent = fdt_parent_offset(fdt, node);
        int ac = fdt_address_cells(fdt, parent), sc = fdt_size_cells(fdt, parent);
        int len;
        auto *reg = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, "reg", &len));
        if (!reg || ac < 1 || ac > 2 || sc < 1 || sc > 2) continue;
        for (int i = 0; (i + 1) * (ac + sc) * 4 <= len; i++) {
            uint64_t a = cells(reg + i * (ac + sc), ac), s = cells(reg + i * (ac + sc) + ac, sc);
            if (s && translate(fdt, node, a)) all_regs.push_back({a, s, node});
        }
    }
}

std::string node_of(const void *fdt, uint64_t a) {
    for (const Reg &r : all_regs)
        if (a >= r.base && a - r.base < r.size) return path_of(fdt, r.node);
    return "?";
}

// Maps every reg (merged by page) at its address; reports what cannot be.
void map_regs(const void *fdt) {
    std::vector<std::pair<uint64_t, uint64_t>> spans;
    for (const Reg &r : all_regs) {
        uint64_t lo = r.base & ~(kPage - 1), hi = (r.base + r.size + kPage - 1) & ~(kPage - 1);
        spans.push_back({lo, hi});
    }
    std::sort(spans.begin(), spans.end());
    std::vector<std::pair<uint64_t, uint64_t>> merged;
    for (auto s : spans)
        if (!merged.empty() && s.first <= merged.back().second)
            merged.back().second = std::max(merged.back().second, s.second);
        else
            merged.push_back(s);
    for (auto [lo, hi] : merged) {
        void *p = mmap(reinterpret_cast<void *>(lo), hi - lo, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
        if (p == MAP_FAILED || reinterpret_cast<uint64_t>(p) != lo) {
            printf("unmapped %s+%s %s (%s)\n", hex(lo).c_str(), hex(hi - lo).c_str(),
                   node_of(fdt, lo).c_str(), strerror(errno));
            if (p != MAP_FAILED) munmap(p, hi - lo);
            continue;
        }
        regions.push_back({lo, hi - lo, node_of(fdt, lo)});
    }
}

// ---- what the boot loader adds ----
uint32_t intc_phandle(void *fdt, int cpu) {
    int intc;
    fdt_for_each_subnode(intc, fdt, cpu) {
        if (fdt_getprop(fdt, intc, "interrupt-controller", nullptr)) {
            uint32_t ph = fdt_get_phandle(fdt, intc);
            if (!ph) {
                fdt_generate_phandle(fdt, &ph);
                fdt_setprop_u32(fdt, intc, "phandle", ph);
            }
            return ph;
        }
    }
    return 0;
}

void set_reg(void *fdt, int node, uint64_t base, uint64_t size) {
    int parent = fdt_parent_offset(fdt, node);
    fw::dt::setprop_reg(fdt, node, fdt_address_cells(fdt, parent), fdt_size_cells(fdt, parent), base, size);
}

// The CLINT node U-Boot's device tree has and Linux's does not (Linux needs
// none: S-mode has the SBI timer and IPIs). From U-Boot's
// arch/riscv/dts/fu540-c000-u-boot.dtsi, fu740-c000-u-boot.dtsi and the D1
// dtsi: address, size and compatible.
struct BootLoaderClint {
    const char *root; // root compatible
    const char *compat;
    int compat_len;
    uint64_t base, size;
};
#define COMPAT(s) s, sizeof(s)
constexpr BootLoaderClint kBootLoaderClints[] = {
    {"sifive,fu540-c000", COMPAT("sifive,fu540-c000-clint\0sifive,clint0"), 0x2000000, 0x10000},
    {"sifive,fu740-c000", COMPAT("sifive,fu740-c000-clint\0sifive,clint0"), 0x2000000, 0x10000},
    {"allwinner,sun20i-d1", COMPAT("allwinner,sun20i-d1-clint\0thead,c900-clint"), 0x14000000, 0xc000},
    {"allwinner,sun20i-d1s", COMPAT("allwinner,sun20i-d1-clint\0thead,c900-clint"), 0x14000000, 0xc000},
};

bool has_ipi_timer_node(const void *fdt) {
    for (const char *c : {"riscv,clint0", "sifive,clint0", "thead,c900-clint", "riscv,aclint-mswi",
                          "thead,c900-aclint-mswi"})
        if (fdt_node_offset_by_compatible(fdt, -1, c) >= 0) return true;
    return false;
}

void add_boot_loader_nodes(void *fdt) {
    if (!has_ipi_timer_node(fdt))
        for (const BootLoaderClint &b : kBootLoaderClints) {
            if (fdt_node_check_compatible(fdt, 0, b.root)) continue;
            int soc = fdt_path_offset(fdt, "/soc");
            char name[32];
            snprintf(name, sizeof name, "clint@%llx", (unsigned long long)b.base);
            int node = fdt_add_subnode(fdt, soc, name);
            fdt_setprop(fdt, node, "compatible", b.compat, b.compat_len);
            set_reg(fdt, node, b.base, b.size);
            std::vector<fdt32_t> ie;
            int cpus = fdt_path_offset(fdt, "/cpus"), cpu;
            fdt_for_each_subnode(cpu, fdt, cpus) {
                uint32_t ph = intc_phandle(fdt, cpu);
                if (!ph) continue;
                for (uint32_t irq : {3u, 7u}) {
                    ie.push_back(cpu_to_fdt32(ph));
                    ie.push_back(cpu_to_fdt32(irq));
                }
            }
            node = fdt_path_offset(fdt, ("/soc/" + std::string(name)).c_str());
            fdt_setprop(fdt, node, "interrupts-extended", ie.data(), ie.size() * 4);
            printf("added clint %s %s+%s (the boot loader's)\n", b.compat, hex(b.base).c_str(),
                   hex(b.size).c_str());
            break;
        }
    fw::dt::Memory m;
    if (!fw::dt::scan_memory(fdt, m)) {
        // D1 and SG2042: U-Boot adds /memory from the DRAM it found. The
        // smallest part of each family: D1s has 64 MiB in the package.
        uint64_t base = 0x40000000, size = 0x4000000;
        if (!fdt_node_check_compatible(fdt, 0, "sophgo,sg2042")) base = 0, size = 0x400000000;
        int node = fdt_add_subnode(fdt, 0, ("memory@" + hex(base).substr(2)).c_str());
        fdt_setprop_string(fdt, node, "device_type", "memory");
        set_reg(fdt, node, base, size);
        printf("added memory %s+%s (the boot loader's)\n", hex(base).c_str(), hex(size).c_str());
    }
}

// ---- register-level models the checks need ----
int stdout_node(const void *fdt) {
    int chosen = fdt_path_offset(fdt, "/chosen");
    const char *p = chosen < 0 ? nullptr : static_cast<const char *>(fdt_getprop(fdt, chosen, "stdout-path", nullptr));
    if (!p) return -1;
    std::string s(p);
    s = s.substr(0, s.find(':'));
    if (s[0] != '/') {
        const char *a = fdt_get_alias(fdt, s.c_str());
        if (!a) return -1;
        s = a;
    }
    return fdt_path_offset(fdt, s.c_str());
}

uint32_t prop_u32(const void *fdt, int node, const char *name, uint32_t dflt) {
    int len;
    auto *p = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, name, &len));
    return p && len >= 4 ? fdt32_to_cpu(*p) : dflt;
}

// Makes the console's transmitter look ready, as the UART of a board the
// boot loader used: 16550 LSR.THRE|TEMT (its register 5, at 5 << reg-shift),
// SiFive rxdata.empty (nothing received).
void console_ready(const void *fdt, int node) {
    uint64_t base, size;
    if (node < 0 || !drivers::fdt_get_reg(fdt, node, 0, base, size) || !in_regions(base)) return;
    if (!fdt_node_check_compatible(fdt, node, "sifive,uart0")) {
        *reinterpret_cast<volatile uint32_t *>(base + 4) = 1u << 31;
        return;
    }
    unsigned shift = prop_u32(fdt, node, "reg-shift", 0);
    *reinterpret_cast<volatile uint8_t *>(base + (5u << shift)) = 0x60;
}

std::string compat_list(const void *fdt, int node) {
    int len;
    const char *c = static_cast<const char *>(fdt_getprop(fdt, node, "compatible", &len));
    std::string s;
    for (int i = 0; c && i < len; i += strlen(c + i) + 1) s += (s.empty() ? "" : ",") + std::string(c + i);
    return s.empty() ? "-" : s;
}

// PMICs on I2C, run against access-level models (tests/host/i2c_models.hpp):
// the controller's first page is the controller model, the PMIC a register
// file at its address; the probe reports the register accesses the PMIC saw.
// The chips' register files start as the chip's reset values the drivers
// check: the DA9063's DEVICE_ID (0x81) is 0x61.
struct I2cPmic {
    const char *compat;
    uint8_t id_reg, id; // a register preset, 0/0 for none
};
constexpr I2cPmic kI2cPmics[] = {
    {"x-powers,axp15060", 0, 0},
    {"dlg,da9063", 0x81, 0x61},
    {"sophgo,sg2042-hwmon-mcu", 0, 0},
};
struct ModelledPmic {
    std::string path;
    std::unique_ptr<i2c_model::Controller> ctrl;
    i2c_model::RegTarget pmic;
};
std::vector<ModelledPmic *> pmics;

void model_i2c_pmics(const void *fdt) {
    for (const I2cPmic &k : kI2cPmics) {
        int node = -1;
        while ((node = fdt_node_offset_by_compatible(fdt, node, k.compat)) >= 0) {
            int ctrl = fdt_parent_offset(fdt, node);
            uint64_t base, size;
            if (ctrl < 0 || !drivers::fdt_get_reg(fdt, ctrl, 0, base, size) || !in_regions(base))
                continue;
            auto *m = new ModelledPmic{path_of(fdt, node), nullptr, {}};
            if (!fdt_node_check_compatible(fdt, ctrl, "snps,designware-i2c"))
                m->ctrl = std::make_unique<i2c_model::DwI2c>();
            else if (!fdt_node_check_compatible(fdt, ctrl, "sifive,i2c0"))
                m->ctrl = std::make_unique<i2c_model::Ocores>();
            else
                continue;
            m->ctrl->targets[prop_u32(fdt, node, "reg", 0)] = &m->pmic;
            m->pmic.regs[k.id_reg] = k.id;
            if (mmio_fake::attach(*m->ctrl, reinterpret_cast<void *>(base & ~(kPage - 1)), kPage))
                pmics.push_back(m);
        }
    }
}

// The PMIC accesses of one reset; "failed" when the controller was driven
// but no register of the PMIC was written.
std::string pmic_accesses(const std::vector<unsigned> &commands_before) {
    std::string s;
    for (size_t i = 0; i < pmics.size(); i++) {
        ModelledPmic &m = *pmics[i];
        if (m.ctrl->commands == commands_before[i]) continue;
        s += (s.empty() ? "" : ",") + (m.pmic.writes ? "" : std::string("failed ")) + m.path + " " +
             (m.pmic.log.empty() ? "no answer" : m.pmic.log);
        m.pmic.log.clear();
        m.pmic.writes = 0;
    }
    return s;
}

// Reset and power-off devices a device tree can describe, as Linux's and
// OpenSBI's drivers match them: what each can do.
struct ResetDevice {
    const char *compat;
    bool poweroff, reboot;
};
constexpr ResetDevice kResetDevices[] = {
    {"syscon-poweroff", true, false},
    {"syscon-reboot", false, true},
    {"gpio-poweroff", true, false},
    {"gpio-restart", false, true},
    {"ucb,htif0", true, false},
    {"allwinner,sun20i-d1-wdt-reset", false, true},
    {"dlg,da9063", true, true},          // Unmatched's PMIC, on SiFive I2C
    {"x-powers,axp15060", true, true},   // JH7110 boards' PMIC, on DesignWare I2C
    {"sophgo,sg2042-hwmon-mcu", true, true}, // Pioneer's board MCU, on I2C
};

// Quirks a board needs from the firmware, by root or CPU compatible (the
// T-Head C9xx cores; OpenSBI's platform/generic thead, sophgo, allwinner and
// sifive overrides for the same boards).
enum class Where { Root, Cpu, AnyNode };
struct NeededQuirk {
    const char *compat;
    Where where; // the root node, the first S-mode CPU node, or any node
    const char *quirk;
};
constexpr NeededQuirk kNeededQuirks[] = {
    {"thead,c900-plic", Where::AnyNode, "thead-plic-smode"},
    {"thead,c906", Where::Cpu, "thead-c9xx-pmu"},
    {"thead,c910", Where::Cpu, "thead-c9xx-pmu"},
    {"thead,c920", Where::Cpu, "thead-c9xx-pmu"},
    {"thead,th1520", Where::Root, "thead-c910-tlb-flush"},
    {"sophgo,sg2042", Where::Root, "thead-c910-tlb-flush"},
    {"sifive,fu540-c000", Where::Root, "sifive-cip-1200"},
    {"sifive,fu740-c000", Where::Root, "sifive-cip-1200"},
};

} // namespace

// What firmware/core/ipi.cpp defines in the image.
unsigned long fw::max_page_fences = 64;

// What firmware/pmu/service.cpp defines in the image: the T-Head overflow
// quirk's request, which the PMU service acts on at its own cold_init (its
// CSR sequence is tested on the hart model, tests/pmu/host/test_thead.cpp).
static bool thead_pmu_requested;
// The boot log's lines (firmware/core/console.cpp): the probe reports the
// quirks itself.
void fw::printf(const char *, ...) {}
void pmu::use_thead_c9xx_overflow(bool on) { thead_pmu_requested = on; }

// The time CSR of the host's "hart" (a T-Head timer has no mtime register).
constexpr uint64_t kTimeCsr = 0x7153c5;
uint64_t drivers::time_csr() { return kTimeCsr; }

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: probe <board.dtb>\n");
        return 2;
    }
    setvbuf(stdout, nullptr, _IOLBF, 0);
    std::ifstream f(argv[1], std::ios::binary);
    std::vector<char> raw{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
    if (raw.empty() || fdt_check_header(raw.data())) {
        printf("fatal not a device tree: %s\n", argv[1]);
        return 0;
    }
    // Room for the boot loader's nodes and the firmware's fix-ups.
    std::vector<char> blob(raw.size() + 65536);
    fdt_open_into(raw.data(), blob.data(), blob.size());
    void *fdt = blob.data();

    printf("root %s\n", compat_list(fdt, 0).c_str());
    add_boot_loader_nodes(fdt);
    int cpus = fdt_path_offset(fdt, "/cpus"), cpu0 = -1, cpu;
    fdt_for_each_subnode(cpu, fdt, cpus) {
        const char *dt = static_cast<const char *>(fdt_getprop(fdt, cpu, "device_type", nullptr));
        if (dt && !strcmp(dt, "cpu") && fdt_getprop(fdt, cpu, "mmu-type", nullptr)) {
            cpu0 = cpu;
            break;
        }
    }
    printf("cpu %s\n", cpu0 < 0 ? "-" : compat_list(fdt, cpu0).c_str());

    collect_regs(fdt);
    logged_copy = static_cast<uint8_t *>(mmap(nullptr, kMaxLogged * kPage, PROT_READ | PROT_WRITE,
                                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0));
    static char altstack[65536];
    stack_t ss{altstack, 0, sizeof altstack};
    sigaltstack(&ss, nullptr);
    struct sigaction sa {};
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigaction(SIGSEGV, &sa, nullptr);
    sigaction(SIGBUS, &sa, nullptr);
    map_regs(fdt);
    model_i2c_pmics(fdt);
    struct sigaction st {};
    st.sa_sigaction = [](int, siginfo_t *, void *ctx) {
        if (!mmio_fake::on_trap(ctx)) _exit(5);
    };
    st.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigaction(SIGTRAP, &st, nullptr);
    // A driver spinning on a register the fake never sets: 10 s of CPU
    // time (SIGPROF), not of wall time, which a loaded host stretches (at a
    // load of 29 on 2 cores the SG2042 tree's probe got 0.7 s of CPU in 10 s).
    itimerval limit{};
    limit.it_value.tv_sec = 10;
    setitimer(ITIMER_PROF, &limit, nullptr);

    int con = stdout_node(fdt);
    console_ready(fdt, con);
    bool ok = false;
    auto init_writes = writes_of([&] { ok = platform::cold_init(fdt); });
    printf("init-writes %s\n", describe(fdt, init_writes).c_str());
    if (!ok) printf("fatal platform initialisation failed\n");

    // Console: the stdout-path node, the driver's verdict, a byte written.
    printf("console-node %s %s\n", con < 0 ? "-" : path_of(fdt, con).c_str(),
           con < 0 ? "-" : compat_list(fdt, con).c_str());
    if (platform::console_present()) {
        auto w = writes_of([] { platform::console_putc('A'); });
        bool hit = w.size() == 1 && (w[0].value & 0xff) == 'A';
        printf("console %s %s\n", hit ? "ok" : "wrong", describe(fdt, w).c_str());
    } else {
        printf("console none\n");
    }

    fw::dt::HartDesc harts[fw::kMaxHarts];
    unsigned n = fw::dt::scan_harts(fdt, harts, fw::kMaxHarts), smode = 0;
    for (unsigned i = 0; i < n; i++) smode += harts[i].smode;
    printf("harts %u smode %u\n", n, smode);
    if (!smode) printf("fatal no hart in the device tree can run S-mode\n");
    fw::dt::Memory mem;
    if (!fw::dt::scan_memory(fdt, mem)) printf("fatal no /memory in the device tree\n");

    // IPI and timer of every S-mode hart: each must write its own register
    // (a distinct word), and clear what send set.
    if (ok) {
        unsigned ipi_ok = 0, timer_ok = 0;
        std::vector<uint64_t> ipi_at, cmp_at;
        std::string first_bad;
        for (unsigned i = 0; i < n; i++) {
            if (!harts[i].smode || harts[i].hartid >= fw::kMaxHarts) continue;
            unsigned long h = harts[i].hartid;
            auto s = writes_of([&] { platform::ipi_send(h); });
            auto c = writes_of([&] { platform::ipi_clear(h); });
            bool good = s.size() == 1 && s[0].value == 1 && c.size() == 1 && c[0].addr == s[0].addr &&
                        c[0].value == 0 && std::find(ipi_at.begin(), ipi_at.end(), s[0].addr) == ipi_at.end();
            if (good) ipi_ok++, ipi_at.push_back(s[0].addr);
            else if (first_bad.empty()) first_bad = "ipi hart " + std::to_string(h) + ": " + describe(fdt, s);
            const uint64_t deadline = 0x123456789abcull + h;
            auto t = writes_of([&] { platform::timer_set(h, deadline); });
            // Either width: one 64-bit store, or the low word, high word.
            bool tgood = t.size() == 2 && t[1].addr == t[0].addr + 4 && t[0].value == uint32_t(deadline) &&
                         t[1].value == uint32_t(deadline >> 32) &&
                         std::find(cmp_at.begin(), cmp_at.end(), t[0].addr) == cmp_at.end();
            if (tgood) timer_ok++, cmp_at.push_back(t[0].addr);
            else if (first_bad.empty()) first_bad = "timer hart " + std::to_string(h) + ": " + describe(fdt, t);
        }
        printf("ipi %u/%u\n", ipi_ok, smode);
        printf("time %s\n", platform::timer_value() == kTimeCsr ? "csr" : "mtime");
        printf("timer %u/%u\n", timer_ok, smode);
        if (!first_bad.empty()) printf("ipi-timer-problem %s\n", first_bad.c_str());
        // firmware/core/init.cpp setup_pmp: 8 PMP entries, less the
        // firmware's and the catch-all, one NAPOT entry per region.
        constexpr unsigned kPmpSlots = 6;
        platform::MmioRegion mm[32];
        unsigned nm = platform::mmode_only_regions(mm, 32);
        std::string blocks, unprotected;
        for (unsigned i = 0; i < nm; i++) {
            blocks += (i ? "," : "") + hex(mm[i].base) + "+" + hex(mm[i].size);
            bool napot = mm[i].size >= 8 && !(mm[i].size & (mm[i].size - 1)) && !(mm[i].base & (mm[i].size - 1));
            if (!napot || i >= kPmpSlots)
                unprotected += (unprotected.empty() ? "" : ",") + hex(mm[i].base) + "+" + hex(mm[i].size);
        }
        printf("mmode-only %s\n", blocks.empty() ? "-" : blocks.c_str());
        // Closing more than the blocks must not take a device (or memory)
        // from S-mode: no other reg of the tree may overlap a region.
        drivers::AclintBlock own[32];
        unsigned nown = drivers::aclint_blocks(own, 32);
        for (unsigned i = 0; i < nm; i++)
            for (const Reg &r : all_regs) {
                bool mine = false;
                for (unsigned k = 0; k < nown; k++)
                    mine |= r.base >= own[k].base && r.base + r.size <= own[k].base + own[k].size;
                if (!mine && r.base < mm[i].base + mm[i].size && mm[i].base < r.base + r.size)
                    printf("pmp-takes %s\n", path_of(fdt, r.node).c_str());
            }
        fw::dt::Memory m2;
        if (fw::dt::scan_memory(fdt, m2))
            for (unsigned i = 0; i < nm; i++)
                for (unsigned k = 0; k < m2.count; k++)
                    if (m2.r[k].base < mm[i].base + mm[i].size && mm[i].base < m2.r[k].base + m2.r[k].size)
                        printf("pmp-takes memory %s\n", hex(m2.r[k].base).c_str());
        printf("pmp-unprotected %s\n", unprotected.empty() ? "-" : unprotected.c_str());
    }

    // Reset devices the tree describes, and what the firmware drives.
    std::string dt_off, dt_reboot;
    for (const ResetDevice &r : kResetDevices) {
        int node = -1;
        while ((node = fdt_node_offset_by_compatible(fdt, node, r.compat)) >= 0) {
            if (disabled(fdt, node)) continue;
            std::string d = r.compat + std::string("@") + path_of(fdt, node);
            if (r.poweroff) dt_off += (dt_off.empty() ? "" : ",") + d;
            if (r.reboot) dt_reboot += (dt_reboot.empty() ? "" : ",") + d;
        }
    }
    printf("dt-poweroff %s\n", dt_off.empty() ? "-" : dt_off.c_str());
    printf("dt-reboot %s\n", dt_reboot.empty() ? "-" : dt_reboot.c_str());
    using namespace sbi::srst;
    // A reset through a modelled PMIC reports the PMIC's register accesses
    // (and any direct register writes, such as a clock enabled for the
    // controller); one that drove the controller without writing the PMIC
    // reports "failed".
    auto reset = [&](const char *name, uint32_t type) {
        if (!platform::system_reset_supported(type)) {
            printf("%s none\n", name);
            return;
        }
        std::vector<unsigned> before;
        for (ModelledPmic *m : pmics) before.push_back(m->ctrl->commands);
        std::string d = describe(fdt, writes_of([type] { platform::system_reset(type, 0); }));
        std::string p = pmic_accesses(before);
        if (p.empty()) printf("%s %s\n", name, d.c_str());
        else if (p.rfind("failed", 0) == 0) printf("%s failed: %s\n", name, p.c_str());
        else printf("%s %s%s\n", name, p.c_str(), d == "nothing" ? "" : (" + " + d).c_str());
    };
    reset("poweroff", TYPE_SHUTDOWN);
    reset("reboot", TYPE_COLD_REBOOT);

    // The PMU event map from the riscv,pmu node.
    static pmu::EventMap map;
    pmu::parse_pmu_node(fdt, map);
    if (map.node_found)
        printf("pmu ranges %u selectors %u raw %u ignored %u\n", map.num_ranges, map.num_selectors,
               map.num_raw, map.ignored);
    else
        printf("pmu none\n");

    std::string needed;
    for (const NeededQuirk &q : kNeededQuirks) {
        bool m = q.where == Where::Cpu    ? cpu0 >= 0 && !fdt_node_check_compatible(fdt, cpu0, q.compat)
                 : q.where == Where::Root ? !fdt_node_check_compatible(fdt, 0, q.compat)
                                          : fdt_node_offset_by_compatible(fdt, -1, q.compat) >= 0;
        if (m && needed.find(q.quirk) == std::string::npos) needed += (needed.empty() ? "" : ",") + std::string(q.quirk);
    }
    printf("quirks-needed %s\n", needed.empty() ? "-" : needed.c_str());
    // The quirks the image chose, each checked where the host can see its
    // effect: the T-Head PLIC's S_PER bit written at boot (control register
    // at +0x1ffffc), the remote-fence page limit at 0 for CIP-1200. The
    // C910 TLB vector is a CSR write at hart start, which the host cannot see.
    const char *names[32];
    unsigned nq = platform::vendor::active(names, 32);
    std::string provided;
    for (unsigned i = 0; i < nq; i++) {
        std::string q = names[i];
        bool seen = true;
        if (q == "thead-plic-smode") {
            int node = -1;
            while ((node = fdt_node_offset_by_compatible(fdt, node, "thead,c900-plic")) >= 0) {
                uint64_t base, size;
                drivers::fdt_get_reg(fdt, node, 0, base, size);
                seen &= std::any_of(init_writes.begin(), init_writes.end(), [&](const Write &w) {
                    return w.addr == base + 0x1ffffc && (w.value & 1);
                });
            }
        } else if (q == "sifive-cip-1200") {
            seen = fw::max_page_fences == 0;
        } else if (q == "thead-c9xx-pmu") {
            seen = thead_pmu_requested;
        }
        if (seen) provided += (provided.empty() ? "" : ",") + q;
        else printf("quirk-not-applied %s\n", q.c_str());
    }
    printf("quirks-provided %s\n", provided.empty() ? "-" : provided.c_str());

    // The firmware's own fix-ups on the tree it hands on.
    int err = fw::dt::open_for_fixup(fdt, 4096);
    if (!err) err = fw::dt::fixup_reserve(fdt, 0x80000000, 0x80000, "mmode_resv");
    if (err) printf("fixup-error %d\n", err);
    printf("end\n");
    return 0;
}
