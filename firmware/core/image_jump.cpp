// SPDX-License-Identifier: BSD-2-Clause
// fw_jump image: ignores a2; the next stage is at a fixed offset.
extern "C" const bool fw_image_dynamic = false; // read by entry.S and init.cpp
