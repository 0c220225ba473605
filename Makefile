# SPDX-License-Identifier: BSD-2-Clause
# Top-level build. Each component adds its targets in its own build.mk;
# `make test` and `make bench` run the suites in tests/suites and tests/bench.
BUILD      ?= build
CROSS      ?= riscv64-linux-gnu-
HOSTCXX    ?= g++
HOSTCC     ?= gcc
HOSTCXXFLAGS ?= -std=c++20 -O2 -g -Wall -Wextra
export TSBI_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/tsbi

.PHONY: all test bench run bootstrap clean
all: firmware

bootstrap:
	@scripts/bootstrap.sh

run: bootstrap

test: bootstrap
	@tests/run_all.sh suites

bench: bootstrap
	@tests/run_all.sh bench

clean:
	rm -rf $(BUILD)

# firmware/build.mk sets PLATFORM; only the selected platform's build.mk (if it
# has one) is read.
include firmware/build.mk
-include $(PLATFORM_DIR)/build.mk
include $(sort $(wildcard hw_models/*/build.mk tests/*/build.mk))
