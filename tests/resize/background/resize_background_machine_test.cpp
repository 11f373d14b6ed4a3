// SPDX-License-Identifier: BSD-3-Clause
// The background resize's state machine (background_machine.hpp), without MPI: the whole
// transition table enumerated over every state reachable from Idle and every event (a
// transition the table lists gives its state and actions, any other is an error that
// leaves the state as it was), then the paths the shell takes, cancel in each phase.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "background/background_machine.hpp"
#include "malleable/resize/types.hpp"

using resize::Completion;
using resize::Error;
using namespace resize::background;
using A = Action;
using EK = EventKind;

namespace {

std::vector<Event> all_events() {
  std::vector<Event> out;
  for (bool helper : {false, true})
    for (bool expand : {false, true}) out.push_back({.kind = EK::Begin, .spawn_in_helper = helper, .expand = expand});
  out.push_back({.kind = EK::NewcomerPosted});
  for (Completion c : {Completion::NotYet, Completion::Complete, Completion::WaitThenComplete, Completion::Defer})
    for (bool failed : {false, true}) out.push_back({.kind = EK::RemapPoint, .completion = c, .any_failed = failed});
  out.push_back({.kind = EK::Cancel});
  for (bool failed : {false, true})
    for (bool posted : {false, true}) out.push_back({.kind = EK::Joined, .any_failed = failed, .any_posted = posted});
  for (bool changed : {false, true}) out.push_back({.kind = EK::Checked, .changed = changed});
  for (EK k : {EK::SpawnDone, EK::SpawnFailed, EK::PostBegin, EK::Posted, EK::MovesComplete}) out.push_back({.kind = k});
  return out;
}

// An event's identity (its kind and the fields that kind reads).
using EventKey = std::tuple<int, bool, bool, int, bool, bool, bool>;
EventKey key(const Event& e) {
  return {static_cast<int>(e.kind), e.spawn_in_helper, e.expand, static_cast<int>(e.completion), e.any_failed,
          e.any_posted, e.changed};
}
using StateKey = std::tuple<int, int, bool>;
StateKey key(const State& s) { return {static_cast<int>(s.phase), static_cast<int>(s.progress), s.expand}; }

struct Row {
  State next;
  std::vector<Action> actions;
};
using Table = std::map<std::pair<StateKey, EventKey>, Row>;

void add(Table& t, const State& from, const Event& e, const State& to, std::vector<Action> actions) {
  ASSERT_TRUE(t.emplace(std::make_pair(key(from), key(e)), Row{to, std::move(actions)}).second)
      << "row listed twice: " << to_string(from) << " + " << to_string(e.kind);
}

// The table, written out as the architecture page states it.
Table expected_table() {
  Table t;
  const State idle{};
  add(t, idle, {.kind = EK::Begin, .spawn_in_helper = true, .expand = true},
      {Phase::Overlapping, Progress::Spawning, true}, {A::StartHelper});
  add(t, idle, {.kind = EK::Begin, .spawn_in_helper = false, .expand = true},
      {Phase::Overlapping, Progress::HandedOver, true}, {A::StartHelper});
  add(t, idle, {.kind = EK::Begin, .spawn_in_helper = false, .expand = false},
      {Phase::Overlapping, Progress::HandedOver, false}, {A::StartHelper});
  add(t, idle, {.kind = EK::NewcomerPosted}, {Phase::Overlapping, Progress::Moving, true}, {});

  const std::vector<Phase> live = {Phase::Overlapping, Phase::Completing, Phase::Cancelling};
  for (bool x : {false, true}) {
    // What each kind of resize's background work passes through before the helper is joined.
    std::vector<Progress> working = {Progress::HandedOver, Progress::Posting, Progress::Moving, Progress::Done};
    if (x) {
      working.push_back(Progress::Spawning);
      working.push_back(Progress::SpawnFailed);
    }
    for (Phase ph : live) {
      // The background work's own events, in any live phase.
      if (x) {
        add(t, {ph, Progress::Spawning, x}, {.kind = EK::SpawnDone}, {ph, Progress::HandedOver, x}, {});
        add(t, {ph, Progress::Spawning, x}, {.kind = EK::SpawnFailed}, {ph, Progress::SpawnFailed, x}, {});
      }
      if (ph == Phase::Cancelling)
        add(t, {ph, Progress::HandedOver, x}, {.kind = EK::PostBegin}, {ph, Progress::Withdrawn, x}, {A::SkipPost});
      else
        add(t, {ph, Progress::HandedOver, x}, {.kind = EK::PostBegin}, {ph, Progress::Posting, x}, {A::Post});
      add(t, {ph, Progress::Posting, x}, {.kind = EK::Posted}, {ph, Progress::Moving, x}, {});
      add(t, {ph, Progress::Moving, x}, {.kind = EK::MovesComplete}, {ph, Progress::Done, x}, {});
    }
    for (Progress p : working) {
      const State o{Phase::Overlapping, p, x};
      add(t, o, {.kind = EK::RemapPoint, .completion = Completion::NotYet}, o, {});
      add(t, o, {.kind = EK::RemapPoint, .completion = Completion::Defer}, o, {A::RecordDeferral});
      for (Completion c : {Completion::Complete, Completion::WaitThenComplete})
        add(t, o, {.kind = EK::RemapPoint, .completion = c}, {Phase::Completing, p, x}, {A::JoinAndAgree});
      if (x)  // some rank's spawn failed: joined and reported, whatever the completion says
        for (Completion c : {Completion::NotYet, Completion::Complete, Completion::WaitThenComplete, Completion::Defer})
          add(t, o, {.kind = EK::RemapPoint, .completion = c, .any_failed = true}, {Phase::Completing, p, x},
              {A::JoinAndAgree});
      add(t, o, {.kind = EK::Cancel}, {Phase::Cancelling, p, x}, {A::JoinAndAgree});
    }
    // Joined: every rank's helper joined, the MAX over the ranks.
    const Event ok_posted{.kind = EK::Joined, .any_failed = false, .any_posted = true};
    const Event none{.kind = EK::Joined, .any_failed = false, .any_posted = false};
    const Event failed{.kind = EK::Joined, .any_failed = true, .any_posted = false};
    for (Progress p : {Progress::Moving, Progress::Done}) {
      add(t, {Phase::Completing, p, x}, ok_posted, {Phase::Completing, Progress::Done, x},
          {A::WaitMoves, A::CheckConstants});
      std::vector<Action> cancel = {A::WaitMoves, A::Unstage};
      if (x) cancel.push_back(A::NewcomersLeave);
      cancel.push_back(A::RecordCancel);
      add(t, {Phase::Cancelling, p, x}, ok_posted, {Phase::Cancelled, Progress::Done, x}, cancel);
    }
    {
      std::vector<Action> post_now = {A::PostNow, A::WaitMoves, A::Unstage};
      std::vector<Action> withdraw = {A::Unstage};
      if (x) {
        post_now.push_back(A::NewcomersLeave);
        withdraw.push_back(A::NewcomersLeave);
      }
      post_now.push_back(A::RecordCancel);
      withdraw.push_back(A::RecordCancel);
      add(t, {Phase::Cancelling, Progress::Withdrawn, x}, ok_posted, {Phase::Cancelled, Progress::Done, x}, post_now);
      add(t, {Phase::Cancelling, Progress::Withdrawn, x}, none, {Phase::Cancelled, Progress::Withdrawn, x}, withdraw);
    }
    if (x) {
      add(t, {Phase::Completing, Progress::SpawnFailed, x}, failed, {Phase::Failed, Progress::SpawnFailed, x},
          {A::ReportFailure});
      add(t, {Phase::Cancelling, Progress::SpawnFailed, x}, failed, {Phase::Cancelled, Progress::SpawnFailed, x},
          {A::Unstage, A::RecordCancel});
    }
    // Checked: the constant matrices compared at the completing point.
    std::vector<Action> done, changed;
    if (x) {
      done.push_back(A::TellNewcomers);
      changed.push_back(A::TellNewcomers);
    }
    done.insert(done.end(), {A::FinishMoves, A::Switch});
    changed.push_back(A::ReportChanged);
    const State waited{Phase::Completing, Progress::Done, x};
    add(t, waited, {.kind = EK::Checked, .changed = false}, {Phase::Completed, Progress::Done, x}, done);
    add(t, waited, {.kind = EK::Checked, .changed = true}, {Phase::Failed, Progress::Done, x}, changed);
  }
  return t;
}

// Every state reachable from Idle through the machine.
std::vector<State> reachable() {
  std::vector<State> out{State{}};
  std::set<StateKey> seen{key(State{})};
  for (std::size_t i = 0; i < out.size(); ++i)
    for (const Event& e : all_events()) {
      const Transition t = next(out[i], e);
      if (t.ok() && seen.insert(key(t.next)).second) out.push_back(t.next);
    }
  return out;
}

std::string names(const std::vector<Action>& v) {
  std::string s;
  for (Action a : v) s += std::string(s.empty() ? "" : ", ") + to_string(a);
  return s;
}

// Runs events from Idle (each must be valid); the actions of the last one.
struct Path {
  State s;
  std::vector<Action> last;
  Path& operator()(const Event& e) {
    const Transition t = next(s, e);
    EXPECT_TRUE(t.ok()) << t.error;
    s = t.next;
    last = t.actions;
    return *this;
  }
};

const Event kCancel{.kind = EK::Cancel};
Event joined(bool failed, bool posted) { return {.kind = EK::Joined, .any_failed = failed, .any_posted = posted}; }

}  // namespace

