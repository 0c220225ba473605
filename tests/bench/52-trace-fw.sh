#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# M-mode instructions per SBI trace start and stop (firmware/trace; aim:
# at most 2,000 per hart for each), on the project QEMU 10 with -icount
# shift=0, on one hart (under -icount QEMU runs the harts round-robin and
# the payload library's multi-hart start does not finish: also the case
# for the hsm payload, with any firmware).
. "$(dirname "$0")/../lib.sh"
if ! q=$(scripts/qemu10.sh path); then fail "bench/trace-fw: no project QEMU 10"; exit 1; fi
build firmware payloads
for smp in 1; do
  # The firmware keeps the components only when asked (the default hands
  # them to S-mode, firmware/trace/README.md): probe 0 without it.
  if out=$(tests/payloads/run.py --qemu "$q" --icount --smp "$smp" --tag "bench-trace-smp$smp" \
             --chosen tsbi,trace-owner=m-mode \
             --pass-through BENCH trace_bench); then
    pass "bench/trace-fw/smp$smp/ran"
  else
    echo "$out" | grep '^FAIL'; fail "bench/trace-fw/smp$smp/ran"
  fi
  echo "$out" | sed -n 's/^BENCH: /  /p'
done
