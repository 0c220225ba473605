#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# tier: check
# The trace tables every part of the project shares (hw_models/trace
# tci_regs.def, ntrace_msgs.def, etrace_pkts.def) against the specifications'
# own tables (tests/spec_tables: data extracted from the TCI 1.0, N-Trace 1.0
# and E-Trace 2.0 packet text):
# the data regenerate from ../shared/specs/trace unchanged, every offset,
# field, message and named value agrees, and copies of the .def files with
# one thing wrong fail the check.
. "$(dirname "$0")/../lib.sh"
S=tests/spec_tables
W=build/test-logs/spec-tables
rm -rf "$W"; mkdir -p "$W"
SPEC=../shared/specs/trace

if [ -f "$SPEC/trace-control-interface-1.0.adoc" ] && [ -f "$SPEC/n-trace-1.0.adoc" ]; then
  if python3 "$S/extract.py" "$SPEC" "$W/data" > "$W/extract.out" 2>&1 && diff -r "$S/data" "$W/data" > "$W/data.diff"; then
    pass "spec-tables/data_regenerates ($(cat "$W/extract.out"))"
  else
    fail "spec-tables/data_regenerates ($(head -c 300 "$W/extract.out" "$W/data.diff" | tr '\n' ' '))"
  fi
else
  # The spec text is the project's shared material (beside the clone in CI
  # and on the developers' machines), not part of the repository: a clone
  # elsewhere checks the .def files against the committed tables only.
  echo "N/A: spec-tables/data_regenerates (no $SPEC beside the clone: the tables in $S/data are checked as committed)"
fi

python3 "$S/check.py"
[ $? -le 1 ] || fail "spec-tables: check.py did not run"

# mutant NAME FILE SED-EXPR EXPECT: a copy of FILE with SED-EXPR applied must
# fail the check, with a FAIL line matching EXPECT.
mutant() {
  local name=$1 file=$2 expr=$3 expect=$4 copy out
  copy=$W/$name-$(basename "$file"); out=$W/$name.out
  sed "$expr" "$file" > "$copy"
  if cmp -s "$file" "$copy"; then fail "spec-tables/negative/$name (the change did not apply)"; return; fi
  local args=(--tci hw_models/trace/tci_regs.def --ntrace hw_models/trace/ntrace_msgs.def
              --etrace hw_models/trace/etrace_pkts.def)
  case $file in *tci_regs.def) args[1]=$copy ;; *ntrace_msgs.def) args[3]=$copy ;; *) args[5]=$copy ;; esac
  python3 "$S/check.py" "${args[@]}" > "$out" 2>&1
  local rc=$?
  if [ $rc -eq 1 ] && grep -q "^FAIL: .*$expect" "$out" && [ "$(grep -c '^FAIL' "$out")" -eq 1 ]; then
    pass "spec-tables/negative/$name ($(grep '^FAIL' "$out" | cut -c7-160))"
  else
    fail "spec-tables/negative/$name (exit $rc, $(grep -c '^FAIL' "$out") FAIL lines; $out)"
  fi
}
mutant field_lsb hw_models/trace/tci_regs.def 's/^TCI_FIELD(trTeControl, InstMode, 4, 3)/TCI_FIELD(trTeControl, InstMode, 5, 3)/' \
  'tci/trTeControl .*InstMode: .def bit 5 width 3, spec trTeInstMode bit 4 width 3'
mutant register_offset hw_models/trace/tci_regs.def 's/^TCI_REG(Ram, trRamWPLow, 0x020)/TCI_REG(Ram, trRamWPLow, 0x024)/' \
  'tci/trRamWPLow .*offset 0x024, spec 0x020'
mutant field_width hw_models/trace/ntrace_msgs.def 's/^NTRACE_FIELD(SYNC,    NTRACE_KIND_FIX, 4)/NTRACE_FIELD(SYNC,    NTRACE_KIND_FIX, 5)/' \
  'ntrace/field/SYNC .*spec says 4'
mutant field_order hw_models/trace/ntrace_msgs.def \
  's/^NTRACE_MSG(IndirectBranch,         4, NTRACE_F(BTYPE) NTRACE_F(ICNT)/NTRACE_MSG(IndirectBranch,         4, NTRACE_F(ICNT) NTRACE_F(BTYPE)/' \
  'ntrace/msg/IndirectBranch .*spec BTYPE ICNT UADDR'
mutant etrace_field_width hw_models/trace/etrace_pkts.def \
  '/^ETRACE_PKT(F3S1_TRAP/,/^ETRACE_PKT/s/ETRACE_F(thaddr, ETRACE_FIX, 1, "1")/ETRACE_F(thaddr, ETRACE_FIX, 2, "2")/' \
  "etrace/F3S1_TRAP .*thaddr: .def FIX 2 '2', spec '1'"
mutant etrace_field_order hw_models/trace/etrace_pkts.def \
  '/^ETRACE_PKT(F2_ADDR/,/^ETRACE_PKT/{s/(notify,/(TMP,/;s/(updiscon,/(notify,/;s/(TMP,/(updiscon,/}' \
  'etrace/F2_ADDR .*spec format address notify updiscon irreport irdepth'
