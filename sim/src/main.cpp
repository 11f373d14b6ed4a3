// SPDX-License-Identifier: BSD-3-Clause
// malleable-clustersim: a batch system and its jobs simulated with SimGrid's S4U actors
// (sim_run.hpp). This file reads the command line and the inputs (a workload JSON, a
// Standard Workload Format trace or a site's sacct log, the costs) and writes the metrics, the job records and
// the decisions; `malleable-clustersim --help` lists every option. SimGrid's own options
// (--cfg=..., --log=...) are passed on to its engine.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <simgrid/s4u.hpp>
#include <sstream>

#include "cluster.hpp"
#include "costs.hpp"
#include "metrics.hpp"
#include "periods.hpp"
#include "sacct.hpp"
#include "sim_run.hpp"
#include "swf.hpp"

namespace sg4 = simgrid::s4u;
using namespace clustersim;

namespace {

// A file's text; a directory, a missing file and an empty one named as such.
std::string read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error(path + " is a directory, not a file");
  if (!std::filesystem::exists(path, ec)) throw Error(path + ": no such file");
  std::ifstream f(path);
  if (!f) throw Error("cannot read " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  if (ss.str().find_first_not_of(" \t\r\n") == std::string::npos)
    throw Error(path + " is empty" + (ss.str().empty() ? "" : " (only blank lines)"));
  return ss.str();
}

void write_records(const std::string& path, const std::vector<JobRecord>& recs) {
  std::ofstream f(path);
  f.precision(12);  // times of a long trace (1e7 s and more) to a hundredth of a second
  f << "id,malleable,submit_s,start_s,end_s,node_s,resizes,resize_s,start_nodes,min_held,max_held,killed\n";
  for (const auto& r : recs)
    f << r.id << ',' << (r.malleable ? 1 : 0) << ',' << r.submit_s << ',' << r.start_s << ',' << r.end_s << ','
      << r.node_s << ',' << r.resizes << ',' << r.resize_s << ',' << r.start_nodes << ',' << r.min_held << ','
      << r.max_held << ',' << (r.killed ? 1 : 0) << '\n';
}

}  // namespace

namespace {

// An option refused once the jobs are read (exit 2, as a refusal on the command line).
struct Refused : Error {
  using Error::Error;
};

struct Cli {
  std::string workload_path, costs_path, out_path, records_path, decisions_path;
  std::string swf_path, sacct_path, trace_report_path, write_workload_path, speedup_path;
  int nodes = 0;
  double interval = 0, cost_scale = 1, give_gain_share = -1, min_growth_efficiency = -1, sched_interval = -1;
  clustersim::Resolution resolution;
  bool all_rigid = false, no_expansion = false, ranges = false, no_growth = false, no_give_back = false;
  bool limit_follows_size = false;
  std::string policy = "arbiter", range_top = "max", start_mode = "full", one_update, backfill = "easy";
  std::string time_limits = "on", speedup = "amdahl", prime_time, range_start = "guarded";
  double prime_max_h = 4, range_efficiency = 0.5;
  Cluster::UserLimits user_limits;
  Cluster::FairShare fair_share;
  double fair_half_life_h = 168, priority_max_age_h = 168;
  bool infer_user_limits = false;
  std::string outages = "none";
  double outage_min_h = 1, outage_window_h = 0;
  std::vector<clustersim::Outage> outage_list;
  PeriodPolicy periods;
  SwfCleaning cleaning;
  TraceModel model;
  std::vector<double> serial;
  std::vector<std::string> given;  // the options given on the command line
  const std::string& trace_path() const { return swf_path.empty() ? sacct_path : swf_path; }
  bool is_given(const std::string& name) const { return std::find(given.begin(), given.end(), name) != given.end(); }
};

constexpr int kMaxNodes = 1000000;

// A value in [lo, hi], else refused with the reason (what it is past sense for).
CLI::Validator within(double lo, double hi, const std::string& why) {
  return CLI::Validator(
      [lo, hi, why](std::string& in) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(in.c_str(), &end);
        if (end == in.c_str() || *end != '\0') return "'" + in + "' is not a number";
        if (!(v >= lo && v <= hi)) return in + " is " + why;
        return {};
      },
      "");
}

