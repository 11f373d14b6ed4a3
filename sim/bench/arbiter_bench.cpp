// SPDX-License-Identifier: BSD-3-Clause
// How long one cluster::slurm::arbitrate() call takes on a cluster of N nodes (a benchmark:
// it prints what it measured and asserts nothing about time). The view: N nodes named
// n0..n{N-1}, busy with malleable jobs of `--job-nodes` nodes each (one rank per node), a
// queue of `--pending` waiting jobs, and a ledger with an offer and a promise per waiting
// job. Two decisions are timed, each repeated until `--min-s` seconds have passed:
//   give:  the largest job, with a waiting job its nodes cover (the give-back search)
//   grow:  the same job with no job waiting and N/10 idle nodes (the bids)
//
//   clustersim-arbiter-bench --nodes 10000 --job-nodes 2500 --pending 200
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "malleable/cluster/cluster.hpp"

namespace {

using namespace cluster::slurm;

struct Args {
  int nodes = 1000, job_nodes = 250, pending = 100;
  double min_s = 1.0;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const char* v = argv[i + 1];
    if (k == "--nodes") a.nodes = std::atoi(v);
    else if (k == "--job-nodes") a.job_nodes = std::atoi(v);
    else if (k == "--pending") a.pending = std::atoi(v);
    else if (k == "--min-s") a.min_s = std::atof(v);
    else {
      std::fprintf(stderr, "clustersim-arbiter-bench: unknown option %s\n", k.c_str());
      std::exit(2);
    }
  }
  if (a.nodes < 2 || a.job_nodes < 2 || a.job_nodes > a.nodes || a.pending < 0 || a.min_s <= 0) {
    std::fprintf(stderr, "clustersim-arbiter-bench: need 2 <= --job-nodes <= --nodes, --pending >= 0, --min-s > 0\n");
    std::exit(2);
  }
  return a;
}

// "n<k>" (appended, not "n" + string: GCC 12 warns falsely, -Wrestrict, on that form)
std::string node(int k) {
  std::string s = "n";
  s += std::to_string(k);
  return s;
}

// Busy nodes [0, busy) in jobs of job_nodes; the rest idle. Job ids "1", "2", ...
ClusterView make(const Args& a, int busy, int pending, int pending_nodes) {
  ClusterView v;
  v.taken_at = 1000;
  int id = 1;
  for (int at = 0; at < busy; at += a.job_nodes, ++id) {
    Job j;
    j.id = std::to_string(id);
    j.state = "RUNNING";
    for (int n = at; n < std::min(busy, at + a.job_nodes); ++n) j.node_list.push_back(node(n));
    j.nodes = static_cast<int>(j.node_list.size());
    j.name = std::string("job").append(j.id);
    v.jobs.push_back(std::move(j));
  }
  for (int p = 0; p < pending; ++p, ++id) {
    Job j;
    j.id = std::to_string(id);
    j.state = "PENDING";
    j.nodes = pending_nodes;
    j.name = std::string("wait").append(j.id);
    j.reason = "Resources";
    v.jobs.push_back(std::move(j));
  }
  for (int n = busy; n < a.nodes; ++n) v.idle.push_back(node(n));
  return v;
}

template <class F>
double per_call_ms(double min_s, F&& f, std::string& rule) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  long calls = 0;
  double s = 0;
  do {
    rule = f();
    ++calls;
    s = std::chrono::duration<double>(clock::now() - t0).count();
  } while (s < min_s);
  return 1e3 * s / static_cast<double>(calls);
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  JobState me;
  me.id = "1";
  for (int n = 0; n < a.job_nodes; ++n) me.rank_hosts.push_back(node(n));
  me.min_nodes = 1;
  const GrowthModel growth = [](int n) {
    Growth g;
    g.pays = true;
    g.saving_s = 10.0 * n;
    g.why = "bench";
    return g;
  };
  ArbiterOptions opt;
  // give: every node busy, `pending` jobs wait, the first for half the job's nodes.
  const ClusterView full = make(a, a.nodes, a.pending, a.job_nodes / 2);
  Ledger l;
  for (int p = 1; p < a.pending; ++p) {
    const std::string w = std::to_string(a.nodes / a.job_nodes + 1 + p);
    l.entries.push_back(LedgerEntry{LedgerEntry::Kind::Offer, "2", w, {}, 1, 0, 990, 2000});
  }
  std::string rule;
  const double give = per_call_ms(a.min_s, [&] { return arbitrate(full, l, me, growth, 1000, opt).rule; }, rule);
  const std::string give_rule = rule;
  // grow: a tenth of the nodes idle, nobody waiting, every job bidding.
  const ClusterView idle = make(a, a.nodes - a.nodes / 10, 0, 0);
  Ledger bids;
  for (const Job& j : idle.jobs)
    bids.entries.push_back(LedgerEntry{LedgerEntry::Kind::Bid, j.id, "", {}, a.nodes / 10, 1.0, 900, 2000});
  const double grow = per_call_ms(a.min_s, [&] { return arbitrate(idle, bids, me, growth, 1000, opt).rule; }, rule);
  std::printf("nodes %d  job_nodes %d  pending %d  give: %.3f ms/call (%s)  grow: %.3f ms/call (%s)\n", a.nodes,
              a.job_nodes, a.pending, give, give_rule.c_str(), grow, rule.c_str());
  return 0;
}
