#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Tandem verification from QEMU (issue 32): the seed 002 trace protocol
# written by the tvtrace TCG plugin (tests/qemu/plugin/tvtrace.c) and
# compared by `tsbi-trace tv compare`. One payload (tests/qemu/payload/tv.c),
# three runs under -icount of the project QEMU: two alike, one with another
# marchid. Checked against the insnlog plugin's record of the same run and
# the payload's objdump.
. "$(dirname "$0")/../lib.sh"
W=$PWD/build/test-logs/tv
rm -rf "$W"; mkdir -p "$W"

build qemu trace trace-tests qemu-payloads qemu-plugin
Q=$(readlink -f build/qemu/qemu-system-riscv64)
T=build/trace/tsbi-trace
ELF=build/qemu-tests/tv.elf
TV=build/qemu-tests/libtvtrace.so
LOG=build/qemu-tests/libinsnlog.so

# The seed's Appendix C examples, byte for byte (decode, re-encode, compare).
python3 tests/host/doctest_lines.py "tv seed 002" build/trace/trace-tests -tc='tv appendix*,tv stream: records*'

# run NAME [QEMU OPTIONS...]: the payload under -icount with tvtrace (and
# insnlog priv=on: every executed instruction, trapping ones included).
run() {
  local n=$1; shift
  timeout 120 "$Q" -machine virt -smp 1 -nographic -bios "$ELF" -icount shift=0,sleep=off "$@" \
    -plugin "$TV,out=$W/$n.tv" -plugin "$LOG,out=$W/$n.log,priv=on" </dev/null >"$W/$n.out" 2>&1
  echo $? >"$W/$n.rc"
}
run a
run b
run c -cpu rv64,marchid=0x1234
for n in a b c; do
  if [ "$(cat "$W/$n.rc")" = 0 ] && ! grep -aq '^FAIL' "$W/$n.out" && grep -aq '^PASS' "$W/$n.out"; then
    pass "tv payload run $n under tvtrace and insnlog"
  else
    fail_log "tv payload run $n under tvtrace and insnlog" "$W/$n.out" "expected exit 0 and PASS lines only"
  fi
done

# One record per executed instruction (insnlog's lines), plus the reset
# record and the one interrupt (the payload's timer tick), up to the store
# that asks for the power-off: after it the hart spins (j .) until QEMU's
# main loop stops it, a number of instructions that depends on the host.
# So the comparison covers the records before that store's.
off_pc=$(riscv64-linux-gnu-objdump -d "$ELF" | sed -n '/<poweroff>:/,/^$/p' | awk '$3 == "sw" { sub(":", "", $1); print "0x" $1 }')
off_line=$(grep -n "^$off_pc " "$W/a.log.0" | tail -1 | cut -d: -f1)
$T tv compare --records "$((off_line + 1))" "$W/a.tv.0" "$W/b.tv.0" >"$W/ab.txt" 2>&1; rc=$?
echo "power-off store $off_pc at insnlog line $off_line" >>"$W/ab.txt"
expect_eq "tv compare of two -icount runs up to the power-off: equal, one record per instruction + reset + interrupt" \
  "$W/ab.txt" "0 equal, $((off_line + 1)) records" "$rc $(head -1 "$W/ab.txt")"

# The record kinds of the seed, as the dump shows them.
$T tv dump "$W/a.tv.0" >"$W/a.dump" 2>&1
kind() { # NAME PATTERN (grep -E over the dump, context lines joined)
  if grep -Eq -- "$2" "$W/a.dump.joined"; then pass "tv trace has $1"
  else fail_log "tv trace has $1" "$W/a.dump" "expected a record matching '$2'"; fi
}
# One line per record: items joined by " | ".
awk '/begin group/ { if (r) print r; r = "" } { sub(/^[0-9a-f]+: ([0-9a-f][0-9a-f] )+ /, ""); r = r " | " $0 }
     END { print r }' "$W/a.dump" >"$W/a.dump.joined"
kind "the reset record first" '^ \| begin group \| hart reset \| additional state pc = 0x1000 \| additional state privilege mode = 0x3'
kind "ecall as an exception (C.7: new pc, instruction, mepc, mcause 11, mstatus, mtval, privilege)" \
  'additional state pc = 0x[0-9a-f]+ \| 32-bit instruction 0x00000073 \| full register csr 0x341 = 0x[0-9a-f]+ \| full register csr 0x342 = 0xb \| full register csr 0x300 = 0x[0-9a-f]+ \| full register csr 0x343 = 0x0 \| additional state privilege mode = 0x3'
kind "the timer interrupt (C.8: no instruction, mcause 0x8000000000000007)" \
  '^ \| begin group \| additional state pc = 0x[0-9a-f]+ \| full register csr 0x341 = 0x[0-9a-f]+ \| full register csr 0x342 = 0x8000000000000007 '
