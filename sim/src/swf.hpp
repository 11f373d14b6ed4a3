// SPDX-License-Identifier: BSD-3-Clause
// Real workloads for the cluster simulator: the Parallel Workloads Archive's Standard
// Workload Format (Feitelson, Tsafrir & Krakov 2014; header version 2.2,
// https://www.cs.huji.ac.il/labs/parallel/workload/swf.html), read into plain data, cleaned
// and turned into the simulator's jobs. Pure: text in, data out.
//
// A record is one line of 18 whitespace-separated numbers (-1: unknown):
//   1 job  2 submit  3 wait  4 run time  5 allocated processors  6 average CPU time
//   7 used memory  8 requested processors  9 requested time  10 requested memory
//   11 status  12 user  13 group  14 executable  15 queue  16 partition
//   17 preceding job  18 think time
// Header lines start with ';' ("; MaxNodes: 128"); the known keys are kept.
#pragma once

#include <string>
#include <vector>

#include "workload.hpp"

namespace clustersim {

struct SwfRecord {
  int line = 0;  // 1-based line of the text
  long job = 0;
  double submit_s = 0, wait_s = -1, run_s = -1;
  long alloc_procs = -1;
  double avg_cpu_s = -1, used_mem_kb = -1;
  long req_procs = -1;
  double req_time_s = -1, req_mem_kb = -1;
  int status = -1;
  long user = -1, group = -1, executable = -1, queue = -1, partition = -1, preceding = -1;
  double think_s = -1;
  // Not in the format; a sacct log's (sacct.hpp): its id ("j123_4"; empty: "j<job>") and
  // its allocated and requested nodes (-1: unknown, an SWF record's).
  std::string id;
  long alloc_nodes = -1, req_nodes = -1;
};

struct SwfHeader {
  std::string version, computer, installation, acknowledge, information, conversion;
  long unix_start = -1;  // UnixStartTime (-1: none)
  long time_zone = 0;    // TimeZone: seconds east of UTC, no daylight saving (0: none)
  std::string time_zone_name;  // TimeZoneString, e.g. Europe/Stockholm (empty: none)
  long max_nodes = -1, max_procs = -1;
  std::vector<std::string> notes;  // every other header line, verbatim (without ';')
};

struct SwfTrace {
  SwfHeader header;
  std::vector<SwfRecord> records;  // in file order
};

// Parses the text. A malformed record (not 18 fields, a field that is not a number, a
// value below -1, a submit time below 0, a status outside -1..5) throws Error naming the
// line, the field's number and name: "line 7, field 4 (run time): ...".
SwfTrace parse_swf(const std::string& text);

// The usual cleaning, every rule counted:
//   cancelled: status 5 and no run time (run <= 0): the job never ran
//   no_run_time: any other record with run time <= 0 (or -1)
//   zero_procs: neither allocated nor requested processors (> 0), nor nodes named
//   too_large: more nodes than the machine has
//   implausible: a run time or requested time past ten years (kMaxPlausibleS): no machine
//                ran a job that long; a log's error, not a job
// A record's nodes: ceil(processors / cores_per_node), processors its allocated ones, else
// its requested ones; a record that names its nodes (a sacct log's NNodes, else ReqNodes)
// counts those unless nodes_from_procs.
// Records without a run time but with an average CPU time (> 0) are counted apart
// (cpu_only, and their load cpu_only_proc_s: CPU time x processors) whether dropped or
// kept: with cpu_as_run they are kept, their CPU time per processor as their run time (a
// lower bound of it: a process runs at least as long as it computes).
// The machine: machine_nodes when given; else the header's MaxNodes, or MaxProcs /
// cores_per_node. A header with both whose MaxProcs / cores_per_node is not its MaxNodes
// is refused (Error naming both): the processors per node would contradict the machine's
// own count, and the offered load change without a word.
struct SwfCleaning {
  int cores_per_node = 1;  // processors per node: nodes = ceil(processors / cores_per_node)
  int machine_nodes = 0;   // 0: from the header (above)
  std::size_t first = 0;   // a window: skip this many kept jobs,
  std::size_t count = 0;   // and keep at most this many (0: all)
  bool cpu_as_run = false;
  bool nodes_from_procs = false;  // a record's nodes from its processors even where it names them
};
inline constexpr double kMaxPlausibleS = 10 * 365.25 * 86400;  // ten years
struct SwfCounts {
  std::size_t records = 0, kept = 0, cancelled = 0, no_run_time = 0, zero_procs = 0, too_large = 0,
              outside_window = 0, cpu_only = 0, implausible = 0;
  double cpu_only_proc_s = 0;
};
struct TraceJob {
  std::string id;     // "j<job number>"
  double submit_s = 0;  // seconds after the window's first submission
  double wait_s = -1;   // recorded (-1: not in the trace)
  double run_s = 0;
  int nodes = 1;
  double requested_s = -1;  // the user's requested time (-1: none)
  long user = -1, queue = -1, partition = -1;  // as recorded (-1: unknown)
  int status = -1;
};
struct TraceJobs {
  int machine_nodes = 0;
  double origin_s = 0;  // the window's first submission, seconds after the log's UnixStartTime
  std::vector<TraceJob> jobs;  // in submission order (stable)
  SwfCounts counts;
};
// Throws Error if the machine size is unknown (no header size and machine_nodes 0) or
// cores_per_node < 1.
TraceJobs clean_swf(const SwfTrace& t, const SwfCleaning& c);

// What the trace itself records for its jobs: start = submit + wait (wait unknown: 0),
// end = start + run; makespan, mean wait (unknown: reported < 0), mean turnaround and
// utilisation as compute_metrics defines them.
struct RecordedMetrics {
  double makespan_s = 0, mean_wait_s = -1, median_wait_s = -1, mean_turnaround_s = 0, utilisation = 0;
  bool waits_known = false;
  // Jobs that ran at least their requested time (most ended by the site at their limit).
  std::size_t reached_limit = 0;
};
RecordedMetrics recorded_metrics(const TraceJobs& t);

// Per-user limits read off the log itself (Slurm's QOS MaxJobsPerUser, MaxTRESPerUser):
// for each user, the most jobs and nodes it ran at once in the log's own schedule (a job
// from submit + wait to that + its run; at one instant an end comes before a start), and
// the evidence that a limit held it: the job-seconds its jobs waited while it ran its
// peak job count (wait_at_peak_s) of all its jobs' waiting (wait_s). A site's limit can be
// no lower than the most any user ran at once: max_jobs and max_nodes are the tightest
// limits the log allows, and users_at_max_* how many users reached them. Jobs without a
// recorded wait or a user are left out (counted).
struct UserPeak {
  long user = -1;
  std::size_t jobs = 0;
  int peak_jobs = 0, peak_nodes = 0;
  double wait_s = 0, wait_at_peak_s = 0;
};
struct UserLimitEvidence {
  std::vector<UserPeak> users;  // most peak jobs first, then most peak nodes, then user id
  int max_jobs = 0, max_nodes = 0;
  int users_at_max_jobs = 0, users_at_max_nodes = 0;
  std::size_t jobs_used = 0, no_wait = 0, no_user = 0;
};
UserLimitEvidence infer_user_limits(const TraceJobs& t);

// The simulator's jobs from a trace. Every job is rigid on its recorded nodes for its
// recorded run time; a seeded share of them (chosen with std::mt19937_64(seed)) is
// malleable on [ceil(nodes/2), min(machine, 2 nodes)] (the "grow" range). Speedup: Amdahl's
// law (Amdahl 1967), each job's serial fraction drawn uniformly from [serial_lo,
// serial_hi]; or, with `apps`, each job's application and problem size drawn uniformly
// from those measured curves (a generator of its own, seeded from seed: the malleable
// choice and the serial draws stay those of the Amdahl model), its serial fraction and
// communication term the curve's; its work chosen so that it runs exactly its recorded
// time on its recorded nodes. Iterations: the run time over iteration_s (at least 1), so a malleable
// job reaches a remap point about every iteration_s seconds. The estimate: the requested
// time when the trace has it (at least the run time), else the exact run time. Submission
// times are scaled by arrival_scale.
struct TraceModel {
  double malleable_share = 0;
  unsigned long seed = 1;
  double serial_lo = 0.01, serial_hi = 0.10;
  double iteration_s = 60;
  bool requested_estimates = true;
  // Submission times times this factor (below 1: the same jobs arrive faster, a higher
  // offered load; the usual way to load a light trace, e.g. Shmueli & Feitelson 2005).
  double arrival_scale = 1;
  // Measured speedup curves (empty: Amdahl with the serial draws above):
  // T(n) / T(1) = serial + (1 - serial) / n + comm * log2(n).
  struct Curve {
    std::string app;  // the job's program name
    double serial = 0, comm = 0;
  };
  std::vector<Curve> apps;
};
Workload trace_workload(const TraceJobs& t, const TraceModel& m);

// The curves of a speedup file (JSON: {"curves": [{"app": "pdgemm", "size": "N=4000",
// "serial": s, "comm": c}, ...]}, as scripts/bench/workload/fit_speedup.py writes it);
// app is "APP SIZE". Throws Error on a malformed file or a value outside [0, 1).
std::vector<TraceModel::Curve> parse_speedup_curves(const std::string& json_text);

}  // namespace clustersim
