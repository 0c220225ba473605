#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The next stages a drop-in firmware must start besides Linux itself (issue
# 26, items 3-5), one boot per configuration, each driven through its console
# by tests/nextstage/console.py (QEMU's stdin is a pipe):
#  - U-Boot (Debian bookworm's u-boot-qemu, qemu-riscv64_smode) on QEMU 7.2
#    with fw_dynamic (-kernel) and fw_jump (-device loader at +2 MiB), 1 and
#    4 harts, two runs each. The first: the prompt, `sbi`, the device tree's
#    /reserved-memory and U-Boot's relocation address (the firmware's memory
#    at the start of RAM, item 1), U-Boot's `reset`, then Debian's kernel and
#    the boot initramfs (tests/linux) with booti to init and its boot test,
#    Linux reboots into U-Boot, U-Boot's `poweroff` ends the run. The second:
#    booti again, and Linux powers off.
#  - U-Boot linked into the fw_payload image (tsbi_payload.bin), 1 hart (sbi,
#    booti, Linux powers off) and 4 harts (the first round above).
#  - The same 4-hart fw_dynamic first round on the project QEMU 10.
#  - EDK2 (Debian trixie's qemu-efi-riscv64, scripts/edk2.sh) from pflash on
#    the project QEMU 10 (QEMU 7.2 runs pflash in M-mode), 4 harts: typed
#    into the UEFI shell, the kernel starts through its EFI stub with the
#    initramfs (both on a FAT disk), Linux reboots through SBI SRST (ACPI: no
#    syscon node), and the shell's `reset -s` (UEFI ResetSystem) powers off
#    through SBI SRST.
#  - Debian's kernel as the fw_payload, its initramfs named in /chosen of a
#    device tree QEMU dumped (QEMU takes -initrd only with -kernel); and an
#    RV32 fw_payload (the HSM test payload at +4 MiB, 1 hart).
# On QEMU virt, U-Boot's reset and poweroff and the power-off of Linux booted
# with a device tree go to the syscon nodes, not to SBI SRST (both find the
# syscon driver first); Linux's reboot, and everything under EDK2 (ACPI: no
# syscon node), reaches SRST, and there the firmware's "tsbi: system ...
# requested" line is checked.
#
# Each configuration is one row of the table in firmware/README.md ("Next
# stages", between the next-stages-table markers), written from this run to
# build/test-logs/next-stages-table.md; the last check fails when the
# README's rows differ from this run's. `tests/suites/32-next-stages.sh
# --write-readme` runs the suite and then writes the rows into the README.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
. tests/linux/lib.sh

linux_prepare boot
UBOOT=/usr/lib/u-boot/qemu-riscv64_smode/u-boot.bin
D=$TSBI_ROOT/build/nextstage
mkdir -p "$D"
SIZE=$(stat -c %s "$LINUX_INITRD")
# Where the loader devices put the kernel and the initramfs for U-Boot: its
# own kernel_addr_r and ramdisk_addr_r (U-Boot moves the kernel to its link
# address itself); below the device tree and U-Boot, which sit at the top.
KADDR=0x84000000
RADDR=0x8c300000
scale() { awk "BEGIN { print int($1 * ${LINUX_TIMEOUT_SCALE:-1}) }"; }
# Output after which a console never comes back (U-Boot's and EDK2's trap
# reports, a panic, the firmware's fatal stop): end the run at once.
ABORTS=(--abort 'Unhandled exception' --abort '### ERROR ###' --abort '!!!! RISCV64 Exception'
        --abort 'Kernel panic' --abort 'tsbi: fatal')

