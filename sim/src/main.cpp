// SPDX-License-Identifier: BSD-3-Clause
// malleable-clustersim: a batch system and its jobs simulated with SimGrid's
// S4U actors on a generated cluster of N hosts. A submitter actor submits the workload's
// jobs at their times; a scheduler actor runs FCFS with EASY backfilling whenever the
// queue or the idle nodes change; one actor per job runs on its first node: a rigid job
// sleeps its run time, a malleable job sleeps iteration by iteration and at each remap
// point asks the project's Slurm policy (policy.hpp), paying the cost model's resize time
// (costs.hpp) when it shrinks or grows. The pure state is cluster.hpp; this file only moves
// simulated time and calls it.
//
//   malleable-clustersim (--workload w.json | --swf trace.swf [--cores-per-node C] [--swf-first K]
//                        [--swf-jobs N] [--malleable-share X] [--seed S] [--serial LO HI] [--iteration-s S]
//                        [--trace-report report.json] [--write-workload w.json]) [--costs costs.json] [--cost-scale F] [--out metrics.json]
//                        [--records jobs.csv] [--decisions decisions.jsonl]
//                        [--start-ranges [--range-top max|requested]] [--start full|min|one]
//                        [--one-update on|off] [--backfill easy|conservative [--bf-resolution S [--bf-origin S]]]
//                        [--interval S] [--policy arbiter|decide|none]
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <simgrid/s4u.hpp>
#include <sstream>
#include <utility>

#include "cluster.hpp"
#include "costs.hpp"
#include "metrics.hpp"
#include "policy.hpp"
#include "swf.hpp"

namespace sg4 = simgrid::s4u;
using namespace clustersim;

namespace {

struct Sim {
  Sim(Cluster c, const Costs& k, double interval) : cluster(std::move(c)), costs(k), interval_s(interval) {}
  Cluster cluster;
  Costs costs;
  double interval_s = 0;
  std::vector<sg4::Host*> hosts;
  sg4::MutexPtr mutex = sg4::Mutex::create();
  sg4::ConditionVariablePtr wake = sg4::ConditionVariable::create();
  bool dirty = false;
  std::size_t ended = 0;
  std::ofstream* decisions = nullptr;
  long decide_calls = 0;
  bool arbiter = true;  // cluster::slurm::arbitrate; false: the single-job cluster::slurm::decide
  bool no_resizes = false;  // --policy none: malleable jobs keep the nodes they start on
  enum class Start { Full, Min, One } start = Start::Full;  // a malleable job's first launch: on
      // every node Slurm gave, on its minimum, or one process; it spawns onto the rest
  cluster::slurm::Ledger ledger;
  std::uint64_t ledger_version = 0;
  cluster::slurm::ArbiterOptions arbiter_options;
  std::vector<double> last_query;  // per job: its last arbitration (< 0: none yet)
  ViewCache view_cache;  // the arbitration's view between changes of the cluster

  Action decide(std::size_t j, int done, double now, const Ranks& ranks) {
    ++decide_calls;
    if (!arbiter) return decide_for(cluster, j, done, costs, ranks);
    const auto before = ledger.entries;
    // As the real policy (slurm_policy.cpp): a job asked only at its remap points keeps
    // its bids and offers alive at least twice the gap since its last query.
    last_query.resize(cluster.workload().jobs.size(), -1);
    auto opt = arbiter_options;
    if (last_query[j] >= 0) {
      opt.bid_ttl_s = std::max(opt.bid_ttl_s, 2 * (now - last_query[j]));
      opt.offer_ttl_s = std::max(opt.offer_ttl_s, opt.bid_ttl_s);
    }
    last_query[j] = now;
    Action a = arbitrate_for(cluster, j, done, costs, ledger, now, opt, ranks, &view_cache);
    if (ledger.entries != before) ++ledger_version;
    return a;
  }

