#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Trace codecs (hw_models/trace): doctest unit tests (one line per test case), the
# tsbi-trace CLI end to end, and short libFuzzer runs of every decoder.
. "$(dirname "$0")/../lib.sh"
build trace trace-tests
T=build/trace/tsbi-trace
W=build/trace/suite-work
rm -rf "$W" && mkdir -p "$W"
# The fuzz targets (clang, ASan+UBSan+libFuzzer: the library compiled once
# more) build in the background while the single-threaded checks below run
# on the other core; their smoke runs are at the end.
fuzz_build=
if command -v clang++ >/dev/null; then
  make -s -j"$(nproc)" trace-fuzz >"$W/fuzz-build.log" 2>&1 &
  fuzz_build=$!
fi

# --- doctest: one PASS/FAIL line per test case -----------------------------------------
python3 tests/host/doctest_lines.py "trace unit" build/trace/trace-tests

# --- the .def table from C (shared with the QEMU model) ----------------------------------
check "ntrace_msgs.def compiles as C11 (-pedantic -Werror) and lists every message" bash -c "
  ${CC:-cc} -std=c11 -Wall -Wextra -pedantic -Werror -Ihw_models/trace tests/trace/c_def_check.c -o $W/c_def_check &&
  $W/c_def_check | diff -u tests/trace/data/c_def_check.expected -"

# --- CLI ---------------------------------------------------------------------------------
check "tsbi-trace --help exits 0" bash -c "$T --help >/dev/null"
$T bogus cmd >/dev/null 2>&1; rc=$?
check "tsbi-trace usage error exits 2" test "$rc" = 2
check "ntrace dump reproduces the Table 6 dump" \
  bash -c "$T ntrace dump tests/trace/data/table6.bin | diff -u tests/trace/data/table6.dump -"
check "ntrace dump reads stdin" bash -c "$T ntrace dump < tests/trace/data/table6.bin | grep -q 'HIST\[12\] = 0xFFE'"
for mode in "--mode btm" "--mode htm" "--mode htm --implicit-return 3 --repeated-history" \
            "--mode btm --implicit-return 2 --repeated-history --sync-mode 3 --sync-max 6" "--mode btm --icnt-sync --icnt-bits 6 --sync-mode 2 --sync-max 3" \
            "--mode htm --implicit-return 1 --all-jumps --tstamp --src-bits 3 --src-id 5 --extend-addr --context"; do
  check "ntrace selftest $mode" $T ntrace selftest --count 300000 $mode
done
$T ntrace gen --elf "$W/p.elf" --raw "$W/p.bin" -o "$W/p.pcinfo" --count 100000 --seed 3 >/dev/null
cut -d, -f1 "$W/p.pcinfo" >"$W/p.pcs"
for mode in "--mode btm" "--mode htm --implicit-return 3 --repeated-history"; do
  dec=""; case $mode in *implicit*) dec=--implicit-return;; esac
  check "ntrace encode PC-info, decode with ELF ($mode)" bash -c "
    $T ntrace encode $W/p.pcinfo $mode -o $W/t.bin &&
    $T ntrace decode --elf $W/p.elf $dec $W/t.bin | cmp -s - $W/p.pcs &&
    $T ntrace decode --elf $W/p.elf $dec --pcinfo $W/t.bin | cmp -s - $W/p.pcinfo"
done
check "ntrace encode PC-only list with an ELF" bash -c "
  $T ntrace encode --pc --elf $W/p.elf --mode htm $W/p.pcs -o $W/t2.bin &&
  $T ntrace decode --elf $W/p.elf $W/t2.bin | cmp -s - $W/p.pcs"
check "ntrace decode with a raw binary and load address, options from trTe registers" bash -c "
  $T ntrace encode $W/p.pcinfo --te-control 0x60 --te-inst-features 0xC8 -o $W/t3.bin &&
  $T ntrace decode --bin $W/p.bin --load 0x80000000 --te-control 0x60 --te-inst-features 0xC8 $W/t3.bin |
  cmp -s - $W/p.pcs"
