# SPDX-License-Identifier: BSD-2-Clause
# S-mode test payloads (tests/payloads/README.md).
#   make payloads   build/payloads/<name>.elf for every tests/payloads/<name>.cpp,
#                   plus build/payloads/bench.elf from tests/payloads/bench/*.cpp
#   make payloads PL_XLEN=32   the same sources for RV32 in build/payloads-rv32/,
#                   linked at RAM base + 4 MiB (the RV32 fw_jump convention)
PL_DIR   := tests/payloads
PL_XLEN  ?= 64
ifeq ($(PL_XLEN),64)
PL_SUFFIX :=
PL_OUT   := $(BUILD)/payloads
PL_ARCH  := -march=rv64imac_zicsr_zifencei -mabi=lp64
PL_BASE  := 0x80200000
PL_LIBGCC :=
else
# Other payload builds (tests/pmu, tests/traps) add PL_SUFFIX to their folder.
PL_SUFFIX := -rv$(PL_XLEN)
PL_OUT   := $(BUILD)/payloads$(PL_SUFFIX)
PL_ARCH  := -march=rv32imac_zicsr_zifencei -mabi=ilp32
PL_BASE  := 0x80400000
PL_LIBGCC = $(FW_LIBGCC_RV32)
endif
PL_FLAGS := $(PL_ARCH) -mcmodel=medany -ffreestanding -nostdlib -fno-pic -fno-stack-protector \
	-fno-asynchronous-unwind-tables -fno-unwind-tables -fno-tree-loop-distribute-patterns \
	-g -Wall -Wextra -I$(PL_DIR)/lib -Ifirmware/include -Ifirmware -Ihw_models/trace
PL_CXXFLAGS := -std=c++20 -O2 -fno-toplevel-reorder -fno-exceptions -fno-rtti -fno-threadsafe-statics $(PL_FLAGS)
PL_LDFLAGS  := $(PL_ARCH) -nostdlib -static -no-pie -Wl,--defsym=PL_BASE=$(PL_BASE) -Wl,-T,$(PL_DIR)/lib/link.ld -Wl,--no-relax -Wl,--no-warn-rwx-segments -Wl,--build-id=none

PL_LIB_SRCS   := $(wildcard $(PL_DIR)/lib/*.cpp $(PL_DIR)/lib/*.S)
PL_PROGS      := $(basename $(notdir $(wildcard $(PL_DIR)/*.cpp)))
# Not ported to RV32 yet (64-bit register layouts and constants; README).
PL_NOT_RV32   := fuzz trace trace_bench strc
ifneq ($(PL_XLEN),64)
PL_PROGS      := $(filter-out $(PL_NOT_RV32),$(PL_PROGS))
endif
PL_BENCH_SRCS := $(wildcard $(PL_DIR)/bench/*.cpp)

pl_obj = $(patsubst $(PL_DIR)/%,$(PL_OUT)/obj/%.o,$(1))
PL_LIB_OBJS   := $(call pl_obj,$(PL_LIB_SRCS))
PL_BENCH_OBJS := $(call pl_obj,$(PL_BENCH_SRCS))
PL_PROG_OBJS  := $(call pl_obj,$(PL_PROGS:%=$(PL_DIR)/%.cpp))
PL_ELFS       := $(PL_PROGS:%=$(PL_OUT)/%.elf) $(PL_OUT)/bench.elf

$(filter %.cpp.o,$(PL_LIB_OBJS) $(PL_BENCH_OBJS) $(PL_PROG_OBJS)): $(PL_OUT)/obj/%.cpp.o: $(PL_DIR)/%.cpp
	@mkdir -p $(dir $@)
	$(CROSS)g++ $(PL_CXXFLAGS) -MMD -MP -c $< -o $@
$(filter %.S.o,$(PL_LIB_OBJS)): $(PL_OUT)/obj/%.S.o: $(PL_DIR)/%.S
	@mkdir -p $(dir $@)
	$(CROSS)gcc $(PL_ARCH) -I$(PL_DIR)/lib -MMD -MP -c $< -o $@

$(PL_PROGS:%=$(PL_OUT)/%.elf): $(PL_OUT)/%.elf: $(PL_OUT)/obj/%.cpp.o $(PL_LIB_OBJS) $(PL_DIR)/lib/link.ld
	$(CROSS)g++ $(PL_LDFLAGS) -o $@ $< $(PL_LIB_OBJS) $(PL_LIBGCC)
$(PL_OUT)/bench.elf: $(PL_BENCH_OBJS) $(PL_LIB_OBJS) $(PL_DIR)/lib/link.ld
	$(CROSS)g++ $(PL_LDFLAGS) -o $@ $(PL_BENCH_OBJS) $(PL_LIB_OBJS) $(PL_LIBGCC)

.PHONY: payloads
payloads: $(PL_ELFS)

-include $(wildcard $(PL_OUT)/obj/*.d $(PL_OUT)/obj/*/*.d)

# SBI conformance report for any firmware (tests/payloads/conformance.py):
#   make conformance FW=<image>|ours|opensbi-1.1|opensbi-1.6 [QEMU=<binary>] [SMP=<n>]
#                    [CPU=<props>] [STRICT_TSBI=1] [NAME=<report name>]
# writes build/conformance/<name>/{report.md,junit.xml,summary.json}.
# make conformance-peers: ours, OpenSBI 1.1 and 1.6, and the side-by-side
# table build/conformance/peers.md (README "SBI conformance").
.PHONY: conformance conformance-peers
conformance: firmware payloads pmu-payloads
	@test -n "$(FW)" || { echo "usage: make conformance FW=<image>|ours|opensbi-1.1|opensbi-1.6 [QEMU=..] [SMP=..] [CPU=..] [STRICT_TSBI=1]" >&2; exit 2; }
	$(PL_DIR)/conformance.py --fw $(FW) $(if $(QEMU),--qemu $(QEMU)) $(if $(SMP),--smp $(SMP)) \
	  $(if $(CPU),--cpu $(CPU)) $(if $(STRICT_TSBI),--strict-tsbi) $(if $(NAME),--name $(NAME))
conformance-peers: firmware payloads pmu-payloads
	for fw in ours opensbi-1.1 opensbi-1.6; do \
	  $(PL_DIR)/conformance.py --fw $$fw $(if $(QEMU),--qemu $(QEMU)) || exit 1; done
	$(PL_DIR)/conformance.py --compare $(BUILD)/conformance/ours $(BUILD)/conformance/opensbi-1.1 \
	  $(BUILD)/conformance/opensbi-1.6 > $(BUILD)/conformance/peers.md
	@cat $(BUILD)/conformance/peers.md
