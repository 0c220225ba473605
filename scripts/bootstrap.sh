#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Installs the Debian (bookworm) host packages the build and the tests need,
# only when one is missing. Never touches the system's apt sources.
set -euo pipefail
pkgs=(
  make gcc g++            # host tools and tests (HOSTCC/HOSTCXX); not in a minimal system
  g++-riscv64-linux-gnu   # firmware and S-mode payloads
  gcc-riscv64-unknown-elf # its rv32imac/ilp32 libgcc for the RV32 images
  qemu-system-misc        # QEMU 7.2 (qemu-system-riscv64)
  opensbi                 # Debian's OpenSBI 1.1: the peer in tests and benchmarks
  u-boot-qemu             # U-Boot (qemu-riscv64_smode), a next stage in suite 32
  dosfstools mtools       # the FAT disk EDK2 boots Linux from (suite 32)
  doctest-dev             # host unit tests
  # 32-bit x86 build of the PMU host tests (an RV32 hart model, unsigned long
  # of 32 bits): the versioned g++-12-multilib, because g++-multilib/
  # gcc-multilib conflict with g++-riscv64-linux-gnu in bookworm
  g++-12-multilib
  qemu-user               # qemu-i386 runs that build where the kernel cannot (no IA32 emulation)
  libfdt-dev              # device-tree handling in host tests and tools
  device-tree-compiler    # dtc for test device trees
  libelf-dev              # ELF images for the trace decoder
  cpio xz-utils zstd      # initramfs and Debian package unpacking
  curl                    # locked Debian packages (scripts/linux.lock)
  debian-archive-keyring  # private apt state for trixie riscv64 packages
  python3                 # test runners
  time                    # /usr/bin/time: CPU seconds and peak memory in make bench
  libglib2.0-dev ninja-build python3-venv libpixman-1-dev  # project QEMU 10 build
  dpkg-dev pkg-config     # apt-get source unpacking (dpkg-source); QEMU plugin cflags
  clang libclang-rt-14-dev  # libFuzzer targets for the trace decoders
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" != 0 ]; then
    echo "bootstrap: missing packages (${missing[*]}); run as root" >&2; exit 1
  fi
  echo "bootstrap: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >&2 || true
  apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi
