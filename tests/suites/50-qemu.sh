#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# stdin: terminal (it starts QEMU itself: tests/run_all.sh gives it a pty, as typed
# at a terminal, so a QEMU without its own stdin fails here too)
# Project QEMU 10 with the trace models: builds (or reuses) it, runs the
# register-level tests and the end-to-end trace validation (decoded N-Trace
# == the insnlog plugin's record of executed instructions).
. "$(dirname "$0")/../lib.sh"
LOGS=$PWD/build/test-logs/qemu
mkdir -p "$LOGS"

# compare.py on a synthetic record (no QEMU needed): 10 instructions before
# the traced window (0x2000..0x2094, with a loop), 10 after. A trace missing
# its head or its tail must fail, the whole window pass; the two documented
# exceptions (--lost-head, --within) accept only what they name.
compare_selftest() {
  local t=$LOGS/compare-selftest out rc
  mkdir -p "$t"
  python3 - "$t" <<'PY'
import sys
t = sys.argv[1]
pre = [0x1000 + 4 * i for i in range(10)]
win = [0x2000 + 4 * i for i in range(20)] + [0x2010 + 4 * i for i in range(20)]
post = [0x3000 + 4 * i for i in range(10)]
def put(name, pcs):
    with open(f"{t}/{name}", "w") as f:
        f.writelines(f"{pc:#x}\n" for pc in pcs)
put("record", pre + win + post)
put("whole", win)
put("head_cut", win[3:])
put("tail_cut", win[:-3])
put("full_record", pre + win + post)
# trace-notify at 0x2010 (executed twice in the window), as ntrace decode
# --events prints it: before each execution; one missing; one misplaced
def put_notify(name, before):
    with open(f"{t}/{name}", "w") as f:
        for i, pc in enumerate(win):
            if i in before:
                f.write(f"# notify at offset {i}: addr=0x2010 value=0x6\n")
            f.write(f"{pc:#x}\n")
put_notify("notify_each", {4, 20})
put_notify("notify_missing", {4})
put_notify("notify_misplaced", {4, 20, 21})
PY
  cmp_case() { # NAME WANT(0 pass, 1 fail) DECODED [OPTIONS...]
    local n=$1 want=$2 dec=$3; shift 3
    python3 tests/qemu/compare.py "$t/$dec" "$t/record" "$@" > "$t/$n.out" 2>&1
    rc=$?
    if [ "$rc" = "$want" ]; then pass "compare.py/$n ($(head -1 "$t/$n.out" | cut -c1-200))"
    else fail_log "compare.py/$n" "$t/$n.out" "expected exit status $want, got $rc"; fi
  }
  local w=(--begin 0x2000 --end 0x205c)
  cmp_case window_whole_passes 0 whole "${w[@]}"
  cmp_case window_head_cut_fails 1 head_cut "${w[@]}"
  cmp_case window_tail_cut_fails 1 tail_cut "${w[@]}"
  cmp_case record_whole_passes 0 full_record
  cmp_case record_part_fails 1 whole
  cmp_case lost_head_accepts_head_cut 0 head_cut "${w[@]}" --lost-head
  cmp_case lost_head_tail_cut_fails 1 tail_cut "${w[@]}" --lost-head
  cmp_case lost_tail_accepts_tail_cut 0 tail_cut "${w[@]}" --lost-tail
  cmp_case lost_tail_head_cut_fails 1 head_cut "${w[@]}" --lost-tail
  cmp_case within_accepts_part 0 head_cut --within
  cmp_case within_min_fails 1 head_cut --within --min 100
  cmp_case begin_never_executed_fails 1 whole --begin 0x9000
  cmp_case notify_each_passes 0 notify_each "${w[@]}" --notify 0x2010
  cmp_case notify_missing_fails 1 notify_missing "${w[@]}" --notify 0x2010
  cmp_case notify_misplaced_fails 1 notify_misplaced "${w[@]}" --notify 0x2010
  cmp_case notify_count_passes 0 whole "${w[@]}" --notify 0x2010 --notify-count 2
  cmp_case notify_count_wrong_fails 1 whole "${w[@]}" --notify 0x2010 --notify-count 3
  # compare_data.py: the window's loads, stores and atomics (instruction
  # lines 10..49 of the record: an LR, an SC that stored, an amoadd.d as
  # serial TCG records it, an SC whose word changed) against decoded data
  # traces with one value wrong, the last access missing, an access from
  # before the window, addresses blanked (--no-addr), an AMO operand wrong,
  # a failed SC given as stored, and the atomics left out. The record also
  # has a cbo.zero's byte stores ("o") and a vector load ("v"), which E-Trace
  # does not data trace: left out, and a decoded trace that has them fails.
  python3 - "$t" <<'PY'
import re
import sys
t = sys.argv[1]
acc = [(10 + 2 * i, "L" if i % 3 else "S", 3, 0x80001000 + 8 * i, 0x1111 * i) for i in range(20)]
A, B = 0x80002000, 0x80002008
atom = [(11, ["L 2 %#x 0x34" % A]), (13, ["L 2 %#x 0x34" % A, "S 2 %#x 0x37" % A]),
        (15, ["L 3 %#x 0x5" % B, "S 3 %#x 0x7" % B]), (17, ["L 2 %#x 0x99" % A, "S 2 %#x 0x99" % A])]
lines = [(idx, f"{idx} {0x2000 + 4 * (idx - 10):#x} {k} {size} {addr:#x} {val:#x}") for idx, k, size, addr, val in acc]
lines += [(idx, f"{idx} {0x2000 + 4 * (idx - 10):#x} {x} a") for idx, xs in atom for x in xs]
Z = 0x80003000
untraced = [(19, f"S 0 {Z + i:#x} 0x0 o") for i in range(8)] + [(21, f"L 3 {Z + 64:#x} 0x42 v")] * 2
lines += [(idx, f"{idx} {0x2000 + 4 * (idx - 10):#x} {x}") for idx, x in untraced]
with open(f"{t}/mem", "w") as f:
    f.write("3 0x100c S 3 0x80000ff8 0x5\n")
    for _, line in sorted(lines, key=lambda x: x[0]):
        f.write(line + "\n")
def line(k, size, addr, val):
    return f"{'load' if k == 'L' else 'store'} size={size:x} addr={addr:#x} data={val:#x}"
def put(name, rows):
    with open(f"{t}/{name}", "w") as f:
        f.write("".join(r + "\n" for _, r in sorted(rows, key=lambda x: x[0])))
plain = [(idx, line(k, size, addr, val)) for idx, k, size, addr, val in acc]
atoms = [(11, f"load size=2 addr={A:#x} data=0x34"), (13, f"store size=2 addr={A:#x} data=0x37"),
         (15, f"amo size=3 op=1 addr={B:#x} data=0x5 operand=0x2"), (17, f"sc_fail size=2 addr={A:#x}"),
         (18, f"sc_fail size=3 addr={B:#x}")]  # an SC without reservation: no access recorded
rows = plain + atoms
put("data_whole", rows)
put("data_value_wrong", rows[:5] + [(rows[5][0], rows[5][1][:-1] + "f")] + rows[6:])
put("data_tail_cut", rows[:19] + atoms)
put("data_outside", [(0, line("S", 3, 0x80000ff8, 5))] + rows)
put("data_noaddr", [(i, re.sub(r"addr=\S+", "addr=0x0", r)) for i, r in rows])
put("data_amo_operand_wrong", plain + [a if a[0] != 15 else (15, a[1].replace("operand=0x2", "operand=0x3"))
                                       for a in atoms])
put("data_sc_failed_as_stored", plain + [a if a[0] != 17 else (17, f"store size=2 addr={A:#x} data=0x99")
                                         for a in atoms])
put("data_no_atomics", plain)
put("data_cbo_zero_traced", rows + [(19, line("S", 0, Z + i, 0)) for i in range(8)])
PY
  dcmp_case() { # NAME WANT DECODED [OPTIONS...]
    local n=$1 want=$2 dec=$3; shift 3
    python3 tests/qemu/compare_data.py "$t/$dec" "$t/record" "$t/mem" --begin 0x2000 --end 0x205c "$@" \
      > "$t/$n.out" 2>&1
    rc=$?
    if [ "$rc" = "$want" ]; then pass "compare_data.py/$n ($(head -1 "$t/$n.out" | cut -c1-200))"
    else fail_log "compare_data.py/$n" "$t/$n.out" "expected exit status $want, got $rc"; fi
  }
  dcmp_case whole_passes 0 data_whole
  dcmp_case value_wrong_fails 1 data_value_wrong
  dcmp_case tail_cut_fails 1 data_tail_cut
  dcmp_case access_outside_window_fails 1 data_outside
  dcmp_case addresses_blank_fail 1 data_noaddr
  dcmp_case no_addr_passes_blank_addresses 0 data_noaddr --no-addr
  dcmp_case within_passes_part 0 data_tail_cut --within
  dcmp_case within_value_wrong_fails 1 data_value_wrong --within
  dcmp_case amo_operand_wrong_fails 1 data_amo_operand_wrong
  dcmp_case sc_failed_as_stored_fails 1 data_sc_failed_as_stored
  dcmp_case atomics_left_out_fail 1 data_no_atomics
  dcmp_case cbo_zero_in_decoded_fails 1 data_cbo_zero_traced
  if grep -q "left out: 2 vector, 8 cbo.zero accesses" "$t/whole_passes.out"; then pass "compare_data.py/untraced_counted"
  else fail_log "compare_data.py/untraced_counted" "$t/whole_passes.out" "expected 'left out: 2 vector, 8 cbo.zero accesses'"; fi
}
compare_selftest

