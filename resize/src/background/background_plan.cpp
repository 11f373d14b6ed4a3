// SPDX-License-Identifier: BSD-3-Clause
// Background resize, the pure part: completion decisions, the message plan
// of one matrix's non-blocking move (its bytes; redist's exchange packs), checksums and the
// overlap accounting.
#include "background/background_plan.hpp"

#include <algorithm>
#include <numeric>

#include "malleable/resize/types.hpp"

namespace resize {

std::string to_string(Background b) {
  switch (b) {
    case Background::Off: return "off";
    case Background::Wait: return "wait";
    case Background::Continue: return "continue";
  }
  return "?";
}

Background parse_background(const std::string& s) {
  if (s == "off" || s == "blocking") return Background::Off;
  if (s == "wait") return Background::Wait;
  if (s == "continue") return Background::Continue;
  throw Error("background: expected off, wait or continue, got '" + s + "'");
}

const char* to_string(Completion c) {
  switch (c) {
    case Completion::NotYet: return "not yet";
    case Completion::Complete: return "complete";
    case Completion::WaitThenComplete: return "wait, then complete";
    case Completion::Defer: return "defer";
  }
  return "?";
}

Completion decide_completion(int overlapped, int min_iterations, bool all_done, Background mode, bool last_chance) {
  if (last_chance) return all_done ? Completion::Complete : Completion::WaitThenComplete;
  if (overlapped < std::max(1, min_iterations)) return Completion::NotYet;
  if (all_done) return Completion::Complete;
  return mode == Background::Continue ? Completion::Defer : Completion::WaitThenComplete;
}

std::optional<std::string> blocking_reason(bool is_expand_or_shrink, bool any_constant, int remaining,
                                           int min_iterations, bool has_powers, bool spawn_hidden) {
  if (!is_expand_or_shrink) return std::string("a regrid moves no constant data in the background");
  if (!any_constant && !spawn_hidden)
    return std::string("no registered matrix is marked constant and no spawn runs in a helper thread");
  if (has_powers) return std::string("the decision sets mapping powers (extended layouts move at completion)");
  if (remaining >= 0 && remaining <= std::max(1, min_iterations))
    return "only " + std::to_string(remaining) + " iteration(s) left: no later remap point to complete it";
  return std::nullopt;
}

std::string second_request_refusal(const std::string& requested, const std::string& under_way, int begun_after) {
  return "a resize (" + under_way + ") is under way in the background since iteration " + std::to_string(begun_after) +
         "; the request to " + requested + " is refused (not queued): ask again after it completes";
}

std::int64_t MessagePlan::sent_bytes() const {
  std::int64_t s = 0;
  for (const auto& p : sends) s += p.bytes;
  return s;
}
std::int64_t MessagePlan::received_bytes() const {
  std::int64_t s = 0;
  for (const auto& p : recvs) s += p.bytes;
  return s;
}

MessagePlan plan_messages(const redist::Layout& a, const redist::Layout& b, int comm_size, int rank,
                          std::size_t elem_bytes) {
  MessagePlan mp;
  // AllAtOnce: every message posted at once, which is what non-blocking overlap wants.
  mp.plan = redist::make_plan(a, b, redist::Region::whole(a), comm_size, redist::ScheduleKind::AllAtOnce, rank);
  const auto eb = static_cast<std::int64_t>(elem_bytes);
  for (std::size_t k = 0; k < mp.plan.transfers.size(); ++k) {
    const auto& t = mp.plan.transfers[k];
    if (t.src != rank && t.dst != rank) continue;
    const std::int64_t bytes = t.elements() * eb;
    if (t.src == rank && t.dst == rank)
      mp.local_bytes += bytes;
    else if (t.src == rank)
      mp.sends.push_back({t.dst, k, bytes});
    else
      mp.recvs.push_back({t.src, k, bytes});
  }
  return mp;
}

std::uint64_t checksum(const void* data, std::size_t bytes) {
  std::uint64_t h = 1469598103934665603ull;
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t k = 0; k < bytes; ++k) {
    h ^= p[k];
    h *= 1099511628211ull;
  }
  return h;
}

double BackgroundSummary::slowdown() const {
  return iteration_before > 0 && iteration_during > 0 ? iteration_during / iteration_before : -1.0;
}

void BackgroundClock::begun(double t_start, double t_end, double iteration_before) {
  t_begin_start_ = t_start;
  t_begin_end_ = t_end;
  iteration_before_ = iteration_before;
  walls_.clear();
  deferred_ = 0;
}

void BackgroundClock::iteration(double wall) { walls_.push_back(wall); }
void BackgroundClock::deferred() { ++deferred_; }

BackgroundSummary BackgroundClock::complete(double t_start, double t_waited, double t_end) const {
  BackgroundSummary s;
  s.t_begin_stopped = std::max(0.0, t_begin_end_ - t_begin_start_);
  s.t_overlapped = std::max(0.0, t_start - t_begin_end_);
  s.t_complete_stopped = std::max(0.0, t_end - t_start);
  s.t_waited = std::clamp(t_waited, 0.0, s.t_complete_stopped);
  s.iterations = static_cast<int>(walls_.size());
  s.iteration_before = iteration_before_;
  if (!walls_.empty())
    s.iteration_during = std::accumulate(walls_.begin(), walls_.end(), 0.0) / static_cast<double>(walls_.size());
  s.deferred = deferred_;
  return s;
}

}  // namespace resize
