// SPDX-License-Identifier: BSD-3-Clause
// The per-client connection cap, pure (conn_cap.hpp).
#include "daemon/conn_cap.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cmath>

namespace cluster::arbiter {

std::size_t connections_within(std::size_t wanted, std::uint64_t nofile) {
  if (nofile <= kReservedFds) return 0;
  return static_cast<std::size_t>(std::min<std::uint64_t>(wanted, nofile - kReservedFds));
}

bool ConnCap::admit(const std::string& key, double now_s, bool* log) {
  std::size_t& n = open_[key];
  if (n < per_key_) {
    ++n;
    if (log) *log = false;
    return true;
  }
  ++refused_;
  const auto minute = static_cast<long long>(std::floor(now_s / 60));
  auto [it, fresh] = logged_minute_.try_emplace(key, minute);
  const bool say = fresh || it->second != minute;
  it->second = minute;
  if (log) *log = say;
  return false;
}

void ConnCap::release(const std::string& key) {
  auto it = open_.find(key);
  if (it == open_.end()) return;
  if (--it->second == 0) open_.erase(it);
}

std::size_t ConnCap::open(const std::string& key) const {
  auto it = open_.find(key);
  return it == open_.end() ? 0 : it->second;
}

std::size_t Admission::unauthenticated() const {
  std::size_t n = 0;
  for (const auto& [id, c] : conns_) n += !c.authenticated && !c.answering;
  return n;
}

std::uint64_t Admission::victim() const {
  std::map<std::string, std::size_t> groups, addresses;
  for (const auto& [id, c] : conns_)
    if (!c.authenticated && !c.answering) ++groups[c.peer.group], ++addresses[c.peer.address];
  if (groups.empty()) return 0;
  const auto most = [](const std::map<std::string, std::size_t>& m) {
    return std::max_element(m.begin(), m.end(), [](const auto& a, const auto& b) { return a.second < b.second; })->first;
  };
  const std::string group = most(groups);
  std::map<std::string, std::size_t> in_group;
  for (const auto& [id, c] : conns_)
    if (!c.authenticated && !c.answering && c.peer.group == group) in_group[c.peer.address] = addresses[c.peer.address];
  const std::string address = most(in_group);
  std::uint64_t oldest = 0;
  double since = 0;
  for (const auto& [id, c] : conns_)
    if (!c.authenticated && !c.answering && c.peer.address == address && (oldest == 0 || c.since < since))
      oldest = id, since = c.since;
  return oldest;
}

Admission::Arrival Admission::arrive(std::uint64_t id, const Peer& peer, double now_s) {
  Arrival a;
  if (conns_.size() >= max_total_ || unauthenticated() >= max_unauth_) {
    a.evict = victim();
    if (a.evict == 0) {
      ++turned_away_;
      return a;
    }
    conns_.erase(a.evict);
    ++evicted_;
  }
  conns_[id] = Conn{peer, now_s, false, false, 0};
  a.admit = true;
  return a;
}

bool Admission::authenticated(std::uint64_t id, std::uint32_t uid) {
  const auto it = conns_.find(id);
  if (it == conns_.end() || it->second.authenticated) return true;
  if (per_uid_open_[uid] >= per_uid_) {
    ++over_uid_cap_;
    return false;
  }
  it->second.authenticated = true;
  it->second.uid = uid;
  ++per_uid_open_[uid];
  return true;
}

void Admission::answering(std::uint64_t id) {
  const auto it = conns_.find(id);
  if (it != conns_.end()) it->second.answering = true;
}

void Admission::gone(std::uint64_t id) {
  const auto it = conns_.find(id);
  if (it == conns_.end()) return;
  if (it->second.authenticated) {
    auto u = per_uid_open_.find(it->second.uid);
    if (u != per_uid_open_.end() && --u->second == 0) per_uid_open_.erase(u);
  }
  conns_.erase(it);
}

Peer tcp_peer(const std::string& address) {
  std::string a = address;
  if (a.rfind("::ffff:", 0) == 0 && a.find('.') != std::string::npos) a = a.substr(7);  // IPv4-mapped
  if (a.find(':') == std::string::npos) {  // IPv4: its /24
    const auto dot = a.rfind('.');
    return Peer{"net " + (dot == std::string::npos ? a : a.substr(0, dot) + ".0") + "/24", "address " + a};
  }
  // IPv6: its /64, the first four groups as written (the kernel's text: "::" abbreviates)
  in6_addr bin{};
  if (::inet_pton(AF_INET6, a.c_str(), &bin) != 1) return Peer{"net " + a, "address " + a};
  for (int k = 8; k < 16; ++k) bin.s6_addr[k] = 0;
  char net[INET6_ADDRSTRLEN] = {0};
  ::inet_ntop(AF_INET6, &bin, net, sizeof net);
  return Peer{"net " + std::string(net) + "/64", "address " + a};
}

}  // namespace cluster::arbiter
