# SPDX-License-Identifier: BSD-2-Clause
# Control Transfer Records: host unit tests of the emulation and the
# draft-on-ratified translation (doctest), and the S-mode payloads.
#
#   make ctr-host-tests     build/ctr/ctr_tests (256-entry emulation)
CTR_BUILD := $(BUILD)/ctr
CTR_HOST_SRCS := $(sort $(wildcard tests/ctr/host/*.cpp)) firmware/ctr/ctr_emul.cpp \
                 firmware/ctr/ctr_dt.cpp
CTR_HOST_DEPS := $(CTR_HOST_SRCS) $(wildcard firmware/ctr/*.hpp hw_models/ctr/*.hpp \
                 tests/ctr/host/*.hpp) firmware/include/subsystem.hpp $(CTR_BUILD)/data/cpus.dtb

$(CTR_BUILD)/data/cpus.dtb: tests/ctr/host/data/cpus.dts
	@mkdir -p $(@D)
	dtc -q -I dts -O dtb -o $@ $<
$(CTR_BUILD)/ctr_tests: $(CTR_HOST_DEPS)
	@mkdir -p $(@D)
	$(HOSTCXX) $(HOSTTEST_CXXFLAGS) -DTSBI_CTR_EMU_ENTRIES=256 -Ifirmware/include -Ifirmware/ctr \
		-Ihw_models/ctr -DCTR_TEST_DATA='"$(abspath $(CTR_BUILD)/data)"' -o $@ \
		$(filter %.cpp,$(CTR_HOST_SRCS)) -lfdt

.PHONY: ctr-host-tests
ctr-host-tests: $(CTR_BUILD)/ctr_tests

# S-mode payloads (tests/ctr/payloads), linked with the payload library of
# tests/payloads (whose rules build its objects).
#   make ctr-payloads   build/ctr/pl/ctr_csr_{ratified,draft,both}.elf and
#                       build/ctr/pl/<name>.elf for the other payloads
CTR_PL_DIR  := tests/ctr/payloads
# PL_XLEN=32: RV32 builds next to them (tests/payloads/build.mk is read after
# this file, so its PL_SUFFIX is not known yet).
CTR_PL_SUFFIX := $(if $(filter-out 64,$(or $(PL_XLEN),64)),-rv$(PL_XLEN))
CTR_PL_OUT  := $(CTR_BUILD)/pl$(CTR_PL_SUFFIX)
CTR_PL_LIB  := $(patsubst tests/payloads/%,$(BUILD)/payloads$(CTR_PL_SUFFIX)/obj/%.o,\
                 $(wildcard tests/payloads/lib/*.cpp tests/payloads/lib/*.S))
CTR_PL_HDRS := $(wildcard $(CTR_PL_DIR)/*.hpp) firmware/ctr/ctr_spec.hpp tests/payloads/lib/payload.hpp
CTR_PL_PROGS := $(filter-out ctr_csr,$(basename $(notdir $(wildcard $(CTR_PL_DIR)/*.cpp))))
CTR_PL_ELFS := $(foreach p,ratified draft both,$(CTR_PL_OUT)/ctr_csr_$(p).elf) \
               $(CTR_PL_PROGS:%=$(CTR_PL_OUT)/%.elf)
ctr_profile_num = $(if $(filter ratified,$(1)),1,$(if $(filter draft,$(1)),2,3))

$(CTR_PL_OUT)/ctr_csr_%.o: $(CTR_PL_DIR)/ctr_csr.cpp $(CTR_PL_HDRS)
	@mkdir -p $(@D)
	$(CROSS)g++ $(PL_CXXFLAGS) -Ifirmware/ctr -DCTR_EXPECT=$(call ctr_profile_num,$*) -c $< -o $@
$(CTR_PL_PROGS:%=$(CTR_PL_OUT)/%.o): $(CTR_PL_OUT)/%.o: $(CTR_PL_DIR)/%.cpp $(CTR_PL_HDRS)
	@mkdir -p $(@D)
	$(CROSS)g++ $(PL_CXXFLAGS) -Ifirmware/ctr -c $< -o $@
$(CTR_PL_ELFS): $(CTR_PL_OUT)/%.elf: $(CTR_PL_OUT)/%.o $(CTR_PL_LIB) tests/payloads/lib/link.ld
	$(CROSS)g++ $(PL_LDFLAGS) -o $@ $< $(CTR_PL_LIB) $(PL_LIBGCC)

.PHONY: ctr-payloads
ctr-payloads: $(CTR_PL_ELFS)

# Bench firmware: the project firmware with ctr_hooks.cpp built with
# -DTSBI_CTR_BENCH (M-mode instructions inside the CTR hooks, readable from
# S-mode), for tests/bench/16-ctr.sh.
CTR_BENCH := $(CTR_BUILD)/bench
$(CTR_BENCH)/ctr_hooks.o: firmware/ctr/ctr_hooks.cpp $(wildcard firmware/ctr/*.hpp) \
		| $(LIBFDT_DIR)/libfdt.h $(FW_COMPAT)
	@mkdir -p $(@D)
	$(CROSS)g++ $(FW_CXXFLAGS) -DTSBI_CTR_BENCH -c $< -o $@
$(CTR_BENCH)/tsbi_dynamic.elf: $(filter-out %/ctr_hooks.cpp.o,$(FW_OBJS)) $(CTR_BENCH)/ctr_hooks.o \
		$(FW_BUILD)/firmware/core/image_dynamic.cpp.o linker/firmware.ld
	$(CROSS)g++ $(FW_LDFLAGS) -o $@ $(filter %.o,$^)
$(CTR_BENCH)/tsbi_dynamic.bin: $(CTR_BENCH)/tsbi_dynamic.elf
	$(CROSS)objcopy -O binary $< $@

.PHONY: ctr-bench-fw
ctr-bench-fw: $(CTR_BENCH)/tsbi_dynamic.bin
