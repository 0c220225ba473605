// SPDX-License-Identifier: BSD-2-Clause
#include "quirks.hpp"
#include "drivers/drivers.hpp"
#include "fw.hpp"

namespace quirk_demo {

bool cold_init(const void *) {
    fw::printf("quirk_demo: cold_init\n");
    return true;
}

void hart_init(unsigned long hartid) { fw::printf("quirk_demo: hart_init %lu\n", hartid); }

// Shutdown only, through the device tree's device, announced first; the other
// types fall back to the device tree.
bool reset_supported(uint32_t type) {
    return type == sbi::srst::TYPE_SHUTDOWN && drivers::poweroff_present();
}
void reset(uint32_t, uint32_t reason) {
    fw::printf("quirk_demo: shutdown, reason %u\n", reason);
    drivers::poweroff();
}

} // namespace quirk_demo
