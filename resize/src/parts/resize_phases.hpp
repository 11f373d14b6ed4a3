// SPDX-License-Identifier: BSD-3-Clause
// The record of one resize (ResizeRecording, a view of the parts it writes; recording.cpp)
// and a merge's shrink and a regrid (shrink.cpp), functions of the parts they are given;
// the executor (exec/executor.hpp) runs them. Internal to the session's MPI shell.
#pragma once

#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "malleable/resize/session_options.hpp"
#include "parts/grid_switch.hpp"
#include "policy/grid_choice.hpp"
#include "policy/reconfigure.hpp"
#include "parts/session_parts.hpp"
#include "parts/watchdog.hpp"

namespace resize {
namespace detail {

// A progress line on world rank 0 (`root`), when the options ask for them.
inline void progress_line(const SessionOptions& opt, bool root, const std::string& line) {
  if (opt.progress && root) {
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  }
}

// What a blocking resize reports to its record: the result, the progress line of a
// success, or, for a resize that did not happen, whether it was refused before anything
// changed (refuse) or an expansion failed (fail_expansion).
struct Outcome {
  RemapResult result;
  std::string line;
  bool refused = false;
};

// The record of one resize (recording.cpp), a view of the parts it writes: what the
// run learned (`recorder`), read against the job's grid (`job`) at the remap point after
// `iteration`; the policy told and the progress line printed (`opt`); the watchdog armed
// when a resize begins; `heap_trim` (RESIZE_HEAP_TRIM): the free heap given back on
// every process once a resize concluded (heap_trim.hpp).
struct ResizeRecording {
  ResizeRecorder& recorder;
  const SessionWorld& job;
  const SessionOptions& opt;
  Watchdog& watchdog;
  const int& iteration;
  bool heap_trim = true;

  // Begun with the predictions (rank 0) and the watchdog armed. `predict` false: the
  // predictions made when a background resize began stay (its completion's record).
  ResizeRecord begin_resize(const Decision& d, const Grid& target, bool predict = true);
  // One blocking resize from its record's beginning to its conclusion, `carry_out` (an
  // expansion, a shrink or a regrid) in between: the record's file is entered once per
  // resize.
  RemapResult recorded(const Decision& d, const Grid& target, double t_start,
                       const std::function<Outcome(ResizeRecord&)>& carry_out, bool predict = true);
  // The record of a blocking resize from `from` to `target` closed on what it did (`out`):
  // concluded, refused (the powers the decision brought not taken) or a failed expansion.
  RemapResult finish(const Decision& d, const Grid& from, const Grid& target, const ResizeRecord& rec,
                     const Outcome& out, double t_start);
  // A resize that did not happen: recorded, the policy told; the job stays as it was.
  // `code` and `part`: what refused it (the one form, malleable/error.hpp).
  RemapResult refuse(const Decision& d, const std::string& why, malleable::Errc code = malleable::Errc::ResizeFailed,
                     malleable::Part part = malleable::Part::Resize);
  // A spawn that failed, blocking or in the background: recorded, the policy told, the
  // job continues on `from` with its data.
  RemapResult fail_expansion(const Decision& d, const Grid& from, const Grid& target, ResizeRecord rec,
                             const std::string& err, double t_start);
  // A resize that succeeded, on every process of the job: the free heap given back
  // (heap_trim); rank 0: its record (with the trim's time), the history, the policy told,
  // the line.
  void conclude(const Decision& d, int from_procs, const ResizeRecord& rec, const std::string& line);
  void progress(const std::string& line) const { progress_line(opt, job.root(), line); }

 private:
  void predict_before(const Decision& d, const Grid& target);
  void record_outcome(const ResizeRecord& rec);
};

// World rank 0 tells the policy how a resize it decided ended (Policy::completed). The
// resize stands on every process whatever the policy does: what it raises is said on
// stderr and goes no further (rank 0 leaving the remap point by an exception while the
// others return would part their next collectives).
void tell_policy(Policy& policy, const Decision& d, int from_procs, bool ok);

// A merge's shrink and a regrid (shrink.cpp), functions of the parts they use; the
// executor (exec/executor.hpp) carries them out inside the resize's record.
Outcome shrink(GridSwitch gs, ResizeRecorder& recorder, int iteration, const Grid& target, const NodePlan& node_plan,
               ResizeRecord& rec, double t_start);
Outcome regrid(GridSwitch gs, int iteration, const Decision& d, const Grid& target, ResizeRecord& rec, double t_start);

// A shrink through blacs-dyn to the world ranks in `keep` (in that order), the session's
// plan: `release` empty, back down blacs-dyn's stack when `keep` is exactly a lower
// level's processes, else a new level of `keep`; `release` given, those nodes given back
// whole, which must leave exactly `keep`. Inside blacs-dyn's shrink, once it has validated
// the request and before anybody leaves, the plan it is about to carry out must keep
// exactly `keep`, and `move` runs on every member of the old world (the redistribution;
// false or a throw cancels the shrink). Nothing, `leaving` set (true: this process must
// leave through blacs_dyn::World::leave), or the error (the same on every rank; a refused
// shrink changes nothing).
std::optional<std::string> shrink_as_planned(const std::vector<int>& keep, const std::vector<std::string>& release,
                                             const std::function<bool()>& move, bool& leaving);
}  // namespace detail

// "; predicted: spawn 812.0 ms (history), ..." for a resize record's predicted parts.
std::string predicted_note(const ResizeRecord& r);

}  // namespace resize
