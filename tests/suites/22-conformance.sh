#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# SBI conformance mode (make conformance, tests/payloads/conformance.py) on
# this firmware (1 and 4 harts): the report is written (Markdown, JUnit XML,
# summary), its counts agree with the payloads' console lines, every clause a
# check names is in conformance/clauses.txt, and this firmware has no
# failure. The runner and the report on known failures (the stall payload):
# a hang and a machine reset under a payload are found, recorded against the
# clause that was running, the payload is rerun without it, and the next
# payload still runs. Debian's OpenSBI 1.1 (4 harts) is compared, in PEER
# lines: the same report checks and the failures checked by hand in the
# README.
. "$(dirname "$0")/../lib.sh"
build firmware payloads pmu-payloads
OUT=build/conformance/suite
rm -rf "$OUT"

# A peer's results are compared, never counted: for the peer (PEER=1), the
# same checks print "PEER: <name> pass|fail" (build/test-logs/peers.md).
PEER=
ok() { if [ -n "$PEER" ]; then echo "PEER: $1 pass"; else pass "$1"; fi; }
nok() {
  if [ -n "$PEER" ]; then echo "PEER: $1 fail${3:+ $3} (log: $2)"; else fail_log "$@"; fi
}

# check_report NAME DIR: the report files exist and the report's totals
# equal what the console logs and runner output say (independent count:
# PASS/FAIL lines of run.py, N/A and INFO lines of the payloads, FAIL lines
# whose clause is "impl" counted as information, less the lines of payload
# reruns that repeat a case of the first run).
check_report() {
  local name=$1 dir=$2 min=${3:-500} out
  for f in report.md junit.xml summary.json; do
    if [ -s "$dir/$f" ]; then ok "conformance/$name/$f"
    else nok "conformance/$name/$f" "$dir/conformance.log" "expected a non-empty $dir/$f, got $([ -e "$dir/$f" ] && echo "an empty file" || echo "none")"; fi
  done
  out=$(python3 - "$dir" <<'EOF'
import glob, json, os, re, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
s = json.load(open(os.path.join(d, "summary.json")))
kinds = {}
for line in open("tests/payloads/conformance/clauses.txt"):
    if line.strip() and not line.startswith("#"):
        p = [x.strip() for x in line.split(" | ")]
        kinds[p[0]] = p[1]
n = dict(pass_=0, fail=0, na=0, info=0, impl_fail=0)
for f in glob.glob(os.path.join(d, "run-*.log")):
    for line in open(f):
        m = re.match(r"^(PASS|FAIL): \S+(?: @(\S+))?", line)
        if not m: continue
        if m.group(1) == "PASS": n["pass_"] += 1
        else:
            n["fail"] += 1
            if kinds.get(m.group(2)) == "impl" and s["mode"] == "conformance": n["impl_fail"] += 1
for f in glob.glob(os.path.join(d, "console-*.log")):
    for line in open(f, errors="replace"):
        m = re.match(r"^(N/A|INFO): ", line)
        if m: n["na" if m.group(1) == "N/A" else "info"] += 1
dup = s.get("duplicates", {})
want = {"pass": n["pass_"], "fail": n["fail"] - n["impl_fail"], "na": n["na"] - dup.get("na", 0),
        "info": n["info"] + n["impl_fail"] - dup.get("info", 0)}
t = s["totals"]
bad = ["%s: report %d, output %d" % (k, t[k], v) for k, v in want.items() if t[k] != v]
j = ET.parse(os.path.join(d, "junit.xml")).getroot()
cases = j.findall(".//testcase")
if len(cases) != sum(t[k] for k in ("pass", "fail", "na", "info")):
    bad.append("junit testcases %d" % len(cases))
if len(j.findall(".//failure")) != t["fail"]:
    bad.append("junit failures %d" % len(j.findall(".//failure")))
print("counts", "ok" if not bad else "; ".join(bad))
print("unknown", " ".join(s["unknown_clauses"]) or "none")
print("fail", t["fail"])
print("pass", t["pass"])
print("covered", s["error_cases"]["covered"])
for f in s["failures"]:
    print("failure", f["case"])
EOF
  )
  echo "$out" > "$dir/suite-check.txt"
  local counts unknown n
  counts=$(sed -n 's/^counts //p' <<<"$out")
  if [ "$counts" = ok ]; then ok "conformance/$name/counts_agree_with_payload_lines"
  else nok "conformance/$name/counts_agree_with_payload_lines" "$dir/suite-check.txt" "expected the report's totals to equal the payload lines, got: ${counts:-no result (the check crashed)}"; fi
  unknown=$(sed -n 's/^unknown //p' <<<"$out")
  if [ "$unknown" = none ]; then ok "conformance/$name/every_clause_in_table"
  else nok "conformance/$name/every_clause_in_table" "$dir/suite-check.txt" "expected every clause in clauses.txt, missing: ${unknown:-(no result)}"; fi
  n=$(sed -n 's/^pass //p' <<<"$out")
  if [ "${n:-0}" -gt "$min" ]; then ok "conformance/$name/ran_checks"
  else nok "conformance/$name/ran_checks" "$dir/conformance.log" "expected more than $min passed checks, got ${n:-none}"; fi
}