void add_trace_options(CLI::App& app, Cli& c) {
  app.add_option("--cores-per-node", c.cleaning.cores_per_node, "--swf/--sacct: processors per node (nodes = ceil(procs / C)); "
                 "a header whose MaxProcs / C is not its MaxNodes is refused (give --nodes); with --sacct a job's "
                 "nodes are ceil(NCPUS / C) instead of its NNodes (a site whose jobs share nodes)")
      ->check(CLI::PositiveNumber);
  app.add_option("--swf-first", c.cleaning.first, "--swf/--sacct: skip this many jobs kept by the cleaning (a window)");
  app.add_option("--swf-jobs", c.cleaning.count, "--swf/--sacct: keep at most this many jobs (0: all)");
  app.add_flag("--swf-cpu-as-run", c.cleaning.cpu_as_run, "--swf: keep records without a run time but with a CPU time, "
               "that CPU time as their run time (default: dropped, counted and said)");
  app.add_option("--malleable-share", c.model.malleable_share, "--swf/--sacct: the share of malleable jobs (seeded)");
  app.add_option("--seed", c.model.seed, "--swf/--sacct: the seed choosing the malleable jobs, serial fractions and applications");
  app.add_option("--serial", c.serial, "--swf/--sacct: LO HI, Amdahl serial fractions drawn uniformly in [LO, HI] (0.01 0.1)")
      ->expected(2);
  app.add_option("--speedup", c.speedup, "--swf/--sacct: amdahl (the serial draws, default) or measured: each job's application "
                 "and problem size drawn from --speedup-file's fitted curves")
      ->check(CLI::IsMember({"amdahl", "measured"}));
  app.add_option("--speedup-file", c.speedup_path, "--swf/--sacct --speedup measured: the fitted curves (sim/speedup/*.json)");
  app.add_option("--arrival-scale", c.model.arrival_scale, "--swf/--sacct: multiply the submission times by F (< 1: a higher "
                 "offered load)")->check(CLI::PositiveNumber);
  app.add_option("--iteration-s", c.model.iteration_s, "--swf/--sacct: seconds per iteration (a remap point), default 60")
      ->check(within(1e-3, kMaxPlausibleS, "not an iteration's length (a millisecond to ten years)"));
  app.add_flag_callback("--exact-estimates", [&c] { c.model.requested_estimates = false; },
                        "--swf/--sacct: the exact run times as estimates, not the users' requested times");
  app.add_option("--prime-time", c.prime_time, "--swf/--sacct: a site's prime-time rule, START-END local hours of a weekday "
                 "(e.g. 8-17, the trace's time zone): a job starts only if its estimate ends by the next of those "
                 "hours, and in prime time only if it is at most --prime-max-h (periods.hpp; default: none)");
  app.add_option("--prime-max-h", c.prime_max_h, "--swf/--sacct --prime-time: the longest estimate, hours, that starts in "
                 "prime time (0: any; default 4)")->check(CLI::NonNegativeNumber);
  app.add_option("--outages", c.outages, "--swf/--sacct: none (default) or infer: the whole machine down in each spell of "
                 "the log's own schedule that ran no job while a job waited (outages.hpp; nodes go down as their "
                 "jobs end)")->check(CLI::IsMember({"none", "infer"}));
  app.add_option("--outage-min-h", c.outage_min_h, "--swf/--sacct --outages infer: the shortest spell, hours, taken as an "
                 "outage (default 1)")->check(CLI::PositiveNumber);
  app.add_option("--outage-window-h", c.outage_window_h, "--swf/--sacct --outages infer: also partial outages, hours: in each "
                 "window of this length whose queue never emptied, the nodes the log never used at once are down "
                 "(0: none, the default)")->check(CLI::NonNegativeNumber);
  app.add_flag("--infer-user-limits", c.infer_user_limits, "--swf/--sacct: print the per-user limits the log's own schedule "
               "shows (each user's most jobs and nodes at once, the wait that passed while it ran its most) and exit "
               "without simulating");
  app.add_option("--trace-report", c.trace_report_path, "--swf/--sacct: write the cleaning's counts and the trace's recorded "
                 "metrics (JSON)");
}

