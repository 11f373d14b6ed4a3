// The status type of blacs-dyn: an exception carrying a bdyn_status code and a message
// naming the argument and value at fault. The C API turns it into a code plus
// bdyn_last_error().
#ifndef BLACS_DYN_ERROR_HPP
#define BLACS_DYN_ERROR_HPP

#include <stdexcept>
#include <string>

#include "blacs-dyn/status.h"

namespace bdyn {

class Error : public std::runtime_error {
 public:
  Error(int code, const std::string& what) : std::runtime_error(what), code_(code) {}
  int code() const noexcept { return code_; }

 private:
  int code_;
};

}  // namespace bdyn
#endif
