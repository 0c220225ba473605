# SPDX-License-Identifier: BSD-2-Clause
# A traced Linux boot decoded end to end (tests/tracelinux/run.sh):
#   make trace-linux            boot Linux 6.12 on 2 harts of the project QEMU with
#                               the firmware's boot-time HTM trace, power off, decode
#                               every hart, print the per-hart table
#   make trace-linux VERIFY=1   also record the run's S-mode instructions (insnlog
#                               runs=S) and require every decoded hart to equal them
#   make trace-linux FORMAT=etrace
#                               the boot-time trace in E-Trace (/chosen
#                               tsbi,trace-format = "etrace"); FORMAT=ntrace is
#                               the default
# The project QEMU is built (or reused) by run.sh under /tmp/tsbi-qemu10.lock.
#   make trace-linux-data       E-Trace data trace of a whole Linux boot to power-off
#                               (1 hart; SMP=2 for 2) against insnlog acc=S: every
#                               S-mode load and store, and every instruction (runs=S)
#                               (tests/tracelinux/data.sh; about 10 min and 15 GB of
#                               disk for 1 hart: not in make test)
#   make trace-linux-data WINDOW=20
#                               the first 20 s of a 1-hart boot only, against insnlog
#                               mem=S (text record, tests/qemu/compare_data.py)
.PHONY: trace-linux trace-linux-deps trace-linux-data
trace-linux-deps: firmware trace linux-initrd-boot $(if $(filter 1,$(VERIFY)),qemu-plugin)

trace-linux: trace-linux-deps
	TRACE_FORMAT=$(or $(FORMAT),ntrace) tests/tracelinux/run.sh $(if $(filter 1,$(VERIFY)),--verify)

trace-linux-data: firmware trace linux-initrd-boot qemu-plugin
	$(if $(WINDOW),TRACE_SECONDS=$(WINDOW)) $(if $(SMP),SMP=$(SMP)) tests/tracelinux/data.sh