void add_policy_options(CLI::App& app, Cli& c) {
  app.add_option("--policy", c.policy, "arbiter: the multi-job arbitration (default); decide: the single-job Slurm "
                 "policy; none: no resizes (with --start-ranges: only the node range at the start)")
      ->check(CLI::IsMember({"arbiter", "decide", "none"}));
  app.add_flag("--no-growth", c.no_growth, "a lever off: malleable jobs never add idle nodes (give-backs only)");
  app.add_flag("--no-give-back", c.no_give_back, "a lever off: malleable jobs never give nodes back (growth only)");
  app.add_flag("--limit-follows-size", c.limit_follows_size,
               "a lever: a job's time limit follows its size: started below its request, its limit is scaled by its "
               "model's time on that size; a give-back extends the limit left by the same ratio (an operator's scontrol "
               "update: the arbiter's --extend-limits on does both, from Slurm's record)");
  app.add_option("--time-limits", c.time_limits, "on (default): a job ends at its time limit, killed, and a shrink or "
                 "a start below its request is allowed only while its predicted end keeps the limit; off: never ended")
      ->check(CLI::IsMember({"on", "off"}));
  app.add_option("--range-start", c.range_start, "--start-ranges with --time-limits on: guarded (default): a "
                 "malleable job starts below its request only on a size whose predicted run keeps its limit (with "
                 "--limit-follows-size on any size, its limit scaled to it); slurm: as Slurm starts sbatch -N min-top, "
                 "on any size down to its minimum under the limit it was submitted with, ended at it (a limit that "
                 "follows the size moves only at a give-back: the emulated runs before the arbiter raised a limit at "
                 "a start below the range)")
      ->check(CLI::IsMember({"guarded", "slurm"}));
  app.add_flag("--start-ranges", c.ranges, "malleable jobs start on fewer nodes, down to their minimum (Slurm "
               "--nodes=min-max)");
  app.add_option("--range-top", c.range_top, "the top of a malleable job's node range: max (its max_nodes, as the "
                 "runner submits -N min-max; default), requested (its size) or efficient (the largest size up to "
                 "max_nodes whose added nodes run at --range-efficiency or better)")
      ->check(CLI::IsMember({"max", "requested", "efficient"}));
  app.add_option("--range-efficiency", c.range_efficiency, "--range-top efficient: the parallel efficiency the added "
                 "nodes reach (default 0.5, the arbiter's min_growth_efficiency)")
      ->check(CLI::PositiveNumber);
  app.add_option("--backfill", c.backfill, "easy: FCFS + EASY backfilling (default); conservative: every waiting job "
                 "keeps its planned start, as Slurm's sched/backfill")
      ->check(CLI::IsMember({"easy", "conservative"}));
  app.add_option("--bf-resolution", c.resolution.step, "conservative: plan in blocks of S seconds of the wall clock, "
                 "as Slurm's bf_resolution (its default 60; 0: exact times, the default here)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--bf-origin", c.resolution.origin, "the wall clock's seconds past a whole block at simulated time 0");
  app.add_option("--start", c.start_mode, "full: a malleable job starts a process on every node Slurm gave (default); "
                 "min: on its minimum, one: one process, spawning onto the rest at its first remap point; recipe: a "
                 "launch per node Slurm gave, each but the first able to leave, down to its minimum")
      ->check(CLI::IsMember({"full", "min", "one", "recipe"}));
  app.add_option("--one-update", c.one_update, "on: Slurm changes a job's allocation once (no accounting); off: "
                 "as often as asked; default: the costs file's one_update")
      ->check(CLI::IsMember({"on", "off"}));
  app.add_option("--give-gain-share", c.give_gain_share, "the arbiter's weighing of a give-back (ArbiterOptions::"
                 "give_gain_share; 0: always give; default: the arbiter's)")
      ->check(within(0, 1e6, "not a weight (0 or more)"));
  app.add_option("--min-growth-efficiency", c.min_growth_efficiency, "the arbiter's efficiency floor of a growth "
                 "(ArbiterOptions::min_growth_efficiency; 0: none; default: the arbiter's)")
      ->check(within(0, 1, "not a parallel efficiency (0 to 1)"));
  app.add_option("--user-max-jobs", c.user_limits.max_jobs, "a user's running jobs at most N (Slurm's QOS "
                 "MaxJobsPerUser; a job past it waits, passed over by the backfilling; 0: none, the default)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--user-max-nodes", c.user_limits.max_nodes, "the nodes a user's running jobs hold at most N, growth "
                 "included (Slurm's QOS MaxTRESPerUser=node=N; processors with --cores-per-node 1; 0: none, the "
                 "default)")->check(CLI::NonNegativeNumber);
  app.add_option("--fair-share-weight", c.fair_share.weight, "Slurm's multifactor priority with fair-share "
                 "(PriorityWeightFairshare): the queue ordered by weight * 2^(-usage / share) + --age-weight * "
                 "age factor, each user's usage its decayed node-seconds, equal shares (0: FCFS, the default)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--age-weight", c.fair_share.age_weight, "--fair-share-weight: PriorityWeightAge (default 0)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--fair-share-half-life-h", c.fair_half_life_h, "--fair-share-weight: the usage's half-life, hours "
                 "(PriorityDecayHalfLife, default 168)")->check(CLI::PositiveNumber);
  app.add_option("--priority-max-age-h", c.priority_max_age_h, "--fair-share-weight: the wait at which the age "
                 "factor reaches 1, hours (PriorityMaxAge, default 168)")->check(CLI::PositiveNumber);
  app.add_option("--interval", c.interval, "seconds between a malleable job's policy queries (0: every remap point)")
      ->check(within(0, kMaxPlausibleS, "not an interval between queries (0 to ten years)"));
}

