// SPDX-License-Identifier: BSD-3-Clause
// The remap point and one resize from the decision to its plan: every process arrived,
// world rank 0 asks the policy, the decision is broadcast, world rank 0 plans it (the pure
// planner's plan_steps, report/resize_plan.hpp, over the job as the session's parts hold
// it: job_state) and hands every process the plan, which one executor carries out
// (exec/executor.hpp: a blocking merge's expansion or shrink, a regrid or a respawn,
// inside its record), given values (the newcomers' share, handover_share; for a respawn
// world rank 0's carry and the spawn fallbacks' markers, respawn_values), or which is
// begun in the background (background/session_background.cpp): RemapPoint
// (session_impl.hpp), over the facade's state. The Session's resize calls (remap_point,
// resize_now, dry_run, complete_resize, cancel_resize, join, next_decision,
// remap_or_restart) are at the end: each hands its work to the remap point, the expansion
// (session_expand.cpp) or the resize by restart (session_by_restart.cpp).
#include "session/session_impl.hpp"
#include "checkpoint/fallback/carry_out.hpp"
#include "checkpoint/levels/node_io.hpp"

#include "common/broadcast.hpp"
#include "parts/blacs_dyn_error.hpp"
#include "parts/generation_check.hpp"
#include "report/resize_plan.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>

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

// Why no respawn can be made for `d` here ("" when one can), on world rank 0.
std::string respawn_blocked(const Decision& d, const SessionOptions& opt, const BackgroundPart& bg,
                            const MatrixRegistry& reg, const ResizeRecorder& rec, int remaining, Reconfigure setting) {
  if (d.by == ExpandBy::Join || d.by == ExpandBy::Waiting || blacs_dyn::World::join_can_order())
    return "the job grows by joining (malleable-run --job-dir): its first launch holds the job until it ends";
  if (!d.schema.empty()) return "the decision spawns as schema " + d.schema + " says";
  if (!blacs_dyn::World::spawn_supported()) return blacs_dyn::World::spawn_unsupported_reason();
  if (!opt.policy->state())
    return "the policy '" + opt.policy->name() + "' cannot hand its state to a new rank 0 (Policy::state)";
  if (!rec.powers.empty() || !d.powers.empty()) return "mapping powers are in use (heterogeneous layouts)";
  if (setting == Reconfigure::Auto && bg.mode != Background::Off && !bg.blocked(d, reg, remaining))
    return "a background resize overlaps its spawn with the old grid's iterations";
  return {};
}

// A respawn's values for the executor (exec/executor.hpp's RespawnShare), made on every
// process before it runs: under remap_or_restart a shrink's spawn gets the expansion's
// fallback (`armed`: the state secured, the marker, the deadline: a stalled spawn becomes
// a resize by restart onto the target), the markers of the fallbacks armed, and world
// rank 0's carry, read now (after that fallback's checkpoint, which it lists; nothing
// changes it until the executor hands it over). What reading it raised on world rank 0
// (the policy's state()) refuses the resize on every process, as planning's refusal does
// (one broadcast: the others would wait in the spawn): the refusing plan is returned and
// the shrink's marker removed.
std::optional<ResizePlan> respawn_values(SessionState& s, const ResizePlan& plan,
                                         std::unique_ptr<ExpansionFallback>& armed, RespawnShare& out) {
  if (plan.decision.action == Action::Shrink && s.respawn_fallback.arm) armed = s.respawn_fallback.arm(plan.to.size());
  if (armed) out.shrink_marker = armed->marker();
  if (s.respawn_fallback.markers) out.markers = s.respawn_fallback.markers();
  std::vector<char> refused;
  if (s.job.root()) {
    try {
      out.read_at = MPI_Wtime();
      out.carry = Expansion{s}.read_carry(out.read_at);
    } catch (const std::exception& e) {
      refused = pack(refused_plan(s.job.shape, plan.decision, e, "world rank 0's carry for the new rank 0: "));
    }
  }
  refused = broadcast_bytes(std::move(refused), 0, s.job.world);
  if (refused.empty()) return std::nullopt;
  if (armed) armed->succeeded();
  return unpack_plan(refused);
}

