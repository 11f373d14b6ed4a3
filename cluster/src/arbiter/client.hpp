// SPDX-License-Identifier: BSD-3-Clause
// A job's side of the arbiter daemon: one request, one reply, over its Unix socket or
// TCP (RESIZE_ARBITER=tcp://HOST:PORT; parse_arbiter_address), with
// a MUNGE credential carrying the request. Never blocks longer than the timeout: connect,
// send and the reply each have a deadline.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "arbiter/protocol.hpp"

namespace cluster::arbiter {

struct ClientOptions {
  std::string socket;        // the daemon's socket path or tcp://HOST:PORT (RESIZE_ARBITER)
  std::string munge_socket;  // munged's socket (empty: libmunge's default)
  double timeout_s = 5;      // the whole exchange
  // Who the arbiter runs as (a user's name or a uid; RESIZE_ARBITER_USER): a reply is
  // taken only in a MUNGE credential of this uid. The default is the user the packaged
  // unit runs the daemon as.
  std::string arbiter_user = slurm::kDefaultArbiterUser;
};
// The daemon's reply (ok or its refusal) to `r`, sent with a fresh nonce. Throws Error
// when no reply came (the daemon is unreachable or silent past the timeout) and when what
// came is not the arbiter's reply to this request: not a MUNGE credential, one of another
// uid than the arbiter's user's, or not echoing the request's nonce.
Reply ask(const ClientOptions& o, Request r);
// A user's name or a uid as a uid; throws Error naming `what` when there is no such user.
std::uint32_t uid_of_user(const std::string& user, const std::string& what);
// The exchange below ask(): the daemon's challenge read (a first frame that is not one is
// an error, nothing sent), `make(challenge)`'s credential sent, the reply's frame payload
// out. The second form sends `payload` whatever the challenge (tests: replayed, expired,
// recorded credentials).
std::string exchange(const ClientOptions& o, const std::function<std::string(const std::string& challenge)>& make);
std::string exchange(const ClientOptions& o, const std::string& payload);

}  // namespace cluster::arbiter
