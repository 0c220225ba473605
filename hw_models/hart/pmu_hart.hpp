// SPDX-License-Identifier: BSD-2-Clause
// Host model of the performance-monitoring state of RV64 and RV32 harts, as
// M-mode sees it (privileged spec "Hardware Performance Monitor", Sscofpmf,
// Smcntrpmf), with the QEMU behaviour firmware has to live with switchable:
// QEMU counts an event on one counter only and forgets a counter's event only
// when its selector is written with 0.
//
// CSRs are XLEN bits wide. On an RV32 hart the 64-bit counters, selectors and
// filters are reached through two CSRs each: mcycleh/minstreth/mhpmcounterNh
// for bits 63:32 of a counter, mhpmeventNh (Sscofpmf only) and mcyclecfgh/
// minstretcfgh (Smcntrpmf) for bits 63:32 of a selector or filter, where the
// OF and inhibit bits are. The *h CSRs trap on RV64, mhpmeventNh without
// Sscofpmf; a write of more than XLEN bits, which no instruction can make,
// fails like a trap. The model still keeps each register as one 64-bit value.
//
// A Machine holds harts plus one RAM range; it backs the pmu::hw interface
// (pmu_hw_host.cpp) so the firmware's PMU service runs against it in host
// tests. Anything the firmware does that would trap or fault on a real hart
// is counted in Machine::faults instead of being silently accepted.
#pragma once
#include <stdint.h>

#include <map>
#include <string>
#include <vector>

namespace hart_model {

enum class Priv : unsigned { U = 0, S = 1, M = 3 };

// CSR numbers the model knows (privileged spec tables).
namespace csrno {
constexpr unsigned mideleg = 0x303, mcounteren = 0x306, mcountinhibit = 0x320,
                   mcyclecfg = 0x321, minstretcfg = 0x322, mhpmevent3 = 0x323,
                   mcycle = 0xB00, minstret = 0xB02, mhpmcounter3 = 0xB03, scountovf = 0xDA0,
                   mhartid = 0xF14;
// T-Head C9xx PMU overflow CSRs (PmuHartConfig::thead_c9xx).
constexpr unsigned th_mcounterwen = 0x7C9, th_mcounterinten = 0x7CA, th_mcounterof = 0x7CB;
// RV32 only: bits 63:32 (counter + 0x80, selector and filter + 0x400).
constexpr unsigned mcycleh = 0xB80, minstreth = 0xB82, mhpmcounter3h = 0xB83,
                   mcyclecfgh = 0x721, minstretcfgh = 0x722, mhpmevent3h = 0x723;
}

struct PmuHartConfig {
    unsigned xlen = sizeof(unsigned long) * 8; // the host program's, as the firmware's
    uint32_t counters = 0x7fffd;  // bit N: counter N exists (cycle, instret, mhpmcounter3..18)
    unsigned hpm_width = 64;      // bits of mhpmcounter3..31
    bool sscofpmf = false;
    bool smcntrpmf = false;
    bool mcountinhibit = true;
    bool qemu_event_map = true;   // QEMU's one-counter-per-event mapping
    // T-Head C9xx overflow CSRs: a counter's overflow sets its mcounterof
    // bit when its mcounterwen bit is set, and raises IRQ 17 when its
    // mcounterinten bit is set (C906/C910 manuals, as OpenSBI reads them).
    bool thead_c9xx = false;
    // Cycles (and instructions) M-mode spends before each CSR access the
    // firmware makes (pmu_hw_host.cpp), so running counters move between two
    // accesses as on a real hart; 0 freezes them while the firmware runs.
    unsigned m_cycles_per_csr = 0;
};

// Hardware event codes the model counts (the values QEMU's virt PMU uses,
// which are the zero-extended SBI event_idx).
namespace event {
constexpr uint64_t cycles = 0x1, instructions = 0x2, dtlb_read_miss = 0x10019,
                   dtlb_write_miss = 0x1001b, itlb_miss = 0x10021;
}

class PmuHart {
  public:
    explicit PmuHart(const PmuHartConfig &c = {});

    // M-mode CSR access by number; false when the access would trap.
    bool read(unsigned csr, uint64_t &value) const;
    bool write(unsigned csr, uint64_t value);

    // The hart retires `instructions` taking `cycles` cycles in mode `p`.
    void run(Priv p, uint64_t cycles, uint64_t instructions);
    // A hardware event with selector `code` happens `n` times in mode `p`.
    void event(uint64_t code, Priv p, uint64_t n = 1);

    PmuHartConfig cfg;
    uint64_t counter[32] = {};
    uint64_t selector[32] = {}; // mhpmevent3..31
    uint64_t cyclecfg = 0, instretcfg = 0;
    uint32_t inhibit = 0, counteren = 0;
    uint64_t mideleg = 0;
    bool lcofip = false;        // mip.LCOFIP
    unsigned lcofi_raised = 0;  // times the overflow interrupt was raised
    uint32_t th_wen = 0, th_inten = 0, th_of = 0; // T-Head CSRs
    bool th_irq = false;        // IRQ 17 pending
    unsigned th_irq_raised = 0;

  private:
    // What a CSR number names: a counter, a selector (mhpmeventN) or a
    // filter (mcyclecfg/minstretcfg, by counter index 0/2), and on RV32 which
    // half of it.
    struct Reg {
        enum Kind { None, Counter, Event, Cfg } kind;
        unsigned idx;
        bool upper;
    };
    Reg decode(unsigned csr) const;
    bool exists(unsigned idx) const;
    uint64_t width_mask(unsigned idx) const;
    bool filtered(uint64_t filter_bits, Priv p) const;
    void add(unsigned idx, uint64_t n);
    std::map<uint64_t, unsigned> qemu_map_; // event code -> counter
};

struct Machine {
    Machine(unsigned harts, const PmuHartConfig &c, uint64_t ram_base = 0x80000000,
            uint64_t ram_size = 1 << 20, uint64_t fw_size = 0x40000);

    std::vector<PmuHart> harts;
    unsigned current = 0;
    PmuHart &hart() { return harts[current]; }

    // RAM [ram_base, ram_base + size); the firmware owns the first fw_size bytes.
    unsigned xlen;  // RV32 has no 8-byte load or store: such an access faults
    uint64_t ram_base, fw_end;
    std::vector<uint8_t> ram;
    bool in_ram(uint64_t pa, uint64_t size) const;
    uint64_t load(uint64_t pa, unsigned size);
    void store(uint64_t pa, uint64_t value, unsigned size);
    uint64_t load_s(uint64_t pa, unsigned size) const; // test-side access, no checks
    void store_s(uint64_t pa, uint64_t value, unsigned size);

    // Traps and faults the firmware would have taken (must stay 0).
    unsigned faults = 0;
    std::vector<std::string> fault_log;
    void fault(const std::string &what);

    // The machine pmu::hw talks to.
    static Machine *active;
};

} // namespace hart_model