# The table's rows (one per configuration) and the results of the
# configuration under way: a FAIL also shows the end of its console log.
TABLE=$TSBI_ROOT/build/test-logs/next-stages-table.md
: >"$TABLE"
cfg_fails=0 cfg_passes=0
pass() { echo "PASS: $*"; cfg_passes=$((cfg_passes + 1)); }
fail() { echo "FAIL: $*"; cfg_fails=$((cfg_fails + 1)); }
# config_end LOG ROW: close a configuration's checks; ROW is its table row's
# first cells, "next stage | image | harts | QEMU | what the run does".
config_end() {
  local r="$cfg_passes passed"
  [ "$cfg_fails" -gt 0 ] && r="$r, **$cfg_fails failed**"
  echo "| $2 | $r |" >>"$TABLE"
  if [ "$cfg_fails" -gt 0 ]; then
    echo "  console log: build/test-logs/linux/$(basename "$1"), last lines:"
    tail -n 12 "$1" | tr -d '\r' | sed 's/\x1b\[[0-9;=?]*[A-Za-z]//g; s/^/  | /'
  fi
  cfg_fails=0 cfg_passes=0
}

# log_seq LOG ERE...: lines of LOG match the EREs in this order.
log_seq() {
  local log=$1; shift
  PATS=$(IFS=$'\001'; echo "$*") awk 'BEGIN { n = split(ENVIRON["PATS"], p, "\001"); i = 1 }
    { sub(/\r$/, "") } i <= n && $0 ~ p[i] { i++ } END { exit !(i > n) }' "$log"
}
check_seq() { local n=$1; shift; if log_seq "$@"; then pass "$n"; else fail "$n [no lines matching, in order: ${*:2}]"; fi; }

# The Linux checks every configuration makes: init reached and its boot test
# (tests/linux/lib.sh), what the kernel says about SBI, the run's end.
linux_checks() {
  local n=$1 log=$2 rc=$3 smp=$4 action=$5
  linux_check_ended "$n" "$log" "$rc" "$action"
  linux_check_sbi "$n" "$log" "$smp"
  linux_boot_checks "$n" "$log" "$smp"
}

# uboot NAME QEMU SMP ROUND ROW -- QEMU-ARGS...: one U-Boot boot; ROW names
# the image and QEMU for the table. ROUND
#  "full": prompt, sbi, /reserved-memory, bdinfo, reset, booti of Linux with
#          its boot test, Linux reboots into U-Boot, U-Boot's poweroff;
#  "short": prompt, sbi, booti of Linux with its boot test, Linux powers off;
#  "poweroff": prompt, booti of Linux straight to its power-off (init's
#          shortest test), the round that completes "full".
uboot() {
  local n=$1 q=$2 smp=$3 round=$4 row=$5; shift 6
  local log=$LINUX_LOGS/${n// /-}.log rc steps=() what
  local prompt=('expect:Hit any key to stop autoboot' 'send: ' 'expect:=> ')
  local test=boot end=
  steps=("${prompt[@]}")
  case $round in
    full)
      what="prompt, \`sbi\`, \`fdt print /reserved-memory\`, \`bdinfo\`, \`reset\`; \`booti\` to init and the boot test; Linux reboots (SRST) into U-Boot; \`poweroff\`"
      end=" tsbi.end=reboot"
      steps+=('send:sbi\r' 'expect:=> ' 'send:fdt addr ${fdtcontroladdr}\r' 'expect:=> '
              'send:fdt print /reserved-memory\r' 'expect:=> ' 'send:bdinfo\r' 'expect:=> '
              'send:reset\r' "${prompt[@]}") ;;
    short)
      what="prompt, \`sbi\`; \`booti\` to init and the boot test; Linux powers off"
      steps+=('send:sbi\r' 'expect:=> ') ;;
    poweroff)
      what="prompt; \`booti\` to init; Linux powers off"
      test=poweroff ;;
  esac
  steps+=("send:setenv bootargs console=ttyS0 tsbi.test=$test$end\r" 'expect:=> '
          "send:booti $KADDR $RADDR:$(printf '0x%x' "$SIZE") \${fdtcontroladdr}\r"
          'expect:TSBI-RESULT end ')
  [ "$round" = full ] && steps+=("${prompt[@]}" 'send:poweroff\r')
  echo "next-stages: $n: $q -smp $smp $*"
  local start=$SECONDS
  tests/nextstage/console.py --log "$log" --timeout "$(scale 150)" "${ABORTS[@]}" "${steps[@]}" -- \
    "$q" -M virt -cpu rv64,sscofpmf=true -smp "$smp" -m 512M -nographic "$@" \
    -device "loader,file=$LINUX_IMAGE,addr=$KADDR,force-raw=on" \
    -device "loader,file=$LINUX_INITRD,addr=$RADDR,force-raw=on"
  rc=$?
  echo "next-stages: $n: status $rc after $((SECONDS - start)) s"
  row="U-Boot 2023.01 | ${row% | *} | $smp | ${row##* | } | $what"
  if ! log_seq "$log" 'Hit any key to stop autoboot' '^=> '; then
    fail "$n: U-Boot prompt [not reached]"
    fail "$n: the checks after the prompt [not run: no U-Boot prompt]"
    config_end "$log" "$row"; return
  fi
  pass "$n: U-Boot prompt"
  # U-Boot 2023.01 names only the implementation IDs it knows (and then
  # prints the spec version where the ID belongs): the ID is checked in
  # the kernel's log below.
  [ "$round" != poweroff ] && check_seq "$n: U-Boot sbi: SBI version, HSM and SRST listed" "$log" \
    '^=> sbi' '^SBI [0-9]+\.[0-9]+' 'Hart State Management Extension' 'System Reset Extension'
  case $round in
    full)
      uboot_memory_checks "$n" "$log"
      check_seq "$n: U-Boot reset restarts the firmware and U-Boot" "$log" \
        '^=> reset' 'tsbi: SBI firmware' 'Hit any key to stop autoboot'
      linux_checks "$n" "$log" "$rc" "$smp" reboot
      check_seq "$n: Linux reboots through SBI SRST into U-Boot, whose poweroff ends the run" "$log" \
        'reboot: Restarting system' 'tsbi: system reboot requested' 'tsbi: SBI firmware' \
        'Hit any key to stop autoboot' '^=> poweroff' ;;
    short)
      check_seq "$n: booti starts the kernel" "$log" '^=> booti' 'Starting kernel'
      linux_checks "$n" "$log" "$rc" "$smp" poweroff ;;
    poweroff)
      check_seq "$n: booti starts the kernel" "$log" '^=> booti' 'Starting kernel'
      linux_check_ended "$n" "$log" "$rc" poweroff ;;
  esac
  config_end "$log" "$row"
}

