// SPDX-License-Identifier: BSD-3-Clause
// Internal: background resizes, the pure part: which matrices move in the background, the
// byte plan of one matrix's non-blocking move (redist::Exchange moves them all), when a
// remap point completes a background resize, and the accounting of the time it overlapped
// with computation against the time the application was stopped. No MPI here
// (background_plan.cpp; unit-tested in tests/resize/background/resize_background_test.cpp):
// session_background.cpp and background_messages.cpp are the shell that posts and
// progresses the messages. The public part (the Background modes) is
// malleable/resize/background.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "malleable/redist/layout.hpp"
#include "malleable/redist/plan.hpp"
#include "malleable/resize/background.hpp"

namespace resize {

// The remap point's choice for a background resize under way.
enum class Completion {
  NotYet,    // too early (fewer than the minimum overlapped iterations): keep iterating
  Complete,  // the background part is done everywhere: complete now
  WaitThenComplete,  // not done, but the mode (Wait) or the job's end says wait for it
  Defer,     // not done and the mode is Continue: keep iterating on the old grid
};
const char* to_string(Completion c);

// `overlapped`: iterations run since the begin; `min_iterations`: at least this many
// before completing (>= 1); `all_done`: every process's background messages completed;
// `last_chance`: no later remap point will come (the job ends, or complete_resize()).
Completion decide_completion(int overlapped, int min_iterations, bool all_done, Background mode,
                             bool last_chance);

// Whether a begin in the background is possible at this remap point: the resize kind and
// the matrices. Returns the reason it is done blocking instead, or nothing.
//   any_constant: a registered matrix is marked constant;
//   spawn_hidden: an expansion whose spawn runs in the helper thread (MPI_THREAD_MULTIPLE
//   granted): worth beginning in the background even with nothing constant, the spawn and
//   the newcomers' start-up overlap the old grid's iterations (docs/reference/apps.md, "Background resizes");
//   without either there is nothing to overlap;
//   remaining: iterations left in the job (< 0 unknown); a begin needs a later remap
//   point at least min_iterations on.
std::optional<std::string> blocking_reason(bool is_expand_or_shrink, bool any_constant, int remaining,
                                           int min_iterations, bool has_powers, bool spawn_hidden = false);

// The message refusing a second resize while one is under way in the background
// (refused, not queued: the policy asks again at a later remap point).
std::string second_request_refusal(const std::string& requested, const std::string& under_way, int begun_after);

// One matrix's move: for this rank, what it sends to whom and receives from whom (bytes),
// from redist's rank-local plan of layout a -> layout b over the whole matrix (the plan the
// background's exchange executes).
struct MessagePlan {
  struct Peer {
    int rank = -1;
    std::size_t transfer = 0;   // index into plan.transfers
    std::int64_t bytes = 0;
  };
  redist::RedistPlan plan;
  std::vector<Peer> sends, recvs;
  std::int64_t local_bytes = 0;  // stays on this rank (copied, not sent)
  std::int64_t sent_bytes() const;
  std::int64_t received_bytes() const;
};
MessagePlan plan_messages(const redist::Layout& a, const redist::Layout& b, int comm_size, int rank,
                          std::size_t elem_bytes);

// A 64-bit FNV-1a digest of a buffer (RESIZE_CHECK_CONSTANT=1: a constant matrix the
// application changed between the begin and the completion).
std::uint64_t checksum(const void* data, std::size_t bytes);

// The time line of one background resize (world rank 0's clock), and what it reports.
struct BackgroundSummary {
  double t_begin_stopped = 0;     // the begin point: spawn, hand-over, posting the messages
  double t_overlapped = 0;        // between the begin returning and the completion starting
  double t_complete_stopped = 0;  // the completing point: wait, variable matrices, switch
  double t_waited = 0;            // of that, waiting for the background messages
  int iterations = 0;             // iterations run on the old grid during the background
  double iteration_before = -1;   // median iteration before the begin (< 0 unknown)
  double iteration_during = -1;   // mean iteration during the background (< 0: none)
  int deferred = 0;               // completing points that found it not done and went on
  double t_stopped() const { return t_begin_stopped + t_complete_stopped; }
  // iteration_during / iteration_before, or < 0 when either is unknown.
  double slowdown() const;
};

class BackgroundClock {
 public:
  void begun(double t_start, double t_end, double iteration_before);
  void iteration(double wall);
  void deferred();
  // The completing point started at t_start, waited t_waited and ended at t_end.
  BackgroundSummary complete(double t_start, double t_waited, double t_end) const;
  int iterations() const { return static_cast<int>(walls_.size()); }

 private:
  double t_begin_start_ = 0, t_begin_end_ = 0, iteration_before_ = -1;
  std::vector<double> walls_;
  int deferred_ = 0;
};

}  // namespace resize
