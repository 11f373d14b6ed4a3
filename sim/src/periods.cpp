// SPDX-License-Identifier: BSD-3-Clause
#include "periods.hpp"

#include <cmath>

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

bool PeriodPolicy::may_start(double t, double estimate_s) const {
  if (!on) return true;
  const bool in_prime = prime(t);
  if (in_prime && prime_max_s > 0 && estimate_s > prime_max_s) return false;
  // Longer than the longest night (Friday's end_h to Monday's start_h): outside prime time.
  const double longest = 2 * kDay + (24.0 - end_h + start_h) * 3600;
  if (estimate_s > longest) return !in_prime;
  return t + estimate_s <= next_cut(t) + 1e-6;
}

}  // namespace clustersim
