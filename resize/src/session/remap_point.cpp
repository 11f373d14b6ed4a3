// SPDX-License-Identifier: BSD-3-Clause
// The remap point and one resize from the decision to its record: every process arrived,
// world rank 0 asks the policy, the decision is broadcast and checked into a target grid
// (policy/grid_choice.cpp) and carried out (expand, shrink, regrid: session_expand.cpp,
// session_shrink.cpp; or begun in the background: background/session_background.cpp)
// inside recorded(), which begins its record (the predictions, rank 0; the watchdog armed)
// and concludes it (the record, the history and its file, the policy told, the progress
// line), or records a refusal or a failure. A blocking resize enters this file once, as a
// scope: the record wraps the call into the resize; a background one begins here and
// concludes at a later remap point.
#include "session/session_impl.hpp"
#include "session/expansion_fallback_shell.hpp"

#include "common/broadcast.hpp"
#include "session/world.hpp"

#include <algorithm>
#include <cstdio>

namespace resize {

using namespace detail;

Decision Session::Impl::ask_policy() {
  try {
    PolicyInput in{iteration, job.shape, job.size(), &recorder.metrics, &job.rank_hosts};
    in.speeds = &recorder.speeds;
    in.history = &recorder.history;
    in.cost_model = recorder.cost_model ? &*recorder.cost_model : nullptr;
    in.powers = &recorder.powers;
    in.remaining = remaining();
    Decision d = opt.policy->decide(in);
    if (d.new_allocation && (d.action != Action::Expand || !ckpts.checkpointing)) {
      // Only a resize by restart can move the job into a new allocation.
      opt.policy->completed(d, job.size(), false);
      return Decision::none("the policy's growth needs a new allocation (a resize by restart), but the job has no "
                            "checkpoint directory: staying");
    }
    if (d.by_restart && (d.action != Action::Expand || !ckpts.checkpointing)) {
      opt.policy->completed(d, job.size(), false);
      return Decision::none("the policy's growth can only be a resize by restart (the launcher cannot start processes "
                            "on those nodes), but the job has no checkpoint directory: staying");
    }
    return d;
  } catch (const std::exception& e) {
    return Decision::none(std::string("policy error: ") + e.what());
  }
}

// Every process arrived at this remap point, or the job ends naming the ones that did not.
void Session::Impl::arrive() {
  if (life.first_remap_iteration < 0) life.first_remap_iteration = iteration;
  arrivals.arrive(job.world, iteration);
}

RemapResult Session::remap_point() {
  impl_->arrive();
  // Background resizes: a resize under way in the background completes first (or goes on, and
  // then a new request is refused).
  std::optional<RemapResult> completed;
  if (impl_->bg.in_flight) completed = impl_->bg.step_background(false, impl_->grid_switch(), impl_->recording());
  Decision d;
  if (impl_->job.root()) d = impl_->ask_policy();
  if (impl_->bg.in_flight) return impl_->decide_during_background(d);
  const RemapResult r = impl_->act(d);
  return completed && r.action == Action::None ? *completed : r;
}

RemapResult Session::resize_now(const Decision& d) {
  return impl_->bg.in_flight ? impl_->decide_during_background(d) : impl_->act(d);
}

// Acting on a decision: rank 0's decision broadcast and validated into a target grid (a
// pure choice, the same on every rank: policy/grid_choice.cpp), then carried out (expand,
// shrink, regrid, or begun in the background), recorded by recorded() below.
Decision Session::Impl::broadcast_decision(const Decision& d) const {
  return detail::unpack_decision(detail::broadcast_bytes(job.root() ? detail::pack(d) : std::vector<char>{}, 0, job.world));
}

// Broadcasts rank 0's decision, validates it into a target grid and acts.
RemapResult Session::Impl::act(Decision d) {
  const double t_start = MPI_Wtime();
  d = broadcast_decision(d);
  if (d.action == Action::None) return {};
  // Every rank's node (one allgather): placement and the shrink's kept ranks depend on it,
  // and the record counts bytes within and between nodes.
  NodePlan node_plan;
  node_plan.hosts_before = detail::World::hosts();

  // The target grid (a pure decision, the same on every rank: policy/grid_choice.cpp).
  PlacementMatrix info;
  if (!registry.mats.empty()) {
    const auto& m0 = registry.mats.front();  // the first registered matrix steers Optimal
    info = PlacementMatrix{m0.mat.m, m0.mat.n, m0.mat.mb, m0.mat.nb, m0.mat.dist == Distribution::Block};
  }
  const TargetInput in{job.shape, job.size(), registry.mats.empty() ? nullptr : &info, &detail::World::spawn_supported};
  Grid target;
  std::string why;
  try {
    target = target_grid(d, in, node_plan);
  } catch (const std::exception& e) {
    why = e.what();
  }
  ResizeRecording rs = recording();
  if (!why.empty()) return rs.refuse(d, why);
  // The state the newcomers receive, packed after the record began (it holds the powers).
  const bool background = !bg.blocked(d, registry, remaining());
  const auto state = [&] { return pack_expansion(job.shape, target, background); };
  if (background) {
    const RemapResult r = bg.begin_background(d, target, node_plan, t_start, grid_switch(), rs, launch, state);
    if (bg.in_flight) World::at_finalize(&Session::Impl::finalize_hook, this);
    return r;
  }
  return rs.recorded(d, target, t_start, [&](ResizeRecord& rec) {
    if (d.action == Action::Regrid) return regrid(grid_switch(), iteration, d, target, rec, t_start);
    if (d.action == Action::Expand)
      return expand(grid_switch(), launch, iteration, d, target, node_plan, rec, t_start, state);
    return shrink(grid_switch(), recorder, iteration, target, node_plan, rec, t_start);
  });
}

// A decision while a resize is under way in the background: the background part's, or
// carried out as any decision once it cancelled the resize under way.
RemapResult Session::Impl::decide_during_background(const Decision& dd) {
  const Decision d = broadcast_decision(dd);
  if (d.action == Action::None) return {};
  if (auto r = bg.decide_during_background(d, grid_switch(), recording())) return *r;
  return act(d);
}

void Session::Impl::finalize_hook(void* self) {
  auto* impl = static_cast<Session::Impl*>(self);
  try {
    impl->bg.cancel_background("MPI_Finalize was called", BackgroundPart::CancelCause::Destroyed, impl->grid_switch(),
                               impl->recording());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "resize: cancelling the background resize at MPI_Finalize: %s\n", e.what());
  }
}

