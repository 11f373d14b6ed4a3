// SPDX-License-Identifier: BSD-3-Clause
// Internal: a background resize as a state machine, the pure part. One rank's state is
// the resize's phase (the main thread's: begun, completing, cancelling, ended; the same on
// every rank at the same remap point) and the progress of its background work (the helper
// thread's, or the progress calls': spawning, posting, moving, done, or the spawn failed),
// with whether it is an expansion. `next` is the transition function: an event in, the
// next state and the actions the caller performs, in order, out; an event that cannot
// happen in a state is an error naming both. No MPI and no threads here: the shell
// (session_background.cpp) feeds the events under the helper's mutex and performs the
// actions. The table is in docs/reference/architecture.md ("Background resizes");
// unit-tested in tests/resize/background/resize_background_machine_test.cpp.
#pragma once

#include <string>
#include <vector>

#include "background/background_plan.hpp"

namespace resize::background {

// The resize's phase, driven by the main thread.
enum class Phase {
  Idle,         // nothing begun
  Overlapping,  // begun: the old grid iterates while the background work goes on
  Completing,   // a remap point completes it: the helper joined, then the switch (or the spawn's failure)
  Cancelling,   // the job cancels it: the helper joined, then the ranks agree how to undo it
  Completed,    // switched to the target grid (end)
  Cancelled,    // the job stays on its grid; an expansion's newcomers left (end)
  Failed,       // the spawn failed, or a constant matrix changed (end)
};
inline constexpr int kPhaseCount = 7;

// This rank's background work, driven by the helper thread (or, without
// MPI_THREAD_MULTIPLE, by the begin point and the progress calls).
enum class Progress {
  None,         // nothing begun
  Spawning,     // the helper spawns the newcomers and hands the state over
  HandedOver,   // spawned (or a shrink): the posting comes next
  Posting,      // this rank's messages are being posted
  Moving,       // posted: the messages are in flight
  Done,         // every message of this rank completed
  SpawnFailed,  // the spawn failed (on every rank alike), the world is unchanged, nothing posted
  Withdrawn,    // cancelled before this rank posted: it posts nothing
};
inline constexpr int kProgressCount = 8;

struct State {
  Phase phase = Phase::Idle;
  Progress progress = Progress::None;
  bool expand = false;  // an expansion (newcomers to tell), else a shrink
  bool operator==(const State&) const = default;
};

enum class EventKind {
  // The main thread
  Begin,           // a remap point begins the resize (spawn_in_helper, expand)
  NewcomerPosted,  // a newcomer of the expansion posted its receives (join)
  RemapPoint,      // a remap point while it overlaps: completion, any_failed (agreed)
  Cancel,          // the job cancels it (its end, a shrink supersedes it, the session goes)
  Joined,          // every rank joined its helper and agreed: any_failed, any_posted (MAX over ranks)
  Checked,         // the completing point compared the constant matrices: changed (agreed)
  // The background work (the helper thread, the begin point, the progress calls)
  SpawnDone,
  SpawnFailed,
  PostBegin,       // about to post this rank's messages
  Posted,
  MovesComplete,   // this rank's messages completed (a test found them done)
};
inline constexpr int kEventKindCount = 11;

struct Event {
  EventKind kind = EventKind::Begin;
  bool spawn_in_helper = false;  // Begin: the helper thread spawns (MPI_THREAD_MULTIPLE, expansion)
  bool expand = false;           // Begin
  Completion completion = Completion::NotYet;  // RemapPoint: decide_completion's answer
  bool any_failed = false;       // RemapPoint, Joined: some rank's spawn failed
  bool any_posted = false;       // Joined: some rank posted its messages
  bool changed = false;          // Checked: a constant matrix changed
};

// What the caller does after a transition, in this order.
enum class Action {
  StartHelper,     // start the helper (a thread, or at once): spawn if told, then post
  Post,            // post this rank's messages, then Posted
  SkipPost,        // post nothing (cancelled meanwhile)
  RecordDeferral,  // a completing point found it not done and goes on (mode continue)
  JoinAndAgree,    // stop and join the helper, agree on {spawn failed, posted}, then Joined
  ReportFailure,   // the spawn failed: reported as a blocking expansion's failure
  WaitMoves,       // wait until this rank's messages completed
  CheckConstants,  // compare the constant matrices with the begin point's, then Checked
  TellNewcomers,   // the completion notice to an expansion's newcomers
  ReportChanged,   // a constant matrix changed: the error naming it
  FinishMoves,     // finish the exchange, free its communicator
  Switch,          // switch the grid (an expansion), or carry out the shrink
  PostNow,         // cancelled, some rank posted but not this one: post to match
  Unstage,         // drop the staged buffers
  NewcomersLeave,  // tell an expansion's newcomers it was cancelled; they leave
  RecordCancel,    // the cancellation's record and message
};
inline constexpr int kActionCount = 16;

struct Transition {
  State next;
  std::vector<Action> actions;
  std::string error;  // not empty: the event cannot happen in this state (`next` is the state unchanged)
  bool ok() const { return error.empty(); }
};

// The transition function (pure).
Transition next(const State& s, const Event& e);
// `next`, or resize::Error with its message when the event is invalid.
Transition apply(const State& s, const Event& e);

// Whether the resize ended (the shell drops it).
bool ended(Phase p);
// This rank's messages are posted (Moving or Done).
bool posted(Progress p);

const char* to_string(Phase p);
const char* to_string(Progress p);
const char* to_string(EventKind k);
const char* to_string(Action a);
std::string to_string(const State& s);

}  // namespace resize::background