$T ntrace decode --elf "$W/p.elf" "$W/t.bin" >/dev/null 2>&1; rc=$?
check "ntrace decode reports inconsistency (implicit return not enabled) with exit 1" test "$rc" = 1
check "ntrace decode from the middle of a wrapped buffer resynchronises" bash -c "
  $T ntrace encode $W/p.pcinfo --mode htm --sync-mode 1 --sync-max 0 -o $W/s.bin &&
  tail -c +1001 $W/s.bin >$W/s-tail.bin &&
  $T ntrace decode --elf $W/p.elf --mid-stream $W/s-tail.bin >$W/s.pcs &&
  test \$(wc -l <$W/s.pcs) -gt 1000 && grep -Fxf $W/s.pcs $W/p.pcs >/dev/null"
check "tv dump of Appendix C.1" bash -c "$T tv dump tests/trace/data/tv_c1.bin | grep -q 'full register x3 = 0x1234'"
$T tv compare tests/trace/data/tv_c1.bin tests/trace/data/tv_c1_bad.bin >"$W/cmp.txt"; rc=$?
check "tv compare reports the first divergence with exit 1" bash -c "test $rc = 1 && grep -q 'x3: 0x1234 vs 0x1235' $W/cmp.txt"
check "tv compare of identical traces exits 0" $T tv compare tests/trace/data/tv_c1.bin tests/trace/data/tv_c1.bin
check "etrace encode then dump reproduces the records" bash -c "
  $T etrace encode tests/trace/data/etrace.txt -o $W/e.bin &&
  $T etrace dump $W/e.bin | diff -u <(grep -v '^#' tests/trace/data/etrace.txt) -"

# --- the N-Trace reference code's t1 example (tests/trace/data/refcode-t1) --------------
R=tests/trace/data/refcode-t1
xz -dc $R/test-PCSEQ.txt.xz >$W/t1.pcseq
check "refcode t1: its PC-sequence file has CRLF line endings (parsed as published)" \
  bash -c "test \$(grep -c \$'\\r\$' $W/t1.pcseq) = 164959"
check "refcode t1: --compat refcode --cs 8 --rpt 2 gives its test-NEX.bin byte for byte" bash -c "
  $T ntrace encode --compat refcode --cs 8 --rpt 2 $W/t1.pcseq -o $W/t1.bin && cmp $W/t1.bin $R/test-NEX.bin"
# Its other four option sets: the byte counts its makelog.txt reports.
while read -r bytes opts; do
  check "refcode t1: --compat refcode $opts gives its $bytes bytes" bash -c "
    $T ntrace encode --compat refcode $opts $W/t1.pcseq -o $W/t1o.bin && test \$(stat -c %s $W/t1o.bin) = $bytes"
done <<'SETS'
12978 --nobhm
3393 --cs 0 --rpt 0
2628 --cs 0 --rpt 2
3374 --cs 8 --rpt 0
SETS
# Our own encoder's default choices are never larger than the reference's, in each of
# its option sets (the same settings in our terms).
while IFS='|' read -r bytes ours; do
  check "refcode t1: ours ($ours) is no larger than its $bytes bytes" bash -c "
    $T ntrace encode $ours $W/t1.pcseq -o $W/t1our.bin && test \$(stat -c %s $W/t1our.bin) -le $bytes"
done <<'SETS'
12978|--mode btm
3393|--mode htm
2628|--mode htm --repeated-history
3374|--mode htm --implicit-return 3 --stack-depth 8
2604|--mode htm --implicit-return 3 --stack-depth 8 --repeated-history
SETS
# The reference encoder never reports I-CNT full: 2.2 million straight-line
# instructions end in one I-CNT of 4.4 million halfwords (23 bits, the spec
# allows 22). Decoded with a warning by default, an error with --strict.
python3 -c "
n = 2200000
open('$W/lin.pcinfo', 'w').write(''.join('0x%X,L4\\n' % (0x80000000 + 4 * i) for i in range(n)))
open('$W/lin.bin', 'wb').write(b'\\x13\\0\\0\\0' * n)"
$T ntrace encode --compat refcode --nobhm $W/lin.pcinfo -o $W/lin.nex
$T ntrace decode --bin $W/lin.bin --load 0x80000000 $W/lin.nex >$W/lin.pcs 2>$W/lin.err; rc=$?
check "refcode: an I-CNT above 22 bits decodes, with a warning that counts it" bash -c "
  test $rc = 0 && test \$(wc -l <$W/lin.pcs) = 2200000 && grep -q 'warning: 1 I-CNT values above' $W/lin.err"
