// SPDX-License-Identifier: BSD-3-Clause
// One job's side towards Slurm at its remap points: asks Slurm (alone, through the shared
// directory, or through the arbiter daemon) at most every interval, takes the plan
// (decide() or arbitrate()) and turns it into a Step: stay, shrink off these nodes, or
// grow onto these nodes (held ones, ones Slurm just granted, or by restart into a new
// allocation). After a completed shrink it returns the nodes to Slurm; after a failed
// expansion it gives the acquired nodes back at the next remap point (so that a driver
// falling back to a resize by restart can relaunch onto them first).
//
// Plain C++ over plain data: it knows nothing of MPI or of the session. The session's
// Policy (resize's SlurmPolicy) hands it a Moment and turns the Step into its Decision.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "malleable/cluster/arbitration.hpp"
#include "malleable/cluster/expander.hpp"
#include "malleable/cluster/slurm.hpp"

namespace cluster::slurm {

// The job at one remap point.
struct Moment {
  std::vector<std::string> rank_hosts;  // node of every rank now (rank 0's first)
  int world_size = 0;                   // processes now
  // What growing by `extra_nodes` with `per_node` processes each would bring (< 0: a
  // give-back of that many nodes); empty: "no prediction" (growth pays when idle).
  std::function<Growth(int extra_nodes, int per_node)> growth;
  // Launches waiting to join the job now (growing by joining: the job's directory lists
  // them): its expander jobs' launches among them join at this remap point.
  struct Launch {
    std::string id, host;
    int procs = 0;
  };
  std::vector<Launch> waiting = {};
};

// What the job does now.
struct Step {
  enum class Kind { Stay, Shrink, Grow } kind = Kind::Stay;
  struct Host {
    std::string name;
    int count = 0;  // Grow: processes to start there; Shrink: 0 (every process there ends)
  };
  std::vector<Host> hosts;
  int procs = 0;                // processes after the step
  bool by_restart = false;      // Grow: by restart onto the enlarged allocation (a spawn cannot reach it)
  bool new_allocation = false;  // Grow: by restart into a new, larger allocation (no job expansion)
  std::string reason;           // "slurm: <rule>: <why>"
  // Grow by joining: the launches that join (their ids; the expander jobs' launches waiting
  // now), one per host of `hosts`. Empty: the session starts the processes (spawn, or the
  // launches it orders from its launcher).
  std::vector<std::string> launches = {};
  // Grow after a prediction: the iteration time on the bigger grid as measured there
  // before, the predicted resize time, the iteration time now, and the prediction's words.
  double predicted_iteration = -1, predicted_resize = -1, measured_iteration = -1;
  std::string prediction;
};

class JobAgent {
 public:
  JobAgent(std::unique_ptr<Client> client, Options o);
  ~JobAgent();
  Step decide(const Moment& m);
  // The session says how the step went (`ok`: the processes moved as the step said).
  void completed(const Step& s, bool ok);
  // What happened at each remap point that asked Slurm (for the report and tests).
  const std::vector<std::string>& log() const { return log_; }
  const Options& options() const { return opt_; }

 private:
  std::unique_ptr<Client> client_;
  Options opt_;
  std::vector<std::string> acquired_;      // nodes acquired for the pending expansion
  std::vector<std::string> pending_keep_;  // nodes the job keeps after the pending shrink
  std::vector<std::string> failed_grant_;  // acquired for an expansion that failed: returned
                                           // at the next decide() (a restart may use them first)
  void return_failed_grant();
  int most_nodes_ = 0;
  double last_ask_ = -1e30;
  double no_acquire_until_ = -1e30;  // refused.backoff: no request for nodes before this
  double backoff_ = 0;               // the current wait after a refusal (0: none refused)
  double now() const;
  std::string last_none_;  // the last reason for staying (printed once while it holds)
  std::vector<std::string> log_;
  void note(std::string line);  // log_, and stdout when verbose
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
  } place_;
  void know_daemons(const std::vector<std::string>& ranks, const Snapshot& s);
  // A job no launcher relaunches (no MALLEABLE_RUN_HOSTS) grows only where its launcher
  // can spawn: the plan without the other nodes; false when nothing is left (said once).
  bool within_launcher(Plan& p);
  bool guard_placement(const std::vector<std::string>& ranks, const Snapshot& s, Plan& p);
  // Many jobs: the shared directory, the interval of this round (jittered), the rounds.
  std::unique_ptr<SharedDir> shared_;
  bool configured_ = false;
  bool no_release_ = false;  // Slurm refuses every NodeList update of this job (see release)
  double interval_now_ = 0;
  double last_plan_wall_ = -1e30;  // the last arbitration: a job asked only at long remap
                                   // points keeps its bid alive past the gap (bid_lifetime)
  std::uint64_t round_ = 0;
  double wall() const;
  // The arbiter daemon: when it is unreachable the job keeps its size, says so once, and
  // asks again after a back-off (doubled up to a minute).
  struct ArbiterLink {
    double retry_at = -1e30;
    double backoff = 0;
    std::string down;  // why it gave no answer last (said once)
  } link_;
  GrowthModel growth_of(const Moment& m, int per_node) const;
  // The options of one decision: max_nodes 0 reads as the most nodes the job ever held;
  // `floor_nodes` becomes the floor while Slurm refuses updates or give-backs are off,
  // `held` the ceiling while growth is off.
  Options bounded(int floor_nodes, int held) const;
  double bid_lifetime(double wall_now);  // a bid's lifetime, at least twice the gap since the last plan
  bool plan_arbiter(const Moment& m, int per_node, Snapshot& s, Plan& p, bool& by_restart);
  bool asks_arbiter() const { return !opt_.arbiter.socket.empty(); }
  bool plan_shared(const Moment& m, int per_node, Snapshot& s, Plan& p, bool& by_restart);
  bool plan_alone(const Moment& m, int per_node, Snapshot& s, Plan& p);  // no arbiter, no shared ledger
  void settle_ledger(bool promises_too);
  void refuses_release(const std::string& why);
  void resized_once();
  void start_once();
  bool refresh_own_nodes(Snapshot& s, Plan& p);
  Step give_back(const Moment& m, const Snapshot& s, const Plan& p, int per_node, double t);
  // Growth by expander jobs (grow_by_join.cpp, expanders.hpp): the book of this job's
  // expanders, followed at every remap point; submitted for the nodes a plan acquires;
  // their launches join once they wait; cancelled when late, refused or at the job's end.
  struct Expanders {
    std::vector<Expander> book;
    unsigned seq = 0;        // the last launch id's number
    double asked = -1e30;    // when Slurm was last asked about them
  } exp_;
  bool grows_by_join() const { return !opt_.launch.join.dir.empty(); }
  Step follow_expanders(const Moment& m, double t);
  Step grow_by_join(const Moment& m, Plan p, int per_node, double t);
  Step submit_expanders(const Plan& p, int per_node);
  void cancel_expanders(const std::vector<std::string>& ids, const std::string& why);
  void expanders_completed(const Step& s, bool ok);
  std::vector<std::string> expander_nodes() const;  // nodes of expanders running or joined
  void add_expander_nodes(Job& mine) const;          // ... added to the job's own record
  bool expanders_pending() const;                   // submitted, their launches not joined yet
  void back_off();                                  // no growth before the refusal back-off
  Step grow(const Moment& m, const Plan& p, int per_node, double t, bool by_restart);
};

}  // namespace cluster::slurm
