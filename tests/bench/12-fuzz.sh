#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The long SBI fuzz run (tests/payloads/fuzz.cpp): 10^6 calls with the fixed
# seed on 1 hart and from every hart of 4, against this firmware; prints the
# fuzzer's counts (calls per extension and FID, error codes, restricted
# calls, time). FUZZ_CALLS / FUZZ_SEED override the defaults.
. "$(dirname "$0")/../lib.sh"
build firmware payloads
calls=${FUZZ_CALLS:-1000000}
seed=${FUZZ_SEED:-0x7473626946555a5a}
out=build/test-logs/bench-fuzz; mkdir -p "$out"
for smp in 1 4; do
  if tests/payloads/run.py --fw ours --smp $smp --tag "bench-fuzz-smp$smp" \
       --timeout "${TSBI_FUZZ_TIMEOUT:-180}" --pass-through "FUZZ" \
       --qemu-arg=-append --qemu-arg="fuzz.calls=$calls fuzz.seed=$seed" fuzz > "$out/smp$smp.txt"; then
    pass "bench/fuzz/smp$smp/$calls-calls"
  else
    grep '^FAIL' "$out/smp$smp.txt"; fail "bench/fuzz/smp$smp/$calls-calls"
  fi
  echo "SBI fuzz, $smp hart(s), $calls calls, seed $seed:"
  grep '^FUZZ' "$out/smp$smp.txt" | sed 's/^FUZZ: /  /'
done
