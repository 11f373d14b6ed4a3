// SPDX-License-Identifier: BSD-3-Clause
// The expected overhead of global-only against multi-level checkpointing at scale (issue
// 35 §3) from measured level costs: prints a markdown table (levels/model.hpp).
//
// malleable-resize-bench levels-overhead --local S --partner S --global S --bytes-per-node B [--restart S]
//                 [--recover-local S] [--recover-partner S] [--fs-bandwidth B/s]
//                 [--share-process F] [--share-global F] [--nodes N,N] [--mtbf-hours H,H]
//                 [--scale-to B] [--partner-rate B/s]
//                 [--at-scale 1 | --sweep 1] [--link-rate B/s] [--interconnect B/s]
//                 [--fs-node-bandwidth B/s] [--local-rate B/s] [--sweep-bytes B,B] [--target X]
// Costs are seconds measured per checkpoint (local: the local level; partner: the
// local+partner level; global: the HDF5 checkpoint measured alone, before the file
// system's share); bytes-per-node: the bytes each node writes to the global level.
// --scale-to B: every measured cost and recovery scaled linearly to B bytes per node.
// --partner-rate R: the partner level's cost from a link of R bytes/s (a what-if).
//
// --at-scale 1: the costs at scale instead of as measured (lv::at_scale_costs): global =
// bytes per node x nodes / --fs-bandwidth, each node at most --fs-node-bandwidth (default
// 5e9), no floor from this machine's disk; local = the measured local level's per-byte rate
// (or --local-rate); partner = local + bytes / (--interconnect (default 12.5e9, 100 Gbit/s)
// x the efficiency the measured partner copy reached on its --link-rate link (default
// 125e6, 1 Gbit/s)); recovery of each level = its cost; bytes per node = --scale-to
// (default 16e9). --fs-bandwidth and --share-global take lists; one row per file system,
// share, node count and MTBF.
// --sweep 1: the same costs at the first --nodes, one row per --sweep-bytes x
// --fs-bandwidth, one column per --share-global x --mtbf-hours: the ratio global only /
// multi-level, bold when >= --target (default 5); the header gives the first-order
// C_global / C_partner each share needs (lv::break_even_cost_ratio), each row its own.
#include "cases.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "checkpoint/levels/model.hpp"
#include "malleable/resize/types.hpp"

namespace lv = resize::levels;

namespace {

std::vector<double> numbers(const std::string& text) {
  std::vector<double> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::stod(item));
  return out;
}

std::string interval(const lv::LevelPlan& p) {
  char b[32];
  if (p.interval <= 0)
    std::snprintf(b, sizeof b, "never");
  else
    std::snprintf(b, sizeof b, "%.0f s", p.interval);
  return b;
}

std::string rate_text(double bytes_per_second) {
  char b[32];
  if (bytes_per_second >= 1e12)
    std::snprintf(b, sizeof b, "%g TB/s", bytes_per_second / 1e12);
  else
    std::snprintf(b, sizeof b, "%g GB/s", bytes_per_second / 1e9);
  return b;
}

