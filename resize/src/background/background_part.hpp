// SPDX-License-Identifier: BSD-3-Clause
// The background part of a session (BackgroundPart): the background settings and the
// resize under way, with the phases that begin, complete, cancel or refuse one, given the
// grid switch and the recording (parts/). Internal to the session's MPI shell; the code is
// session_background.cpp and background_cancel.cpp beside it.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "background/background_plan.hpp"
#include "common/config.hpp"
#include "malleable/resize/session_options.hpp"
#include "parts/registry.hpp"
#include "parts/resize_phases.hpp"
#include "parts/session_parts.hpp"
#include "parts/watchdog.hpp"

namespace resize {
namespace detail {
struct BackgroundResize;  // background/background_resize.hpp

// Background resizes (background/session_background.cpp): the background settings
// (every process the same) and the resize under way (a shared_ptr: BackgroundResize is
// complete only in background_resize.hpp), with the phases that begin, complete, cancel
// or refuse one, given the grid switch and the recording.
struct BackgroundPart {
  std::shared_ptr<BackgroundResize> in_flight;
  Background mode = Background::Off;
  int min_iterations = 1;
  // A newcomer of a background expansion: the old processes completed it inside a remap
  // point (not complete_resize), so the newcomer takes part in the rest of that point.
  bool joined_in_remap_point = false;
  double complete_start = 0, complete_waited = 0;
  // Why cancel_background cancels the resize under way.
  enum class CancelCause {
    Destroyed,   // the session was destroyed or MPI_Finalize called (`why` says which)
    End,         // cancel_resize(): the job's end (recorded)
    Superseded,  // a shrink decided meanwhile (`why` names it; recorded)
  };

  // Begins decision `d` (target `target`) in the background; `pack_state` packs the
  // state an expansion hands its newcomers (after the record began: the powers).
  RemapResult begin_background(const Decision& d, const Grid& target, const NodePlan& node_plan, double t_start,
                               GridSwitch gs, ResizeRecording rs, const LaunchCommand& launch,
                               const std::function<std::vector<char>()>& pack_state);
  // At a remap point (or complete_resize: last_chance) while a resize is under way:
  // completes it when due; returns its result then, nothing when it goes on.
  std::optional<RemapResult> step_background(bool last_chance, GridSwitch gs, ResizeRecording rs);
  // A decision `d` (the same on every rank) made while a resize is under way: a shrink
  // while an expansion is pending cancels the expansion; nothing returned: `d` is then
  // carried out as any decision. A shrink already met, or any other request refused
  // (docs/reference/apps.md, "Background resizes"): its result.
  std::optional<RemapResult> decide_during_background(const Decision& d, GridSwitch gs, ResizeRecording rs);
  // Cancels the resize under way before it switched (collective over the old processes;
  // an expansion's newcomers leave, the job stays on its grid with its data).
  RemapResult cancel_background(const std::string& why, CancelCause cause, GridSwitch gs, ResizeRecording rs);
  // begin_iteration/end_iteration without a helper thread: the resize's messages progress.
  void progress();
  // An iteration ran while the resize is under way (`wall`: its slowest rank's time;
  // counted on world rank 0, `root`).
  void iteration(double wall, bool root);
  // Fills a completing record's background fields (world rank 0, `root`).
  void amend(ResizeRecord& rec, bool root) const;
  // The background fields of `rec` from `b`'s clock: its completing (or cancelling)
  // point began at `start` and waited `waited` (world rank 0).
  void fill(const BackgroundResize& b, ResizeRecord& rec, double start, double waited) const;
  // Why decision `d` is carried out blocking (`remaining`: iterations left, -1 not
  // known), or nothing: begin it in the background.
  std::optional<std::string> blocked(const Decision& d, const MatrixRegistry& registry, int remaining) const;
  // A newcomer spawned by a background expansion from `from` to `to`: receive the
  // constant matrices of `registry`, wait for the completing point; returns the
  // iteration the job completed it after (a cancelled expansion: this process leaves).
  int join(const Grid& from, const Grid& to, const SessionWorld& job, MatrixRegistry& registry, Watchdog& watchdog,
           int iteration, const config::Session& cfg);

 private:
  // The completing point of a background expansion, once every message arrived: the
  // variable matrices move (blocking) and the grids switch to the grown world's.
  RemapResult switch_background_expansion(BackgroundResize& b, GridSwitch gs, ResizeRecording rs);
};}  // namespace detail
}  // namespace resize
