#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# QEMU virt with the Advanced Interrupt Architecture, on the project QEMU 10
# (firmware/drivers/aplic.cpp, imsic.cpp): -M virt,aia=aplic-imsic,aclint=on
# has no MSWI and no CLINT (only an ACLINT MTIMER), so every M-mode IPI (HSM
# start, SBI IPI, RFENCE) goes through the harts' M-level IMSIC files. The
# SBI payloads on 4 harts; OpenSBI 1.6 (Debian trixie's) alongside as PEER
# lines; and Debian's Linux 6.12 on 2 harts: its APLIC
# driver gets the sources the root domain delegates (its console's
# interrupts: /init's output reaches the console), its IMSIC driver the
# S-level files, the boot test's hotplug starts and stops harts through HSM,
# and the device tree it got has M-mode's APLIC and IMSIC disabled and the
# S-level ones okay.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
if ! QEMU=$(scripts/qemu10.sh path); then
  fail "aia: scripts/qemu10.sh path failed (project QEMU 10 not built)"; exit 1
fi
. tests/linux/lib.sh
M=virt,aia=aplic-imsic,aclint=on
CPU=smaia=true,ssaia=true

build firmware payloads
out=$(tests/payloads/run.py --qemu "$QEMU" --machine "$M" --cpu "$CPU" --smp 4 --timeout 60 \
  --tag aia-imsic-smp4 base hsm ipi rfence); rc=$?
echo "$out"
[ $rc -le 1 ] || fail "aia-imsic-smp4: payload runner failed"
# The base payload tries a load from each AIA node the tree it got says is
# disabled: both M-level ones must be there, and closed by PMP.
for a in c000000 24000000; do
  c="aia-imsic-smp4/base/aia/disabled_${a}_load_faults"
  echo "$out" | grep -q "^PASS: $c\$" || echo "$out" | grep -q "^FAIL: $c" ||
    fail "$c: no such case (the M-level node at 0x$a is not disabled in the tree S-mode got)"
done
if peer=$(scripts/opensbi.sh path 1.6); then
  tests/payloads/run.py --qemu "$QEMU" --machine "$M" --cpu "$CPU" --smp 4 --timeout 60 --fw "$peer" --peer \
    --tag aia-imsic-smp4-opensbi-1.6 base hsm ipi rfence
else
  echo "PEER: aia-imsic-smp4-opensbi-1.6/fetch crash scripts/opensbi.sh path 1.6 failed"
fi

# No IPI device at all (the M-level IMSIC node without its
# interrupts-extended, so no file is known): the boot says so and serves the
# boot hart alone; the HSM payload then sees one hart, its others disabled.
d=build/test-logs/aia; mkdir -p "$d"
if "$QEMU" -M "$M,dumpdtb=$d/noipi.dtb" -cpu "rv64,$CPU" -smp 4 -bios none -nographic </dev/null >"$d/noipi-dtb.log" 2>&1 &&
   fdtput -d "$d/noipi.dtb" /soc/interrupt-controller@24000000 interrupts-extended 2>>"$d/noipi-dtb.log"; then
  timeout 60 "$QEMU" -M "$M" -cpu "rv64,$CPU" -smp 4 -nographic -dtb "$d/noipi.dtb" -bios build/fw/tsbi_dynamic.bin \
    -kernel build/payloads/hsm.elf </dev/null >"$d/noipi.log" 2>&1
  expect_line "aia-no-ipi-device/boot_says_so" "$d/noipi.log" \
    '^tsbi: no IPI device (CLINT, ACLINT MSWI or M-level IMSIC) in the device tree: only hart 0 is served, 3 other hart(s) could never be started'
  expect_line "aia-no-ipi-device/hsm_payload_sees_one_hart" "$d/noipi.log" '^TSBI-START payload=hsm hart=0 harts=1 '
  expect_line "aia-no-ipi-device/hsm_payload_passes" "$d/noipi.log" '^TSBI-DONE passed=[1-9][0-9]* failed=0'
else
  fail "aia-no-ipi-device: dumping or editing QEMU's tree failed (log: $d/noipi-dtb.log)"
fi

linux_prepare boot
log=$LINUX_LOGS/aia-imsic-smp2.log n="linux aia-imsic smp2"
linux_boot "$log" 90 2 "$FW_DYN" "tsbi.test=boot" -M "$M" -cpu "rv64,sscofpmf=true,$CPU"; rc=$?
linux_check_ended "$n" "$log" "$rc"
linux_boot_checks "$n" "$log" 2
linux_check_grep "$n: the firmware delegated the root APLIC's sources" "$log" \
  '^tsbi: APLIC interrupt-controller@c000000: MSI mode, 96 of 96 sources delegated to S-mode'
linux_check_grep "$n: Linux's APLIC driver forwards them to the S-level IMSIC" "$log" \
  'riscv-aplic d000000\.interrupt-controller: 96 interrupts forwarded to MSI'
# QEMU virt: the M-level APLIC at 0xc000000 and IMSIC at 0x24000000, the
# S-level ones at 0xd000000 and 0x28000000.
linux_expect_result "$n: handed DT: M-level APLIC and IMSIC disabled, S-level okay" "$log" aia_nodes \
  "24000000:disabled,28000000:okay,c000000:disabled,d000000:okay"
