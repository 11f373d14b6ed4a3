// SPDX-License-Identifier: BSD-3-Clause
// --extend-limits at a job's start, pure: a job of the recipe that Slurm started below the
// top of the node range it asked for (sbatch -N MIN-MAX) has its TimeLimit raised by the
// simulator's rule at a start below the request (limits::raise_at_start, the function
// Cluster::limit_on calls), once per start. Every input is Slurm's: the job's record
// (`scontrol show job -o`: StartTime, NumNodes, TimeLimit, checked against what squeue
// showed at the job's first request, the daemon's book) and the range it was submitted with
// (its batch script's #SBATCH lines and sacct's SubmitLine, cluster's node-range reader).
// The job's model (its request's growth table) decides only how much, within the cap of
// perfect scaling from the range's top. The daemon's shell runs the commands (StartRead);
// decide_start_limit judges their answers.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "malleable/cluster/slurm.hpp"
#include "malleable/cluster/time_limit.hpp"

namespace cluster::arbiter {

// The commands for job `job` and their answers, in this order.
struct StartRead {
  std::string job;
  slurm::Command record;  // scontrol show job -o J
  slurm::Command script;  // scontrol write batch_script J -
  slurm::Command submit;  // sacct -n -X -P -j J -o SubmitLine
};
slurm::Argv start_record_command(const std::string& job);
slurm::Argv start_script_command(const std::string& job);
slurm::Argv start_submit_command(const std::string& job);

// What the daemon knows of the job besides the answers: squeue's record at its first request
// (the book: start, limit, nodes) and its last request's model.
struct StartFacts {
  std::string job;
  limits::LimitBook book;
  std::map<int, slurm::Growth> growth;  // the request's table (K extra nodes)
  int rank_nodes = 0;                   // the nodes its ranks ran on at that request
  bool last_try = false;                // sacct's SubmitLine not there yet: decide without it
};

struct StartDecision {
  enum class Kind { Raise, None, Refused, Again } kind = Kind::None;
  std::optional<limits::LimitRaise> raise;  // Raise: the rule's figures and minutes
  std::string why;                          // None, Refused, Again: one line; Raise: the raise's
};

// Bounds on what is read: the record's first line at most kMaxRecord bytes, a field's value
// at most kMaxField; more is refused (no extension).
inline constexpr std::size_t kMaxRecord = 64u << 10;
inline constexpr std::size_t kMaxField = 4096;
// Views that may pass waiting for sacct's SubmitLine (a job just started may not be in
// slurmdbd's records yet: the launcher waits up to 10 s) or for an answer of scontrol's
// before the batch script alone decides (a record never read: refused).
inline constexpr int kStartTries = 30;

StartDecision decide_start_limit(const StartFacts& f, const StartRead& r);

}  // namespace cluster::arbiter