void add_options(CLI::App& app, Cli& c) {
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // a later flag overrides
  auto* workload_opt = app.add_option("--workload", c.workload_path, "workload JSON (scripts/bench/workload/generate.py)");
  auto* swf_opt = app.add_option("--swf", c.swf_path, "a Standard Workload Format trace (Parallel Workloads Archive)")
                      ->excludes(workload_opt);
  auto* sacct_opt =
      app.add_option("--sacct", c.sacct_path, std::string("a site's own Slurm accounting: the output of sacct -a -X "
                     "-P -S START -E END --format=") + kSacctFormat + " (its header line names the fields; needs "
                     "--nodes: the machine's nodes). A job's nodes are its NNodes, its estimate its Timelimit, its "
                     "wait Start - Submit, its run time Elapsed; steps, and jobs pending or running when the log "
                     "was taken, are dropped and counted; a malformed line or an unknown State is refused with its "
                     "line (sim/src/sacct.hpp)")
          ->excludes(workload_opt)
          ->excludes(swf_opt);
  workload_opt->excludes(swf_opt)->excludes(sacct_opt);
  swf_opt->excludes(sacct_opt);
  add_trace_options(app, c);
  app.add_option("--write-workload", c.write_workload_path, "write the jobs (a trace's, cleaned and modelled) as "
                 "workload JSON, the format --workload reads, and exit without simulating");
  app.add_option("--cost-scale", c.cost_scale, "multiply the resize costs by F (sensitivity)")
      ->check(within(1e-6, 1e6, "past sense for a factor on the resize costs (1e-6 to 1e6)"));
  app.add_option("--costs", c.costs_path, "resize cost constants, JSON (sim/costs/*.json)");
  app.add_option("--sched-interval", c.sched_interval, "the scheduler starts jobs at passes every S seconds (Slurm's "
                 "sched_interval); default: the costs file's sched_interval_s")
      ->check(within(0, kMaxPlausibleS, "not an interval between passes (0 to ten years)"));
  app.add_option("--nodes", c.nodes, "simulate on this many nodes instead of the workload's (a trace's header; "
                 "--sacct: the machine's nodes, which sacct does not record)")
      ->check(within(1, kMaxNodes, "not a machine's node count (1 to 1,000,000)"));
  app.add_flag("--rigid", c.all_rigid, "run every job rigid (the baseline on the same file)");
  add_policy_options(app, c);
  app.add_flag("--no-expansion", c.no_expansion, "Slurm without job expansion: growth by checkpoint and restart");
  app.add_option("--out", c.out_path, "metrics JSON (default: stdout)");
  app.add_option("--records", c.records_path, "per-job CSV");
  app.add_option("--decisions", c.decisions_path, "the malleable jobs' resize decisions and time-limit refusals, "
                 "JSON lines");
}

// The options that only a malleable job gives an effect to: the first of them given, refused
// with `why` no job is malleable (empty: none given). The options that describe a log's jobs
// (--seed, --serial, --speedup: the model every arm of a comparison shares) are not among
// them: a rigid arm may name the same model as the others.
std::string no_malleable(const Cli& c, const std::string& why) {
  for (const char* o : {"--start-ranges", "--policy", "--cost-scale", "--no-expansion", "--one-update", "--iteration-s",
                        "--limit-follows-size", "--range-start", "--interval", "--no-growth", "--no-give-back", "--start",
                        "--give-gain-share", "--min-growth-efficiency"})
    if (c.is_given(o))
      return std::string(o) + " has no effect: no job is malleable (" + why + "); it acts on malleable jobs only";
  return "";
}

// An option that only another option gives a meaning to is refused without it, naming
// that option, and an option that has no effect in the run it was given to is refused
// with the reason (empty: every option given is honoured).
std::string refused(const CLI::App& app, const Cli& c) {
  const auto given = [&app](const char* name) { return app.count(name) > 0; };
  // A log's options (their help begins "--swf"): --workload's jobs carry their own.
  if (c.swf_path.empty() && c.sacct_path.empty())
    for (const CLI::Option* o : app.get_options())
      if (o->count() > 0 && o->get_description().rfind("--swf", 0) == 0)
        return o->get_name() + " needs --swf or --sacct (a log; a --workload file's jobs carry their own)";
  if (!c.sacct_path.empty() && given("--swf-cpu-as-run"))
    return "--swf-cpu-as-run has no effect with --sacct: a sacct log's run time is its Elapsed, never missing";
  if (!c.sacct_path.empty() && c.nodes == 0)
    return "--sacct needs --nodes N, the machine's nodes: sacct does not record them (scontrol show nodes "
           "--oneliner | wc -l)";
  if (given("--bf-resolution") && c.backfill != "conservative")
    return "--bf-resolution needs --backfill conservative (EASY backfilling plans in exact times)";
  if (given("--bf-origin") && c.backfill != "conservative")
    return "--bf-origin needs --backfill conservative (and --bf-resolution)";
  if (given("--prime-max-h") && c.prime_time.empty()) return "--prime-max-h needs --prime-time";
  for (const char* o : {"--outage-min-h", "--outage-window-h"})
    if (given(o) && c.outages != "infer") return std::string(o) + " needs --outages infer";
  if (given("--range-top") && !c.ranges) return "--range-top needs --start-ranges";
  if (given("--range-start") && (!c.ranges || c.time_limits != "on"))
    return "--range-start needs --start-ranges and --time-limits on (without either no start is below a limit)";
  if (given("--range-efficiency") && c.range_top != "efficient")
    return "--range-efficiency needs --range-top efficient";
  if (given("--speedup-file") && c.speedup != "measured")
    return "--speedup-file needs --speedup measured (--speedup amdahl draws serial fractions, --serial)";
  if (given("--serial") && c.speedup == "measured")
    return "--serial needs --speedup amdahl (--speedup measured takes each job's serial fraction from "
           "--speedup-file's curves)";
  if (c.start_mode != "full" && c.policy == "none")
    return "--start " + c.start_mode + " needs --policy arbiter or decide (--policy none runs every job on the "
           "nodes it starts on)";
  if (c.limit_follows_size && (c.time_limits != "on" || c.all_rigid ||
                               (!c.ranges && (c.policy == "none" || c.no_give_back))))
    return "--limit-follows-size needs --time-limits on and jobs whose size changes: --start-ranges, or a policy "
           "that gives nodes back (--policy arbiter or decide without --no-give-back), and not --rigid";
  for (const char* o : {"--age-weight", "--fair-share-half-life-h", "--priority-max-age-h"})
    if (given(o) && !c.fair_share.on()) return std::string(o) + " needs --fair-share-weight (above 0)";
  // Options without an effect in this run.
  if (c.policy == "none")
    for (const char* o : {"--interval", "--no-growth", "--no-give-back", "--give-gain-share", "--min-growth-efficiency"})
      if (given(o))
        return std::string(o) + " has no effect under --policy none: no job is resized (no policy queries, no "
               "levers, no weighing)";
  for (const char* o : {"--give-gain-share", "--min-growth-efficiency"})
    if (given(o) && c.policy != "arbiter")
      return std::string(o) + " has no effect under --policy " + c.policy + ": it is a weight of the arbiter's "
             "(--policy arbiter)";
  if (given("--give-gain-share") && c.no_give_back)
    return "--give-gain-share has no effect with --no-give-back: it weighs give-backs, and that lever is off";
  if (given("--min-growth-efficiency") && c.no_growth)
    return "--min-growth-efficiency has no effect with --no-growth: it is a floor of growth, and that lever is off";
  if (c.all_rigid) {
    if (given("--malleable-share")) return "--malleable-share has no effect with --rigid: every job runs rigid";
    if (auto why = no_malleable(c, "--rigid"); !why.empty()) return why;
  }
  if ((!c.swf_path.empty() || !c.sacct_path.empty()) && c.model.malleable_share == 0 && !c.infer_user_limits &&
      c.write_workload_path.empty())
    if (auto why = no_malleable(c, "--malleable-share is 0"); !why.empty()) return why;
  return "";
}

