// SPDX-License-Identifier: BSD-3-Clause
// The typed hand-over (handover.hpp): byte packing and the versioned codecs of
// ExpansionState and Decision. Pure: no MPI.
#include "session/handover.hpp"

namespace resize::detail {

void Writer::put_ints(const std::vector<int>& v) {
  put(static_cast<std::uint64_t>(v.size()));
  for (int x : v) put(x);
}
void Writer::put_doubles(const std::vector<double>& v) {
  put(static_cast<std::uint64_t>(v.size()));
  for (double x : v) put(x);
}
void Writer::put_bytes(const std::vector<char>& v) {
  put(static_cast<std::uint64_t>(v.size()));
  b.insert(b.end(), v.begin(), v.end());
}
void Writer::put_string(const std::string& s) {
  put(static_cast<std::uint64_t>(s.size()));
  b.insert(b.end(), s.begin(), s.end());
}

void Reader::need(std::uint64_t bytes) const {
  if (bytes > b.size() - at)
    throw Error(what + ": truncated: " + std::to_string(bytes) + " more bytes needed at byte " + std::to_string(at) +
                " of " + std::to_string(b.size()));
}
void Reader::need_items(std::uint64_t n, std::size_t item_bytes) const {
  if (n > (b.size() - at) / item_bytes)
    throw Error(what + ": truncated: " + std::to_string(n) + " items of " + std::to_string(item_bytes) +
                " bytes at byte " + std::to_string(at) + " of " + std::to_string(b.size()));
}
std::vector<int> Reader::get_ints() {
  const auto n = get<std::uint64_t>();
  need_items(n, sizeof(int));  // a count the buffer cannot hold is refused before allocating
  std::vector<int> v(static_cast<std::size_t>(n));
  for (int& x : v) x = get<int>();
  return v;
}
std::vector<double> Reader::get_doubles() {
  const auto n = get<std::uint64_t>();
  need_items(n, sizeof(double));
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& x : v) x = get<double>();
  return v;
}
std::vector<char> Reader::get_bytes() {
  const auto n = get<std::uint64_t>();
  need(n);
  std::vector<char> v(b.begin() + static_cast<std::ptrdiff_t>(at), b.begin() + static_cast<std::ptrdiff_t>(at + n));
  at += n;
  return v;
}
std::string Reader::get_string() {
  const auto v = get_bytes();
  return std::string(v.begin(), v.end());
}

void put_grid(Writer& w, const Grid& g) {
  w.put(g.nprow);
  w.put(g.npcol);
  w.put_ints(g.rank_map());
}
Grid get_grid(Reader& r) {
  Grid g;
  g.nprow = r.get<int>();
  g.npcol = r.get<int>();
  g.ranks = r.get_ints();
  if (g.nprow < 1 || g.npcol < 1 || static_cast<std::int64_t>(g.ranks.size()) != std::int64_t{g.nprow} * g.npcol)
    throw Error(r.what + ": a grid " + g.shape() + " with " + std::to_string(g.ranks.size()) + " ranks");
  return g;
}

namespace {

constexpr std::uint32_t kExpansionMagic = 0x5453584du;  // "MXST"
constexpr std::uint32_t kDecisionMagic = 0x4344584du;   // "MXDC"
constexpr std::size_t kHeaderBytes = 2 * sizeof(std::uint32_t) + sizeof(std::uint64_t);

// {magic, version, payload bytes} + the payload.
std::vector<char> framed(std::uint32_t magic, std::uint32_t version, const Writer& payload) {
  Writer w;
  w.put(magic);
  w.put(version);
  w.put(static_cast<std::uint64_t>(payload.b.size()));
  w.b.insert(w.b.end(), payload.b.begin(), payload.b.end());
  return w.b;
}

// Checks the header of `bytes` against `magic` and `version`; the reader is then at the
// payload, whose size matches the header's exactly.
void check_header(Reader& r, std::uint32_t magic, std::uint32_t version) {
  if (r.b.size() < kHeaderBytes)
    throw Error(r.what + ": " + std::to_string(r.b.size()) + " bytes, fewer than its " +
                std::to_string(kHeaderBytes) + "-byte header");
  const auto m = r.get<std::uint32_t>();
  const auto v = r.get<std::uint32_t>();
  const auto n = r.get<std::uint64_t>();
  if (m != magic) throw Error(r.what + ": not one (another kind of buffer: its first bytes differ)");
  if (v != version)
    throw Error(r.what + ": version " + std::to_string(v) + ", this process reads version " +
                std::to_string(version) + " (the job's processes run different builds of malleable)");
  if (n != r.b.size() - kHeaderBytes)
    throw Error(r.what + ": the header says " + std::to_string(n) + " bytes follow, " +
                std::to_string(r.b.size() - kHeaderBytes) + " do (truncated or overlong)");
}

void check_end(const Reader& r) {
  if (r.at != r.b.size())
    throw Error(r.what + ": " + std::to_string(r.b.size() - r.at) + " bytes left over after its last field");
}

bool get_bool(Reader& r) {
  const auto v = r.get<std::uint8_t>();
  if (v > 1) throw Error(r.what + ": a flag of value " + std::to_string(v));
  return v != 0;
}
void put_bool(Writer& w, bool v) { w.put(static_cast<std::uint8_t>(v ? 1 : 0)); }

}  // namespace

