#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Cost of CTR records taken from the hart's N-Trace encoder (project QEMU 10
# without smctr, -icount shift=0, 1 hart, the bench firmware whose CTR hooks
# count the M-mode instructions they retire, decoding included):
#   per_transfer_*   M-mode instructions per recorded transfer (aim: <= 300)
#   read_entry_*     one entry read the way Linux reads it (select + 3
#                    registers): roundtrip / inside the CTR hooks, while
#                    frozen (Linux reads after the overflow froze CTR) and
#                    while recording (every read collects the trace)
. "$(dirname "$0")/../lib.sh"
build ctr-bench-fw ctr-payloads
Q10=$(scripts/qemu10.sh path 2>build/test-logs/ctr-trace-bench-qemu10.log) || {
  cat build/test-logs/ctr-trace-bench-qemu10.log; fail "bench/ctr-trace: project QEMU 10"; exit 1; }
out=build/test-logs/bench-ctr-trace; mkdir -p "$out"
if tests/payloads/run.py --qemu "$Q10" --fw build/ctr/bench/tsbi_dynamic.bin --icount --smp 1 \
     --tag bench-ctr-trace --pass-through BENCH --timeout 120 --chosen tsbi,trace-owner=m-mode \
     build/ctr/pl/ctr_trace_bench.elf \
     > "$out/q10-encoder.txt"; then
  pass "bench/ctr-trace/ran"
else
  grep '^FAIL' "$out/q10-encoder.txt"; fail "bench/ctr-trace/ran"
fi
echo
echo "CTR from the encoder, M-mode instructions (QEMU 10 -icount shift=0)"
grep '^BENCH: ' "$out/q10-encoder.txt" | sed 's/^BENCH: /  /'
worst=$(sed -n 's/^BENCH: per_transfer_[^|]*| *//p' "$out/q10-encoder.txt" | sort -n | tail -1)
if [ -z "$worst" ]; then fail "bench/ctr-trace/aim_300_per_transfer (no data)"
elif awk -v w="$worst" 'BEGIN { exit !(w <= 300) }'; then pass "bench/ctr-trace/aim_300_per_transfer ($worst)"
else fail "bench/ctr-trace/aim_300_per_transfer ($worst > 300)"; fi
