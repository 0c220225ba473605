# SPDX-License-Identifier: BSD-2-Clause
# Host unit tests of the firmware trace driver (firmware/trace: topology,
# driver, service) against the register-level TCI 1.0 fake (hw_models/tci);
# doctest, Debian's libfdt.
#
#   make trace-fw-host-tests     build/trace_fw/trace_fw_tests
TRACE_FW_BUILD := $(BUILD)/trace_fw
TRACE_FW_SRCS := $(sort $(wildcard tests/trace_fw/*.cpp)) hw_models/tci/tci_fake.cpp \
                 firmware/trace/topology.cpp firmware/trace/driver.cpp firmware/trace/service.cpp
TRACE_FW_DTBS := $(patsubst tests/trace_fw/data/%.dts,$(TRACE_FW_BUILD)/data/%.dtb,\
                 $(wildcard tests/trace_fw/data/*.dts))
TRACE_FW_DEPS := $(TRACE_FW_SRCS) $(wildcard tests/trace_fw/*.hpp hw_models/tci/*.hpp firmware/trace/*.hpp) \
                 hw_models/trace/tci_regs.def hw_models/trace/tci_regs.h $(TRACE_FW_DTBS)

$(TRACE_FW_BUILD)/data/%.dtb: tests/trace_fw/data/%.dts
	@mkdir -p $(@D)
	dtc -q -I dts -O dtb -o $@ $<
$(TRACE_FW_BUILD)/trace_fw_tests: $(TRACE_FW_DEPS)
	@mkdir -p $(@D)
	$(HOSTCXX) $(HOSTTEST_CXXFLAGS) -DTSBI_TRACE_HOST -Ifirmware/include -Ifirmware/trace -Ihw_models/trace \
		-Ihw_models/tci -Itests/trace_fw -DTRACE_FW_DATA='"$(abspath $(TRACE_FW_BUILD)/data)"' -o $@ \
		$(TRACE_FW_SRCS) -lfdt

.PHONY: trace-fw-host-tests
trace-fw-host-tests: $(TRACE_FW_BUILD)/trace_fw_tests
