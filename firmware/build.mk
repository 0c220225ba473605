# SPDX-License-Identifier: BSD-2-Clause
# The firmware images: build/fw/tsbi_{dynamic,jump}.{elf,bin} (and
# tsbi_payload.{elf,bin} with FW_PAYLOAD=<image>) for the default
# configuration (PLATFORM=generic FW_XLEN=64 FW_SUBSYSTEMS=1), and
# build/fw-<platform>-rv<xlen>[-core]/ for any other, so switching a knob never
# links objects built for another configuration. Within a directory,
# $(FW_BUILD)/config records the flags; a change of flags rebuilds everything.
PLATFORM   ?= generic
# The port's folder (its quirks.hpp and any .cpp): platform/<PLATFORM>, or
# anywhere for a port kept out of this tree.
PLATFORM_DIR ?= platform/$(PLATFORM)
FW_XLEN    ?= 64
# Subsystems (PMU, CTR, trace) are linked by default; FW_SUBSYSTEMS=0 builds the
# core alone (TSBI_SUBSYSTEMS=0 empties the list in core/subsystems.hpp; suite
# 21 boots it).
FW_SUBSYSTEMS ?= 1
FW_KEY     := $(PLATFORM)-rv$(FW_XLEN)$(if $(filter 1,$(FW_SUBSYSTEMS)),,-core)
FW_BUILD   ?= $(BUILD)/fw$(if $(filter generic-rv64,$(FW_KEY)),,-$(FW_KEY))
LIBFDT_VER := 1.7.2
LIBFDT_DIR := $(TSBI_CACHE)/src/dtc-$(LIBFDT_VER)/libfdt

# Size first (-Os); the SBI call
# paths are built for speed (-O2).
FW_OPT ?= -Os
FW_HOT := firmware/sbi/%.cpp firmware/core/ipi.cpp firmware/core/trap.cpp firmware/core/emulate.cpp \
	firmware/pmu/service.cpp firmware/pmu/hw_csr.cpp firmware/ctr/ctr_trace.cpp firmware/ctr/ctr_emul.cpp
FW_LIBGCC_RV32 = $(shell riscv64-unknown-elf-gcc -march=rv32imac -mabi=ilp32 -print-libgcc-file-name)
# Where fw_jump starts the next stage and fw_payload carries it, above the
# firmware base: the same offsets as kJumpOffset in core/init.cpp.
ifeq ($(FW_XLEN),64)
FW_ARCH := -march=rv64imac_zicsr_zifencei -mabi=lp64
FW_JUMP_OFFSET := 0x200000
FW_LIBGCC :=
else
FW_ARCH := -march=rv32imac_zicsr_zifencei -mabi=ilp32
FW_JUMP_OFFSET := 0x400000
# 64-bit shifts, division and popcount on RV32 come from libgcc; Debian's
# Linux cross compiler ships only the RV64 one, the bare-metal toolchain
# (gcc-riscv64-unknown-elf) has the rv32imac/ilp32 multilib.
FW_LIBGCC = $(FW_LIBGCC_RV32)
endif
FW_COMMON := $(FW_ARCH) -mcmodel=medany -ffreestanding -nostdlib -fno-pic -fno-stack-protector \
	-fno-tree-loop-distribute-patterns -fno-asynchronous-unwind-tables -fno-unwind-tables \
	-ffunction-sections -fdata-sections -g -Wall -Wextra \
	-Ifirmware/include -Ifirmware/core -Ifirmware -I$(PLATFORM_DIR) -Iplatform -Ihw_models/trace -I$(LIBFDT_DIR) -I$(FW_BUILD)/compat
FW_CXXFLAGS = -std=c++20 $(FW_OPT) -fno-exceptions -fno-rtti -fno-threadsafe-statics \
	-Wno-missing-field-initializers -DTSBI_SUBSYSTEMS=$(FW_SUBSYSTEMS) $(FW_COMMON)
