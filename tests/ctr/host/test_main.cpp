// SPDX-License-Identifier: BSD-2-Clause
// doctest entry point of the CTR host tests.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
