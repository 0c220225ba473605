# SPDX-License-Identifier: BSD-2-Clause
# Linux on the firmware: Debian trixie's riscv64 kernel, busybox and perf
# (scripts/fetch_linux.sh, cached under $(TSBI_CACHE)/linux), the test
# initramfs images, and `make run`.
#
#   make linux-initrd          both initramfs images (boot: ~1 MB, perf: ~19 MB)
#   make linux-initrd-kvm      the KVM host's image (perf, QEMU, kvm.ko, the guest)
#   make run                   interactive busybox shell on our firmware
#   make run RUN_INITRD=perf   the same with perf in the image
#   make run SMP=4 FW=opensbi|path/to/fw_dynamic.bin QEMU=path/to/qemu-system-riscv64
#
# FW, SMP and QEMU are generic names other makefiles may use, so the defaults
# live in LINUX_RUN_*; a FW/SMP/QEMU given on the command line or in the
# environment overrides them.

LINUX_CACHE       := $(TSBI_CACHE)/linux/current
LINUX_IMAGE       := $(LINUX_CACHE)/Image
LINUX_HWPROBE     := $(BUILD)/linux/tsbi-hwprobe
LINUX_INITRD_DEPS := tests/linux/mkinitrd.sh tests/linux/mkcpio.py tests/linux/init \
                     $(wildcard tests/linux/guest/*.sh) $(LINUX_CACHE)/VERSION $(LINUX_HWPROBE)
LINUX_RUN_FW      := $(BUILD)/fw/tsbi_dynamic.bin
LINUX_RUN_SMP     := 2
LINUX_RUN_QEMU    := qemu-system-riscv64
RUN_INITRD        ?= boot
linux_override     = $(if $(filter command line environment environment override,$(origin $(1))),$($(1)),$(2))
# FW=opensbi names Debian's OpenSBI 1.1, the comparison firmware.
linux_fw           = $(patsubst opensbi,/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.bin,$(call linux_override,FW,$(LINUX_RUN_FW)))

.PHONY: linux-fetch linux-initrd linux-initrd-boot linux-initrd-perf linux-initrd-kvm

# VERSION is rewritten only when a download changes what it records, so the
# images below are rebuilt exactly when their inputs change.
$(LINUX_CACHE)/VERSION:
	scripts/fetch_linux.sh >/dev/null

linux-fetch: $(LINUX_CACHE)/VERSION

# The hwprobe dumper in every image (/bin/tsbi-hwprobe): static, no libc.
$(LINUX_HWPROBE): tests/linux/hwprobe.c
	@mkdir -p $(@D)
	$(CROSS)gcc -O2 -Wall -Wextra -Werror -ffreestanding -fno-stack-protector \
	  -fno-pie -no-pie -static -nostdlib -Wl,--no-warn-rwx-segments -o $@ $<

$(BUILD)/linux/initrd-%.cpio.gz: $(LINUX_INITRD_DEPS)
	@mkdir -p $(@D)
	HWPROBE=$(LINUX_HWPROBE) tests/linux/mkinitrd.sh $* $@

# The KVM host's image holds the guest's: the perf image.
$(BUILD)/linux/initrd-kvm.cpio.gz: $(LINUX_INITRD_DEPS) $(BUILD)/linux/initrd-perf.cpio.gz
	@mkdir -p $(@D)
	HWPROBE=$(LINUX_HWPROBE) tests/linux/mkinitrd.sh kvm $@ $(BUILD)/linux/initrd-perf.cpio.gz

linux-initrd-boot: $(BUILD)/linux/initrd-boot.cpio.gz
linux-initrd-perf: $(BUILD)/linux/initrd-perf.cpio.gz
linux-initrd-kvm: $(BUILD)/linux/initrd-kvm.cpio.gz
linux-initrd: linux-initrd-boot linux-initrd-perf

# Builds our firmware only when it is the one being run.
run: linux-initrd-$(RUN_INITRD) $(if $(call linux_override,FW,),,firmware)
	$(call linux_override,QEMU,$(LINUX_RUN_QEMU)) -M virt -cpu rv64,sscofpmf=true \
	  -smp $(call linux_override,SMP,$(LINUX_RUN_SMP)) -m 512M -nographic \
	  -bios $(linux_fw) -kernel $(LINUX_IMAGE) \
	  -initrd $(BUILD)/linux/initrd-$(RUN_INITRD).cpio.gz -append 'console=ttyS0 tsbi.test=shell'
