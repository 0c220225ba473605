# SPDX-License-Identifier: BSD-2-Clause
# Helpers for the Linux suites (tests/suites/30-linux.sh, 32-next-stages.sh,
# 35-perf.sh), sourced after tests/lib.sh. Boots Debian's riscv64 kernel with
# a test initramfs (tests/linux/init) under QEMU 7.2 and checks the console
# log.
#
# Firmware under test (environment):
#   FW        unset: ours, build/fw/tsbi_dynamic.bin (built with `make firmware`);
#             "opensbi": Debian's OpenSBI 1.1 for comparison; or a file path.
#             The checks are the same for every firmware except the expected
#             implementation ID, so OpenSBI 1.1 (SBI 1.0: no DBCN, no PMU
#             snapshot) fails the checks of what it lacks.
#   FW_JUMP   fw_jump image for the jump-convention boot; follows FW
#             (build/fw/tsbi_jump.bin, OpenSBI's fw_jump.bin, or a path).
#   QEMU      qemu-system-riscv64 binary (default: Debian's, QEMU 7.2).
#   LINUX_TIMEOUT_SCALE  multiplies every boot timeout (slow machines; see
#             linux_boot: a boot is only killed after that long without output).

OPENSBI_DIR=/usr/lib/riscv64-linux-gnu/opensbi/generic
TSBI_IMPL_ID=0x74736269   # "tsbi"
OPENSBI_IMPL_ID=0x1
: "${QEMU:=qemu-system-riscv64}"
# Console logs: this run writes its own directory (another `make test` in the
# same tree may be running the same suite), moved to build/test-logs/linux/ at exit.
mkdir -p "$TSBI_ROOT/build/test-logs/linux"
LINUX_LOGS=$(mktemp -d "$TSBI_ROOT/build/test-logs/linux/.run.XXXXXX")
linux_keep_logs() {
  local f
  for f in "$LINUX_LOGS"/*; do [ -e "$f" ] && mv -f "$f" "$TSBI_ROOT/build/test-logs/linux/"; done
  rmdir "$LINUX_LOGS" 2>/dev/null
}
trap linux_keep_logs EXIT
# A FAIL names a log where it will be after the run.
log_name() { local f=${1#"$TSBI_ROOT"/}; echo "${f/#build\/test-logs\/linux\/.run.*\//build/test-logs/linux/}"; }

# linux_prepare KIND: builds the firmware (when it is ours), the initramfs of
# KIND (boot|perf) and fetches the kernel; FAILs and exits on any error.
linux_prepare() {
  local kind=$1
  command -v "$QEMU" >/dev/null || { fail "linux: $QEMU not found (run scripts/bootstrap.sh)"; exit 1; }
  echo "linux: $("$QEMU" --version | head -1)"
  case ${FW:-} in
    "") build firmware
        FW_DYN=$TSBI_ROOT/build/fw/tsbi_dynamic.bin
        FW_JMP=${FW_JUMP:-$TSBI_ROOT/build/fw/tsbi_jump.bin}
        FW_KIND=tsbi ;;
    opensbi)
        FW_DYN=$OPENSBI_DIR/fw_dynamic.bin
        FW_JMP=${FW_JUMP:-$OPENSBI_DIR/fw_jump.bin}
        FW_KIND=opensbi ;;
    *)  FW_DYN=$FW; FW_JMP=${FW_JUMP:-}; FW_KIND=custom ;;
  esac
  [ -f "$FW_DYN" ] || { fail "linux: firmware $FW_DYN missing"; exit 1; }
  echo "linux: firmware $FW_KIND: $FW_DYN (jump: ${FW_JMP:-none})"
  build "linux-initrd-$kind"
  if ! LINUX_DIR=$(scripts/fetch_linux.sh); then
    fail "linux: fetching the Debian kernel failed"; exit 1
  fi
  LINUX_IMAGE=$LINUX_DIR/Image
  LINUX_INITRD=$TSBI_ROOT/build/linux/initrd-$kind.cpio.gz
  sed 's/^/linux: /' "$LINUX_DIR/VERSION"
}

# linux_expected_impl_id: the implementation ID the kernel should report.
linux_expected_impl_id() {
  case $FW_KIND in opensbi) echo "$OPENSBI_IMPL_ID" ;; *) echo "$TSBI_IMPL_ID" ;; esac
}

# linux_boot LOG TIMEOUT_S SMP BIOS APPEND [QEMU ARGS...]: one run; the console
# (console=ttyS0 unless APPEND names one) goes to LOG. Returns QEMU's status,
# 124 when it was killed as hung: no console output for TIMEOUT_S seconds,
# or 4 x TIMEOUT_S in all. A hang is silence, while a loaded host only
# makes a boot print more slowly (boots took 12-24 s at a load of 10 on 2
# cores, against 5-10 s idle), so the limit on the whole run is a
# backstop. QEMU's standard input is $LINUX_STDIN (default /dev/null).
linux_boot() {
  local log=$1 t=$2 smp=$3 bios=$4 append=$5; shift 5
  t=$(awk "BEGIN { print int($t * ${LINUX_TIMEOUT_SCALE:-1}) }")
  case " $append" in *" console="*) ;; *) append="console=ttyS0 $append" ;; esac
  local start=$SECONDS rc qemu size=-1 now last=$SECONDS why=
  echo "linux: boot $(basename "$log" .log): -smp $smp -bios $bios -append '$append' $*"
  "$QEMU" -M virt -cpu rv64,sscofpmf=true -smp "$smp" -m 512M \
    -nographic -bios "$bios" -kernel "$LINUX_IMAGE" -initrd "$LINUX_INITRD" \
    -append "$append" "$@" <"${LINUX_STDIN:-/dev/null}" >"$log" 2>&1 &
  qemu=$!
  while kill -0 "$qemu" 2>/dev/null; do
    sleep 0.25
    now=$(stat -c %s "$log" 2>/dev/null || echo 0)
    if [ "$now" != "$size" ]; then size=$now; last=$SECONDS; fi
    if [ $((SECONDS - last)) -ge "$t" ]; then why="no console output for $t s"
    elif [ $((SECONDS - start)) -ge $((4 * t)) ]; then why="still running after $((4 * t)) s"
    else continue; fi
    kill -TERM "$qemu" 2>/dev/null
    for _ in 1 2 3 4 5; do kill -0 "$qemu" 2>/dev/null || break; sleep 1; done
    kill -KILL "$qemu" 2>/dev/null
    break
  done
  wait "$qemu"; rc=$?
  if [ -n "$why" ]; then
    rc=124
    echo "linux: $(basename "$log" .log) killed: $why"
  fi
  echo "linux: $(basename "$log" .log) ended with status $rc after $((SECONDS - start)) s"
  return $rc
}

# linux_result LOG KEY: the value of the first "TSBI-RESULT ... KEY=value".
linux_result() {
  sed -n "s/^TSBI-RESULT .*\b$2=\([^ ]*\).*/\1/p" "$1" | head -1 | tr -d '\r'
}

