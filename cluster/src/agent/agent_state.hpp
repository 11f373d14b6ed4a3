// SPDX-License-Identifier: BSD-3-Clause
// Internal to agent/, the job agent's own state: what JobAgent (job_agent.hpp) carries from
// one remap point to the next, plain data with the few helpers every part of its work uses
// (agent_state.cpp: the log, the clocks, the ledger's settlement, the back-off, the
// options of one decision). JobAgent holds one and its methods (job_agent.cpp) hand it to
// the operations over it, each a type of its own in one file: growing by joining
// (GrowByJoin, grow_by_join.cpp) and the plans among many jobs (ManyJobs, many_jobs.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "malleable/cluster/job_agent.hpp"

namespace cluster::slurm::detail {

struct AgentState {
  std::unique_ptr<Client> client;
  Options opt;
  std::vector<std::string> log;           // what happened at each remap point that asked Slurm
  std::vector<std::string> acquired;      // nodes acquired for the pending expansion
  std::vector<std::string> pending_keep;  // nodes the job keeps after the pending shrink
  std::vector<std::string> failed_grant;  // acquired for an expansion that failed: returned
                                          // at the next decision (a restart may use them first)
  int most_nodes = 0;
  double no_acquire_until = -1e30;  // refused.backoff: no request for nodes before this
  double backoff = 0;               // the current wait after a refusal (0: none refused)
  std::string last_none;            // the last reason for staying (printed once while it holds)
  // When Slurm was last asked, the interval of this round (jittered with many jobs), the
  // rounds, and the last arbitration's wall time (a job asked only at long remap points
  // keeps its bid alive past the gap: ManyJobs::bid_lifetime).
  struct Pace {
    double last_ask = -1e30;
    double interval = 0;
    std::uint64_t round = 0;
    double last_plan_wall = -1e30;
  } pace;
  // Nodes processes were placed on (the launch, the last completed expansion), checked
  // at the next decision; the held ones that ran none of them are barred from growth.
  // The launcher: the nodes it runs a daemon on (the launch's hosts, or the job's nodes
  // at the first decision; each completed expansion's hosts added), its own node, whether
  // the limit of Options::launch.late_daemons was said.
  struct Placement {
    std::vector<std::string> placed;
    std::vector<std::string> barred;
    std::vector<std::string> daemons;
    std::string node;
    bool known = false;
    bool said = false;
  } place;
  std::unique_ptr<SharedDir> shared;  // many jobs: the shared directory
  bool configured = false;
  bool no_release = false;  // Slurm refuses every NodeList update of this job (refuses_release)
  // The arbiter daemon: when it is unreachable the job keeps its size, says so once, and
  // asks again after a back-off (doubled up to a minute).
  struct ArbiterLink {
    double retry_at = -1e30;
    double backoff = 0;
    std::string down;  // why it gave no answer last (said once)
  } link;
  // Growth by expander jobs (GrowByJoin, expander.hpp): the book of this job's expanders,
  // followed at every remap point; submitted for the nodes a plan acquires; their launches
  // join once they wait; cancelled when late, refused or at the job's end.
  struct Expanders {
    std::vector<Expander> book;
    unsigned seq = 0;      // the last launch id's number
    double asked = -1e30;  // when Slurm was last asked about them
  } exp;

  AgentState(std::unique_ptr<Client> c, Options o) : client(std::move(c)), opt(std::move(o)) {
    pace.interval = opt.interval_s;
    place.placed = opt.launch.on;
  }
  bool asks_arbiter() const { return !opt.arbiter.socket.empty(); }
  bool grows_by_join() const { return !opt.launch.join.dir.empty(); }
  void note(std::string line);  // log, and stdout when verbose
  double now() const;           // the agent's clock (Options::clock, else steady)
  double wall() const;          // the wall clock (Options::wall_clock, else the system's)
  // The shared ledger's or the arbiter's entries of this job settled (its promises too).
  void settle_ledger(bool promises_too);
  void back_off();  // no growth before the refusal back-off (doubled up to its maximum)
  void refuses_release(const std::string& why);
  void resized_once();
  // The options of one decision: max_nodes 0 reads as the most nodes the job ever held;
  // `floor_nodes` becomes the floor while Slurm refuses updates or give-backs are off,
  // `held` the ceiling while growth is off.
  Options bounded(int floor_nodes, int held) const;
  // The moment's growth model at this job's processes per node (it refers to `m`).
  GrowthModel growth_of(const Moment& m, int per_node) const;
};

// A step that stays, for `reason`.
Step stay(std::string reason);
// The growth onto `nodes` (held or just granted), per_node processes on each, with the
// plan's prediction.
Step expansion(const Moment& m, const Plan& p, const std::vector<std::string>& nodes, int per_node, std::string reason);

// The expander book, read: the nodes of expanders running or joined; those nodes added to
// the job's own record (Slurm lists them under the expanders, not under the job); whether
// any is submitted with its launch not joined yet.
std::vector<std::string> expander_nodes(const AgentState::Expanders& x);
void add_expander_nodes(const AgentState::Expanders& x, Job& mine);
bool expanders_pending(const AgentState::Expanders& x);

// Growth by expander jobs (grow_by_join.cpp; Options::launch.join): the expanders submitted
// for the nodes a plan acquires, followed at every remap point, their launches joined once
// they wait, and every expander that is late, refused or left over cancelled.
struct GrowByJoin {
  AgentState& a;
  Step follow(const Moment& m, double t);
  Step grow(const Moment& m, Plan p, int per_node, double t);
  Step submit(const Plan& p, int per_node);
  void cancel(const std::vector<std::string>& ids, const std::string& why);
  void cancel_unjoined(const std::string& why);  // every one whose launch has not joined
  void completed(const Step& s, bool ok);
};

// The plans among many jobs (many_jobs.cpp): from the shared ledger (arbitrate() under its
// lock) or from the arbiter daemon. False: nothing to do (the reason noted).
struct ManyJobs {
  AgentState& a;
  bool plan_shared(const Moment& m, int per_node, Snapshot& s, Plan& p, bool& by_restart);
  bool plan_arbiter(const Moment& m, int per_node, Snapshot& s, Plan& p, bool& by_restart);
  double bid_lifetime(double wall_now);  // a bid's lifetime, at least twice the gap since the last plan
};

}  // namespace cluster::slurm::detail