// The report of --infer-user-limits: the log's per-user peaks with their evidence.
void print_user_limits(const Cli& c, const TraceJobs& tj) {
  const UserLimitEvidence e = infer_user_limits(tj);
  std::cout << c.trace_path() << ": per-user limits in the log's own schedule (" << e.jobs_used << " jobs of "
            << e.users.size() << " users; left out " << e.no_wait << " without a recorded wait, " << e.no_user
            << " without a user)\n";
  std::cout << "most jobs a user ran at once: " << e.max_jobs << " (" << e.users_at_max_jobs
            << " user(s) reached it); most nodes: " << e.max_nodes << " (" << e.users_at_max_nodes
            << " user(s)); nodes are processors / " << c.cleaning.cores_per_node << "\n";
  double wait = 0, at_peak = 0;
  for (const auto& u : e.users) wait += u.wait_s, at_peak += u.wait_at_peak_s;
  std::cout << "job-seconds waited while the job's user ran its own most jobs at once: "
            << static_cast<long long>(at_peak) << " of " << static_cast<long long>(wait) << " ("
            << (wait > 0 ? std::lround(1000 * at_peak / wait) / 10.0 : 0.0) << "%)\n";
  std::cout << "the tightest limits the log allows: --user-max-jobs " << e.max_jobs << " --user-max-nodes "
            << e.max_nodes << "\n\n| user | jobs | most jobs at once | most nodes at once | wait s | of it at its most "
            << "jobs |\n|---|---|---|---|---|---|\n";
  std::size_t shown = 0;
  for (const auto& u : e.users) {
    if (shown++ == 20) break;
    std::cout << "| " << u.user << " | " << u.jobs << " | " << u.peak_jobs << " | " << u.peak_nodes << " | "
              << static_cast<long>(u.wait_s) << " | " << static_cast<long>(u.wait_at_peak_s) << " |\n";
  }
  if (e.users.size() > 20) std::cout << "(" << e.users.size() - 20 << " more users, fewer jobs at once)\n";
}

// The trace's local time (its TimeZoneString with daylight saving, from the system's time
// zone data; else its fixed TimeZone): seconds east of UTC at an epoch second.
std::function<long(double)> zone_offset(const SwfHeader& h) {
  const std::string& name = h.time_zone_name;
  const bool plain = !name.empty() && name.find("..") == std::string::npos &&
                     name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_/+-") ==
                         std::string::npos;
  if (plain && std::ifstream("/usr/share/zoneinfo/" + name).good()) {
    setenv("TZ", name.c_str(), 1);
    tzset();
    return [](double epoch) {
      const std::time_t t = static_cast<std::time_t>(epoch);
      std::tm tm{};
      localtime_r(&t, &tm);
      return static_cast<long>(tm.tm_gmtoff);
    };
  }
  if (!name.empty())
    std::cerr << "malleable-clustersim: time zone " << name << " unknown here; the fixed TimeZone " << h.time_zone
              << " s\n";
  const long fixed = h.time_zone;
  return [fixed](double) { return fixed; };
}

