// SPDX-License-Identifier: BSD-3-Clause
// The background resize's transition function (background_machine.hpp). Pure.
#include "background/background_machine.hpp"

#include "malleable/resize/types.hpp"

namespace resize::background {

namespace {

Transition refuse(const State& s, const Event& e, const std::string& why) {
  return {s, {}, std::string("background resize: ") + to_string(e.kind) + " cannot happen in " + to_string(s) + ": " +
                     why};
}

Transition to(State s, Progress p, std::vector<Action> actions) {
  s.progress = p;
  return {s, std::move(actions), {}};
}

Transition to(State s, Phase ph, Progress p, std::vector<Action> actions) {
  s.phase = ph;
  return to(s, p, std::move(actions));
}

// The phases in which the background work may still report (its helper not joined yet).
bool live(Phase p) { return p == Phase::Overlapping || p == Phase::Completing || p == Phase::Cancelling; }

// Events of the background work: they move the progress on, whatever the main thread's
// phase (the helper does not know it), except that a cancelled resize posts nothing.
Transition work(const State& s, const Event& e) {
  if (!live(s.phase)) return refuse(s, e, "no background work is under way");
  const auto expect = [&](Progress want) -> std::string {
    return s.progress == want ? std::string() : std::string("the work is not ") + to_string(want);
  };
  std::string bad;
  switch (e.kind) {
    case EventKind::SpawnDone:
      if ((bad = expect(Progress::Spawning)).empty()) return to(s, Progress::HandedOver, {});
      break;
    case EventKind::SpawnFailed:
      if ((bad = expect(Progress::Spawning)).empty()) return to(s, Progress::SpawnFailed, {});
      break;
    case EventKind::PostBegin:
      if ((bad = expect(Progress::HandedOver)).empty()) {
        if (s.phase == Phase::Cancelling) return to(s, Progress::Withdrawn, {Action::SkipPost});
        return to(s, Progress::Posting, {Action::Post});
      }
      break;
    case EventKind::Posted:
      if ((bad = expect(Progress::Posting)).empty()) return to(s, Progress::Moving, {});
      break;
    default:  // MovesComplete
      if ((bad = expect(Progress::Moving)).empty()) return to(s, Progress::Done, {});
      break;
  }
  return refuse(s, e, bad);
}

Transition remap_point(const State& s, const Event& e) {
  if (s.phase != Phase::Overlapping) return refuse(s, e, "only a resize that overlaps is completed");
  if (e.any_failed) {
    if (!s.expand) return refuse(s, e, "a shrink spawns nothing, so no spawn can have failed");
    return to(s, Phase::Completing, s.progress, {Action::JoinAndAgree});
  }
  switch (e.completion) {
    case Completion::NotYet:
      return to(s, s.progress, {});
    case Completion::Defer:
      return to(s, s.progress, {Action::RecordDeferral});
    default:  // Complete, WaitThenComplete
      return to(s, Phase::Completing, s.progress, {Action::JoinAndAgree});
  }
}

// Every rank joined its helper; {any_failed, any_posted} is the MAX over the ranks.
Transition joined(const State& s, const Event& e) {
  if (s.phase != Phase::Completing && s.phase != Phase::Cancelling)
    return refuse(s, e, "only a completing or cancelling point joins the helper");
  const Progress p = s.progress;
  if (p == Progress::Spawning || p == Progress::HandedOver || p == Progress::Posting)
    return refuse(s, e, "the helper is still working: join it first");
  if (e.any_failed && e.any_posted) return refuse(s, e, "a spawn fails on every rank alike, so none can have posted");
  if (e.any_failed != (p == Progress::SpawnFailed))
    return refuse(s, e, e.any_failed ? "the spawn failed on another rank but not on this one"
                                     : "this rank's spawn failed but the ranks agree none did");
  if (posted(p) && !e.any_posted) return refuse(s, e, "this rank posted but the ranks agree none did");
  if (s.phase == Phase::Completing) {
    if (e.any_failed) return to(s, Phase::Failed, p, {Action::ReportFailure});
    if (!posted(p)) return refuse(s, e, "a completing rank has posted its messages");
    return to(s, Progress::Done, {Action::WaitMoves, Action::CheckConstants});
  }
  // Cancelling: if some rank posted, every rank posts and the messages complete (a
  // posted message is not taken back); an expansion whose spawn worked lets its newcomers go.
  if (e.any_failed) return to(s, Phase::Cancelled, p, {Action::Unstage, Action::RecordCancel});
  std::vector<Action> out;
  if (e.any_posted && !posted(p)) out.push_back(Action::PostNow);
  if (e.any_posted) out.push_back(Action::WaitMoves);
  out.push_back(Action::Unstage);
  if (s.expand) out.push_back(Action::NewcomersLeave);
  out.push_back(Action::RecordCancel);
  return to(s, Phase::Cancelled, e.any_posted ? Progress::Done : p, std::move(out));
}

Transition checked(const State& s, const Event& e) {
  if (s.phase != Phase::Completing || s.progress != Progress::Done)
    return refuse(s, e, "the constant matrices are compared once the completing point waited for the moves");
  std::vector<Action> out;
  if (s.expand) out.push_back(Action::TellNewcomers);
  if (e.changed) {
    out.push_back(Action::ReportChanged);
    return to(s, Phase::Failed, Progress::Done, std::move(out));
  }
  out.push_back(Action::FinishMoves);
  out.push_back(Action::Switch);
  return to(s, Phase::Completed, Progress::Done, std::move(out));
}

}  // namespace

bool ended(Phase p) { return p == Phase::Completed || p == Phase::Cancelled || p == Phase::Failed; }

bool posted(Progress p) { return p == Progress::Moving || p == Progress::Done; }

Transition next(const State& s, const Event& e) {
  if (ended(s.phase)) return refuse(s, e, "the resize has ended");
  switch (e.kind) {
    case EventKind::Begin: {
      if (s.phase != Phase::Idle) return refuse(s, e, "a resize is already under way");
      if (e.spawn_in_helper && !e.expand) return refuse(s, e, "a shrink spawns nothing");
      State n{Phase::Overlapping, e.spawn_in_helper ? Progress::Spawning : Progress::HandedOver, e.expand};
      return {n, {Action::StartHelper}, {}};
    }
    case EventKind::NewcomerPosted:
      if (s.phase != Phase::Idle) return refuse(s, e, "a newcomer posts its receives once, first");
      return {State{Phase::Overlapping, Progress::Moving, true}, {}, {}};
    case EventKind::RemapPoint:
      return remap_point(s, e);
    case EventKind::Cancel:
      if (s.phase != Phase::Overlapping) return refuse(s, e, "only a resize that overlaps is cancelled");
      return to(s, Phase::Cancelling, s.progress, {Action::JoinAndAgree});
    case EventKind::Joined:
      return joined(s, e);
    case EventKind::Checked:
      return checked(s, e);
    case EventKind::SpawnDone:
    case EventKind::SpawnFailed:
    case EventKind::PostBegin:
    case EventKind::Posted:
    case EventKind::MovesComplete:
      return work(s, e);
  }
  return refuse(s, e, "unknown event");
}

Transition apply(const State& s, const Event& e) {
  Transition t = next(s, e);
  if (!t.ok()) throw Error(t.error);
  return t;
}

const char* to_string(Phase p) {
  switch (p) {
    case Phase::Idle: return "idle";
    case Phase::Overlapping: return "overlapping";
    case Phase::Completing: return "completing";
    case Phase::Cancelling: return "cancelling";
    case Phase::Completed: return "completed";
    case Phase::Cancelled: return "cancelled";
    case Phase::Failed: return "failed";
  }
  return "?";
}

const char* to_string(Progress p) {
  switch (p) {
    case Progress::None: return "none";
    case Progress::Spawning: return "spawning";
    case Progress::HandedOver: return "handed over";
    case Progress::Posting: return "posting";
    case Progress::Moving: return "moving";
    case Progress::Done: return "done";
    case Progress::SpawnFailed: return "spawn failed";
    case Progress::Withdrawn: return "withdrawn";
  }
  return "?";
}

const char* to_string(EventKind k) {
  switch (k) {
    case EventKind::Begin: return "begin";
    case EventKind::NewcomerPosted: return "newcomer posted";
    case EventKind::RemapPoint: return "remap point";
    case EventKind::Cancel: return "cancel";
    case EventKind::Joined: return "joined";
    case EventKind::Checked: return "checked";
    case EventKind::SpawnDone: return "spawn done";
    case EventKind::SpawnFailed: return "spawn failed";
    case EventKind::PostBegin: return "post begin";
    case EventKind::Posted: return "posted";
    case EventKind::MovesComplete: return "moves complete";
  }
  return "?";
}

const char* to_string(Action a) {
  switch (a) {
    case Action::StartHelper: return "start helper";
    case Action::Post: return "post";
    case Action::SkipPost: return "skip post";
    case Action::RecordDeferral: return "record deferral";
    case Action::JoinAndAgree: return "join and agree";
    case Action::ReportFailure: return "report failure";
    case Action::WaitMoves: return "wait moves";
    case Action::CheckConstants: return "check constants";
    case Action::TellNewcomers: return "tell newcomers";
    case Action::ReportChanged: return "report changed";
    case Action::FinishMoves: return "finish moves";
    case Action::Switch: return "switch";
    case Action::PostNow: return "post now";
    case Action::Unstage: return "unstage";
    case Action::NewcomersLeave: return "newcomers leave";
    case Action::RecordCancel: return "record cancel";
  }
  return "?";
}

std::string to_string(const State& s) {
  return std::string(to_string(s.phase)) + "/" + to_string(s.progress) + (s.expand ? " (expansion)" : " (shrink)");
}

}  // namespace resize::background
