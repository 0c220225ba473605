// SPDX-License-Identifier: BSD-2-Clause
// SRST cold and warm reboot: the payload must start again. QEMU reloads the
// firmware and the payload image on reset but keeps the rest of RAM, so the
// stage survives in a marker in the middle of RAM. Boot 1 requests a cold
// reboot, boot 2 a warm reboot (from a secondary hart when there is one),
// boot 3 checks that every secondary is STOPPED again and shuts down. The
// runner expects exactly three TSBI-START lines (PAYLOAD_BOOTS in run.py);
// the PASS/FAIL lines of each boot are all reported, TSBI-DONE counts the
// last boot's.
#include "payload.hpp"

using namespace pl;

PAYLOAD_NAME("reboot");

namespace {

constexpr unsigned long kMagic = static_cast<unsigned long>(0x7473626952425354ull); // "tsbiRBST"

struct Marker {
    unsigned long magic;
    unsigned long stage;
};

Marker *marker() {
    const Platform &p = platform();
    return reinterpret_cast<Marker *>(p.ram_base + p.ram_size / 2);
}

void reset_job(void *arg) {
    unsigned long type = *static_cast<unsigned long *>(arg);
    SbiRet r = sbi_system_reset(type, reset_reason::none);
    printf("FAIL: reboot/reset_from_secondary returned error=%ld\n", r.error);
}

void secondaries_stopped(const char *when) {
    const Platform &p = platform();
    for (unsigned i = 0; i < p.nharts; i++)
        if (p.hartids[i] != hartid())
            expect_ret(sbi_hart_get_status(p.hartids[i]), SUCCESS, hsm_state::stopped,
                       "%s/hart%lu_stopped", when, p.hartids[i]);
}

[[noreturn]] void reset(unsigned long type, const char *name) {
    const Platform &p = platform();
    if (p.nharts > 1 && start_secondaries()) {
        unsigned long h = last_secondary();
        post_job(h, reset_job, &type);
        for (;;) {
        }
    }
    SbiRet r = sbi_system_reset(type, reset_reason::none);
    fail("the reset call returned", "%s/returned error=%ld", name, r.error);
    marker()->magic = 0;
    finish();
}

} // namespace

void payload_main() {
    clause("srst/system_reset/reboot");
    if (!extension_present(eid::srst, "present")) return;
    Marker *m = marker();
    volatile Marker *vm = m;
    unsigned long stage = vm->magic == kMagic ? vm->stage : 0;
    switch (stage) {
    case 0:
        pass("boot1/started");
        vm->magic = kMagic;
        vm->stage = 1;
        asm volatile("fence rw, rw" ::: "memory");
        reset(reset_type::cold_reboot, "cold_reboot");
    case 1:
        pass("boot2/after_cold_reboot");
        secondaries_stopped("boot2");
        vm->stage = 2;
        asm volatile("fence rw, rw" ::: "memory");
        reset(reset_type::warm_reboot, "warm_reboot");
    default:
        expect_eq(stage, 2, "boot3/after_warm_reboot");
        secondaries_stopped("boot3");
        vm->magic = 0;
        break;
    }
}
