# SPDX-License-Identifier: BSD-2-Clause
# The shortest test: /init powers off right away (the traced boot of
# `make trace-linux`, tests/tracelinux).
exit 0
