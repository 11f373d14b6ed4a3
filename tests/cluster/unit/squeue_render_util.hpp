// SPDX-License-Identifier: BSD-3-Clause
// A stand-in for squeue's printing, for tests: a job's fields rendered through an `-o`
// format as Slurm 22.05's squeue prints them (src/squeue/print.c, _print_str): "%[.][W]x"
// is field x, left-justified in W bytes (cut at W, padded with blanks), right-justified
// with '.', the whole value without W; text between fields as it stands. Checked against
// the real squeue of the emulated cluster (a name holding '|', line ends and bytes 0x01,
// 0xff, 0xc3: cut at exactly W bytes, padded with blanks, nothing escaped). So a test feeds
// the parser what squeue would print for any format it asks for, the old one included.
#pragma once

#include <cctype>
#include <map>
#include <string>
#include <vector>

namespace squeue_render {

// A job as squeue knows it: its fields by format letter (i T D N j r Q V P S Y q U k L).
using Fields = std::map<char, std::string>;

inline std::string field(const std::string& value, std::size_t width, bool right) {
  if (width == 0) return value;
  std::string v = value.substr(0, width);
  const std::string pad(width - v.size(), ' ');
  return right ? pad + v : v + pad;
}

// One job's record through `format` (without the line end squeue adds).
inline std::string render(const std::string& format, const Fields& job) {
  std::string out;
  for (std::size_t k = 0; k < format.size(); ++k) {
    if (format[k] != '%') {
      out += format[k];
      continue;
    }
    bool right = false;
    std::size_t width = 0;
    if (++k < format.size() && format[k] == '.') right = true, ++k;
    while (k < format.size() && std::isdigit(static_cast<unsigned char>(format[k]))) width = width * 10 + (format[k++] - '0');
    if (k >= format.size()) break;
    const auto it = job.find(format[k]);
    out += field(it == job.end() ? std::string() : it->second, width, right);
  }
  return out;
}

// The output of `squeue -h -o format` for these jobs, in this order.
inline std::string squeue(const std::string& format, const std::vector<Fields>& jobs) {
  std::string out;
  for (const auto& j : jobs) out += render(format, j) + "\n";
  return out;
}

}  // namespace squeue_render