// Why a decision is carried out blocking (background off, nothing constant to move, too few
// iterations left, ...: background_plan.hpp's blocking_reason), or nothing: begin it in
// the background. `remaining`: iterations left (-1: not known).
std::optional<std::string> BackgroundPart::blocked(const Decision& d, const MatrixRegistry& registry,
                                                  int remaining) const {
  if (mode == Background::Off) return std::string("background off");
  bool any = false;
  for (const auto& r : registry.mats) any = any || (r.constant && !r.mat.sizes);
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  const bool spawn_hidden = d.action == Action::Expand && provided == MPI_THREAD_MULTIPLE;
  return blocking_reason(d.action == Action::Expand || d.action == Action::Shrink, any, remaining, min_iterations,
                         !d.powers.empty(), spawn_hidden);
}

int Session::Impl::remaining() const {
  return opt.total_iterations >= 0 ? std::max(0, opt.total_iterations - iteration) : -1;
}

RemapResult Session::complete_resize() {
  if (!impl_->bg.in_flight) return {};
  const RemapResult r = *impl_->bg.step_background(true, impl_->grid_switch(), impl_->recording());
  detail::background_fallback_end(true);  // its marker for the launcher goes (expansion_fallback_shell.hpp)
  return r;
}

RemapResult Session::cancel_resize() {
  if (!impl_->bg.in_flight) return {};
  detail::background_fallback_waiting(true);  // waiting for a spawn here: its deadline ends the process
  const RemapResult r =
      impl_->bg.cancel_background({}, BackgroundPart::CancelCause::End, impl_->grid_switch(), impl_->recording());
  detail::background_fallback_end(true);
  return r;
}

