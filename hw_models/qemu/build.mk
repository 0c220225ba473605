# SPDX-License-Identifier: BSD-2-Clause
# Project QEMU 10 (Debian trixie source + the trace models in hw_models/qemu).
# scripts/qemu10.sh does the work and caches outside the repository; `make qemu`
# leaves a symlink $(BUILD)/qemu/qemu-system-riscv64 to the cached binary.
.PHONY: qemu qemu-noingress
qemu:
	@mkdir -p $(BUILD)/qemu
	@p=$$(scripts/qemu10.sh path) && ln -sfn "$$p" $(BUILD)/qemu/qemu-system-riscv64

qemu-noingress:
	@mkdir -p $(BUILD)/qemu
	@p=$$(scripts/qemu10.sh path noingress) && ln -sfn "$$p" $(BUILD)/qemu/qemu-system-riscv64-noingress
