// SPDX-License-Identifier: BSD-3-Clause
// Two readers of untrusted text that cluster and blacs-dyn share (header-only, pure): a node
// count written with digits alone, at most six of them (Slurm's -N and NumNodes=, read by the
// node range's reader and the arbiter daemon's start limit), and the blank-separated words of
// one line (sbatch's SubmitLine, /proc/net/tcp's rows). Neither reads past its argument, and
// neither keeps more than the words the line holds.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace malleable::text {

// A whole number 1..999999 written with digits alone (no sign, no suffix, no leading 0).
inline std::optional<int> count_of(std::string_view s) {
  if (s.empty() || s.size() > 6 || s[0] == '0') return std::nullopt;
  int v = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

// The words of a line between blanks (spaces and tabs), views into `line`.
inline std::vector<std::string_view> blank_fields(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::size_t b = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > b) out.push_back(line.substr(b, i - b));
  }
  return out;
}

}  // namespace malleable::text
