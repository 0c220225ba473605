// SPDX-License-Identifier: BSD-2-Clause
// The generic port has no quirks: everything comes from the device tree.
#pragma once
#include "platform.hpp"

namespace platform {
inline constexpr Quirks kQuirks{};
} // namespace platform