$T ntrace decode --strict --bin $W/lin.bin --load 0x80000000 $W/lin.nex >/dev/null 2>&1; rc=$?
check "refcode: --strict rejects an I-CNT above 22 bits (exit 1)" test "$rc" = 1
# The reference code's ecall is an indirect call (IndirectBranch B-TYPE 0 ending at
# the ecall, which it counts) and its mret a return (issue 30: its CoreMark stream
# stopped at the final ecall). A program with ecalls in, through --compat refcode in
# its five option sets, decoded against the real code: every PC, a warning that counts
# the four ecalls; --strict rejects the first.
python3 tests/trace/refcode_ecall.py $W/ec
while IFS='|' read -r set ours ref; do
  dflags=""; case "$ref" in *"--cs 8"*) dflags=--implicit-return;; esac
  $T ntrace encode --compat refcode $ref $W/ec.pcseq -o $W/ec.nex
  $T ntrace decode --bin $W/ec.bin --load 0x80000000 $dflags $W/ec.nex >$W/ec.out 2>$W/ec.err; rc=$?
  n="refcode ecall: $set: B-TYPE 0 at an ecall decodes to every PC, the 4 ecalls counted in a warning"
  if test $rc = 0 && cmp -s $W/ec.out $W/ec.pcs &&
     grep -q 'warning: 4 IndirectBranch messages with B-TYPE 0 ending at a trapping' $W/ec.err; then pass "$n"
  else fail_log "$n" $W/ec.err "expected exit 0, the $(wc -l <$W/ec.pcs) PCs and the warning; got exit $rc, $(wc -l <$W/ec.out) PCs"; fi
  $T ntrace decode --strict --bin $W/ec.bin --load 0x80000000 $dflags $W/ec.nex >$W/ec.out 2>$W/ec.err; rc=$?
  check "refcode ecall: $set: --strict rejects it (exit 1) at the first ecall" bash -c "
    test $rc = 1 && grep -q 'addr=0x80000104 .*does not end at an uninferable jump' $W/ec.err"
done <tests/trace/refcode_sets.txt
check "refcode t1: its per-address PC-info file parses (CRLF)" bash -c "
  $T ntrace encode --compat refcode $R/test-PCINFO.txt -o $W/t1i.bin && test -s $W/t1i.bin"
# Decoding as the reference's decoder does (NexRv -deco -pcinfo): its per-address PC-info
# is the program (--pcinfo-image); its PC-only file (CRLF) is the expected output.
xz -dc $R/test-PCONLY.txt.xz >$W/t1.pconly
tr -d '\r' <$W/t1.pconly >$W/t1.pcs
check "refcode t1: its test-NEX.bin decodes, its PC-info as the program, to its 164,959 PCs" bash -c "
  $T ntrace decode --xlen 32 --pcinfo-image $R/test-PCINFO.txt --implicit-return $R/test-NEX.bin >$W/t1d.pcs &&
  test \$(wc -l <$W/t1d.pcs) = 164959 && cmp -s $W/t1d.pcs $W/t1.pcs"
while IFS='|' read -r set ours ref; do
  for who in ours compat; do
    if [ $who = ours ]; then opts=$ours; else opts="--compat refcode $ref"; fi
    dflags=""; case "$opts" in *implicit-return*|*"--cs 8"*) dflags=--implicit-return;; esac
    check "refcode t1: $set ($who) round trip: PC-sequence -> bytes -> its PCs" bash -c "
      $T ntrace encode $opts $W/t1.pcseq -o $W/t1r.bin &&
      $T ntrace decode --xlen 32 --pcinfo-image $R/test-PCINFO.txt $dflags $W/t1r.bin | cmp -s - $W/t1.pcs"
  done