build qemu
build qemu-payloads qemu-plugin build/trace/tci_sh
Q=$(readlink -f build/qemu/qemu-system-riscv64)
PLUGIN=$PWD/build/qemu-tests/libinsnlog.so
ELF=$PWD/build/qemu-tests/trace.elf

# Payload PASS/FAIL lines get a prefix; a payload that dies without a FAIL
# line (hang, crash, non-zero exit) is a FAIL, and so is one that printed no
# result at all (it did not run: nothing it would have checked was checked).
run_payload() {
  local name=$1 log=$2 rc=$3
  sed -nE "s/^(PASS|FAIL): /\1: $name: /p" "$log"
  if grep -aq '^FAIL' "$log"; then
    echo "  evidence for $name: last lines of $log:"; log_tail "$log"
  fi
  if ! grep -aqE '^(PASS|FAIL): ' "$log"; then
    fail_log "$name: payload ran" "$log" "expected PASS/FAIL lines from the payload, none came (QEMU exit status $rc)"
  elif [ "$rc" != 0 ] && ! grep -aq '^FAIL' "$log"; then
    fail_log "$name: qemu exited $rc (timeout or crash)" "$log" "expected exit status 0, got $rc"
  fi
}

# Every QEMU here reads /dev/null: under `timeout` it is in a background
# process group, and with a terminal on stdin its stdio set-up would stop it
# (SIGTTOU) until the timeout.
timeout 60 "$Q" -machine virt -smp 2 -nographic -bios build/qemu-tests/regs.elf \
  </dev/null > "$LOGS/regs.log" 2>&1
run_payload regs "$LOGS/regs.log" $?

# Decoder: the host N-Trace codec's CLI (hw_models/trace).
if make -s trace > "$LOGS/make-trace.log" 2>&1 && [ -x build/trace/tsbi-trace ]; then
  DEC=build/trace/tsbi-trace
else
  DEC=
  fail_log "decoder: build/trace/tsbi-trace does not build (end-to-end validation cannot run)" \
    "$LOGS/make-trace.log"
fi

