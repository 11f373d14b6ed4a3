// SPDX-License-Identifier: BSD-3-Clause
// blacs-dyn's failures on the session's way. The session changes its world through
// blacs-dyn's C++ interface (blacs_dyn::World, malleable/blacs_dyn/blacs_dyn.hpp), which
// throws blacs_dyn::Error with the code and message blacs-dyn raised (the same on every
// rank for a collective call). It is a resize::Error (the one form, malleable/error.hpp),
// so the session lets it through to its caller, its code and part intact, saying only
// where it was met; or it carries the failure into a refused resize's record.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "malleable/blacs_dyn/blacs_dyn.hpp"
#include "malleable/blacs_dyn/error.hpp"
#include "malleable/resize/types.hpp"

namespace resize::detail {

// `f()`'s result; its blacs_dyn::Error goes on to the caller as it was thrown, `context`
// before its message.
template <class F>
decltype(auto) or_session_error(std::string_view context, F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (blacs_dyn::Error& e) {
    e.prepend(context);
    throw;
  }
}

// Nothing when `f()` succeeded, else its blacs_dyn::Error in one line (blacs_dyn::describe:
// "<status>: <message>").
template <class F>
std::optional<std::string> blacs_dyn_failure(F&& f) {
  try {
    std::forward<F>(f)();
    return std::nullopt;
  } catch (const blacs_dyn::Error& e) {
    return blacs_dyn::describe(e);
  }
}

}  // namespace resize::detail