done <tests/trace/refcode_sets.txt
check "refcode t1: its PC-only file (CRLF), classified by its PC-info, gives test-NEX.bin with --compat refcode" bash -c "
  $T ntrace encode --pc --xlen 32 --pcinfo-image $R/test-PCINFO.txt --compat refcode --cs 8 --rpt 2 $W/t1.pconly \
    -o $W/t1p.bin && cmp $W/t1p.bin $R/test-NEX.bin"
check "refcode t1: ntrace dump of test-NEX.bin has its test-DUMP.txt's bytes and fields (CRLF)" bash -c "
  xz -dc $R/test-DUMP.txt.xz >$W/t1.dump && grep -q \$'\r\$' $W/t1.dump &&
  $T ntrace dump $R/test-NEX.bin >$W/t1our.dump &&
  python3 tests/trace/dump_fields.py $W/t1.dump >$W/t1.dumpn && test \$(wc -l <$W/t1.dumpn) = 2604 &&
  python3 tests/trace/dump_fields.py $W/t1our.dump | cmp -s - $W/t1.dumpn"
printf '0x100,L4\r\n0x104,JD4\r\n' >$W/nodest.pci
$T ntrace decode --pcinfo-image $W/nodest.pci $R/test-NEX.bin >/dev/null 2>$W/nodest.err; rc=$?
check "ntrace decode --pcinfo-image: a direct jump without DEST is an input error (exit 3)" bash -c "
  test $rc = 3 && grep -q 'without DEST at 0x104' $W/nodest.err"
$T ntrace encode --compat refcode --cs 33 $W/t1.pcseq -o $W/t1x.bin >/dev/null 2>&1; rc=$?
check "refcode: a call stack deeper than the reference's 32 is a usage error (exit 2)" test "$rc" = 2

# --- 10^7 instructions through files: bounded memory, the README's size table -------------
# A generated program (no traps, which the reference's encoder cannot express), its
# PC-info streamed by ntrace gen; each of the reference's five option sets in our terms
# and with --compat refcode: the bytes must be the README's table, every stream must
# decode back to the PCs, and encoder and decoder must stay within a few MiB (peak RSS,
# /usr/bin/time) although the text is 156 MB and the PCs 110 MB. The option sets:
# tests/trace/refcode_sets.txt, per line the reference's options|ours|--compat refcode's.
B=$W/big
mkdir -p $B
if ! command -v /usr/bin/time >/dev/null; then
  fail "10^7: /usr/bin/time (package time) is needed to measure peak memory"
elif ! $T ntrace gen --elf $B/g.elf -o $B/g.pcinfo --count 10000000 --seed 7 --xlen 32 --traps 0 >/dev/null; then
  fail "10^7: ntrace gen"
