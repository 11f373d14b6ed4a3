// SPDX-License-Identifier: BSD-3-Clause
// gridmap's one error type. Every check that rejects an input throws gridmap::Error with a
// message naming the argument and the value at fault (STYLE.md "Errors"); the C API maps
// it to a status code and keeps the message for gridmap_last_error().
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace gridmap {

class Error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Builds "<what>: <argument> = <value>" messages without a format library.
template <class... Parts>
[[noreturn]] void fail(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  throw Error(out.str());
}

}  // namespace gridmap
