// SPDX-License-Identifier: BSD-3-Clause
// The redistribution cost model (cost_model.hpp): plan -> per-rank event counts -> time.
// Pure; the calibration program (redist/bench/calibrate_cost.cpp) is the MPI side.
#include "malleable/redist/cost_model.hpp"
#include "config.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace redist {

namespace {

constexpr const char* kFormat = "malleable-redist-cost-model";
constexpr int kVersion = 1;

}  // namespace

std::array<double, kCostParamCount> to_array(const CostParams& p) {
  return {p.message_intra_s, p.byte_intra_s,      p.message_inter_s, p.byte_inter_s, p.step_s,
          p.call_s,          p.local_copy_byte_s, p.sleep_step_s,    p.sleep_byte_s, p.spin_byte_s};
}

void assign(CostParams& p, const std::array<double, kCostParamCount>& v) {
  p.message_intra_s = v[0];
  p.byte_intra_s = v[1];
  p.message_inter_s = v[2];
  p.byte_inter_s = v[3];
  p.step_s = v[4];
  p.call_s = v[5];
  p.local_copy_byte_s = v[6];
  p.sleep_step_s = v[7];
  p.sleep_byte_s = v[8];
  p.spin_byte_s = v[9];
}

namespace {

// Which node each rank of the plan runs on (one node holding every rank when no map is
// given), and how many nodes there are.
void map_nodes(CostFeatures& f, const RedistPlan& plan, std::span<const int> node_of_rank) {
  int max_rank = -1;
  for (const Transfer& t : plan.transfers) max_rank = std::max({max_rank, t.src, t.dst});
  if (node_of_rank.empty()) {
    f.node_of_rank.assign(static_cast<std::size_t>(max_rank + 1), 0);
  } else {
    if (static_cast<std::int64_t>(node_of_rank.size()) <= max_rank)
      throw Error(ErrorCode::InvalidArgument, "cost_features: the plan uses rank " + std::to_string(max_rank) +
                                                  " but node_of_rank covers " +
                                                  std::to_string(node_of_rank.size()) + " ranks");
    f.node_of_rank.assign(node_of_rank.begin(), node_of_rank.end());
  }
  f.nodes = f.node_of_rank.empty() ? 1 : 0;
  for (std::size_t r = 0; r < f.node_of_rank.size(); ++r) {
    if (f.node_of_rank[r] < 0)
      throw Error(ErrorCode::InvalidArgument, "cost_features: node_of_rank[" + std::to_string(r) + "] = " +
                                                  std::to_string(f.node_of_rank[r]) + " must be >= 0");
    f.nodes = std::max(f.nodes, f.node_of_rank[r] + 1);
  }
}

bool is_intra(const CostFeatures& f, const Transfer& t) {
  return f.node_of_rank[static_cast<std::size_t>(t.src)] == f.node_of_rank[static_cast<std::size_t>(t.dst)];
}

// The whole plan's loads: each rank's messages and bytes (within its node or across) and
// local copies, and the totals.
void count_plan(CostFeatures& f, const RedistPlan& plan, std::int64_t eb) {
  for (const Transfer& t : plan.transfers) {
    const std::int64_t bytes = t.elements() * eb;
    auto& s = f.ranks[static_cast<std::size_t>(t.src)];
    if (t.src == t.dst) {
      s.bytes_local += bytes;
      f.bytes_local += bytes;
      continue;
    }
    auto& d = f.ranks[static_cast<std::size_t>(t.dst)];
    ++f.messages;
    f.bytes_moved += bytes;
    const bool intra = is_intra(f, t);
    s.add_message(intra, bytes);
    d.add_message(intra, bytes);
  }
}

// Per-step loads, sparse (a plan with P steps on P ranks would otherwise hold P^2); step 0
// also holds every rank's local copies.
void count_steps(CostFeatures& f, const RedistPlan& plan, std::int64_t eb) {
  f.step_loads.resize(std::max<std::size_t>(1, plan.steps.size()));
  std::vector<int> slot(f.ranks.size(), -1);
  for (std::size_t s = 0; s < f.step_loads.size(); ++s) {
    auto& loads = f.step_loads[s];
    auto at = [&](int r) -> RankLoad& {
      int& k = slot[static_cast<std::size_t>(r)];
      if (k < 0) {
        k = static_cast<int>(loads.size());
        loads.emplace_back(r, RankLoad{});
      }
      return loads[static_cast<std::size_t>(k)].second;
    };
    if (s == 0)
      for (std::size_t r = 0; r < f.ranks.size(); ++r)
        if (f.ranks[r].bytes_local > 0) at(static_cast<int>(r)).bytes_local = f.ranks[r].bytes_local;
    if (s < plan.steps.size())
      for (int k : plan.steps[s]) {
        if (k < 0 || static_cast<std::size_t>(k) >= plan.transfers.size())
          throw Error(ErrorCode::InvalidArgument, "cost_features: step " + std::to_string(s) + " names transfer " +
                                                      std::to_string(k) + " of " +
                                                      std::to_string(plan.transfers.size()));
        const Transfer& t = plan.transfers[static_cast<std::size_t>(k)];
        if (t.src == t.dst) continue;
        const std::int64_t bytes = t.elements() * eb;
        const bool intra = is_intra(f, t);
        at(t.src).add_message(intra, bytes);
        at(t.dst).add_message(intra, bytes);
      }
    for (const auto& [r, load] : loads) slot[static_cast<std::size_t>(r)] = -1;
  }
}

}  // namespace