# linux_check_ended NAME LOG RC [ACTION]: the run reached the final marker
# of /init, then QEMU exited by itself (power-off or, with -no-reboot, reset),
# with no panic, oops or kernel backtrace on the way.
linux_check_ended() {
  local n=$1 log=$2 rc=$3 action=${4:-poweroff} bad
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    fail_log "$n: QEMU exited by itself" "$log" "expected QEMU to exit by itself, it hung and was killed by the timeout"
  elif [ "$rc" != 0 ]; then
    fail_log "$n: QEMU exited by itself" "$log" "expected exit status 0, got $rc"
  else
    pass "$n: QEMU exited by itself"
  fi
  # The absence of a panic means something only once the kernel ran (its
  # banner is the first line it prints, also when the console registers late).
  if ! has_line "$log" 'Linux version'; then
    fail_log "$n: no panic/oops/backtrace" "$log" "the kernel did not run (no 'Linux version' banner), so the absence of a panic means nothing"
  elif bad=$(grep -a -m3 -E 'Kernel panic|Oops|BUG:|Call Trace:|Unable to handle kernel|unable to open an initial console' "$log"); then
    fail_log "$n: no panic/oops/backtrace" "$log" "expected none, came: '$(echo "$bad" | head -1 | tr -d '\r' | cut -c1-160)'"
  else pass "$n: no panic/oops/backtrace"; fi
  expect_line "$n: /init ran" "$log" '^TSBI-RESULT init=ok'
  local rc_t
  rc_t=$(sed -n "s/^TSBI-RESULT end .*rc=\([0-9]*\) action=$action.*/\1/p" "$log" | head -1)
  if [ "$rc_t" = 0 ]; then pass "$n: final marker before $action"
  else fail_log "$n: final marker before $action" "$log" "expected 'TSBI-RESULT end ... rc=0 action=$action', got $([ -n "$rc_t" ] && echo "test status $rc_t" || echo "no such marker")"; fi
  if [ "$action" = poweroff ]; then
    expect_line "$n: kernel powered off" "$log" 'reboot: Power down'
  else
    expect_line "$n: kernel restarted" "$log" 'reboot: Restarting system'
  fi
  if has_line "$log" '^TSBI-RESULT reset-returned=1'; then
    fail_log "$n: SBI system reset did not return" "$log" "expected no return, it returned to the kernel (TSBI-RESULT reset-returned=1)"
  fi
}