# bits_list MASK N...: the Ns whose bit is set in MASK, comma-separated
bits_list() {
  local mask=$1 out=() n
  shift
  for n in "$@"; do
    if (( (mask >> n) & 1 )); then out+=("$n"); fi
  done
  (IFS=,; echo "${out[*]}")
}

# run_trace NAME SMP MIN "TE_CONTROL INST_FEATURES ITER SMEM HARTS TS LOSS" DECODER-OPTS...
# Optional environment: EXTRA (more QEMU options), EXPECT (fields that the
# dumped trace must contain, e.g. "RCODE=0x2", showing the option was used),
# GDBSTOP (a symbol: a debugger stops there once, tests/qemu/gdbstop.py),
# NEEDS (a decoder option the trace cannot be decoded without, showing the
# encoder used the optimisation it names), FILTER (a privilege mask for the
# encoder's filter 0: only instructions in those privileges are traced and
# compared), FILTER_ECAUSE (a cause mask) and FILTER_IRQ (1 interrupts, 2
# exceptions): filter 0 traces trap windows, compared with the record's,
# LOST_HEAD=1 (the trace is known to have lost its beginning: compare.py
# --lost-head), ETRACE=1 (trTeFormat 0: E-Trace, decoded with etrace decode),
# DATA (trTeDataControl: with its Tracing bit the E-Trace data trace is
# decoded too and must equal the loads and stores the plugin's mem=on record
# shows in the same window, tests/qemu/compare_data.py; DATA_CMP: its
# --no-value/--no-addr), DATA_LATE=1 (trTeDataControl written only after
# tracing started: the data window starts after data_enable's store).
# COMP (trTeComp{j}Control of comparator COMP_SLOT, default 0, with
# COMP_P/COMP_S its PMatch/SMatch; filter 0 uses it) with one of
# ADDR_RANGE=LO:HI / LATCH=P:S (what compare.py keeps of the window: the
# instructions it lets through); TRIG=ON:OFF (Sdtrig trace-on/off execute
# triggers at ON and OFF start and stop the trace: compare.py --trig);
# NOTIFY=PC (an Sdtrig trace-notify execute trigger at PC: decoded with
# --events, compare.py --notify checks a SYNC=6 message before each of its
# executions); CMP_BEGIN (the first traced instruction when it is not
# TRACE_BEGIN's).
#
# Each hart's decoded trace must equal the record from the first traced
# instruction to the last (compare.py --begin/--end). The encoder starts and
# stops at a translation-block boundary (hw_models/qemu/README.md, "Ingress
# port"), and the write to trTeControl, an MMIO store, ends its block (QEMU
# 10 retranslates a block so that an I/O access is its last instruction): so
# the first traced instruction is the one after the store that sets
# InstTracing (encoder_start's last store), and the last one is the store
# that clears it (tr_disable's only store). Measured so on every run here.
objdump_lines() { riscv64-linux-gnu-objdump -d --no-show-raw-insn "$ELF"; }
# fn_stores FUNC: "ADDR NEXT" for every store instruction in FUNC (NEXT: the
# address of the instruction after it)
fn_stores() {
  objdump_lines | awk -F'\t' -v fn="<$1>:" '
    /^[0-9a-f]+ </ { inside = ($0 ~ fn); next }
    inside && /^ *[0-9a-f]+:/ { a = $1; sub(/^ */, "", a); sub(/:$/, "", a)
                                if (st != "") { print "0x" st, "0x" a; st = "" }
                                if ($2 ~ /^(c\.)?s[bhwd]$/) st = a }'
}
TRACE_BEGIN=$(fn_stores encoder_start | tail -1 | cut -d' ' -f2)
TRACE_END=$(fn_stores tr_disable | head -1 | cut -d' ' -f1)
DATA_BEGIN=$(fn_stores data_enable | tail -1 | cut -d' ' -f2)
[ -n "$TRACE_BEGIN" ] && [ -n "$TRACE_END" ] ||
  fail "trace window: no store in encoder_start or tr_disable of $ELF (begin '$TRACE_BEGIN', end '$TRACE_END')"

