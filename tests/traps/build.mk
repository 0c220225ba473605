# SPDX-License-Identifier: BSD-2-Clause
# Trap-handling payload (uses the payload library of tests/payloads).
TRAPS_OUT := $(BUILD)/traps$(PL_SUFFIX)
$(TRAPS_OUT)/traps.o: tests/traps/traps.cpp
	@mkdir -p $(dir $@)
	$(CROSS)g++ $(PL_CXXFLAGS) -MMD -MP -c $< -o $@
$(TRAPS_OUT)/traps.elf: $(TRAPS_OUT)/traps.o $(PL_LIB_OBJS) $(PL_DIR)/lib/link.ld
	$(CROSS)g++ $(PL_LDFLAGS) -o $@ $< $(PL_LIB_OBJS) $(or $(PL_LIBGCC),-lgcc)
.PHONY: traps-payload
traps-payload: $(TRAPS_OUT)/traps.elf
-include $(TRAPS_OUT)/traps.d
