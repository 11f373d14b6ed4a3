// SPDX-License-Identifier: BSD-3-Clause
#include "outages.hpp"

#include <algorithm>
#include <utility>

#include "periods.hpp"
#include "swf.hpp"

namespace clustersim {

namespace {

// The log's own schedule as events: +1 waiting at a submission, a start moves a job from
// waiting to running, an end leaves. At one instant ends come first, then starts, then
// submissions (a job started at its submission never waits).
// With a site's rules (PeriodPolicy) a job counts as waiting only while the rules let it
// start: +1 where such a stretch begins (order 2), -1 where it ends (order 1, with the start
// if it ends there).
struct Event {
  double t = 0;
  int order = 0;  // 0 end, 1 start (or a stretch the rules let the job start ends), 2 submission (or one begins)
  int nodes = 0;  // running nodes it adds (a start) or removes (an end)
  int wait = 0;   // waiting jobs it adds or removes
  bool operator<(const Event& o) const { return t != o.t ? t < o.t : order < o.order; }
};

// The stretches of [from, to) in which the rules let a job of estimate `est` start, one per
// period between two cuts (PeriodPolicy::may_start_until).
template <class Add>
void eligible_stretches(const PeriodPolicy& p, double from, double to, double est, Add add) {
  for (double t = from; t < to; t = p.next_cut(t)) {
    const double end = std::min(to, p.may_start_until(t, est));
    if (end > t) add(t, end);
  }
}

// The log's capacity in windows of window_s (from the first submission): in a window whose
// queue never emptied, the machine less the most nodes the log ran at once in it is down
// (a scheduler with jobs waiting all the time ran what the machine let it).
void partial_windows(const std::vector<Event>& ev, double last_submit,
                     int machine, double window_s, OutageEvidence& e) {
  if (window_s <= 0 || ev.empty()) return;
  long waiting = 0;
  int running = 0, peak = 0;
  bool always = false;
  double start = ev.front().t;
  const auto finish = [&](double end) {
    if (always && peak < machine && end > start) {
      e.outages.push_back({start, end, machine - peak});
      e.partial_node_s += (end - start) * (machine - peak);
      ++e.partial;
    }
  };
  for (std::size_t k = 0; k < ev.size() && start < last_submit;) {
    const double now = ev[k].t;
    if (now >= start + window_s) {
      finish(std::min(start + window_s, last_submit));
      start += window_s;
      peak = running;
      always = waiting > 0;
      continue;
    }
    for (; k < ev.size() && ev[k].t == now; ++k) {
      running += ev[k].nodes;
      waiting += ev[k].wait;
    }
    if (now == start) always = waiting > 0;
    peak = std::max(peak, running);
    if (waiting == 0) always = false;
  }
  if (start < last_submit) finish(last_submit);
}

}  // namespace

OutageEvidence infer_outages(const TraceJobs& t, double min_s, double window_s, const PeriodPolicy* rules) {
  OutageEvidence e;
  std::vector<Event> ev;
  ev.reserve(3 * t.jobs.size());
  for (const TraceJob& j : t.jobs) {
    if (j.wait_s < 0) {
      ++e.no_wait;
      continue;
    }
    const double start = j.submit_s + j.wait_s;
    ev.push_back({start, 1, j.nodes, 0});
    ev.push_back({start + j.run_s, 0, -j.nodes, 0});
    if (!rules || !rules->on) {
      ev.push_back({j.submit_s, 2, 0, 1});
      ev.push_back({start, 1, 0, -1});
    } else {
      const double est = j.requested_s > 0 ? j.requested_s : j.run_s;
      eligible_stretches(*rules, j.submit_s, start, est, [&](double a, double b) {
        ev.push_back({a, 2, 0, 1});
        ev.push_back({b, 1, 0, -1});
      });
    }
  }
  std::sort(ev.begin(), ev.end());
  double last_submit = 0;
  for (const TraceJob& j : t.jobs)
    if (j.wait_s >= 0) last_submit = std::max(last_submit, j.submit_s);
  long waiting = 0, running = 0;  // waiting jobs, running nodes
  double since = -1;  // the start of the current spell of nothing running with a queue (< 0: none)
  const auto close = [&](double now) {
    if (since < 0) return;
    const double len = now - since;
    if (len >= min_s) {
      e.outages.push_back({since, now, t.machine_nodes});
      e.down_s += len;
    } else if (len > 0) {
      e.shorter_s += len;
      ++e.shorter;
    }
    since = -1;
  };
  for (std::size_t k = 0; k < ev.size();) {
    const double now = ev[k].t;
    if (now > last_submit) {  // the log's end: a late job waits for the jobs the window left out
      close(last_submit);
      break;
    }
    for (; k < ev.size() && ev[k].t == now; ++k) {
      running += ev[k].nodes;
      waiting += ev[k].wait;
    }
    const bool idle_with_queue = running == 0 && waiting > 0;
    if (idle_with_queue && since < 0) since = now;
    if (!idle_with_queue) close(now);
  }
  partial_windows(ev, last_submit, t.machine_nodes, window_s, e);
  std::sort(e.outages.begin(), e.outages.end(),
            [](const Outage& a, const Outage& b) { return a.start_s != b.start_s ? a.start_s < b.start_s : a.end_s < b.end_s; });
  return e;
}

int nodes_down(const std::vector<Outage>& o, double t, int total) {
  int down = 0;
  for (const Outage& x : o)
    if (x.start_s <= t && t < x.end_s) down += x.nodes;
  return std::min(down, total);
}

double next_outage_cut(const std::vector<Outage>& o, double t) {
  double next = std::numeric_limits<double>::infinity();
  for (const Outage& x : o) {
    if (x.start_s > t) next = std::min(next, x.start_s);
    if (x.end_s > t) next = std::min(next, x.end_s);
  }
  return next;
}

}  // namespace clustersim
