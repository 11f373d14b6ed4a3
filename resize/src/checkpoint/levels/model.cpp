// SPDX-License-Identifier: BSD-3-Clause
// The multi-level checkpoint overhead model (levels/model.hpp).
#include "checkpoint/levels/model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "malleable/resize/types.hpp"

namespace resize::levels {

double daly_slowdown(double tau, double cost, double recovery_and_restart, double rate) {
  if (rate <= 0) return tau > 0 ? (tau + cost) / tau : std::numeric_limits<double>::infinity();
  if (tau <= 0) return std::numeric_limits<double>::infinity();
  const double a = rate * recovery_and_restart, b = rate * (tau + cost);
  if (a + b > 700) return std::numeric_limits<double>::infinity();
  return std::exp(a) * std::expm1(b) / (rate * tau);
}

double best_interval(double cost, double recovery_and_restart, double rate) {
  if (rate <= 0) return 0;
  // The slowdown is unimodal in tau (convex numerator over a linear denominator): golden
  // section on log(tau) between 1e-6 of Young's interval and 100 mean times between failures.
  const double young = std::sqrt(2 * std::max(cost, 1e-12) / rate);
  double lo = std::log(young * 1e-6), hi = std::log(100 / rate);
  if (lo >= hi) lo = hi - 1;
  const double g = (std::sqrt(5.0) - 1) / 2;
  auto f = [&](double x) { return daly_slowdown(std::exp(x), cost, recovery_and_restart, rate); };
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo), f1 = f(x1), f2 = f(x2);
  for (int k = 0; k < 200 && hi - lo > 1e-10; ++k) {
    if (f1 <= f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - g * (hi - lo);
      f1 = f(x1);
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + g * (hi - lo);
      f2 = f(x2);
    }
  }
  return std::exp((lo + hi) / 2);
}

OverheadResult expected_overhead(const std::vector<ModelLevel>& levels, double mtbf_seconds, double restart_seconds) {
  if (!(mtbf_seconds > 0)) throw Error("overhead model: the MTBF must be > 0 seconds");
  if (restart_seconds < 0) throw Error("overhead model: the relaunch time must be >= 0 seconds");
  double shares = 0;
  for (const auto& l : levels) {
    if (l.cost < 0 || l.recovery < 0 || l.share < 0)
      throw Error("overhead model: level " + l.name + " has a negative cost, recovery or share");
    shares += l.share;
  }
  if (std::abs(shares - 1) > 1e-9)
    throw Error("overhead model: the levels' shares of the failures sum to " + std::to_string(shares) + ", not 1");
  const double lambda = 1 / mtbf_seconds;
  OverheadResult out;
  for (const auto& l : levels) {
    LevelPlan p;
    p.name = l.name;
    p.rate = l.share * lambda;
    if (p.rate > 0) {
      p.interval = best_interval(l.cost, restart_seconds + l.recovery, p.rate);
      p.slowdown = daly_slowdown(p.interval, l.cost, restart_seconds + l.recovery, p.rate);
      out.first_order += std::sqrt(2 * l.cost * p.rate) + p.rate * (restart_seconds + l.recovery);
    }
    out.slowdown *= p.slowdown;
    out.levels.push_back(p);
  }
  out.overhead = std::isinf(out.slowdown) ? 1.0 : 1 - 1 / out.slowdown;
  return out;
}

double shared_fs_seconds(double bytes_per_node, int nodes, double fs_bytes_per_second, double measured_seconds) {
  if (!(fs_bytes_per_second > 0) || nodes < 1 || bytes_per_node < 0)
    throw Error("overhead model: the file system bandwidth must be > 0, nodes >= 1, bytes >= 0");
  return std::max(measured_seconds, bytes_per_node * nodes / fs_bytes_per_second);
}

double fs_seconds(double bytes_per_node, int nodes, double fs_bytes_per_second, double node_bytes_per_second) {
  if (!(fs_bytes_per_second > 0) || !(node_bytes_per_second > 0) || nodes < 1 || bytes_per_node < 0)
    throw Error("overhead model: the file system's and a node's bandwidth must be > 0, nodes >= 1, bytes >= 0");
  return bytes_per_node / std::min(node_bytes_per_second, fs_bytes_per_second / nodes);
}

double link_efficiency(double bytes, double link_bytes_per_second, double seconds) {
  if (!(bytes > 0) || !(link_bytes_per_second > 0) || !(seconds > 0))
    throw Error("overhead model: a link's efficiency needs bytes, a rate and a time > 0");
  return std::min(1.0, bytes / link_bytes_per_second / seconds);
}

ScaleCosts at_scale_costs(const MeasuredLevels& m, const ScaleScenario& s) {
  if (!(m.bytes > 0) || !(m.local >= 0) || !(s.bytes_per_node >= 0) || !(s.interconnect > 0) || s.local_rate < 0)
    throw Error("overhead model: the measured bytes and the interconnect's rate must be > 0");
  if (!(m.partner > m.local))
    throw Error("overhead model: the measured partner level (" + std::to_string(m.partner) +
                " s) is not dearer than the local level (" + std::to_string(m.local) + " s)");
  ScaleCosts c;
  c.partner_efficiency = link_efficiency(m.bytes, m.link_rate, m.partner - m.local);
  c.local = s.local_rate > 0 ? s.bytes_per_node / s.local_rate : m.local * s.bytes_per_node / m.bytes;
  c.partner = c.local + s.bytes_per_node / (s.interconnect * c.partner_efficiency);
  c.global = fs_seconds(s.bytes_per_node, s.nodes, s.fs_bandwidth, s.fs_node_bandwidth);
  return c;
}

Comparison compare(double local, double recover_local, double partner, double recover_partner, double global,
                   double share_process, double share_global, double mtbf_seconds, double restart_seconds) {
  Comparison c;
  c.global_only = expected_overhead({{"global", global, global, 1.0}}, mtbf_seconds, restart_seconds);
  c.multi = expected_overhead({{"local", local, recover_local, share_process},
                               {"partner", partner, recover_partner, 1 - share_process - share_global},
                               {"global", global, global, share_global}},
                              mtbf_seconds, restart_seconds);
  c.ratio = c.global_only.overhead / c.multi.overhead;
  return c;
}

double break_even_cost_ratio(double target, double share_global) {
  if (!(target > 0) || !(share_global >= 0 && share_global <= 1))
    throw Error("overhead model: the target must be > 0 and the global share in [0, 1]");
  const double room = 1 / target - std::sqrt(share_global);
  if (room <= 0) return std::numeric_limits<double>::infinity();
  return (1 - share_global) / (room * room);
}

}  // namespace resize::levels
