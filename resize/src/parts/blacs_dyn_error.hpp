// SPDX-License-Identifier: BSD-3-Clause
// blacs-dyn's failures in the session's terms. The session changes its world through
// blacs-dyn's C++ interface (blacs_dyn::World, malleable/blacs_dyn/blacs_dyn.hpp), which
// throws blacs_dyn::Error ("<status>: <message>", the same on every rank for a collective
// call); the session reports its own Error (the C API's codes follow from it) or carries
// the message into a refused resize's record.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "malleable/blacs_dyn/blacs_dyn.hpp"
#include "malleable/blacs_dyn/error.hpp"
#include "malleable/resize/types.hpp"

namespace resize::detail {

// `f()`'s result; its blacs_dyn::Error becomes Error(context + the message).
template <class F>
decltype(auto) or_session_error(std::string_view context, F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (const blacs_dyn::Error& e) {
    throw Error(std::string(context) + e.what());
  }
}

// Nothing when `f()` succeeded, else its blacs_dyn::Error's message.
template <class F>
std::optional<std::string> blacs_dyn_failure(F&& f) {
  try {
    std::forward<F>(f)();
    return std::nullopt;
  } catch (const blacs_dyn::Error& e) {
    return std::string(e.what());
  }
}

}  // namespace resize::detail
