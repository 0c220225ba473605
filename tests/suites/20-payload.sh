#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# S-mode payloads (tests/payloads) against this firmware on 1 and 4 harts,
# with the variants that select other firmware paths (no Sstc, no H, the
# fw_jump image), then the same payloads against Debian's OpenSBI 1.1 as a
# comparison (PEER lines, never counted; its differences listed in
# tests/payloads/known-differences/ are marked "known"). QEMU is $QEMU or Debian's 7.2;
# TSBI_QEMU10=1 adds a run of this firmware on the project's QEMU 10
# (scripts/qemu10.sh, built on first use).
. "$(dirname "$0")/../lib.sh"
build firmware payloads
ALL="base time ipi rfence hsm dbcn legacy srst fwft susp dbtr sse reboot"
KNOWN=tests/payloads/known-differences/opensbi-1.1.txt
# Each run of this firmware also checks every hart's M-mode stack kept a
# margin (run.py --stack-report: case <payload>/stack_margin).
STACKS=build/test-logs/stacks-20-payload.txt; rm -f "$STACKS"
run() {
  tests/payloads/run.py --timeout "${TSBI_PAYLOAD_TIMEOUT:-15}" "$@"
  local rc=$?
  [ $rc -le 1 ] || fail "payload-runner ($*) exited $rc"
}
for smp in 1 4; do run --fw ours --smp $smp --stack-report "$STACKS" $ALL; done
# SSE's PMU overflow event needs Sscofpmf (not in QEMU 7.2's default CPU).
for smp in 1 4; do run --fw ours --smp $smp --cpu sscofpmf=true --tag ours-smp$smp-sscofpmf --stack-report "$STACKS" sse; done
# The SBI fuzzer (tests/payloads/fuzz.cpp): 10^5 calls from every hart, fixed
# seed; ours only (it checks this firmware's documented choices).
for smp in 1 4; do run --fw ours --smp $smp --stack-report "$STACKS" fuzz; done
run --fw ours --smp 2 --cpu sstc=false --tag ours-smp2-nosstc time hsm
run --fw ours --smp 2 --cpu h=false --tag ours-smp2-noh rfence
run --fw ours-jump --smp 4 base hsm reboot
if [ -n "${TSBI_QEMU10:-}" ]; then
  if q=$(scripts/qemu10.sh path); then
    QEMU=$q run --fw ours --smp 4 --tag ours-qemu10-smp4 $ALL fuzz
  else
    fail "payload/qemu10 (scripts/qemu10.sh path failed)"
  fi
fi
# The peer on 4 harts (its 1-hart answers add nothing to the comparison):
# PEER lines for build/test-logs/peers.md, never counted.
run --fw opensbi --smp 4 --tag opensbi-1.1-smp4 --known "$KNOWN" $ALL
stack_summary "$STACKS"
exit 0