CostFeatures cost_features(const RedistPlan& plan, std::size_t elem_bytes, std::span<const int> node_of_rank) {
  if (elem_bytes == 0) throw Error(ErrorCode::InvalidArgument, "cost_features: elem_bytes = 0 must be positive");
  if (plan.materialized_for >= 0)
    throw Error(ErrorCode::InvalidArgument,
                "cost_features: the plan keeps runs only for rank " + std::to_string(plan.materialized_for) +
                    "; the model needs every transfer's size (make_plan without for_rank)");
  CostFeatures f;
  map_nodes(f, plan, node_of_rank);
  f.ranks.assign(f.node_of_rank.size(), RankLoad{});
  f.steps = static_cast<int>(plan.steps.size());
  const auto eb = static_cast<std::int64_t>(elem_bytes);
  count_plan(f, plan, eb);
  count_steps(f, plan, eb);
  return f;
}

namespace {

// A rank's work as coefficients of the parameter vector (time = dot with to_array).
// spin_weight: share - 1 when waiters spin on an oversubscribed node, else 0.
std::array<double, kCostParamCount> work_terms(const RankLoad& r, bool sleeping, double spin_weight) {
  const auto moved = static_cast<double>(r.bytes_intra + r.bytes_inter);
  return {static_cast<double>(r.messages_intra), static_cast<double>(r.bytes_intra),
          static_cast<double>(r.messages_inter), static_cast<double>(r.bytes_inter),
          0.0, 0.0, static_cast<double>(r.bytes_local), 0.0,
          sleeping ? moved : 0.0, spin_weight * moved};
}

double dot(const std::array<double, kCostParamCount>& a, const std::array<double, kCostParamCount>& b) {
  double s = 0;
  for (std::size_t k = 0; k < kCostParamCount; ++k) s += a[k] * b[k];
  return s;
}

}  // namespace

double rank_work_s(const CostParams& params, const RankLoad& load, bool sleeping, double spin_weight) {
  return dot(work_terms(load, sleeping, spin_weight), to_array(params));
}

namespace {

using Terms = std::array<double, kCostParamCount>;

// bound(S) of cost_model.hpp for the loads of one set of messages: the busiest rank, or the
// busiest node's work shared by its cores when the ranks taking part outnumber them.
struct Bound {
  double rank_s = 0, node_s = 0;
  int rank = -1, node = -1;
  Terms rank_terms{}, node_terms{};
  bool node_bound() const { return node >= 0 && node_s > rank_s; }
  double value() const { return std::max(rank_s, node_s); }
  const Terms& terms() const { return node_bound() ? node_terms : rank_terms; }
};

template <class Loads, class RankOf, class LoadOf>
Bound bound_of(const CostParams& params, const Terms& pv, const CostFeatures& f, std::size_t nodes,
               const Loads& loads, RankOf rank_of, LoadOf load_of, bool sleeping, double spin_weight) {
  constexpr std::size_t K = kCostParamCount;
  Bound b;
  // Flat (node, parameter) sums: a vector of std::arrays trips GCC 12's -Wfree-nonheap-object.
  std::vector<double> sum(params.cores_per_node > 0 ? nodes * K : 0, 0.0);
  std::vector<int> active(params.cores_per_node > 0 ? nodes : 0, 0);
  for (const auto& item : loads) {
    const int r = rank_of(item);
    const RankLoad& load = load_of(item);
    const auto t = work_terms(load, sleeping, spin_weight);
    const double w = dot(t, pv);
    if (b.rank < 0 || w > b.rank_s) {
      b.rank_s = w;
      b.rank = r;
      b.rank_terms = t;
    }
    if (params.cores_per_node > 0) {
      const auto n = static_cast<std::size_t>(f.node_of_rank[static_cast<std::size_t>(r)]);
      ++active[n];
      for (std::size_t k = 0; k < K; ++k) sum[n * K + k] += t[k];
    }
  }
  for (std::size_t n = 0; n < active.size(); ++n) {
    if (active[n] == 0) continue;
    const double cores = std::min(params.cores_per_node, active[n]);
    Terms terms{};
    for (std::size_t k = 0; k < K; ++k) terms[k] = sum[n * K + k] / cores;
    const double w = dot(terms, pv);
    if (b.node < 0 || w > b.node_s) {
      b.node_s = w;
      b.node = static_cast<int>(n);
      b.node_terms = terms;
    }
  }
  return b;
}

}  // namespace