// While a respawn runs (its spawn is blocking): a background expansion's fallback, armed
// for a background mode, ends the process at its deadline as a blocking spawn's does.
struct SpawnWaited {
  bool on;
  explicit SpawnWaited(bool respawn) : on(respawn) {
    if (on) background_fallback_waiting(true);
  }
  ~SpawnWaited() {
    if (on) background_fallback_waiting(false);
  }
  SpawnWaited(const SpawnWaited&) = delete;
  SpawnWaited& operator=(const SpawnWaited&) = delete;
};

// The checkpoint cadences (global and levels) into the hand-over, so the newcomers
// checkpoint as the others do.
void pack_cadences(const SessionCheckpoints& ckpts, ExpansionState& st) {
  if (ckpts.checkpointing) {
    const auto& c = ckpts.checkpointing->cadence;
    st.global = {true, c.dir, c.every, {}, c.mtbf_seconds, 0, c.keep};
  }
  if (ckpts.levels) {
    const auto& c = ckpts.levels->cadence;
    st.levels = {true, ckpts.levels->dir, c.local_every, c.partner_every, c.local_mtbf, c.partner_mtbf, c.keep};
  }
}
}  // namespace

ExpansionState detail::handover_share(const SessionState& s, bool background, int respawn_from) {
  ExpansionState st;
  // Background resizes: the background settings (every process must agree on them at
  // later remap points), and whether this expansion is one.
  st.background_mode = s.bg.mode;
  st.background_min_iterations = s.bg.min_iterations;
  st.background = background;
  pack_cadences(s.ckpts, st);  // the newcomers checkpoint as the others do
  st.respawn_from = respawn_from;
  // The generation check at the first blocking merge by spawn (a respawn leaves one launch).
  st.check_reach =
      respawn_from == 0 && !background && reach_check_wanted(s.job.reach.setting, s.job.reach.pml, s.job.reach.decided);
  st.reach_decided = s.job.reach.decided;
  st.reach_factor = s.job.reach.factor;
  return st;
}

