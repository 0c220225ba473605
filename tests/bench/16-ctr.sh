#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# M-mode instructions per CTR CSR access the firmware serves (QEMU -icount
# shift=0, 1 hart), with the bench build of the firmware (tests/ctr/build.mk:
# ctr_hooks.cpp with TSBI_CTR_BENCH counts the instructions retired inside
# the CTR hooks). Configurations: emulated CTR on QEMU 7.2 and on QEMU 10
# without CTR; QEMU 10 with Smctr, where only the draft layout traps.
#   roundtrip = M-mode instructions per access (trap entry, the core's
#               decoder, CTR, return)
#   ctr       = of which inside the CTR hooks (aim: <= 60 per access)
. "$(dirname "$0")/../lib.sh"
build ctr-bench-fw ctr-payloads
Q72=$(command -v qemu-system-riscv64) || { fail "bench/ctr: qemu 7.2 not installed"; exit 1; }
Q10=$(scripts/qemu10.sh path 2>build/test-logs/ctr-bench-qemu10.log) || {
  cat build/test-logs/ctr-bench-qemu10.log; fail "bench/ctr: project QEMU 10"; exit 1; }
out=build/test-logs/bench-ctr; mkdir -p "$out"
FW=build/ctr/bench/tsbi_dynamic.bin
run() { # TAG QEMU CPU-EXTRAS
  if tests/payloads/run.py --qemu "$2" ${3:+--cpu "$3"} --fw "$FW" --icount --smp 1 --tag "bench-ctr-$1" \
       --pass-through BENCH --timeout 60 build/ctr/pl/ctr_bench.elf > "$out/$1.txt"; then
    pass "bench/ctr/$1/ran"
  else
    grep '^FAIL' "$out/$1.txt"; fail "bench/ctr/$1/ran"
  fi
}
run q72-emulated "$Q72" ""
run q10-emulated "$Q10" ""
run q10-native "$Q10" "smctr=true,ssctr=true,smcsrind=true,smstateen=true,sscofpmf=true"
python3 - "$out" <<'PY'
import sys, os
d = sys.argv[1]
cfgs = ["q72-emulated", "q10-emulated", "q10-native"]
rows, order = {}, []
for c in cfgs:
    p = os.path.join(d, c + ".txt")
    if not os.path.exists(p): continue
    for line in open(p):
        if line.startswith("BENCH: "):
            name, rt, ctr = [x.strip() for x in line[7:].split("|")]
            if name not in order: order.append(name)
            rows.setdefault(name, {})[c] = (rt, ctr)
print("\nM-mode instructions per CTR access (roundtrip / inside CTR hooks), QEMU -icount shift=0")
print("%-34s" % "access" + "".join("%24s" % c for c in cfgs))
for n in order:
    print("%-34s" % n + "".join("%24s" % ("%s / %s" % rows[n][c] if c in rows[n] else "-") for c in cfgs))
# The aim: CTR's own work per emulated access of the registers S-mode reads.
worst = None
for c in ("q72-emulated", "q10-emulated"):
    for n in ("read_sctrctl", "read_sctrstatus"):
        v = rows.get(n, {}).get(c)
        if v: worst = max(worst or 0, float(v[1]))
if worst is None:
    print("FAIL: bench/ctr/aim_60_control_reads (no data)")
elif worst <= 60:
    print("PASS: bench/ctr/aim_60_control_reads (%.0f)" % worst)
else:
    print("FAIL: bench/ctr/aim_60_control_reads (%.0f > 60)" % worst)
PY