# libfdt (the only C): the device tree comes from the boot stage that loaded
# the firmware, as trusted as the firmware image, and core/init.cpp checks its
# header before anything reads it; so libfdt skips re-validating the blob and
# its own callers on every access (FDT_ASSUME_MASK: ASSUME_VALID_DTB |
# ASSUME_VALID_INPUT, libfdt_internal.h), a third of the cold boot.
FW_CFLAGS   := -std=gnu11 -Os $(FW_COMMON) -Wno-sign-compare -Wno-unused-parameter -DFDT_ASSUME_MASK=3
FW_LDFLAGS  := $(FW_ARCH) -nostdlib -static -Wl,--gc-sections -Wl,--build-id=none -Wl,-T,linker/firmware.ld \
	-Wl,--defsym=FW_JUMP_OFFSET=$(FW_JUMP_OFFSET)

FW_CORE_SRCS := $(filter-out firmware/core/image_%.cpp,$(wildcard firmware/core/*.cpp)) \
	$(filter-out firmware/core/image_%.S,$(wildcard firmware/core/*.S)) $(wildcard firmware/drivers/*.cpp) \
	$(filter-out firmware/sbi/pmu%.cpp firmware/sbi/trace.cpp,$(wildcard firmware/sbi/*.cpp)) \
	$(wildcard platform/generic/*.cpp) $(filter-out platform/generic/%,$(wildcard $(PLATFORM_DIR)/*.cpp))
ifeq ($(FW_SUBSYSTEMS),1)
FW_CORE_SRCS += $(wildcard firmware/sbi/pmu*.cpp firmware/pmu/*.cpp firmware/ctr/*.cpp) \
	firmware/sbi/trace.cpp $(wildcard firmware/trace/*.cpp)
endif
LIBFDT_SRCS := fdt.c fdt_ro.c fdt_rw.c fdt_wip.c fdt_sw.c fdt_strerror.c fdt_addresses.c
FW_OBJS := $(patsubst %,$(FW_BUILD)/%.o,$(FW_CORE_SRCS)) \
	$(patsubst %,$(FW_BUILD)/libfdt/%.o,$(LIBFDT_SRCS))

FW_CONFIG := $(CROSS) $(FW_KEY) $(FW_OPT) $(FW_CXXFLAGS) $(FW_CFLAGS) $(FW_LDFLAGS)
FW_STAMP  := $(FW_BUILD)/config
ifneq ($(FW_CONFIG),$(shell cat $(FW_STAMP) 2>/dev/null))
$(shell mkdir -p $(FW_BUILD) && echo '$(FW_CONFIG)' > $(FW_STAMP))
endif

$(LIBFDT_DIR)/libfdt.h:
	@scripts/fetch_libfdt.sh >/dev/null

# Debian's cross libc headers only carry the lp64d stubs; the firmware is
# built soft-float (no FP state in M-mode), and uses no glibc function.
FW_COMPAT := $(FW_BUILD)/compat/gnu/stubs-lp64.h $(FW_BUILD)/compat/gnu/stubs-ilp32.h
$(FW_COMPAT):
	@mkdir -p $(dir $@) && touch $@

$(FW_BUILD)/%.cpp.o: %.cpp $(FW_STAMP) | $(LIBFDT_DIR)/libfdt.h $(FW_COMPAT)
	@mkdir -p $(dir $@)
	$(CROSS)g++ $(FW_CXXFLAGS) -MMD -MP -c $< -o $@
$(FW_BUILD)/%.S.o: %.S $(FW_STAMP)
	@mkdir -p $(dir $@)
	$(CROSS)gcc $(FW_ARCH) -Ifirmware/core -Ifirmware/include -MMD -MP -c $< -o $@
$(FW_BUILD)/libfdt/%.c.o: $(LIBFDT_DIR)/libfdt.h $(FW_STAMP) | $(FW_COMPAT)
	@mkdir -p $(dir $@)
	$(CROSS)gcc $(FW_CFLAGS) -c $(LIBFDT_DIR)/$*.c -o $@

$(FW_BUILD)/tsbi_%.elf: $(FW_OBJS) $(FW_BUILD)/firmware/core/image_%.cpp.o linker/firmware.ld
	$(CROSS)g++ $(FW_LDFLAGS) -o $@ $(FW_OBJS) $(FW_BUILD)/firmware/core/image_$*.cpp.o $(FW_LIBGCC)
$(FW_BUILD)/tsbi_%.bin: $(FW_BUILD)/tsbi_%.elf
	$(CROSS)objcopy -O binary $< $@

# fw_payload, like OpenSBI's FW_PAYLOAD_PATH: FW_PAYLOAD=<image> (a raw
# binary: U-Boot's u-boot.bin, a Linux Image, ...) is linked into
# tsbi_payload.{elf,bin} at the fw_jump offset, and that image is the fw_jump
# one (it ignores a2: QEMU's fw_dynamic_info names no next stage without
# -kernel). The path is recorded like the flags, so naming another image
# relinks even when it is older than the last link.
FW_PAYLOAD ?=
ifneq ($(FW_PAYLOAD),)
FW_PAYLOAD_FILE  := $(abspath $(FW_PAYLOAD))
FW_PAYLOAD_STAMP := $(FW_BUILD)/payload
ifneq ($(FW_PAYLOAD_FILE),$(shell cat $(FW_PAYLOAD_STAMP) 2>/dev/null))
$(shell mkdir -p $(FW_BUILD) && echo '$(FW_PAYLOAD_FILE)' > $(FW_PAYLOAD_STAMP))
endif
$(FW_PAYLOAD_FILE):
	@echo "FW_PAYLOAD=$(FW_PAYLOAD): no such file" >&2; exit 1
$(FW_BUILD)/firmware/core/image_payload.S.o: firmware/core/image_payload.S $(FW_PAYLOAD_FILE) $(FW_PAYLOAD_STAMP) $(FW_STAMP)
	@mkdir -p $(dir $@)
	$(CROSS)gcc $(FW_ARCH) -DFW_PAYLOAD_PATH='"$(FW_PAYLOAD_FILE)"' -c $< -o $@
$(FW_BUILD)/tsbi_payload.elf: $(FW_OBJS) $(FW_BUILD)/firmware/core/image_jump.cpp.o \
		$(FW_BUILD)/firmware/core/image_payload.S.o linker/firmware.ld
	$(CROSS)g++ $(FW_LDFLAGS) -o $@ $(FW_OBJS) $(FW_BUILD)/firmware/core/image_jump.cpp.o \
		$(FW_BUILD)/firmware/core/image_payload.S.o $(FW_LIBGCC)
FW_PAYLOAD_IMAGES := $(FW_BUILD)/tsbi_payload.elf $(FW_BUILD)/tsbi_payload.bin
else
$(FW_BUILD)/tsbi_payload.elf:
	@echo "tsbi_payload needs the next stage: make firmware FW_PAYLOAD=<image>" >&2; exit 1
endif

.PHONY: firmware
firmware: $(FW_BUILD)/tsbi_dynamic.elf $(FW_BUILD)/tsbi_dynamic.bin \
	$(FW_BUILD)/tsbi_jump.elf $(FW_BUILD)/tsbi_jump.bin $(FW_PAYLOAD_IMAGES)

.SECONDARY: $(FW_OBJS) $(FW_BUILD)/firmware/core/image_dynamic.cpp.o $(FW_BUILD)/firmware/core/image_jump.cpp.o
$(patsubst %,$(FW_BUILD)/%.o,$(filter $(FW_HOT),$(FW_CORE_SRCS))): FW_OPT := -O2
-include $(FW_OBJS:.o=.d)
