#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# kallsyms.sh QEMU FIRMWARE INITRD: prints the path of the kernel's symbol table
# (System.map format: text symbols and the patch tables' bounds) next to the
# Image in the Linux cache, making it on first use. Debian's package ships only a
# stub System.map (the real one is in the huge -dbg package), so one untraced
# boot with nokaslr prints /proc/kallsyms (tests/linux/guest/kallsyms.sh).
set -euo pipefail
qemu=$1 fw=$2 initrd=$3
dir=$(readlink -f "$("$(dirname "$0")/../../scripts/fetch_linux.sh")")
out=$dir/kallsyms
if [ ! -s "$out" ] || [ "$out" -ot "$dir/Image" ]; then
  log=$(mktemp); trap 'rm -f "$log" "$out.part"' EXIT
  timeout 300 "$qemu" -M virt -cpu rv64 -smp 1 -m 512M -nographic -bios "$fw" -kernel "$dir/Image" \
    -initrd "$initrd" -append 'console=ttyS0 nokaslr tsbi.test=kallsyms' </dev/null >"$log" 2>&1 ||
    { echo "kallsyms: the boot failed" >&2; tail -5 "$log" >&2; exit 1; }
  sed -n '/^TSBI-KALLSYMS-BEGIN/,/^TSBI-KALLSYMS-END/p' "$log" | sed '1d;$d' | tr -d '\r' |
    base64 -d | gunzip >"$out.part"
  grep -q ' _stext$' "$out.part" || { echo "kallsyms: no symbols in the console output" >&2; exit 1; }
  mv "$out.part" "$out"
fi
echo "$out"