// "; predicted: spawn 812.0 ms (history), redistribution 12.3 ms (cost model), other
// 4.1 ms (history); measured/predicted 1.10x" for the parts that were predicted.
std::string predicted_note(const ResizeRecord& r) {
  std::string out;
  char part[96];
  const auto add = [&](const char* what, double v, const char* source) {
    if (v < 0) return;
    std::snprintf(part, sizeof part, "%s%s %.1f ms (%s)", out.empty() ? "; predicted: " : ", ", what, v * 1e3, source);
    out += part;
  };
  if (r.action != Action::Regrid) add(r.action == Action::Shrink ? "exit" : "spawn", r.predicted.t_spawn, "history");
  add("redistribution", r.predicted.t_redist, to_string(r.predicted.redist_by).c_str());
  add("other", r.predicted.t_other, "history");
  if (r.predicted.t_total() > 0) {
    std::snprintf(part, sizeof part, "; measured/predicted %.2fx", r.t_total / r.predicted.t_total());
    out += part;
  } else if (r.predicted.t_redist > 0) {
    std::snprintf(part, sizeof part, "; redistribution measured/predicted %.2fx", r.t_redist / r.predicted.t_redist);
    out += part;
  }
  return out;
}

// A resize that did not happen: recorded, reported to the policy; the job stays as it was.
RemapResult ResizeRecording::refuse(const Decision& d, const std::string& why) {
  ResizeRecord rec;
  rec.after_iteration = iteration;
  rec.action = d.action;
  rec.from_grid = rec.to_grid = job.shape.shape();
  rec.ok = false;
  rec.message = why;
  rec.hosts = d.hosts;
  if (job.root()) {
    recorder.metrics.add_resize(rec);
    opt.policy->completed(d, job.shape.size(), false);
  }
  progress("   remap after iter " + std::to_string(iteration) + ": " + to_string(d.action) +
           " REFUSED (" + why + "); staying on " + job.shape.shape());
  return {d.action, false, why};
}

// The record of one resize, and the watchdog armed for it (both directions alike).
ResizeRecord ResizeRecording::begin_resize(const Decision& d, const Grid& target, bool predict) {
  if (predict && job.root()) predict_before(d, target);
  ResizeRecord rec;
  rec.after_iteration = iteration;
  rec.action = d.action;
  rec.from_grid = job.shape.shape();
  rec.to_grid = target.shape();
  rec.from_procs = job.shape.size();
  rec.to_procs = target.size();
  rec.placement = d.placement;
  rec.hosts = d.hosts;
  rec.predicted.t_spawn = recorder.predicted.spawn;
  rec.predicted.t_other = recorder.predicted.other;
  rec.predicted.t_iteration_after = recorder.predicted.iteration_after;
  rec.predicted.t_iteration_before = recorder.predicted.iteration_before;
  rec.predicted.t_resize_policy = d.predicted_resize;
  rec.predicted.clock = clock_named(d.prediction_clock);
  rec.predicted.reasoning = recorder.predicted.reasoning;
  recorder.powers_before = recorder.powers;
  if (!d.powers.empty()) recorder.powers = d.powers;
  watchdog.arm(std::string(d.action == Action::Expand ? "expansion " : d.action == Action::Regrid ? "regrid " : "shrink ") + job.shape.shape() +
          " -> " + target.shape() + " after iteration " + std::to_string(iteration));
  return rec;
}