# conformance_run NAME ARGS...: conformance.py, its output also in
# OUT/NAME/conformance.log (the evidence of the checks on its report).
conformance_run() {
  local name=$1 rc; shift
  mkdir -p "$OUT/$name"
  tests/payloads/conformance.py --name "$name" --out "$OUT/$name" "$@" 2>&1 |
    tee "$OUT/$name/conformance.log"
  rc=${PIPESTATUS[0]}
  expect_eq "conformance/$name/run" "$OUT/$name/conformance.log" 0 "$rc" "exit status"
}
conformance_run ours --fw ours --smp 4
check_report ours "$OUT/ours"
n=$(sed -n 's/^fail //p' "$OUT/ours/suite-check.txt")
if [ "$n" = 0 ]; then pass "conformance/ours/no_failure"
else fail_log "conformance/ours/no_failure" "$OUT/ours/suite-check.txt" "expected 0 failures, got ${n:-no count}: $(grep '^failure' "$OUT/ours/suite-check.txt" | head -5 | tr '\n' ' ')"; fi
cov=$(sed -n 's/^covered //p' "$OUT/ours/suite-check.txt")
if [ "${cov:-0}" -ge 88 ]; then pass "conformance/ours/error_cases_covered ($cov)"
else fail_log "conformance/ours/error_cases_covered" "$OUT/ours/suite-check.txt" "expected >= 88 error cases covered, got ${cov:-none}"; fi

# OpenSBI 1.1 on 4 harts only, without the no-H variant and with a shorter
# timeout (its one-hart hsm run loses the boot hart): the suite's budget.
# Everything about the peer is a PEER line: no peer behaviour decides a PASS
# or FAIL here.
PEER=1
mkdir -p "$OUT/opensbi-1.1"
tests/payloads/conformance.py --name opensbi-1.1 --out "$OUT/opensbi-1.1" --fw opensbi-1.1 \
  --smp 4 --only-smp --no-variants --timeout 10 > "$OUT/opensbi-1.1/conformance.log" 2>&1
rc=$?
if [ "$rc" = 0 ]; then ok "conformance/opensbi-1.1/run"
else nok "conformance/opensbi-1.1/run" "$OUT/opensbi-1.1/conformance.log" "exit status $rc"; fi
check_report opensbi-1.1 "$OUT/opensbi-1.1"
# Failures checked by hand against the spec (README "SBI conformance"): does
# the report still find them?
for c in legacy/clear_ipi/positive_when_pending ipi/invalid/bit_beyond_last_hart \
         hsm/get_status/invalid_0x100000000; do
  if grep -qx "failure $c" "$OUT/opensbi-1.1/suite-check.txt"; then ok "conformance/opensbi-1.1/finds/$c"
  else nok "conformance/opensbi-1.1/finds/$c" "$OUT/opensbi-1.1/suite-check.txt" "no line 'failure $c'"; fi
