// SPDX-License-Identifier: BSD-3-Clause
// The remap point and one resize from the decision to its record: every process arrived,
// world rank 0 asks the policy, the decision is broadcast and checked into a target grid
// (policy/grid_choice.cpp) and carried out (expand, shrink, regrid: parts/expand.cpp,
// parts/shrink.cpp; or begun in the background: background/session_background.cpp)
// inside recorded() (parts/recording.cpp), which begins its record (the predictions, rank
// 0; the watchdog armed) and concludes it (the record, the history and its file, the
// policy told, the progress line), or records a refusal or a failure: RemapPoint
// (session_impl.hpp), over the facade's state. A blocking resize leaves this file once, as
// a scope: the record wraps the call into the resize; a background one begins here and
// concludes at a later remap point. The Session's resize calls (remap_point, resize_now,
// dry_run, complete_resize, cancel_resize, join, next_decision, remap_or_restart) are at
// the end: each hands its work to the remap point, the expansion (session_expand.cpp) or
// the resize by restart (session_by_restart.cpp).
#include "session/session_impl.hpp"
#include "checkpoint/fallback/carry_out.hpp"

#include "common/broadcast.hpp"
#include "parts/blacs_dyn_error.hpp"
#include "report/resize_plan.hpp"

#include <algorithm>
#include <cstdio>

