// SPDX-License-Identifier: BSD-3-Clause
// Growth under a stock Slurm (no permit_job_expansion) by expander jobs. For every node the
// arbitration grants, the job submits one batch job of its own user: one node, the job's
// partition, account and QOS, named and commented after the job (squeue and sacct tie it to
// the job), its time limit no later than the job's own end. The expander runs one launch of
// the job's program on its node (the launcher's join: malleable-run --join), which
// joins the running job at its next remap point and leaves when the job gives the node
// back; the expander then ends and Slurm sees its node idle again. The job keeps its ID
// and never changes its own allocation.
//
// Pure: the commands' argument vectors, their answers read, and the expanders' book (which
// one is waiting, running, joined, late). The agent runs the commands (grow_by_join.cpp).
#pragma once

#include <string>
#include <vector>

#include "malleable/cluster/slurm.hpp"

namespace cluster::slurm {

// What an expander job is asked for. Its batch script (sbatch --wrap, the words quoted) runs
// the job's launcher: `launcher --join DIR --host NODE --id LAUNCH -n PROCS --while-job JOB`,
// built by the job directory's shared layout (job_dir::join_argv) (one launch of the job's
// program on the expander's node, joining the job; it ends when the job does).
struct ExpanderRequest {
  std::string job_id;     // the job that grows (digits)
  std::string node;       // the node it asks for, by name
  int procs = 1;          // processes of the launch there (1..4096)
  std::string partition;  // the job's (empty: Slurm's default)
  std::string account;    // the job's (empty: the user's default)
  std::string qos;        // the job's (empty: the default)
  long time_limit_min = 0;  // minutes (> 0); the job's time left, less a margin
  std::string launcher;     // the job's launcher (malleable-run; $MALLEABLE_RUN): an absolute path
  std::string dir;          // the job's directory (malleable-run --job-dir): an absolute path
  std::string launch;       // the launch's id ([A-Za-z0-9._-]): the job joins it by this name
};

// The expander's name and comment: what ties it to its job in squeue and sacct.
std::string expander_name(const std::string& job_id);     // "malleable-expand-<J>"
std::string expander_comment(const std::string& job_id);  // "malleable-expander-of=<J>"
// The job an expander of this name works for ("" when it is none: another job's name).
std::string expander_of(const std::string& name);

// `sbatch --parsable ...` for the request (its output into DIR/expanders/<job id>.out).
// Every field is checked: a job id of digits, names (node, partition, account, QOS, the
// launch) of [A-Za-z0-9._-] (not starting with '-'), absolute paths of plain characters;
// throws Error naming the field otherwise. Nothing reaches a shell: the vector is argv.
std::vector<std::string> expander_submit_argv(const ExpanderRequest& r);
// The job id that `sbatch --parsable` printed ("1234" or "1234;cluster"); throws Error.
std::string parse_sbatch_id(const std::string& out);

// `squeue -h -j J -o %L`: the time left, "[D-]HH:MM:SS", "MM:SS", "UNLIMITED", "NOT_SET";
// minutes (rounded down), -1 for none (UNLIMITED, NOT_SET: no limit); throws Error.
long parse_time_left_min(const std::string& s);
// An expander's time limit for a job with `left_min` minutes left, rounded up (-1: no limit):
// what is left, so the expander ends no earlier than the job (nothing gives a joined launch's
// node back before its expander ends: one that ended first took the job's processes there);
// 0 with `margin_min` minutes or less left (too little to start an expander and join it).
// With no limit, `cap_min`; never above it.
long expander_time_limit(long left_min, long margin_min, long cap_min);

// The expanders of one job, as the agent knows them.
struct Expander {
  enum class State {
    Pending,  // submitted, not running yet
    Running,  // Slurm runs it on its node: its launch starts and asks to join
    Joined,   // its launch is part of the job
    Leaving,  // the job gave its node back: its launch left, the expander ends
  } state = State::Pending;
  std::string id;      // Slurm's job id
  std::string node;    // its node
  std::string launch;  // its launch's id
  int procs = 0;
  double submitted_at = 0;  // seconds on the agent's clock
  double running_at = -1;
};
const char* to_string(Expander::State s);

// One line of `squeue -h -j ID1,ID2,... -o '%i|%T|%N'`: an expander's state in Slurm.
struct ExpanderSeen {
  std::string id;
  std::string state;  // PENDING, RUNNING, COMPLETING, ...
  std::string node;   // its node while it runs ("" pending)
};
// Lines "ID|STATE|NODES"; throws Error naming a line that is not (ids of digits, a state
// of capitals and '_', a node name or empty). An id listed twice is an error.
std::vector<ExpanderSeen> parse_expanders(const std::string& text);

// What to do with the expanders after Slurm was asked (`seen`: what squeue lists of them).
struct ExpanderUpdate {
  std::vector<std::string> cancel;    // expanders to cancel (pending past the deadline, or on
                                      // another node than the one asked for)
  std::vector<std::string> started;   // expanders that began running (their launches join)
  std::vector<std::string> vanished;  // expanders Slurm no longer lists (ended, or never
                                      // started and cancelled by someone else)
  std::vector<std::string> why;       // a line per cancelled or vanished expander
};
// Applies what Slurm said to `book` (states, the start time) and says what to do: an
// expander still pending `start_deadline_s` after its submission is cancelled; one
// running on another node than asked is cancelled; one Slurm no longer lists leaves the
// book. Joined and Leaving expanders change only when they vanish.
ExpanderUpdate update_expanders(std::vector<Expander>& book, const std::vector<ExpanderSeen>& seen, double now,
                                double start_deadline_s);

}  // namespace cluster::slurm
