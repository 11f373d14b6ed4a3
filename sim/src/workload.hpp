// SPDX-License-Identifier: BSD-3-Clause
// The cluster simulator's jobs: the workload JSON that
// scripts/bench/workload/generate.py writes, read into plain data, and the job model.
// A job runs `iterations` equal iterations; on n nodes one takes
//   (work_node_s / iterations) * (s + (1 - s) / n + c * log2(n))
// seconds, s its serial fraction and c its communication term (comm_fraction; 0: Amdahl's
// law), so its run time on n nodes is work_node_s * (s + (1 - s) / n + c * log2(n)).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace clustersim {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Job {
  std::string id;
  double submit_s = 0;
  int nodes = 1;      // requested (rigid) size: the size it starts with
  int min_nodes = 1;  // malleable range (rigid: min = max = nodes)
  int max_nodes = 1;
  bool malleable = false;
  std::string program = "sleep";
  double work_node_s = 0;
  double serial_fraction = 0;
  double comm_fraction = 0;  // c above: what each doubling of the nodes adds (0: Amdahl)
  int iterations = 1;
  // The time limit the job was submitted with (sbatch --time), which Slurm's backfilling
  // takes as its run time estimate; 0: none, the estimate is the model's exact run time.
  double limit_s = 0;
  // The limit once it runs, when the runner lowered it at the start (a start-full job's
  // floor is its start size, so its limit comes down to that size's); 0: limit_s.
  double run_limit_s = 0;
  // The user who submitted it (a trace's user id; -1: unknown): per-user limits
  // (Cluster::set_user_limits) count a user's running jobs and nodes.
  long user = -1;

  double iteration_s(int n) const;  // one iteration on n nodes
  // The limit Slurm ends the job at once it runs (run_limit_s, else limit_s; 0: none).
  double kill_limit_s() const { return run_limit_s > 0 ? run_limit_s : limit_s; }
  double runtime_s(int n) const;    // the whole job on n nodes
};

struct Workload {
  std::string model;
  long seed = 0;
  int nodes = 0;  // the machine's nodes
  double malleable_share = 0;
  double time_scale = 1;
  std::vector<Job> jobs;  // in submission order
};

// Parses and checks the JSON text (throws Error naming the job and field at fault):
// sizes 1 <= min <= nodes <= max <= machine, work > 0, 0 <= serial fraction < 1,
// comm_fraction >= 0 (optional),
// iterations >= 1, limit_s >= 0 (optional), user >= 0 (optional), submissions in non-decreasing order. `machine` > 0 overrides the file's
// node count (a workload simulated on another machine size; sizes still checked).
Workload parse_workload(const std::string& json_text, int machine = 0);

// The workload as the JSON text parse_workload reads (generate.py's format): a trace's jobs
// handed to the emulated runner (scripts/bench/workload/trace_slice.py) keep the
// simulator's reading and cleaning of the trace. parse_workload(workload_json(w)) == w.
std::string workload_json(const Workload& w);

}  // namespace clustersim
