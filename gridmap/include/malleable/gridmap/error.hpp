// SPDX-License-Identifier: BSD-3-Clause
// gridmap's one error type, the one form (malleable::Error, malleable/error.hpp) with part
// Gridmap. Every check that rejects an input throws gridmap::Error with a message naming
// the argument and the value at fault (STYLE.md "Errors"); the C API maps it to a status
// code and keeps the message for gridmap_last_error().
#pragma once

#include <sstream>
#include <string>
#include <string_view>

#include "malleable/error.hpp"

namespace gridmap {

class Error : public malleable::Error {
 public:
  explicit Error(const std::string& what, malleable::Errc code = malleable::Errc::InvalidArgument)
      : malleable::Error(malleable::Part::Gridmap, code, what) {}
  // redist's error met while planning, for gridmap's callers, who catch gridmap::Error:
  // redist's code and part kept, `context` before its message.
  Error(const malleable::Error& cause, std::string_view context) : malleable::Error(cause, context) {}
};

// Builds "<what>: <argument> = <value>" messages without a format library.
template <class... Parts>
[[noreturn]] void fail(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  throw Error(out.str());
}

}  // namespace gridmap