// Rank 0, before acting: spawn/exit and other time from the history, the iteration time
// now (measured) and after (the policy's), for the record.
void ResizeRecording::predict_before(const Decision& d, const Grid& target) {
  recorder.predicted.spawn = recorder.predicted.other = -1;
  if (d.action == Action::Regrid) {
    recorder.predicted.spawn = 0;  // nobody is spawned or ends
  } else if (const auto t = recorder.history.predict_spawn(d.action, job.shape.size(), target.size())) {
    recorder.predicted.spawn = *t;
  }
  if (const auto t = recorder.history.predict_other(d.action, job.shape.size(), target.size())) recorder.predicted.other = *t;
  recorder.predicted.iteration_after = d.predicted_iteration;
  recorder.predicted.reasoning = d.prediction;
  // The iteration time before, on the clock the policy predicted (the latest segment's
  // median, the transient first iteration left out).
  recorder.predicted.iteration_before = d.measured_iteration;
  const auto segs = recorder.metrics.segments();
  if (recorder.predicted.iteration_before < 0 && !segs.empty()) recorder.predicted.iteration_before = segs.back().median_on(d.prediction_clock);
}

RemapResult ResizeRecording::recorded(const Decision& d, const Grid& target, double t_start,
                                    const std::function<Outcome(ResizeRecord&)>& carry_out, bool predict) {
  const Grid from = job.shape;
  ResizeRecord rec = begin_resize(d, target, predict);
  const Outcome out = carry_out(rec);
  if (out.result.ok) {
    conclude(d, from.size(), rec, out.line);
  } else if (out.refused) {
    recorder.powers = recorder.powers_before;  // nothing changed: the powers the decision brought are not taken
    return refuse(d, out.result.message);
  } else {
    return fail_expansion(d, from, target, rec, out.result.message, t_start);
  }
  return out.result;
}

RemapResult ResizeRecording::fail_expansion(const Decision& d, const Grid& from, const Grid& target, ResizeRecord rec,
                                          const std::string& err, double t_start) {
  // Nothing was touched yet: the job continues on its old grid with its data.
  rec.ok = false;
  rec.to_grid = target.shape();
  rec.message = "expansion failed: " + err;
  recorder.powers = recorder.powers_before;
  rec.t_total = MPI_Wtime() - t_start;
  if (job.root()) {
    recorder.metrics.add_resize(rec);
    opt.policy->completed(d, from.size(), false);
  }
  progress("   remap after iter " + std::to_string(iteration) + ": expand " + from.shape() + " -> " + target.shape() +
           " FAILED (" + err + "); continuing on " + from.shape() + " with its data");
  return {Action::Expand, false, err};
}

// Rank 0, a resize that succeeded: its record, the history, the policy told, the line.
// A resize completed after a background phase comes with its background fields filled
// (BackgroundPart::amend, by the completion).
void ResizeRecording::conclude(const Decision& d, int from_procs, const ResizeRecord& rec, const std::string& line) {
  if (!job.root()) return;
  recorder.metrics.add_resize(rec);
  record_outcome(rec);
  opt.policy->completed(d, from_procs, true);
  progress(line + predicted_note(rec) + (rec.background ? "; " + rec.message : std::string()));
}

// Rank 0, after a resize that succeeded: into the history (and its file).
void ResizeRecording::record_outcome(const ResizeRecord& rec) {
  if (rec.action != Action::Expand && rec.action != Action::Shrink && rec.action != Action::Regrid) return;
  ResizeEvent e;
  e.action = rec.action;
  e.from_procs = rec.from_procs;
  e.to_procs = rec.to_procs;
  e.hosts = static_cast<int>(rec.hosts.size());
  e.t_spawn = std::max(0.0, rec.t_spawn);
  e.t_redist = std::max(0.0, rec.t_redist);
  e.t_other = std::max(0.0, rec.t_other);
  e.bytes_moved = static_cast<double>(rec.bytes_moved);
  recorder.history.add(e);
  if (recorder.history_path.empty()) return;
  try {
    recorder.history.save(recorder.history_path);
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "[%s] the resize history is not saved: %s\n", opt.app.c_str(), ex.what());
    recorder.history_path.clear();  // say it once
  }
}

}  // namespace resize