void set_periods(Cli& c, const SwfHeader& h, const TraceJobs& tj) {
  if (c.prime_time.empty()) return;
  PeriodPolicy& p = c.periods;
  char dash = 0;
  std::istringstream in(c.prime_time);
  if (!(in >> p.start_h >> dash >> p.end_h) || dash != '-' || !(0 <= p.start_h && p.start_h < p.end_h && p.end_h <= 24))
    throw Error("--prime-time: START-END local hours, 0 <= START < END <= 24 (got " + c.prime_time + ")");
  if (h.unix_start < 0) throw Error("--prime-time needs the trace's UnixStartTime (its header has none)");
  if (c.model.arrival_scale != 1) throw Error("--prime-time keeps the log's clock: not with --arrival-scale");
  p.on = true;
  p.prime_max_s = c.prime_max_h * 3600;
  p.origin = static_cast<double>(h.unix_start) + tj.origin_s;
  p.offset = zone_offset(h);
}

// --outages infer: the log's spells of nothing running with a queue, on the log's clock.
void set_outages(Cli& c, const TraceJobs& tj) {
  if (c.outages != "infer") return;
  if (c.model.arrival_scale != 1) throw Error("--outages infer keeps the log's clock: not with --arrival-scale");
  const OutageEvidence e = infer_outages(tj, c.outage_min_h * 3600, c.outage_window_h * 3600, &c.periods);
  c.outage_list = e.outages;
  std::cerr << "malleable-clustersim: " << e.outages.size() - e.partial << " outage(s) of the whole machine inferred, "
            << e.down_s / 3600 << " h in all (spells of at least " << c.outage_min_h << " h that ran no job while one "
            << "waited; " << e.shorter << " shorter spell(s), " << e.shorter_s / 3600 << " h, left out; " << e.no_wait
            << " job(s) without a recorded wait)";
  if (c.outage_window_h > 0)
    std::cerr << "; " << e.partial << " window(s) of " << c.outage_window_h << " h with nodes down, "
              << e.partial_node_s / 3600 << " node-hours";
  std::cerr << "\n";
}

Workload read_trace(Cli& c) {
  if (!c.serial.empty()) {
    c.model.serial_lo = c.serial[0];
    c.model.serial_hi = c.serial[1];
  }
  if (c.speedup == "measured") {
    if (c.speedup_path.empty()) throw Error("--speedup measured needs --speedup-file");
    c.model.apps = parse_speedup_curves(read_file(c.speedup_path));
  }
  c.cleaning.machine_nodes = c.nodes;
  const std::string text = read_file(c.trace_path());
  const bool sacct_text = looks_like_sacct(text);
  if (!c.swf_path.empty() && sacct_text)
    throw Error(c.swf_path + " is sacct output (its first line is a sacct header): give it as --sacct");
  if (!c.sacct_path.empty() && !sacct_text)
    throw Error(c.sacct_path + " is not sacct --parsable2 output: its first line is no header naming JobIDRaw "
                "(sacct -a -X -P --format=" + kSacctFormat + "; a Standard Workload Format trace is --swf)");
  SacctCounts sc;
  SwfTrace trace;
  if (sacct_text) {
    SacctLog log = parse_sacct(text);
    sc = log.counts;
    trace = std::move(log.trace);
    // NNodes counts a job's nodes; --cores-per-node asks for NCPUS / C instead.
    c.cleaning.nodes_from_procs = c.is_given("--cores-per-node");
  } else {
    trace = parse_swf(text);
  }
  const TraceJobs tj = clean_swf(trace, c.cleaning);
  if (c.infer_user_limits) {
    print_user_limits(c, tj);
    return {};
  }
  Workload w = trace_workload(tj, c.model);
  set_periods(c, trace.header, tj);
  set_outages(c, tj);
  const auto& n = tj.counts;
  if (!c.trace_report_path.empty()) {
    const RecordedMetrics rec = recorded_metrics(tj);
    nlohmann::json r = {{"trace", c.trace_path()}, {"computer", trace.header.computer},
                        {"installation", trace.header.installation}, {"machine_nodes", tj.machine_nodes},
                        {"cores_per_node", c.cleaning.cores_per_node}, {"records", n.records}, {"kept", n.kept},
                        {"cancelled", n.cancelled}, {"no_run_time", n.no_run_time}, {"zero_procs", n.zero_procs},
                        {"too_large", n.too_large}, {"implausible", n.implausible},
                        {"outside_window", n.outside_window},
                        {"cpu_only", n.cpu_only}, {"cpu_only_proc_s", n.cpu_only_proc_s},
                        {"cpu_as_run", c.cleaning.cpu_as_run},
                        {"recorded", {{"makespan_s", rec.makespan_s}, {"mean_wait_s", rec.mean_wait_s},
                                      {"median_wait_s", rec.median_wait_s}, {"waits_known", rec.waits_known},
                                      {"mean_turnaround_s", rec.mean_turnaround_s},
                                      {"utilisation", rec.utilisation}, {"reached_limit", rec.reached_limit}}}};
    if (sacct_text)
      r["sacct"] = {{"lines", sc.lines}, {"steps", sc.steps}, {"not_ended", sc.not_ended},
                    {"start_before_submit", sc.start_before_submit}, {"jobs", sc.jobs}};
    std::ofstream(c.trace_report_path) << r.dump(1) << "\n";
  }
  if (sacct_text)
    std::cerr << "malleable-clustersim: " << c.sacct_path << ": " << sc.lines << " lines; skipped " << sc.steps
              << " job step(s) (a log taken without -X), dropped " << sc.not_ended
              << " job(s) not ended when the log was taken (pending, running, ...); " << sc.start_before_submit
              << " with a Start before their Submit (wait unknown)\n";
  std::cerr << "malleable-clustersim: " << c.trace_path() << ": " << n.records << " records, " << n.kept
            << " kept; dropped " << n.cancelled << " cancelled, " << n.no_run_time << " without run time, "
            << n.zero_procs << " without processors, " << n.too_large << " larger than " << tj.machine_nodes
            << " nodes, " << n.implausible << " with a run or requested time past ten years, " << n.outside_window
            << " outside the window\n";
  if (n.implausible > 0)
    std::cerr << "malleable-clustersim: warning: " << n.implausible << " record(s) with a run or requested time "
              << "past ten years dropped: no machine ran a job that long (a fault of the log)\n";
  if (n.too_large > 0)
    std::cerr << "malleable-clustersim: warning: " << n.too_large << " record(s) asked more nodes than the "
              << tj.machine_nodes << " of the machine: dropped\n";
  if (n.cpu_only > 0)
    std::cerr << "malleable-clustersim: " << n.cpu_only << " record(s) have no run time but a CPU time ("
              << n.cpu_only_proc_s << " processor-seconds); "
              << (c.cleaning.cpu_as_run ? "kept, their CPU time as their run time\n"
                                        : "dropped with their load (--swf-cpu-as-run keeps them)\n");
  return w;
}

