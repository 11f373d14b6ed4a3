// SPDX-License-Identifier: BSD-3-Clause
// The expected overhead of global-only against multi-level checkpointing at scale (issue
// 35 §3) from measured level costs: prints a markdown table (levels_model.hpp).
//
// levels_overhead --local S --partner S --global S --bytes-per-node B [--restart S]
//                 [--recover-local S] [--recover-partner S] [--fs-bandwidth B/s]
//                 [--share-process F] [--share-global F] [--nodes N,N] [--mtbf-hours H,H]
//                 [--scale-to B] [--partner-rate B/s]
// Costs are seconds measured per checkpoint (local: the local level; partner: the
// local+partner level; global: the HDF5 checkpoint measured alone, before the file
// system's share); bytes-per-node: the bytes each node writes to the global level.
// --scale-to B: every measured cost and recovery scaled linearly to B bytes per node.
// --partner-rate R: the partner level's cost from a link of R bytes/s (a what-if).
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "checkpoint/levels_model.hpp"
#include "malleable/resize/types.hpp"

namespace lv = resize::levels;

namespace {

std::vector<double> numbers(const std::string& text) {
  std::vector<double> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::stod(item));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> a{{"--restart", "4"},          {"--fs-bandwidth", "1e12"},
                                       {"--share-process", "0"},    {"--share-global", "0.1"},
                                       {"--nodes", "1000,10000"},   {"--mtbf-hours", "1,24"},
                                       {"--recover-local", "-1"},   {"--recover-partner", "-1"},
                                       {"--scale-to", "0"},         {"--partner-rate", "0"}};
  for (int k = 1; k + 1 < argc; k += 2) a[argv[k]] = argv[k + 1];
  for (const char* need : {"--local", "--partner", "--global", "--bytes-per-node"})
    if (!a.count(need)) {
      std::fprintf(stderr, "levels_overhead: %s is required (see the source's head for the options)\n", need);
      return 2;
    }
  try {
    double bytes = std::stod(a["--bytes-per-node"]);
    const double to = std::stod(a["--scale-to"]), scale = to > 0 ? to / bytes : 1.0;
    if (to > 0) bytes = to;
    const double cl = std::stod(a["--local"]) * scale, cg = std::stod(a["--global"]) * scale;
    // --partner-rate R (bytes/s): the partner level costs the local level plus the node's
    // bytes sent at R (not overlapped), instead of its measured cost.
    const double rate = std::stod(a["--partner-rate"]);
    const double cp = rate > 0 ? cl + bytes / rate : std::stod(a["--partner"]) * scale;
    const double rl = std::stod(a["--recover-local"]) >= 0 ? std::stod(a["--recover-local"]) * scale : cl;
    const double rp = std::stod(a["--recover-partner"]) >= 0 ? std::stod(a["--recover-partner"]) * scale : cp;
    const double d = std::stod(a["--restart"]), bw = std::stod(a["--fs-bandwidth"]);
    const double sp = std::stod(a["--share-process"]), sg = std::stod(a["--share-global"]);
    std::printf("| nodes | system MTBF | global level cost | global only: overhead (interval) | "
                "multi-level: overhead (local / partner / global intervals) | ratio |\n|---|---|---|---|---|---|\n");
    for (double nodes : numbers(a["--nodes"]))
      for (double hours : numbers(a["--mtbf-hours"])) {
        const double g = lv::shared_fs_seconds(bytes, static_cast<int>(nodes), bw, cg);
        const auto one = lv::expected_overhead({{"global", g, g, 1.0}}, hours * 3600, d);
        const auto multi = lv::expected_overhead(
            {{"local", cl, rl, sp}, {"partner", cp, rp, 1 - sp - sg}, {"global", g, g, sg}}, hours * 3600, d);
        auto iv = [](const lv::LevelPlan& p) {
          char b[32];
          if (p.interval <= 0)
            std::snprintf(b, sizeof b, "never");
          else
            std::snprintf(b, sizeof b, "%.0f s", p.interval);
          return std::string(b);
        };
        std::printf("| %.0f | %.0f h | %.1f s | %.2f%% (%s) | %.2f%% (%s / %s / %s) | %.1fx |\n", nodes, hours, g,
                    100 * one.overhead, iv(one.levels[0]).c_str(), 100 * multi.overhead, iv(multi.levels[0]).c_str(),
                    iv(multi.levels[1]).c_str(), iv(multi.levels[2]).c_str(), one.overhead / multi.overhead);
      }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "levels_overhead: %s\n", e.what());
    return 2;
  }
  return 0;
}