TEST(BackgroundMachine, EveryReachableStateAndEventFollowsTheTable) {
  const Table table = expected_table();
  const std::vector<State> states = reachable();
  std::set<std::pair<StateKey, EventKey>> used;
  for (const State& s : states)
    for (const Event& e : all_events()) {
      const Transition t = next(s, e);
      const auto it = table.find({key(s), key(e)});
      const std::string where = to_string(s) + " + " + to_string(e.kind);
      if (it == table.end()) {
        EXPECT_FALSE(t.ok()) << where << " is not in the table but gives " << to_string(t.next);
        EXPECT_EQ(t.next, s) << where << ": an invalid event changed the state";
        EXPECT_NE(t.error.find(to_string(e.kind)), std::string::npos) << t.error;
        EXPECT_NE(t.error.find(to_string(s)), std::string::npos) << t.error;
        EXPECT_THROW(apply(s, e), Error) << where;
        continue;
      }
      used.insert(it->first);
      ASSERT_TRUE(t.ok()) << where << ": " << t.error;
      EXPECT_EQ(t.next, it->second.next) << where << " gives " << to_string(t.next);
      EXPECT_EQ(t.actions, it->second.actions) << where << " does [" << names(t.actions) << "], the table says ["
                                               << names(it->second.actions) << "]";
    }
  // No row of the table is unreachable (a row for a state the machine never enters).
  for (const auto& [k, row] : table)
    EXPECT_TRUE(used.count(k)) << "a table row from an unreachable state to " << to_string(row.next);
}

