// SPDX-License-Identifier: BSD-3-Clause
// The job agent's state, its helpers (agent_state.hpp): the log, the clocks, the settlement
// of the shared ledger's or the arbiter's entries, the back-off after a refusal, what Slurm
// refuses after a resize, the options and the growth model of one decision; and the steps
// that stay or grow.
#include "agent/agent_state.hpp"

#include "arbiter/client.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace cluster::slurm::detail {

double AgentState::wall() const {
  if (opt.wall_clock) return opt.wall_clock();
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

double AgentState::now() const {
  if (opt.clock) return opt.clock();
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void AgentState::note(std::string line) {
  if (opt.verbose) {
    std::printf("[slurm] %s\n", escaped(line).c_str());  // what Slurm or the arbiter said: one line, no control bytes
    std::fflush(stdout);
  }
  log.push_back(std::move(line));
}

// Slurm 22.05 without an accounting database answers every update of a job that merged
// an expansion with "the DB index is being set, try again" for as long as it runs, and
// does not perform a NodeList update: such a job gives no node back any more (said once).
void AgentState::refuses_release(const std::string& why) {
  if (no_release || why.find("DB index is being set") == std::string::npos) return;
  no_release = true;
  note("Slurm refuses to shrink this job's allocation after its expansion (no accounting database): it gives no "
       "node back from now on");
}

// After a change of the job's size that Slurm accepted: without accounting storage it
// will refuse the next one, so the job gives nothing back from now on (said once) rather
// than end processes for nodes Slurm keeps.
void AgentState::resized_once() {
  if (!opt.one_update || no_release) return;
  no_release = true;
  note("Slurm keeps no accounting (AccountingStorageType=none) and refuses a second change of a job's size: this "
       "job gives no node back from now on");
}

void AgentState::settle_ledger(bool promises_too) {
  if (asks_arbiter()) {
    arbiter::Request q;
    q.kind = arbiter::Request::Kind::Settle;
    q.job.id = client->job_id();
    q.promises_too = promises_too;
    try {
      const arbiter::Reply r =
          arbiter::ask(arbiter::ClientOptions{opt.arbiter.socket, opt.arbiter.munge_socket, opt.arbiter.timeout_s, opt.arbiter.user}, q);
      if (!r.ok) note("the arbiter refused to settle: " + r.error);
    } catch (const Error& e) {
      // Its entries expire on their own (claim_ttl_s): nothing is held for good.
      note(std::string("the arbiter did not take the settlement: ") + e.what());
    }
    return;
  }
  if (!shared) return;
  try {
    shared->update([&](const Ledger& l) { return settle(l, client->job_id(), promises_too); });
  } catch (const Error& e) {
    note(std::string("the shared ledger failed: ") + e.what());
  }
}

// An acquisition or an expander refused, late or silent: no node is asked for again
// before the back-off (the first refused.backoff_s, doubling up to refused.backoff_max_s).
void AgentState::back_off() {
  backoff = backoff <= 0 ? opt.refused.backoff_s : std::min(2 * backoff, opt.refused.backoff_max_s);
  no_acquire_until = now() + backoff;
}

Options AgentState::bounded(int floor_nodes, int held) const {
  Options o = opt;
  if (o.max_nodes <= 0) o.max_nodes = most_nodes;
  if (no_release || !o.levers.give_back) o.min_nodes = std::max(o.min_nodes, floor_nodes);
  if (!o.levers.grow) o.max_nodes = std::max(1, std::min(o.max_nodes, held));
  return o;
}

// Without a growth model in the moment, growth pays (nothing predicts otherwise: the job
// grows when nodes are idle).
GrowthModel AgentState::growth_of(const Moment& m, int per_node) const {
  if (!m.growth)
    return [](int) {
      Growth g;
      g.pays = true;
      g.why = "no prediction";
      return g;
    };
  return [&m, per_node](int n) { return m.growth(n, per_node); };
}

Step stay(std::string reason) {
  Step s;
  s.reason = std::move(reason);
  return s;
}

Step expansion(const Moment& m, const Plan& p, const std::vector<std::string>& nodes, int per_node, std::string reason) {
  Step g;
  g.kind = Step::Kind::Grow;
  g.procs = m.world_size + per_node * static_cast<int>(nodes.size());
  for (const auto& h : nodes) g.hosts.push_back(Step::Host{h, per_node});
  g.reason = std::move(reason);
  g.predicted_iteration = p.predicted_iteration;
  g.predicted_resize = p.predicted_resize;
  g.measured_iteration = p.measured_iteration;
  g.prediction = p.why;
  return g;
}

}  // namespace cluster::slurm::detail
