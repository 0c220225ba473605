// SPDX-License-Identifier: BSD-2-Clause
// The console: the UART /chosen/stdout-path names, driven by whichever driver
// matches its compatible string, so one image serves every machine whose UART
// has a driver here.
#include "drivers.hpp"
#include <libfdt.h>

namespace drivers {
namespace {
struct ConsoleDriver {
    const char *compat[3];
    bool (*init)(const void *fdt, int node);
    void (*putc)(char c);
    int (*getc)();
};
constexpr ConsoleDriver kConsoles[] = {
    // The DesignWare APB UART is a 16550 (its databook's register map) whose
    // nodes give reg-shift and reg-io-width, which ns16550.cpp honours.
    {{"ns16550a", "ns16550", "snps,dw-apb-uart"}, ns16550_init, ns16550_putc, ns16550_getc},
    {{"sifive,uart0"}, sifive_uart_init, sifive_uart_putc, sifive_uart_getc},
    {{"ucb,htif0"}, htif_init, htif_putc, htif_getc},
};
const ConsoleDriver *active;

int stdout_node(const void *fdt) {
    int chosen = fdt_find_path(fdt, "/chosen");
    if (chosen < 0) return -1;
    int len;
    auto *path = static_cast<const char *>(fdt_getprop(fdt, chosen, "stdout-path", &len));
    if (!path) return -1;
    // "stdout-path" may carry ":<options>" after the path (DT spec 3.6).
    char buf[128];
    int n = 0;
    while (n < len && n < (int)sizeof(buf) - 1 && path[n] && path[n] != ':') {
        buf[n] = path[n];
        n++;
    }
    buf[n] = 0;
    if (buf[0] == '/') return fdt_find_path(fdt, buf);
    const char *alias = fdt_get_alias(fdt, buf);
    return alias ? fdt_find_path(fdt, alias) : -1;
}
} // namespace

bool console_init_from_fdt(const void *fdt) {
    int node = stdout_node(fdt);
    if (node < 0) return false;
    for (const ConsoleDriver &d : kConsoles)
        for (const char *c : d.compat)
            if (c && !fdt_node_check_compatible(fdt, node, c) && d.init(fdt, node)) {
                active = &d;
                return true;
            }
    return false;
}

bool console_present() { return active != nullptr; }
void console_putc(char c) {
    if (active) active->putc(c);
}
int console_getc() { return active ? active->getc() : -1; }

} // namespace drivers
