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
	$(HOSTCXX) $(HOSTCXXFLAGS) -DPMU_HW_MODEL -Ifirmware/include -MMD -MP -c $< -o $@

$(PMU_HOST_BIN): $(PMU_HOST_OBJS)
	$(HOSTCXX) $(HOSTCXXFLAGS) -o $@ $^ -lfdt

.PHONY: pmu-host-tests
pmu-host-tests: $(PMU_HOST_BIN)

-include $(PMU_HOST_OBJS:.o=.d)

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
