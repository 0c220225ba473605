// SPDX-License-Identifier: BSD-2-Clause
// fw_jump image: ignores a2; the next stage is at a fixed offset.
namespace fw { extern const bool kImageDynamic = false; }
