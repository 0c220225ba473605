#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Cost of the trace ingress port: wall time of a CPU-bound payload (the
# trace payload's workload, ~10 M instructions) on the project QEMU with
# tracing off, BTM and HTM, and on the same QEMU built without the ingress
# hook (-DTSBI_NO_INGRESS). Target: HTM at most 1.5x the untraced time.
. "$(dirname "$0")/../lib.sh"

build qemu qemu-noingress qemu-payloads
Q=$(readlink -f build/qemu/qemu-system-riscv64)
QN=$(readlink -f build/qemu/qemu-system-riscv64-noingress)
ELF=$PWD/build/qemu-tests/trace.elf
ITER=${TSBI_BENCH_ITER:-3000}
D=build/test-logs/qemu-bench
mkdir -p "$D"

# wall QEMU TE_CONTROL: best of 3 runs, in milliseconds
wall() {
  local q=$1 te=$2 best= i=0 w t0 t1 loader=()
  for w in 0x54534249 "$te" 0 "$ITER" 1 1 0 0; do
    loader+=(-device "loader,addr=$((0x80ff0000 + 4 * i)),data=$w,data-len=4")
    i=$((i + 1))
  done
  for i in 1 2 3; do
    t0=$(date +%s%N)
    (cd "$D" && timeout 300 "$q" -machine virt -nographic -bios "$ELF" \
       -semihosting-config enable=on,target=native "${loader[@]}" > uart.log 2>&1) ||
      { fail "bench run failed ($q $te)"; return 1; }
    t1=$(date +%s%N)
    t=$(( (t1 - t0) / 1000000 ))
    if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
  done
  echo "$best"
}

base=$(wall "$QN" 0) || exit 1
off=$(wall "$Q" 0) || exit 1
btm=$(wall "$Q" 0x30) || exit 1
htm=$(wall "$Q" 0x60) || exit 1
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "workload: $ITER iterations (~$((ITER * 3160 / 1000)) k instructions), best of 3"
printf '%-28s %8s ms  %sx\n' "no ingress hook compiled" "$base" "1.00"
printf '%-28s %8s ms  %sx\n' "project QEMU, tracing off" "$off" "$(ratio "$off" "$base")"
printf '%-28s %8s ms  %sx\n' "project QEMU, BTM" "$btm" "$(ratio "$btm" "$base")"
printf '%-28s %8s ms  %sx\n' "project QEMU, HTM" "$htm" "$(ratio "$htm" "$base")"
if awk -v h="$htm" -v o="$off" 'BEGIN { exit !(h <= 1.5 * o) }'; then
  pass "bench: HTM tracing within 1.5x of untraced ($(ratio "$htm" "$off")x)"
else
  fail "bench: HTM tracing $(ratio "$htm" "$off")x untraced (target 1.5x)"
fi
