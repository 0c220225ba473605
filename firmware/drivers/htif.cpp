// SPDX-License-Identifier: BSD-2-Clause
// Berkeley HTIF ("ucb,htif0", Spike and QEMU's spike machine): a 64-bit tohost
// word the host consumes and a fromhost word it answers in. Commands are
// device[63:56] cmd[55:48] payload[47:0]: device 1 (console) cmd 1 writes a
// byte, cmd 0 asks for one; device 0 cmd 0 with payload (code << 1) | 1 ends the
// simulation. QEMU places the pair at the node's reg when the loaded image has
// no tohost/fromhost symbols (a raw -bios image never has): fromhost first,
// tohost 8 bytes above (as OpenSBI's fdt HTIF driver reads the binding).
#include "drivers.hpp"
#include <libfdt.h>

namespace drivers {
namespace {
constexpr uint64_t DEV_CONSOLE = 1, CMD_GETC = 0, CMD_PUTC = 1;
volatile uint64_t *tohost, *fromhost;
bool read_pending;
int stashed = -1; // a byte that arrived while a write waited for its answer

constexpr uint64_t command(uint64_t dev, uint64_t cmd, uint64_t payload) {
    return dev << 56 | cmd << 48 | payload;
}
// One command at a time: wait until the host took the previous one.
void send(uint64_t v) {
    while (*tohost) {
    }
    *tohost = v;
}
} // namespace

bool htif_init(const void *fdt, int node) {
    uint64_t addr, size;
    if (!fdt_get_reg(fdt, node, 0, addr, size) || size < 16) return false;
    fromhost = reinterpret_cast<volatile uint64_t *>(static_cast<uintptr_t>(addr));
    tohost = fromhost + 1;
    return true;
}

bool htif_present() { return tohost != nullptr; }

void htif_putc(char c) {
    send(command(DEV_CONSOLE, CMD_PUTC, static_cast<uint8_t>(c)));
    // The host acknowledges a write in fromhost; clear it for the next answer.
    // An answer to a pending read may come first: keep its byte.
    for (;;) {
        uint64_t v = *fromhost;
        if (!v) continue;
        *fromhost = 0;
        if ((v >> 48 & 0xff) == CMD_PUTC) return;
        stashed = static_cast<int>(v & 0xff), read_pending = false;
    }
}

int htif_getc() {
    if (stashed >= 0) {
        int c = stashed;
        stashed = -1;
        return c;
    }
    if (!read_pending) {
        send(command(DEV_CONSOLE, CMD_GETC, 0));
        read_pending = true;
    }
    uint64_t v = *fromhost;
    if (!v) return -1;
    *fromhost = 0;
    read_pending = false;
    return static_cast<int>(v & 0xff);
}

void htif_poweroff() {
    send(command(0, 0, (0 << 1) | 1));
}

} // namespace drivers
