#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Every S-mode-capable CPU model of Debian's QEMU 7.2 and of the project
# QEMU 10 (issue 26, item 2): Debian's Linux 6.12 on ours must reach init
# and power off, and give the same /proc/cpuinfo, the same riscv_hwprobe
# answers (every key the kernel knows, for all CPUs and for each hart) and
# the same results of U-mode uses of what they advertise (cbo.zero, seed,
# the counters, vector, wrs.nto, misaligned accesses) as under Debian
# trixie's OpenSBI 1.6 on the same QEMU command line, or each difference
# must be explained in tests/linux/README.md ("CPU models").
#
# One boot per firmware per model, 2 harts, -m 512M; the init is the
# dumper itself (rdinit=/bin/tsbi-hwprobe, tests/linux/hwprobe.c), which
# prints its answers and powers off at once. Ours and the peer of a model
# boot at the same time. The kernel skips a few slow initcalls that have
# nothing to do with the CPU or the firmware (crypto self-tests and the KDF
# self-test, the jitter entropy source's start, loading the built-in
# certificates, the encrypted-keys type, BPF and kprobe-trace set-up):
# about a third of each boot's CPU time, the same on both firmwares. OpenSBI's results are PEER lines; its missing answers fail the
# comparison (nothing to compare with), never the peer. The last check: the
# README's table of the models is this run's.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
. tests/linux/lib.sh

# The S-mode-capable models, and every other model `-cpu help` lists with
# why it is not one (a model neither booted nor excluded fails the suite).
MODELS_7="rv64 shakti-c sifive-u54"
MODELS_10="max rv64 rva22s64 rva23s64 shakti-c sifive-u54 thead-c906 tt-ascalon veyron-v1 xiangshan-nanhu"
declare -A NOT_S=(
  [any]="misa has no S: M and U modes only (QEMU 7.2)"
  [sifive-e51]="M and U modes only"
  [x-rv128]="RV128"
  [lowrisc-ibex]="RV32, M and U only" [sifive-e31]="RV32, M and U only" [sifive-e34]="RV32, M and U only"
  [max32]="RV32: Debian's kernel is RV64" [rv32]="RV32: Debian's kernel is RV64"
  [rv32e]="RV32E" [rv32i]="RV32I bare CPU" [sifive-u34]="RV32: Debian's kernel is RV64"
  [rv64e]="RV64E bare CPU: no S-mode" [rv64i]="RV64I bare CPU: no S-mode, no M/A/F/D/C"
  [rva22u64]="user profile: satp bare, no S-mode paging" [rva23u64]="user profile: satp bare, no S-mode paging"
)
APPEND="rdinit=/bin/tsbi-hwprobe cryptomgr.notests=1 initcall_blacklist=jent_mod_init,load_system_certificate_list,bpf_dummy_struct_ops_init,init_kprobe_trace,bpf_tcp_ca_kfunc_init,init_encrypted,crypto_kdf108_init"

if ! Q10=$(scripts/qemu10.sh path); then
  fail "cpu-models: scripts/qemu10.sh path failed (project QEMU 10 not built)"; exit 1
fi
linux_prepare boot
if ! PEER_FW=$(scripts/opensbi.sh path 1.6); then
  fail "cpu-models: scripts/opensbi.sh path 1.6 failed: no OpenSBI 1.6 to compare with"; exit 1
fi

# Every model of each QEMU is classified.
for qv in 7 10; do
  case $qv in 7) q=qemu-system-riscv64 models=$MODELS_7 ;; 10) q=$Q10 models=$MODELS_10 ;; esac
  listed=$("$q" -cpu help 2>&1 | sed -n 's/^ *\([a-z0-9][a-z0-9-]*\)$/\1/p')
  unknown=()
  for m in $listed; do
    [[ " $models " == *" $m "* ]] || [ -n "${NOT_S[$m]:-}" ] || unknown+=("$m")
  done
  if [ -z "$listed" ]; then fail "cpu-models qemu$qv: -cpu help lists the models [it listed none]"
  elif ((${#unknown[@]})); then fail "cpu-models qemu$qv: every model of -cpu help booted or excluded [unclassified: ${unknown[*]}]"
  else pass "cpu-models qemu$qv: every model of -cpu help booted or excluded ($(echo $listed | wc -w) models)"; fi
done

start=$SECONDS
for qv in 7 10; do
  case $qv in 7) q=qemu-system-riscv64 models=$MODELS_7 ;; 10) q=$Q10 models=$MODELS_10 ;; esac
  for cpu in $models; do
    n="cpu-models qemu$qv $cpu smp2"
    olog=$LINUX_LOGS/cpu-$qv-$cpu-ours.log plog=$LINUX_LOGS/cpu-$qv-$cpu-opensbi-1.6.log
    QEMU=$q linux_boot "$plog" 120 2 "$PEER_FW" "$APPEND" -cpu "$cpu" >"$plog.boot" & ppid=$!
    QEMU=$q linux_boot "$olog" 120 2 "$FW_DYN" "$APPEND" -cpu "$cpu"; rc=$?
    wait "$ppid"; prc=$?
    cat "$plog.boot"; rm -f "$plog.boot"
    linux_check_ended "$n" "$olog" "$rc"
    if [ "$prc" = 0 ] && grep -aq '^TSBI-RESULT end test=hwprobe rc=0' "$plog"; then
      echo "PEER: $n opensbi-1.6: init, answers, power-off pass"
    else echo "PEER: $n opensbi-1.6: init, answers, power-off fail status $prc"; fi
    out=$(python3 tests/linux/cpumodels.py compare "$qv/$cpu" "$olog" "$plog" tests/linux/README.md); crc=$?
    echo "$out" | sed 's/^/linux: /'
    what="cpuinfo, hwprobe and U-mode probes as on OpenSBI 1.6"
    case $crc in
      0) if grep -q 'explained:' <<<"$out"; then pass "$n: $what (differences explained in tests/linux/README.md)"
         else pass "$n: $what"; fi ;;
      1) fail "$n: $what [unexplained differences: $(grep -c UNEXPLAINED <<<"$out")] (logs: $(log_name "$olog"), $(log_name "$plog"))"
         grep UNEXPLAINED <<<"$out" | sed 's/^/  | /' ;;
      2) fail "$n: $what [no answers to compare: $(head -1 <<<"$out")]"; log_tail "$olog"; log_tail "$plog" ;;
      *) fail "$n: $what [tests/linux/cpumodels.py compare failed with status $crc]" ;;
    esac
  done
done
echo "linux: cpu-models: $(($(wc -w <<<"$MODELS_7 $MODELS_10"))) models, 2 boots each, in $((SECONDS - start)) s"
# The README's table of every model (cpu-models-table) must be this run's:
# `tests/linux/cpumodels.py readme tests/linux/README.md build/test-logs/linux`
# after the suite rewrites it.
out=$(python3 tests/linux/cpumodels.py readme-check tests/linux/README.md "$LINUX_LOGS"); crc=$?
if [ "$crc" = 0 ]; then pass "cpu-models: tests/linux/README.md's table (cpu-models-table) is this run's"
else
  fail "cpu-models: tests/linux/README.md's table (cpu-models-table) is this run's [rows differ; cpumodels.py readme tests/linux/README.md build/test-logs/linux rewrites it]"
  sed 's/^/  | /' <<<"$out"
fi