// A new phase, progress, event or action must be reachable and in the table (the counts
// are the enums' sizes; the switch statements' -Wswitch catches the rest).
TEST(BackgroundMachine, EveryPhaseProgressEventAndActionIsCovered) {
  std::set<int> phases, progress, kinds, actions;
  for (const State& s : reachable()) {
    phases.insert(static_cast<int>(s.phase));
    progress.insert(static_cast<int>(s.progress));
  }
  for (const Event& e : all_events()) kinds.insert(static_cast<int>(e.kind));
  for (const auto& [k, row] : expected_table())
    for (Action a : row.actions) actions.insert(static_cast<int>(a));
  EXPECT_EQ(static_cast<int>(phases.size()), kPhaseCount);
  EXPECT_EQ(static_cast<int>(progress.size()), kProgressCount);
  EXPECT_EQ(static_cast<int>(kinds.size()), kEventKindCount);
  EXPECT_EQ(static_cast<int>(actions.size()), kActionCount);
  EXPECT_EQ(*phases.rbegin(), kPhaseCount - 1);
  EXPECT_EQ(*progress.rbegin(), kProgressCount - 1);
  for (int i = 0; i < kPhaseCount; ++i) EXPECT_STRNE(to_string(static_cast<Phase>(i)), "?");
  for (int i = 0; i < kProgressCount; ++i) EXPECT_STRNE(to_string(static_cast<Progress>(i)), "?");
  for (int i = 0; i < kEventKindCount; ++i) EXPECT_STRNE(to_string(static_cast<EventKind>(i)), "?");
  for (int i = 0; i < kActionCount; ++i) EXPECT_STRNE(to_string(static_cast<Action>(i)), "?");
}

