// SPDX-License-Identifier: BSD-2-Clause
// Writes the device tree the firmware handed on (a1) to the host file
// handed.dtb through semihosting (QEMU -semihosting-config
// enable=on,target=native, in the runner's working directory), for a suite
// to read with dtc's tools (suite 52: the trace components M-mode keeps are
// all status = "disabled"). Nothing else: cheap on hundreds of harts.
#include "payload.hpp"

using namespace pl;

PAYLOAD_NAME("dtdump");

// The RISC-V semihosting sequence (slli/ebreak/srai): uncompressed, in one
// 16-byte aligned block so the three words share a page.
asm(".pushsection .text\n.option push\n.option norvc\n.option norelax\n.balign 16\n"
    ".globl dtdump_semihost\ndtdump_semihost:\n"
    "slli x0, x0, 0x1f\nebreak\nsrai x0, x0, 7\nret\n.option pop\n.popsection");
extern "C" long dtdump_semihost(long op, void *arg);

void payload_main() {
    static const char name[] = "handed.dtb";
    auto *fdt = reinterpret_cast<const uint8_t *>(platform().fdt);
    // The header's magic and totalsize (Devicetree Specification 5.2, big-endian).
    const unsigned long magic = (unsigned long)fdt[0] << 24 | fdt[1] << 16 | fdt[2] << 8 | fdt[3];
    const unsigned long size = (unsigned long)fdt[4] << 24 | fdt[5] << 16 | fdt[6] << 8 | fdt[7];
    if (!expect_eq(magic, 0xd00dfeedul, "dtdump/magic")) return;
    unsigned long open_args[3] = {reinterpret_cast<unsigned long>(name), 5 /* "wb" */, sizeof name - 1};
    long fd = dtdump_semihost(0x01 /* SYS_OPEN */, open_args);
    unsigned long write_args[3] = {static_cast<unsigned long>(fd), reinterpret_cast<unsigned long>(fdt), size};
    const bool ok = fd >= 0 && dtdump_semihost(0x05 /* SYS_WRITE: bytes not written */, write_args) == 0;
    if (fd >= 0) dtdump_semihost(0x02 /* SYS_CLOSE */, &fd);
    expect_true(ok, "dtdump/written");
    info("dtdump", "%s: %lu bytes", name, size);
}
