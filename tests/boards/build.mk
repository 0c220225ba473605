# SPDX-License-Identifier: BSD-2-Clause
# The board probe (tests/boards/probe.cpp): the generic image's cold-boot
# initialisation (platform/generic, firmware/drivers, the core's and the PMU's
# device-tree code) compiled for the host, run by suite 12 on every board DTB.
BOARD_PROBE_SRCS := tests/boards/probe.cpp $(wildcard firmware/drivers/*.cpp) firmware/core/dt.cpp \
	firmware/pmu/dt.cpp $(wildcard platform/generic/*.cpp)
$(BUILD)/host/board_probe: $(BOARD_PROBE_SRCS) firmware/drivers/drivers.hpp firmware/core/dt.hpp \
		firmware/pmu/dt.hpp platform/platform.hpp $(wildcard platform/generic/*.hpp) \
		tests/host/mmio_fake.hpp tests/host/i2c_models.hpp
	@mkdir -p $(dir $@)
	$(HOSTCXX) $(HOSTCXXFLAGS) -Ifirmware -Ifirmware/include -Iplatform -Iplatform/generic \
		-o $@ $(BOARD_PROBE_SRCS) -lfdt
.PHONY: board-probe
board-probe: $(BUILD)/host/board_probe
