// SPDX-License-Identifier: BSD-3-Clause
// malleable-run's state and its parts: the restart loop (loop.cpp), a launch that joins a
// job (join.cpp), the job directory's launches and agent (agent.cpp), Slurm (slurm_side.cpp).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli.hpp"
#include "core.hpp"
#include "files.hpp"
#include "node_range.hpp"
#include "proc.hpp"

namespace launcher {

// "malleable-run: <text>\n" on stdout (say) or stderr (warn), whole lines under one lock.
void say(const std::string& text);
void warn(const std::string& text);
void write_out(int fd, const std::string& bytes);

struct Run {
  Options o;
  Env env;
  std::string self;                  // this program (/proc/self/exe)
  std::vector<std::string> mpiexec;  // MALLEABLE_MPIEXEC's words
  // placement
  std::vector<std::string> hosts;
  int np = 4, ppn = 0;
  bool slurm = false;
  std::string cpus_per_node;
  // the program
  std::string prog;
  std::vector<std::string> args, extra;
  std::string dir;  // its --checkpoint DIR
  bool levels = false;
  std::string log;  // with --on-failure restart: the launch's output (its last 16 MiB)
  int p = 0, q = 0;
  std::string file;
  // the job directory (--job-dir)
  struct JobDir {
    std::string dir;                 // its real path, verified (trust.hpp)
    std::optional<TrustedDir> held;  // ... and held open
    pid_t server_pid = -1;
    std::thread agent;
    std::atomic<bool> agent_stop{false};
    std::mutex mu;                // guards started
    std::vector<pid_t> started;   // process groups of the launches started here
  } jobdir;
  std::atomic<pid_t> current{-1};  // the running mpiexec (a signal ends it)
};

// --join: one launch joining the job of o.join_dir; returns the status to exit with.
int join_launch(Run& r);
// --job-dir: the directory, the ompi-server and the order agent; and their end.
void job_dir_prepare(Run& r);
void job_dir_end(Run& r);
// The launches of a job's start (one per host after the first); their ids joined by ','.
std::string start_launches(Run& r, const std::string& run_id, int launch);
void end_launches(Run& r);

// Slurm (commands as argument vectors, their output read by cluster's parsers).
std::vector<std::string> slurm_hostnames(const std::string& list);
// The nodes job `job` holds now (squeue); throws Failure(status, "cannot read Slurm job J: ...").
std::vector<std::string> slurm_held(const std::string& job, int status);
std::string slurm_node_state(const std::string& host);  // sinfo %t, "" when unknown
// Gives every node but `keep` back; throws Failure(4, ...) when Slurm did not.
void slurm_give_back(const std::string& job, const std::vector<std::string>& held, const std::vector<std::string>& keep);
// The node range job `job` asked for, from its batch script (scontrol write batch_script)
// and its command line (sacct's SubmitLine); Bad naming what failed when neither was read.
cluster::slurm::JobRange slurm_node_range(const std::string& job);
// No job expansion: the job script submitted again on `hosts`; prints what it did.
void submit_successor(Run& r, const std::string& hosts);

// The restart loop; returns the status to exit with.
int run_loop(Run& r);

}  // namespace launcher