# uboot_memory_checks NAME LOG: what U-Boot shows of the firmware's memory
# (issue 26, item 1). The device tree the firmware hands on reserves one
# region, no-map, at the start of RAM (0x80000000 on virt); U-Boot relocates
# itself into the top 16 MiB of the 512 MiB (0x9f000000-0xa0000000) and
# runs there, so the firmware keeps nothing there.
uboot_memory_checks() {
  local n=$1 log=$2 dt nodes reg reloc
  dt=$(tr -d '\r' <"$log" | awk '/^=> fdt print \/reserved-memory/ { on = 1; next } on && /^=> / { exit } on')
  nodes=$(grep -cE '^[[:space:]]+[^[:space:]]+@[0-9a-f]+ \{' <<<"$dt")
  reg=$(sed -n 's/^[[:space:]]*reg = <\(.*\)>;/\1/p' <<<"$dt" | head -1)
  if [ "$nodes" = 1 ] && [ "$(wc -w <<<"$reg")" = 4 ] && [ "$(awk '{ print $1 $2 }' <<<"$reg")" = 0x000000000x80000000 ] &&
     grep -q 'no-map' <<<"$dt"; then
    pass "$n: one reserved region, no-map, at the start of RAM (reg <$reg>)"
  else
    fail "$n: one reserved region, no-map, at the start of RAM [U-Boot's fdt print /reserved-memory: $nodes nodes, first reg <${reg:-none}>]"
    sed 's/^/  | /' <<<"$dt" | head -20
  fi
  reloc=$(tr -d '\r' <"$log" | sed -n 's/^relocaddr *= *\(0x[0-9a-f]*\).*/\1/p' | head -1)
  if [ -n "$reloc" ] && [ $((reloc)) -ge $((0x9f000000)) ] && [ $((reloc)) -lt $((0xa0000000)) ]; then
    pass "$n: U-Boot relocated itself to the top of RAM and runs there (relocaddr $reloc)"
  else
    fail "$n: U-Boot relocated itself to the top of RAM and runs there [bdinfo relocaddr ${reloc:-missing}, want 0x9f000000-0x9fffffff]"
  fi
}