RunOptions run_options(const Cli& c, const Costs& costs) {
  RunOptions o;
  o.interval_s = c.interval;
  o.start = c.start_mode == "one"      ? RunOptions::Start::One
            : c.start_mode == "min"    ? RunOptions::Start::Min
            : c.start_mode == "recipe" ? RunOptions::Start::Recipe
                                       : RunOptions::Start::Full;
  o.arbiter = c.policy == "arbiter";
  o.no_resizes = c.policy == "none";
  o.time_limits = c.time_limits == "on";
  o.no_growth = c.no_growth;
  o.no_give_back = c.no_give_back;
  o.limit_follows_size = c.limit_follows_size;
  o.start_guard = c.range_start == "guarded";
  // The arbiter's windows are for a query every 2 s; queried every `interval` simulated
  // seconds, they stretch by interval / 2.
  const double stretch = std::max(1.0, c.interval / 2);
  auto& ao = o.arbiter_options;
  ao.bid_window_s *= stretch;
  ao.bid_ttl_s *= stretch;
  ao.claim_ttl_s *= stretch;
  ao.offer_ttl_s *= stretch;
  ao.promise_ttl_s = std::max(ao.promise_ttl_s, 4 * c.interval);
  ao.expansion = costs.expansion;
  if (c.give_gain_share >= 0) ao.give_gain_share = c.give_gain_share;
  if (c.min_growth_efficiency >= 0) ao.min_growth_efficiency = c.min_growth_efficiency;
  return o;
}

