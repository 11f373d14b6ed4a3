// SPDX-License-Identifier: BSD-3-Clause
// For the unit tests that check how a refusal reads: the message of the exception of type
// E that `f` throws, or "" when it throws none (another exception passes through).
// Included by path ("../support/thrown.hpp"), so any test program may use it.
#pragma once

#include <string>
#include <utility>

namespace test_support {

template <class E, class F>
std::string thrown(F&& f) {
  try {
    std::forward<F>(f)();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

}  // namespace test_support
