// SPDX-License-Identifier: BSD-3-Clause
#include "sim_run.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <nlohmann/json.hpp>
#include <simgrid/s4u.hpp>
#include <utility>

#include "policy.hpp"
#include "time_limit.hpp"

namespace sg4 = simgrid::s4u;

namespace clustersim {

namespace {

struct Sim {
  Sim(Cluster c, const Costs& k, const RunOptions& o) : cluster(std::move(c)), costs(k), opt(o) {}
  Cluster cluster;
  Costs costs;
  RunOptions opt;
  RunCounts counts;
  std::vector<sg4::Host*> hosts;
  sg4::MutexPtr mutex = sg4::Mutex::create();
  sg4::ConditionVariablePtr wake = sg4::ConditionVariable::create();
  bool dirty = false;
  std::size_t ended = 0;
  cluster::slurm::Ledger ledger;
  std::uint64_t ledger_version = 0;
  std::vector<double> last_query;  // per job: its last arbitration (< 0: none yet)
  std::vector<double> deadline;    // per job: when Slurm ends it (kNoLimit: never)
  // limit_follows_size: the latest deadline a give-back may extend to: the start, the launch
  // and the limit on the job's minimum size, and the resizes' costs (a job that grew and
  // gives back gains no more than one started on its minimum: no ratchet).
  std::vector<double> deadline_cap;
  ViewCache view_cache;            // the arbitration's view between changes of the cluster

  // The per-iteration time a malleable job spends outside its work: its policy query.
  double overhead_s() const { return opt.no_resizes ? 0.0 : costs.decision_s; }

