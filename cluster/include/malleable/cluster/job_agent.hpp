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

namespace detail {
struct AgentState;  // what the agent carries between remap points (src/agent/agent_state.hpp)
}

class JobAgent {
 public:
  JobAgent(std::unique_ptr<Client> client, Options o);
  ~JobAgent();
  Step decide(const Moment& m);
  // The session says how the step went (`ok`: the processes moved as the step said).
  void completed(const Step& s, bool ok);
  // What happened at each remap point that asked Slurm (for the report and tests).
  const std::vector<std::string>& log() const;
  const Options& options() const;

 private:
  std::unique_ptr<detail::AgentState> s_;
};

}  // namespace cluster::slurm
