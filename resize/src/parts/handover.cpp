// SPDX-License-Identifier: BSD-3-Clause
// The typed hand-over (handover.hpp): the versioned codecs of ExpansionState, Decision
// and the arrival check's messages over the job's one codec (malleable_internal/wire.hpp),
// and the arrival check's deadline and verdicts. Pure: no MPI.
#include "parts/handover.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>

#include "malleable_internal/wire.hpp"

namespace resize::detail {

namespace {

using malleable::wire::Kind;

// Enums go as 32-bit values, so these bytes are those of version 3 before the codec.
constexpr Kind kExpansion{0x5453584du, ExpansionState::kVersion, "expansion hand-over"};  // "MXST"
constexpr Kind kDecision{0x4344584du, kDecisionVersion, "decision"};                    // "MXDC"
constexpr Kind kArrival{0x5241584du, 1, "arrival message"};  // "MXAR"
constexpr Kind kPlan{0x4e4c584du, kPlanVersion, "resize plan"};  // "MXLN"

// A grid: its shape and its rank map (sent whole, read back checked against the shape).
template <class V, class G> void grid_fields(V& v, G& g) {
  v(g.nprow);
  v(g.npcol);
  if constexpr (V::reading) {
    v(g.ranks);
    v.require(g.nprow >= 1 && g.npcol >= 1 &&
                  static_cast<std::int64_t>(g.ranks.size()) == std::int64_t{g.nprow} * g.npcol,
              [&] { return "a grid " + g.shape() + " with " + std::to_string(g.ranks.size()) + " ranks"; });
  } else {
    v(g.rank_map());
  }
}

// Each message's fields, in the order they travel: written and read by the same function.
constexpr auto expansion_fields = [](auto& v, auto& s) {
  v(s.iteration);
  v.enumeration(s.mover, Mover::Redist, Mover::Pdgemr2d, "mover");
  grid_fields(v, s.from);
  grid_fields(v, s.to);
  v.list(s.mats, 5 * sizeof(int) + 1, [&](auto& m) {
    v.template as<int>(m.desc.m);
    v.template as<int>(m.desc.n);
    v.template as<int>(m.desc.mb);
    v.template as<int>(m.desc.nb);
    v.enumeration(m.desc.type, Scalar::S, Scalar::Z, "element type");
    v(m.constant);
  });
  v(s.app);
  v(s.powers_before);
  v(s.powers);
  v.enumeration(s.background_mode, Background::Off, Background::Continue, "background mode");
  v(s.background_min_iterations);
  v(s.background);
  v(s.move_budget);
  for (auto* c : {&s.global, &s.levels}) {
    v(c->set);
    v(c->dir);
    v(c->every);
    v(c->every2);
    v(c->mtbf);
    v(c->mtbf2);
    v(c->keep);
  }
  v(s.respawn_from);
  v(s.check_reach);
  v(s.reach_decided);
  v(s.reach_factor);
};

constexpr auto decision_fields = [](auto& v, auto& d) {
  v.enumeration(d.action, Action::None, Action::Regrid, "action");
  v(d.procs);
  v(d.nprow);
  v(d.npcol);
  v.enumeration(d.placement, Placement::Global, Placement::Given, "placement");
  v(d.schema);
  v(d.ranks);
  v.list(d.hosts, sizeof(std::uint64_t) + sizeof(int), [&](auto& h) {
    v(h.host);
    v(h.count);
  });
  v(d.powers);
  v(d.predicted_iteration);
  v(d.predicted_resize);
  v(d.measured_iteration);
  v(d.prediction_clock);
  v(d.prediction);
  v(d.reason);
  v.template as<int>(d.new_allocation);
  v.template as<int>(d.by_restart);
  v.enumeration(d.by, ExpandBy::Auto, ExpandBy::Waiting, "expand by");
  v(d.launches);
};

// The plan's steps: the decision's fields (decision_fields), then the plan's own.
constexpr auto plan_fields = [](auto& v, auto& p) {
  decision_fields(v, p.decision);
  v(p.refused);
  v.enumeration(p.refused_code, malleable::Errc::Ok, malleable::Errc::BatchSystem, "refusal code");
  v.enumeration(p.refused_part, malleable::Part::None, malleable::Part::Cluster, "refusal part");
  grid_fields(v, p.from);
  grid_fields(v, p.to);
  v(p.how);
  v(p.how_why);
  v(p.mechanism);
  v(p.reconfigure.respawn);
  v(p.reconfigure.gain_s);
  v(p.reconfigure.cost_s);
  v(p.reconfigure.why);
  v(p.nodes.keep);
  v(p.nodes.release);
  v.list(p.nodes.spawn, sizeof(std::uint64_t) + sizeof(int), [&](auto& h) {
    v(h.first);
    v(h.second);
  });
};

constexpr auto arrival_fields = [](auto& v, auto& m) {
  using K = ArrivalMessage::Kind;
  v.enumeration(m.kind, K::Here, K::Go, "kind");
  v(m.iteration);
};

// The codec's errors as the session's.
template <class F> auto decoded(F&& f) {
  try {
    return f();
  } catch (const malleable::wire::Error& e) {
    throw Error(e.what());
  }
}

}  // namespace

std::vector<char> pack(const ExpansionState& s) { return malleable::wire::encode(kExpansion, s, expansion_fields); }

ExpansionState unpack_expansion(const std::vector<char>& bytes) {
  return decoded([&] { return malleable::wire::decode<ExpansionState>(bytes, kExpansion, expansion_fields); });
}

std::vector<char> pack(const Decision& d) { return malleable::wire::encode(kDecision, d, decision_fields); }

Decision unpack_decision(const std::vector<char>& bytes) {
  return decoded([&] { return malleable::wire::decode<Decision>(bytes, kDecision, decision_fields); });
}

std::vector<char> pack(const ResizePlan& p) { return malleable::wire::encode(kPlan, p, plan_fields); }

ResizePlan unpack_plan(const std::vector<char>& bytes) {
  return decoded([&] { return malleable::wire::decode<ResizePlan>(bytes, kPlan, plan_fields); });
}

// The arrival check (watchdog.cpp sends these).

double arrival_deadline(const RemapTimeout& t, int gaps, double longest_gap) {
  if (!(t.cap > 0)) return 0;
  if (!(t.factor > 0) || gaps < kArrivalWarmupGaps) return t.cap;
  return std::min(t.cap, std::max(t.floor, t.factor * std::max(0.0, longest_gap)));
}

RemapTimeout parse_remap_timeout(const std::string& text, const RemapTimeout& defaults) {
  const auto bad = [&] {
    return Error("RESIZE_REMAP_TIMEOUT: expected CAP[:FACTOR[:FLOOR]] seconds >= 0 (the arrival check's deadline: "
                 "FACTOR times the longest gap between remap points, at least FLOOR, at most CAP; 0: no arrival "
                 "check), got '" + text + "'");
  };
  RemapTimeout t = defaults;
  double* field[] = {&t.cap, &t.factor, &t.floor};
  std::size_t pos = 0;
  for (int k = 0; k < 3 && pos <= text.size(); ++k) {
    const std::size_t colon = std::min(text.find(':', pos), text.size());
    const std::string part = text.substr(pos, colon - pos);
    char* end = nullptr;
    const double v = std::strtod(part.c_str(), &end);
    if (part.empty() || *end != '\0' || !(v >= 0) || !std::isfinite(v)) throw bad();
    *field[k] = v;
    pos = colon + 1;
    if (colon == text.size()) break;
    if (k == 2) throw bad();  // a fourth part
  }
  return t;  // a FLOOR above CAP: CAP (arrival_deadline)
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

std::vector<char> encode(const ArrivalMessage& m) { return malleable::wire::encode(kArrival, m, arrival_fields); }

std::size_t arrival_message_bytes() { return encode(ArrivalMessage{}).size(); }

ArrivalMessage decode_arrival(std::span<const char> bytes, ArrivalMessage::Kind expected) {
  return decoded([&] {
    return malleable::wire::decode<ArrivalMessage>(
        bytes, kArrival, arrival_fields, [expected](const ArrivalMessage& m, const malleable::wire::Reader& r) {
          if (m.kind != expected)
            r.fail("kind " + std::to_string(static_cast<int>(m.kind)) + " where kind " +
                   std::to_string(static_cast<int>(expected)) + " was expected");
        });
  });
}

}  // namespace resize::detail
