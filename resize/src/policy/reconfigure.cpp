// SPDX-License-Identifier: BSD-3-Clause
// Merge or respawn (reconfigure.hpp): the setting and the model. Pure: no MPI.
#include "policy/reconfigure.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>

namespace resize::detail {

Reconfigure parse_reconfigure(const config::Text& text) {
  if (!text || text->empty() || *text == "auto") return Reconfigure::Auto;
  if (*text == "merge") return Reconfigure::Merge;
  if (*text == "respawn") return Reconfigure::Respawn;
  throw Error("RESIZE_RECONFIGURE must be auto, merge or respawn, got '" + *text + "'");
}

std::string to_string(Reconfigure r) {
  return r == Reconfigure::Merge ? "merge" : r == Reconfigure::Respawn ? "respawn" : "auto";
}

double mixed_pair_fraction(const std::vector<int>& launch_of_rank, const std::vector<std::string>& host_of_rank) {
  if (launch_of_rank.size() != host_of_rank.size())
    throw Error("mixed_pair_fraction: " + std::to_string(launch_of_rank.size()) + " launches for " +
                std::to_string(host_of_rank.size()) + " hosts");
  // Per node: the ranks of each launch; pairs = n(n-1)/2, same-launch pairs summed per launch.
  std::map<std::string, std::map<int, double>> per_node;
  for (std::size_t r = 0; r < launch_of_rank.size(); ++r) per_node[host_of_rank[r]][launch_of_rank[r]] += 1;
  double pairs = 0, same = 0;
  for (const auto& [host, launches] : per_node) {
    double n = 0;
    for (const auto& [launch, k] : launches) {
      n += k;
      same += k * (k - 1) / 2;
    }
    pairs += n * (n - 1) / 2;
  }
  return pairs > 0 ? (pairs - same) / pairs : 0.0;
}

double kept_share(const Grid& from, const Grid& to) {
  const auto lcm = [](long long a, long long b) { return a / std::gcd(a, b) * b; };
  const double cells = static_cast<double>(lcm(from.nprow, to.nprow)) * static_cast<double>(lcm(from.npcol, to.npcol));
  return std::min(1.0, std::min(from.size(), to.size()) / cells);
}

namespace {
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
}  // namespace

double spawn_seconds(const std::vector<ResizeEvent>& history, int procs) {
  std::vector<double> per;
  for (const auto& e : history) {
    const int spawned = e.respawn ? e.to_procs : e.to_procs - e.from_procs;
    if ((e.action == Action::Expand || e.respawn) && spawned > 0 && e.t_spawn > 0) per.push_back(e.t_spawn / spawned);
  }
  return std::max(0, procs) * (per.empty() ? kDefaultSpawnPerProcess : median(per));
}

double move_seconds(const std::vector<ResizeEvent>& history, double bytes) {
  std::vector<double> rate;
  for (const auto& e : history)
    if (e.bytes_moved > 0 && e.t_redist > 0) rate.push_back(e.bytes_moved / e.t_redist);
  return std::max(0.0, bytes) / (rate.empty() ? kDefaultMoveBytesPerSecond : median(rate));
}

ReconfigureChoice choose_reconfiguration(const ReconfigureInput& in) {
  const auto finite = [](double v, const char* what) {
    if (!std::isfinite(v)) throw Error(std::string("choose_reconfiguration: ") + what + " is not finite");
  };
  finite(in.iteration_s, "iteration_s");
  finite(in.comm_share, "comm_share");
  finite(in.mixed_merge, "mixed_merge");
  finite(in.mixed_respawn, "mixed_respawn");
  finite(in.extra_spawn_s, "extra_spawn_s");
  finite(in.extra_move_s, "extra_move_s");
  finite(in.pair_factor, "pair_factor");
  ReconfigureChoice c;
  if (in.setting == Reconfigure::Merge) {
    c.why = "merge (RESIZE_RECONFIGURE=merge)";
    return c;
  }
  if (!in.blocked.empty()) {
    c.why = std::string("merge (") + (in.setting == Reconfigure::Respawn ? "RESIZE_RECONFIGURE=respawn, but " : "") +
            in.blocked + ")";
    return c;
  }
  if (in.setting == Reconfigure::Respawn) {
    c.respawn = true;
    c.why = "respawn (RESIZE_RECONFIGURE=respawn)";
    return c;
  }
  const double share = in.comm_share >= 0 ? std::min(1.0, in.comm_share) : kDefaultCommShare;
  const double mixed = std::max(0.0, in.mixed_merge - in.mixed_respawn);
  c.cost_s = std::max(0.0, in.extra_spawn_s) + std::max(0.0, in.extra_move_s);
  char text[360];
  if (in.remaining < 0) {
    c.why = "merge (auto: the remaining iterations are not known)";
    return c;
  }
  c.gain_s = in.remaining * std::max(0.0, in.iteration_s) * share * mixed * std::max(0.0, in.pair_factor - 1);
  c.respawn = c.gain_s > c.cost_s;
  std::snprintf(text, sizeof text,
                "%s (auto: one launch per node saves %.2f s over %d iterations (%.0f%% of a node's pairs mixed after a "
                "merge, communication %.0f%%%s, mixed pairs %.2fx%s) against %.2f s more spawn and move)",
                c.respawn ? "respawn" : "merge", c.gain_s, in.remaining, 100 * mixed, 100 * share,
                in.comm_share >= 0 ? "" : " assumed", in.pair_factor, in.pair_factor_measured ? " measured" : "",
                c.cost_s);
  c.why = text;
  return c;
}

RespawnLayout respawn_layout(const Grid& target, const std::vector<std::string>& host_of_position) {
  const auto n = static_cast<std::size_t>(target.size());
  if (host_of_position.size() != n)
    throw Error("respawn_layout: " + std::to_string(host_of_position.size()) + " hosts for " + std::to_string(n) +
                " positions");
  RespawnLayout out;
  out.grid = Grid{target.nprow, target.npcol, {}};
  const bool unknown = std::any_of(host_of_position.begin(), host_of_position.end(), [](const auto& h) { return h.empty(); });
  const bool same = std::all_of(host_of_position.begin(), host_of_position.end(),
                                [&](const auto& h) { return h == host_of_position.front(); });
  if (unknown || same) return out;
  for (const auto& h : host_of_position) {
    auto it = std::find_if(out.groups.begin(), out.groups.end(), [&](const auto& g) { return g.first == h; });
    if (it == out.groups.end()) out.groups.emplace_back(h, 1);
    else ++it->second;
  }
  std::vector<int> next(out.groups.size(), 0);
  for (std::size_t g = 1; g < out.groups.size(); ++g) next[g] = next[g - 1] + out.groups[g - 1].second;
  out.grid.ranks.resize(n);
  for (std::size_t p = 0; p < n; ++p) {
    const auto g = static_cast<std::size_t>(
        std::find_if(out.groups.begin(), out.groups.end(), [&](const auto& x) { return x.first == host_of_position[p]; }) -
        out.groups.begin());
    out.grid.ranks[p] = next[g]++;
  }
  return out;
}

std::string respawn_spawn_env(const RespawnLayout& layout, unsigned cores, bool user_set) {
  if (user_set || !layout.groups.empty() || layout.grid.size() > static_cast<long long>(cores)) return {};
  return "OMPI_MCA_mpi_yield_when_idle=0";
}

std::string merge_spawn_env(const Grid& target, const std::vector<std::string>& host_of_position, unsigned cores,
                            bool user_set) {
  return respawn_spawn_env(respawn_layout(target, host_of_position), cores, user_set);
}

Grid shifted(const Grid& g, int offset) {
  Grid s{g.nprow, g.npcol, g.rank_map()};
  for (int& r : s.ranks) r += offset;
  return s;
}

}  // namespace resize::detail