# The fw_payload images: built with FW_PAYLOAD, then kept under their own
# names (each build replaces build/fw/tsbi_payload.*).
payload_image() {
  local img=$1 out=$2
  build firmware "FW_PAYLOAD=$img"
  cp "$TSBI_ROOT/build/fw/tsbi_payload.bin" "$out"
}

Q10=
if ! Q10=$(scripts/qemu10.sh path); then
  Q10=
  fail "next-stages: the project QEMU 10 [scripts/qemu10.sh path failed]"
fi

if [ ! -f "$UBOOT" ]; then
  fail "u-boot: $UBOOT [missing: apt-get install u-boot-qemu (scripts/bootstrap.sh)]"
else
  payload_image "$UBOOT" "$D/tsbi_payload-u-boot.bin"
  for smp in 1 4; do
    for round in full poweroff; do
      sfx=; [ "$round" = poweroff ] && sfx=" booti-poweroff"
      uboot "u-boot fw_dynamic smp$smp$sfx" qemu-system-riscv64 "$smp" "$round" \
        "fw_dynamic (\`-kernel u-boot.bin\`) | 7.2" -- -bios "$FW_DYN" -kernel "$UBOOT"
      uboot "u-boot fw_jump smp$smp$sfx" qemu-system-riscv64 "$smp" "$round" \
        "fw_jump (\`-device loader\` at +2 MiB) | 7.2" -- \
        -bios "$FW_JMP" -device "loader,file=$UBOOT,addr=0x80200000,force-raw=on"
    done
    round=short; [ "$smp" = 4 ] && round=full
    uboot "u-boot fw_payload smp$smp" qemu-system-riscv64 "$smp" "$round" \
      "fw_payload (U-Boot inside) | 7.2" -- -bios "$D/tsbi_payload-u-boot.bin"
  done
  # U-Boot relocates itself to the top of RAM, so no firmware memory may lie
  # there (issue 26 item 1): on QEMU 10 the firmware's CTR feed buffer did,
  # and U-Boot died with a store access fault before its prompt.
  [ -n "$Q10" ] && uboot "u-boot fw_dynamic smp4 qemu10" "$Q10" 4 full \
    "fw_dynamic (\`-kernel u-boot.bin\`) | 10" -- -bios "$FW_DYN" -kernel "$UBOOT"
fi

# Linux as the fw_payload: no -kernel, so the initramfs goes where the
# device tree's /chosen says, the command line in /chosen/bootargs.
n="linux fw_payload smp4"
payload_image "$LINUX_IMAGE" "$D/tsbi_payload-linux.bin"
dtb=$D/virt-smp4.dtb
log=$LINUX_LOGS/linux-fw_payload-smp4.log
if qemu-system-riscv64 -M "virt,dumpdtb=$dtb" -cpu rv64,sscofpmf=true -smp 4 -m 512M -nographic \
     </dev/null >"$log" 2>&1 &&
   fdtput -t s "$dtb" /chosen bootargs "console=ttyS0 tsbi.test=boot" &&
   fdtput -t x "$dtb" /chosen linux,initrd-start 0x88000000 &&
   fdtput -t x "$dtb" /chosen linux,initrd-end "$(printf '0x%x' $((0x88000000 + SIZE)))"; then
  echo "next-stages: $n"
  start=$SECONDS
  tests/nextstage/console.py --log "$log" --timeout "$(scale 120)" "${ABORTS[@]}" -- \
    qemu-system-riscv64 -M virt -cpu rv64,sscofpmf=true -smp 4 -m 512M -nographic \
    -bios "$D/tsbi_payload-linux.bin" -dtb "$dtb" \
    -device "loader,file=$LINUX_INITRD,addr=0x88000000,force-raw=on"
  rc=$?
  echo "next-stages: $n: status $rc after $((SECONDS - start)) s"
  check_seq "$n: the firmware starts the kernel it carries" "$log" \
    'next stage at 0x80200000' 'Linux version' 'Kernel command line: console=ttyS0 tsbi.test=boot'
  linux_checks "$n" "$log" "$rc" 4 poweroff
