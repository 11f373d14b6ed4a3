// SPDX-License-Identifier: BSD-3-Clause
// A job's side of the arbiter daemon (client.hpp): a non-blocking Unix or TCP socket, poll()
// with one deadline for the whole exchange.
#include "arbiter/client.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netdb.h>
#include <pwd.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

#include "arbiter/munge.hpp"
#include "slurm/number.hpp"

namespace cluster::arbiter {

namespace {
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};
double clock_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
// Waits for `events` on fd until the deadline; throws Error naming `what` at timeout.
void wait_for(int fd, short events, double deadline, const char* what, const std::string& path) {
  for (;;) {
    const double left = deadline - clock_s();
    if (left <= 0) throw Error(std::string("the arbiter at ") + path + " did not " + what + " in time");
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(left * 1000) + 1);
    if (n > 0) return;
    if (n < 0 && errno != EINTR) throw Error(std::string("poll: ") + std::strerror(errno));
  }
}
}  // namespace

namespace {
// A connected non-blocking socket to the daemon (a Unix path or tcp://HOST:PORT), within
// the deadline. Each TCP address of HOST is tried in turn.
void connect_to(Fd& s, const std::string& where, double deadline) {
  const ArbiterAddress a = parse_arbiter_address(where);
  const auto finish = [&](const sockaddr* addr, socklen_t len) -> std::string {  // "" when connected
    if (::connect(s.fd, addr, len) == 0) return "";
    if (errno != EINPROGRESS && errno != EAGAIN) return std::strerror(errno);
    wait_for(s.fd, POLLOUT, deadline, "accept the connection", where);
    int err = 0;
    socklen_t elen = sizeof err;
    ::getsockopt(s.fd, SOL_SOCKET, SO_ERROR, &err, &elen);
    return err ? std::strerror(err) : "";
  };
  if (!a.tcp) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (a.path.size() >= sizeof addr.sun_path) throw Error("the arbiter's socket path '" + a.path + "' is too long");
    std::memcpy(addr.sun_path, a.path.c_str(), a.path.size() + 1);
    s.fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s.fd < 0) throw Error(std::string("socket: ") + std::strerror(errno));
    if (const std::string why = finish(reinterpret_cast<sockaddr*>(&addr), sizeof addr); !why.empty())
      throw Error("cannot reach the arbiter at " + where + ": " + why);
    return;
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* res = nullptr;
  const std::string port = std::to_string(a.where.port);
  if (const int e = ::getaddrinfo(a.where.host.c_str(), port.c_str(), &hints, &res); e != 0)
    throw Error("cannot reach the arbiter at " + where + ": " + ::gai_strerror(e));
  std::string why = "no address";
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    s.fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (s.fd < 0) {
      why = std::strerror(errno);
      continue;
    }
    try {
      why = finish(ai->ai_addr, ai->ai_addrlen);
    } catch (...) {
      ::freeaddrinfo(res);
      throw;
    }
    if (why.empty()) break;
    ::close(s.fd);
    s.fd = -1;
  }
  ::freeaddrinfo(res);
  if (s.fd < 0) throw Error("cannot reach the arbiter at " + where + ": " + why);
}
}  // namespace

namespace {
// One frame of at most `max` bytes from s, `in` holding what was read before (what
// follows the frame stays in it), within the deadline; `what` names it in the errors.
std::string read_one(const Fd& s, std::string& in, std::size_t max, double deadline, const std::string& where,
                     const char* what) {
  for (;;) {
    const FrameRead f = read_frame(in, max);
    if (f.status == FrameRead::Status::Complete) {
      in.erase(0, f.consumed);
      return f.payload;
    }
    if (f.status == FrameRead::Status::Refused) throw Error(std::string("the arbiter's ") + what + ": " + f.why);
    wait_for(s.fd, POLLIN, deadline, what[0] == 'c' ? "send its challenge" : "reply", where);
    char buf[4096];
    const ssize_t n = ::recv(s.fd, buf, sizeof buf, 0);
    if (n > 0) in.append(buf, static_cast<std::size_t>(n));
    else if (n == 0)
      throw Error("the arbiter at " + where + " closed the connection without " +
                  (what[0] == 'c' ? std::string("a challenge (an arbiter older than this library?)") : std::string("a reply")));
    else if (errno != EAGAIN && errno != EINTR)
      throw Error("reading from the arbiter at " + where + " failed: " + std::strerror(errno));
  }
}
}  // namespace