// The paths of a completion: an expansion spawned by the helper thread, a shrink.
TEST(BackgroundMachine, AnExpansionCompletesThroughSpawnPostMoveAndSwitch) {
  Path r;
  r({.kind = EK::Begin, .spawn_in_helper = true, .expand = true})({.kind = EK::SpawnDone})({.kind = EK::PostBegin});
  EXPECT_EQ(r.last, std::vector<Action>{A::Post});
  r({.kind = EK::Posted})({.kind = EK::RemapPoint, .completion = Completion::Defer});
  EXPECT_EQ(r.last, std::vector<Action>{A::RecordDeferral});
  r({.kind = EK::MovesComplete})({.kind = EK::RemapPoint, .completion = Completion::Complete})(joined(false, true));
  EXPECT_EQ(r.last, (std::vector<Action>{A::WaitMoves, A::CheckConstants}));
  r({.kind = EK::Checked, .changed = false});
  EXPECT_EQ(r.s, (State{Phase::Completed, Progress::Done, true}));
  EXPECT_EQ(r.last, (std::vector<Action>{A::TellNewcomers, A::FinishMoves, A::Switch}));
  EXPECT_TRUE(ended(r.s.phase));
}

TEST(BackgroundMachine, AShrinkCompletesWithoutNewcomersAndACompletionWaitsForAHelperStillPosting) {
  Path r;
  r({.kind = EK::Begin, .expand = false})({.kind = EK::PostBegin});
  // Mode wait: the completing point joins the helper while it posts; the posting finishes.
  r({.kind = EK::RemapPoint, .completion = Completion::WaitThenComplete})({.kind = EK::Posted});
  EXPECT_EQ(r.s, (State{Phase::Completing, Progress::Moving, false}));
  r(joined(false, true))({.kind = EK::Checked, .changed = false});
  EXPECT_EQ(r.last, (std::vector<Action>{A::FinishMoves, A::Switch}));
}

TEST(BackgroundMachine, AChangedConstantMatrixFailsTheCompletion) {
  Path r;
  r({.kind = EK::Begin, .expand = true})({.kind = EK::PostBegin})({.kind = EK::Posted});
  r({.kind = EK::RemapPoint, .completion = Completion::WaitThenComplete})(joined(false, true));
  r({.kind = EK::Checked, .changed = true});
  EXPECT_EQ(r.s.phase, Phase::Failed);
  EXPECT_EQ(r.last, (std::vector<Action>{A::TellNewcomers, A::ReportChanged}));
  EXPECT_THROW(apply(r.s, kCancel), Error);  // ended: nothing to cancel
}

TEST(BackgroundMachine, AFailedSpawnIsReportedAtTheNextRemapPointWhateverTheCompletion) {
  Path r;
  r({.kind = EK::Begin, .spawn_in_helper = true, .expand = true})({.kind = EK::SpawnFailed});
  EXPECT_EQ(r.s.progress, Progress::SpawnFailed);
  r({.kind = EK::RemapPoint, .completion = Completion::NotYet, .any_failed = true});
  EXPECT_EQ(r.last, std::vector<Action>{A::JoinAndAgree});
  r(joined(true, false));
  EXPECT_EQ(r.s, (State{Phase::Failed, Progress::SpawnFailed, true}));
  EXPECT_EQ(r.last, std::vector<Action>{A::ReportFailure});
}

// Cancel in each phase the resize can be cancelled in (Overlapping, at every point of
// the background work), and refused in every other.
TEST(BackgroundMachine, CancelWhileSpawningLetsTheSpawnFinishAndPostsNothing) {
  Path r;
  r({.kind = EK::Begin, .spawn_in_helper = true, .expand = true})(kCancel);
  EXPECT_EQ(r.last, std::vector<Action>{A::JoinAndAgree});
  r({.kind = EK::SpawnDone})({.kind = EK::PostBegin});
  EXPECT_EQ(r.last, std::vector<Action>{A::SkipPost});
  r(joined(false, false));
  EXPECT_EQ(r.s, (State{Phase::Cancelled, Progress::Withdrawn, true}));
  EXPECT_EQ(r.last, (std::vector<Action>{A::Unstage, A::NewcomersLeave, A::RecordCancel}));
}

TEST(BackgroundMachine, CancelWhileSpawningASpawnThatFailsHasNoNewcomersToTell) {
  Path r;
  r({.kind = EK::Begin, .spawn_in_helper = true, .expand = true})(kCancel)({.kind = EK::SpawnFailed})(joined(true, false));
  EXPECT_EQ(r.s, (State{Phase::Cancelled, Progress::SpawnFailed, true}));
  EXPECT_EQ(r.last, (std::vector<Action>{A::Unstage, A::RecordCancel}));
}

