// SPDX-License-Identifier: BSD-3-Clause
// The rates a run's report sets each resize's redistribution against (its copy and
// shared-memory bound, docs/measurements/redist.md "Against the machine's bound"): from the
// environment (common/config.cpp reads it), or from a short copy probe in the calling
// process (report.hpp, resize_bounds). No MPI: the probe is one process's memcpy.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/config.hpp"
#include "malleable/resize/report.hpp"
#include "report/resize_plan.hpp"

namespace resize {

namespace {

// A positive number from an environment variable's text, else -1.
double positive(const config::Text& v) {
  if (!v || v->empty()) return -1;
  char* end = nullptr;
  const double x = std::strtod(v->c_str(), &end);
  return end != v->c_str() && *end == '\0' && x > 0 ? x : -1;
}

// One process's memcpy rate (bytes/s) over 64 MiB (twice the 32 MiB L3 of the 2-core test
// machine: 32 MiB read 21 GB/s there, from the cache); best of 3, the pages written before
// the first timed copy. About 50 ms, at the report, not in a resize.
double copy_probe() {
  const std::size_t bytes = std::size_t{64} << 20;
  std::vector<char> src(bytes, 1), dst(bytes, 2);
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    std::memcpy(dst.data(), src.data(), bytes);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s > 0) best = std::max(best, static_cast<double>(bytes) / s);
    src[static_cast<std::size_t>(rep)] = dst[bytes - 1 - static_cast<std::size_t>(rep)];  // keep the copies live
  }
  return best;
}

}  // namespace

namespace {

// The rates and bare starts the environment gives (rates_from set when it gives the rates);
// `probe`: else whether to measure the copy rate here.
ResizeBounds bounds_from(const config::Report& env, bool probe) {
  ResizeBounds b;
  b.cores_per_node = host_cores();
  b.bare_spawn_s = positive(env.bare_spawn_s);
  b.bare_join_s = positive(env.bare_join_s);
  const double copy = positive(env.bound_copy_bps), shm = positive(env.bound_shm_bps);
  if (copy > 0) {
    b.copy_Bps = copy;
    b.shm_Bps = shm > 0 ? shm : copy;
    b.rates_from = shm > 0 ? "environment (MALLEABLE_BOUND_COPY_BPS, MALLEABLE_BOUND_SHM_BPS)"
                           : "environment (MALLEABLE_BOUND_COPY_BPS; shared memory taken as the copy rate)";
  } else if (probe) {
    b.copy_Bps = copy_probe();
    b.shm_Bps = b.copy_Bps;
    b.rates_from = "probe: one process's memcpy of 64 MiB at the report, best of 3 (one core alone: optimistic); "
                   "shared memory taken as the copy rate (single-copy bound)";
  } else {
    b.rates_from = "none: no resize moved bytes";
  }
  return b;
}

}  // namespace

std::optional<ResizeBounds> resize_bounds(const Metrics& m) {
  const config::Report env = config::read().report;
  if (env.bound == config::Text("off")) return std::nullopt;
  const auto& rs = m.resizes();
  if (rs.empty()) return std::nullopt;
  const bool moved = std::any_of(rs.begin(), rs.end(), [](const ResizeRecord& r) { return r.move.bytes_total > 0; });
  return bounds_from(env, moved);
}

namespace detail {
std::optional<ResizeBounds> plan_rates() {
  const config::Report env = config::read().report;
  if (env.bound == config::Text("off")) return std::nullopt;
  return bounds_from(env, true);
}
}  // namespace detail

}  // namespace resize
