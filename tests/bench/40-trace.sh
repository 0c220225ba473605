#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# N-Trace encoder/decoder throughput (retired instructions per second, one core) and
# compression (bits per instruction) for BTM, HTM and HTM + implicit return + repeated
# history on 10^7 generated instructions; the decode is checked against the generator.
. "$(dirname "$0")/../lib.sh"
build trace-bench
check "ntrace bench (10^7 instructions, decode verified)" build/trace/trace-bench "${TSBI_TRACE_BENCH_N:-10000000}"

# The reference code's workflow, file to file (tsbi-trace as a user runs it): a PC-info
# text of 10^7 instructions (no traps, which the reference's encoder cannot express)
# encoded and decoded in each of the reference's five option sets; CPU seconds,
# instructions per second, MB/s of text (encoder input, decoder output), peak memory and
# bits per instruction. Also the same with --compat refcode (the reference's own
# choices).
#
# The reference itself cannot be built here. tests/trace/bench_refio.c times only the
# C library calls it makes per record (fgets + sscanf per input line; fread per trace
# byte + two fprintf per decoded PC): less than the reference does, so "x ref>=" (its time
# over ours) is a lower bound on our speed-up over the reference. Aim: encoder 2x,
# decoder 5x.
T=build/trace/tsbi-trace
W=build/trace/bench-work; mkdir -p "$W"
N=${TSBI_TRACE_BENCH_N:-10000000}
$T ntrace gen --elf "$W/g.elf" -o "$W/g.pcinfo" --count "$N" --seed 7 --xlen 32 --traps 0 >/dev/null ||
  fail "bench: ntrace gen"
cut -d, -f1 "$W/g.pcinfo" >"$W/g.pcs"
cc -O2 -Wall -Wextra -Werror -o "$W/refio" tests/trace/bench_refio.c || fail "bench: build bench_refio"
pcinfo_mb=$(stat -c %s "$W/g.pcinfo"); pcs_mb=$(stat -c %s "$W/g.pcs")
# Best of three (the machine is shared): CMD... -> "cpu_seconds max_rss_kib" in $W/m.
measure() {
  : >"$W/times"
  for _ in 1 2 3; do
    /usr/bin/time -f "%U %S %M" -o "$W/time" "$@" || return 1
    cat "$W/time" >>"$W/times"
  done
  awk 'NR == 1 || $1 + $2 < c { c = $1 + $2 } $3 > m { m = $3 } END { print c, m }' "$W/times" >"$W/m"
}
best3() { # CMD... -> the smallest of three printed CPU times
  for _ in 1 2 3; do "$@" || return 1; done | sort -n | head -1
}
ref_enc=$(best3 "$W/refio" encode "$W/g.pcinfo") || fail "bench: bench_refio encode"
while IFS='|' read -r set ours ref; do
  for who in ours compat; do
    if [ $who = ours ]; then opts=$ours; else opts="--compat refcode $ref"; fi
    measure $T ntrace encode $opts "$W/g.pcinfo" -o "$W/t.bin" || { fail "bench: encode $set $who"; continue; }
    read -r ecpu emem <"$W/m"
    dflags=""; case "$opts" in *implicit-return*|*"--cs 8"*) dflags=--implicit-return;; esac
    measure bash -c "$T ntrace decode --elf $W/g.elf $dflags $W/t.bin >$W/d.pcs" || { fail "bench: decode $set $who"; continue; }
    read -r dcpu dmem <"$W/m"
    bytes=$(stat -c %s "$W/t.bin")
    ref_dec=$(best3 "$W/refio" decode "$W/t.bin" "$N" "$W/ref.pcs") || fail "bench: bench_refio decode"
    awk -v s="$set" -v w="$who" -v n="$N" -v b="$bytes" -v ec="$ecpu" -v em="$emem" -v dc="$dcpu" -v dm="$dmem" \
        -v re="$ref_enc" -v rd="$ref_dec" -v ti="$pcinfo_mb" -v to="$pcs_mb" 'BEGIN {
      ec = ec > 0 ? ec : 0.001; dc = dc > 0 ? dc : 0.001
      printf "BENCH: ntrace file %-13s %-6s %9d bytes %.3f bits/insn  encode %5.1f M insn/s %4.0f MB/s %5d KiB x ref>= %.1f  decode %5.1f M insn/s %4.0f MB/s %5d KiB x ref>= %.1f\n",
        s, w, b, b * 8 / n, n / ec / 1e6, ti / ec / 1e6, em, re / ec, n / dc / 1e6, to / dc / 1e6, dm, rd / dc }'
    check "bench: ntrace file $set $who decodes to the executed PCs" cmp -s "$W/d.pcs" "$W/g.pcs"
  done
done <tests/trace/refcode_sets.txt
