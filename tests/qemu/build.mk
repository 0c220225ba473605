# SPDX-License-Identifier: BSD-2-Clause
# Bare-metal M-mode payloads that exercise the project QEMU's trace models,
# and the TCG plugin that records executed instructions for validation.
QEMU_PAYLOAD_DIR := tests/qemu/payload
QEMU_PAYLOAD_OUT := $(BUILD)/qemu-tests
QEMU_PAYLOAD_CFLAGS := -march=rv64gc -mabi=lp64d -mcmodel=medany -ffreestanding -nostdlib \
	-nostartfiles -fno-pic -no-pie -static -O2 -g -Wall -Wextra -I$(QEMU_PAYLOAD_DIR) -Ihw_models/trace \
	-T $(QEMU_PAYLOAD_DIR)/link.ld -Wl,--no-warn-rwx-segments
QEMU_PAYLOAD_COMMON := $(QEMU_PAYLOAD_DIR)/start.S $(QEMU_PAYLOAD_DIR)/lib.c $(QEMU_PAYLOAD_DIR)/work.S \
	$(QEMU_PAYLOAD_DIR)/zc.S $(QEMU_PAYLOAD_DIR)/seqjump.S
QEMU_PAYLOAD_DEPS := $(QEMU_PAYLOAD_COMMON) $(QEMU_PAYLOAD_DIR)/lib.h $(QEMU_PAYLOAD_DIR)/workload.h $(QEMU_PAYLOAD_DIR)/link.ld \
	hw_models/trace/ntrace_defs.h hw_models/trace/ntrace_msgs.def \
	hw_models/trace/tci_regs.h hw_models/trace/tci_regs.def hw_models/trace/strc_regs.h
QEMU_PAYLOADS := regs trace tv strc

.PHONY: qemu-payloads qemu-plugin
qemu-payloads: $(patsubst %,$(QEMU_PAYLOAD_OUT)/%.elf,$(QEMU_PAYLOADS))

$(QEMU_PAYLOAD_OUT)/%.elf: $(QEMU_PAYLOAD_DIR)/%.c $(QEMU_PAYLOAD_DEPS)
	@mkdir -p $(@D)
	$(CROSS)gcc $(QEMU_PAYLOAD_CFLAGS) -o $@ $(QEMU_PAYLOAD_COMMON) $<

# TCG plugin (QEMU plugin API v4): writes every executed instruction address.
QEMU_PLUGIN := $(QEMU_PAYLOAD_OUT)/libinsnlog.so
qemu-plugin: $(QEMU_PLUGIN)
$(QEMU_PLUGIN): tests/qemu/plugin/insnlog.c
	@mkdir -p $(@D)
	gcc -shared -fPIC -O2 -Wall -Wextra -Wno-unused-parameter -I"$$(scripts/qemu10.sh tree)/include/qemu" \
		$$(pkg-config --cflags glib-2.0) -o $@ $<

# TCG plugin writing the tandem-verification trace (seed 002) of every hart.
QEMU_TV_PLUGIN := $(QEMU_PAYLOAD_OUT)/libtvtrace.so
qemu-plugin: $(QEMU_TV_PLUGIN)
$(QEMU_TV_PLUGIN): tests/qemu/plugin/tvtrace.c
	@mkdir -p $(@D)
	gcc -shared -fPIC -O2 -Wall -Wextra -Wno-unused-parameter -I"$$(scripts/qemu10.sh tree)/include/qemu" \
		$$(pkg-config --cflags glib-2.0) -o $@ $<
