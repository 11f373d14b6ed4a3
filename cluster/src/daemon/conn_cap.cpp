// SPDX-License-Identifier: BSD-3-Clause
// The per-client connection cap, pure (conn_cap.hpp).
#include "daemon/conn_cap.hpp"

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

}  // namespace cluster::arbiter
