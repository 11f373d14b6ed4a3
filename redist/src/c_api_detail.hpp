// SPDX-License-Identifier: BSD-3-Clause
// Internal to redist's C interface: what c_api.cpp (the entry points) and c_api_layouts.cpp
// (descriptors resolved collectively into Layouts) share: the thread's last error message,
// argument names in messages and the collective checks.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>

#include "malleable/redist/blacs.hpp"
#include "malleable/redist/layout.hpp"
#include "malleable/redist/redist.h"
#include "mpi_guard.hpp"

namespace redist::capi {

// The message of this thread's last failed call (redist_error_message).
std::string& last_error();
// Sets the message and returns the code as the C API's int.
int fail_code(ErrorCode c, const std::string& msg);
using detail::check_mpi;  // mpi_guard.hpp: redist's one check_mpi

// How messages name one descriptor's fields and its submatrix origin: the user's own
// argument names, "desca->mb" for a redist_desc, "DESCA(MB_)" for a 9-integer DESC.
struct DescNames {
  const char* side = "desca";  // "desca" / "descb" or "DESCA" / "DESCB"
  bool std_desc = false;
  const char* i = "IA";
  const char* j = "JA";
  std::string field(const std::string& f) const {
    if (!std_desc) return std::string(side) + "->" + f;
    std::string up;
    for (char c : f) up += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    if (f == "ctxt" || f == "m" || f == "n" || f == "mb" || f == "nb" || f == "rsrc" || f == "csrc" || f == "lld")
      return std::string(side) + "(" + up + "_)";
    return std::string(side) + " " + f;  // not a DESC entry (grid shape)
  }
};
inline DescNames names_a(bool std_desc) { return {std_desc ? "DESCA" : "desca", std_desc, "IA", "JA"}; }
inline DescNames names_b(bool std_desc) { return {std_desc ? "DESCB" : "descb", std_desc, "IB", "JB"}; }

// Block sizes of one dimension: the explicit list, or uniform `b` (the last block possibly
// shorter). An empty dimension needs neither a list nor a block size.
BlockSizes blocks_of(const std::int64_t* sizes, std::int64_t count, std::int64_t total, std::int64_t b,
                     const char* name);
// Local errors first, then M and N: every rank must pass the same sizes.
void agree_sizes(MPI_Comm comm, ErrorCode code, const std::string& msg, std::int64_t m, std::int64_t n);
// A redist_desc as a Layout for index functions on this process (no communicator).
Layout local_layout(const redist_desc& d);
bool valid_schedule(int s);
std::string bad_schedule(int s);
// Submatrix origin (1-based, the user's values) and extent against one side's matrix.
void check_origin(std::int64_t i, std::int64_t j, std::int64_t m, std::int64_t n, const Layout& l, const DescNames& nm);

}  // namespace redist::capi

namespace redist {

// Both descriptors resolved into Layouts on `comm` (collective), after a prior local error
// (prior, prior_msg) is agreed on; std_desc: messages name 9-integer DESC fields.
DescPair layouts_agreed(MPI_Comm comm, const redist_desc& a, const redist_desc& b, ErrorCode prior,
                        const std::string& prior_msg, bool std_desc, std::int64_t ia, std::int64_t ja,
                        std::int64_t ib, std::int64_t jb);

}  // namespace redist
