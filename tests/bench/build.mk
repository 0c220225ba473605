# SPDX-License-Identifier: BSD-2-Clause
# The boot-cost probe (tests/bench/bootcost/README.md): a bare S-mode payload
# any SBI firmware can start, built for RV64 at the fw_dynamic/-kernel address.
BOOTCOST_DIR  := tests/bench/bootcost
BOOTCOST_ELF  := $(BUILD)/bootcost/bootcost.elf
BOOTCOST_SRCS := $(BOOTCOST_DIR)/entry.S $(BOOTCOST_DIR)/main.c
$(BOOTCOST_ELF): $(BOOTCOST_SRCS) $(BOOTCOST_DIR)/link.ld
	@mkdir -p $(dir $@)
	$(CROSS)gcc -march=rv64imac_zicsr -mabi=lp64 -mcmodel=medany -O2 -Wall -ffreestanding \
		-nostdlib -static -no-pie -fno-pic -Wl,-T,$(BOOTCOST_DIR)/link.ld -Wl,--build-id=none \
		-Wl,--no-warn-rwx-segments $(BOOTCOST_SRCS) -o $@
.PHONY: bootcost
bootcost: $(BOOTCOST_ELF)
