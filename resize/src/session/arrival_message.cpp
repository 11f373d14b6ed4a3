// SPDX-License-Identifier: BSD-3-Clause
// The arrival check's deadline and messages (arrival.hpp), pure: no MPI.
#include <algorithm>
#include <cstdio>

#include "session/arrival.hpp"

namespace resize::detail {

double arrival_deadline(double floor_seconds, double longest_interval) {
  return std::max(floor_seconds, 3.0 * std::max(0.0, longest_interval));
}

std::string rank_list(const std::vector<int>& ranks) {
  std::string out;
  for (int r : ranks) out += (out.empty() ? "" : ", ") + std::to_string(r);
  return out;
}

namespace {
std::string seconds_text(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f", s);
  return b;
}
std::string ranks_word(std::size_t n) { return n == 1 ? "world rank " : "world ranks "; }
}  // namespace

std::string arrival_verdict(int iteration, double seconds, const std::vector<int>& missing,
                            const std::vector<std::pair<int, int>>& elsewhere) {
  if (missing.empty() && elsewhere.empty()) return {};
  std::string out = "remap point after iteration " + std::to_string(iteration) + ": ";
  if (!missing.empty())
    out += ranks_word(missing.size()) + rank_list(missing) + " did" +
           " not arrive within " + seconds_text(seconds) + " s";
  for (const auto& [rank, it] : elsewhere)
    out += std::string(out.back() == ' ' ? "" : "; ") + "world rank " + std::to_string(rank) +
           " did not arrive: it came to the remap point after iteration " + std::to_string(it);
  return out + " (every process must call remap_point() after the same iterations; a process that skipped one, "
               "or is stuck or gone, stops the job)";
}

std::string root_missing(int iteration, double seconds) {
  return "remap point after iteration " + std::to_string(iteration) + ": world rank 0 did not arrive within " +
         seconds_text(seconds) +
         " s (every process must call remap_point() after the same iterations; a process that skipped one, or is "
         "stuck or gone, stops the job)";
}

}  // namespace resize::detail