Crowding crowding(const CostParams& params, int crowd, Waiting waiting) {
  Crowding c;
  c.share = params.cores_per_node > 0 ? std::max(1.0, static_cast<double>(crowd) / params.cores_per_node) : 1.0;
  c.sleeping = waiting == Waiting::Sleep ||
               (waiting == Waiting::Auto && params.cores_per_node > 0 && c.share > kRanksPerCoreToSleep);
  c.spin_weight = !c.sleeping && c.share > 1 ? c.share - 1 : 0.0;
  return c;
}

CostPrediction predict(const CostParams& params, const CostFeatures& f, Waiting waiting) {
  const auto pv = to_array(params);
  CostPrediction out;
  const auto nodes = static_cast<std::size_t>(std::max(1, f.nodes));
  std::vector<int> ranks_on(nodes, 0);
  for (int n : f.node_of_rank) ++ranks_on[static_cast<std::size_t>(n)];
  const Crowding crowded = crowding(params, *std::max_element(ranks_on.begin(), ranks_on.end()), waiting);
  out.share = crowded.share;
  out.sleeping = crowded.sleeping;
  out.spinning = crowded.spin_weight > 0;
  const double spin_weight = crowded.spin_weight;

  // The whole plan: the busiest process (SUIF-Adapt's per-node maximum)
  // or the busiest node's cores. Every rank counts towards its node's ranks.
  const Bound whole = bound_of(
      params, pv, f, nodes, f.ranks, [&](const RankLoad& x) { return static_cast<int>(&x - f.ranks.data()); },
      [](const RankLoad& x) -> const RankLoad& { return x; }, out.sleeping, spin_weight);
  out.busiest_rank_s = whole.rank_s;
  out.busiest_rank = whole.rank;
  out.busiest_node_s = whole.node_s;
  out.busiest_node = whole.node;
  out.node_bound = whole.node_bound();

  // Step by step: each step's bound over the ranks taking part in it.
  Terms step_terms{};
  for (const auto& loads : f.step_loads) {
    const Bound b = bound_of(
        params, pv, f, nodes, loads, [](const std::pair<int, RankLoad>& x) { return x.first; },
        [](const std::pair<int, RankLoad>& x) -> const RankLoad& { return x.second; }, out.sleeping, spin_weight);
    if (b.rank < 0) continue;
    out.stepwise_s += b.value();
    for (std::size_t k = 0; k < kCostParamCount; ++k) step_terms[k] += b.terms()[k];
  }
  out.step_bound = out.stepwise_s > whole.value();
  out.transfer_s = std::max(whole.value(), out.stepwise_s);
  out.coefficients = out.step_bound ? step_terms : whole.terms();
  out.coefficients[4] = out.share * f.steps;
  out.coefficients[5] = out.share;
  out.coefficients[7] = out.sleeping ? out.share * f.steps : 0.0;
  out.overhead_s = out.share * (params.call_s + f.steps * (params.step_s + (out.sleeping ? params.sleep_step_s : 0.0)));
  out.total_s = out.overhead_s + out.transfer_s;
  return out;
}

CostPrediction predict(const CostParams& params, const RedistPlan& plan, std::size_t elem_bytes,
                       std::span<const int> node_of_rank, Waiting waiting) {
  return predict(params, cost_features(plan, elem_bytes, node_of_rank), waiting);
}

