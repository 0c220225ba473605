// SPDX-License-Identifier: BSD-2-Clause
// fw_dynamic image: honours the fw_dynamic_info struct passed in a2.
namespace fw { extern const bool kImageDynamic = true; }