else
  cut -d, -f1 $B/g.pcinfo >$B/g.pcs
  check "10^7: ntrace gen writes 10^7 PC-info lines" test "$(wc -l <$B/g.pcs)" = 10000000
  kMaxKiB=16384
  while IFS='|' read -r set ours ref; do
    row=$(grep -F "| \`$set\` |" hw_models/trace/README.md | head -1)
    for who in ours compat; do
      if [ $who = ours ]; then opts=$ours; col=7; else opts="--compat refcode $ref"; col=6; fi
      want=$(echo "$row" | awk -F'|' -v c=$col '{ gsub(/[ ,]/, "", $c); print $c }')
      dflags=""; case "$opts" in *implicit-return*|*"--cs 8"*) dflags=--implicit-return;; esac
      /usr/bin/time -f %M -o $B/enc.rss $T ntrace encode $opts $B/g.pcinfo -o $B/t.bin
      /usr/bin/time -f %M -o $B/dec.rss $T ntrace decode --elf $B/g.elf $dflags $B/t.bin -o $B/d.pcs
      got=$(stat -c %s $B/t.bin)
      check "10^7 $set ($who): $got bytes, the README's size table says ${want:-nothing}" test "$got" = "$want"
      check "10^7 $set ($who): decodes back to the executed PCs" cmp -s $B/d.pcs $B/g.pcs
      check "10^7 $set ($who): encoder peak RSS $(cat $B/enc.rss) KiB <= $kMaxKiB" test "$(cat $B/enc.rss)" -le $kMaxKiB
      check "10^7 $set ($who): decoder peak RSS $(cat $B/dec.rss) KiB <= $kMaxKiB" test "$(cat $B/dec.rss)" -le $kMaxKiB
    done
  done <tests/trace/refcode_sets.txt
  # Memory that does not grow with the input: 10^7 instructions against 10^4 of the same
  # program (BTM: the largest trace, 4 MB), encoder and decoder.
  head -10000 $B/g.pcinfo >$B/s.pcinfo
  rss() { /usr/bin/time -f %M -o $B/rss "$@" && cat $B/rss; }
  es=$(rss $T ntrace encode --mode btm $B/s.pcinfo -o $B/s.bin)
  el=$(rss $T ntrace encode --mode btm $B/g.pcinfo -o $B/t.bin)
  ds=$(rss $T ntrace decode --elf $B/g.elf $B/s.bin -o $B/s.pcs)
  dl=$(rss $T ntrace decode --elf $B/g.elf $B/t.bin -o $B/d.pcs)
  check "10^7: encoder memory does not grow with the input ($es KiB for 10^4, $el KiB for 10^7; <= +2048)" \
    test "$el" -le $((es + 2048))
  check "10^7: decoder memory does not grow with the trace ($ds KiB for 10^4, $dl KiB for 10^7; <= +2048)" \
    test "$dl" -le $((ds + 2048))
  # The same decode from a pipe (no file size known) and with the CRLF line endings of
  # the reference's published files on the encoder's input.
  $T ntrace encode --mode htm $B/g.pcinfo -o $B/t.bin
  check "10^7: ntrace decode reads the trace from a pipe" bash -c "
    cat $B/t.bin | $T ntrace decode --elf $B/g.elf | cmp -s - $B/g.pcs"
  check "10^7: CRLF PC-info encodes to the same bytes as LF" bash -c "
    sed 's/\$/\r/' $B/g.pcinfo | $T ntrace encode --mode htm - -o $B/crlf.bin && cmp $B/crlf.bin $B/t.bin"
fi
rm -rf $B

# --- fuzz smoke runs (longer: make trace-fuzz-long FUZZ_SECONDS=N) -----------------------
# One libFuzzer process per core at a time (each is single-threaded and runs
# for its 3 s of -max_total_time).
if [ -z "$fuzz_build" ] || ! wait "$fuzz_build"; then
  cat "$W/fuzz-build.log" 2>/dev/null | tail -20
  fail "trace fuzz targets build (clang++ with libclang-rt-14-dev needed)"
else
  fuzzers=()
  for f in build/trace/fuzz/fuzz_*; do
    case $f in *.d) continue;; esac
    fuzzers+=("$f")
  done
  # Inputs that once crashed a target (tests/trace/fuzz_seeds/<target>/) are
  # replayed first, each its own check, so a fixed bug stays fixed whatever
  # the random smoke run below happens to reach; they also seed its corpus.
  for f in "${fuzzers[@]}"; do
    n=$(basename "$f")
    for s in tests/trace/fuzz_seeds/$n/*; do
      [ -f "$s" ] || continue
      check "fuzz regression: $n $(basename "$s")" bash -c \
        "$f -rss_limit_mb=1024 -timeout=5 $s >$W/$n.seed.log 2>&1 || { tail -30 $W/$n.seed.log; false; }"
    done
  done
  jobs=$(nproc) i=0
  for f in "${fuzzers[@]}"; do
    n=$(basename "$f")
    mkdir -p "$W/corpus-$n"; rm -f "$W/$n.rc"
    seeds=tests/trace/fuzz_seeds/$n; [ -d "$seeds" ] || seeds=
    ("$f" -max_total_time=3 -rss_limit_mb=1024 -timeout=5 "$W/corpus-$n" $seeds >"$W/$n.log" 2>&1; echo $? >"$W/$n.rc") &
    i=$((i + 1)); [ $((i % jobs)) = 0 ] && wait
  done
  wait
  for f in "${fuzzers[@]}"; do
    n=$(basename "$f")
    check "fuzz smoke: $n (3 s, ASan+UBSan)" bash -c \
      "test \"\$(cat $W/$n.rc 2>/dev/null)\" = 0 || { tail -30 $W/$n.log; false; }"
  done
fi
