// SPDX-License-Identifier: BSD-3-Clause
// The arrival check's deadline, verdicts and messages' codec (arrival.hpp), pure: no MPI.
#include <algorithm>
#include <cstdio>

#include "session/arrival.hpp"

#include "malleable/resize/types.hpp"
#include "malleable_internal/wire.hpp"

namespace resize::detail {

double arrival_deadline(double floor_seconds, double longest_interval) {
  return std::max(floor_seconds, 3.0 * std::max(0.0, longest_interval));
}

std::string rank_list(const std::vector<int>& ranks) {
  std::string out;
  for (int r : ranks) out += (out.empty() ? "" : ", ") + std::to_string(r);
  return out;
}

namespace {
std::string seconds_text(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f", s);
  return b;
}
std::string ranks_word(std::size_t n) { return n == 1 ? "world rank " : "world ranks "; }
}  // namespace

std::string arrival_verdict(int iteration, double seconds, const std::vector<int>& missing,
                            const std::vector<std::pair<int, int>>& elsewhere) {
  if (missing.empty() && elsewhere.empty()) return {};
  std::string out = "remap point after iteration " + std::to_string(iteration) + ": ";
  if (!missing.empty())
    out += ranks_word(missing.size()) + rank_list(missing) + " did" +
           " not arrive within " + seconds_text(seconds) + " s";
  for (const auto& [rank, it] : elsewhere)
    out += std::string(out.back() == ' ' ? "" : "; ") + "world rank " + std::to_string(rank) +
           " did not arrive: it came to the remap point after iteration " + std::to_string(it);
  return out + " (every process must call remap_point() after the same iterations; a process that skipped one, "
               "or is stuck or gone, stops the job)";
}

std::string root_missing(int iteration, double seconds) {
  return "remap point after iteration " + std::to_string(iteration) + ": world rank 0 did not arrive within " +
         seconds_text(seconds) +
         " s (every process must call remap_point() after the same iterations; a process that skipped one, or is "
         "stuck or gone, stops the job)";
}

namespace {
constexpr malleable::wire::Kind kArrival{0x5241584du, 1, "arrival message"};  // "MXAR"

constexpr auto arrival_fields = [](auto& v, auto& m) {
  using K = ArrivalMessage::Kind;
  v.enumeration(m.kind, K::Here, K::Go, "kind");
  v(m.iteration);
};
}  // namespace

std::vector<char> encode(const ArrivalMessage& m) { return malleable::wire::encode(kArrival, m, arrival_fields); }

std::size_t arrival_message_bytes() { return encode(ArrivalMessage{}).size(); }

ArrivalMessage decode_arrival(std::span<const char> bytes, ArrivalMessage::Kind expected) {
  try {
    return malleable::wire::decode<ArrivalMessage>(
        bytes, kArrival, arrival_fields, [expected](const ArrivalMessage& m, const malleable::wire::Reader& r) {
          if (m.kind != expected)
            r.fail("kind " + std::to_string(static_cast<int>(m.kind)) + " where kind " +
                   std::to_string(static_cast<int>(expected)) + " was expected");
        });
  } catch (const malleable::wire::Error& e) {
    throw Error(e.what());
  }
}

}  // namespace resize::detail