done
# Implementation facts are information, not failures.
r=$OUT/opensbi-1.1/results.jsonl
if grep -q '"case": "base/impl_id", "status": "info"' "$r" 2>/dev/null &&
   ! grep -q '^failure base/impl_id' "$OUT/opensbi-1.1/suite-check.txt"; then
  ok "conformance/opensbi-1.1/impl_id_is_information"
else nok "conformance/opensbi-1.1/impl_id_is_information" "$r" "base/impl_id not recorded as info, or listed as a failure"; fi
PEER=

# The report and the runner on failures known without a peer: the stall
# payload goes silent in one clause (what a firmware hanging in an SBI call
# looks like, as OpenSBI 1.1 does on one hart for a resume address past RAM),
# then the ipi payload. The report must find exactly the hang (stall/hang and
# its missing stall/done), record it against that clause, rerun the payload
# without the clause (its later checks still report) and run the next payload.
R=$OUT/robust
conformance_run robust --fw ours --smp 1 --only-smp --no-variants --timeout 5 stall ipi
check_report robust "$R" 25
want="failure stall/done
failure stall/hang"
got=$(grep '^failure ' "$R/suite-check.txt")
if [ "$got" = "$want" ]; then pass "conformance/robust/finds_exactly_the_hang"
else fail_log "conformance/robust/finds_exactly_the_hang" "$R/conformance.log" "expected the failures stall/done and stall/hang, got: $(echo $got)"; fi
python3 - "$R/results.jsonl" <<'EOF' > "$R/check.txt"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
hang = [r for r in recs if r["case"] == "stall/hang"]
print("hang_clause", hang[0]["clause"] if hang and hang[0]["clause"] else "none")
print("skipped", any(r["case"] == "stall/stalled/in_clause" and r["status"] == "na"
                     and "skipped" in r["details"] for r in recs))
print("rerun_finished", any(r["case"] == "stall/after/get_spec_version" and r["status"] == "pass"
                            for r in recs))
print("ipi_done", any(r["case"] == "ipi/done" and r["status"] == "pass" for r in recs))
EOF
# robust NAME CHECK-FILE LINE RUN-LOG: CHECK-FILE (the results' summary above)
# has LINE; the FAIL shows that summary's line and the runner's output.
robust() {
  if grep -qx "$3" "$2"; then pass "conformance/robust/$1"
  else fail_log "conformance/robust/$1" "$4" "expected '$3' in $2, got '$(grep -m1 "^${3%% *} " "$2")'"; fi
}
robust hang_recorded_against_clause "$R/check.txt" "hang_clause hsm/hart_suspend/INVALID_ADDRESS" "$R/conformance.log"
robust rerun_skips_the_clause "$R/check.txt" "skipped True" "$R/conformance.log"
robust rerun_reaches_the_end "$R/check.txt" "rerun_finished True" "$R/conformance.log"
robust next_payload_runs "$R/check.txt" "ipi_done True" "$R/conformance.log"
# A reset the runner does not expect (the reboot payload under another
# name): recorded as <payload>/reset against the clause, the run goes on.
cp build/payloads/reboot.elf "$R/unexpected_reset.elf"
rm -f "$R/reset-results.jsonl"
tests/payloads/run.py --conformance --results "$R/reset-results.jsonl" --tag robust \
  "$R/unexpected_reset.elf" ipi > "$R/run-reset.log" 2>&1
python3 - "$R/reset-results.jsonl" <<'EOF' > "$R/check-reset.txt"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
reset = [r for r in recs if r["case"] == "unexpected_reset/reset"]
print("reset_clause", reset[0]["clause"] if reset and reset[0]["clause"] else "none")
print("ipi_done", any(r["case"] == "ipi/done" and r["status"] == "pass" for r in recs))
EOF
robust reset_recorded_against_clause "$R/check-reset.txt" "reset_clause srst/system_reset/reboot" "$R/run-reset.log"
robust after_reset_next_payload_runs "$R/check-reset.txt" "ipi_done True" "$R/run-reset.log"
exit 0
