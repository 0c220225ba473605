#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Boot cost and footprint, ours and OpenSBI's side by side (issue 29): the
# M-mode instructions before the boot hart's first S-mode instruction at 1,
# 8, 64 and 512 harts, what an HSM start costs a secondary hart until its
# first S-mode instruction, and the firmware's memory. The probe is
# tests/bench/bootcost (README there: how it counts). QEMU 7.2 virt,
# -icount shift=0,sleep=off, so the numbers do not depend on the host.
. "$(dirname "$0")/../lib.sh"
build firmware bootcost
out=build/test-logs/bench-bootcost; mkdir -p "$out"
OSBI11=$(scripts/opensbi.sh path 1.1) || { fail "bench/bootcost/opensbi-1.1 missing"; exit 0; }
OSBI16=$(scripts/opensbi.sh path 1.6) || { fail "bench/bootcost/opensbi-1.6 missing"; exit 0; }
declare -A fwpath=([tsbi]=build/fw/tsbi_dynamic.bin [opensbi-1.1]=$OSBI11 [opensbi-1.6]=$OSBI16)
harts="1 8 64 512"
# The peers' runs are PEER lines, and get PEER_TIMEOUT seconds: OpenSBI's
# harts wait for the cold boot in a loop that, under -icount with hundreds of
# harts taking turns, makes a 512-hart boot take longer than a bench should.
PEER_TIMEOUT=${PEER_TIMEOUT:-180}
for fw in tsbi opensbi-1.1 opensbi-1.6; do
  for n in $harts; do
    log=$out/$fw-smp$n.log t=900
    [ "$fw" = tsbi ] || t=$PEER_TIMEOUT
    timeout "$t" qemu-system-riscv64 -M virt -smp "$n" -m 512M -nographic \
      -icount shift=0,sleep=off -bios "${fwpath[$fw]}" -kernel build/bootcost/bootcost.elf \
      </dev/null >"$log" 2>&1
    if [ "$fw" != tsbi ]; then
      if has_line "$log" "^BOOTCOST done"; then echo "PEER: bench/bootcost/$fw/smp$n: ran"
      else echo "PEER: bench/bootcost/$fw/smp$n: no S-mode within $t s"; fi
    elif has_line "$log" "^BOOTCOST done"; then pass "bench/bootcost/$fw/smp$n/ran"
    else fail_log "bench/bootcost/$fw/smp$n/ran" "$log" "expected 'BOOTCOST done'"; fi
  done
done
val() { grep -a "^BOOTCOST" "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }
echo
echo "M-mode instructions before S-mode (boot hart; QEMU 7.2 virt, -icount shift=0):"
printf '%-12s %6s %10s %12s %14s %12s %14s\n' firmware harts started boot "per extra hart" "start, max" "start, mean"
for fw in tsbi opensbi-1.1 opensbi-1.6; do
  one=$(val "$out/$fw-smp1.log" boot_minsns)
  for n in $harts; do
    l=$out/$fw-smp$n.log b=$(val "$l" boot_minsns) s=$(val "$l" secondaries)
    per=-; [ "$n" -gt 1 ] && [ -n "$b" ] && [ -n "$one" ] && per=$(( (b - one) / (n - 1) ))
    [ -n "$b" ] || { printf '%-12s %6s %10s %12s\n' "$fw" "$n" - "no S-mode"; continue; }
    printf '%-12s %6s %10s %12s %14s %12s %14s\n' "$fw" "$n" "$(( ${s:-0} + 1 ))" "${b:--}" "$per" \
      "$(val "$l" secondary_max)" "$(val "$l" secondary_mean)"
  done
done
echo
echo "Footprint (the firmware's reserved region from the tree S-mode gets; sizes from riscv64-linux-gnu-size):"
for fw in tsbi opensbi-1.1 opensbi-1.6; do
  for n in $harts; do
    r=$(val "$out/$fw-smp$n.log" reserved) d=$(val "$out/$fw-smp$n.log" disabled_cpus)
    printf '%-12s %4s harts: reserved %s bytes, %s cpu node(s) disabled\n' "$fw" "$n" "${r:--}" "${d:--}"
  done
done
printf '%-34s %9s %9s %9s\n' image text data bss
for elf in build/fw/tsbi_dynamic.elf "${OSBI11%.bin}.elf" "${OSBI16%.bin}.elf"; do
  riscv64-linux-gnu-size "$elf" | awk -v n="$elf" 'NR==2 {printf "%-34s %9s %9s %9s\n", (n ~ /opensbi-1.6/ ? "opensbi-1.6" : n ~ /opensbi/ ? "opensbi-1.1" : "tsbi"), $1, $2, $3}'
done
