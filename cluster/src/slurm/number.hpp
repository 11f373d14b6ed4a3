// SPDX-License-Identifier: BSD-3-Clause
// Bounded numbers from text that others wrote (Slurm's output, a file, a request): decimal
// digits only, at most a stated value. Never throws, never overflows: the callers say what
// is wrong in their own words. (std::stoi and its kin throw std::out_of_range, which no
// caller catches as an Error: a number too long for them ended the daemon.)
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace cluster::slurm {

// `s` as a whole number in [0, max]: one or more decimal digits, nothing else (no sign, no
// blank); nullopt otherwise. Leading zeros are allowed ("007" is 7).
inline std::optional<std::uint64_t> whole_number(std::string_view s, std::uint64_t max) {
  if (s.empty() || s.size() > 40) return std::nullopt;
  std::uint64_t v = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (d > max || v > (max - d) / 10) return std::nullopt;  // v * 10 + d > max
    v = v * 10 + d;
  }
  return v;
}

}  // namespace cluster::slurm