  void notify() {
    dirty = true;
    wake->notify_all();
  }
};

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw Error("cannot read " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void log_decision(Sim& sim, std::size_t j, const Action& a, int from) {
  if (!sim.decisions) return;
  nlohmann::json line = {{"t", sg4::Engine::get_clock()}, {"job", sim.cluster.workload().jobs[j].id},
                         {"policy", sim.arbiter ? "arbiter" : "decide"},
                         {"rule", a.rule}, {"from", from}, {"give", a.give.size()}, {"grow", a.grow},
                         {"why", a.why}};
  *sim.decisions << line.dump() << "\n";
}

// A malleable job's processes: the nodes they run on (join order) and how often Slurm
// changed its allocation.
struct Procs {
  std::vector<int> ranks;
  int changes = 0;
};

// Carries out one decision at `now`; returns false if nothing changed.
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
    sg4::this_actor::sleep_for(resize + sim.costs.update_s);
    sim.cluster.release(j, a.give, sg4::Engine::get_clock());
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
    got = a.claim.empty() ? sim.cluster.grant(j, a.grow, now) : sim.cluster.grant_nodes(j, a.claim, now);
    if (sim.arbiter) {
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
  sg4::this_actor::sleep_for(resize + slurm);
  sim.cluster.resized(j, resize);
  p.ranks.insert(p.ranks.end(), got.begin(), got.end());
  if (a.kind != Action::Kind::UseHeld) ++p.changes;
  return true;
}

// One malleable job's iterations and remap points. Started on fewer nodes than Slurm gave
// (on one process or on its minimum), its first iteration does no work and its first
// remap point comes at once: there it spawns onto the rest or gives them back.
void run_malleable(Sim& sim, std::size_t j) {
  const Job& job = sim.cluster.workload().jobs[j];
  Procs p;
  p.ranks = sim.cluster.held(j);
  if (sim.start == Sim::Start::One) p.ranks.resize(1);
  if (sim.start == Sim::Start::Min) p.ranks.resize(std::min<std::size_t>(p.ranks.size(), job.min_nodes));
  const int floor = static_cast<int>(p.ranks.size());  // the first launch's processes stay
  bool lead_in = p.ranks.size() < sim.cluster.held(j).size();
  // The cluster's and the ledger's versions when the policy last said stay (for a rule
  // that only a change of either can alter): the next query waits for a change.
  std::uint64_t quiet_version = std::numeric_limits<std::uint64_t>::max(), quiet_ledger = quiet_version;
  double last_check = -std::numeric_limits<double>::infinity();
  for (int done = 0; done < job.iterations;) {
    const int n = static_cast<int>(p.ranks.size());
    sim.cluster.set_estimated_end(j, sg4::Engine::get_clock() + (job.iterations - done) * job.iteration_s(n));
    if (!std::exchange(lead_in, false)) {
      sg4::this_actor::sleep_for(job.iteration_s(n));
      if (++done == job.iterations) break;
    }
    const double now = sg4::Engine::get_clock();
    if (now - last_check < sim.interval_s) continue;
    last_check = now;
    if (sim.cluster.version() == quiet_version && sim.ledger_version == quiet_ledger) {
      if (sim.costs.decision_s > 0) sg4::this_actor::sleep_for(sim.costs.decision_s);  // asked; the same answer
      continue;
    }
    const Action a = sim.decide(j, done, now, Ranks{p.ranks, sim.costs.one_update && p.changes > 0, floor});
    if (sim.costs.decision_s > 0) sg4::this_actor::sleep_for(sim.costs.decision_s);
    if (a.kind == Action::Kind::None) {
      if (a.rule != "bid") {  // a standing bid may win later with nothing else changed
        quiet_version = sim.cluster.version();
        quiet_ledger = sim.ledger_version;
      }
      continue;
    }
    log_decision(sim, j, a, n);
    act(sim, j, a, p, done, sg4::Engine::get_clock());
  }
}

void job_actor(Sim* sim, std::size_t j) {
  const Job& job = sim->cluster.workload().jobs[j];
  if (sim->costs.launch_s > 0) sg4::this_actor::sleep_for(sim->costs.launch_s);
  if (job.malleable && !sim->no_resizes)
    run_malleable(*sim, j);
  else  // on the nodes it started on (a range start may give fewer than it asked for)
    sg4::this_actor::sleep_for(job.runtime_s(static_cast<int>(sim->cluster.held(j).size())));
  sim->cluster.finish(j, sg4::Engine::get_clock());
  ++sim->ended;
  sim->notify();
}

void submitter(Sim* sim) {
  const auto& jobs = sim->cluster.workload().jobs;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    sg4::this_actor::sleep_until(jobs[j].submit_s);
    sim->cluster.submit(j, sg4::Engine::get_clock());
    sim->notify();
  }
}

void scheduler(Sim* sim) {
  const std::size_t total = sim->cluster.workload().jobs.size();
  std::unique_lock<sg4::Mutex> lock(*sim->mutex);
  while (sim->ended < total) {
    if (!sim->dirty) sim->wake->wait(lock);
    // Slurm starts jobs at its scheduling passes; what changes meanwhile is in this pass.
    const double pass = sim->costs.next_pass(sg4::Engine::get_clock());
    if (pass > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(pass);
    sim->dirty = false;
    for (std::size_t j : sim->cluster.schedule(sg4::Engine::get_clock())) {
      const auto& held = sim->cluster.held(j);
      sg4::Actor::create(sim->cluster.workload().jobs[j].id, sim->hosts[held.front()], job_actor, sim, j);
    }
  }
}

void write_records(const std::string& path, const std::vector<JobRecord>& recs) {
  std::ofstream f(path);
  f << "id,malleable,submit_s,start_s,end_s,node_s,resizes,resize_s,start_nodes,min_held,max_held\n";
  for (const auto& r : recs)
    f << r.id << ',' << (r.malleable ? 1 : 0) << ',' << r.submit_s << ',' << r.start_s << ',' << r.end_s << ','
      << r.node_s << ',' << r.resizes << ',' << r.resize_s << ',' << r.start_nodes << ',' << r.min_held << ','
      << r.max_held << '\n';
}

}  // namespace

int main(int argc, char** argv) {
  sg4::Engine engine(&argc, argv);
  CLI::App app{"malleable-clustersim: a batch system of rigid and malleable jobs, simulated (SimGrid S4U)"};
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // a later flag overrides
  std::string workload_path, costs_path, out_path, records_path, decisions_path;
  int nodes = 0;
  double interval = 0;
  clustersim::Resolution resolution;
  bool all_rigid = false, no_expansion = false, ranges = false;
  std::string policy = "arbiter", range_top = "max", start_mode = "full", one_update, backfill = "easy";
  auto* workload_opt = app.add_option("--workload", workload_path, "workload JSON (scripts/bench/workload/generate.py)");
  // A real trace instead (swf.hpp): the Parallel Workloads Archive's Standard Workload Format.
  std::string swf_path, trace_report_path, write_workload_path;
  SwfCleaning cleaning;
  TraceModel model;
  std::vector<double> serial;
  double cost_scale = 1;
  auto* swf_opt = app.add_option("--swf", swf_path, "a Standard Workload Format trace (Parallel Workloads Archive)")
                      ->excludes(workload_opt);
  workload_opt->excludes(swf_opt);
  app.add_option("--cores-per-node", cleaning.cores_per_node, "--swf: processors per node (nodes = ceil(procs / C))")
      ->check(CLI::PositiveNumber);
  app.add_option("--swf-first", cleaning.first, "--swf: skip this many jobs kept by the cleaning (a window)");
  app.add_option("--swf-jobs", cleaning.count, "--swf: keep at most this many jobs (0: all)");
  app.add_option("--malleable-share", model.malleable_share, "--swf: the share of malleable jobs (seeded)");
  app.add_option("--seed", model.seed, "--swf: the seed choosing the malleable jobs and the serial fractions");
  app.add_option("--serial", serial, "--swf: LO HI, Amdahl serial fractions drawn uniformly in [LO, HI] (0.01 0.1)")
      ->expected(2);
  app.add_option("--arrival-scale", model.arrival_scale, "--swf: multiply the submission times by F (< 1: a higher "
                 "offered load)")->check(CLI::PositiveNumber);
  app.add_option("--iteration-s", model.iteration_s, "--swf: seconds per iteration (a remap point), default 60");
  app.add_flag_callback("--exact-estimates", [&] { model.requested_estimates = false; },
               "--swf: the exact run times as estimates, not the users' requested times");
  app.add_option("--trace-report", trace_report_path, "--swf: write the cleaning's counts and the trace's recorded "
                 "metrics (JSON)");
  app.add_option("--write-workload", write_workload_path, "write the jobs (a trace's, cleaned and modelled) as workload "
                 "JSON, the format --workload reads, and exit without simulating");
  app.add_option("--cost-scale", cost_scale, "multiply the resize costs by F (sensitivity)")->check(CLI::PositiveNumber);
  app.add_option("--costs", costs_path, "resize cost constants, JSON (sim/costs/*.json)");
  app.add_option("--nodes", nodes, "simulate on this many nodes instead of the workload's");
  app.add_option("--interval", interval, "seconds between a malleable job's policy queries (0: every remap point)");
  app.add_flag("--rigid", all_rigid, "run every job rigid (the baseline on the same file)");
  app.add_option("--policy", policy, "arbiter: the multi-job arbitration (default); decide: the single-job Slurm policy; "
                 "none: no resizes (with --start-ranges: only the node range at the start)")
      ->check(CLI::IsMember({"arbiter", "decide", "none"}));
  app.add_flag("--start-ranges", ranges, "malleable jobs start on fewer nodes, down to their minimum (Slurm --nodes=min-max)");
  app.add_option("--range-top", range_top, "the top of a malleable job's node range: max (its max_nodes, as the "
                 "runner submits -N min-max; default) or requested (its size)")
      ->check(CLI::IsMember({"max", "requested"}));
  app.add_option("--backfill", backfill, "easy: FCFS + EASY backfilling (default); conservative: every waiting job "
                 "keeps its planned start, as Slurm's sched/backfill")
      ->check(CLI::IsMember({"easy", "conservative"}));
  app.add_option("--bf-resolution", resolution.step, "conservative: plan in blocks of S seconds of the wall clock, "
                 "as Slurm's bf_resolution (its default 60; 0: exact times, the default here)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--bf-origin", resolution.origin, "the wall clock's seconds past a whole block at simulated time 0");
  app.add_option("--start", start_mode, "full: a malleable job starts a process on every node Slurm gave (default); "
                 "min: on its minimum, one: one process, spawning onto the rest at its first remap point")
      ->check(CLI::IsMember({"full", "min", "one"}));
  app.add_option("--one-update", one_update, "on: Slurm changes a job's allocation once (no accounting); off: "
                 "as often as asked; default: the costs file's one_update")
      ->check(CLI::IsMember({"on", "off"}));
  double give_gain_share = -1, min_growth_efficiency = -1;
  app.add_option("--give-gain-share", give_gain_share, "the arbiter's weighing of a give-back (ArbiterOptions::"
                 "give_gain_share; 0: always give; default: the arbiter's)");
  app.add_option("--min-growth-efficiency", min_growth_efficiency, "the arbiter's efficiency floor of a growth "
                 "(ArbiterOptions::min_growth_efficiency; 0: none; default: the arbiter's)");
  app.add_flag("--no-expansion", no_expansion, "Slurm without job expansion: growth by checkpoint and restart");
  app.add_option("--out", out_path, "metrics JSON (default: stdout)");
  app.add_option("--records", records_path, "per-job CSV");
  app.add_option("--decisions", decisions_path, "the malleable jobs' resize decisions, JSON lines");
  CLI11_PARSE(app, argc, argv);
  try {
    if (workload_path.empty() && swf_path.empty()) throw Error("give --workload or --swf");
    Workload w;
    if (!swf_path.empty()) {
      if (!serial.empty()) {
        model.serial_lo = serial[0];
        model.serial_hi = serial[1];
      }
      cleaning.machine_nodes = nodes;
      const SwfTrace trace = parse_swf(read_file(swf_path));
      const TraceJobs tj = clean_swf(trace, cleaning);
      w = trace_workload(tj, model);
      const auto& n = tj.counts;
      if (!trace_report_path.empty()) {
        const RecordedMetrics rec = recorded_metrics(tj);
        nlohmann::json r = {{"trace", swf_path}, {"computer", trace.header.computer},
                            {"installation", trace.header.installation}, {"machine_nodes", tj.machine_nodes},
                            {"cores_per_node", cleaning.cores_per_node}, {"records", n.records}, {"kept", n.kept},
                            {"cancelled", n.cancelled}, {"no_run_time", n.no_run_time}, {"zero_procs", n.zero_procs},
                            {"too_large", n.too_large}, {"outside_window", n.outside_window},
                            {"recorded", {{"makespan_s", rec.makespan_s}, {"mean_wait_s", rec.mean_wait_s},
                                          {"waits_known", rec.waits_known},
                                          {"mean_turnaround_s", rec.mean_turnaround_s},
                                          {"utilisation", rec.utilisation}}}};
        std::ofstream(trace_report_path) << r.dump(1) << "\n";
      }
      std::cerr << "malleable-clustersim: " << swf_path << ": " << n.records << " records, " << n.kept << " kept; dropped "
                << n.cancelled << " cancelled, " << n.no_run_time << " without run time, " << n.zero_procs
                << " without processors, " << n.too_large << " larger than " << tj.machine_nodes << " nodes, "
                << n.outside_window << " outside the window\n";
    } else {
      w = parse_workload(read_file(workload_path), nodes);
    }
    if (all_rigid)
      for (auto& j : w.jobs) {
        j.malleable = false;
        j.min_nodes = j.max_nodes = j.nodes;
      }
    if (!write_workload_path.empty()) {
      std::ofstream f(write_workload_path);
      f << workload_json(w);
      if (!f.flush()) throw Error("cannot write " + write_workload_path);
      return 0;
    }
    Costs costs = costs_path.empty() ? Costs{} : parse_costs(read_file(costs_path));
    if (cost_scale != 1) costs = scale_resize_costs(costs, cost_scale);
    if (no_expansion) costs.expansion = false;
    if (!one_update.empty()) costs.one_update = one_update == "on";
    const int machine = w.nodes;
    Sim sim(Cluster(std::move(w)), costs, interval);
    sim.cluster.set_start_ranges(ranges);
    sim.cluster.set_range_top_max(range_top == "max");
    sim.cluster.set_conservative(backfill == "conservative");
    sim.cluster.set_resolution(resolution);
    sim.start = start_mode == "one" ? Sim::Start::One : start_mode == "min" ? Sim::Start::Min : Sim::Start::Full;
    sim.arbiter = policy == "arbiter";
    sim.no_resizes = policy == "none";
    // The arbiter's windows are for a query every 2 s; queried every `interval` simulated
    // seconds, they stretch by interval / 2.
    const double stretch = std::max(1.0, interval / 2);
    auto& ao = sim.arbiter_options;
    ao.bid_window_s *= stretch;
    ao.bid_ttl_s *= stretch;
    ao.claim_ttl_s *= stretch;
    ao.offer_ttl_s *= stretch;
    ao.promise_ttl_s = std::max(ao.promise_ttl_s, 4 * interval);
    ao.expansion = costs.expansion;
    if (give_gain_share >= 0) ao.give_gain_share = give_gain_share;
    if (min_growth_efficiency >= 0) ao.min_growth_efficiency = min_growth_efficiency;
    std::ofstream decisions;
    if (!decisions_path.empty()) {
      decisions.open(decisions_path);
      sim.decisions = &decisions;
    }
    auto* zone = sg4::create_star_zone("cluster");
    for (int n = 0; n < machine; ++n) sim.hosts.push_back(zone->create_host(sim.cluster.node_name(n), 1e9));
    zone->seal();
    sg4::Actor::create("submitter", sim.hosts.front(), submitter, &sim);
    sg4::Actor::create("scheduler", sim.hosts.front(), scheduler, &sim);
    engine.run();
    const auto recs = sim.cluster.records();
    const RunMetrics m = compute_metrics(recs, machine);
    if (!records_path.empty()) write_records(records_path, recs);
    const std::string text = metrics_json(m);
    if (out_path.empty()) {
      std::cout << text << "\n";
    } else {
      std::ofstream(out_path) << text << "\n";
    }
    std::cerr << "malleable-clustersim: " << m.jobs << " jobs on " << machine << " nodes, simulated "
              << m.makespan_s << " s, " << sim.decide_calls << " policy decisions\n";
  } catch (const std::exception& e) {
    std::cerr << "malleable-clustersim: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
