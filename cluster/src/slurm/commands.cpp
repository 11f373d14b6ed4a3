// SPDX-License-Identifier: BSD-3-Clause
// Slurm's commands for one job (Client): reading the job, the idle nodes and the waiting
// jobs, giving nodes back, and acquiring nodes by Slurm 22.05's job expansion. Every
// command is checked; its output is parsed by the pure readers (parse.cpp, order.cpp).
#include <algorithm>
#include <cctype>
#include <chrono>
#include <thread>

#include "malleable/cluster/slurm.hpp"
#include "slurm/text.hpp"

namespace cluster::slurm {

namespace {
bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}
}  // namespace

Client::Client(Runner run, std::string job_id) : run_(std::move(run)), job_(std::move(job_id)) {
  if (job_.empty()) throw Error("slurm policy: not inside a Slurm job ($SLURM_JOB_ID is unset)");
  if (!all_digits(job_)) throw Error("slurm policy: job id '" + job_ + "' is not a number");
}

Command Client::run(const Argv& argv, const std::string& what) {
  Command c = run_(argv);
  // Slurm answers some updates with "try again in a bit" while it records the job.
  for (int k = 0; k < 10 && c.status != 0 && c.said().find("try again") != std::string::npos; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    c = run_(argv);
  }
  if (c.status != 0)
    throw Error(what + " failed (`" + command_line(argv) + "` " +
                (c.status < 0 ? std::string("did not finish") : "exited " + std::to_string(c.status)) + ": " +
                escaped(c.said().substr(0, 2000)) + ")");
  return c;
}

// The job's own record: squeue's (kSqueueFormat), not `scontrol show job`, whose
// Key=Value words follow the job's name: a name holding " NodeList=..." would be read as
// the job's nodes.
Job Client::record() {
  const JobList l = read_squeue(run({"squeue", "-h", "-j", job_, "-o", kSqueueFormat}, "reading the job").out);
  if (const auto bad = l.unreadable.find(job_); bad != l.unreadable.end())
    throw Error("reading the job: squeue's record of job " + job_ + " cannot be read: " + bad->second);
  for (const Job& j : l.jobs)
    if (j.id == job_) return j;
  throw Error("reading the job: squeue does not list job " + job_);
}

std::vector<std::string> Client::held() { return record().node_list; }

Snapshot Client::snapshot() {
  Snapshot s;
  s.mine = record();
  const std::string sinfo = run(kIdleCommand, "reading idle nodes").out;
  s.idle = idle_nodes(sinfo);
  s.partitions = parse_partitions(sinfo);
  // with name, reason and comment: a waiting malleable job's comment names its minimum
  // (parse_squeue), which is what it waits for; Slurm's own %D estimate may be its
  // maximum. Priority, submit time, partition and the backfill plan: Slurm's order.
  // (a waiting job squeue's record of which cannot be read is not waited for)
  std::vector<Job> waiting =
      read_squeue(run({"squeue", "-h", "-t", "PD", "--sort=V", "-o", kSqueueFormat}, "reading waiting jobs").out).jobs;
  sort_slurm_order(waiting);
  for (Job& j : waiting)
    if (j.id != job_ && competes(s.partitions, s.mine, j.partition)) s.pending.push_back(std::move(j));
  return s;
}

void Client::release(const std::vector<std::string>& keep) {
  if (keep.empty()) throw Error("slurm: refusing to release every node of the job");
  check_names(keep, "giving nodes back: the nodes to keep");
  run({"scontrol", "update", "JobId=" + job_, "NodeList=" + compress_hostlist(keep)}, "giving nodes back");
  auto now = held();
  std::sort(now.begin(), now.end());
  auto want = keep;
  std::sort(want.begin(), want.end());
  if (now != want)
    throw Error("giving nodes back: Slurm still lists " + compress_hostlist(now) + " for job " + job_ +
                ", expected " + compress_hostlist(keep));
}

std::vector<std::string> Client::acquire(int nodes) { return acquire_with(nodes, {}); }

std::vector<std::string> Client::acquire(const std::vector<std::string>& nodes) {
  if (nodes.empty()) throw Error("slurm: asking for no node");
  check_names(nodes, "asking Slurm for nodes");
  return acquire_with(static_cast<int>(nodes.size()), {"-w", compress_hostlist(nodes)});
}

std::vector<std::string> Client::acquire_with(int nodes, const std::vector<std::string>& which) {
  if (nodes <= 0 || nodes > 65536) throw Error("slurm: asking for " + std::to_string(nodes) + " nodes");
  const Job me = record();
  const auto& before = me.node_list;
  // Slurm 22.05's expansion: a step-less allocation that depends on this job, handed over;
  // in the job's partition and QOS (salloc's defaults are the default ones; another QOS is
  // refused, "Job dependency problem", seen with slurmdbd on the emulated cluster).
  // (a partition or QOS that is not a plain name is left out: Slurm's default then)
  Argv salloc{"salloc", "-N", std::to_string(nodes)};
  salloc.insert(salloc.end(), which.begin(), which.end());
  for (const char* a : {"--no-shell", "--immediate=10", "-J", "malleable-expand"}) salloc.push_back(a);
  salloc.push_back("--dependency=expand:" + job_);
  if (valid_name(me.partition)) salloc.insert(salloc.end(), {"-p", me.partition});
  if (valid_name(me.qos)) salloc.push_back("--qos=" + me.qos);
  const Command got = run(salloc, "asking Slurm for " + std::to_string(nodes) + " node(s)");
  const std::string said = got.out + "\n" + got.err;  // salloc says it on stderr
  const auto at = said.find("Granted job allocation ");
  if (at == std::string::npos) throw Error("asking Slurm for nodes: no allocation in '" + escaped(got.said().substr(0, 500)) + "'");
  std::string other;
  for (std::size_t k = at + 23; k < said.size() && other.size() < 20 && std::isdigit(static_cast<unsigned char>(said[k])); ++k)
    other += said[k];
  if (other.empty()) throw Error("asking Slurm for nodes: no job id in '" + escaped(got.said().substr(0, 500)) + "'");
  const auto gained = [&] {
    std::vector<std::string> added;
    for (const auto& h : held())
      if (std::find(before.begin(), before.end(), h) == before.end()) added.push_back(h);
    return added;
  };
  try {
    run({"scontrol", "update", "JobId=" + other, "NumNodes=0"}, "handing the new allocation over");
  } catch (const Error&) {
    run_({"scancel", other});
    throw;
  }
  // Without an accounting database Slurm 22.05 answers this update with "the DB index is
  // being set, try again" for as long as the job runs, yet performs it: what counts is
  // whether the job holds the nodes afterwards.
  const Argv merge_argv{"scontrol", "update", "JobId=" + job_, "NumNodes=ALL"};
  const Command merge = run_(merge_argv);
  std::vector<std::string> added = gained();
  for (int k = 0; k < 10 && static_cast<int>(added.size()) < nodes; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    added = gained();
  }
  if (static_cast<int>(added.size()) != nodes) {
    run_({"scancel", other});
    throw Error("merging " + std::to_string(nodes) + " new node(s) into job " + job_ + " failed: the job gained " +
                std::to_string(added.size()) + " (`" + command_line(merge_argv) + "` said: " + escaped(merge.said().substr(0, 500)) + ")");
  }
  return added;
}

}  // namespace cluster::slurm
