# SPDX-License-Identifier: BSD-2-Clause
# Top-level build. Each component adds its targets in its own build.mk;
# `make test` and `make bench` run the suites in tests/suites and tests/bench.
BUILD      ?= build
CROSS      ?= riscv64-linux-gnu-
HOSTCXX    ?= g++
HOSTCC     ?= gcc
HOSTCXXFLAGS ?= -std=c++20 -O2 -g -Wall -Wextra
# The doctest programs (tests/host, tests/pmu, tests/ctr, tests/trace_fw, the
# trace codecs' tests): -O1. Their expanded CHECK macros make -O2 take twice
# the compile time of -O1 (test_core.cpp: 22 s against 11 s of CPU) for test
# runs of a few seconds; the tools and models they drive keep HOSTCXXFLAGS.
HOSTTEST_CXXFLAGS ?= $(patsubst -O2,-O1,$(HOSTCXXFLAGS))
export TSBI_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/tsbi

# Bootstrap first, by construction: every goal but `clean` needs the host
# packages (the cross compiler, QEMU, readelf, dtc...), and a prerequisite
# named `bootstrap` would run beside the others under `make -j`. So the
# top-level make installs what is missing while it reads this file, before it
# runs any rule; the makes it starts (and the tests' makes) inherit
# TSBI_BOOTSTRAPPED and skip it.
ifndef TSBI_BOOTSTRAPPED
ifneq ($(filter-out clean,$(or $(MAKECMDGOALS),all)),)
$(shell scripts/bootstrap.sh >&2)
ifneq ($(.SHELLSTATUS),0)
$(error scripts/bootstrap.sh failed: the packages above are needed)
endif
export TSBI_BOOTSTRAPPED := 1
endif
endif

.PHONY: all test check bench run bootstrap clean
all: firmware

bootstrap:
	@scripts/bootstrap.sh

# `make test` and `make check` test every configuration themselves (both XLENs,
# the core-only image, the quirk port, fw_jump, fw_payload); a build knob
# given to them would not change what they test, so it is refused rather
# than ignored.
TEST_REFUSED_KNOBS := $(strip $(foreach v,PLATFORM PLATFORM_DIR FW_XLEN FW_SUBSYSTEMS FW_PAYLOAD BUILD FW_BUILD,$(if $(filter command line,$(origin $(v))),$(v))))
define test_knob_check
$(if $(TEST_REFUSED_KNOBS),@echo "make $(1): $(TEST_REFUSED_KNOBS) not honoured: the suites build and test every configuration themselves; use 'make firmware $(foreach v,$(TEST_REFUSED_KNOBS),$(v)=$($(v)))' and 'make conformance FW=<image>' for one image" >&2; exit 2)
endef

test:
	$(call test_knob_check,test)
	@tests/run_all.sh suites

check:
	$(call test_knob_check,check)
	@tests/run_all.sh check

bench:
	@tests/run_all.sh bench

clean:
	rm -rf $(BUILD)

# firmware/build.mk sets PLATFORM; only the selected platform's build.mk (if it
# has one) is read.
include firmware/build.mk
-include $(PLATFORM_DIR)/build.mk
include $(sort $(wildcard hw_models/*/build.mk tests/*/build.mk))