run_trace() {
  local name=$1 smp=$2 min=$3 i=0 loader=() w h rc d cfg gdb=() gpid= port addr sb
  d=$LOGS/trace-$name
  read -r -a cfg <<< "$4"
  shift 4
  sb=$(( cfg[4] > 16 ? 5 : 4 ))   # SrcBits the payload programs (trace.c SRC_BITS)
  rm -rf "$d"; mkdir -p "$d"
  # compare.py options that cut the record down to what filter 0 lets through
  local plugargs=out=insn cmpopts=(--begin "${CMP_BEGIN:-$TRACE_BEGIN}" --end "$TRACE_END") fmt=ntrace
  [ -z "${ETRACE:-}" ] || fmt=etrace
  [ -z "${LOST_HEAD:-}" ] || cmpopts+=(--lost-head)
  [ -z "${FILTER:-}${FILTER_ECAUSE:-}${FILTER_IRQ:-}" ] || plugargs=out=insn,priv=on
  [ -z "${DATA:-}" ] || plugargs=$plugargs,mem=on
  [ -z "${ADDR_RANGE:-}" ] || cmpopts+=(--addr-range "$ADDR_RANGE")
  [ -z "${LATCH:-}" ] || cmpopts+=(--latch "$LATCH")
  [ -z "${NOTIFY:-}" ] || cmpopts+=(--notify "$NOTIFY")
  local TRIG_ON=0 TRIG_OFF=0
  # the triggers start the trace: the window is the whole record up to the end
  [ -z "${TRIG:-}" ] || { cmpopts=(--end "$TRACE_END" --trig "$TRIG"); TRIG_ON=${TRIG%%:*}; TRIG_OFF=${TRIG##*:}; }
  [ -z "${FILTER:-}" ] || cmpopts+=(--priv "$(bits_list "$FILTER" "$TCI_PRIV_U" "$TCI_PRIV_S" \
                                      "$TCI_PRIV_M" "$TCI_PRIV_VU" "$TCI_PRIV_VS")")
  if [ -n "${FILTER_ECAUSE:-}${FILTER_IRQ:-}" ]; then
    cmpopts+=(--trap-window "0x$(nm "$ELF" | awk '$3 == "trap_entry" {print $1}')")
    [ -z "${FILTER_ECAUSE:-}" ] || cmpopts+=(--causes "$(bits_list "$FILTER_ECAUSE" $(seq 0 31))")
    [ -z "${FILTER_IRQ:-}" ] || cmpopts+=(--irq $(( FILTER_IRQ == 1 ? 1 : 0 )))
  fi
  for w in 0x54534249 "${cfg[@]}" ${KERNEL:-0} ${FILTER:-0} ${FILTER_ECAUSE:-0} ${FILTER_IRQ:-0} \
           ${ETRACE:-0} ${DATA:-0} ${DATA_LATE:-0} ${COMP:-0} ${COMP_P:-0} ${COMP_S:-0} ${COMP_SLOT:-0} \
           "${TRIG_ON:-0}" "${TRIG_OFF:-0}" "${NOTIFY:-0}"; do
    loader+=(-device "loader,addr=$((0x80ff0000 + 4 * i)),data=$w,data-len=4")
    i=$((i + 1))
  done
  if [ -n "${GDBSTOP:-}" ]; then
    addr=$(nm "$ELF" | awk -v s="$GDBSTOP" '$3 == s {print "0x" $1}')
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    gdb=(-S -gdb "tcp:127.0.0.1:$port")
    timeout 300 python3 tests/qemu/gdbstop.py "$port" "$addr" </dev/null > "$d/gdb.log" 2>&1 &
    gpid=$!
  fi
  (cd "$d" && timeout 300 "$Q" -machine virt -smp "$smp" -nographic -bios "$ELF" \
     -semihosting-config enable=on,target=native -plugin "$PLUGIN,$plugargs" "${loader[@]}" ${EXTRA:-} \
     "${gdb[@]}" </dev/null > uart.log 2>&1)
  rc=$?
  if [ -n "$gpid" ]; then
    if wait "$gpid"; then pass "trace-$name: debugger stopped the hart at $GDBSTOP and resumed it"
    else fail_log "trace-$name: debugger stop at $GDBSTOP" "$d/gdb.log" "expected the debugger to stop and resume the hart"; fi
  fi
  run_payload "trace-$name" "$d/uart.log" $rc
  [ -n "$DEC" ] && [ -s "$d/trace.bin" ] ||
    { fail_log "trace-$name: no trace to decode" "$d/uart.log" "expected $d/trace.bin (decoder '$DEC')"; return; }
  local decoded=0
  for ((h = 0; h < cfg[4]; h++)); do
    if ! "$DEC" "$fmt" decode --elf "$ELF" --src-bits "$sb" --src "$h" ${DATA:+--data "$d/data.$h"} "$@" \
         "$d/trace.bin" > "$d/decoded.$h" 2> "$d/decode.$h.err"; then
      fail_log "trace-$name: hart $h: decoder error" "$d/decode.$h.err"; continue
    fi
    [ "$h" != 0 ] || decoded=1
    # E-Trace's notify bit has no decoded position: the decoder's count
    local ncount=()
    [ -z "${NOTIFY:-}" ] || [ "$fmt" != etrace ] ||
      ncount=(--notify-count "$(sed -n 's/^tsbi-trace: \([0-9]*\) trace-notify packets.*/\1/p' "$d/decode.$h.err")")
    [ "${ncount[1]:-x}" != "" ] || ncount[1]=0
    if python3 tests/qemu/compare.py "$d/decoded.$h" "$d/insn.$h" --min "$min" "${cmpopts[@]}" "${ncount[@]}" \
         </dev/null > "$d/compare.$h" 2>&1; then
      pass "trace-$name: hart $h: decoded trace equals executed instructions ($(head -1 "$d/compare.$h" | cut -d' ' -f1) insns)"
      [ -z "${NOTIFY:-}" ] || pass "trace-$name: hart $h: $(sed -n 2p "$d/compare.$h")"
    else
      fail_log "trace-$name: hart $h: decoded trace equals executed instructions" "$d/compare.$h" \
        "$(head -1 "$d/compare.$h") (decoded $d/decoded.$h, record $d/insn.$h)"
    fi
    [ -n "${DATA:-}" ] || continue
    local dbegin=$TRACE_BEGIN
    [ -z "${DATA_LATE:-}" ] || dbegin=$DATA_BEGIN
    if python3 tests/qemu/compare_data.py "$d/data.$h" "$d/insn.$h" "$d/insn.mem.$h" --min "$((min / 10))" \
         --begin "$dbegin" --end "$TRACE_END" ${DATA_CMP:-} \
         </dev/null > "$d/compare-data.$h" 2>&1; then
      pass "trace-$name: hart $h: decoded data trace equals executed loads and stores ($(head -1 "$d/compare-data.$h"))"
    else
      fail_log "trace-$name: hart $h: decoded data trace equals executed loads and stores" "$d/compare-data.$h" \
        "$(head -1 "$d/compare-data.$h") (decoded $d/data.$h, record $d/insn.mem.$h)"
    fi
  done
  # Without the option the decode must fail, which only means something when
  # it succeeds with it.
  if [ -n "${NEEDS:-}" ] && [ "$decoded" = 0 ]; then
    fail_log "trace-$name: cannot be decoded without $NEEDS" "$d/decode.0.err" \
      "hart 0's trace does not decode even with $NEEDS, so failing without it proves nothing"
  elif [ -n "${NEEDS:-}" ]; then
    local o=() x
    for x in "$@"; do [ "$x" = "$NEEDS" ] || o+=("$x"); done
    if "$DEC" ntrace decode --elf "$ELF" --src-bits "$sb" --src 0 "${o[@]}" "$d/trace.bin" \
         > /dev/null 2> "$d/decode.without.err"; then
      fail "trace-$name: decodes without $NEEDS (the optimisation was not used): expected a decoder error without it, it decoded"
    else
      pass "trace-$name: cannot be decoded without $NEEDS ($(head -1 "$d/decode.without.err" | cut -c1-80))"
    fi
  fi
  if [ -n "${EXPECT:-}" ]; then
    "$DEC" ntrace dump --fields --src-bits "$sb" "$@" "$d/trace.bin" > "$d/dump.txt" 2>&1
    for w in $EXPECT; do
      if grep -q "^$w" "$d/dump.txt"; then pass "trace-$name: trace contains $w"
      else fail_log "trace-$name: trace contains $w" "$d/dump.txt" "expected a field $w in the dumped trace, none came"; fi
    done
  fi
}

# Register values from the Trace Control Interface map (hw_models/trace/tci_regs.def).
eval "$(build/trace/tci_sh)"
# tci REG FIELD [VALUE]: VALUE (default 1) in field FIELD of register REG
tci() { local lsb=TCI_$1_$2_LSB; echo $(( ${3:-1} << ${!lsb} )); }
# trTeControl: InstMode; periodic sync every 2^(6+4) halfwords, Ownership messages (Context)
BTM=$(tci trTeControl InstMode "$TCI_INSTMODE_BTM"); HTM=$(tci trTeControl InstMode "$TCI_INSTMODE_HTM")
OPT_SYNC=$(( $(tci trTeControl InstSyncMode "$TCI_SYNCMODE_HALFWORDS") | $(tci trTeControl InstSyncMax 6) |
             $(tci trTeControl Context) ))
# trTeInstFeatures
IRET_FULL=$(( $(tci trTeInstFeatures EnImplicitReturn) |
              $(tci trTeInstFeatures ImplicitReturnMode "$TCI_IRETMODE_FULL") ))
IRET_PART=$(( $(tci trTeInstFeatures EnImplicitReturn) |
              $(tci trTeInstFeatures ImplicitReturnMode "$TCI_IRETMODE_PARTIAL") ))
REP=$(tci trTeInstFeatures EnRepeatedHistory); ALLJ=$(tci trTeInstFeatures EnAllJumps)
EXT=$(tci trTeInstFeatures ExtendAddrMSB); SEQ=$(tci trTeInstFeatures EnSequentialJump)
# trTsControl: the encoders take the funnel's timestamp into their messages
TS_SHARED=$(( $(tci trTsControl Active) | $(tci trTsControl Mode "$TCI_TSMODE_SHARED") |
              $(tci trTsControl Enable) ))
# filter 0 privilege choice: one bit per priv value
PRIV_S=$(( 1 << TCI_PRIV_S )); PRIV_M=$(( 1 << TCI_PRIV_M ))

run_trace btm-sram 1 1000 "$BTM 0 16 0 1 0 0"
run_trace htm-sram 1 1000 "$HTM 0 16 0 1 0 0"
run_trace btm-1m 1 1000000 "$BTM 0 330 1 1 0 0"
run_trace htm-1m 1 1000000 "$HTM 0 330 1 1 0 0"
# Ownership (Context=1): hcontext (FORMAT 3, mcontext=5) then scontext
# (FORMAT 2, 0x1d) when S-mode writes scontext: PROCESS 0xA7 and 0x3A6
EXPECT="TCODE=2 SYNC=0x2 TCODE=29 TSTAMP RCODE=0x1 PROCESS=0xA7 PROCESS=0x3A6" \
run_trace htm-opt-1m 1 1000000 "$((HTM | OPT_SYNC)) $((IRET_FULL | REP | EXT)) 330 1 1 $TS_SHARED 0" \
  --implicit-return=3 --extend-addr --tstamp
EXPECT="TCODE=30 TCODE=11 TCODE=2 TSTAMP" \
run_trace btm-opt 1 10000 "$((BTM | OPT_SYNC)) $((IRET_PART | REP | ALLJ | EXT)) 32 1 1 $TS_SHARED 0" \
  --implicit-return=3 --all-jumps --extend-addr --tstamp
# sequential jumps (auipc + jalr, seqjump.S): inferred, one across a page
# boundary reported as uninferable
NEEDS=--seq-jump run_trace htm-seqjump 1 10000 "$HTM $((SEQ | IRET_FULL)) 32 1 1 0 0" --implicit-return=3 --seq-jump
NEEDS=--seq-jump run_trace btm-seqjump 1 10000 "$BTM $SEQ 32 1 1 0 0" --seq-jump
NEEDS=--seq-jump run_trace btm-seqjump-alljumps 1 10000 "$BTM $((SEQ | ALLJ | IRET_FULL)) 32 1 1 0 0" \
  --all-jumps --implicit-return=3 --seq-jump
NEEDS=--seq-jump run_trace htm-seqjump-alljumps 1 10000 "$HTM $((SEQ | ALLJ | REP)) 32 1 1 0 0" --all-jumps --seq-jump
# privilege filters: S-mode only (the trace pauses at every trap into M and
# resumes at the trap return) and M-mode only
FILTER=$PRIV_S EXPECT="EVCODE=0x4 SYNC=0x5" \
run_trace htm-filter-s 1 5000 "$HTM $((IRET_FULL | REP)) 64 1 1 0 0" --implicit-return=3
FILTER=$PRIV_M EXPECT="EVCODE=0x4 SYNC=0x5" run_trace btm-filter-m 1 10000 "$BTM 0 64 1 1 0 0"
# trap-window filters (from the trap to its return): M-mode ecalls (cause
# 11), interrupts (MatchInterrupt), and exceptions with cause 9, S-mode
# ecalls (MatchEcause and MatchInterrupt ANDed)
FILTER_ECAUSE=0x800 EXPECT="EVCODE=0x4 SYNC=0x5" \
run_trace htm-filter-ecall 1 300 "$HTM $IRET_FULL 256 1 1 0 0" --implicit-return=3
FILTER_IRQ=1 EXPECT="EVCODE=0x4 SYNC=0x5" run_trace btm-filter-irq 1 100 "$BTM 0 256 1 1 0 0"
FILTER_ECAUSE=0x200 FILTER_IRQ=2 run_trace htm-filter-secall 1 100 "$HTM 0 256 1 1 0 0"
# comparator filters (TCI 1.0 "Trace Encoder Comparator Registers", filter 0
# MatchComp1..3): only instructions whose address the comparator matches
# are traced, wherever the hart runs them (M, S, recursion, interrupted):
# fib's range as P >= start && S < end (comparator 0, HTM; and in E-Trace),
# match mode 3 from dispatch's entry through its first ret (comparator 1,
# BTM), and the 64-byte block at fib's start as P == block with SMatch as
# its mask, S-mode only (comparator 3, privilege filter too). One boot each.
sym() { nm -S "$ELF" | awk -v s="$1" '$4 == s || index($4, s ".") == 1 {print "0x" $1, "0x" $2; exit}'; }
read -r FIB FIB_SIZE <<< "$(sym fib)"
FIB_END=$(printf '%#x' $((FIB + FIB_SIZE)))
DISPATCH=$(sym dispatch | cut -d' ' -f1)
DISPATCH_RET=$(objdump_lines | awk '/<dispatch>:/ {f = 1; next} f && /^$/ {exit}
                                    f && $2 == "ret" {a = $1; sub(/:$/, "", a); print "0x" a; exit}')
[ -n "$FIB_SIZE" ] && [ -n "$DISPATCH" ] && [ -n "$DISPATCH_RET" ] ||
  fail "comparator tests: fib, dispatch or its ret not found in $ELF ('$FIB' '$FIB_SIZE' '$DISPATCH' '$DISPATCH_RET')"
comp() { echo $(( $(tci trTeComp0Control PFunction "$1") | $(tci trTeComp0Control SFunction "$2") |
                  $(tci trTeComp0Control MatchMode "$3") )); }
RANGE=$(comp "$TCI_COMPFUNC_GE" "$TCI_COMPFUNC_LT" "$TCI_COMPMODE_P_AND_S")
COMP=$RANGE COMP_P=$FIB COMP_S=$FIB_END ADDR_RANGE=$FIB:$FIB_END EXPECT="EVCODE=0x4 SYNC=0x5" \
run_trace htm-comp-range 1 2000 "$HTM $IRET_FULL 64 1 1 0 0" --implicit-return=3
COMP=$RANGE COMP_P=$FIB COMP_S=$FIB_END ADDR_RANGE=$FIB:$FIB_END ETRACE=1 \
run_trace etrace-comp-range 1 2000 "$HTM 0 64 1 1 0 0"
COMP=$(comp "$TCI_COMPFUNC_EQ" "$TCI_COMPFUNC_EQ" "$TCI_COMPMODE_LATCH") COMP_SLOT=1 \
COMP_P=$DISPATCH COMP_S=$DISPATCH_RET LATCH=$DISPATCH:$DISPATCH_RET \
run_trace btm-comp-latch 1 2000 "$BTM 0 64 1 1 0 0"
BLOCK=$(( FIB & ~0x3f ))
COMP=$(comp "$TCI_COMPFUNC_EQ" "$TCI_COMPFUNC_FALSE_OR_MASK" "$TCI_COMPMODE_P") COMP_SLOT=3 \
COMP_P=$BLOCK COMP_S=$(( 0xffffffff & ~0x3f )) FILTER=$PRIV_S \
ADDR_RANGE=$(printf '%#x:%#x' "$BLOCK" $((BLOCK + 0x40))) \
run_trace btm-comp-mask-s 1 500 "$BTM 0 64 1 1 0 0"
# a context comparator (PInput 1: scontext) equal to the value smode_work
# writes: the trace starts with the instruction after that csrw (a CSR
# write ends its block, where the encoder checks) and runs to the end
CTX_ON=$(objdump_lines | awk '$2 == "csrw" && $3 ~ /^scontext,/ {f = 1; next}
                              f && /^ *[0-9a-f]+:/ {a = $1; sub(/:$/, "", a); print "0x" a; exit}')
[ -n "$CTX_ON" ] || fail "comparator tests: no csrw scontext in $ELF"
COMP=$(( $(tci trTeComp0Control PInput "$TCI_COMPINPUT_CONTEXT") | $(tci trTeComp0Control PFunction "$TCI_COMPFUNC_EQ") )) \
COMP_P=$(awk '$2 == "TEST_SCONTEXT" {print $3}' tests/qemu/payload/trace.c) CMP_BEGIN=$CTX_ON EXPECT="SYNC=0x5" \
run_trace btm-comp-context 1 2000 "$BTM 0 64 1 1 0 0"
# Sdtrig trace actions (TCI 1.0 "Debug Trigger Module"): mcontrol6 execute
# triggers with action 2 at isort's entry and 3 at crc32_bits' entry start
# and stop the trace (trTeInstTrigEnable 1, InstTracing 0 when enabled):
# the compute kernel traced from each isort to the next crc32_bits
TRIG="$(sym isort | cut -d' ' -f1):$(sym crc32_bits | cut -d' ' -f1)" KERNEL=1 EXPECT="EVCODE=0x4 SYNC=0x5" \
run_trace htm-trig-onoff 1 2000 "$HTM $IRET_FULL 8 1 1 0 0" --implicit-return=3
# Sdtrig trace-notify (action 4) while tracing, at the head of crc32_bits'
# outer loop (its load: 64 executions a call, each after 32 inner-loop
# branches) in the compute kernel, which has no interrupts (an interrupt
# taken between the trigger and its instruction is the imprecise case,
# hw_models/qemu/README.md): N-Trace 1.0 SYNC=6 (Trace Event) in
# IndirectBranchSync / IndirectBranchHistSync with B-TYPE 0, so the I-CNT and
# HIST before it are kept (the decoded stream still equals the record) and
# each execution is marked (compare.py --notify)
NOTIFY_PC=$(objdump_lines | awk '/<crc32_bits.*>:$/ {f = 1; next}
                                 f && $2 == "lw" {a = $1; sub(/:$/, "", a); print "0x" a; exit}')
[ -n "$NOTIFY_PC" ] || fail "trace-notify: no load in crc32_bits of $ELF"
NOTIFY=$NOTIFY_PC KERNEL=1 \
run_trace htm-trig-notify 1 2000 "$HTM $IRET_FULL 8 1 1 0 0" --implicit-return=3 --events
NOTIFY=$NOTIFY_PC KERNEL=1 run_trace btm-trig-notify 1 2000 "$BTM 0 8 1 1 0 0" --events
# E-Trace (trTeFormat 0): format 1/2 with notify != address[MSB] when the
# instruction retires (E-Trace 2.0 "Format 2 notify and updiscon fields")
NOTIFY=$NOTIFY_PC KERNEL=1 ETRACE=1 run_trace etrace-trig-notify 1 2000 "$HTM 0 8 1 1 0 0"
run_trace htm-alljumps 1 10000 "$HTM $((ALLJ | IRET_FULL)) 32 1 1 0 0" --implicit-return=3 --all-jumps
EXPECT="TCODE=30" run_trace btm-rep-alljumps 1 10000 "$BTM $((ALLJ | REP)) 32 1 1 0 0" --all-jumps
run_trace htm-2harts 2 10000 "$HTM $((IRET_FULL | REP)) 32 1 2 0 0" --implicit-return=3
# more harts than a funnel has inputs (16): encoders -> leaf funnels -> the
# top-level funnel -> sink, found through the device tree; shared timestamps
# forwarded by the leaf funnels
run_trace htm-18harts 18 10000 "$((HTM | OPT_SYNC)) $((IRET_FULL | REP)) 16 1 18 $TS_SHARED 0" \
  --implicit-return=3 --tstamp
# small I-CNT and HIST registers: ResourceFull with RCODE 0 and repeated history (RCODE 2)
EXTRA="-global driver=riscv.trace.encoder,property=icnt-bits,value=6 -global driver=riscv.trace.encoder,property=hist-bits,value=5" \
EXPECT="RCODE=0x0 RCODE=0x1 RCODE=0x2 HREPEAT" \
run_trace htm-small-counters 1 10000 "$HTM $((IRET_FULL | REP)) 32 1 1 0 0" --implicit-return=3
EXTRA="-global driver=riscv.trace.encoder,property=icnt-bits,value=6" EXPECT="RCODE=0x0" \
run_trace btm-small-icnt 1 10000 "$BTM 0 32 1 1 0 0"
# the benchmark's compute kernel decodes too
KERNEL=1 run_trace htm-kernel 1 100000 "$HTM $((IRET_FULL | REP)) 20 1 1 0 0" --implicit-return=3
# InstStallEna: the hart stalls on the full sink while hart 1 drains it: no loss
run_trace btm-stall 2 10000 "$BTM 0 16 0 1 0 2"
run_trace htm-stall 2 10000 "$HTM $((IRET_FULL | REP)) 16 0 1 0 2" --implicit-return=3
# The sink stopped on wrap and was re-armed: the trace holds only what came
# after the loss (Error, then SYNC=7), so its head is lost by design.
EXPECT="TCODE=8 SYNC=0x7" LOST_HEAD=1 \
run_trace btm-loss 1 100 "$BTM 0 16 0 1 0 1"
# Periodic synchronization by hart cycles (InstSyncMode 2: every 2^(6+4) cycles)
OPT_CYC=$(( $(tci trTeControl InstSyncMode "$TCI_SYNCMODE_CYCLES") | $(tci trTeControl InstSyncMax 6) ))
EXPECT="SYNC=0x2" run_trace htm-sync-cycles 1 10000 "$((HTM | OPT_CYC)) 0 32 1 1 0 0"
EXPECT="SYNC=0x2" run_trace btm-sync-cycles 1 10000 "$((BTM | OPT_CYC)) 0 32 1 1 0 0"
# Zcmp/Zcmt (tests/qemu/payload/zc.S): cm.popret/cm.popretz are returns,
# cm.jt a direct jump and cm.jalt a direct call through the jvt table
# (N-Trace 1.0 itype table); the hart has no Zcd, which shares their encodings.
JVT=$(nm build/qemu-tests/trace.elf | awk '$3 == "zc_table" {print "0x" $1}')
ZC=(--zcmp --zcmt --jvt "$JVT")
EXTRA="-cpu rv64,zcmp=true,zcmt=true,zcd=false" KERNEL=2 \
run_trace btm-zc 1 10000 "$BTM 0 2000 1 1 0 0" "${ZC[@]}"
EXTRA="-cpu rv64,zcmp=true,zcmt=true,zcd=false" KERNEL=2 \
run_trace htm-zc-iret 1 10000 "$HTM $IRET_FULL 2000 1 1 0 0" --implicit-return=3 "${ZC[@]}"
EXTRA="-cpu rv64,zcmp=true,zcmt=true,zcd=false" KERNEL=2 \
run_trace htm-zc-alljumps 1 10000 "$HTM $((ALLJ | IRET_FULL)) 2000 1 1 0 0" --implicit-return=3 --all-jumps "${ZC[@]}"
EXTRA="-cpu rv64,zcmp=true,zcmt=true,zcd=false" KERNEL=2 \
run_trace btm-zc-alljumps 1 10000 "$BTM $ALLJ 2000 1 1 0 0" --all-jumps "${ZC[@]}"
# A debugger stop is the model's debug-mode entry: ProgTraceCorrelation with
# EVCODE=0 when the hart halts, ProgTraceSync with SYNC=3 when it resumes.
EXPECT="EVCODE=0x0 SYNC=0x3" GDBSTOP=run_in_smode \
run_trace htm-debug-stop 1 10000 "$HTM $IRET_FULL 64 1 1 0 0" --implicit-return=3
EXPECT="EVCODE=0x0 SYNC=0x3" GDBSTOP=run_in_smode \
run_trace btm-debug-stop 1 10000 "$BTM 0 64 1 1 0 0"

# E-Trace (trTeFormat 0) with data trace (trTeDataTracing, hw_models/qemu
# README "E-Trace data trace"): each hart's decoded instructions equal the
# record, and its decoded loads, stores and atomics (kind, size, address, value)
# equal the plugin's, on 1 and 4 harts; then with trTeDataNoValue (Table 28,
# addresses only) and trTeDataNoAddr (Table 29, values only). The
# unsupported options written with Tracing (triggers, stall, drop) read back
# 0 (trace.c).
DATA_ON=$(( $(tci trTeDataControl Tracing) | $(tci trTeDataControl TrigEnable) |
            $(tci trTeDataControl StallEna) | $(tci trTeDataControl DropEna) ))
ETRACE=1 DATA=$DATA_ON run_trace etrace-data 1 10000 "$HTM 0 32 1 1 0 0"
ETRACE=1 DATA=$DATA_ON run_trace etrace-data-4harts 4 10000 "$HTM 0 16 1 4 0 0"
ETRACE=1 DATA=$((DATA_ON | $(tci trTeDataControl NoValue))) DATA_CMP=--no-value \
run_trace etrace-data-novalue 1 1000 "$HTM 0 16 1 1 0 0"
ETRACE=1 DATA=$((DATA_ON | $(tci trTeDataControl NoAddr))) DATA_CMP=--no-addr \
run_trace etrace-data-noaddr 1 1000 "$HTM 0 16 1 1 0 0"
# trTeDataTracing set while the instructions are traced already: data trace
# starts with the next instruction (a support packet says denable=1).
ETRACE=1 DATA=$DATA_ON DATA_LATE=1 run_trace etrace-data-late 1 1000 "$HTM 0 16 1 1 0 0"

# Self-hosted trace (draft Smstrcn/Ssstrcn + Ssamb, -cpu rv64,smstrcn=true;
# tests/qemu/payload/strc.c): the CSRs' reset values and WARL, the enables,
# then the hart traces itself through mstrcctl into its AMB (menvcfg.STRCS=0:
# M-mode privilege, physical addresses). The decoded buffer must equal the
# record from strc_on (after the enabling csrw) to strc_off (the disabling
# csrw), with S and M traced, with S only (M-mode between the S runs is
# filtered out), S and U (the workload in U-mode too, M-mode filtered
# out), in a 4 KiB buffer that wraps, the record's tail, and in one that
# stops when full (SOF), the record's head. One
# run with the default CPU checks that nothing of it exists there.
STRC_ELF=$PWD/build/qemu-tests/strc.elf
STRC_BEGIN=0x$(nm "$STRC_ELF" | awk '$3 == "strc_on" {print $1}')
STRC_END=0x$(nm "$STRC_ELF" | awk '$3 == "strc_off" {print $1}')
# run_strc NAME CASE CPU DECODER-AND-COMPARE-OPTS...
run_strc() {
  local name=$1 case=$2 cpu=$3 d rc plugargs=out=insn cmpopts=() decopts=()
  d=$LOGS/strc-$name
  shift 3
  rm -rf "$d"; mkdir -p "$d"
  case $case in
    2) plugargs=out=insn,priv=on; cmpopts+=(--priv 1) ;;
    3) cmpopts+=(--lost-head); decopts+=(--mid-stream) ;;
    5) cmpopts+=(--lost-tail) ;;
    6) plugargs=out=insn,priv=on; cmpopts+=(--priv 0,1) ;;
  esac
  (cd "$d" && timeout 300 "$Q" -machine virt -smp 1 -nographic -cpu "$cpu" -bios "$STRC_ELF" \
     -semihosting-config enable=on,target=native -plugin "$PLUGIN,$plugargs" \
     -device loader,addr=0x80ff0000,data=0x53545243,data-len=4 \
     -device loader,addr=0x80ff0004,data="$case",data-len=4 </dev/null > uart.log 2>&1)
  rc=$?
  run_payload "strc-$name" "$d/uart.log" $rc
  [ "$case" != 0 ] || return 0
  [ -n "$DEC" ] && [ -s "$d/trace.bin" ] ||
    { fail_log "strc-$name: no trace to decode" "$d/uart.log" "expected $d/trace.bin"; return; }
  if ! "$DEC" ntrace decode --elf "$STRC_ELF" --src-bits 0 "${decopts[@]}" "$@" "$d/trace.bin" \
       > "$d/decoded" 2> "$d/decode.err"; then
    fail_log "strc-$name: decoder error" "$d/decode.err"; return
  fi
  if python3 tests/qemu/compare.py "$d/decoded" "$d/insn.0" --min 1000 --begin "$STRC_BEGIN" \
       --end "$STRC_END" "${cmpopts[@]}" </dev/null > "$d/compare" 2>&1; then
    pass "strc-$name: decoded AMB equals executed instructions ($(cut -d' ' -f1 "$d/compare") insns)"
  else
    fail_log "strc-$name: decoded AMB equals executed instructions" "$d/compare" \
      "$(head -1 "$d/compare") (decoded $d/decoded, record $d/insn.0)"
  fi
}
run_strc absent 0 rv64
run_strc sm 1 rv64,smstrcn=true
run_strc s-only 2 rv64,smstrcn=true
run_strc wrap 3 rv64,smstrcn=true
run_strc bmi 4 rv64,smstrcn=true
run_strc stop-on-full 5 rv64,smstrcn=true
run_strc s-and-u 6 rv64,smstrcn=true
