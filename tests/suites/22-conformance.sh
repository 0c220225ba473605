#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# SBI conformance mode (make conformance, tests/payloads/conformance.py) on
# this firmware (1 and 4 harts) and on Debian's OpenSBI 1.1 (4 harts): the report is
# written (Markdown, JUnit XML, summary), its counts agree with the payloads'
# console lines, every clause a check names is in conformance/clauses.txt,
# this firmware has no failure and OpenSBI 1.1 has the failures checked by
# hand in the README. Then the robustness of the runner: a firmware hang and
# a machine reset under a payload are recorded against the clause that was
# running, the payload is rerun without it, and the next payload still runs.
. "$(dirname "$0")/../lib.sh"
build firmware payloads pmu-payloads
OUT=build/conformance/suite
rm -rf "$OUT"

# check_report NAME DIR: the report files exist and the report's totals
# equal what the console logs and runner output say (independent count:
# PASS/FAIL lines of run.py, N/A and INFO lines of the payloads, FAIL lines
# whose clause is "impl" counted as information, less the lines of payload
# reruns that repeat a case of the first run).
check_report() {
  local name=$1 dir=$2 out
  for f in report.md junit.xml summary.json; do
    if [ -s "$dir/$f" ]; then pass "conformance/$name/$f"
    else fail_log "conformance/$name/$f" "$dir/conformance.log" "expected a non-empty $dir/$f, got $([ -e "$dir/$f" ] && echo "an empty file" || echo "none")"; fi
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
  if [ "$counts" = ok ]; then pass "conformance/$name/counts_agree_with_payload_lines"
  else fail_log "conformance/$name/counts_agree_with_payload_lines" "$dir/suite-check.txt" "expected the report's totals to equal the payload lines, got: ${counts:-no result (the check crashed)}"; fi
  unknown=$(sed -n 's/^unknown //p' <<<"$out")
  if [ "$unknown" = none ]; then pass "conformance/$name/every_clause_in_table"
  else fail_log "conformance/$name/every_clause_in_table" "$dir/suite-check.txt" "expected every clause in clauses.txt, missing: ${unknown:-(no result)}"; fi
  n=$(sed -n 's/^pass //p' <<<"$out")
  if [ "${n:-0}" -gt 500 ]; then pass "conformance/$name/ran_checks"
  else fail_log "conformance/$name/ran_checks" "$dir/conformance.log" "expected more than 500 passed checks, got ${n:-none}"; fi
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
conformance_run opensbi-1.1 --fw opensbi-1.1 --smp 4 --only-smp --no-variants --timeout 10
check_report opensbi-1.1 "$OUT/opensbi-1.1"
# Failures checked by hand against the spec (README "SBI conformance"): the
# report must find them (the suite can fail).
for c in legacy/clear_ipi/positive_when_pending ipi/invalid/bit_beyond_last_hart \
         hsm/get_status/invalid_0x100000000; do
  if grep -qx "failure $c" "$OUT/opensbi-1.1/suite-check.txt"; then pass "conformance/opensbi-1.1/finds/$c"
  else fail_log "conformance/opensbi-1.1/finds/$c" "$OUT/opensbi-1.1/suite-check.txt" "expected the line 'failure $c', none came"; fi
done
# Implementation facts are information, not failures: the implementation ID
# is recorded (as INFO) and is no failure. Without the record, the absence of
# the failure would prove nothing.
r=$OUT/opensbi-1.1/results.jsonl
if ! grep -q '"case": "base/impl_id", "status": "info"' "$r" 2>/dev/null; then
  fail_log "conformance/opensbi-1.1/impl_id_is_information" "$r" "expected base/impl_id recorded with status info, got: $(grep -o '"case": "base/impl_id", "status": "[a-z]*"' "$r" 2>/dev/null | head -1)"
else
  expect_no_line "conformance/opensbi-1.1/impl_id_is_information" "$OUT/opensbi-1.1/suite-check.txt" \
    '^counts ' '^failure base/impl_id'
fi

# Robustness: on one hart OpenSBI 1.1 accepts a resume address past RAM and
# loses the boot hart (hsm/hart_suspend/INVALID_ADDRESS): the hang is
# recorded against that clause, the payload is rerun without it (its later
# checks still report) and the next payload runs.
R=$OUT/robust; mkdir -p "$R"; rm -f "$R/results.jsonl"
tests/payloads/run.py --fw opensbi --conformance --smp 1 --timeout 5 --results "$R/results.jsonl" \
  --tag robust hsm ipi > "$R/run.log" 2>&1
python3 - "$R/results.jsonl" <<'EOF' > "$R/check.txt"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
hang = [r for r in recs if r["case"] == "hsm/hang"]
print("hang_clause", hang[0]["clause"] if hang and hang[0]["clause"] else "none")
print("skipped", sum(r["status"] == "na" and "skipped" in r["details"] for r in recs) > 0)
print("rerun_finished", any(r["case"] == "hsm/power_off" and r["status"] == "pass" for r in recs))
print("ipi_done", any(r["case"] == "ipi/done" and r["status"] == "pass" for r in recs))
EOF
# robust NAME CHECK-FILE LINE RUN-LOG: CHECK-FILE (the results' summary above)
# has LINE; the FAIL shows that summary's line and the runner's output.
robust() {
  if grep -qx "$3" "$2"; then pass "conformance/robust/$1"
  else fail_log "conformance/robust/$1" "$4" "expected '$3' in $2, got '$(grep -m1 "^${3%% *} " "$2")'"; fi
}
robust hang_recorded_against_clause "$R/check.txt" "hang_clause hsm/hart_suspend/INVALID_ADDRESS" "$R/run.log"
robust rerun_skips_the_clause "$R/check.txt" "skipped True" "$R/run.log"
robust rerun_reaches_the_end "$R/check.txt" "rerun_finished True" "$R/run.log"
robust next_payload_runs "$R/check.txt" "ipi_done True" "$R/run.log"
# A reset the runner does not expect (the reboot payload under another
# name): recorded as <payload>/reset against the clause, the run goes on.
cp build/payloads/reboot.elf "$R/unexpected_reset.elf"
rm -f "$R/results.jsonl"
tests/payloads/run.py --conformance --results "$R/results.jsonl" --tag robust \
  "$R/unexpected_reset.elf" ipi > "$R/run-reset.log" 2>&1
python3 - "$R/results.jsonl" <<'EOF' > "$R/check-reset.txt"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
reset = [r for r in recs if r["case"] == "unexpected_reset/reset"]
print("reset_clause", reset[0]["clause"] if reset and reset[0]["clause"] else "none")
print("ipi_done", any(r["case"] == "ipi/done" and r["status"] == "pass" for r in recs))
EOF
robust reset_recorded_against_clause "$R/check-reset.txt" "reset_clause srst/system_reset/reboot" "$R/run-reset.log"
robust after_reset_next_payload_runs "$R/check-reset.txt" "ipi_done True" "$R/run-reset.log"
exit 0
