// SPDX-License-Identifier: BSD-3-Clause
// The generations' reach (generation_reach.hpp): the setting and the decision. Pure: no MPI.
#include "policy/generation_reach.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace resize::detail {

ReachCheck parse_reach_check(const config::Text& text) {
  if (!text || text->empty() || *text == "auto") return ReachCheck::Auto;
  if (*text == "on") return ReachCheck::On;
  if (*text == "off") return ReachCheck::Off;
  throw Error("RESIZE_UCX_CHECK must be auto, on or off, got '" + *text + "'");
}

bool reach_check_wanted(ReachCheck setting, const std::string& pml, bool decided) {
  if (decided || setting == ReachCheck::Off) return false;
  return setting == ReachCheck::On || pml == "ucx";
}

bool joined_by_tcp(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (const auto& link : a) {
    const auto dash = link.find('-');
    if (dash == std::string::npos) continue;
    const std::string reverse = link.substr(dash + 1) + "-" + link.substr(0, dash);
    if (std::find(b.begin(), b.end(), reverse) != b.end()) return true;
  }
  return false;
}

namespace {
std::string pair_text(const PairTimes& p) {
  char t[96];
  std::snprintf(t, sizeof t, "8 B %.1f us, 64 KiB %.1f us, 1 MiB %.2f GB/s", p.small_s * 1e6, p.mid_s * 1e6,
                p.large_s > 0 ? kLargeBytes / p.large_s / 1e9 : 0.0);
  return t;
}
bool usable(const PairTimes& p) {
  return p.measured && p.reached && p.small_s > 0 && p.mid_s > 0 && std::isfinite(p.small_s) && std::isfinite(p.mid_s);
}
}  // namespace

ReachVerdict decide_reach(const PairTimes& fresh, const PairTimes& mixed, const std::string& pml,
                          const std::string& host) {
  ReachVerdict v;
  const std::string head = "generation check (" + (pml.empty() ? std::string("PML unknown") : "PML " + pml) +
                           ", node " + (host.empty() ? std::string("unknown") : host) + "): ";
  if (!mixed.reached || !usable(mixed)) {
    v.reach = Reach::Unreachable;
    v.ratio = v.factor = 0;
    v.line = head + "world rank 0 and a spawned process on its node do not reach each other (" +
             (mixed.error.empty() ? std::string("no exchange completed") : mixed.error) +
             "): the expansion cannot be used; every process stops (with a checkpoint directory, "
             "malleable-run resizes by restart instead); RESIZE_UCX_CHECK=off skips the check";
    return v;
  }
  const bool own = usable(fresh);
  const double small_ratio = mixed.small_s / (own ? fresh.small_s : kReferenceSmall);
  const double mid_ratio = mixed.mid_s / (own ? fresh.mid_s : kReferenceMid);
  v.ratio = std::sqrt(small_ratio * mid_ratio);
  const std::string against = own ? "two originals " + pair_text(fresh)
                                  : "a stored same-launch reference 8 B 5.0 us, 64 KiB 15.0 us (no second original on the node)";
  char tail[340];
  const std::string tcp = mixed.tcp == 1 ? "a TCP connection joins them, " : mixed.tcp == 0 ? "no TCP connection joins them, " : "";
  if (v.ratio < kSlowRatio && mixed.tcp != 1) {
    std::snprintf(tail, sizeof tail, " (%stimes %.2fx at 8 B, %.2fx at 64 KiB, mean %.2f < %.1f): they reach each other through "
                  "shared memory; the auto reconfiguration counts mixed pairs as fast as others (factor 1)",
                  tcp.c_str(), small_ratio, mid_ratio, v.ratio, kSlowRatio);
  } else {
    v.reach = Reach::Slow;
    v.factor = std::max(1.0, mid_ratio);
    std::snprintf(tail, sizeof tail, " (%stimes %.2fx at 8 B, %.2fx at 64 KiB, mean %.2f %s %.1f): they reach each other, but not "
                  "through shared memory; the auto reconfiguration weighs mixed pairs at the measured %.2fx (64 KiB)",
                  tcp.c_str(), small_ratio, mid_ratio, v.ratio, v.ratio < kSlowRatio ? "<" : ">=", kSlowRatio, v.factor);
  }
  v.line = head + "an original and a newcomer " + pair_text(mixed) + " against " + against + tail;
  return v;
}

}  // namespace resize::detail