else
  fail "$n: device tree with /chosen initrd [qemu dumpdtb or fdtput failed]"
fi
config_end "$log" "Linux 6.12 (its initramfs through \`/chosen\`) | fw_payload (the kernel inside) | 4 | 7.2 | the kernel starts from the image; init and the boot test; Linux powers off"

# An RV32 fw_payload, whose next stage sits at +4 MiB: the HSM test payload
# (tests/payloads, linked there for RV32) as a raw binary, on one hart (its
# suspends); with more harts it waits 1 s of guest time for each start and
# stop, which a host at a load of 16 on 2 cores has overrun, and suites 20
# and 23 run it on 4 harts already.
n="rv32 hsm-payload fw_payload smp1"
build payloads PL_XLEN=32
riscv64-linux-gnu-objcopy -O binary build/payloads-rv32/hsm.elf "$D/hsm-rv32.bin"
build firmware FW_XLEN=32 "FW_PAYLOAD=$D/hsm-rv32.bin"
log=$LINUX_LOGS/rv32-hsm-payload-smp1.log
echo "next-stages: $n"
start=$SECONDS
tests/nextstage/console.py --log "$log" --timeout "$(scale 90)" "${ABORTS[@]}" 'expect:TSBI-DONE' -- \
  qemu-system-riscv32 -M virt -cpu rv32,sscofpmf=true -smp 1 -m 512M -nographic \
  -bios build/fw-generic-rv32/tsbi_payload.bin
rc=$?
echo "next-stages: $n: status $rc after $((SECONDS - start)) s"
check_seq "$n: the firmware starts the payload it carries at +4 MiB" "$log" 'next stage at 0x80400000'
if [ "$rc" = 0 ] && log_seq "$log" 'TSBI-DONE passed=[1-9][0-9]* failed=0'; then
  pass "$n: the payload's checks pass and it powers off"
else
  fail "$n: the payload's checks pass and it powers off [status $rc; $(grep -a -m1 TSBI-DONE "$log" | tr -d '\r' || echo 'no TSBI-DONE')]"
fi
config_end "$log" "the HSM test payload (RV32) | fw_payload (RV32: at +4 MiB) | 1 | 7.2 | its checks pass (suspend and resume); it powers off"

# EDK2 from pflash, with a FAT disk holding the kernel and the initramfs.
# Each run gets a fresh copy of the variable store.
n="uefi edk2 fw_dynamic smp4 qemu10"
log=$LINUX_LOGS/uefi-edk2-smp4-qemu10.log
if ! E=$(scripts/edk2.sh path); then
  fail "$n: EDK2 firmware [scripts/edk2.sh path failed]"
elif [ -z "$Q10" ]; then
  fail "$n: EDK2 boot [no project QEMU 10]"