  void notify() {
    dirty = true;
    wake->notify_all();
  }
};

double now_s() { return sg4::Engine::get_clock(); }

void log_line(Sim& sim, std::size_t j, nlohmann::json line) {
  if (!sim.opt.decisions) return;
  line["t"] = now_s();
  line["job"] = sim.cluster.workload().jobs[j].id;
  *sim.opt.decisions << line.dump() << "\n";
}

void log_decision(Sim& sim, std::size_t j, const Action& a, int from) {
  log_line(sim, j, {{"policy", sim.opt.arbiter ? "arbiter" : "decide"}, {"rule", a.rule}, {"from", from},
                    {"give", a.give.size()}, {"grow", a.grow}, {"why", a.why}});
}

// Sleeps `dt`, or up to the job's deadline when that comes first (false: the job is ended
// at its limit). A relative slack of 1e-9 keeps a job whose run is exactly its limit.
bool sleep_within(Sim& sim, std::size_t j, double dt) {
  const double now = now_s(), d = sim.deadline[j];
  if (now + dt > d + 1e-9 * std::max(1.0, std::abs(d))) {
    if (d > now) sg4::this_actor::sleep_for(d - now);
    return false;
  }
  if (dt > 0) sg4::this_actor::sleep_for(dt);
  return true;
}

// A malleable job's processes: the nodes they run on (join order), how often Slurm
// changed its allocation, and whether it was ended at its limit.
struct Procs {
  std::vector<int> ranks;
  int changes = 0;
  bool killed = false;
};

// The predicted end of job j, running on `ranks` of the nodes it holds, if it keeps `n`
// nodes from now, `left` iterations to go: fewer than its ranks, a shrink (its cost and
// Slurm's update), then the rest on n; more, its next iteration still on its ranks (a
// give-back spawns nothing in the same step), then an expansion onto the nodes it keeps.
double end_on(const Sim& sim, const Job& job, int ranks, int n, int left, double now) {
  const double o = sim.overhead_s();
  if (n > ranks && left > 0) {
    const double next = now + job.iteration_s(ranks) + o;
    return EndPrediction{next, sim.costs.expand_s(ranks, n, job.nodes), job.iteration_s(n), o, left - 1}.end();
  }
  const double resize = n < ranks ? sim.costs.shrink_s(ranks, n, job.nodes) + sim.costs.update_s : 0.0;
  return EndPrediction{now, resize, job.iteration_s(n), o, left}.end();
}

// The fewest of the nodes job j holds that it may keep under its limit (all it holds when
// none keeps it: a give-back cannot help it).
int limit_floor(const Sim& sim, std::size_t j, int ranks, int left, double now) {
  const Job& job = sim.cluster.workload().jobs[j];
  const int held = static_cast<int>(sim.cluster.held(j).size());
  return fewest_within(1, held, sim.deadline[j], [&](int n) { return end_on(sim, job, ranks, n, left, now); });
}

Action ask(Sim& sim, std::size_t j, int done, double now, const Ranks& ranks) {
  ++sim.counts.decide_calls;
  if (!sim.opt.arbiter) return decide_for(sim.cluster, j, done, sim.costs, ranks);
  const auto before = sim.ledger.entries;
  // As the real policy (slurm_policy.cpp): a job asked only at its remap points keeps
  // its bids and offers alive at least twice the gap since its last query.
  sim.last_query.resize(sim.cluster.workload().jobs.size(), -1);
  auto o = sim.opt.arbiter_options;
  if (sim.last_query[j] >= 0) {
    o.bid_ttl_s = std::max(o.bid_ttl_s, 2 * (now - sim.last_query[j]));
    o.offer_ttl_s = std::max(o.offer_ttl_s, o.bid_ttl_s);
  }
  sim.last_query[j] = now;
  Action a = arbitrate_for(sim.cluster, j, done, sim.costs, sim.ledger, now, o, ranks, &sim.view_cache);
  if (sim.ledger.entries != before) ++sim.ledger_version;
  return a;
}

// The policy's decision for job j with the levers and the time limit applied: the limit
// raises the floor it may give back to; where the policy would have given more without
// it, the refusal is counted and logged (the policy asked again without the limit, on a
// copy of the ledger: nothing of that second answer is kept).
Action decide(Sim& sim, std::size_t j, int done, double now, Ranks ranks) {
  const Job& job = sim.cluster.workload().jobs[j];
  const int from = static_cast<int>(ranks.nodes.size());
  const int left = job.iterations - done;
  if (sim.opt.no_give_back) ranks.floor = static_cast<int>(sim.cluster.held(j).size());
  ranks.no_growth = sim.opt.no_growth;
  const int base = std::max(ranks.floor, job.min_nodes);
  const bool keep_limit = sim.opt.time_limits && !sim.opt.limit_follows_size;
  const int floor = keep_limit ? limit_floor(sim, j, from, left, now) : 0;
  if (floor <= base) return ask(sim, j, done, now, ranks);
  Ranks limited = ranks;
  limited.floor = floor;
  const auto ledger = sim.ledger;
  const std::uint64_t version = sim.ledger_version;
  Action a = ask(sim, j, done, now, limited);
  if (sim.cluster.queue().empty()) return a;
  const auto kept = std::exchange(sim.ledger, ledger);
  const auto kept_version = sim.ledger_version;
  sim.ledger_version = version;
  const double last = sim.last_query.size() > j ? sim.last_query[j] : -1;
  if (sim.last_query.size() > j) sim.last_query[j] = -1;
  const Action unlimited = ask(sim, j, done, now, ranks);
  --sim.counts.decide_calls;
  if (sim.last_query.size() > j) sim.last_query[j] = last;
  sim.ledger = kept;
  sim.ledger_version = kept_version;
  if (unlimited.kind == Action::Kind::Shrink && unlimited.give.size() > a.give.size()) {
    ++sim.counts.limit_refusals;
    const int held = static_cast<int>(sim.cluster.held(j).size());
    const int to = std::max(1, held - static_cast<int>(unlimited.give.size()));
    const auto v = keeps_limit(EndPrediction{end_on(sim, job, from, to, left, now)}, sim.deadline[j]);
    log_line(sim, j, {{"policy", sim.opt.arbiter ? "arbiter" : "decide"}, {"rule", "time-limit"}, {"from", from},
                      {"give", a.give.size()}, {"grow", 0}, {"refused", unlimited.give.size() - a.give.size()},
                      {"why", "the policy (" + unlimited.rule + ") would give " + std::to_string(unlimited.give.size()) +
                                  " node(s): " + v.why + "; at most " +
                                  std::to_string(std::max(0, static_cast<int>(sim.cluster.held(j).size()) - floor)) +
                                  " keep it"}});
  }
  return a;
}

// Carries out one decision at `now`; false if nothing changed. p.killed: the job's limit
// came during the resize.
bool act(Sim& sim, std::size_t j, const Action& a, Procs& p, int done, double now) {
  const Job& job = sim.cluster.workload().jobs[j];
  const int from = static_cast<int>(p.ranks.size());
  auto estimate = [&](double t, int to) {
    sim.cluster.set_estimated_end(j, now + t + (job.iterations - done) * job.iteration_s(to));
  };
  if (a.kind == Action::Kind::Shrink) {
    std::vector<int> ranks;
    for (int n : p.ranks)
      if (std::find(a.give.begin(), a.give.end(), n) == a.give.end()) ranks.push_back(n);
    const int to = static_cast<int>(ranks.size());
    const double resize = to < from ? sim.costs.shrink_s(from, to, job.nodes) : 0.0;
    estimate(resize + sim.costs.update_s, to);
    if (sim.opt.limit_follows_size && sim.deadline[j] < kNoLimit && to < from && sim.deadline[j] > now) {
      // The limit left follows the size (not the job's true run: the site knows only the
      // limit and the model): what is left of it, scaled by the time on `to` over `from`,
      // plus the shrink, never past the limit on the job's minimum (extend_with_size).
      sim.deadline_cap[j] += resize + sim.costs.update_s;
      const LimitExtension e = extend_with_size(now, sim.deadline[j], sim.deadline_cap[j], job.iteration_s(from),
                                                job.iteration_s(to), resize + sim.costs.update_s);
      sim.counts.limit_extensions_capped += e.cut_s > 0;
      sim.counts.limit_extension_capped_s += e.cut_s;
      if (e.by_s > 0) {
        ++sim.counts.limit_extensions;
        sim.counts.limit_extension_s += e.by_s;
        sim.deadline[j] += e.by_s;
        sim.cluster.extend_limit(j, e.by_s);
      }
    }
    if (!sleep_within(sim, j, resize + sim.costs.update_s)) return !(p.killed = true);
    sim.cluster.release(j, a.give, now_s());
    if (to < from) sim.cluster.resized(j, resize);
    p.ranks = std::move(ranks);
    ++p.changes;
    sim.notify();
    return true;
  }
  std::vector<int> got;
  if (a.kind == Action::Kind::UseHeld) {
    const auto& held = sim.cluster.held(j);
    for (int n : a.claim)
      if (std::find(held.begin(), held.end(), n) != held.end() &&
          std::find(p.ranks.begin(), p.ranks.end(), n) == p.ranks.end())
        got.push_back(n);
  } else {
    const int to = from + (a.claim.empty() ? a.grow : static_cast<int>(a.claim.size()));
    const double cost = sim.costs.grow_s(from, to, job.nodes) + sim.costs.update_s;
    const auto v = keeps_limit(EndPrediction{now, cost, job.iteration_s(to), sim.overhead_s(), job.iterations - done},
                               sim.deadline[j]);
    if (sim.opt.time_limits && !v.ok) {  // (the growth's own cost would pass the limit)
      ++sim.counts.growth_refusals;
      log_line(sim, j, {{"rule", "time-limit"}, {"from", from}, {"give", 0}, {"grow", 0},
                        {"why", "growth to " + std::to_string(to) + " node(s) refused: " + v.why}});
      if (sim.opt.arbiter) sim.ledger = cluster::slurm::settle(sim.ledger, job.id), ++sim.ledger_version;
      return false;
    }
    got = a.claim.empty() ? sim.cluster.grant(j, a.grow, now) : sim.cluster.grant_nodes(j, a.claim, now);
    if (sim.opt.arbiter) {
      sim.ledger = cluster::slurm::settle(sim.ledger, job.id);
      ++sim.ledger_version;
    }
  }
  if (got.empty()) return false;
  const int to = from + static_cast<int>(got.size());
  const double resize = a.kind == Action::Kind::UseHeld ? sim.costs.expand_s(from, to, job.nodes)
                                                         : sim.costs.grow_s(from, to, job.nodes);
  const double slurm = a.kind == Action::Kind::UseHeld ? 0.0 : sim.costs.update_s;
  estimate(resize + slurm, to);
  if (!sleep_within(sim, j, resize + slurm)) return !(p.killed = true);
  sim.cluster.resized(j, resize);
  p.ranks.insert(p.ranks.end(), got.begin(), got.end());
  if (a.kind != Action::Kind::UseHeld) ++p.changes;
  return true;
}

// One malleable job's iterations and remap points. Started on fewer nodes than Slurm gave
// (on one process or on its minimum), its first iteration does no work and its first
// remap point comes at once: there it spawns onto the rest or gives them back (not below
// what its limit lets it keep).
void run_malleable(Sim& sim, std::size_t j, Procs& p) {
  const Job& job = sim.cluster.workload().jobs[j];
  p.ranks = sim.cluster.held(j);
  const int held = static_cast<int>(p.ranks.size());
  int launch = sim.opt.start == RunOptions::Start::One   ? 1
               : sim.opt.start == RunOptions::Start::Min ? std::min(held, job.min_nodes)
                                                         : held;
  // A launch below the allocation spawns onto the rest at once; when that spawn's cost
  // would take the job past its limit, it launches on every node it holds.
  if (launch < held && !keeps_limit(EndPrediction{now_s(), sim.costs.expand_s(launch, held, job.nodes),
                                                   job.iteration_s(held), sim.overhead_s(), job.iterations},
                                     sim.deadline[j]).ok)
    launch = held;
  p.ranks.resize(launch);
  // the processes that stay: the first launch's, or under the recipe (a launch per node)
  // those of the job's minimum
  const int first = sim.opt.start == RunOptions::Start::Recipe ? std::min(held, job.min_nodes)
                                                               : static_cast<int>(p.ranks.size());
  bool lead_in = p.ranks.size() < sim.cluster.held(j).size();
  // The cluster's and the ledger's versions when the policy last said stay (for a rule
  // that only a change of either can alter): the next query waits for a change.
  std::uint64_t quiet_version = std::numeric_limits<std::uint64_t>::max(), quiet_ledger = quiet_version;
  double last_check = -std::numeric_limits<double>::infinity();
  for (int done = 0; done < job.iterations;) {
    const int n = static_cast<int>(p.ranks.size());
    sim.cluster.set_estimated_end(j, now_s() + (job.iterations - done) * job.iteration_s(n));
    if (!std::exchange(lead_in, false)) {
      if (!sleep_within(sim, j, job.iteration_s(n))) return void(p.killed = true);
      if (++done == job.iterations) break;
    }
    const double now = now_s();
    if (now - last_check < sim.opt.interval_s) continue;
    last_check = now;
    // A query costs decision_s: left out when that would take the job past its limit.
    if (sim.opt.time_limits && sim.costs.decision_s > 0 &&
        !keeps_limit(EndPrediction{now, 0, job.iteration_s(n), sim.overhead_s(), job.iterations - done}, sim.deadline[j])
             .ok) {
      ++sim.counts.queries_skipped;
      continue;
    }
    if (sim.cluster.version() == quiet_version && sim.ledger_version == quiet_ledger) {
      if (!sleep_within(sim, j, sim.costs.decision_s)) return void(p.killed = true);  // asked; the same answer
      continue;
    }
    const Action a = decide(sim, j, done, now, Ranks{p.ranks, sim.costs.one_update && p.changes > 0, first});
    if (!sleep_within(sim, j, sim.costs.decision_s)) return void(p.killed = true);
    if (a.kind == Action::Kind::None) {
      if (a.rule != "bid") {  // a standing bid may win later with nothing else changed
        quiet_version = sim.cluster.version();
        quiet_ledger = sim.ledger_version;
      }
      continue;
    }
    log_decision(sim, j, a, n);
    act(sim, j, a, p, done, now_s());
    if (p.killed) return;
  }
}

void job_actor(Sim* sim, std::size_t j) {
  const Job& job = sim->cluster.workload().jobs[j];
  const double limit = sim->cluster.start_limit(j, static_cast<int>(sim->cluster.held(j).size()));
  sim->deadline[j] = sim->opt.time_limits && limit > 0 ? now_s() + sim->costs.launch_s + limit : kNoLimit;
  if (sim->opt.limit_follows_size && sim->deadline[j] < kNoLimit)
    sim->deadline_cap[j] =
        now_s() + sim->costs.launch_s + sim->cluster.limit_on(j, std::max(1, std::min(job.min_nodes, job.nodes)));
  if (sim->costs.launch_s > 0) sg4::this_actor::sleep_for(sim->costs.launch_s);
  bool killed = false;
  if (job.malleable && !sim->opt.no_resizes) {
    Procs p;
    run_malleable(*sim, j, p);
    killed = p.killed;
  } else {  // on the nodes it started on (a range start may give fewer than it asked for)
    killed = !sleep_within(*sim, j, job.runtime_s(static_cast<int>(sim->cluster.held(j).size())));
  }
  if (killed) sim->cluster.killed(j);
  const double ran = now_s() - sim->cluster.record(j).start_s - sim->costs.launch_s;
  if (!sim->opt.time_limits && limit > 0 && ran > limit * (1 + 1e-9) + 1e-6) sim->cluster.past_limit(j);
  sim->cluster.finish(j, now_s());
  ++sim->ended;
  sim->notify();
}

void submitter(Sim* sim) {
  const auto& jobs = sim->cluster.workload().jobs;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    sg4::this_actor::sleep_until(jobs[j].submit_s);
    sim->cluster.submit(j, now_s());
    sim->notify();
  }
}

// A site's prime-time rule lets waiting jobs start at its cuts: a pass then.
void period_clock(Sim* sim) {
  const std::size_t total = sim->cluster.workload().jobs.size();
  while (sim->ended < total) {
    sg4::this_actor::sleep_until(sim->cluster.periods().next_cut(now_s()));
    sim->cluster.bump();
    sim->notify();
  }
}

// Outages (outages.hpp) take nodes down and give them back at their cuts: a pass then.
void outage_clock(Sim* sim) {
  const std::size_t total = sim->cluster.workload().jobs.size();
  while (sim->ended < total) {
    const double cut = next_outage_cut(sim->cluster.outages(), now_s());
    if (cut == std::numeric_limits<double>::infinity()) return;
    sg4::this_actor::sleep_until(cut);
    sim->cluster.apply_outages(now_s());
    sim->notify();
  }
}

void scheduler(Sim* sim) {
  const std::size_t total = sim->cluster.workload().jobs.size();
  std::unique_lock<sg4::Mutex> lock(*sim->mutex);
  while (sim->ended < total) {
    if (!sim->dirty) sim->wake->wait(lock);
    // Slurm starts jobs at its scheduling passes; what changes meanwhile is in this pass.
    const double pass = sim->costs.next_pass(now_s());
    if (pass > now_s()) sg4::this_actor::sleep_until(pass);
    sim->dirty = false;
    for (std::size_t j : sim->cluster.schedule(now_s())) {
      const auto& held = sim->cluster.held(j);
      sg4::Actor::create(sim->cluster.workload().jobs[j].id, sim->hosts[held.front()], job_actor, sim, j);
    }
    // Where the pass kept a job waiting that it would have started below its floor.
    const auto& jobs = sim->cluster.workload().jobs;
    for (std::size_t j : sim->cluster.narrowed())
      log_line(*sim, j, {{"rule", "time-limit"}, {"from", 0}, {"give", 0}, {"grow", 0},
                         {"why", "start: held, not started below " + std::to_string(sim->cluster.start_floor(j)) +
                                     " of its range [" + std::to_string(jobs[j].min_nodes) + ", " +
                                     std::to_string(jobs[j].nodes) +
                                     "], the fewest whose predicted run keeps its limit of " +
                                     std::to_string(jobs[j].kill_limit_s()) + " s"}});
  }
}

}  // namespace

