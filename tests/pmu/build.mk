# SPDX-License-Identifier: BSD-2-Clause
# PMU: host unit tests of the firmware's PMU service (firmware/pmu, the SBI
# handler in firmware/sbi/pmu.cpp) against the hart model in hw_models/hart.
PMU_HOST_BIN := $(BUILD)/pmu/host/pmu_tests
PMU_HOST_SRCS := firmware/pmu/service.cpp firmware/pmu/dt.cpp firmware/sbi/pmu.cpp \
	hw_models/hart/pmu_hart.cpp hw_models/hart/pmu_hw_host.cpp \
	$(sort $(wildcard tests/pmu/host/*.cpp))
PMU_HOST_OBJS := $(patsubst %.cpp,$(BUILD)/pmu/host/obj/%.o,$(PMU_HOST_SRCS))

$(BUILD)/pmu/host/obj/%.o: %.cpp
	@mkdir -p $(dir $@)
	$(HOSTCXX) $(HOSTTEST_CXXFLAGS) -DPMU_HW_MODEL -DPMU_HOST_XLEN=64 -Ifirmware/include -MMD -MP -c $< -o $@

$(PMU_HOST_BIN): $(PMU_HOST_OBJS)
	$(HOSTCXX) $(HOSTTEST_CXXFLAGS) -o $@ $^ -lfdt

# The same sources as a 32-bit x86 program (g++ -m32, Debian's g++-12-multilib):
# unsigned long and uintptr_t are 32 bits wide, as in the RV32 firmware, and
# the hart model is an RV32 hart (CSR halves, no 8-byte memory accesses).
# Debian's libfdt-dev is 64-bit only, so libfdt is built here from the dtc
# source the firmware uses. The kernel's <asm/...> headers for -m32 are
# x86_64-linux-gnu/asm (biarch); gcc-multilib would link /usr/include/asm to
# them, but it conflicts with Debian's riscv64 cross compilers, so the link
# lives in this build's own include directory instead.
PMU_HOST32_BIN := $(BUILD)/pmu/host32/pmu_tests
PMU_HOST32_ASM := $(BUILD)/pmu/host32/include/asm
PMU_HOST32_FLAGS := -m32 -idirafter $(dir $(PMU_HOST32_ASM))
PMU_HOST32_OBJS := $(patsubst %.cpp,$(BUILD)/pmu/host32/obj/%.o,$(PMU_HOST_SRCS))
PMU_HOST32_FDT := $(patsubst %,$(BUILD)/pmu/host32/libfdt/%.o,$(LIBFDT_SRCS))

$(PMU_HOST32_ASM):
	@mkdir -p $(dir $@)
	ln -sfn /usr/include/$(shell $(HOSTCC) -print-multiarch)/asm $@
$(BUILD)/pmu/host32/obj/%.o: %.cpp | $(LIBFDT_DIR)/libfdt.h $(PMU_HOST32_ASM)
	@mkdir -p $(dir $@)
	$(HOSTCXX) $(PMU_HOST32_FLAGS) $(HOSTTEST_CXXFLAGS) -DPMU_HW_MODEL -DPMU_HOST_XLEN=32 -Ifirmware/include \
		-I$(LIBFDT_DIR) -MMD -MP -c $< -o $@
$(BUILD)/pmu/host32/libfdt/%.c.o: $(LIBFDT_DIR)/libfdt.h | $(PMU_HOST32_ASM)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(PMU_HOST32_FLAGS) -O2 -g -c $(LIBFDT_DIR)/$*.c -o $@

$(PMU_HOST32_BIN): $(PMU_HOST32_OBJS) $(PMU_HOST32_FDT)
	$(HOSTCXX) $(PMU_HOST32_FLAGS) $(HOSTTEST_CXXFLAGS) -o $@ $^

.PHONY: pmu-host-tests pmu-host32-tests
pmu-host-tests: $(PMU_HOST_BIN)
pmu-host32-tests: $(PMU_HOST32_BIN)

-include $(PMU_HOST_OBJS:.o=.d) $(PMU_HOST32_OBJS:.o=.d)

# S-mode payloads (tests/pmu/payloads/<name>.cpp -> build/pmu/<name>.elf),
# linked with the payload library of tests/payloads (its build.mk is read
# first: PL_* variables).
PMU_PL_SRCS := $(wildcard tests/pmu/payloads/*.cpp)
PMU_PL_OUT  := $(BUILD)/pmu$(PL_SUFFIX)
PMU_PL_ELFS := $(patsubst tests/pmu/payloads/%.cpp,$(PMU_PL_OUT)/%.elf,$(PMU_PL_SRCS))

$(PMU_PL_OUT)/obj/%.o: tests/pmu/payloads/%.cpp
	@mkdir -p $(dir $@)
	$(CROSS)g++ $(PL_CXXFLAGS) -MMD -MP -c $< -o $@
$(PMU_PL_OUT)/%.elf: $(PMU_PL_OUT)/obj/%.o $(PL_LIB_OBJS) $(PL_DIR)/lib/link.ld
	$(CROSS)g++ $(PL_LDFLAGS) -o $@ $< $(PL_LIB_OBJS) $(PL_LIBGCC)

.PHONY: pmu-payloads
pmu-payloads: $(PMU_PL_ELFS)

-include $(wildcard $(PMU_PL_OUT)/obj/*.d)
