// SPDX-License-Identifier: BSD-3-Clause
// The per-client connection cap of malleable-arbiterd, pure: how many connections each
// client key holds open (a Unix-socket client's uid from SO_PEERCRED, a TCP client's peer
// address), whether one more is admitted, and whether a refusal is worth a log line (at
// most one per key and minute). Root and SlurmUser are capped like anyone: the cap only
// bounds idle connections, and a legitimate client holds one at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace cluster::arbiter {

// Descriptors the daemon keeps for its own beside its connections (standard streams,
// listeners, the view's pipe and its commands' pipes, MUNGE's socket, the journal).
inline constexpr std::size_t kReservedFds = 32;
// The most connections open at once under an open-file limit of `nofile` descriptors:
// `wanted`, or fewer when the limit leaves less than that beside kReservedFds; 0 when it
// leaves none.
std::size_t connections_within(std::size_t wanted, std::uint64_t nofile);

class ConnCap {
 public:
  explicit ConnCap(std::size_t per_key) : per_key_(per_key) {}
  // A connection of `key` at `now_s`: true = admitted (counted until release(key)).
  // false = over the cap: refused() counts it; *log says whether to log it (the first
  // refusal of this key in the current minute).
  bool admit(const std::string& key, double now_s, bool* log);
  void release(const std::string& key);
  std::size_t open(const std::string& key) const;
  std::size_t refused() const { return refused_; }
  std::size_t per_key() const { return per_key_; }

 private:
  std::size_t per_key_;
  std::map<std::string, std::size_t> open_;
  std::map<std::string, long long> logged_minute_;
  std::size_t refused_ = 0;
};

}  // namespace cluster::arbiter