# linux_boot_checks NAME LOG SMP: what the guest's boot test
# (tests/linux/guest/boot.sh) saw.
linux_boot_checks() {
  local n=$1 log=$2 smp=$3 want
  want=0; [ "$smp" -gt 1 ] && want="0-$((smp - 1))"
  linux_expect_result "$n: guest sees CPUs $want online" "$log" cpus_online "$want"
  linux_expect_result "$n: 1 s sleep takes 1 s (timer)" "$log" sleep1 ok
  linux_expect_result "$n: a task ran on each of $smp CPUs" "$log" taskset_cpus "$smp"
  if [ "$smp" -gt 1 ]; then
    linux_expect_result "$n: HSM hotplug of CPUs 1-$((smp - 1)) off and on, twice" "$log" hotplug ok
  fi
}

# linux_check_grep NAME LOG ERE: PASS when the console log has a match.
linux_check_grep() {
  if grep -aqE -- "$3" "$2"; then pass "$1"
  else fail_log "$1" "$2" "expected a line matching /$3/, none came"; fi
}

# linux_expect_result NAME LOG KEY WANT: PASS when the guest's result KEY
# (linux_result) is WANT; the FAIL shows what came and the log's end.
linux_expect_result() {
  local v
  v=$(linux_result "$2" "$3")
  if [ "$v" = "$4" ]; then pass "$1"
  else fail_log "$1" "$2" "expected TSBI-RESULT $3=$4, got ${v:+$3=}${v:-no such result}"; fi
}

# linux_check_sbi NAME LOG SMP: what the kernel says about the SBI firmware.
linux_check_sbi() {
  local n=$1 log=$2 smp=$3 ver id want
  ver=$(sed -n 's/.*SBI specification v\([0-9]*\.[0-9]*\) detected.*/\1/p' "$log" | head -1)
  # SBI 2.0 brings DBCN and PMU snapshot; OpenSBI 1.1 (SBI 1.0) fails here.
  want=2.0
  if [ -n "$ver" ] && awk "BEGIN { split(\"$ver\", a, \".\"); split(\"$want\", b, \".\"); exit !(a[1] > b[1] || (a[1] == b[1] && a[2] >= b[2])) }"
  then pass "$n: SBI specification v$ver (>= v$want) detected"
  else fail_log "$n: SBI specification >= v$want detected" "$log" "expected >= v$want, got $([ -n "$ver" ] && echo "v$ver" || echo "no spec version line")"; fi
  id=$(sed -n 's/.*SBI implementation ID=\(0x[0-9a-fA-F]*\) .*/\1/p' "$log" | head -1)
  want=$(linux_expected_impl_id)
  expect_eq "$n: SBI implementation ID $want" "$log" "$want" "${id:-no implementation ID line}" "implementation ID"
  local ext
  for ext in TIME IPI RFENCE SRST HSM DBCN SUSP; do
    linux_check_grep "$n: SBI $ext extension detected" "$log" "SBI $ext extension detected"
  done
  linux_check_grep "$n: all $smp CPUs online" "$log" "smp: Brought up 1 node, $smp CPUs?\b"
  echo "linux: $n: $(grep -aoE 'SBI [A-Z]+ extension detected|riscv-pmu-sbi: .*' "$log" | sort -u | tr '\n' ';')"
}