JobState RemapPoint::job_state(const Decision& d) {
  JobState out;
  out.shape = s.job.shape;
  out.world_size = s.job.size();
  out.hosts = s.job.rank_hosts;
  out.launches = or_session_error("the ranks' launches: ", [] { return blacs_dyn::World::rank_groups(); });
  for (const auto& r : s.registry.mats) out.matrices.push_back(r.mat());
  out.move_budget_bytes = s.opt.move_budget_bytes;
  if (!blacs_dyn::World::spawn_supported()) out.no_spawn = blacs_dyn::World::spawn_unsupported_reason();
  out.reconfigure = s.reconfigure;
  out.remaining = s.remaining();
  if (d.action == Action::Expand || d.action == Action::Shrink)
    out.respawn_blocked = respawn_blocked(d, s.opt, s.bg, s.registry, s.recorder, out.remaining, s.reconfigure);
  const auto segs = s.recorder.metrics.segments();
  if (!segs.empty()) {
    out.median_wall = segs.back().median_wall;
    out.median_compute = segs.back().median_compute;
  }
  if (s.job.reach.factor > 0) out.pair_factor = s.job.reach.factor;  // the generation check's measure (1: shared memory)
  out.background_blocked = s.bg.blocked(d, s.registry, out.remaining);
  out.history = s.recorder.history.events();
  return out;
}

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
    tell_policy(*s.opt.policy, d, s.job.size(), false);
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
      tell_policy(*s.opt.policy, d, s.job.size(), false);
      return Decision::none("the policy's growth needs a new allocation (a resize by restart), but the job has no "
                            "checkpoint directory: staying");
    }
    if (d.by_restart && (d.action != Action::Expand || !s.ckpts.checkpointing)) {
      tell_policy(*s.opt.policy, d, s.job.size(), false);
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

// Acting on a decision: rank 0's decision on every process.
Decision RemapPoint::broadcast_decision(const Decision& d) const {
  return detail::unpack_decision(detail::broadcast_bytes(s.job.root() ? detail::pack(d) : std::vector<char>{}, 0, s.job.world));
}

// Broadcasts rank 0's decision; world rank 0 plans it (the pure planner,
// report/resize_plan.hpp's plan_steps: the target grid, the nodes, merge, respawn,
// background or regrid) and every process carries out that one plan: the executor
// (exec/executor.hpp) for a blocking merge, a respawn or a regrid, given values (the
// newcomers' share; a respawn's respawn_values), else begun in the background.
RemapResult RemapPoint::act(Decision d) {
  const double t_start = MPI_Wtime();
  d = broadcast_decision(d);
  if (d.action == Action::None || s.cfg.session.dry_run) return d.action == Action::None ? RemapResult{} : dry_run_point(d);
  // Every rank's node (one allgather): placement and the shrink's kept ranks depend on it,
  // and the record counts bytes within and between nodes.
  ResizePlan plan = agree_plan(d, survey_world());
  const bool respawn = plan.how == "respawn";
  RespawnShare values;
  std::unique_ptr<ExpansionFallback> armed;  // a shrink's spawn fallback, while the respawn runs
  if (plan.refused.empty() && respawn)
    if (auto refused = respawn_values(s, plan, armed, values)) plan = std::move(*refused);
  if (!plan.refused.empty())
    return s.recording().refuse(plan.decision, plan.refused, plan.refused_code, plan.refused_part);
  if (plan.how == "background") return begin_background(plan, t_start);
  const SpawnWaited waited(respawn);
  return s.executor().run(plan, handover_share(s, false, respawn ? s.job.size() : 0), t_start, std::move(values));
}

ResizePlan RemapPoint::agree_plan(const Decision& d, std::vector<std::string> hosts) {
  std::vector<char> bytes;
  if (s.job.root()) bytes = pack(planned(d, hosts, false));
  ResizePlan plan = unpack_plan(broadcast_bytes(std::move(bytes), 0, s.job.world));
  plan.nodes.hosts_before = std::move(hosts);
  return plan;
}

// World rank 0: `d` planned over the job as the session's parts hold it (job_state,
// `hosts` every rank's node): plan_steps, or with `whole` plan_resize with the report's
// rates (the dry run). Never throws: the other processes wait for this plan in a
// broadcast, so what reading the job raised (a blacs-dyn query, the policy's state())
// becomes the plan's refusal, its code and part kept.
ResizePlan RemapPoint::planned(const Decision& d, const std::vector<std::string>& hosts, bool whole) {
  try {
    JobState js = job_state(d);
    js.hosts = hosts;
    if (whole) js.rates = plan_rates();
    return whole ? plan_resize(js, d) : plan_steps(js, d);
  } catch (const std::exception& e) {
    return refused_plan(s.job.shape, d, e, "the job's state for the plan: ");
  }
}

// The state the newcomers receive is packed when the helper hands it over (after the
// record began: it holds the powers).
RemapResult RemapPoint::begin_background(const ResizePlan& plan, double t_start) {
  if (plan.decision.action == Action::Expand) set_merge_spawn_env(plan, s.job.size(), s.cfg.session.mpi_yield_set);
  const auto state = [&] { return Expansion{s}.pack_expansion(s.job.shape, plan.to, true); };
  const RemapResult r =
      s.bg.begin_background(plan.decision, plan.to, plan.nodes, t_start, s.grid_switch(), s.recording(), s.launch, state);
  if (s.bg.in_flight) blacs_dyn::World::set_finalize_hook(&RemapPoint::finalize_hook, &s);
  return r;
}

// The dry run: the decision planned by the pure planner (report/resize_plan.hpp) on world
// rank 0, where the policy's view of the job lives, with the report's rates; the texts
// broadcast. Nothing is started, moved or recorded, and the policy is not told.
std::pair<std::string, std::string> RemapPoint::plan_texts(const Decision& d) {
  std::string json, table;
  if (s.job.root()) {
    ResizePlan p = planned(d, s.job.rank_hosts, true);
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
