# SPDX-License-Identifier: BSD-2-Clause
# Host unit tests of the firmware core (doctest, Debian's libfdt).
HOSTTEST_BUILD := $(BUILD)/host
$(HOSTTEST_BUILD)/edge.dtb: tests/host/data/edge.dts
	@mkdir -p $(dir $@)
	dtc -q -I dts -O dtb -o $@ $<
# QEMU 7.2's own virt device tree, 4 harts.
$(HOSTTEST_BUILD)/qemu-virt.dtb:
	@mkdir -p $(dir $@)
	qemu-system-riscv64 -M virt,dumpdtb=$@ -smp 4 -m 256M -nographic >/dev/null
# The same with 64 harts (one-pass fix-ups of many cpu nodes).
$(HOSTTEST_BUILD)/qemu-virt-64.dtb:
	@mkdir -p $(dir $@)
	qemu-system-riscv64 -M virt,dumpdtb=$@ -smp 64 -m 256M -nographic >/dev/null
# QEMU 7.2's spike (4 harts) and sifive_u (5 harts: the E51 and 4 U54s).
$(HOSTTEST_BUILD)/qemu-spike.dtb:
	@mkdir -p $(dir $@)
	qemu-system-riscv64 -M spike,dumpdtb=$@ -smp 4 -nographic >/dev/null
$(HOSTTEST_BUILD)/qemu-sifive_u.dtb:
	@mkdir -p $(dir $@)
	qemu-system-riscv64 -M sifive_u,dumpdtb=$@ -smp 5 -nographic >/dev/null
# Trees of board devices QEMU has not (tests/host/data).
HOSTTEST_BOARD_DTBS := $(patsubst tests/host/data/%.dts,$(HOSTTEST_BUILD)/%.dtb,\
	$(filter-out %/edge.dts,$(wildcard tests/host/data/*.dts)))
$(HOSTTEST_BOARD_DTBS): $(HOSTTEST_BUILD)/%.dtb: tests/host/data/%.dts
	@mkdir -p $(dir $@)
	dtc -q -I dts -O dtb -o $@ $<
HOSTTEST_DRIVERS := $(wildcard firmware/drivers/*.cpp)
$(HOSTTEST_BUILD)/test_drivers: tests/host/test_drivers.cpp $(HOSTTEST_DRIVERS) firmware/drivers/drivers.hpp tests/host/mmio_fake.hpp tests/host/i2c_models.hpp \
		$(HOSTTEST_BUILD)/qemu-virt.dtb $(HOSTTEST_BUILD)/qemu-spike.dtb $(HOSTTEST_BUILD)/qemu-sifive_u.dtb \
		$(HOSTTEST_BOARD_DTBS)
	$(HOSTCXX) $(HOSTTEST_CXXFLAGS) -Ifirmware -Ifirmware/include -Ifirmware/drivers \
		-DTEST_DATA_DIR='"$(abspath $(HOSTTEST_BUILD))"' -o $@ tests/host/test_drivers.cpp \
		$(HOSTTEST_DRIVERS) -lfdt -lpthread
$(HOSTTEST_BUILD)/test_core: tests/host/test_core.cpp firmware/core/dt.cpp firmware/core/dt.hpp \
		firmware/sbi/hartmask.hpp firmware/core/insn_decode.hpp firmware/core/hart_enables.hpp firmware/core/fw_region.hpp firmware/core/hartmap.hpp \
		firmware/include/riscv/csr.hpp firmware/include/riscv/csr_safe.hpp hw_models/trace/strc_regs.h $(HOSTTEST_BUILD)/edge.dtb $(HOSTTEST_BUILD)/qemu-virt.dtb \
		firmware/include/fdt_walk.hpp firmware/include/fdt_edit.hpp $(HOSTTEST_BUILD)/qemu-virt-64.dtb \
		$(HOSTTEST_BUILD)/qemu-spike.dtb $(HOSTTEST_BUILD)/qemu-sifive_u.dtb
	$(HOSTCXX) $(HOSTTEST_CXXFLAGS) -Ifirmware -Ifirmware/include -Ifirmware/core \
		-DTEST_DATA_DIR='"$(abspath $(HOSTTEST_BUILD))"' -o $@ tests/host/test_core.cpp \
		firmware/core/dt.cpp -lfdt
$(HOSTTEST_BUILD)/test_dbtr: tests/host/test_dbtr.cpp firmware/sbi/dbtr_logic.hpp
	@mkdir -p $(dir $@)
	$(HOSTCXX) $(HOSTTEST_CXXFLAGS) -Ifirmware -Ifirmware/include -o $@ tests/host/test_dbtr.cpp
$(HOSTTEST_BUILD)/test_sse: tests/host/test_sse.cpp firmware/sbi/sse_events.hpp
	@mkdir -p $(dir $@)
	$(HOSTCXX) $(HOSTTEST_CXXFLAGS) -Ifirmware -Ifirmware/include -o $@ tests/host/test_sse.cpp
.PHONY: host-tests
host-tests: $(HOSTTEST_BUILD)/test_drivers $(HOSTTEST_BUILD)/test_core $(HOSTTEST_BUILD)/test_dbtr $(HOSTTEST_BUILD)/test_sse
