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

// Who holds the daemon's connections, and who gets in when they are all taken, pure. A
// connection is unauthenticated until its first frame's MUNGE credential is read
// (first-frame deadline, a pool of its own), then authenticated as a uid (its request
// decided, the reply on its way; at most per_uid at once per uid). When a new connection
// finds the unauthenticated pool or the total full, one unauthenticated connection is
// closed to make room: of the peer group holding the most of them (a local uid, or a TCP
// subnet: /24 for IPv4, /64 for IPv6), of its address holding the most, the oldest. So
// no uid, address or subnet can hold the daemon against others: a flood only pushes out
// its own, and a client that sends its request at once is in and out before its turn.
// A new connection is turned away only when every connection is authenticated.
struct Peer {
  std::string group;    // "uid 1000" (Unix socket), "net 10.0.0.0/24", "net fd00::/64"
  std::string address;  // "uid 1000", "address 10.0.0.5"
};
class Admission {
 public:
  Admission(std::size_t max_total, std::size_t max_unauthenticated, std::size_t per_uid)
      : max_total_(max_total), max_unauth_(max_unauthenticated), per_uid_(per_uid) {}
  struct Arrival {
    bool admit = false;       // false: every connection is authenticated: turned away
    std::uint64_t evict = 0;  // an unauthenticated connection to close first (0: none)
  };
  // Connection `id` arrives from `peer` at `now_s`; when it is admitted (and the evicted
  // one, if any, gone) it is counted as unauthenticated.
  Arrival arrive(std::uint64_t id, const Peer& peer, double now_s);
  // Its credential says `uid`: false when uid already holds per_uid authenticated
  // connections (the request is refused; the connection stays counted until gone()).
  bool authenticated(std::uint64_t id, std::uint32_t uid);
  // Its (refusal's) reply is on its way: out of the unauthenticated pool, never closed
  // to make room (its client would see the connection cut instead of the reason).
  void answering(std::uint64_t id);
  void gone(std::uint64_t id);
  std::size_t open() const { return conns_.size(); }
  std::size_t unauthenticated() const;
  std::size_t evicted() const { return evicted_; }            // closed to make room
  std::size_t turned_away() const { return turned_away_; }    // all were authenticated
  std::size_t over_uid_cap() const { return over_uid_cap_; }  // refused by per_uid

 private:
  struct Conn {
    Peer peer;
    double since = 0;
    bool authenticated = false;
    bool answering = false;
    std::uint32_t uid = 0;
  };
  std::size_t max_total_, max_unauth_, per_uid_;
  std::map<std::uint64_t, Conn> conns_;
  std::map<std::uint32_t, std::size_t> per_uid_open_;
  std::size_t evicted_ = 0, turned_away_ = 0, over_uid_cap_ = 0;
  std::uint64_t victim() const;  // 0: none unauthenticated
};
// The peer group and address of a TCP peer's numeric address ("10.0.0.5", "fd00::5",
// "::ffff:10.0.0.5" as IPv4).
Peer tcp_peer(const std::string& address);

}  // namespace cluster::arbiter