std::vector<char> pack(const ExpansionState& s) {
  Writer w;
  w.put(s.iteration);
  w.put(s.mover);
  put_grid(w, s.from);
  put_grid(w, s.to);
  w.put(static_cast<std::uint64_t>(s.mats.size()));
  for (const auto& m : s.mats) {
    w.put(m.m);
    w.put(m.n);
    w.put(m.mb);
    w.put(m.nb);
    w.put(m.type);
    put_bool(w, m.constant);
  }
  w.put_bytes(s.app);
  w.put_doubles(s.powers_before);
  w.put_doubles(s.powers);
  w.put(s.background_mode);
  w.put(s.background_min_iterations);
  put_bool(w, s.background);
  w.put(s.move_budget);
  return framed(kExpansionMagic, ExpansionState::kVersion, w);
}

ExpansionState unpack_expansion(const std::vector<char>& bytes) {
  Reader r{bytes, 0, "expansion hand-over"};
  check_header(r, kExpansionMagic, ExpansionState::kVersion);
  ExpansionState s;
  s.iteration = r.get<int>();
  s.mover = r.get<int>();
  s.from = get_grid(r);
  s.to = get_grid(r);
  const auto nm = r.get<std::uint64_t>();
  r.need_items(nm, 5 * sizeof(int) + 1);
  s.mats.resize(static_cast<std::size_t>(nm));
  for (auto& m : s.mats) {
    m.m = r.get<int>();
    m.n = r.get<int>();
    m.mb = r.get<int>();
    m.nb = r.get<int>();
    m.type = r.get<int>();
    m.constant = get_bool(r);
  }
  s.app = r.get_bytes();
  s.powers_before = r.get_doubles();
  s.powers = r.get_doubles();
  s.background_mode = r.get<int>();
  s.background_min_iterations = r.get<int>();
  s.background = get_bool(r);
  s.move_budget = r.get<std::int64_t>();
  check_end(r);
  return s;
}

std::vector<char> pack(const Decision& d) {
  Writer w;
  w.put(static_cast<int>(d.action));
  w.put(d.procs);
  w.put(d.nprow);
  w.put(d.npcol);
  w.put(static_cast<int>(d.placement));
  w.put_string(d.schema);
  w.put_ints(d.ranks);
  w.put(static_cast<std::uint64_t>(d.hosts.size()));
  for (const auto& h : d.hosts) {
    w.put_string(h.host);
    w.put(h.count);
  }
  w.put_doubles(d.powers);
  w.put(d.predicted_iteration);
  w.put(d.predicted_resize);
  w.put(d.measured_iteration);
  w.put_string(d.prediction_clock);
  w.put_string(d.prediction);
  w.put_string(d.reason);
  w.put(static_cast<int>(d.new_allocation));
  return framed(kDecisionMagic, kDecisionVersion, w);
}

Decision unpack_decision(const std::vector<char>& bytes) {
  Reader r{bytes, 0, "decision"};
  check_header(r, kDecisionMagic, kDecisionVersion);
  Decision d;
  const int action = r.get<int>();
  if (action < static_cast<int>(Action::None) || action > static_cast<int>(Action::Regrid))
    throw Error("decision: action " + std::to_string(action));
  d.action = static_cast<Action>(action);
  d.procs = r.get<int>();
  d.nprow = r.get<int>();
  d.npcol = r.get<int>();
  const int placement = r.get<int>();
  if (placement < static_cast<int>(Placement::Global) || placement > static_cast<int>(Placement::Given))
    throw Error("decision: placement " + std::to_string(placement));
  d.placement = static_cast<Placement>(placement);
  d.schema = r.get_string();
  d.ranks = r.get_ints();
  const auto nh = r.get<std::uint64_t>();
  r.need_items(nh, sizeof(std::uint64_t) + sizeof(int));
  d.hosts.resize(static_cast<std::size_t>(nh));
  for (auto& h : d.hosts) {
    h.host = r.get_string();
    h.count = r.get<int>();
  }
  d.powers = r.get_doubles();
  d.predicted_iteration = r.get<double>();
  d.predicted_resize = r.get<double>();
  d.measured_iteration = r.get<double>();
  d.prediction_clock = r.get_string();
  d.prediction = r.get_string();
  d.reason = r.get_string();
  d.new_allocation = r.get<int>() != 0;
  check_end(r);
  return d;
}

}  // namespace resize::detail
