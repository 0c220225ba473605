#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# tier: check-only
# make check's payload smoke: every S-mode payload (one per SBI extension,
# and the PMU's) once on 2 harts of Debian's QEMU 7.2 with Sscofpmf, against
# this firmware. make test runs all of these in more configurations (suites
# 20, 23, 25 and 60), so this suite is in make check alone.
. "$(dirname "$0")/../lib.sh"
build firmware payloads pmu-payloads
tests/payloads/run.py --fw ours --smp 2 --cpu sscofpmf=true --timeout 30 --tag smoke-smp2 \
  base time ipi rfence hsm dbcn legacy srst fwft susp dbtr sse reboot build/pmu/pmu.elf
[ $? -le 1 ] || fail "smoke: payload runner failed"
exit 0
