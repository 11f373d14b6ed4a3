// SPDX-License-Identifier: BSD-3-Clause
// The typed hand-over (handover.hpp): the versioned codecs of ExpansionState and
// Decision over the job's one codec (malleable_internal/wire.hpp). Pure: no MPI.
#include "session/handover.hpp"

#include "malleable_internal/wire.hpp"

namespace resize::detail {

namespace {

using malleable::wire::Kind;
using malleable::wire::Reader;
using malleable::wire::Writer;

// Enums go as 32-bit values, so these bytes are those of version 3 before the codec.
constexpr Kind kExpansion{0x5453584du, ExpansionState::kVersion, "expansion hand-over"};  // "MXST"
constexpr Kind kDecision{0x4344584du, kDecisionVersion, "decision"};                    // "MXDC"

void put_grid(Writer& w, const Grid& g) {
  w.put(g.nprow);
  w.put(g.npcol);
  w.put_vector(g.rank_map());
}
Grid get_grid(Reader& r) {
  Grid g;
  g.nprow = r.get<int>();
  g.npcol = r.get<int>();
  g.ranks = r.get_vector<int>();
  if (g.nprow < 1 || g.npcol < 1 || static_cast<std::int64_t>(g.ranks.size()) != std::int64_t{g.nprow} * g.npcol)
    r.fail("a grid " + g.shape() + " with " + std::to_string(g.ranks.size()) + " ranks");
  return g;
}

// The codec's errors as the session's.
template <class F> auto decoded(F&& f) {
  try {
    return f();
  } catch (const malleable::wire::Error& e) {
    throw Error(e.what());
  }
}

ExpansionState read_expansion(const std::vector<char>& bytes) {
  Reader r(bytes, kExpansion);
  ExpansionState s;
  s.iteration = r.get<int>();
  s.mover = r.get_enum(Mover::Redist, Mover::Pdgemr2d, "mover");
  s.from = get_grid(r);
  s.to = get_grid(r);
  s.mats.resize(r.get_count(5 * sizeof(int) + 1));
  for (auto& m : s.mats) {
    m.desc.m = r.get<int>();
    m.desc.n = r.get<int>();
    m.desc.mb = r.get<int>();
    m.desc.nb = r.get<int>();
    m.desc.type = r.get_enum(Scalar::S, Scalar::Z, "element type");
    m.constant = r.get_bool();
  }
  s.app = r.get_bytes();
  s.powers_before = r.get_vector<double>();
  s.powers = r.get_vector<double>();
  s.background_mode = r.get_enum(Background::Off, Background::Continue, "background mode");
  s.background_min_iterations = r.get<int>();
  s.background = r.get_bool();
  s.move_budget = r.get<std::int64_t>();
  for (auto* c : {&s.global, &s.levels}) {
    c->set = r.get_bool();
    c->dir = r.get_string();
    c->every = r.get_string();
    c->every2 = r.get_string();
    c->mtbf = r.get<double>();
    c->mtbf2 = r.get<double>();
    c->keep = r.get<int>();
  }
  r.done();
  return s;
}

Decision read_decision(const std::vector<char>& bytes) {
  Reader r(bytes, kDecision);
  Decision d;
  d.action = r.get_enum(Action::None, Action::Regrid, "action");
  d.procs = r.get<int>();
  d.nprow = r.get<int>();
  d.npcol = r.get<int>();
  d.placement = r.get_enum(Placement::Global, Placement::Given, "placement");
  d.schema = r.get_string();
  d.ranks = r.get_vector<int>();
  d.hosts.resize(r.get_count(sizeof(std::uint64_t) + sizeof(int)));
  for (auto& h : d.hosts) {
    h.host = r.get_string();
    h.count = r.get<int>();
  }
  d.powers = r.get_vector<double>();
  d.predicted_iteration = r.get<double>();
  d.predicted_resize = r.get<double>();
  d.measured_iteration = r.get<double>();
  d.prediction_clock = r.get_string();
  d.prediction = r.get_string();
  d.reason = r.get_string();
  d.new_allocation = r.get<int>() != 0;
  r.done();
  return d;
}

}  // namespace

std::vector<char> pack(const ExpansionState& s) {
  Writer w(kExpansion);
  w.put(s.iteration);
  w.put_enum(s.mover);
  put_grid(w, s.from);
  put_grid(w, s.to);
  w.put_count(s.mats.size());
  for (const auto& m : s.mats) {
    w.put(m.desc.m);
    w.put(m.desc.n);
    w.put(m.desc.mb);
    w.put(m.desc.nb);
    w.put_enum(m.desc.type);
    w.put_bool(m.constant);
  }
  w.put_bytes(s.app);
  w.put_vector(s.powers_before);
  w.put_vector(s.powers);
  w.put_enum(s.background_mode);
  w.put(s.background_min_iterations);
  w.put_bool(s.background);
  w.put(s.move_budget);
  for (const auto* c : {&s.global, &s.levels}) {
    w.put_bool(c->set);
    w.put_string(c->dir);
    w.put_string(c->every);
    w.put_string(c->every2);
    w.put(c->mtbf);
    w.put(c->mtbf2);
    w.put(c->keep);
  }
  return w.finish();
}

ExpansionState unpack_expansion(const std::vector<char>& bytes) {
  return decoded([&] { return read_expansion(bytes); });
}

std::vector<char> pack(const Decision& d) {
  Writer w(kDecision);
  w.put_enum(d.action);
  w.put(d.procs);
  w.put(d.nprow);
  w.put(d.npcol);
  w.put_enum(d.placement);
  w.put_string(d.schema);
  w.put_vector(d.ranks);
  w.put_count(d.hosts.size());
  for (const auto& h : d.hosts) {
    w.put_string(h.host);
    w.put(h.count);
  }
  w.put_vector(d.powers);
  w.put(d.predicted_iteration);
  w.put(d.predicted_resize);
  w.put(d.measured_iteration);
  w.put_string(d.prediction_clock);
  w.put_string(d.prediction);
  w.put_string(d.reason);
  w.put(static_cast<int>(d.new_allocation));
  return w.finish();
}

Decision unpack_decision(const std::vector<char>& bytes) {
  return decoded([&] { return read_decision(bytes); });
}

}  // namespace resize::detail
