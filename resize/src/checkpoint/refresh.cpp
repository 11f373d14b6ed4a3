// SPDX-License-Identifier: BSD-3-Clause
// The refresh's rule (refresh.hpp).
#include "checkpoint/refresh.hpp"

#include <cerrno>
#include <climits>
#include <cstdlib>

#include "malleable/resize/types.hpp"

namespace resize::detail {

RefreshRule parse_refresh_rule(const std::optional<std::string>& text) {
  RefreshRule r;
  if (!text || text->empty() || *text == "off" || *text == "0") return r;
  const auto bad = [&] {
    return Error("RESIZE_REFRESH_AFTER: expected off or the number of processes a launch may spawn (1 or more), got '" +
                 *text + "'");
  };
  for (const char c : *text)
    if (c < '0' || c > '9') throw bad();
  errno = 0;
  const long v = std::strtol(text->c_str(), nullptr, 10);
  if (errno != 0 || v < 1 || v > INT_MAX) throw bad();
  r.after = static_cast<int>(v);
  return r;
}

bool refresh_due(const RefreshRule& rule, int spawned, int nnew) {
  if (rule.after <= 0 || nnew <= 0) return false;
  return static_cast<long>(spawned) + nnew > rule.after;
}

std::string describe_refresh(const RefreshRule& rule, int spawned, int nnew) {
  return "this launch spawned " + std::to_string(spawned) + " processes; " + std::to_string(nnew) +
         " more would pass RESIZE_REFRESH_AFTER=" + std::to_string(rule.after) +
         ": the expansion by restart, which starts every process anew";
}

}  // namespace resize::detail
