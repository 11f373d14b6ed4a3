// SPDX-License-Identifier: BSD-3-Clause
// The job's rank 0's memory of failed hand-shakes across expansions (join_protocol.hpp,
// JoinGuard): launch ids and peers barred, the window of failures and the back-off. Pure:
// the caller gives the time.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "protocol/join_protocol.hpp"

namespace blacs_dyn::join {

namespace {

std::string secs(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", std::max(0.0, std::ceil(s)));
  return buf;
}

std::string secs1(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", std::max(0.0, s));
  return buf;
}

// (a request's fields passed parse_request: printable, bounded; shown shorter still)
std::string peer_of(const JoinRequest& r) {
  return "pid " + std::to_string(r.pid) + " on " + r.host.substr(0, 70);
}

std::string claimed(const JoinRequest& r) {
  return "launch " + r.launch + " (" + peer_of(r) + ", uid " + std::to_string(r.uid) + " claimed)";
}

}  // namespace

JoinGuard::JoinGuard(GuardLimits limits)
    : limits_(limits), backoff_(limits.backoff), paused_until_(-std::numeric_limits<double>::infinity()) {
  limits_.bound = std::max(limits_.bound, 0);
  limits_.ids = std::max<std::size_t>(limits_.ids, 1);
  limits_.peers = std::max<std::size_t>(limits_.peers, 1);
  limits_.max_backoff = std::max(limits_.max_backoff, limits_.backoff);
  backoff_ = limits_.backoff;
}

std::string JoinGuard::refuse(const JoinRequest& req, double t) const {
  if (std::find(ids_.begin(), ids_.end(), req.launch) != ids_.end())
    return claimed(req) + ": this launch id failed a hand-shake with the job before: never connected to again";
  if (const auto it = peers_.find(peer_of(req)); it != peers_.end() && t < it->second.until)
    return claimed(req) + ": its peer (" + peer_of(req) + ") failed a hand-shake as launch " + it->second.launch +
           " " + secs1(t - it->second.at) + " s ago: not connected to again for " + secs(it->second.until - t) +
           " s more (the join back-off)";
  return {};
}

std::string JoinGuard::failed(const JoinRequest& req, double t) {
  // The launch id, for good (the oldest forgotten beyond the bound).
  if (std::find(ids_.begin(), ids_.end(), req.launch) == ids_.end()) {
    ids_.push_back(req.launch);
    while (ids_.size() > limits_.ids) ids_.pop_front();
  }
  // The peer, for the back-off in force; the expired ones go first, then the one barred
  // for the shortest time.
  for (auto it = peers_.begin(); it != peers_.end();) it = it->second.until <= t ? peers_.erase(it) : std::next(it);
  peers_[peer_of(req)] = Bar{t + backoff_, t, req.launch};
  while (peers_.size() > limits_.peers)
    peers_.erase(std::min_element(peers_.begin(), peers_.end(), [](const auto& a, const auto& b) {
      return a.second.until < b.second.until;
    }));
  // The window.
  while (!failures_.empty() && failures_.front() <= t - limits_.window) failures_.pop_front();
  failures_.push_back(t);
  if (static_cast<int>(failures_.size()) <= limits_.bound) return {};
  pause_length_ = backoff_;
  pause_failures_ = static_cast<int>(failures_.size());
  paused_until_ = t + pause_length_;
  backoff_ = std::min(2 * backoff_, limits_.max_backoff);
  failures_.clear();
  return "joining paused for " + secs(pause_length_) + " s after " + std::to_string(pause_failures_) +
         " failed hand-shakes in " + secs(limits_.window) + " s (the last: " + claimed(req) +
         "); launches waiting stay waiting, the job computes on at its size";
}

void JoinGuard::joined() { backoff_ = limits_.backoff; }

std::string JoinGuard::pause_reason(double t) const {
  if (!paused(t)) return {};
  return "joining is paused for " + secs(paused_until_ - t) + " s more after " + std::to_string(pause_failures_) +
         " failed hand-shakes in " + secs(limits_.window) + " s (a back-off of " + secs(pause_length_) +
         " s); launches waiting stay waiting";
}

}  // namespace blacs_dyn::join
