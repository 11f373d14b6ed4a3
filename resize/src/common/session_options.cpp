// SPDX-License-Identifier: BSD-3-Clause
// The pure calls of the session's vocabulary (malleable/resize/session_options.hpp): the
// mover's name and the move budget read from text. No MPI: the pure core holds them, the
// C API's environment and the unit tests call them.
#include "malleable/resize/session_options.hpp"

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>

namespace resize {

std::string to_string(Mover m) { return m == Mover::Redist ? "redist" : "pdgemr2d"; }
Mover parse_mover(const std::string& s) {
  if (s == "redist") return Mover::Redist;
  if (s == "pdgemr2d") return Mover::Pdgemr2d;
  throw Error("redistribution: expected redist or pdgemr2d, got '" + s + "'");
}

std::int64_t parse_move_budget(const std::string& s) {
  if (s.empty() || s == "unlimited") return 0;
  const auto bad = [&] {
    return Error("move budget: expected bytes with an optional K, M or G (e.g. 512M), 0 or unlimited, got '" + s + "'");
  };
  std::size_t digits = 0;
  while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') ++digits;
  if (digits == 0 || digits > 18 || s.size() - digits > 1) throw bad();
  const std::int64_t v = std::stoll(s.substr(0, digits));
  int shift = 0;
  if (digits < s.size()) {
    const char u = static_cast<char>(std::toupper(static_cast<unsigned char>(s[digits])));
    shift = u == 'K' ? 10 : u == 'M' ? 20 : u == 'G' ? 30 : -1;
    if (shift < 0) throw bad();
  }
  if (v > (std::int64_t{1} << (62 - shift))) throw bad();
  return v << shift;
}

}  // namespace resize
