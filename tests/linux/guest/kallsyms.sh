# SPDX-License-Identifier: BSD-2-Clause
# Prints the kernel's text symbols (System.map format) between two markers,
# gzip'ed and base64-encoded to keep the console transfer short: Debian ships
# only a stub System.map (the real one is in the -dbg package). The host
# (tests/tracelinux/kallsyms.sh) decodes it; with nokaslr the addresses are
# the link addresses.
echo 0 >/proc/sys/kernel/kptr_restrict
echo "TSBI-KALLSYMS-BEGIN"
grep -E '^[0-9a-f]+ [tTwW] |__(start|stop)_mcount_loc$|__alt_(start|end)$|__(start|stop)___jump_table$' /proc/kallsyms | gzip -c | base64
echo "TSBI-KALLSYMS-END"