namespace resize {

using namespace detail;

namespace {
// World rank 0: how an expansion brings its processes (docs/guide/joining.md): Join in a
// job whose launcher starts the launches it orders (malleable-run --job-dir), else
// Spawn; RESIZE_EXPAND=spawn|join|auto overrides. A decision that names a schema spawns.
ExpandBy expansion_mechanism(const Decision& d, const config::Text& setting) {
  if (!d.schema.empty()) return ExpandBy::Spawn;
  const std::string want = setting.value_or("auto");
  if (want == "spawn") return ExpandBy::Spawn;
  if (want != "join" && want != "auto" && !want.empty())
    throw Error("RESIZE_EXPAND must be auto, spawn or join, got '" + want + "'");
  if (blacs_dyn::World::join_can_order()) return ExpandBy::Join;
  if (want == "join")
    throw Error("RESIZE_EXPAND=join, but the job's launcher starts no launches it orders (start the job with "
                "malleable-run --job-dir DIR)");
  return ExpandBy::Spawn;
}

// Whether the job can spawn (blacs_dyn::World::spawn_supported), else why not.
bool spawn_supported(std::string& why) {
  if (blacs_dyn::World::spawn_supported()) return true;
  why = blacs_dyn::World::spawn_unsupported_reason();
  return false;
}

// World rank 0's view of the launches waiting to join now (blacs_dyn::World::join_waiting):
// none where blacs-dyn cannot say (not the policy's error, nor the remap point's).
std::vector<PolicyInput::Launch> launches_waiting() {
  std::vector<PolicyInput::Launch> out;
  const auto failed = blacs_dyn_failure([&] {
    for (const auto& w : blacs_dyn::World::join_waiting()) out.push_back({w.id, w.host, w.procs});
  });
  if (failed) out.clear();
  return out;
}

// World rank 0, when the policy decided nothing: the launches waiting to join now (started
// from another shell with malleable-run --join) make an expansion by all of them.
Decision waiting_launches(int world_size, const Grid& shape) {
  const auto waiting = launches_waiting();
  if (waiting.empty()) return {};
  Decision d;
  d.action = Action::Expand;
  d.by = ExpandBy::Waiting;
  d.procs = shape.size() + std::max(0, world_size - shape.size());
  std::string names;
  for (const auto& w : waiting) {
    d.procs += w.procs;
    d.launches.push_back(w.id);
    d.hosts.push_back(HostShare{w.host, w.procs});
    names += (names.empty() ? "" : ", ") + w.id + " (" + std::to_string(w.procs) + " on " + w.host + ")";
  }
  d.reason = "launch(es) waiting to join: " + names;
  return d;
}
}  // namespace

Decision RemapPoint::ask_policy() {
  Decision d = ask_policy_alone();
  try {
    // (Not under a policy that decides on the waiting launches itself, as the Slurm
    // policy does on its expander jobs': Policy::decides_on_waiting_launches.)
    if (d.action == Action::None && !d.new_allocation && !s.opt.policy->decides_on_waiting_launches()) {
      Decision w = waiting_launches(s.job.size(), s.job.shape);
      if (w.action == Action::Expand) return w;
    }
    if (d.action == Action::Expand && d.by == ExpandBy::Auto && !d.new_allocation && !d.by_restart)
      d.by = expansion_mechanism(d, s.cfg.session.expand);
  } catch (const std::exception& e) {
    s.opt.policy->completed(d, s.job.size(), false);
    return Decision::none(std::string("expansion: ") + e.what());
  }
  return d;
}

Decision RemapPoint::ask_policy_alone() {
  try {
    PolicyInput in{s.iteration, s.job.shape, s.job.size(), &s.recorder.metrics, &s.job.rank_hosts};
    in.speeds = &s.recorder.speeds;
    in.history = &s.recorder.history;
    in.cost_model = s.recorder.cost_model ? &*s.recorder.cost_model : nullptr;
    in.powers = &s.recorder.powers;
    in.remaining = s.remaining();
    // The launches waiting to join, for a policy that decides on them (the Slurm policy:
    // its expander jobs' among them).
    std::vector<PolicyInput::Launch> waiting;
    if (s.opt.policy->decides_on_waiting_launches()) waiting = launches_waiting();
    in.waiting = &waiting;
    Decision d = s.opt.policy->decide(in);
    if (d.new_allocation && (d.action != Action::Expand || !s.ckpts.checkpointing)) {
      // Only a resize by restart can move the job into a new allocation.
      s.opt.policy->completed(d, s.job.size(), false);
      return Decision::none("the policy's growth needs a new allocation (a resize by restart), but the job has no "
                            "checkpoint directory: staying");
    }
    if (d.by_restart && (d.action != Action::Expand || !s.ckpts.checkpointing)) {
      s.opt.policy->completed(d, s.job.size(), false);
      return Decision::none("the policy's growth can only be a resize by restart (the launcher cannot start processes "
                            "on those nodes), but the job has no checkpoint directory: staying");
    }
    return d;
  } catch (const std::exception& e) {
    return Decision::none(std::string("policy error: ") + e.what());
  }
}

// Every process arrived at this remap point, or the job ends naming the ones that did not.
void RemapPoint::arrive() {
  if (s.life.first_remap_iteration < 0) s.life.first_remap_iteration = s.iteration;
  s.arrivals.arrive(s.job.world, s.iteration);
}

RemapResult RemapPoint::remap_point() {
  arrive();
  // Background resizes: a resize under way in the background completes first (or goes on, and
  // then a new request is refused).
  std::optional<RemapResult> completed;
  if (s.bg.in_flight) completed = s.bg.step_background(false, s.grid_switch(), s.recording());
  Decision d;
  if (s.job.root()) d = ask_policy();
  if (s.bg.in_flight) return decide_during_background(d);
  const RemapResult r = act(d);
  return completed && r.action == Action::None ? *completed : r;
}

RemapResult RemapPoint::resize_now(const Decision& d) {
  return s.bg.in_flight ? decide_during_background(d) : act(d);
}

// Acting on a decision: rank 0's decision broadcast and validated into a target grid (a
// pure choice, the same on every rank: policy/grid_choice.cpp), then carried out (expand,
// shrink, regrid, or begun in the background), recorded by recorded() below.
Decision RemapPoint::broadcast_decision(const Decision& d) const {
  return detail::unpack_decision(detail::broadcast_bytes(s.job.root() ? detail::pack(d) : std::vector<char>{}, 0, s.job.world));
}

// Broadcasts rank 0's decision, validates it into a target grid and acts.
RemapResult RemapPoint::act(Decision d) {
  const double t_start = MPI_Wtime();
  d = broadcast_decision(d);
  if (d.action == Action::None || s.cfg.session.dry_run) return d.action == Action::None ? RemapResult{} : dry_run_point(d);
  // Every rank's node (one allgather): placement and the shrink's kept ranks depend on it,
  // and the record counts bytes within and between nodes.
  NodePlan node_plan;
  node_plan.hosts_before = survey_world();

  // The target grid (a pure decision, the same on every rank: policy/grid_choice.cpp).
  // The first registered matrix steers Optimal; an extended-descriptor one as 1 x 1 blocks
  // (its block sizes on a candidate grid are the application's to give).
  redist::MatrixSpec info;
  if (!s.registry.mats.empty()) {
    info = s.registry.mats.front().mat();
    if (info.extended()) info = redist::MatrixSpec::block_cyclic(info.m, info.n, 1, 1);
  }
  const TargetInput in{s.job.shape, s.job.size(), s.registry.mats.empty() ? nullptr : &info, &spawn_supported};
  Grid target;
  std::string why;
  try {
    target = target_grid(d, in, node_plan);
  } catch (const std::exception& e) {
    why = e.what();
  }
  ResizeRecording rs = s.recording();
  if (!why.empty()) return rs.refuse(d, why);
  // Merge or respawn (session_expand.cpp: world rank 0's choice, on every process).
  const ReconfigureChoice how = Expansion{s}.choose_reconfiguration(d, target, node_plan);
  // The state the newcomers receive, packed after the record began (it holds the powers).
  // (An expansion by joining is always a blocking one: its launches join at the remap point;
  // so is a respawn.)
  const bool background =
      !how.respawn && d.by != ExpandBy::Join && d.by != ExpandBy::Waiting && !s.bg.blocked(d, s.registry, s.remaining());
  const auto state = [&] { return Expansion{s}.pack_expansion(s.job.shape, target, background); };
  if (!how.respawn && d.action == Action::Expand) Expansion{s}.set_merge_spawn_env(target, node_plan);  // yield off where it fits
  if (background) {
    const RemapResult r = s.bg.begin_background(d, target, node_plan, t_start, s.grid_switch(), rs, s.launch, state);
    if (s.bg.in_flight) blacs_dyn::World::set_finalize_hook(&RemapPoint::finalize_hook, &s);
    return r;
  }
  return rs.recorded(d, target, t_start, [&](ResizeRecord& rec) {
    if (d.action == Action::Regrid) return regrid(s.grid_switch(), s.iteration, d, target, rec, t_start);
    rec.reconfigure = how.respawn ? "respawn" : "merge";
    rec.reconfigure_why = how.why;
    Outcome o;
    if (how.respawn) {
      o = Expansion{s}.respawn_resize(d, target, node_plan, rec, t_start);  // returns only when its spawn failed
      // A shrink whose respawn could not spawn is a merge's (nothing changed yet).
      if (d.action != Action::Shrink) return o;
      rec = rs.begin_resize(d, target);
      rec.reconfigure = "merge";
      rec.reconfigure_why = "merge (the respawn's spawn failed: " + o.result.message + ")";
    }
    o = d.action == Action::Expand ? expand(s.grid_switch(), s.launch, s.iteration, d, target, node_plan, rec, t_start, state)
                                   : shrink(s.grid_switch(), s.recorder, s.iteration, target, node_plan, rec, t_start);
    if (o.result.ok) o.line += "; reconfigured by " + rec.reconfigure_why;
    return o;
  });
}

// The dry run: the decision planned by the pure planner (report/resize_plan.hpp) on world
// rank 0, where the policy's view of the job lives, with the report's rates; the texts
// broadcast. Nothing is started, moved or recorded, and the policy is not told.
std::pair<std::string, std::string> RemapPoint::plan_texts(const Decision& d) {
  std::string json, table;
  if (s.job.root()) {
    JobState js = Expansion{s}.job_state(d);
    js.rates = plan_rates();
    ResizePlan p = plan_resize(js, d);
    if (s.bg.in_flight && d.action != Action::None) {  // refused, not queued (background_plan.hpp)
      p = ResizePlan{};
      p.from = s.job.shape;
      p.decision = d;
      p.refused = "a resize is under way in the background: a new one is refused until it completes";
    }
    json = plan_json(p);
    table = plan_table(p);
  }
  return {broadcast_text(json, 0, s.job.world), broadcast_text(table, 0, s.job.world)};
}

RemapResult RemapPoint::dry_run_point(const Decision& d) {
  const auto [json, table] = plan_texts(d);
  if (s.job.root()) {
    std::printf("resize: RESIZE_DRY_RUN=1, remap after iteration %d: the plan, not carried out\n%s%s\n", s.iteration,
                table.c_str(), json.c_str());
    std::fflush(stdout);
  }
  return {Action::None, true, "dry run: " + to_string(d.action) + " not carried out (RESIZE_DRY_RUN)"};
}

Session::DryRun RemapPoint::dry_run() {
  arrive();  // a remap point: every process arrived, or the job ends naming who did not
  Decision d;
  if (s.job.root()) d = ask_policy();
  const auto [json, table] = plan_texts(broadcast_decision(d));
  return {json, table};
}

// A decision while a resize is under way in the background: the background part's, or
// carried out as any decision once it cancelled the resize under way.
RemapResult RemapPoint::decide_during_background(const Decision& dd) {
  const Decision d = broadcast_decision(dd);
  if (d.action == Action::None) return {};
  if (auto r = s.bg.decide_during_background(d, s.grid_switch(), s.recording())) return *r;
  return act(d);
}

void RemapPoint::finalize_hook(void* state) {
  auto* st = static_cast<SessionState*>(state);
  try {
    st->bg.cancel_background("MPI_Finalize was called", BackgroundPart::CancelCause::Destroyed, st->grid_switch(),
                             st->recording());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "resize: cancelling the background resize at MPI_Finalize: %s\n", e.what());
  }
}

