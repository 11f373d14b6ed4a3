// SPDX-License-Identifier: BSD-3-Clause
// The job's rank 0's bookkeeping of one expansion by joining (join_protocol.hpp, JoinLobby).
// Pure.
#include <algorithm>
#include <stdexcept>

#include "malleable/blacs_dyn/error.hpp"
#include "protocol/join_protocol.hpp"

namespace blacs_dyn::join {

namespace {
bool at_least(LaunchState s, LaunchState floor) {
  // The successful path's order; Refused and Cancelled are off it.
  constexpr LaunchState order[] = {LaunchState::Seen, LaunchState::Connected, LaunchState::Authenticated,
                                   LaunchState::Prepared, LaunchState::Ready, LaunchState::Merged};
  const auto pos = [&](LaunchState x) { return std::find(std::begin(order), std::end(order), x) - std::begin(order); };
  return pos(s) < std::ssize(order) && pos(s) >= pos(floor);
}
}  // namespace

bool JoinLobby::wanted(const std::string& launch) const {
  if (!want_.launches.empty())
    return std::find(want_.launches.begin(), want_.launches.end(), launch) != want_.launches.end();
  return true;
}

JoinLobby::Entry& JoinLobby::in(const std::string& launch, LaunchState need, const char* step) {
  const auto it = launches_.find(launch);
  if (it == launches_.end()) throw blacs_dyn::Error(BLACS_DYN_ERR_STATE, std::string("join lobby: ") + step + " of unknown launch " + launch);
  if (it->second.state != need)
    throw blacs_dyn::Error(BLACS_DYN_ERR_STATE, std::string("join lobby: ") + step + " of launch " + launch + " in state " +
                           to_string(it->second.state) + ", needs " + to_string(need));
  return it->second;
}

std::string JoinLobby::observe(const JoinRequest& req, const RequestFile& file) {
  if (known(req.launch)) return {};
  std::string why = refuse_request(req, file, job_, limits_, want_.at_start);
  // At the start only the start's launches join; a launch for a later expansion waits.
  if (why.empty() && want_.at_start && !req.at_start) return {};
  if (why.empty() && !wanted(req.launch)) return {};
  Entry e{req, why.empty() ? LaunchState::Seen : LaunchState::Refused, why, seen_++};
  launches_.emplace(req.launch, std::move(e));
  return why;
}

void JoinLobby::barred(const JoinRequest& req, const std::string& why) {
  if (known(req.launch) || !wanted(req.launch)) return;
  launches_.emplace(req.launch, Entry{req, LaunchState::Refused, why, seen_++});
}

std::string JoinLobby::next_to_connect() const {
  if (satisfied() && (want_.count > 0 || !want_.launches.empty())) return {};
  // Named launches merge in the want's order (their processes get ranks in that order,
  // the order the session placed them in): the next one waits for those before it.
  if (!want_.launches.empty()) {
    for (const auto& id : want_.launches) {
      const auto it = launches_.find(id);
      if (it == launches_.end() || it->second.state == LaunchState::Refused ||
          it->second.state == LaunchState::Cancelled)
        return {};
      if (it->second.state == LaunchState::Seen) return id;
    }
    return {};
  }
  int underway = 0;
  for (const auto& [id, e] : launches_) underway += at_least(e.state, LaunchState::Connected);
  if (want_.count > 0 && underway >= want_.count) return {};
  const Entry* best = nullptr;
  for (const auto& [id, e] : launches_)
    if (e.state == LaunchState::Seen && (!best || e.order < best->order)) best = &e;
  return best ? best->req.launch : std::string();
}

void JoinLobby::connected(const std::string& launch) { in(launch, LaunchState::Seen, "connected").state = LaunchState::Connected; }

std::string JoinLobby::hello(const std::string& launch, const JoinHello& h, std::string_view secret,
                             const ProofNonces& n) {
  Entry& e = in(launch, LaunchState::Connected, "hello");
  std::string why = refuse_hello(h, e.req, job_, secret, n);
  if (!why.empty()) {
    e.state = LaunchState::Refused;
    e.reason = why;
  }
  return why;
}

void JoinLobby::authenticated(const std::string& launch) {
  in(launch, LaunchState::Connected, "authenticated").state = LaunchState::Authenticated;
}

void JoinLobby::refuse(const std::string& launch, const std::string& why) {
  const auto it = launches_.find(launch);
  if (it == launches_.end()) throw blacs_dyn::Error(BLACS_DYN_ERR_STATE, "join lobby: refusing unknown launch " + launch);
  if (it->second.state == LaunchState::Merged) throw blacs_dyn::Error(BLACS_DYN_ERR_STATE, "join lobby: refusing merged launch " + launch);
  it->second.state = LaunchState::Refused;
  it->second.reason = why;
}

bool JoinLobby::satisfied() const {
  const auto ok = [&](const std::string& id) {
    const auto it = launches_.find(id);
    return it != launches_.end() && at_least(it->second.state, LaunchState::Authenticated);
  };
  if (!want_.launches.empty()) return std::all_of(want_.launches.begin(), want_.launches.end(), ok);
  int n = 0;
  for (const auto& [id, e] : launches_) n += ok(id);
  return want_.count > 0 ? n >= want_.count : true;
}

std::vector<std::string> JoinLobby::taken() const {
  std::vector<std::string> out;
  if (!want_.launches.empty()) {
    for (const auto& id : want_.launches) {
      const auto it = launches_.find(id);
      if (it != launches_.end() && at_least(it->second.state, LaunchState::Authenticated)) out.push_back(id);
    }
    return out;
  }
  std::vector<const Entry*> ready;
  for (const auto& [id, e] : launches_)
    if (at_least(e.state, LaunchState::Authenticated)) ready.push_back(&e);
  std::sort(ready.begin(), ready.end(), [](const Entry* a, const Entry* b) { return a->order < b->order; });
  for (const Entry* e : ready)
    if (want_.count == 0 || std::ssize(out) < want_.count) out.push_back(e->req.launch);
  return out;
}

std::vector<std::string> JoinLobby::missing() const {
  std::vector<std::string> out;
  for (const auto& id : want_.launches) {
    const auto it = launches_.find(id);
    if (it == launches_.end() || !at_least(it->second.state, LaunchState::Authenticated)) out.push_back(id);
  }
  return out;
}

bool JoinLobby::hopeless() const {
  for (const auto& id : want_.launches) {
    const auto it = launches_.find(id);
    if (it != launches_.end() && (it->second.state == LaunchState::Refused || it->second.state == LaunchState::Cancelled))
      return true;
  }
  return false;
}

void JoinLobby::prepared(const std::string& launch) {
  in(launch, LaunchState::Authenticated, "prepare").state = LaunchState::Prepared;
}
void JoinLobby::ready(const std::string& launch) { in(launch, LaunchState::Prepared, "ready").state = LaunchState::Ready; }
void JoinLobby::merged(const std::string& launch) { in(launch, LaunchState::Ready, "merge").state = LaunchState::Merged; }

void JoinLobby::cancelled(const std::string& launch) {
  const auto it = launches_.find(launch);
  if (it == launches_.end() || it->second.state == LaunchState::Merged || it->second.state == LaunchState::Refused)
    throw blacs_dyn::Error(BLACS_DYN_ERR_STATE, "join lobby: cancelling launch " + launch + " that is not under way");
  it->second.state = LaunchState::Cancelled;
}

LaunchState JoinLobby::state(const std::string& launch) const {
  const auto it = launches_.find(launch);
  if (it == launches_.end()) throw blacs_dyn::Error(BLACS_DYN_ERR_STATE, "join lobby: unknown launch " + launch);
  return it->second.state;
}

const JoinRequest& JoinLobby::request(const std::string& launch) const {
  const auto it = launches_.find(launch);
  if (it == launches_.end()) throw blacs_dyn::Error(BLACS_DYN_ERR_STATE, "join lobby: unknown launch " + launch);
  return it->second.req;
}

const std::string& JoinLobby::reason(const std::string& launch) const {
  const auto it = launches_.find(launch);
  if (it == launches_.end()) throw blacs_dyn::Error(BLACS_DYN_ERR_STATE, "join lobby: unknown launch " + launch);
  return it->second.reason;
}

}  // namespace blacs_dyn::join
