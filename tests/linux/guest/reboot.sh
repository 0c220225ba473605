# SPDX-License-Identifier: BSD-2-Clause
# Ends the run with `reboot -f` (SBI SRST cold reboot) instead of power-off;
# the host runs QEMU with -no-reboot so the reset makes it exit.
echo reboot >/tmp/tsbi-end