std::string exchange(const ClientOptions& o, const std::function<std::string(const std::string&)>& make) {
  const double deadline = clock_s() + o.timeout_s;
  Fd s;
  connect_to(s, o.socket, deadline);
  // The connection's challenge first: the request names it (protocol.hpp).
  std::string in;
  const std::string said = read_one(s, in, kMaxChallengeFrame, deadline, o.socket, "challenge");
  std::string challenge;
  try {
    challenge = parse_challenge(said);
  } catch (const Error& e) {
    throw Error("the first frame at " + o.socket + " is not an arbiter's challenge (" + e.what() +
                "): not the arbiter (or one older than this library), nothing sent");
  }
  const std::string out = frame(make(challenge));
  for (std::size_t sent = 0; sent < out.size();) {
    const ssize_t n = ::send(s.fd, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      wait_for(s.fd, POLLOUT, deadline, "take the request", o.socket);
    } else {
      throw Error("sending to the arbiter at " + o.socket + " failed: " + std::strerror(errno));
    }
  }
  return read_one(s, in, kMaxFrame, deadline, o.socket, "reply");
}

std::string exchange(const ClientOptions& o, const std::string& payload) {
  return exchange(o, [&](const std::string&) { return payload; });
}

std::uint32_t uid_of_user(const std::string& user, const std::string& what) {
  if (const auto n = slurm::whole_number(user, 0xfffffffeULL)) return static_cast<std::uint32_t>(*n);
  std::vector<char> buf(1 << 16);
  passwd pw{};
  passwd* found = nullptr;
  if (!user.empty() && ::getpwnam_r(user.c_str(), &pw, buf.data(), buf.size(), &found) == 0 && found)
    return static_cast<std::uint32_t>(found->pw_uid);
  throw Error(what + ": no user '" + slurm::escaped(user.substr(0, 64)) + "' here");
}

Reply ask(const ClientOptions& o, Request r) {
  const std::uint32_t arbiter = uid_of_user(o.arbiter_user, "the arbiter's user (RESIZE_ARBITER_USER)");
  r.nonce = random_hex128();
  // The request only the arbiter's user can read, bound to this connection's challenge:
  // whoever else answers (the daemon down, its port taken) can neither read it nor have
  // the daemon act on it later (protocol.hpp).
  const std::string sealed = exchange(o, [&](const std::string& challenge) {
    r.challenge = challenge;
    return munge_encode_credential(encode_request(r), o.munge_socket, 0, arbiter);
  });
  // Only the arbiter's user's answer to this very request counts: whoever else holds the
  // socket or the port (the daemon down) gets nothing done.
  const Credential c = munge_decode_credential(sealed, o.munge_socket);
  if (!c.ok)
    throw Error("the answer at " + o.socket + " is not a MUNGE credential (" + slurm::escaped(c.why) +
                "): not the arbiter's reply (or an arbiter older than this library), refused");
  if (!c.uid || *c.uid != arbiter)
    throw Error("the answer at " + o.socket + " comes from uid " + (c.uid ? std::to_string(*c.uid) : std::string("?")) +
                ", not from the arbiter's user " + slurm::escaped(o.arbiter_user) + " (uid " + std::to_string(arbiter) +
                "; RESIZE_ARBITER_USER): refused");
  Reply reply = parse_reply(c.payload, r.kind);
  if (reply.nonce != r.nonce)
    throw Error("the arbiter's answer at " + o.socket + " is not the reply to this request (its nonce differs): refused");
  return reply;
}

}  // namespace cluster::arbiter
