// SPDX-License-Identifier: BSD-3-Clause
// The Slurm policy (slurm_policy.hpp): the session's metrics as the agent's growth model,
// the agent's Step as a Decision, and the options read from the environment.
#include "policy/slurm_policy.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>

#include "common/config.hpp"
#include "policy/grid_choice.hpp"

namespace resize {

using namespace cluster::slurm;  // the cluster component's Slurm words: Options, Plan, Step, ...

namespace {

// Median steady-state iteration time of the last segment with `procs` processes.
std::optional<double> measured_time(const Metrics* m, int procs, bool dedicated) {
  if (!m) return std::nullopt;
  std::optional<double> t;
  for (const auto& s : m->segments())
    if (s.procs == procs) t = dedicated ? (s.median_compute > 0 ? s.median_compute : s.median_dedicated) : s.median_wall;
  return t;
}

// Does growing to `procs` processes pay before the job ends? The payoff rule: the
// predicted gain (iteration time now - measured there before) x
// iterations left must exceed the predicted resize time: spawn and other from the history
// of resizes (ResizeHistory, this run and earlier ones), redistribution as the latest
// expansion's (predicted by the cost model if calibrated, else measured). Unknown length
// or no measurement on that size yet: try it (the thesis's sweet-spot search).
bool growing_pays(const PolicyInput& in, const cluster::slurm::Options& o, int procs, cluster::slurm::Plan& p,
                  std::string& why, double* saving = nullptr) {
  if (o.total_iterations <= 0) {
    why = "job length unknown";
    return true;
  }
  const int left = o.total_iterations - in.iteration;
  if (left <= 1) {
    why = std::to_string(left) + " iteration(s) left";
    return false;
  }
  const auto now = measured_time(in.metrics, in.world_size, o.use_dedicated);
  const auto then = measured_time(in.metrics, procs, o.use_dedicated);
  if (!now || !then) {
    why = "no measurement on " + std::to_string(procs) + " processes yet";
    return true;
  }
  // The latest expansion, for what the history cannot say.
  const ResizeRecord* last = nullptr;
  if (in.metrics)
    for (const auto& r : in.metrics->resizes())
      if (r.ok && r.action == Action::Expand) last = &r;
  double t_spawn = last ? last->t_spawn : 0, t_other = last ? last->t_other : 0;
  double t_redist = last ? (last->predicted.t_redist >= 0 ? last->predicted.t_redist : last->t_redist) : 0;
  if (in.history) {
    if (const auto t = in.history->predict_spawn(Action::Expand, in.world_size, procs)) t_spawn = *t;
    if (const auto t = in.history->predict_other(Action::Expand, in.world_size, procs)) t_other = *t;
  }
  const auto pred = predict_payoff(*now, *then, t_spawn, t_redist, t_other, left);
  p.predicted_iteration = *then;
  p.measured_iteration = *now;
  p.predicted_resize = pred.t_resize;
  if (*then >= *now) {
    why = "measured slower on " + std::to_string(procs) + " processes";
    return false;
  }
  why = pred.why;
  if (saving) *saving = pred.gain - pred.t_resize;
  return pred.pays;
}

}  // namespace

cluster::slurm::Growth growth_from_metrics(const PolicyInput& in, const cluster::slurm::Options& o, int extra_nodes,
                                           int per_node) {
  cluster::slurm::Growth g;
  cluster::slurm::Plan p;
  double saving = 0;
  g.pays = growing_pays(in, o, in.world_size + extra_nodes * per_node, p, g.why, &saving);
  g.saving_s = g.pays ? std::max(0.0, saving) : 0;
  g.predicted_iteration = p.predicted_iteration;
  g.predicted_resize = p.predicted_resize;
  g.measured_iteration = p.measured_iteration;
  // The iteration time on the current size, also when the other size was never measured
  // (a give-back weighs what fewer nodes would cost from it).
  if (g.measured_iteration < 0)
    if (const auto t = measured_time(in.metrics, in.world_size, o.use_dedicated)) g.measured_iteration = *t;
  if (o.total_iterations > 0) g.iterations_left = std::max(0, o.total_iterations - in.iteration);
  return g;
}

namespace {
bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

int env_int(const config::Text& v, const char* name, int fallback) {
  if (!v || v->empty()) return fallback;
  if (!all_digits(*v) || v->size() > 9)
    throw Error(std::string(name) + " must be a non-negative integer below 10^9, got '" + *v + "'");
  return static_cast<int>(std::strtol(v->c_str(), nullptr, 10));  // 9 digits at most: no overflow
}
bool env_on_off(const config::Text& v, const char* name, bool fallback) {
  if (!v || v->empty()) return fallback;
  if (*v != "on" && *v != "off") throw Error(std::string(name) + " must be on or off, got '" + *v + "'");
  return *v == "on";
}
double env_seconds(const config::Text& v, const char* name, double fallback) {
  if (!v || v->empty()) return fallback;
  char* end = nullptr;
  const double x = std::strtod(v->c_str(), &end);
  if (*end || !(x >= 0)) throw Error(std::string(name) + " must be a number >= 0, got '" + *v + "'");
  return x;
}

}  // namespace

// Growth by expander jobs (RESIZE_SLURM_JOIN=auto, the default: whenever the job runs
// under malleable-run --job-dir, which sets BLACS_DYN_JOB_DIR and MALLEABLE_RUN;
// off: by job expansion or by restart); RESIZE_SLURM_JOIN_DEADLINE: the seconds an
// expander's launch has to ask to join (90).
void join_options(const config::Slurm& env, Options& o) {
  const std::string join = env.join && !env.join->empty() ? *env.join : "auto";
  if (join != "auto" && join != "off") throw Error("RESIZE_SLURM_JOIN must be auto or off, got '" + join + "'");
  o.launch.join.start_deadline_s = env_seconds(env.join_deadline, "RESIZE_SLURM_JOIN_DEADLINE", o.launch.join.start_deadline_s);
  const std::string dir = env.job_dir.value_or(""), launcher = env.launcher.value_or("");
  if (join == "off" || dir.empty()) return;
  if (dir[0] != '/' || launcher.empty() || launcher[0] != '/')
    throw Error("growing by joining under Slurm needs the job's directory and launcher as absolute paths "
                "(BLACS_DYN_JOB_DIR='" + dir + "', MALLEABLE_RUN='" + launcher +
                "': run the job under malleable-run --job-dir), or RESIZE_SLURM_JOIN=off");
  o.launch.join.dir = dir;
  o.launch.join.launcher = launcher;
}

namespace {

// The job's sizes, pacing and hosts (RESIZE_SLURM_*, MALLEABLE_RUN_HOSTS).
void sizing_options(const config::Slurm& env, int total_iterations, Options& o) {
  o.procs_per_node = env_int(env.procs_per_node, "RESIZE_SLURM_PROCS_PER_NODE", 0);
  o.min_nodes = std::max(1, env_int(env.min_nodes, "RESIZE_SLURM_MIN_NODES", 1));
  o.max_nodes = env_int(env.max_nodes, "RESIZE_SLURM_MAX_NODES", 0);
  o.total_iterations = env_int(env.iterations, "RESIZE_SLURM_ITERATIONS", total_iterations);
  o.verbose = true;
  o.interval_s = env_seconds(env.interval, "RESIZE_SLURM_INTERVAL", o.interval_s);
  if (env.backoff && !env.backoff->empty()) {
    o.refused.backoff_s = env_seconds(env.backoff, "RESIZE_SLURM_BACKOFF", 0);
    o.refused.backoff_max_s = std::max(o.refused.backoff_max_s, o.refused.backoff_s);
  }
  o.jitter = std::min(0.9, env_seconds(env.jitter, "RESIZE_SLURM_JITTER", o.jitter));
  o.levers.grow = env_on_off(env.levers.grow, "RESIZE_SLURM_GROW", o.levers.grow);
  o.levers.give_back = env_on_off(env.levers.give_back, "RESIZE_SLURM_GIVE_BACK", o.levers.give_back);
  if (env.launched_hosts && !env.launched_hosts->empty()) o.launch.on = expand_hostlist(*env.launched_hosts);
}

// The shared directory: none (`off`), RESIZE_SLURM_SHARED (shared-group), or this user's
// $HOME/.malleable/slurm/<ClusterName> (per-user; the name from `scontrol show config`).
void shared_directory(Options& o, const std::string& shared, const std::string& config, const std::string& home) {
  o.shared_group = false;
  if (shared == "off") {
    o.shared_dir.clear();
  } else if (!shared.empty()) {
    o.shared_dir = shared;
    o.shared_group = true;
  } else {
    const std::string cluster = cluster_name(config).value_or("cluster");
    if (home.empty()) throw cluster::Error("$HOME is unset; set RESIZE_SLURM_SHARED to a shared directory");
    o.shared_dir = home + "/.malleable/slurm/" + cluster;
  }
}

// The mode it runs in, said once: per-user (this user's directory, 0700, files 0600),
// shared-group (RESIZE_SLURM_SHARED, files 0660 in the directory's group) or alone.
void say_mode(const Options& o, const std::string& job, const std::string& exp) {
  const std::string mode = !o.arbiter.socket.empty() ? "mode arbiter: " + o.arbiter.socket + " (RESIZE_ARBITER; MUNGE-authenticated both ways, replies taken from user " + o.arbiter.user + " only; one per cluster)"
                           : o.shared_dir.empty() ? "alone (RESIZE_SLURM_SHARED=off)"
                           : o.shared_group
                               ? "mode shared-group: directory " + o.shared_dir +
                                     " (RESIZE_SLURM_SHARED; files 0660 in its group: every member can write any entry)"
                               : "mode per-user: directory " + o.shared_dir +
                                     " (0700, files 0600; jobs of other users are not arbitrated with)";
  std::printf("[slurm] job %s: %s; growth %s; %s%s\n", job.c_str(), mode.c_str(),
              !o.levers.grow ? "off (RESIZE_SLURM_GROW=off)"
              : !o.launch.join.dir.empty() ? "by expander jobs whose launches join it (malleable-run --job-dir)"
              : o.expansion       ? "by job expansion (permit_job_expansion)"
                                  : "by restart into a new allocation (no permit_job_expansion)",
              !o.launch.join.dir.empty() ? "RESIZE_SLURM_JOIN=auto"
              : exp == "auto"     ? "from scontrol show config"
                                  : "RESIZE_SLURM_EXPANSION set",
              o.levers.give_back ? "" : "; give-backs off (RESIZE_SLURM_GIVE_BACK=off)");
  std::fflush(stdout);
}

// At the first decision, on world rank 0 only: one query of the configuration per job
// start, for the cluster's name (the shared directory's default) and whether it
// permits job expansion. Its errors are the cluster component's: the agent says why and
// goes on alone (no shared directory).
void configure_from_cluster(Options& o, const std::string& shared, const std::string& exp, const std::string& home,
                            const std::string& job) {
  std::string config;
  if (exp == "auto" || shared.empty()) {
    const Command c = process_runner()({"scontrol", "show", "config"});
    if (c.status != 0) throw cluster::Error("`scontrol show config` failed: " + escaped(c.said().substr(0, 500)));
    config = c.out;
  }
  o.expansion = exp == "auto" ? expansion_permitted(config) : exp == "on";
  if (!config.empty()) o.one_update = updates_once(config);
  shared_directory(o, shared, config, home);
  say_mode(o, job, exp);
}

std::unique_ptr<Policy> make_policy_from_env(int total_iterations) {
  const config::Slurm env = config::read().slurm;
  Options o;
  sizing_options(env, total_iterations, o);
  auto client = std::make_unique<Client>(process_runner(), env.job_id.value_or(""));
  o.arbiter.socket = env.arbiter.socket.value_or("");
  o.arbiter.munge_socket = env.arbiter.munge.value_or("");
  if (env.arbiter.user && !env.arbiter.user->empty()) o.arbiter.user = *env.arbiter.user;
  // With an arbiter, no shared directory: its default needs no cluster name then.
  const std::string shared = o.arbiter.socket.empty() ? env.shared.value_or("") : "off";
  const std::string exp = env.expansion && !env.expansion->empty() ? *env.expansion : "auto";
  if (exp != "auto" && exp != "on" && exp != "off")
    throw Error("RESIZE_SLURM_EXPANSION must be auto, on or off, got '" + exp + "'");
  const std::string late = env.late_daemons && !env.late_daemons->empty() ? *env.late_daemons : "off";
  if (late != "on" && late != "off") throw Error("RESIZE_SLURM_LATE_DAEMONS must be on or off, got '" + late + "'");
  o.launch.late_daemons = late == "on";
  join_options(env, o);
  const std::string home = env.home.value_or(""), job = client->job_id();
  o.configure = [shared, exp, home, job](Options& o) { configure_from_cluster(o, shared, exp, home, job); };
  return std::make_unique<SlurmPolicy>(std::move(client), o);
}
}  // namespace

namespace {
// The Decision for the agent's Step: for a growth, the near-square grid of every process
// the nodes hold, Local2 when it contains the old grid, Global otherwise.
Decision decision_of(const PolicyInput& in, const Step& s, bool use_dedicated) {
  if (s.kind == Step::Kind::Stay) return Decision::none(s.reason);
  Decision d;
  d.reason = s.reason;
  d.procs = s.procs;
  for (const auto& h : s.hosts) d.hosts.push_back(HostShare{h.name, h.count});
  if (s.kind == Step::Kind::Shrink) {
    d.action = Action::Shrink;
    return d;
  }
  d.action = Action::Expand;
  const Grid t = choose_topology(d.procs);
  d.nprow = t.nprow;
  d.npcol = t.npcol;
  d.placement = t.nprow >= in.grid.nprow && t.npcol >= in.grid.npcol ? Placement::Local2 : Placement::Global;
  d.predicted_iteration = s.predicted_iteration;
  d.predicted_resize = s.predicted_resize;
  d.measured_iteration = s.measured_iteration;
  d.prediction_clock = "wall";
  if (use_dedicated && in.metrics && !in.metrics->segments().empty())
    d.prediction_clock = in.metrics->segments().back().median_compute > 0 ? "compute" : "dedicated";
  d.prediction = s.prediction;
  d.by_restart = s.by_restart;
  d.new_allocation = s.new_allocation;
  if (!s.launches.empty()) {  // its expander jobs' launches, waiting now: they join
    d.by = ExpandBy::Waiting;
    d.launches = s.launches;
  }
  return d;
}
}  // namespace

SlurmPolicy::SlurmPolicy(std::unique_ptr<Client> client, Options o) : agent_(std::move(client), std::move(o)) {}

Decision SlurmPolicy::decide(const PolicyInput& in) {
  Moment m;
  if (in.rank_hosts) m.rank_hosts = *in.rank_hosts;
  m.world_size = in.world_size;
  if (in.waiting)
    for (const auto& w : *in.waiting) m.waiting.push_back(Moment::Launch{w.id, w.host, w.procs});
  const Options& o = agent_.options();
  m.growth = [&in, &o](int extra_nodes, int per_node) { return growth_from_metrics(in, o, extra_nodes, per_node); };
  return decision_of(in, agent_.decide(m), o.use_dedicated);  // cluster::Error is a resize::Error
}

void SlurmPolicy::completed(const Decision& d, int, bool ok) {
  Step s;
  s.kind = d.action == Action::Expand ? Step::Kind::Grow : d.action == Action::Shrink ? Step::Kind::Shrink : Step::Kind::Stay;
  s.procs = d.procs;
  for (const auto& h : d.hosts) s.hosts.push_back(Step::Host{h.host, h.count});
  s.by_restart = d.by_restart;
  s.new_allocation = d.new_allocation;
  if (d.by == ExpandBy::Waiting) s.launches = d.launches;
  agent_.completed(s, ok);
}

std::unique_ptr<Policy> make_slurm_policy(int total_iterations) {
  return make_policy_from_env(total_iterations);
}

}  // namespace resize
