# SPDX-License-Identifier: BSD-2-Clause
# `make run`: an interactive shell on the console, with job control.
if command -v perf >/dev/null; then
  # Debian's default (3) keeps perf from counting anything but the caller's
  # own user-space events.
  echo -1 >/proc/sys/kernel/perf_event_paranoid
  hint=" perf is installed (try: perf stat -a -e cpu/firmware=2,event=6/ sleep 1)."
fi
echo
echo "tsbi: busybox shell on $(nproc) harts; 'exit' powers off (SBI SRST).${hint:-}"
setsid cttyhack sh -l
