// SPDX-License-Identifier: BSD-3-Clause
// The error of blacs-dyn: the one form (malleable::Error, malleable/error.hpp) raised by
// blacs-dyn, with a message naming the argument and value at fault. code() is its
// blacs_dyn_status, one to one with the common code (errc()). The C API returns that
// status and keeps the message for blacs_dyn_last_error(); the C++ interface
// (blacs_dyn.hpp) throws the same code and message again.
#ifndef BLACS_DYN_ERROR_HPP
#define BLACS_DYN_ERROR_HPP

#include <string>

#include "malleable/blacs_dyn/status.h"
#include "malleable/error.hpp"

namespace blacs_dyn {

// blacs_dyn_status and the common code, one to one.
inline constexpr malleable::CodeTable<int, 9> kStatusCodes{{
    {BLACS_DYN_OK, malleable::Errc::Ok},
    {BLACS_DYN_ERR_ARG, malleable::Errc::InvalidArgument},
    {BLACS_DYN_ERR_SCHEMA, malleable::Errc::Schema},
    {BLACS_DYN_ERR_SPAWN, malleable::Errc::Spawn},
    {BLACS_DYN_ERR_STATE, malleable::Errc::State},
    {BLACS_DYN_ERR_MPI, malleable::Errc::Mpi},
    {BLACS_DYN_ERR_TIMEOUT, malleable::Errc::Timeout},
    {BLACS_DYN_ERR_UNSUPPORTED, malleable::Errc::SpawnUnsupported},
    {BLACS_DYN_ERR_JOIN, malleable::Errc::Join},
}};
// A status as the common code (Internal for a value that is no status).
constexpr malleable::Errc errc_of_status(int status) noexcept {
  return kStatusCodes.errc_of(status, malleable::Errc::Internal);
}
// The common code as a status: BLACS_DYN_ERR_MPI for a code that is not blacs-dyn's (no
// part below it raises one), as any failure blacs-dyn did not name.
constexpr int status_of(malleable::Errc code) noexcept { return kStatusCodes.code_of(code, BLACS_DYN_ERR_MPI); }

class Error : public malleable::Error {
 public:
  Error(int code, const std::string& what)
      : malleable::Error(malleable::Part::BlacsDyn, errc_of_status(code), what) {}
  int code() const noexcept { return status_of(errc()); }  // a blacs_dyn_status
};

}  // namespace blacs_dyn
#endif
