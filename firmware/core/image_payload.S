/* SPDX-License-Identifier: BSD-2-Clause */
/* fw_payload image: the next stage named by FW_PAYLOAD (firmware/build.mk),
 * carried in the firmware image. linker/firmware.ld places .payload at the
 * fw_jump offset, where this image (linked with image_jump.cpp) starts it. */
    .section .payload, "ax", %progbits
    .globl fw_payload_start, fw_payload_end
fw_payload_start:
    .incbin FW_PAYLOAD_PATH
fw_payload_end:
