// SPDX-License-Identifier: BSD-3-Clause
// A site's prime-time rule, pure (docs/measurements/workload.md, "A replay that matches its
// log"): on weekdays the day is cut at two local times, prime time [start_h, end_h) and
// the night after it; a job starts only if its estimate ends by the next cut (08:00 or
// 17:00 of a weekday; the weekend has none before Monday's start_h), and in prime time only
// if its estimate is at most prime_max_s. KTH's SP2 log shows both (its jobs requesting
// more than 4 h start on weekdays only at 17:00 or after, and none of its jobs runs across
// 08:00 or 17:00 but 5%).
//
// Simulated time t is the epoch second origin + t; local time adds the zone's offset at
// that moment (`offset`, seconds east of UTC: the trace's TimeZoneString with its daylight
// saving, or its fixed TimeZone).
#pragma once

#include <functional>

namespace clustersim {

struct PeriodPolicy {
  bool on = false;
  int start_h = 8, end_h = 17;   // prime time, local hours of a weekday (Monday-Friday)
  double prime_max_s = 4 * 3600;  // the longest estimate that may start in prime time (0: any)
  double origin = 0;             // epoch seconds at simulated time 0
  std::function<long(double epoch)> offset = [](double) { return 0L; };

  // The next cut strictly after simulated time t (a weekday's start_h or end_h), in
  // simulated seconds.
  double next_cut(double t) const;
  // Is t in prime time?
  bool prime(double t) const;
  // May a job whose estimate is `estimate_s` start at t? (Always, when off; an estimate
  // longer than the longest night, Friday's end_h to Monday's start_h, outside prime time.)
  bool may_start(double t, double estimate_s) const;
  // Until when, from t, a job whose estimate is `estimate_s` may start: the end of the
  // stretch of the period between two cuts that holds t (the next cut less the estimate;
  // the next cut itself for a job longer than any night, outside prime time); t when it
  // may not start at t; infinity when off.
  double may_start_until(double t, double estimate_s) const;
};

}  // namespace clustersim
