# SPDX-License-Identifier: BSD-2-Clause
# Trace codecs (N-Trace, E-Trace data trace, tandem verification), their CLI,
# doctest tests and libFuzzer targets.
#   make trace          library + build/trace/tsbi-trace
#   make trace-tests    build/trace/trace-tests (doctest)
#   make trace-fuzz     build/trace/fuzz/* (clang, ASan+UBSan+libFuzzer)
#   make trace-bench    build/trace/trace-bench (run by tests/bench/40-trace.sh)
#   make trace-fuzz-long FUZZ_SECONDS=600   run every fuzz target for longer
TRACE_DIR := hw_models/trace
TRACE_OUT := $(BUILD)/trace
TRACE_TDIR := tests/trace
TRACE_CXXFLAGS := $(HOSTCXXFLAGS) -I$(TRACE_DIR) -MMD -MP
TRACE_LIB_SRCS := $(filter-out $(TRACE_DIR)/cli.cpp,$(wildcard $(TRACE_DIR)/*.cpp))
TRACE_LIB_OBJS := $(patsubst $(TRACE_DIR)/%.cpp,$(TRACE_OUT)/obj/%.o,$(TRACE_LIB_SRCS))
TRACE_TEST_SRCS := $(wildcard $(TRACE_TDIR)/test_*.cpp)
TRACE_BENCH := $(TRACE_OUT)/trace-bench
TRACE_TEST_OBJS := $(patsubst $(TRACE_TDIR)/%.cpp,$(TRACE_OUT)/tobj/%.o,$(TRACE_TEST_SRCS))
TRACE_FUZZ_SRCS := $(wildcard $(TRACE_TDIR)/fuzz_*.cpp)
TRACE_FUZZ_BINS := $(patsubst $(TRACE_TDIR)/%.cpp,$(TRACE_OUT)/fuzz/%,$(TRACE_FUZZ_SRCS))
TRACE_LIBS := -lelf
FUZZ_CXX ?= clang++
FUZZ_SECONDS ?= 300

.PHONY: trace trace-tests trace-fuzz trace-fuzz-long trace-bench
trace-bench: $(TRACE_BENCH)
trace: $(TRACE_OUT)/tsbi-trace
trace-tests: $(TRACE_OUT)/trace-tests
trace-fuzz: $(TRACE_FUZZ_BINS)

$(TRACE_OUT)/obj/%.o: $(TRACE_DIR)/%.cpp
	@mkdir -p $(@D)
	$(HOSTCXX) $(TRACE_CXXFLAGS) -c $< -o $@

$(TRACE_OUT)/tobj/%.o: $(TRACE_TDIR)/%.cpp
	@mkdir -p $(@D)
	$(HOSTCXX) $(HOSTTEST_CXXFLAGS) -I$(TRACE_DIR) -MMD -MP -I$(TRACE_TDIR) -c $< -o $@

$(TRACE_OUT)/libtsbitrace.a: $(TRACE_LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(TRACE_OUT)/tsbi-trace: $(TRACE_OUT)/obj/cli.o $(TRACE_OUT)/libtsbitrace.a
	$(HOSTCXX) $(HOSTCXXFLAGS) -o $@ $^ $(TRACE_LIBS)

$(TRACE_OUT)/trace-tests: $(TRACE_TEST_OBJS) $(TRACE_OUT)/libtsbitrace.a
	$(HOSTCXX) $(HOSTCXXFLAGS) -o $@ $^ $(TRACE_LIBS)

# The benchmark measures speed: built as the tools are, not as the tests.
$(TRACE_OUT)/tobj/bench_ntrace.o: HOSTTEST_CXXFLAGS = $(HOSTCXXFLAGS)
$(TRACE_BENCH): $(TRACE_OUT)/tobj/bench_ntrace.o $(TRACE_OUT)/libtsbitrace.a
	$(HOSTCXX) $(HOSTCXXFLAGS) -o $@ $^ $(TRACE_LIBS)

# Fuzz targets: the library compiled once with the sanitizers (and libFuzzer coverage),
# each target linked with -fsanitize=fuzzer.
TRACE_FUZZ_FLAGS := -std=c++20 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -I$(TRACE_DIR) -MMD -MP
TRACE_FUZZ_OBJS := $(patsubst $(TRACE_DIR)/%.cpp,$(TRACE_OUT)/fuzzobj/%.o,$(TRACE_LIB_SRCS))
$(TRACE_OUT)/fuzzobj/%.o: $(TRACE_DIR)/%.cpp
	@mkdir -p $(@D)
	$(FUZZ_CXX) $(TRACE_FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(TRACE_OUT)/fuzz/%: $(TRACE_TDIR)/%.cpp $(TRACE_FUZZ_OBJS)
	@mkdir -p $(@D)
	$(FUZZ_CXX) $(TRACE_FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(TRACE_FUZZ_OBJS) $(TRACE_LIBS)

trace-fuzz-long: $(TRACE_FUZZ_BINS)
	@for f in $(TRACE_FUZZ_BINS); do \
	  mkdir -p $(TSBI_CACHE)/fuzz-corpus/$$(basename $$f); \
	  echo "fuzzing $$f for $(FUZZ_SECONDS) s"; \
	  $$f -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=512 -timeout=5 \
	    $(TSBI_CACHE)/fuzz-corpus/$$(basename $$f) || exit 1; \
	done

-include $(TRACE_LIB_OBJS:.o=.d) $(TRACE_TEST_OBJS:.o=.d) $(TRACE_OUT)/obj/cli.d $(TRACE_OUT)/tobj/bench_ntrace.d $(TRACE_FUZZ_OBJS:.o=.d)

# The Trace Control Interface register map as shell assignments (tci_regs.def).
trace: $(TRACE_OUT)/tci_sh
$(TRACE_OUT)/tci_sh: $(TRACE_DIR)/tci_sh.c $(TRACE_DIR)/tci_regs.def
	@mkdir -p $(@D)
	cc -O1 -Wall -o $@ $<
