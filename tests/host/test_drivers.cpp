// SPDX-License-Identifier: BSD-2-Clause
// Host tests of the device-tree drivers (firmware/drivers) against the device
// trees QEMU 7.2 gives its virt, spike and sifive_u machines, and against
// small trees of board devices (tests/host/data). Each test moves
// the register block of the device under test to host memory (the node's reg
// is rewritten in place), then checks what the driver chose from the tree and
// what it wrote to the registers. Drivers keep static state, as in the
// firmware, so each machine runs in its own process (-tc=<machine>*).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "drivers/drivers.hpp"
#include "i2c_models.hpp"
#include <libfdt.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

// The core's hart map (fw.hpp), which the ACLINT driver indexes its harts
// by: here hart index = hart ID, as on a machine numbered 0..n-1.
extern "C" {
fw::hartmap::Map fw_hart_map = {fw::kMaxHarts, nullptr, fw::kMaxHarts};
}

namespace {

std::vector<char> load(const char *machine) {
    // QEMU's machines are qemu-<machine>.dtb, the board trees <name>.dtb.
    std::string name(machine);
    bool qemu = name == "virt" || name == "spike" || name == "sifive_u";
    std::string path = std::string(TEST_DATA_DIR) + (qemu ? "/qemu-" : "/") + name + ".dtb";
    std::ifstream f(path, std::ios::binary);
    REQUIRE_MESSAGE(f.good(), "cannot open " << path);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// Rewrites reg[0]'s address of the node at `path` (two address cells, as on
// all three machines and in tests/host/data) to `host`.
void move_reg(std::vector<char> &dtb, const char *path, const void *host) {
    int node = fdt_path_offset(dtb.data(), path);
    REQUIRE_MESSAGE(node >= 0, path);
    int len;
    auto *reg = static_cast<fdt32_t *>(fdt_getprop_w(dtb.data(), node, "reg", &len));
    REQUIRE(reg);
    REQUIRE(len >= 8);
    auto a = reinterpret_cast<uint64_t>(host);
    reg[0] = cpu_to_fdt32(static_cast<uint32_t>(a >> 32));
    reg[1] = cpu_to_fdt32(static_cast<uint32_t>(a));
}

template <typename T> T at(const void *block, size_t off) {
    T v;
    std::memcpy(&v, static_cast<const char *>(block) + off, sizeof v);
    return v;
}
template <typename T> void put(void *block, size_t off, T v) {
    std::memcpy(static_cast<char *>(block) + off, &v, sizeof v);
}

alignas(8) uint8_t clint[0x10000];

} // namespace

// The time CSR of the host's "hart": what a T-Head timer reads.
uint64_t drivers::time_csr() { return 0x7153c5; }

TEST_CASE("virt: ns16550 console, syscon power-off and reboot, CLINT") {
    auto dtb = load("virt");
    alignas(8) uint8_t uart[8] = {};
    alignas(8) uint8_t test_dev[0x1000] = {};
    move_reg(dtb, "/soc/serial@10000000", uart);
    move_reg(dtb, "/soc/test@100000", test_dev);
    move_reg(dtb, "/soc/clint@2000000", clint);

    uart[5] = 0x20; // LSR: THRE (transmitter empty), no data ready
    REQUIRE(drivers::console_init_from_fdt(dtb.data()));
    drivers::console_putc('x');
    CHECK(uart[0] == 'x');
    CHECK(drivers::console_getc() == -1);
    uart[5] |= 0x01, uart[0] = 'k'; // LSR: data ready, RBR
    CHECK(drivers::console_getc() == 'k');

    REQUIRE(drivers::reset_init_from_fdt(dtb.data()));
    CHECK(drivers::poweroff_present());
    CHECK(drivers::reboot_present());
    CHECK_FALSE(drivers::gpio_restart_present());
    CHECK_FALSE(drivers::htif_present());
    // QEMU's sifive_test device: 0x5555 powers off, 0x7777 resets.
    drivers::poweroff();
    CHECK(at<uint32_t>(test_dev, 0) == 0x5555);
    drivers::reboot();
    CHECK(at<uint32_t>(test_dev, 0) == 0x7777);

    REQUIRE(drivers::aclint_init_from_fdt(dtb.data()));
    drivers::AclintBlock b[8];
    REQUIRE(drivers::aclint_blocks(b, 8) == 1);
    CHECK(b[0].base == reinterpret_cast<uint64_t>(clint));
    CHECK(b[0].size == 0x10000);
    for (unsigned long h = 0; h < 4; h++) {
        drivers::aclint_ipi_send(h);
        CHECK(at<uint32_t>(clint, 4 * h) == 1);
        drivers::aclint_ipi_clear(h);
        CHECK(at<uint32_t>(clint, 4 * h) == 0);
        drivers::aclint_set_timecmp(h, 0x1234500 + h);
        CHECK(at<uint64_t>(clint, 0x4000 + 8 * h) == 0x1234500 + h);
    }
    put<uint64_t>(clint, 0xbff8, 987654321);
    CHECK(drivers::aclint_time() == 987654321);
}

TEST_CASE("sifive_u: SiFive UART console, gpio-restart reboot, no power-off, CLINT with the E51") {
    auto dtb = load("sifive_u");
    alignas(8) uint8_t uart[0x20] = {};
    alignas(8) uint8_t gpio[0x40] = {};
    move_reg(dtb, "/soc/serial@10010000", uart);
    move_reg(dtb, "/soc/gpio@10060000", gpio);
    move_reg(dtb, "/soc/clint@2000000", clint);

    put<uint32_t>(uart, 0x04, 1u << 31); // rxdata: EMPTY
    REQUIRE(drivers::console_init_from_fdt(dtb.data()));
    CHECK((at<uint32_t>(uart, 0x08) & 1) == 1); // txctrl.txen
    CHECK((at<uint32_t>(uart, 0x0c) & 1) == 1); // rxctrl.rxen
    drivers::console_putc('u');
    CHECK(at<uint32_t>(uart, 0x00) == 'u');
    CHECK(drivers::console_getc() == -1);
    put<uint32_t>(uart, 0x04, 'q');
    CHECK(drivers::console_getc() == 'q');

    // gpios = <&gpio 10 GPIO_ACTIVE_LOW>: reboot drives pin 10 low as an output.
    put<uint32_t>(gpio, 0x04, 0xffffffff); // input_en
    REQUIRE(drivers::reset_init_from_fdt(dtb.data()));
    CHECK(drivers::reboot_present());
    CHECK_FALSE(drivers::poweroff_present());
    drivers::reboot();
    CHECK((at<uint32_t>(gpio, 0x04) >> 10 & 1) == 0); // input disabled
    CHECK((at<uint32_t>(gpio, 0x08) >> 10 & 1) == 1); // output enabled
    CHECK((at<uint32_t>(gpio, 0x0c) >> 10 & 1) == 0); // active level: low
    CHECK(at<uint32_t>(gpio, 0x08) == 1u << 10);      // no other pin touched

    // The CLINT lists the E51 (hart 0) first: hart N's MSIP is word N.
    REQUIRE(drivers::aclint_init_from_fdt(dtb.data()));
    drivers::aclint_ipi_send(4);
    CHECK(at<uint32_t>(clint, 16) == 1);
    CHECK(at<uint32_t>(clint, 0) == 0);
    drivers::aclint_set_timecmp(0, 77);
    CHECK(at<uint64_t>(clint, 0x4000) == 77);
}

TEST_CASE("spike: HTIF console and power-off, no reboot") {
    auto dtb = load("spike");
    // fromhost, then tohost (QEMU's layout for an image without the symbols).
    alignas(8) static uint64_t htif[2];
    move_reg(dtb, "/htif", htif);

    // The host side of HTIF: takes each command from tohost and answers a
    // console write in fromhost, as QEMU's htif device does.
    std::string printed;
    std::atomic<bool> done{false};
    std::atomic<uint64_t> exit_cmd{0};
    std::thread host([&] {
        while (!done.load()) {
            uint64_t cmd = __atomic_load_n(&htif[1], __ATOMIC_ACQUIRE);
            if (!cmd) continue;
            __atomic_store_n(&htif[1], 0, __ATOMIC_RELEASE);
            uint64_t dev = cmd >> 56, op = cmd >> 48 & 0xff;
            if (dev == 1 && op == 1) {
                printed += static_cast<char>(cmd & 0xff);
                __atomic_store_n(&htif[0], (1ull << 56) | (1ull << 48), __ATOMIC_RELEASE);
            } else if (dev == 0) {
                exit_cmd = cmd;
            }
        }
    });

    REQUIRE(drivers::console_init_from_fdt(dtb.data()));
    for (char c : std::string("htif ok")) drivers::console_putc(c);
    REQUIRE(drivers::reset_init_from_fdt(dtb.data()));
    CHECK(drivers::poweroff_present());
    CHECK_FALSE(drivers::reboot_present());
    drivers::poweroff();
    while (__atomic_load_n(&htif[1], __ATOMIC_ACQUIRE)) {
    }
    for (int i = 0; i < 1000000 && !exit_cmd; i++) std::this_thread::yield();
    done = true;
    host.join();
    CHECK(printed == "htif ok");
    CHECK(exit_cmd == 1); // device 0, command 0, payload (0 << 1) | 1: exit code 0
    CHECK(htif[0] == 0);  // every answer was taken
}

TEST_CASE("dw-apb-uart: a 16550 with reg-shift 2 and 32-bit accesses") {
    auto dtb = load("dw-apb-uart");
    // The register file: register r at 4 * r, read and written as words.
    // Every byte starts at 0xff, so a byte store shows in the word.
    alignas(8) uint8_t uart[0x20];
    std::memset(uart, 0xff, sizeof uart);
    move_reg(dtb, "/soc/serial@2500000", uart);
    constexpr size_t THR = 0, LSR = 5 * 4;
    put<uint32_t>(uart, LSR, 0x60); // THRE | TEMT, no data ready
    REQUIRE(drivers::console_init_from_fdt(dtb.data()));
    drivers::console_putc('d');
    CHECK(at<uint32_t>(uart, THR) == 'd'); // one 32-bit store, not a byte
    CHECK(at<uint32_t>(uart, 4) == 0xffffffffu); // register 1 (IER) untouched
    CHECK(drivers::console_getc() == -1);
    put<uint32_t>(uart, LSR, 0x61); // data ready
    put<uint32_t>(uart, THR, 0xffffff00u | 'w'); // RBR: the byte in bits 7:0
    CHECK(drivers::console_getc() == 'w');
}

TEST_CASE("thead-clint: CLINT layout, no mtime (the time CSR), narrow compare") {
    auto dtb = load("thead-clint");
    move_reg(dtb, "/soc/timer@14000000", clint);
    std::memset(clint, 0, sizeof clint);
    put<uint64_t>(clint, 0xbff8, 0xdead); // not an mtime here: never read
    REQUIRE(drivers::aclint_init_from_fdt(dtb.data()));
    CHECK(drivers::aclint_time() == 0x7153c5); // the time CSR
    for (unsigned long h = 0; h < 2; h++) {
        drivers::aclint_ipi_send(h);
        CHECK(at<uint32_t>(clint, 4 * h) == 1);
        drivers::aclint_ipi_clear(h);
        CHECK(at<uint32_t>(clint, 4 * h) == 0);
        drivers::aclint_set_timecmp(h, 0x1122334455667700ull + h);
        CHECK(at<uint64_t>(clint, 0x4000 + 8 * h) == 0x1122334455667700ull + h);
    }
    drivers::AclintBlock b[8];
    REQUIRE(drivers::aclint_blocks(b, 8) == 1);
    CHECK(b[0].size == 0xc000);
}

TEST_CASE("thead-aclint: one MSWI, compare-only MTIMER blocks per cluster") {
    auto dtb = load("thead-aclint");
    alignas(8) static uint8_t mswi[0x4000], cmp0[0xc000], cmp1[0xc000];
    move_reg(dtb, "/soc/interrupt-controller@7094000000", mswi);
    move_reg(dtb, "/soc/timer@70ac004000", cmp0);
    move_reg(dtb, "/soc/timer@70ac014000", cmp1);
    REQUIRE(drivers::aclint_init_from_fdt(dtb.data()));
    CHECK(drivers::aclint_time() == 0x7153c5);
    for (unsigned long h = 0; h < 4; h++) {
        drivers::aclint_ipi_send(h);
        CHECK(at<uint32_t>(mswi, 4 * h) == 1);
        drivers::aclint_ipi_clear(h);
        CHECK(at<uint32_t>(mswi, 4 * h) == 0);
        drivers::aclint_set_timecmp(h, 0xabcdef00ull + h);
        // Harts 0-1 index the first block, 2-3 the second, from 0 each.
        CHECK(at<uint64_t>(h < 2 ? cmp0 : cmp1, 8 * (h % 2)) == 0xabcdef00ull + h);
    }
    CHECK(at<uint64_t>(cmp0, 0x7ff8) == 0); // no mtime at +0x7ff8 either
    drivers::AclintBlock b[8];
    CHECK(drivers::aclint_blocks(b, 8) == 3);
}

TEST_CASE("sunxi-wdt: the D1 watchdog reboots, its node reserved for firmware") {
    auto dtb = load("sunxi-wdt");
    alignas(8) uint8_t wdt[0x20] = {};
    move_reg(dtb, "/soc/watchdog@20500a0", wdt);
    REQUIRE(drivers::reset_init_from_fdt(dtb.data()));
    CHECK(drivers::reboot_present());
    CHECK_FALSE(drivers::poweroff_present());
    drivers::reboot();
    CHECK(at<uint32_t>(wdt, 0x18) == 0x16aa0000u); // MODE: the key alone, watchdog off
    CHECK(at<uint32_t>(wdt, 0x08) == 0x16aa0001u); // SOFT_RST: key and enable
}

TEST_CASE("thead-aclint: blocks as PMP NAPOT regions over unclaimed space") {
    auto dtb = load("thead-aclint");
    // The tree's own addresses: the 0xc000 compare blocks grow to 64 KiB and
    // merge into one 128 KiB region; the MSWI stays as it is.
    drivers::AclintBlock r[3] = {{0x7094000000, 0x4000}, {0x70ac004000, 0xc000}, {0x70ac014000, 0xc000}};
    REQUIRE(drivers::napot_cover(dtb.data(), r, 3, 2) == 2);
    CHECK(r[0].base == 0x7094000000);
    CHECK(r[0].size == 0x4000);
    CHECK(r[1].base == 0x70ac000000);
    CHECK(r[1].size == 0x20000);
    // A budget of 3 stops before merging.
    drivers::AclintBlock s[3] = {{0x7094000000, 0x4000}, {0x70ac004000, 0xc000}, {0x70ac014000, 0xc000}};
    REQUIRE(drivers::napot_cover(dtb.data(), s, 3, 3) == 3);
    CHECK(s[2].base == 0x70ac010000);
    CHECK(s[2].size == 0x10000);
    // A region that would take the MSWI's registers is not grown over them.
    drivers::AclintBlock t[1] = {{0x7094004000, 0xc000}};
    REQUIRE(drivers::napot_cover(dtb.data(), t, 1, 1) == 1);
    CHECK(t[0].size == 0xc000);
}

TEST_CASE("gpio-poweroff: power-off drives a SiFive GPIO line to its active level") {
    auto dtb = load("gpio-poweroff");
    alignas(8) uint8_t gpio[0x40] = {};
    move_reg(dtb, "/soc/gpio@10060000", gpio);
    put<uint32_t>(gpio, 0x04, 0xffffffff); // input_en
    put<uint32_t>(gpio, 0x0c, 1u << 2);    // output_val: line 2 high (inactive)
    REQUIRE(drivers::reset_init_from_fdt(dtb.data()));
    CHECK(drivers::poweroff_present());
    CHECK_FALSE(drivers::reboot_present());
    drivers::poweroff();
    CHECK((at<uint32_t>(gpio, 0x04) >> 2 & 1) == 0); // input disabled
    CHECK(at<uint32_t>(gpio, 0x08) == 1u << 2);       // only line 2 an output
    CHECK((at<uint32_t>(gpio, 0x0c) >> 2 & 1) == 0);  // active level: low
}

TEST_CASE("jh7110-gpio-restart: reboot drives a JH7110 pin-controller line high") {
    auto dtb = load("jh7110-gpio-restart");
    alignas(8) static uint8_t pinctrl[0x100];
    std::memset(pinctrl, 0x5a, sizeof pinctrl); // every other pin's bytes
    move_reg(dtb, "/soc/pinctrl@13040000", pinctrl);
    REQUIRE(drivers::reset_init_from_fdt(dtb.data()));
    CHECK(drivers::reboot_present());
    CHECK_FALSE(drivers::poweroff_present());
    drivers::reboot();
    // Line 35: byte 3 of the word at +0x20 (DOEN) and at +0x60 (DOUT).
    CHECK(at<uint32_t>(pinctrl, 0x20) == 0x005a5a5au); // output enabled
    CHECK(at<uint32_t>(pinctrl, 0x60) == 0x015a5a5au); // driven high
    CHECK(at<uint32_t>(pinctrl, 0x1c) == 0x5a5a5a5au); // no other word touched
    CHECK(at<uint32_t>(pinctrl, 0x64) == 0x5a5a5a5au);
}

TEST_CASE("jh7100-gpio-restart: reboot drives a JH7100 GPIO line high") {
    auto dtb = load("jh7100-gpio-restart");
    alignas(8) static uint8_t gpio[0x400];
    std::memset(gpio, 0x5a, sizeof gpio); // every other register
    move_reg(dtb, "/soc/pinctrl@11910000", gpio);
    REQUIRE(drivers::reset_init_from_fdt(dtb.data()));
    CHECK(drivers::reboot_present());
    CHECK_FALSE(drivers::poweroff_present());
    drivers::reboot();
    // Line 63: GPO63_DOUT_CFG at 0x50 + 8 * 63 = 0x248, DOEN_CFG at 0x24c.
    CHECK(at<uint32_t>(gpio, 0x248) == 1u); // driven high
    CHECK(at<uint32_t>(gpio, 0x24c) == 0u); // output enabled
    CHECK(at<uint32_t>(gpio, 0x244) == 0x5a5a5a5au); // line 62's DOEN untouched
    CHECK(at<uint32_t>(gpio, 0x250) == 0x5a5a5a5au);
}

// The AXP15060 behind a DesignWare I2C controller, both modelled at the
// access level (i2c_models.hpp): the driver's every register access goes to
// the controller model, which runs the bus transactions against the PMIC's
// register file.
struct Jh7110Pmic {
    std::vector<char> dtb = load("jh7110-axp15060");
    i2c_model::DwI2c ctrl;
    i2c_model::RegTarget axp;
    alignas(4096) static inline uint8_t syscrg[0x1000];
    explicit Jh7110Pmic(unsigned pmic_addr = 0x36) {
        mmio_fake::install();
        void *w = mmio_fake::attach(ctrl, nullptr, 0x1000);
        REQUIRE(w);
        move_reg(dtb, "/soc/i2c@12050000", w);
        move_reg(dtb, "/soc/clock-controller@13020000", syscrg);
        ctrl.targets[pmic_addr] = &axp;
        axp.regs[0x32] = 0x07;
        REQUIRE(drivers::reset_init_from_fdt(dtb.data()));
    }
};

TEST_CASE("jh7110-axp15060: power-off sets bit 7 of the PMIC's register 0x32 over DesignWare I2C") {
    Jh7110Pmic b;
    CHECK(drivers::poweroff_present());
    CHECK(drivers::reboot_present());
    drivers::poweroff();
    CHECK(b.axp.log == "r 0x32=0x7 w 0x32=0x87"); // read-modify-write, other bits kept
    CHECK(b.axp.regs[0x32] == 0x87);
    CHECK(at<uint32_t>(b.syscrg, 4 * 0x8f) == 1u << 31); // the controller's APB clock on
    CHECK(b.ctrl.tar == 0x36);
    CHECK(b.ctrl.tar_ignored == 0); // the address set while disabled
    CHECK_FALSE(b.ctrl.in_transfer);  // every transaction ended with STOP
}

TEST_CASE("jh7110-axp15060: reboot sets bit 6") {
    Jh7110Pmic b;
    drivers::reboot();
    CHECK(b.axp.log == "r 0x32=0x7 w 0x32=0x47");
}

TEST_CASE("jh7110-axp15060: no PMIC answering: nothing written, no hang") {
    Jh7110Pmic b(0x35); // the PMIC is not at the tree's address
    drivers::poweroff();
    CHECK(b.axp.log.empty());
    CHECK(b.axp.regs[0x32] == 0x07);
    CHECK_FALSE(b.ctrl.in_transfer);
}

// The DA9063 behind the FU740's SiFive (OpenCores) I2C controller.
struct UnmatchedPmic {
    std::vector<char> dtb = load("unmatched-da9063");
    i2c_model::Ocores ctrl;
    i2c_model::RegTarget da9063;
    explicit UnmatchedPmic(uint8_t id = 0x61) {
        mmio_fake::install();
        void *w = mmio_fake::attach(ctrl, nullptr, 0x1000);
        REQUIRE(w);
        move_reg(dtb, "/soc/i2c@10030000", w);
        ctrl.targets[0x58] = &da9063;
        da9063.regs[0x81] = id; // DEVICE_ID
        REQUIRE(drivers::reset_init_from_fdt(dtb.data()));
    }
};

TEST_CASE("unmatched-da9063: power-off: chip checked, page 0, CONTROL_F.SHUTDOWN over SiFive I2C") {
    UnmatchedPmic b;
    CHECK(drivers::poweroff_present());
    CHECK(drivers::reboot_present());
    drivers::poweroff();
    CHECK(b.da9063.log == "w 0x0=0x2 r 0x0=0x2 r 0x81=0x61 w 0x0=0x0 w 0x13=0x2");
    CHECK_FALSE(b.ctrl.in_transfer); // every transaction ended with STOP
}

TEST_CASE("unmatched-da9063: reboot: watchdog stopped, CONTROL_F.WAKEUP, CONTROL_A") {
    UnmatchedPmic b;
    b.da9063.regs[0x11] = 0x35; // CONTROL_D with a watchdog time scale
    drivers::reboot();
    CHECK(b.da9063.log ==
          "w 0x0=0x2 r 0x0=0x2 r 0x81=0x61 w 0x0=0x0 r 0x11=0x35 w 0x11=0x30 w 0x13=0x4 w 0xe=0x68");
}

TEST_CASE("unmatched-da9063: another chip at the address: no reset command, a disabled core enabled") {
    UnmatchedPmic b(0x62);
    b.ctrl.ctr = 0; // core disabled (as Linux's driver leaves it on removal)
    drivers::reboot();
    CHECK(b.ctrl.ctr == 0x80);
    CHECK(b.da9063.log == "w 0x0=0x2 r 0x0=0x2 r 0x81=0x62");
    CHECK_FALSE(b.ctrl.in_transfer);
}

TEST_CASE("sg2042-mcu: power-off and reboot are commands 2 and 7 in the MCU's register 3") {
    auto dtb = load("sg2042-mcu");
    mmio_fake::install();
    i2c_model::DwI2c ctrl;
    i2c_model::RegTarget mcu;
    void *w = mmio_fake::attach(ctrl, nullptr, 0x1000);
    REQUIRE(w);
    move_reg(dtb, "/soc/i2c@7030006000", w);
    ctrl.targets[0x17] = &mcu;
    REQUIRE(drivers::reset_init_from_fdt(dtb.data()));
    drivers::poweroff();
    CHECK(mcu.log == "w 0x3=0x2");
    mcu.log.clear();
    drivers::reboot();
    CHECK(mcu.log == "w 0x3=0x7");
}

TEST_CASE("thead-aclint: grown blocks that meet are one region") {
    auto dtb = load("thead-aclint");
    // Where the tree has nothing: both grow from the same base, and the
    // larger holds the smaller.
    drivers::AclintBlock r[2] = {{0x1000000000, 0xc000}, {0x1000008000, 0xc000}};
    REQUIRE(drivers::napot_cover(dtb.data(), r, 2, 2) == 1);
    CHECK(r[0].base == 0x1000000000);
    CHECK(r[0].size == 0x20000);
}
