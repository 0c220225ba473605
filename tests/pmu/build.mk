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
