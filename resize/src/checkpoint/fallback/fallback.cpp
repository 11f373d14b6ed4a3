// SPDX-License-Identifier: BSD-3-Clause
// The expansion fallback's pure part (fallback/fallback.hpp): the spawn deadline, the
// settings, the messages.
#include "checkpoint/fallback/fallback.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "malleable/resize/types.hpp"

namespace resize::detail {

namespace {
// A finite number, the whole text; nullopt otherwise.
std::optional<double> number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (*end != '\0' || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string fixed1(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}
}  // namespace

DeadlineRule parse_deadline_rule(const std::optional<std::string>& text) {
  DeadlineRule r;
  if (!text || text->empty()) return r;
  const auto bad = [&](const std::string& why) {
    return Error("RESIZE_SPAWN_DEADLINE: expected FLOOR[:FACTOR[:CAP]] seconds (" + why + "), got '" + *text + "'");
  };
  std::vector<std::string> parts(1);
  for (const char c : *text) {
    if (c == ':') parts.emplace_back();
    else parts.back() += c;
  }
  if (parts.size() > 3) throw bad("at most three fields");
  std::vector<double> v;
  for (const auto& p : parts) {
    const auto x = number(p);
    if (!x) throw bad("'" + p + "' is not a number");
    v.push_back(*x);
  }
  r.floor = v[0];
  if (v.size() > 1) r.factor = v[1];
  if (v.size() > 2) r.cap = v[2];
  if (r.floor <= 0) throw bad("FLOOR must be > 0");
  if (r.factor < 1) throw bad("FACTOR must be >= 1");
  if (r.cap < r.floor) throw bad("CAP must be >= FLOOR");
  return r;
}

bool parse_fallback_enabled(const std::optional<std::string>& text) {
  if (!text || text->empty() || *text == "on" || *text == "1") return true;
  if (*text == "off" || *text == "0") return false;
  throw Error("RESIZE_SPAWN_FALLBACK: expected on or off, got '" + *text + "'");
}

SpawnDeadline spawn_deadline(const std::vector<ResizeEvent>& history, int nnew, const DeadlineRule& rule) {
  SpawnDeadline d;
  for (auto it = history.rbegin(); it != history.rend() && static_cast<std::size_t>(d.samples) < kMaxSamples; ++it) {
    const int k = it->to_procs - it->from_procs;
    if (it->action != Action::Expand || k < 1 || !(it->t_spawn > 0) || !std::isfinite(it->t_spawn)) continue;
    const double scale = nnew > k ? static_cast<double>(nnew) / k : 1.0;
    d.expected = std::max(d.expected, it->t_spawn * scale);
    ++d.samples;
  }
  const double raw = rule.factor * d.expected;
  d.seconds = std::clamp(raw, rule.floor, rule.cap);
  d.floored = raw < rule.floor;
  d.capped = raw > rule.cap;
  return d;
}

std::string describe(const SpawnDeadline& d, const DeadlineRule& rule) {
  std::string s = "spawn deadline " + fixed1(d.seconds) + " s (";
  if (d.samples == 0) return s + "the floor: no spawn in the history yet)";
  if (d.floored) s += "the floor; ";
  if (d.capped) s += "the cap; ";
  char b[160];
  std::snprintf(b, sizeof b, "%g x the slowest of %d spawn%s: %.2f s)", rule.factor, d.samples, d.samples == 1 ? "" : "s",
                d.expected);
  return s + b;
}

const char* fallback_level_name(FallbackLevel l) { return l == FallbackLevel::Local ? "local" : "global"; }

FallbackLevel fallback_level(bool levels, const std::vector<std::string>& now, const std::vector<std::string>& relaunch) {
  if (!levels) return FallbackLevel::Global;
  if (relaunch.empty()) return FallbackLevel::Local;  // the launcher's hosts: the same ones
  for (const auto& h : now)
    if (std::find(relaunch.begin(), relaunch.end(), h) == relaunch.end()) return FallbackLevel::Global;
  return FallbackLevel::Local;
}

std::string checkpoint_text(const std::string& file) {
  return file == kLevelsCheckpoint ? std::string("the local checkpoint level (node memory)") : file;
}

std::string restart_option(const std::string& file) {
  return file == kLevelsCheckpoint ? std::string("--restart-levels") : "--restart " + file;
}

std::string expired_message(const std::string& app, int iteration, const std::string& deadline_text,
                            const std::string& from_grid, int nprow, int npcol, const std::string& file,
                            const std::string& next_path, const std::string& what) {
  return "[" + app + "] the " + what + " after iteration " + std::to_string(iteration) + " (" + from_grid + " -> " +
         std::to_string(nprow) + "x" + std::to_string(npcol) + ") did not complete within its " + deadline_text +
         ": resizing by restart instead. Every process exits with status 4; malleable-run relaunches on " +
         std::to_string(nprow * npcol) + " processes from " + next_path + ". Without it, restart the job by hand with -g " +
         std::to_string(nprow) + "x" + std::to_string(npcol) + " " + restart_option(file) + "\n";
}

}  // namespace resize::detail