else
  esp=$D/esp.img
  rm -f "$esp"
  if mkfs.vfat -C "$esp" 40960 >/dev/null &&
     mcopy -i "$esp" "$LINUX_IMAGE" ::vmlinuz.efi && mcopy -i "$esp" "$LINUX_INITRD" ::initrd.gz &&
     cp "$E/RISCV_VIRT_VARS.fd" "$D/edk2-vars.fd"; then
    echo "next-stages: $n"
    start=$SECONDS
    # The disk has no EFI/BOOT/BOOTRISCV64.EFI (the boot manager would start
    # the kernel without its arguments) and no startup.nsh, so EDK2 ends in
    # its shell both times round, where the kernel's command line and then
    # `reset -s` are typed. A key ends each of the two countdowns (boot
    # options, startup.nsh) early (ESC in the first would open the boot menu).
    tests/nextstage/console.py --log "$log" --timeout "$(scale 180)" "${ABORTS[@]}" \
      'expect:Press ESCAPE within' 'send:\r' 'expect:to skip .*startup' 'send:\r' 'expect:Shell> ' \
      'send:fs0:\\vmlinuz.efi initrd=\\initrd.gz console=ttyS0 tsbi.test=boot tsbi.end=reboot\r' \
      'expect:TSBI-RESULT end ' \
      'expect:RISC-V EDK2 firmware' 'expect:Press ESCAPE within' 'send:\r' \
      'expect:to skip .*startup' 'send:\r' 'expect:Shell> ' 'send:reset -s\r' -- \
      "$Q10" -M virt -cpu rv64,sscofpmf=true -smp 4 -m 512M -nographic -bios "$FW_DYN" \
      -drive "if=pflash,format=raw,unit=0,file=$E/RISCV_VIRT_CODE.fd,readonly=on" \
      -drive "if=pflash,format=raw,unit=1,file=$D/edk2-vars.fd" \
      -drive "file=$esp,format=raw,if=virtio"
    rc=$?
    echo "next-stages: $n: status $rc after $((SECONDS - start)) s"
    check_seq "$n: EDK2 starts in S-mode from pflash and reaches the UEFI shell" "$log" \
      'next stage at 0x20000000 \(S-mode\)' 'RISC-V EDK2 firmware' 'UEFI Interactive Shell'
    check_seq "$n: the shell starts the kernel through its EFI stub with the initramfs" "$log" \
      'Shell> .*vmlinuz.efi' 'EFI stub: Booting Linux Kernel' 'EFI stub: Loaded initrd' \
      'efi: EFI v[0-9.]+ by .*EDK II'
    linux_checks "$n" "$log" "$rc" 4 reboot
    check_seq "$n: Linux reboots through SBI SRST into EDK2" "$log" \
      'reboot: Restarting system' 'tsbi: system reboot requested' 'RISC-V EDK2 firmware' 'Shell> '
    if [ "$rc" = 0 ] && log_seq "$log" 'Shell> .*reset -s' 'tsbi: system shutdown requested'; then
      pass "$n: UEFI ResetSystem (shell reset -s) powers off through SBI SRST"
    else
      fail "$n: UEFI ResetSystem (shell reset -s) powers off through SBI SRST [status $rc; 'tsbi: system shutdown requested' after 'reset -s'?]"
    fi
  else
    fail "$n: FAT disk and variable store [mkfs.vfat/mcopy failed: apt-get install dosfstools mtools]"
  fi
  config_end "$log" "EDK2 2025.02 (trixie \`qemu-efi-riscv64\`) | fw_dynamic, EDK2 in pflash | 4 | 10 | UEFI shell; the kernel through its EFI stub with the initramfs to init and the boot test; Linux reboots (SRST) into EDK2; the shell's \`reset -s\` (UEFI ResetSystem) powers off through SRST"
fi

# The table: this run's rows against the README's.
readme=firmware/README.md
begin='<!-- next-stages-table begin -->' endm='<!-- next-stages-table end -->'
cur=$(awk -v b="$begin" -v e="$endm" '$0 == e { on = 0 } on && /^\| / && !/^\|---/ && !/^\| next stage \|/ { print } $0 == b { on = 1 }' "$readme")
if [ "${1:-}" = --write-readme ]; then
  { echo '| next stage | image | harts | QEMU | what the run does | checks |'; echo '|---|---|---|---|---|---|'; cat "$TABLE"; } |
    awk -v b="$begin" -v e="$endm" 'FNR == NR { t = t $0 "\n"; next } $0 == e { printf "%s", t; on = 0 } !on { print } $0 == b { on = 1 }' - "$readme" >"$readme.new" &&
    mv "$readme.new" "$readme" && echo "next-stages: wrote the table into $readme"
  cur=$(cat "$TABLE")
fi
if [ "$cur" = "$(cat "$TABLE")" ]; then
  pass "next-stages: $readme's table (next-stages-table) is this run's ($(wc -l <"$TABLE") configurations)"
else
  fail "next-stages: $readme's table (next-stages-table) is this run's [it differs: < README, > this run ($TABLE); tests/suites/32-next-stages.sh --write-readme rewrites it]"
  diff <(echo "$cur") "$TABLE" | grep '^[<>]' | sed 's/^/  | /'
fi
