// SPDX-License-Identifier: BSD-3-Clause
// The status type of blacs-dyn: an exception carrying a blacs_dyn_status code and a message
// naming the argument and value at fault. The C API turns it into a code plus
// blacs_dyn_last_error().
#ifndef BLACS_DYN_ERROR_HPP
#define BLACS_DYN_ERROR_HPP

#include <stdexcept>
#include <string>

#include "malleable/blacs_dyn/status.h"

namespace blacs_dyn {

class Error : public std::runtime_error {
 public:
  Error(int code, const std::string& what) : std::runtime_error(what), code_(code) {}
  int code() const noexcept { return code_; }

 private:
  int code_;
};

}  // namespace blacs_dyn
#endif
