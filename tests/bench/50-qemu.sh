#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Cost of the trace ingress port and encoder: wall time of CPU-bound payloads
# on the project QEMU with tracing off, BTM and HTM (into the circular SRAM
# sink, and HTM into a system-memory buffer), and on the same QEMU built
# without the ingress hook (-DTSBI_NO_INGRESS).
#  - kernel: insertion sort + bitwise CRC loops (tests/qemu/payload/trace.c
#    kernel()), the CPU-bound payload the 1.5x HTM and 3x BTM targets
#    apply to;
#  - mixed: the validation workload, deliberately dense in indirect calls,
#    jump tables, returns, traps and privilege changes (one message per
#    ~20 instructions), reported for information.
. "$(dirname "$0")/../lib.sh"

build qemu qemu-noingress qemu-payloads
Q=$(readlink -f build/qemu/qemu-system-riscv64)
QN=$(readlink -f build/qemu/qemu-system-riscv64-noingress)
ELF=$PWD/build/qemu-tests/trace.elf
D=build/test-logs/qemu-bench
mkdir -p "$D"

# wall QEMU TE_CONTROL KERNEL ITER [SMEM]: best of 3 runs, in milliseconds
wall() {
  local q=$1 te=$2 kernel=$3 iter=$4 smem=${5:-0} best= i=0 w t0 t1 t loader=()
  for w in 0x54534249 "$te" 0 "$iter" "$smem" 1 0 0 "$kernel" 0 0 0; do
    loader+=(-device "loader,addr=$((0x80ff0000 + 4 * i)),data=$w,data-len=4")
    i=$((i + 1))
  done
  for i in 1 2 3; do
    t0=$(date +%s%N)
    (cd "$D" && timeout 300 "$q" -machine virt -nographic -bios "$ELF" \
       -semihosting-config enable=on,target=native "${loader[@]}" > uart.log 2>&1) ||
      { echo "run failed: $q te=$te kernel=$kernel" >&2; cat "$D/uart.log" >&2; return 1; }
    t1=$(date +%s%N)
    t=$(( (t1 - t0) / 1000000 ))
    if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
  done
  echo "$best"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

for spec in kernel:1:${TSBI_BENCH_KERNEL_ITER:-100000} mixed:0:${TSBI_BENCH_MIXED_ITER:-60000}; do
  IFS=: read -r name kernel iter <<< "$spec"
  base=$(wall "$QN" 0 "$kernel" "$iter") || { fail "bench $name: run failed"; continue; }
  off=$(wall "$Q" 0 "$kernel" "$iter") || { fail "bench $name: run failed"; continue; }
  btm=$(wall "$Q" 0x30 "$kernel" "$iter") || { fail "bench $name: run failed"; continue; }
  htm=$(wall "$Q" 0x60 "$kernel" "$iter") || { fail "bench $name: run failed"; continue; }
  htms=$(wall "$Q" 0x60 "$kernel" "$iter" 1) || { fail "bench $name: run failed"; continue; }
  echo "== $name workload ($iter iterations), best of 3, wall time"
  printf '  %-32s %7s ms  %sx\n' "QEMU without ingress hook" "$base" "1.00"
  printf '  %-32s %7s ms  %sx\n' "project QEMU, tracing off" "$off" "$(ratio "$off" "$base")"
  printf '  %-32s %7s ms  %sx\n' "project QEMU, BTM (SRAM sink)" "$btm" "$(ratio "$btm" "$base")"
  printf '  %-32s %7s ms  %sx\n' "project QEMU, HTM (SRAM sink)" "$htm" "$(ratio "$htm" "$base")"
  printf '  %-32s %7s ms  %sx\n' "project QEMU, HTM (SMEM sink)" "$htms" "$(ratio "$htms" "$base")"
  if [ "$name" = kernel ]; then
    if awk -v h="$htm" -v o="$base" 'BEGIN { exit !(h <= 1.5 * o) }'; then
      pass "bench kernel: HTM within 1.5x of untraced ($(ratio "$htm" "$base")x)"
    else
      fail "bench kernel: HTM $(ratio "$htm" "$base")x of untraced (target 1.5x)"
    fi
    if awk -v t="$btm" -v o="$base" 'BEGIN { exit !(t <= 3 * o) }'; then
      pass "bench kernel: BTM within 3x of untraced ($(ratio "$btm" "$base")x)"
    else
      fail "bench kernel: BTM $(ratio "$btm" "$base")x of untraced (target 3x)"
    fi
    if awk -v a="$off" -v b="$base" 'BEGIN { exit !(a <= 1.10 * b) }'; then
      pass "bench kernel: tracing off costs nothing measurable ($(ratio "$off" "$base")x)"
    else
      fail "bench kernel: tracing off $(ratio "$off" "$base")x of no-hook build"
    fi
  fi
done
