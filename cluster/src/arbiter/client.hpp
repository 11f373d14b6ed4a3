// SPDX-License-Identifier: BSD-3-Clause
// A job's side of the arbiter daemon: one request, one reply, over its Unix socket or
// TCP (RESIZE_ARBITER=tcp://HOST:PORT; parse_arbiter_address), with
// a MUNGE credential carrying the request. Never blocks longer than the timeout: connect,
// send and the reply each have a deadline.
#pragma once

#include <string>

#include "arbiter/protocol.hpp"

namespace cluster::arbiter {

struct ClientOptions {
  std::string socket;        // the daemon's socket path or tcp://HOST:PORT (RESIZE_ARBITER)
  std::string munge_socket;  // munged's socket (empty: libmunge's default)
  double timeout_s = 5;      // the whole exchange
};
// The daemon's reply (ok or its refusal). Throws Error when no reply came: the daemon is
// unreachable, silent past the timeout, or answered something that is not a reply.
Reply ask(const ClientOptions& o, const Request& r);
// The exchange below ask(): a credential's text in, the reply's JSON out (tests send
// their own credentials: replayed, expired).
std::string exchange(const ClientOptions& o, const std::string& payload);

}  // namespace cluster::arbiter
