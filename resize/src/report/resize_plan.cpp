// SPDX-License-Identifier: BSD-3-Clause
// plan_resize: a decision validated into its target grid, merge/respawn/background, the
// nodes, each matrix's layouts and bytes, the move's batches and each phase's cost (the
// report's bound model). Pure; resize_plan.hpp says what each part follows.
#include "report/resize_plan.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>

#include "background/background_plan.hpp"
#include "malleable/redist/plan.hpp"
#include "move/move_batches.hpp"

namespace resize::detail {

namespace {

std::vector<std::string> hosts_of(const JobState& job) {
  if (static_cast<int>(job.hosts.size()) >= job.world_size) return job.hosts;
  return std::vector<std::string>(static_cast<std::size_t>(job.world_size), job.hosts.empty() ? "" : job.hosts.front());
}

// The target grid as the shell's act() chooses it (the first matrix steers Optimal; an
// extended one as 1 x 1 blocks).
Grid plan_target(const JobState& job, Decision& d, NodePlan& np) {
  redist::MatrixSpec first;
  if (!job.matrices.empty()) {
    first = job.matrices.front();
    if (first.extended()) first = redist::MatrixSpec::block_cyclic(first.m, first.n, 1, 1);
  }
  TargetInput in{job.shape, job.world_size, job.matrices.empty() ? nullptr : &first, [&](std::string& why) {
                   why = job.no_spawn;
                   return job.no_spawn.empty();
                 }};
  return target_grid(d, in, np);
}

std::string short_number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

std::int64_t matrix_bytes(const redist::MatrixSpec& s) {
  return s.m * s.n * static_cast<std::int64_t>(redist::scalar_bytes(s.type));
}

}  // namespace

ReconfigureChoice plan_reconfiguration(const JobState& job, const Decision& d, const Grid& target, const NodePlan& np) {
  ReconfigureInput in;
  in.setting = job.reconfigure;
  in.remaining = job.remaining;
  in.blocked = job.respawn_blocked;
  if (job.median_wall >= 0) {
    in.iteration_s = d.predicted_iteration > 0 ? d.predicted_iteration
                                               : job.median_wall * job.shape.size() / std::max(1, target.size());
    if (job.median_compute > 0 && job.median_wall > 0) in.comm_share = std::max(0.0, 1 - job.median_compute / job.median_wall);
  }
  std::vector<int> launches = job.launches;
  launches.resize(static_cast<std::size_t>(std::max(job.world_size, 1)), 0);
  std::vector<int> newcomer;  // each newcomer's launch: one per spawn group
  for (std::size_t g = 0; g < np.spawn.size(); ++g)
    newcomer.insert(newcomer.end(), static_cast<std::size_t>(np.spawn[g].second), static_cast<int>(g));
  const int next = *std::max_element(launches.begin(), launches.end()) + 1;
  std::vector<int> merged;
  for (const int r : target.rank_map()) {
    const auto k = static_cast<std::size_t>(r - job.world_size);
    merged.push_back(r < job.world_size ? launches[static_cast<std::size_t>(r)]
                                        : next + (k < newcomer.size() ? newcomer[k] : 0));
  }
  in.mixed_merge = mixed_pair_fraction(merged, merge_hosts(target, job.world_size, np));
  const int nnew = std::max(0, target.size() - job.world_size);
  in.extra_spawn_s = spawn_seconds(job.history, target.size()) -
                     (d.action == Action::Expand ? spawn_seconds(job.history, nnew) : 0);
  double total = 0;
  for (const auto& m : job.matrices) total += static_cast<double>(matrix_bytes(m));
  in.extra_move_s = move_seconds(job.history, total * kept_share(job.shape, target));
  if (job.pair_factor > 0) {
    in.pair_factor = job.pair_factor;
    in.pair_factor_measured = true;
  }
  ReconfigureChoice c = choose_reconfiguration(in);
  if (c.respawn && !job.background_blocked) c.why += "; carried out blocking: a respawn does not run in the background";
  return c;
}

namespace {

// How: regrid, merge, respawn or background, and the start's mechanism.
void plan_how(const JobState& job, ResizePlan& p) {
  const Decision& d = p.decision;
  const bool joins = d.by == ExpandBy::Join || d.by == ExpandBy::Waiting;
  if (d.action == Action::Expand || d.action == Action::Shrink) {
    p.reconfigure = plan_reconfiguration(job, d, p.to, p.nodes);
    p.how_why = p.reconfigure.why;
  }
  const bool respawn = p.reconfigure.respawn;
  const bool background = !respawn && !joins && !job.background_blocked;
  if (!background && job.background_blocked && d.action != Action::Regrid && !respawn)
    p.how_why += (p.how_why.empty() ? "" : "; ") + ("blocking: " + *job.background_blocked);
  p.how = d.action == Action::Regrid ? "regrid" : respawn ? "respawn" : background ? "background" : "merge";
  if (d.action == Action::Regrid && background) p.how = "background";
  const bool starts = respawn || (d.action == Action::Expand && (p.to.size() > job.world_size || !d.schema.empty()));
  p.mechanism = starts ? (joins && !respawn ? "join" : "spawn") : d.action == Action::Shrink ? "exit" : "none";
}

// Each matrix's layouts and bytes, and the batches of the move.
void plan_matrices(const JobState& job, ResizePlan& p) {
  Grid to = p.to;
  int comm = std::max(job.world_size, p.to.size());
  for (const int r : p.to.rank_map()) comm = std::max(comm, r + 1);
  if (p.how == "respawn") {  // the new grid on processes after the old ones: nothing stays
    to = shifted(respawn_layout(p.to, merge_hosts(p.to, job.world_size, p.nodes)).grid, job.world_size);
    comm = job.world_size + p.to.size();
  }
  std::vector<std::int64_t> max_new;
  for (const auto& spec : job.matrices) {
    MatrixPlan m;
    m.name = spec.name;
    m.from = spec.layout_on(p.from.nprow, p.from.npcol, p.from.rank_map());
    m.to = spec.layout_on(to.nprow, to.npcol, to.rank_map());
    const redist::PlanStats s = redist::plan_stats(m.from, m.to, comm);
    const auto eb = static_cast<std::int64_t>(redist::scalar_bytes(spec.type));
    m.bytes = s.elements_total * eb;
    m.kept = s.elements_local * eb;
    m.moved = m.bytes - m.kept;
    std::int64_t rows = 1, cols = 1;
    for (int pr = 0; pr < m.to.nprow; ++pr) rows = std::max(rows, m.to.local_rows(pr));
    for (int pc = 0; pc < m.to.npcol; ++pc) cols = std::max(cols, m.to.local_cols(pc));
    max_new.push_back(rows * cols * eb);
    p.matrices.push_back(std::move(m));
  }
  const std::vector<MoveBatch> batches = plan_move_batches(max_new, job.move_budget_bytes);
  p.batches = static_cast<int>(batches.size());
  for (std::size_t b = 0; b < batches.size(); ++b)
    for (std::size_t k = batches[b].begin; k < batches[b].end; ++k) p.matrices[k].batch = static_cast<int>(b);
}

// The processes a resize starts: the newcomers of a merge's expansion, the whole grid of a
// respawn.
int started(const JobState& job, const ResizePlan& p) {
  if (p.how == "respawn") return p.to.size();
  return p.mechanism == "spawn" || p.mechanism == "join" ? std::max(0, p.to.size() - job.world_size) : 0;
}

// Each phase's cost by price_resize (malleable/resize/predict.hpp, the simulator's too): the
// bare start and the copy/shared-memory bound the run report sets each resize against,
// else the history's medians (reconfigure.hpp).
void plan_cost(const JobState& job, ResizePlan& p) {
  const ResizeBounds* b = job.rates ? &*job.rates : nullptr;
  const bool join = p.mechanism == "join", rated = b && b->copy_Bps > 0 && b->shm_Bps > 0;
  ResizePriceInput in;
  in.bare_start_s = !b ? -1 : join ? b->bare_join_s : b->bare_spawn_s;
  in.start_per_unit_s = spawn_seconds(job.history, 1);
  in.started = started(job, p);
  in.kept_bytes = static_cast<double>(p.bytes_kept());
  in.moved_bytes = static_cast<double>(p.bytes_moved());
  if (rated) {
    std::set<std::string> nodes(p.nodes.hosts_before.begin(), p.nodes.hosts_before.end());
    for (const auto& [h, c] : p.nodes.spawn) nodes.insert(h);
    in.ranks_at_work = ranks_at_work(std::max({1, p.from.size(), p.to.size()}), static_cast<int>(nodes.size()),
                                     b->cores_per_node);
    in.copy_Bps = b->copy_Bps;
    in.shm_Bps = b->shm_Bps;
  }
  const ResizePrice price = price_resize(in);
  if (in.started == 0)
    p.start = {0, p.mechanism == "exit" ? "no process starts (the leaving ones end)" : "no process starts"};
  else if (in.bare_start_s > 0)
    p.start = {price.start_s, join ? "bare join (MALLEABLE_BARE_JOIN_S)" : "bare spawn (MALLEABLE_BARE_SPAWN_S)"};
  else
    p.start = {price.start_s, "the run's spawns, median seconds per process (" + short_number(kDefaultSpawnPerProcess) +
                                  " s without one) x " + std::to_string(in.started)};
  if (rated)
    p.redistribute = {price.redistribute_s, "copy/shared-memory bound over " + std::to_string(in.ranks_at_work) +
                                                " ranks, rates from " + b->rates_from};
  else
    p.redistribute = {in.moved_bytes > 0 ? move_seconds(job.history, in.moved_bytes) : 0.0,
                      "the run's moves, median bytes per second (" + short_number(kDefaultMoveBytesPerSecond) +
                          " B/s without one)"};
}

}  // namespace

double ResizePlan::total_s() const {
  return start.seconds < 0 || redistribute.seconds < 0 ? -1 : start.seconds + redistribute.seconds;
}

std::int64_t ResizePlan::bytes_kept() const {
  std::int64_t s = 0;
  for (const auto& m : matrices) s += m.kept;
  return s;
}

std::int64_t ResizePlan::bytes_moved() const {
  std::int64_t s = 0;
  for (const auto& m : matrices) s += m.moved;
  return s;
}

ResizePlan refused_plan(const Grid& from, const Decision& d, const std::exception& e, const std::string& context) {
  ResizePlan refused;
  refused.from = from;
  refused.decision = d;
  refused.refused = context + e.what();
  const auto* one = dynamic_cast<const malleable::Error*>(&e);
  refused.refused_code = one ? one->errc() : malleable::Errc::Internal;
  refused.refused_part = one ? one->part() : malleable::Part::Resize;
  return refused;
}

ResizePlan plan_steps(const JobState& job, Decision d) {
  ResizePlan p;
  p.from = job.shape;
  p.decision = std::move(d);
  if (p.decision.action == Action::None) return p;
  p.nodes.hosts_before = hosts_of(job);
  try {
    p.to = plan_target(job, p.decision, p.nodes);
    plan_how(job, p);
  } catch (const std::exception& e) {
    return refused_plan(job.shape, p.decision, e);
  }
  return p;
}

ResizePlan plan_resize(const JobState& job, Decision d) {
  ResizePlan p = plan_steps(job, std::move(d));
  if (p.decision.action == Action::None || !p.refused.empty()) return p;
  try {
    plan_matrices(job, p);
    plan_cost(job, p);
  } catch (const std::exception& e) {
    return refused_plan(job.shape, p.decision, e);
  }
  return p;
}

}  // namespace resize::detail
