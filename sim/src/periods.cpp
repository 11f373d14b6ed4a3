// SPDX-License-Identifier: BSD-3-Clause
#include "periods.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace clustersim {

namespace {

constexpr double kDay = 86400;

// Local seconds since the epoch's local midnight of 1 Jan 1970, and the weekday
// (0 Monday .. 6 Sunday) of a simulated time.
struct Local {
  double seconds;  // local seconds since 1970-01-01 00:00 local
  double day_start;
  int weekday;
  double hour_s;  // seconds since local midnight
};

Local local(const PeriodPolicy& p, double t) {
  const double epoch = p.origin + t;
  Local l;
  l.seconds = epoch + static_cast<double>(p.offset(epoch));
  const double days = std::floor(l.seconds / kDay);
  l.day_start = days * kDay;
  l.hour_s = l.seconds - l.day_start;
  // 1970-01-01 was a Thursday (weekday 3 counting Monday as 0).
  l.weekday = static_cast<int>(static_cast<long long>(days + 3) % 7 + 7) % 7;
  return l;
}

}  // namespace

double PeriodPolicy::next_cut(double t) const {
  const Local l = local(*this, t);
  for (int d = 0; d < 8; ++d) {
    const int wd = (l.weekday + d) % 7;
    if (wd >= 5) continue;
    for (int h : {start_h, end_h}) {
      const double cut_local = l.day_start + d * kDay + h * 3600.0;
      if (cut_local > l.seconds) return t + (cut_local - l.seconds);
    }
  }
  return t + 7 * kDay;  // (not reached: a weekday comes within 8 days)
}

bool PeriodPolicy::prime(double t) const {
  const Local l = local(*this, t);
  return l.weekday < 5 && l.hour_s >= start_h * 3600.0 && l.hour_s < end_h * 3600.0;
}

namespace {
// The longest night: Friday's end_h to Monday's start_h.
double longest_night(const PeriodPolicy& p) { return 2 * kDay + (24.0 - p.end_h + p.start_h) * 3600; }
}  // namespace

bool PeriodPolicy::may_start(double t, double estimate_s) const {
  if (!on) return true;
  const bool in_prime = prime(t);
  if (in_prime && prime_max_s > 0 && estimate_s > prime_max_s) return false;
  // Longer than the longest night: outside prime time.
  if (estimate_s > longest_night(*this)) return !in_prime;
  return t + estimate_s <= next_cut(t) + 1e-6;
}

double PeriodPolicy::may_start_until(double t, double estimate_s) const {
  if (!on) return std::numeric_limits<double>::infinity();
  if (!may_start(t, estimate_s)) return t;
  const double cut = next_cut(t);
  return estimate_s > longest_night(*this) ? cut : std::max(t, cut - estimate_s);
}

}  // namespace clustersim
