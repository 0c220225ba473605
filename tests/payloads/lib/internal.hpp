// SPDX-License-Identifier: BSD-2-Clause
// Declarations shared by the payload library's own files (not for payloads).
#pragma once
#include <stdarg.h>

#include "payload.hpp"
#include "payload_asm.h"

namespace pl {

static_assert(kMaxHarts == PL_MAX_HARTS);
extern "C" uint16_t pl_hart_slot[PL_MAX_HARTID]; // runtime.cpp

struct TrapFrame {
    unsigned long x[32];
    unsigned long sepc, sstatus, scause, stval;
};
static_assert(sizeof(TrapFrame) == TF_SIZE);

void console_init();
bool console_uses_dbcn();
unsigned long console_failures();
void console_write(const char *s, size_t n);
void vprintf(const char *fmt, va_list ap);
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);

void parse_fdt(unsigned long fdt, unsigned long boot_hartid);
void checks_init(); // records the spec version expect_alive compares with
void report_anomalies();

} // namespace pl

extern "C" {
extern volatile unsigned pl_extra_entries;
extern volatile unsigned long pl_extra_entry_hartid;
extern volatile unsigned long pl_bad_entry_a0;
extern volatile unsigned long pl_bad_resume_a0, pl_bad_resume_a1;
extern char __bss_start[], __bss_end[], _end[], _start[];
[[noreturn]] void pl_park();
}
