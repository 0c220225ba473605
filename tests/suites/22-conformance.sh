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
    [ -s "$dir/$f" ] && pass "conformance/$name/$f" || fail "conformance/$name/$f missing"
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
  local counts unknown
  counts=$(sed -n 's/^counts //p' <<<"$out")
  [ "$counts" = ok ] && pass "conformance/$name/counts_agree_with_payload_lines" \
    || fail "conformance/$name/counts_agree_with_payload_lines $counts"
  unknown=$(sed -n 's/^unknown //p' <<<"$out")
  [ "$unknown" = none ] && pass "conformance/$name/every_clause_in_table" \
    || fail "conformance/$name/every_clause_in_table missing: $unknown"
  [ "$(sed -n 's/^pass //p' <<<"$out")" -gt 500 ] && pass "conformance/$name/ran_checks" \
    || fail "conformance/$name/ran_checks (fewer than 500 passed)"
}

tests/payloads/conformance.py --fw ours --name ours --smp 4 --out "$OUT/ours" \
  && pass "conformance/ours/run" || fail "conformance/ours/run (exit $?)"
check_report ours "$OUT/ours"
n=$(sed -n 's/^fail //p' "$OUT/ours/suite-check.txt")
[ "$n" = 0 ] && pass "conformance/ours/no_failure" \
  || fail "conformance/ours/no_failure ($n failed: $(grep '^failure' "$OUT/ours/suite-check.txt" | head -5 | tr '\n' ' '))"
cov=$(sed -n 's/^covered //p' "$OUT/ours/suite-check.txt")
[ "${cov:-0}" -ge 88 ] && pass "conformance/ours/error_cases_covered ($cov)" \
  || fail "conformance/ours/error_cases_covered ($cov, expected >= 88)"

# OpenSBI 1.1 on 4 harts only, without the no-H variant and with a shorter
# timeout (its one-hart hsm run loses the boot hart): the suite's budget.
tests/payloads/conformance.py --fw opensbi-1.1 --name opensbi-1.1 --smp 4 --only-smp --no-variants \
  --timeout 10 --out "$OUT/opensbi-1.1" \
  && pass "conformance/opensbi-1.1/run" || fail "conformance/opensbi-1.1/run (exit $?)"
check_report opensbi-1.1 "$OUT/opensbi-1.1"
# Failures checked by hand against the spec (README "SBI conformance"): the
# report must find them (the suite can fail).
for c in legacy/clear_ipi/positive_when_pending ipi/invalid/bit_beyond_last_hart \
         hsm/get_status/invalid_0x100000000; do
  grep -qx "failure $c" "$OUT/opensbi-1.1/suite-check.txt" \
    && pass "conformance/opensbi-1.1/finds/$c" || fail "conformance/opensbi-1.1/finds/$c"
done
# Implementation facts are information, not failures.
grep -q '^failure base/impl_id' "$OUT/opensbi-1.1/suite-check.txt" \
  && fail "conformance/opensbi-1.1/impl_id_is_information" \
  || pass "conformance/opensbi-1.1/impl_id_is_information"

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
grep -q '^hang_clause hsm/hart_suspend/INVALID_ADDRESS' "$R/check.txt" \
  && pass "conformance/robust/hang_recorded_against_clause" \
  || fail "conformance/robust/hang_recorded_against_clause ($(head -1 "$R/check.txt"))"
grep -q '^skipped True' "$R/check.txt" && pass "conformance/robust/rerun_skips_the_clause" \
  || fail "conformance/robust/rerun_skips_the_clause"
grep -q '^rerun_finished True' "$R/check.txt" && pass "conformance/robust/rerun_reaches_the_end" \
  || fail "conformance/robust/rerun_reaches_the_end"
grep -q '^ipi_done True' "$R/check.txt" && pass "conformance/robust/next_payload_runs" \
  || fail "conformance/robust/next_payload_runs"
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
grep -q '^reset_clause srst/system_reset/reboot' "$R/check-reset.txt" \
  && pass "conformance/robust/reset_recorded_against_clause" \
  || fail "conformance/robust/reset_recorded_against_clause ($(head -1 "$R/check-reset.txt"))"
grep -q '^ipi_done True' "$R/check-reset.txt" && pass "conformance/robust/after_reset_next_payload_runs" \
  || fail "conformance/robust/after_reset_next_payload_runs"
exit 0
