// SPDX-License-Identifier: BSD-2-Clause
// Debug Console extension (ext-debug-console.adoc, EID "DBCN").
#include "ecall_list.hpp"
#include "fw.hpp"
#include "platform.hpp"

namespace sbi {
namespace {

enum : unsigned long { CONSOLE_WRITE = 0, CONSOLE_READ = 1, CONSOLE_WRITE_BYTE = 2 };

long probe() { return platform::console_present(); }

SbiRet handle(unsigned long num, unsigned long lo, unsigned long hi, unsigned long,
              unsigned long, unsigned long, unsigned long fid) {
    switch (fid) {
    case CONSOLE_WRITE:
    case CONSOLE_READ: {
        // An empty buffer touches no memory: nothing to validate or do.
        if (num == 0) return ok(0);
        // The buffer must be memory S-mode may access (not the firmware's,
        // not MMIO, no wrap-around); the DBCN table says INVALID_PARAM.
        if (!fw::s_mode_range_ok(lo, hi, num)) return err(Error::InvalidParam);
        if (!platform::console_present()) return err(Error::Denied);
        auto *buf = reinterpret_cast<volatile char *>(lo);
        unsigned long n = 0;
        if (fid == CONSOLE_WRITE) {
            fw::console_write(buf, num);
            n = num;
        } else {
            n = fw::console_read(buf, num);
        }
        return ok(n);
    }
    case CONSOLE_WRITE_BYTE:
        if (!platform::console_present()) return err(Error::Denied);
    {
        char c = static_cast<char>(num & 0xff);
        fw::console_write(&c, 1);
        return ok(0);
    }
    default: return err(Error::NotSupported);
    }
}
} // namespace

extern const Extension sbi_ext_dbcn = {probe, handle};
} // namespace sbi