// --at-scale / --sweep (see the head of the file).
int at_scale(std::map<std::string, std::string>& a) {
  auto num = [&](const char* key, const char* fallback) {
    return std::stod(a.count(key) ? a[key] : std::string(fallback));
  };
  const lv::MeasuredLevels m{std::stod(a["--bytes-per-node"]), std::stod(a["--local"]), std::stod(a["--partner"]),
                             num("--link-rate", "125e6")};
  const double to = num("--scale-to", "0"), bytes = to > 0 ? to : 16e9;
  const double node_bw = num("--fs-node-bandwidth", "5e9"), link = num("--interconnect", "12.5e9");
  const double local_rate = num("--local-rate", "0"), d = std::stod(a["--restart"]);
  const double sp = std::stod(a["--share-process"]), target = num("--target", "5");
  const auto fss = numbers(a["--fs-bandwidth"]), shares = numbers(a["--share-global"]);
  const auto nodes = numbers(a["--nodes"]), hours = numbers(a["--mtbf-hours"]);
  auto costs = [&](double b, double n, double fs) {
    return lv::at_scale_costs(m, {b, static_cast<int>(n), fs, node_bw, link, local_rate});
  };
  auto cmp = [&](const lv::ScaleCosts& c, double sg, double h) {
    return lv::compare(c.local, c.local, c.partner, c.partner, c.global, sp, sg, h * 3600, d);
  };
  costs(bytes, nodes.at(0), fss.at(0));  // bad input refused before any output
  if (a.count("--sweep")) {
    std::printf("| bytes per node | file system | global level cost | global / partner cost |");
    for (double sg : shares) {
      const double need = lv::break_even_cost_ratio(target, sg);
      char b[48];
      if (std::isinf(need))
        std::snprintf(b, sizeof b, "out of reach");
      else
        std::snprintf(b, sizeof b, "needs >= %.0f", need);
      for (double h : hours) std::printf(" %g%% global (%s), %g h |", 100 * sg, b, h);
    }
    std::printf("\n|---|---|---|---|");
    for (std::size_t k = 0; k < shares.size() * hours.size(); ++k) std::printf("---|");
    std::printf("\n");
    for (double b : numbers(a.count("--sweep-bytes") ? a["--sweep-bytes"] : std::string("1e9,16e9,64e9")))
      for (double fs : fss) {
        const auto c = costs(b, nodes.at(0), fs);
        std::printf("| %g GB | %s | %.1f s | %.3g |", b / 1e9, rate_text(fs).c_str(), c.global, c.global / c.partner);
        for (double sg : shares)
          for (double h : hours) {
            const double r = cmp(c, sg, h).ratio;
            std::printf(r >= target ? " **%.1fx** |" : " %.1fx |", r);
          }
        std::printf("\n");
      }
    return 0;
  }
  std::printf("| file system | global share | nodes | system MTBF | local / partner / global cost | "
              "global only: overhead (interval) | multi-level: overhead (local / partner / global intervals) | ratio |\n"
              "|---|---|---|---|---|---|---|---|\n");
  for (double fs : fss)
    for (double sg : shares)
      for (double n : nodes)
        for (double h : hours) {
          const auto c = costs(bytes, n, fs);
          const auto r = cmp(c, sg, h);
          std::printf("| %s | %g%% | %.0f | %.0f h | %.1f / %.1f / %.1f s | %.2f%% (%s) | %.2f%% (%s / %s / %s) | %.1fx |\n",
                      rate_text(fs).c_str(), 100 * sg, n, h, c.local, c.partner, c.global,
                      100 * r.global_only.overhead, interval(r.global_only.levels[0]).c_str(), 100 * r.multi.overhead,
                      interval(r.multi.levels[0]).c_str(), interval(r.multi.levels[1]).c_str(),
                      interval(r.multi.levels[2]).c_str(), r.ratio);
        }
  return 0;
}

}  // namespace

// The case `levels-overhead` of malleable-resize-bench (main.cpp): argv[0] is the case's name.
int resize::bench::case_levels_overhead(int argc, char** argv) {
  std::map<std::string, std::string> a{{"--restart", "4"},          {"--fs-bandwidth", "1e12"},
                                       {"--share-process", "0"},    {"--share-global", "0.1"},
                                       {"--nodes", "1000,10000"},   {"--mtbf-hours", "1,24"},
                                       {"--recover-local", "-1"},   {"--recover-partner", "-1"},
                                       {"--scale-to", "0"},         {"--partner-rate", "0"}};
  for (int k = 1; k + 1 < argc; k += 2) a[argv[k]] = argv[k + 1];
  for (const char* need : {"--local", "--partner", "--global", "--bytes-per-node"})
    if (!a.count(need)) {
      std::fprintf(stderr, "malleable-resize-bench levels-overhead: %s is required (see the source's head for the options)\n", need);
      return 2;
    }
  try {
    if (a.count("--at-scale") || a.count("--sweep")) return at_scale(a);
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
    std::fprintf(stderr, "malleable-resize-bench levels-overhead: %s\n", e.what());
    return 2;
  }
  return 0;
}
