// SPDX-License-Identifier: BSD-3-Clause
// malleable-clustersim (issue 44 §3): a batch system and its jobs simulated with SimGrid's
// S4U actors on a generated cluster of N hosts. A submitter actor submits the workload's
// jobs at their times; a scheduler actor runs FCFS with EASY backfilling whenever the
// queue or the idle nodes change; one actor per job runs on its first node: a rigid job
// sleeps its run time, a malleable job sleeps iteration by iteration and at each remap
// point asks the project's Slurm policy (policy.hpp), paying the cost model's resize time
// (costs.hpp) when it shrinks or grows. The pure state is cluster.hpp; this file only moves
// simulated time and calls it.
//
//   malleable-clustersim --workload w.json [--costs costs.json] [--out metrics.json]
//                        [--records jobs.csv] [--decisions decisions.jsonl]
#include <CLI/CLI.hpp>
#include <cmath>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <simgrid/s4u.hpp>
#include <sstream>

#include "cluster.hpp"
#include "costs.hpp"
#include "metrics.hpp"
#include "policy.hpp"

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
                         {"rule", a.rule}, {"from", from}, {"give", a.give.size()}, {"grow", a.grow},
                         {"why", a.why}};
  *sim.decisions << line.dump() << "\n";
}

// One malleable job's iterations and remap points.
void run_malleable(Sim& sim, std::size_t j) {
  const Job& job = sim.cluster.workload().jobs[j];
  int n = static_cast<int>(sim.cluster.held(j).size());
  std::uint64_t quiet_version = std::numeric_limits<std::uint64_t>::max();
  double last_check = -std::numeric_limits<double>::infinity();
  for (int done = 0; done < job.iterations;) {
    sim.cluster.set_estimated_end(j, sg4::Engine::get_clock() + (job.iterations - done) * job.iteration_s(n));
    sg4::this_actor::sleep_for(job.iteration_s(n));
    if (++done == job.iterations) break;
    const double now = sg4::Engine::get_clock();
    if (now - last_check < sim.interval_s || sim.cluster.version() == quiet_version) continue;
    last_check = now;
    ++sim.decide_calls;
    const Action a = decide_for(sim.cluster, j, done, sim.costs);
    if (a.kind == Action::Kind::None) {
      quiet_version = sim.cluster.version();  // nothing changes until the cluster does
      continue;
    }
    log_decision(sim, j, a, n);
    if (a.kind == Action::Kind::Shrink) {
      const int to = n - static_cast<int>(a.give.size());
      const double t = sim.costs.shrink_s(n, to, job.nodes);
      sg4::this_actor::sleep_for(t);
      sim.cluster.release(j, a.give, sg4::Engine::get_clock());
      sim.cluster.resized(j, t);
      n = to;
      sim.notify();
    } else {
      const auto got = sim.cluster.grant(j, a.grow, now);
      if (got.empty()) continue;
      const int to = n + static_cast<int>(got.size());
      const double t = sim.costs.grow_s(n, to, job.nodes);
      sim.cluster.set_estimated_end(j, now + t + (job.iterations - done) * job.iteration_s(to));
      sg4::this_actor::sleep_for(t);
      sim.cluster.resized(j, t);
      n = to;
    }
  }
}

void job_actor(Sim* sim, std::size_t j) {
  const Job& job = sim->cluster.workload().jobs[j];
  if (job.malleable)
    run_malleable(*sim, j);
  else
    sg4::this_actor::sleep_for(job.runtime_s(job.nodes));
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
  std::string workload_path, costs_path, out_path, records_path, decisions_path;
  int nodes = 0;
  double interval = 0;
  bool all_rigid = false, no_expansion = false;
  app.add_option("--workload", workload_path, "workload JSON (scripts/bench/workload/generate.py)")->required();
  app.add_option("--costs", costs_path, "resize cost constants, JSON (sim/costs/*.json)");
  app.add_option("--nodes", nodes, "simulate on this many nodes instead of the workload's");
  app.add_option("--interval", interval, "seconds between a malleable job's policy queries (0: every remap point)");
  app.add_flag("--rigid", all_rigid, "run every job rigid (the baseline on the same file)");
  app.add_flag("--no-expansion", no_expansion, "Slurm without job expansion: growth by checkpoint and restart");
  app.add_option("--out", out_path, "metrics JSON (default: stdout)");
  app.add_option("--records", records_path, "per-job CSV");
  app.add_option("--decisions", decisions_path, "the malleable jobs' resize decisions, JSON lines");
  CLI11_PARSE(app, argc, argv);
  try {
    Workload w = parse_workload(read_file(workload_path), nodes);
    if (all_rigid)
      for (auto& j : w.jobs) {
        j.malleable = false;
        j.min_nodes = j.max_nodes = j.nodes;
      }
    Costs costs = costs_path.empty() ? Costs{} : parse_costs(read_file(costs_path));
    if (no_expansion) costs.expansion = false;
    const int machine = w.nodes;
    Sim sim(Cluster(std::move(w)), costs, interval);
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