std::vector<JobRecord> simulate(Cluster cluster, const Costs& costs, const RunOptions& o, RunCounts& counts) {
  Sim sim(std::move(cluster), costs, o);
  sim.cluster.set_time_limits(o.time_limits, sim.overhead_s());
  sim.cluster.set_limit_follows_size(o.time_limits && o.limit_follows_size);
  sim.cluster.set_start_guard(o.start_guard);
  sim.deadline.assign(sim.cluster.workload().jobs.size(), kNoLimit);
  sim.deadline_cap.assign(sim.cluster.workload().jobs.size(), kNoLimit);
  auto* zone = sg4::create_star_zone("cluster");
  for (int n = 0; n < sim.cluster.total(); ++n) sim.hosts.push_back(zone->create_host(sim.cluster.node_name(n), 1e9));
  zone->seal();
  sg4::Actor::create("submitter", sim.hosts.front(), submitter, &sim);
  sg4::Actor::create("scheduler", sim.hosts.front(), scheduler, &sim);
  if (sim.cluster.periods().on) sg4::Actor::create("periods", sim.hosts.front(), period_clock, &sim)->daemonize();
  if (!sim.cluster.outages().empty())
    sg4::Actor::create("outages", sim.hosts.front(), outage_clock, &sim)->daemonize();
  sg4::Engine::get_instance()->run();
  counts = sim.counts;
  counts.starts_narrowed = sim.cluster.starts_narrowed();
  counts.user_limit_held = sim.cluster.user_limit_held();
  return sim.cluster.records();
}

}  // namespace clustersim