TEST(BackgroundMachine, CancelBeforePostingPostsToMatchARankThatPosted) {
  // This rank's helper was held before posting (hold-background) when the cancel came;
  // another rank had posted: this one posts now so the messages complete.
  Path r;
  r({.kind = EK::Begin, .expand = true})(kCancel)({.kind = EK::PostBegin});
  EXPECT_EQ(r.last, std::vector<Action>{A::SkipPost});
  r(joined(false, true));
  EXPECT_EQ(r.s, (State{Phase::Cancelled, Progress::Done, true}));
  EXPECT_EQ(r.last, (std::vector<Action>{A::PostNow, A::WaitMoves, A::Unstage, A::NewcomersLeave, A::RecordCancel}));
}

TEST(BackgroundMachine, CancelWhilePostingLetsThePostingFinishAndWaitsForTheMessages) {
  Path r;
  r({.kind = EK::Begin, .expand = false})({.kind = EK::PostBegin})(kCancel)({.kind = EK::Posted});
  EXPECT_EQ(r.s, (State{Phase::Cancelling, Progress::Moving, false}));
  r(joined(false, true));
  EXPECT_EQ(r.last, (std::vector<Action>{A::WaitMoves, A::Unstage, A::RecordCancel}));
  EXPECT_EQ(r.s.phase, Phase::Cancelled);
}

TEST(BackgroundMachine, CancelWhileMovingOrDoneWaitsForThePostedMessages) {
  for (bool done : {false, true}) {
    Path r;
    r({.kind = EK::Begin, .expand = true})({.kind = EK::PostBegin})({.kind = EK::Posted});
    if (done) r({.kind = EK::MovesComplete});
    r(kCancel);
    EXPECT_EQ(r.last, std::vector<Action>{A::JoinAndAgree});
    // Posted here: the ranks cannot agree that none posted.
    EXPECT_FALSE(next(r.s, joined(false, false)).ok());
    r(joined(false, true));
    EXPECT_EQ(r.last, (std::vector<Action>{A::WaitMoves, A::Unstage, A::NewcomersLeave, A::RecordCancel}));
  }
}

TEST(BackgroundMachine, CancelAfterTheSpawnFailedOnlyRecordsIt) {
  Path r;
  r({.kind = EK::Begin, .spawn_in_helper = true, .expand = true})({.kind = EK::SpawnFailed})(kCancel)(joined(true, false));
  EXPECT_EQ(r.last, (std::vector<Action>{A::Unstage, A::RecordCancel}));
}

TEST(BackgroundMachine, CancelIsRefusedWhenNothingOverlaps) {
  EXPECT_FALSE(next(State{}, kCancel).ok());  // idle
  for (Phase p : {Phase::Completing, Phase::Cancelling, Phase::Completed, Phase::Cancelled, Phase::Failed}) {
    const Transition t = next(State{p, Progress::Done, true}, kCancel);
    EXPECT_FALSE(t.ok()) << to_string(p);
    EXPECT_NE(t.error.find("cancel cannot happen"), std::string::npos) << t.error;
  }
}

// The Joined agreement is checked against what this rank saw.
TEST(BackgroundMachine, AJoinedAgreementThatContradictsThisRankIsAnError) {
  const State spawning{Phase::Cancelling, Progress::Spawning, true};
  EXPECT_NE(next(spawning, joined(false, false)).error.find("still working"), std::string::npos);
  const State failed{Phase::Completing, Progress::SpawnFailed, true};
  EXPECT_NE(next(failed, joined(false, false)).error.find("spawn failed but"), std::string::npos);
  const State moving{Phase::Completing, Progress::Moving, true};
  EXPECT_NE(next(moving, joined(true, false)).error.find("another rank"), std::string::npos);
  EXPECT_NE(next(failed, joined(true, true)).error.find("alike"), std::string::npos);
  EXPECT_NE(next(State{}, {.kind = EK::Begin, .spawn_in_helper = true, .expand = false}).error.find("spawns nothing"),
            std::string::npos);
  EXPECT_FALSE(next({Phase::Overlapping, Progress::Moving, false},
                    {.kind = EK::RemapPoint, .completion = Completion::NotYet, .any_failed = true}).ok());
}