RemapResult RemapPoint::complete_resize() {
  if (!s.bg.in_flight) return {};
  const RemapResult r = *s.bg.step_background(true, s.grid_switch(), s.recording());
  detail::background_fallback_end(true);  // its marker for the launcher goes (fallback/carry_out.hpp)
  return r;
}

RemapResult RemapPoint::cancel_resize() {
  if (!s.bg.in_flight) return {};
  detail::background_fallback_waiting(true);  // waiting for a spawn here: its deadline ends the process
  const RemapResult r =
      s.bg.cancel_background({}, BackgroundPart::CancelCause::End, s.grid_switch(), s.recording());
  detail::background_fallback_end(true);
  return r;
}

// The Session's resize calls (collective), each the remap point's, the expansion's or the
// resize by restart's: here, beside the remap point, so that a resize enters the facade in
// one file (docs/reference/architecture.md, "The same expansion, file by file").
RemapResult Session::remap_point() { return RemapPoint{*impl_}.remap_point(); }
RemapResult Session::resize_now(const Decision& d) { return RemapPoint{*impl_}.resize_now(d); }
Session::DryRun Session::dry_run() { return RemapPoint{*impl_}.dry_run(); }
RemapResult Session::complete_resize() { return RemapPoint{*impl_}.complete_resize(); }
RemapResult Session::cancel_resize() { return RemapPoint{*impl_}.cancel_resize(); }
int Session::join() { return Expansion{*impl_}.join(); }
Decision Session::next_decision() { return ByRestart{*impl_}.next_decision(); }
ResizeStep Session::remap_or_restart(Mechanism m) { return ByRestart{*impl_}.remap_or_restart(m); }

}  // namespace resize
