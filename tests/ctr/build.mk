# SPDX-License-Identifier: BSD-2-Clause
# Control Transfer Records: host unit tests of the emulation and the
# draft-on-ratified translation (doctest), and the S-mode payloads.
#
#   make ctr-host-tests     build/ctr/ctr_tests (256-entry emulation)
CTR_BUILD := $(BUILD)/ctr
CTR_HOST_SRCS := $(sort $(wildcard tests/ctr/host/*.cpp)) firmware/ctr/ctr_emul.cpp
CTR_HOST_DEPS := $(CTR_HOST_SRCS) $(wildcard firmware/ctr/*.hpp hw_models/ctr/*.hpp \
                 tests/ctr/host/*.hpp) firmware/include/hooks.hpp

$(CTR_BUILD)/ctr_tests: $(CTR_HOST_DEPS)
	@mkdir -p $(@D)
	$(HOSTCXX) $(HOSTCXXFLAGS) -DTSBI_CTR_EMU_ENTRIES=256 -Ifirmware/include -Ifirmware/ctr \
		-Ihw_models/ctr -o $@ $(CTR_HOST_SRCS)

.PHONY: ctr-host-tests
ctr-host-tests: $(CTR_BUILD)/ctr_tests
