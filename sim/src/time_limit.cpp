// SPDX-License-Identifier: BSD-3-Clause
#include "time_limit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace clustersim {

double EndPrediction::end() const {
  return now + resize_s + static_cast<double>(iterations_left) * (iteration_s + overhead_s);
}

LimitVerdict keeps_limit(const EndPrediction& p, double deadline) {
  LimitVerdict v;
  v.predicted_end = p.end();
  v.deadline = deadline;
  if (std::isinf(deadline) || v.predicted_end <= deadline) return v;
  v.ok = false;
  char buf[160];
  std::snprintf(buf, sizeof buf, "predicted end %.0f s, %.0f s past the time limit at %.0f s", v.predicted_end,
                v.predicted_end - deadline, deadline);
  v.why = buf;
  return v;
}

int fewest_within(int lo, int hi, double deadline, const std::function<double(int)>& end_on) {
  if (lo < 1 || hi < lo) throw std::invalid_argument("fewest_within: need 1 <= lo <= hi");
  if (std::isinf(deadline)) return lo;
  for (int n = lo; n <= hi; ++n)
    if (end_on(n) <= deadline) return n;
  return hi;
}

LimitExtension extend_with_size(double now, double deadline, double cap, double t_from, double t_to, double cost_s) {
  LimitExtension e;
  if (!(deadline > now) || deadline == kNoLimit || !(t_from > 0)) return e;
  const double left = deadline - now;
  const double by = cost_s + left * t_to / t_from - left;
  e.cut_s = std::max(0.0, deadline + by - std::max(deadline, cap));
  e.by_s = std::max(0.0, std::min(by, cap - deadline));
  return e;
}

}  // namespace clustersim
