#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# N-Trace encoder/decoder throughput (retired instructions per second, one core) and
# compression (bits per instruction) for BTM, HTM and HTM + implicit return + repeated
# history on 10^7 generated instructions; the decode is checked against the generator.
. "$(dirname "$0")/../lib.sh"
build trace-bench
check "ntrace bench (10^7 instructions, decode verified)" build/trace/trace-bench "${TSBI_TRACE_BENCH_N:-10000000}"
