// SPDX-License-Identifier: BSD-3-Clause
// The rates a run's report sets each resize's redistribution against (issue 79):
// from the environment, or from a short copy probe in the calling process (report.hpp,
// resize_bounds). No MPI: the probe is one process's memcpy, a few milliseconds.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "malleable/resize/report.hpp"

namespace resize {

namespace {

// A positive number from the environment variable `name`, else -1.
double env_number(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return -1;
  char* end = nullptr;
  const double x = std::strtod(v, &end);
  return end != v && *end == '\0' && x > 0 ? x : -1;
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

std::optional<ResizeBounds> resize_bounds(const Metrics& m) {
  if (const char* off = std::getenv("MALLEABLE_BOUND"); off != nullptr && std::string(off) == "off") return std::nullopt;
  const auto& rs = m.resizes();
  if (rs.empty()) return std::nullopt;
  ResizeBounds b;
  b.cores_per_node = host_cores();
  b.bare_spawn_s = env_number("MALLEABLE_BARE_SPAWN_S");
  b.bare_join_s = env_number("MALLEABLE_BARE_JOIN_S");
  const double copy = env_number("MALLEABLE_BOUND_COPY_BPS"), shm = env_number("MALLEABLE_BOUND_SHM_BPS");
  if (copy > 0) {
    b.copy_Bps = copy;
    b.shm_Bps = shm > 0 ? shm : copy;
    b.rates_from = shm > 0 ? "environment (MALLEABLE_BOUND_COPY_BPS, MALLEABLE_BOUND_SHM_BPS)"
                           : "environment (MALLEABLE_BOUND_COPY_BPS; shared memory taken as the copy rate)";
    return b;
  }
  const bool moved = std::any_of(rs.begin(), rs.end(), [](const ResizeRecord& r) { return r.move.bytes_total > 0; });
  if (moved) {
    b.copy_Bps = copy_probe();
    b.shm_Bps = b.copy_Bps;
    b.rates_from = "probe: one process's memcpy of 64 MiB at the report, best of 3 (one core alone: optimistic); "
                   "shared memory taken as the copy rate (single-copy bound)";
  } else {
    b.rates_from = "none: no resize moved bytes";
  }
  return b;
}

}  // namespace resize