kind "mret (mstatus and privilege)" '32-bit instruction 0x30200073 \| full register csr 0x300 = 0x[0-9a-f]+ \| additional state privilege mode = 0x3'
kind "an FP exception flag as incremental OR of fcsr (C.3)" 'incremental register csr 0x003 \|= 0x08'
kind "a store: physical address and store data" 'additional state physical address = 0x8[0-9a-f]+ \| additional state store data 64 = '
kind "a 16-bit instruction with its GPR" '16-bit instruction 0x[0-9a-f]{4} \| full register x[0-9]+ = '
kind "a CSR write (csrw mtvec)" 'full register csr 0x305 = 0x8'
kind "a PMP CSR write (pmpaddr0)" 'full register csr 0x3b0 = 0x'
kind "mret into S-mode (privilege 1)" '32-bit instruction 0x30200073 \| full register csr 0x300 = 0x[0-9a-f]+ \| additional state privilege mode = 0x1'
kind "an exception delegated to S-mode (sepc, scause 2, sstatus, stval = the instruction, privilege 1)" \
  '32-bit instruction 0x340025f3 \| full register csr 0x141 = 0x[0-9a-f]+ \| full register csr 0x142 = 0x2 \| full register csr 0x100 = 0x[0-9a-f]+ \| full register csr 0x143 = 0x340025f3 \| additional state privilege mode = 0x1'
kind "sret (privilege 1)" '32-bit instruction 0x10200073 \| full register csr 0x300 = 0x[0-9a-f]+ \| additional state privilege mode = 0x1'
kind "ecall from S-mode (mcause 9, privilege 3)" '32-bit instruction 0x00000073 \| full register csr 0x341 = 0x[0-9a-f]+ \| full register csr 0x342 = 0x9 \|.* privilege mode = 0x3'
rec=$(sed -n "$((off_line + 2))p" "$W/a.dump.joined")
case $rec in *"16-bit instruction 0xc31c | additional state physical address = 0x100000 | additional state store data 32 = 0x5555"*)
  pass "tv record $((off_line + 1)) is the power-off store (insnlog line $off_line + the interrupt record)" ;;
  *) fail_log "tv record $((off_line + 1)) is the power-off store" "$W/a.dump" "got '$rec'" ;; esac

# Another marchid: the first divergence is the csrr of marchid, at the record
# whose index is its line in insnlog's record, at its objdump address.
pc=$(riscv64-linux-gnu-nm "$ELF" | awk '$3 == "tv_read_marchid" { print "0x" $1 }' | sed 's/0x0*/0x/')
line=$(grep -n "^$pc " "$W/a.log.0" | head -1 | cut -d: -f1)
dis=$(riscv64-linux-gnu-objdump -d "$ELF" | grep -E "^ *${pc#0x}:" | tr -s ' \t' ' ')
$T tv compare "$W/a.tv.0" "$W/c.tv.0" >"$W/ac.txt" 2>&1; rc=$?
echo "objdump: $dis; insnlog line of $pc: $line" >>"$W/ac.txt"
first=$(head -1 "$W/ac.txt")
expect_eq "tv compare with -cpu marchid=0x1234: exit 1, at the csrr of marchid (record = its insnlog line $line, pc = objdump's $pc, a5 = x15)" \
  "$W/ac.txt" "1 first divergence at record $line, pc $pc: x15: 0x0 vs 0x1234" \
  "$rc $(echo "$first" | sed 's/ (offsets [0-9]* and [0-9]*)//')"
case $dis in *"csrr a5,marchid"*) pass "tv: objdump says $pc is csrr a5,marchid ($dis)" ;;
  *) fail_log "tv: objdump says $pc is csrr a5,marchid" "$W/ac.txt" "got '$dis'" ;; esac
expect_line "tv compare shows the records before it, and both versions of it" "$W/ac.txt" \
  "^  b #$line pc $pc: instruction=0xf12027f3 x15=0x1234"

# A trace cut short, and bytes that are no trace.
head -c 1000 "$W/a.tv.0" >"$W/cut.tv"
$T tv compare "$W/a.tv.0" "$W/cut.tv" >"$W/cut.txt" 2>&1; rc=$?
expect_eq "tv compare with a trace cut inside an item: exit 1, malformed trace B" "$W/cut.txt" \
  "1 yes" "$rc $(grep -q "cut.tv offset [0-9]* (record [0-9]*): trace ends inside an item" "$W/cut.txt" && echo yes)"
n=$(grep -c 'begin group' "$W/a.dump")
head -c "$(grep 'begin group' "$W/a.dump" | sed -n 101p | cut -d: -f1 | sed 's/^/0x/' | xargs printf '%d')" "$W/a.tv.0" >"$W/short.tv"
$T tv compare "$W/a.tv.0" "$W/short.tv" >"$W/short.txt" 2>&1; rc=$?
expect_eq "tv compare with the first 100 of $n records: divergence 'end of trace' at record 100" "$W/short.txt" \
  "1 yes" "$rc $(grep -q '^first divergence at record 100, .*: end of trace: record vs end' "$W/short.txt" && echo yes)"
