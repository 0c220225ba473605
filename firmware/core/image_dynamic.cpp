// SPDX-License-Identifier: BSD-2-Clause
// fw_dynamic image: honours the fw_dynamic_info struct passed in a2.
extern "C" const bool fw_image_dynamic = true; // read by entry.S and init.cpp
