// SPDX-License-Identifier: BSD-3-Clause
// malleable-run's command line (cli.hpp).
#include "cli.hpp"

#include <cstddef>
#include <regex>

#include "settings.hpp"

namespace launcher {

const char* const kUsage =
    "usage: malleable-run [-n NP] [--max-restarts K] [--hosts H1,H2,...|slurm] [--on-failure stop|restart] [--job-dir DIR] -- PROGRAM ARGS...\n"
    "       malleable-run --join DIR [--host H] [-n K] [--id ID] [--at-start] [--while-job J] [-- PROGRAM ARGS...]\n"
    "       malleable-run --settings";

namespace {

const char* const kHelpBody = R"(
Runs a malleable program under mpiexec and launches it again when it asks for it
(resize by restart) or, with --on-failure restart, when it failed.

  -n NP                 processes of the first launch (default 4)
  --max-restarts K      relaunches at most (default 20)
  --hosts H1,H2,...     run on these hosts, NP/(number of hosts) processes on each;
                        "slurm": the nodes of the Slurm allocation (SLURM_JOB_NODELIST);
                        with --job-dir inside a Slurm job, the default (and without -n,
                        the tasks per node Slurm gave on each)
  --on-failure stop     a failed launch ends the loop with its status (the default)
  --on-failure restart  a failed launch (any status but 0, 2, 3, 4) is restarted from the
                        newest complete checkpoint in the program's --checkpoint DIR: on
                        the hosts mpiexec did not lose (with two or more --hosts: the
                        node(s) mpiexec names and any other host that does not answer a
                        probe, mpiexec -n 1 --host H true), else on the same host(s)
                        with the same number of processes
  --job-dir DIR         the job can be joined (growing by joining): DIR, a private
                        directory, holds its secret, its command and an ompi-server's
                        URI; with --hosts the job starts as one launch per host, the
                        others joining the first; launches the job orders are started
  --join DIR            add a launch to the job of DIR (run from any shell): it joins
                        the job at its next remap point and ends when the job lets it go
  --host H              with --join: the launch's one host (default this one)
  --id ID               with --join: the launch's name ([A-Za-z0-9._-], default host-pid-random)
  --while-job J         with --join: the launch ends when Slurm job J no longer runs
                        (the expander jobs of a job growing under Slurm: squeue asked every 5 s)
  --at-start            with --join: a launch of the job's start (malleable-run --job-dir
                        --hosts starts those itself)
  --settings            every environment setting of the libraries and of malleable-run
                        (name, part, type, default, when read, what it does), as the
                        table of docs/guide/configuration.md
  -h, --help            this text

What the program's exit status means:
  0         done
  4         it checkpointed for a resize and wrote DIR/<app>.next ("NPROW NPCOL FILE",
            optionally a line "hosts H1,H2,..."): launched again with NPROW*NPCOL
            processes, -g NPROWxNPCOL --restart FILE (and on those hosts)
            A launch that ends with any other status while that file holds the line
            "spawn-fallback" (written before an expansion by spawn, removed once it
            completed) is a resize by restart too: the expansion died
  2, 3      usage error, restart refused: the loop ends with it
  other     a failure: the loop ends with it, or restarts (--on-failure restart)

Each launch prints "malleable-run: launch K: NP processes[, ...]". Open MPI's banner for a
process's non-zero exit ("Primary job terminated normally, but 1 process returned a
non-zero exit code") is not shown: a resize by restart is not a failed job, and a failed
launch is reported by malleable-run with its status.
Environment: MALLEABLE_MPIEXEC (default "mpiexec --oversubscribe --bind-to none"),
MALLEABLE_PROBE_TIMEOUT (seconds a probed host has to answer, default 30).
Set for each launch with --hosts: MALLEABLE_RUN_HOSTS (its hosts); with --hosts slurm also
SLURM_JOB_NODELIST, SLURM_TASKS_PER_NODE and the like, naming the launch's hosts and
processes (an allocation grown by expansion is not in the environment Slurm set).
Under Slurm (the recipe: a job script "#SBATCH -N MIN-MAX ..." then "exec malleable-run
--job-dir DIR -- PROGRAM ARGS"): malleable-run reads the range the job asked for back from
Slurm and sets RESIZE_POLICY=slurm, RESIZE_SLURM_MIN_NODES and RESIZE_SLURM_MAX_NODES for the
program unless they are set.
Documentation: docs/guide/slurm.md (running under Slurm), docs/guide/checkpoint.md ("Resize
by restart", "When a node is lost"), docs/guide/joining.md (--job-dir, --join),
docs/guide/configuration.md (the settings).
)";

Parsed usage_error(const std::string& what) {
  Parsed p;
  p.status = 2;
  p.err = "malleable-run: " + what + "\n";
  return p;
}

bool matches(const std::string& s, const char* re) { return s.size() <= 64 && std::regex_match(s, std::regex(re)); }

// The values' bounds and the options that go together (the script's order of checks).
std::optional<Parsed> check(const Options& o, const std::string& np, const std::string& max, const std::string& on_failure) {
  if (!matches(np, "[1-9][0-9]{0,5}")) return usage_error("-n must be a positive whole number, got '" + np + "'");
  if (!matches(max, "[0-9]{1,4}")) return usage_error("--max-restarts must be a whole number, got '" + max + "'");
  if (!o.while_job.empty() && !matches(o.while_job, "[1-9][0-9]{0,17}"))
    return usage_error("--while-job must be a Slurm job id, got '" + o.while_job + "'");
  if (!o.join_dir.empty()) {
    if (!o.job_dir.empty() || !o.hosts.empty()) return usage_error("--join takes no --job-dir or --hosts (one launch, one --host)");
  } else {
    if (!o.join_host.empty() || !o.launch_id.empty() || o.at_start || !o.while_job.empty())
      return usage_error("--host, --id, --at-start and --while-job go with --join");
    if (o.program.empty()) return usage_error("no program given");
  }
  if (on_failure != "stop" && on_failure != "restart")
    return usage_error("--on-failure must be stop or restart, got '" + on_failure + "'");
  return std::nullopt;
}

}  // namespace

std::string help_text() { return std::string(kUsage) + "\n" + kHelpBody; }

Parsed parse_options(const std::vector<std::string>& args) {
  Options o;
  std::string np = "4", max = "20", on_failure = "stop";
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") return Parsed{std::nullopt, 0, help_text(), ""};
    if (a == "--settings") return Parsed{std::nullopt, 0, settings_markdown(), ""};
    if (a == "--") {
      ++i;
      break;
    }
    if (a == "--at-start") {
      o.at_start = true;
      continue;
    }
    std::string* into = a == "-n" ? &np : a == "--max-restarts" ? &max : a == "--hosts" ? &o.hosts
                      : a == "--on-failure" ? &on_failure : a == "--job-dir" ? &o.job_dir : a == "--join" ? &o.join_dir
                      : a == "--host" ? &o.join_host : a == "--id" ? &o.launch_id : a == "--while-job" ? &o.while_job : nullptr;
    if (!into) return usage_error("unknown option " + a + " (" + kUsage + ")");
    if (i + 1 >= args.size()) return usage_error(a + " needs a value (" + kUsage + ")");
    *into = args[++i];
    if (a == "-n") o.np_set = true;
  }
  o.program.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  if (auto bad = check(o, np, max, on_failure)) return *bad;
  o.np = std::stoi(np);
  o.max_restarts = std::stoi(max);
  o.restart_on_failure = on_failure == "restart";
  Parsed p;
  p.options = o;
  return p;
}

}  // namespace launcher
