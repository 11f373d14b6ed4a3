// SPDX-License-Identifier: BSD-3-Clause
// The record of one resize (ResizeRecording): begun with the predictions (rank 0) and the
// watchdog armed, wrapped around a blocking resize (recorded), refused, failed or
// concluded (the record, the history and its file, the policy told, the progress line).
// The facade's remap point (session/remap_point.cpp) and the background part make one with
// SessionState::recording() and hand it to the resize.
#include "parts/resize_phases.hpp"
#include "parts/heap_trim.hpp"

#include <algorithm>
#include <cstdio>

namespace resize {

using namespace detail;

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
  if (r.action != Action::Regrid)
    add(r.mechanism == "respawn" ? "respawn"
        : r.action == Action::Shrink ? "exit"
        : r.mechanism == "join"      ? "join"
                                     : "spawn",
        r.predicted.t_spawn, "history");
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
RemapResult ResizeRecording::refuse(const Decision& d, const std::string& why, malleable::Errc code,
                                    malleable::Part part) {
  ResizeRecord rec;
  rec.after_iteration = iteration;
  rec.action = d.action;
  rec.from_grid = rec.to_grid = job.shape.shape();
  rec.ok = false;
  rec.message = why;
  rec.hosts = d.hosts;
  if (job.root()) {
    recorder.metrics.add_resize(rec);
    tell_policy(*opt.policy, d, job.shape.size(), false);
  }
  progress("   remap after iter " + std::to_string(iteration) + ": " + to_string(d.action) +
           " REFUSED (" + why + "); staying on " + job.shape.shape());
  return {d.action, false, why, code, part};
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
  return finish(d, from, target, rec, out, t_start);
}

RemapResult ResizeRecording::finish(const Decision& d, const Grid& from, const Grid& target, const ResizeRecord& rec,
                                    const Outcome& out, double t_start) {
  if (out.result.ok) {
    conclude(d, from.size(), rec, out.line);
  } else if (out.refused) {
    recorder.powers = recorder.powers_before;  // nothing changed: the powers the decision brought are not taken
    const bool coded = out.result.code != malleable::Errc::Ok;
    return refuse(d, out.result.message, coded ? out.result.code : malleable::Errc::ResizeFailed,
                  coded ? out.result.part : malleable::Part::Resize);
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
    tell_policy(*opt.policy, d, from.size(), false);
  }
  progress("   remap after iter " + std::to_string(iteration) + ": expand " + from.shape() + " -> " + target.shape() +
           " FAILED (" + err + "); continuing on " + from.shape() + " with its data");
  return {Action::Expand, false, err, malleable::Errc::ResizeFailed, malleable::Part::Resize};
}

// A resize that succeeded. Every process of the job gives the free heap back (what the
// spawn's event loop grew and freed stays in glibc's arena otherwise: heap_trim.hpp);
// then rank 0 records it, the trim's time in the record, into the history, tells the
// policy and prints the line. A resize completed after a background phase comes with its
// background fields filled (BackgroundPart::amend, by the completion).
void ResizeRecording::conclude(const Decision& d, int from_procs, const ResizeRecord& done, const std::string& line) {
  const HeapTrim trim = trim_heap(heap_trim);
  if (!job.root()) return;
  ResizeRecord rec = done;
  rec.other.heap_trim_s = trim.called ? trim.seconds : -1.0;
  recorder.metrics.add_resize(rec);
  record_outcome(rec);
  tell_policy(*opt.policy, d, from_procs, true);
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
  e.respawn = rec.mechanism == "respawn";
  recorder.history.add(e);
  if (recorder.history_path.empty()) return;
  try {
    recorder.history.save(recorder.history_path);
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "[%s] the resize history is not saved: %s\n", opt.app.c_str(), ex.what());
    recorder.history_path.clear();  // say it once
  }
}

void detail::tell_policy(Policy& policy, const Decision& d, int from_procs, bool ok) {
  try {
    policy.completed(d, from_procs, ok);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "resize: warning: the policy raised in completed() after the %s (%s): %s; the job goes on as the resize left it\n",
                 to_string(d.action).c_str(), ok ? "done" : "not done", e.what());
  } catch (...) {
    std::fprintf(stderr, "resize: warning: the policy raised in completed() after the %s (%s); the job goes on as the resize left it\n",
                 to_string(d.action).c_str(), ok ? "done" : "not done");
  }
}

}  // namespace resize
