// SPDX-License-Identifier: BSD-2-Clause
// Generic device-tree drivers a platform port can use.
#pragma once
#include <stdint.h>
#include "fw.hpp"

namespace drivers {

// The console: the /chosen/stdout-path UART, by its compatible string
// (console.cpp: ns16550 and DesignWare APB UART, SiFive UART, HTIF).
bool console_init_from_fdt(const void *fdt);
bool console_present();
void console_putc(char c);
int console_getc();

// The console drivers, each set up from its device-tree node.
// ns16550 and the DesignWare APB UART (reg, reg-shift, reg-io-width).
bool ns16550_init(const void *fdt, int node);
void ns16550_putc(char c);
int ns16550_getc();
// SiFive UART ("sifive,uart0").
bool sifive_uart_init(const void *fdt, int node);
void sifive_uart_putc(char c);
int sifive_uart_getc();
// HTIF ("ucb,htif0"): console and power-off.
bool htif_init(const void *fdt, int node);
bool htif_present();
void htif_putc(char c);
int htif_getc();
void htif_poweroff();

// Power-off and reboot from whatever the device tree has (reset.cpp).
bool reset_init_from_fdt(const void *fdt);
bool poweroff_present();
bool reboot_present();
void poweroff();
void reboot();

// SiFive CLINT ("riscv,clint0"/"sifive,clint0") or ACLINT MSWI/MTIMER
// ("riscv,aclint-mswi", "riscv,aclint-mtimer"), and the T-Head C9xx ones
// ("thead,c900-clint", "thead,c900-aclint-mswi"/"-mtimer"): hart contexts
// from interrupts-extended.
bool aclint_init_from_fdt(const void *fdt);
bool aclint_ipi_present(); // an MSWI or CLINT serves at least one hart
void aclint_ipi_send(unsigned long hartid);
void aclint_ipi_clear(unsigned long hartid);
// mtime, or the time CSR where the timer has no mtime register (T-Head).
uint64_t aclint_time();
// The hart's time CSR (aclint.cpp; a host program gives its own).
uint64_t time_csr();
void aclint_set_timecmp(unsigned long hartid, uint64_t v);
// The CLINT/ACLINT register blocks found (for PMP), at most `max`.
struct AclintBlock {
    uint64_t base, size;
};
unsigned aclint_blocks(AclintBlock *out, unsigned max);
// Rewrites the `n` regions in `r` as naturally aligned powers of two for PMP
// NAPOT entries, merging neighbours until at most `budget` remain, over
// address space no other node of `fdt` claims (napot_cover.cpp). Returns the
// new count; a region it cannot grow stays as it was.
unsigned napot_cover(const void *fdt, AclintBlock *r, unsigned n, unsigned budget);

// The AIA's interrupt controllers (AIA specification 1.0), their M-level
// parts only: the S-level ones are S-mode's.
// An IMSIC node's interrupt-file geometry (binding riscv,imsics.yaml,
// defaults applied): reg[0]'s base and the index fields of a file address.
struct ImsicGeometry {
    uint64_t base;
    uint32_t guest_bits, hart_bits, group_bits, group_shift;
};
bool imsic_geometry(const void *fdt, int node, ImsicGeometry &g);
// imsic.cpp: the harts' M-level interrupt files ("riscv,imsics" nodes whose
// interrupts-extended name the machine external interrupt); true when one
// hart has one. IPIs are identity 1 of the target's file.
bool imsic_init_from_fdt(const void *fdt);
bool imsic_ipi_present();
unsigned imsic_ignored(); // IMSIC nodes whose geometry cannot be used
bool imsic_hart_has_file(unsigned long hartid);
bool imsic_m_geometry(ImsicGeometry &g); // the first M-level IMSIC's
bool imsic_s_geometry(ImsicGeometry &g); // the first S-level IMSIC's
bool imsic_hart_init(unsigned long hartid); // on the hart: its file's delivery on (false: no file)
void imsic_ipi_send(unsigned long hartid);
void imsic_ipi_clear(unsigned long hartid); // on the hart itself
unsigned imsic_blocks(AclintBlock *out, unsigned max);
int imsic_fdt_fixup(void *fdt); // M-level IMSIC nodes: status = "disabled"
unsigned imsic_fdt_nodes();        // at most that many (one per M-level block)
// aplic.cpp: the root (M-level) APLIC domain: sources delegated to the
// S-level child per riscv,delegation, MSI addresses set, domain enabled.
bool aplic_init_from_fdt(const void *fdt);
struct AplicSummary {
    const char *name = nullptr; // node name; null: no root domain set up
    bool msi;                   // MSI delivery mode (else direct)
    unsigned delegated, sources, skipped; // skipped: unusable delegation entries
};
bool aplic_summary(AplicSummary &out); // the last root domain's, for the boot log
unsigned aplic_blocks(AclintBlock *out, unsigned max);
int aplic_fdt_fixup(void *fdt); // M-level APLIC nodes: status = "disabled"
unsigned aplic_fdt_nodes();        // at most that many (one per M-level block)
// Sets status = "disabled" on every node compatible with `compat` whose
// first reg starts inside one of the `n` regions (fdt_helpers.cpp), as
// OpenSBI's fdt_domain_based_fixup_one does for a device S-mode cannot
// reach. Returns a libfdt error or 0.
int fdt_disable_covered(void *fdt, const char *compat, const AclintBlock *own, unsigned n);

// syscon-poweroff / syscon-reboot (regmap, offset, value, mask).
bool syscon_reset_init_from_fdt(const void *fdt);
bool syscon_poweroff_present();
bool syscon_reboot_present();
void syscon_poweroff();
void syscon_reboot();
// The Allwinner D1 watchdog's reset ("allwinner,sun20i-d1-wdt-reset").
bool sunxi_wdt_reset_init_from_fdt(const void *fdt);
bool sunxi_wdt_reset_present();
void sunxi_wdt_reset();
// gpio-restart and gpio-poweroff on a SiFive GPIO controller.
bool gpio_reset_init_from_fdt(const void *fdt);
bool gpio_restart_present();
bool gpio_poweroff_present();
void gpio_restart();
void gpio_poweroff();
// A PMIC or board MCU on I2C (pmic_reset.cpp): the X-Powers AXP15060, the
// Dialog DA9063, the SG2042 board MCU, on a DesignWare or SiFive controller.
bool pmic_reset_init_from_fdt(const void *fdt);
bool pmic_poweroff_present();
bool pmic_reboot_present();
void pmic_poweroff();
void pmic_reboot();
// DesignWare I2C master (dw_i2c.cpp): one 8-bit register of the target at
// 7-bit address `target`; false on a NAK or a controller that never answers.
bool dw_i2c_write_reg(uintptr_t base, uint8_t target, uint8_t reg, uint8_t value);
bool dw_i2c_read_reg(uintptr_t base, uint8_t target, uint8_t reg, uint8_t &value);
// SiFive (OpenCores) I2C master (sifive_i2c.cpp), the same operations.
bool sifive_i2c_write_reg(uintptr_t base, uint8_t target, uint8_t reg, uint8_t value);
bool sifive_i2c_read_reg(uintptr_t base, uint8_t target, uint8_t reg, uint8_t &value);

// Helpers shared by the drivers (firmware/drivers/fdt_helpers.cpp).
// The hart IDs of the harts' interrupt-controller nodes (/cpus/cpu@N/
// interrupt-controller), read in one walk of /cpus; hartid(phandle) is the
// hart whose interrupt controller has `phandle`, or -1.
class IntcMap {
public:
    void init(const void *fdt);
    long hartid(uint32_t phandle);

private:
    static constexpr unsigned kMax = fw::kMaxHarts;
    struct Entry {
        uint32_t phandle, hartid;
    };
    Entry e_[kMax];
    unsigned count_ = 0, next_ = 0;
    uint32_t lo_ = 0, hi_ = 0; // the lowest and highest phandle held
};
// The device index: one walk of the device tree at cold boot records every
// node outside /cpus (the devices; /cpus grows with the harts) with its
// parent, phandle and compatible list, so the drivers' look-ups cost a scan
// of a short table instead of a walk of the whole tree each (libfdt has no
// parent links: fdt_parent_offset, fdt_node_offset_by_phandle and
// fdt_node_offset_by_compatible each walk from the root). Valid until the
// tree is edited: fdt_index_drop() before the first edit. Without an index
// (not built, dropped, more nodes than it holds, another blob) every
// look-up is libfdt's own.
void fdt_index_build(const void *fdt);
// The tree changed (rebuilt at the next look-up; an edit that changes the
// structure block's size is noticed without it).
void fdt_index_drop();
// Cold boot is over: from here every hart may look up at once, and a lazy
// rebuild by two harts would race on the one index, so every later look-up
// is libfdt's read-only walk.
void fdt_index_close();
// As fdt_path_offset, for "/name" (a child of the root).
int fdt_find_path(const void *fdt, const char *path);
// As fdt_node_offset_by_compatible(fdt, from, compat), for device nodes.
int fdt_find_compatible(const void *fdt, int from, const char *compat);
// As fdt_node_offset_by_phandle and fdt_parent_offset.
int fdt_find_phandle(const void *fdt, uint32_t phandle);
int fdt_find_parent(const void *fdt, int node);
// The node after `node` (-1: the first), and whether `node` lists `compat`:
// with an index, the device nodes only.
int fdt_next_device(const void *fdt, int node);
bool fdt_is_compatible(const void *fdt, int node, const char *compat);
// Reads reg[index] of `node` as an address/size pair using the parent's cells.
bool fdt_get_reg(const void *fdt, int node, int index, uint64_t &addr, uint64_t &size);
// The first cell of property `name`, or `dflt` when it is missing or short.
uint32_t fdt_get_u32(const void *fdt, int node, const char *name, uint32_t dflt);

} // namespace drivers
