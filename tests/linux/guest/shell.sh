# SPDX-License-Identifier: BSD-2-Clause
# `make run`: an interactive shell on the console, with job control.
echo
echo "tsbi: busybox shell on $(nproc) harts; 'exit' powers off (SBI SRST)."
setsid cttyhack sh -l