int run(Cli& c) {
  if (c.workload_path.empty() && c.trace_path().empty()) throw Error("give --workload, --swf or --sacct");
  Workload w = c.trace_path().empty() ? parse_workload(read_file(c.workload_path), c.nodes) : read_trace(c);
  if (c.infer_user_limits) return 0;
  if (c.all_rigid)
    for (auto& j : w.jobs) {
      j.malleable = false;
      j.min_nodes = j.max_nodes = j.nodes;
    }
  if (c.write_workload_path.empty()) {
    // What the command line could not know: the jobs read, none malleable; a per-user
    // node limit no smaller than the machine.
    if (std::none_of(w.jobs.begin(), w.jobs.end(), [](const Job& j) { return j.malleable; }))
      if (auto why = no_malleable(c, "none of the jobs read is"); !why.empty()) throw Refused(why);
    if (c.user_limits.max_nodes >= w.nodes)
      throw Refused("--user-max-nodes " + std::to_string(c.user_limits.max_nodes) + " has no effect: the machine has " +
                    std::to_string(w.nodes) + " nodes, no user can hold more");
  }
  if (!c.write_workload_path.empty()) {
    std::ofstream f(c.write_workload_path);
    f << workload_json(w);
    if (!f.flush()) throw Error("cannot write " + c.write_workload_path);
    return 0;
  }
  Costs costs = c.costs_path.empty() ? Costs{} : parse_costs(read_file(c.costs_path));
  if (c.cost_scale != 1) costs = scale_resize_costs(costs, c.cost_scale);
  if (c.no_expansion) costs.expansion = false;
  if (c.sched_interval >= 0) costs.sched_interval_s = c.sched_interval;
  if (!c.one_update.empty()) costs.one_update = c.one_update == "on";
  const int machine = w.nodes;
  Cluster cluster(std::move(w));
  cluster.set_start_ranges(c.ranges);
  cluster.set_range_top_max(c.range_top == "max");
  if (c.range_top == "efficient") cluster.set_range_top_efficient(c.range_efficiency);
  cluster.set_conservative(c.backfill == "conservative");
  cluster.set_resolution(c.resolution);
  cluster.set_periods(c.periods);
  cluster.set_user_limits(c.user_limits);
  cluster.set_outages(c.outage_list);
  if (c.fair_share.on()) {
    Cluster::FairShare f = c.fair_share;
    f.half_life_s = c.fair_half_life_h * 3600;
    f.max_age_s = c.priority_max_age_h * 3600;
    cluster.set_fair_share(f);
  }
  RunOptions o = run_options(c, costs);
  std::ofstream decisions;
  if (!c.decisions_path.empty()) {
    decisions.open(c.decisions_path);
    o.decisions = &decisions;
  }
  RunCounts counts;
  const auto recs = simulate(std::move(cluster), costs, o, counts);
  const RunMetrics m = compute_metrics(recs, machine);
  if (!c.records_path.empty()) write_records(c.records_path, recs);
  nlohmann::json out = nlohmann::json::parse(metrics_json(m));
  out["time_limit_refusals"] = counts.limit_refusals;
  out["growth_refusals"] = counts.growth_refusals;
  out["queries_skipped"] = counts.queries_skipped;
  out["starts_narrowed"] = counts.starts_narrowed;
  if (c.limit_follows_size) {
    out["limit_extensions"] = counts.limit_extensions;
    out["limit_extension_s"] = counts.limit_extension_s;
    out["limit_extensions_capped"] = counts.limit_extensions_capped;
    out["limit_extension_capped_s"] = counts.limit_extension_capped_s;
  }
  if (c.user_limits.on()) out["user_limit_held"] = counts.user_limit_held;
  if (c.outages != "none") {
    double down_node_s = 0;
    for (const auto& x : c.outage_list) down_node_s += (x.end_s - x.start_s) * x.nodes;
    out["outages"] = {{"count", c.outage_list.size()}, {"down_node_s", down_node_s}};
  }
  const std::string text = out.dump();
  if (c.out_path.empty()) {
    std::cout << text << "\n";
  } else {
    std::ofstream(c.out_path) << text << "\n";
  }
  std::cerr << "malleable-clustersim: " << m.jobs << " jobs on " << machine << " nodes, simulated " << m.makespan_s
            << " s, " << counts.decide_calls << " policy decisions, " << m.killed << " job(s) ended at their time limit ("
            << m.killed_malleable << " malleable), " << counts.limit_refusals << " give-back(s) refused by a limit\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // The tool's own options first (--help lists them, not SimGrid's); what it does not know
  // (SimGrid's --cfg=..., --log=...) goes on to SimGrid's engine.
  CLI::App app{"malleable-clustersim: a batch system of rigid and malleable jobs, simulated (SimGrid S4U)"};
  app.allow_extras();
  app.footer(std::string("A site's own log, from its accounting to what malleability would buy it (docs/guide):\n"
                         "  sacct -a -X -P -S 2024-01-01 -E 2024-02-01 --format=") + kSacctFormat + " > site.sacct\n"
             "  malleable-clustersim --sacct site.sacct --nodes N --malleable-share 0.5 --start-ranges --out m.json\n"
             "and the same with --rigid in place of --malleable-share 0.5 --start-ranges for the baseline.");
  Cli c;
  add_options(app, c);
  CLI11_PARSE(app, argc, argv);
  std::vector<std::string> extras = app.remaining();
  for (const auto& e : extras)
    if (e.rfind("--cfg=", 0) != 0 && e.rfind("--log=", 0) != 0) {
      std::cerr << "malleable-clustersim: unknown option " << e << " (--help lists the options)\n";
      return 2;
    }
  for (const CLI::Option* o : app.get_options())
    if (o->count() > 0) c.given.push_back(o->get_name());
  if (const std::string why = refused(app, c); !why.empty()) {
    std::cerr << "malleable-clustersim: " << why << "\n";
    return 2;
  }
  std::vector<char*> sg_argv{argv[0]};
  for (auto& e : extras) sg_argv.push_back(e.data());
  int sg_argc = static_cast<int>(sg_argv.size());
  sg_argv.push_back(nullptr);
  sg4::Engine engine(&sg_argc, sg_argv.data());
  try {
    return run(c);
  } catch (const std::exception& e) {
    std::cerr << "malleable-clustersim: " << e.what() << "\n";
    return 2;
  }
}