std::string cost_params_to_json(const CostParams& p, const std::string& calibration_json) {
  nlohmann::ordered_json j;
  j["format"] = kFormat;
  j["version"] = kVersion;
  j["units"] = "seconds per event; message and byte costs are paid at each endpoint";
  const auto v = to_array(p);
  for (std::size_t k = 0; k < kCostParamCount; ++k) j[kCostParamNames[k]] = v[k];
  j["cores_per_node"] = p.cores_per_node;
  j["inter_node_measured"] = p.inter_node_measured;
  if (!calibration_json.empty()) j["calibration"] = nlohmann::ordered_json::parse(calibration_json);
  return j.dump(2) + "\n";
}

CostParams parse_cost_params(const std::string& text, const std::string& source) {
  auto fail = [&](const std::string& what) {
    throw Error(ErrorCode::InvalidArgument, "cost model " + source + ": " + what);
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    fail(std::string("not valid JSON (") + e.what() + ")");
  }
  if (!j.is_object()) fail("expected a JSON object, found " + std::string(j.type_name()));
  if (!j.contains("format") || !j["format"].is_string() || j["format"].get<std::string>() != kFormat)
    fail(std::string("\"format\" must be \"") + kFormat + "\"" +
         (j.contains("format") ? ", found " + j["format"].dump() : " (missing)"));
  if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<int>() != kVersion)
    fail("\"version\" must be " + std::to_string(kVersion) +
         (j.contains("version") ? ", found " + j["version"].dump() : " (missing)"));
  std::array<double, kCostParamCount> v{};
  for (std::size_t k = 0; k < kCostParamCount; ++k) {
    const char* key = kCostParamNames[k];
    if (!j.contains(key)) {
      if (kCostParamOptional[k]) continue;  // v[k] stays 0
      fail(std::string("\"") + key + "\" is missing");
    }
    const auto& x = j[key];
    if (!x.is_number()) fail(std::string("\"") + key + "\" = " + x.dump() + " is not a number");
    v[k] = x.get<double>();
    if (!std::isfinite(v[k]) || v[k] < 0) fail(std::string("\"") + key + "\" = " + x.dump() + " must be finite and >= 0");
  }
  CostParams p;
  assign(p, v);
  if (j.contains("cores_per_node")) {
    const auto& c = j["cores_per_node"];
    if (!c.is_number_integer() || c.get<std::int64_t>() < 0 || c.get<std::int64_t>() > 1'000'000)
      fail("\"cores_per_node\" = " + c.dump() + " must be an integer in [0, 1000000] (0: unknown)");
    p.cores_per_node = c.get<int>();
  }
  if (j.contains("inter_node_measured")) {
    if (!j["inter_node_measured"].is_boolean())
      fail("\"inter_node_measured\" = " + j["inter_node_measured"].dump() + " must be true or false");
    p.inter_node_measured = j["inter_node_measured"].get<bool>();
  }
  return p;
}

std::string calibration_of(const std::string& text) {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("calibration")) return "null";
  return j["calibration"].dump();
}

void save_cost_params(const CostParams& p, const std::string& path, const std::string& calibration_json) {
  namespace fs = std::filesystem;
  const std::string text = cost_params_to_json(p, calibration_json);
  const fs::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  if (ec) throw Error(ErrorCode::InvalidArgument, "cost model " + path + ": cannot create its directory: " + ec.message());
  const fs::path tmp = target.string() + ".tmp";
  {
    std::ofstream out(tmp);
    out << text;
    if (!out) throw Error(ErrorCode::InvalidArgument, "cost model " + path + ": cannot write " + tmp.string());
  }
  fs::rename(tmp, target, ec);
  if (ec) throw Error(ErrorCode::InvalidArgument, "cost model " + path + ": cannot rename into place: " + ec.message());
}

CostParams load_cost_params(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw Error(ErrorCode::InvalidArgument,
                "cost model " + path + ": cannot be read (run malleable-calibrate to create it)");
  std::ostringstream s;
  s << in.rdbuf();
  return parse_cost_params(s.str(), path);
}

std::string default_cost_model_path() {
  const Config env = read_config();
  if (const EnvText& e = env.cost_model; e && !e->empty()) return *e;
  if (const EnvText& x = env.xdg_cache_home; x && !x->empty()) return *x + "/malleable/cost_model.json";
  if (const EnvText& h = env.home; h && !h->empty()) return *h + "/.cache/malleable/cost_model.json";
  return "cost_model.json";
}

}  // namespace redist
