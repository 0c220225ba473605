#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# A traced Linux boot decoded end to end (make trace-linux VERIFY=1): Linux 6.12
# on 2 harts of the project QEMU with the firmware's boot-time HTM trace of S-mode;
# every hart's decoded stream must equal the S-mode instructions the insnlog
# plugin recorded in the same run, at least 10^8 of them in all.
. "$(dirname "$0")/../lib.sh"

for t in fdtput timeout awk; do
  command -v "$t" >/dev/null || { fail "trace-linux: $t missing (run scripts/bootstrap.sh)"; exit 1; }
done
build firmware trace linux-initrd-boot
if ! flock /tmp/tsbi-qemu10.lock scripts/qemu10.sh path >build/test-logs/qemu10-path.log 2>&1; then
  tail -5 build/test-logs/qemu10-path.log; fail "trace-linux: the project QEMU does not build"; exit 1
fi
build qemu-plugin
LOG=build/test-logs/trace-linux.log
tests/tracelinux/run.sh --verify >"$LOG" 2>&1
rc=$?
grep -E '^(trace-linux:|hart|trace buffer|rewritten code|  *[0-9]+  )' "$LOG" | grep -v '^trace-linux: /' | sed 's/^/    /'
if [ $rc = 2 ]; then fail "trace-linux: an input is missing [$(grep -m1 'missing' "$LOG")]"; exit 1; fi
check "trace-linux: the traced boot powered off" grep -q '^trace-linux: boot wall time' "$LOG"
check "trace-linux: the trace buffer was stopped and flushed, nothing lost" \
  grep -qE '^trace buffer at .*state 2 \(stopped and flushed\), flags 0x0,' "$LOG"
for h in 0 1; do
  n=$(awk -v h="$h" '$1 == h && NF == 5 { print $2 }' "$LOG")
  e=$(awk -v h="$h" '$1 == h && NF == 5 { print $5 }' "$LOG")
  if [ -n "$n" ] && [ "$e" = 0 ] && [ "$n" -gt 0 ]; then pass "trace-linux: hart $h decodes without errors ($n instructions)"
  else fail "trace-linux: hart $h decodes without errors [${n:-no} instructions, ${e:-?} errors]"; fi
  r=$(grep -E "^hart $h: ([0-9]+ instructions|MISMATCH|no record)" "$LOG")
  if [ -n "$r" ] && ! grep -qE "^hart $h: (MISMATCH|no record)" "$LOG"; then pass "trace-linux: hart $h decoded stream equals the record (${r#hart $h: })"
  else fail "trace-linux: hart $h decoded stream equals the record [${r:-no comparison}]"; fi
done
total=$(sed -n 's/^trace-linux: \([0-9]*\) instructions compared.*/\1/p' "$LOG")
if [ "${total:-0}" -ge 100000000 ] && grep -q '^trace-linux: .* instructions compared, all equal' "$LOG"
then pass "trace-linux: ${total} S-mode instructions compared, all equal (>= 10^8)"
else fail "trace-linux: >= 10^8 S-mode instructions compared, all equal [$(tail -1 "$LOG")]"; fi
rm -f build/trace-linux/ram.bin build/trace-linux/record.* build/trace-linux/decoded.*
