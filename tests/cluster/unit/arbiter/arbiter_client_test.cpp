// SPDX-License-Identifier: BSD-3-Clause
// A job's side of the arbiter daemon without a daemon, or with a fake one that misbehaves:
// the exchange never hangs past its timeout and never crashes, and the Slurm policy keeps
// the job's size, says so once, and asks again after a back-off.
#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <thread>

#include "arbiter/client.hpp"
#include "malleable/cluster/cluster.hpp"
#include "../../../support/thrown.hpp"

using namespace cluster;
using namespace cluster::arbiter;

namespace {

// A Unix socket that accepts one connection and then does what `act` says with it.
class FakeDaemon {
 public:
  explicit FakeDaemon(std::function<void(int)> act) {
    path_ = (std::filesystem::temp_directory_path() / ("arbiter-fake-" + std::to_string(::getpid()) + "-" +
                                                        std::to_string(counter_++)))
                .string();
    ::unlink(path_.c_str());
    fd_ = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, path_.c_str(), sizeof a.sun_path - 1);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 4) != 0) ADD_FAILURE() << "bind";
    thread_ = std::thread([this, act] {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c >= 0) {
        act(c);
        ::close(c);
      }
    });
  }
  ~FakeDaemon() {
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
    ::unlink(path_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  std::string path_;
  int fd_ = -1;
  std::thread thread_;
};

std::string read_some(int fd) {
  char buf[256];
  const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "";
}
std::string read_some_nowait(int fd) {
  char buf[256];
  const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "";
}

// The daemon's first frame: this connection's challenge (protocol.hpp).
const std::string kChallenge = "0123456789abcdef0123456789abcdef";
void send_challenge(int c) {
  const std::string f = frame(encode_challenge(kChallenge));
  (void)!::send(c, f.data(), f.size(), MSG_NOSIGNAL);
}

// Why exchange() with `o` fails ("" when it does not).
std::string exchange_error(const ClientOptions& o, const std::string& request) {
  return test_support::thrown<Error>([&] { exchange(o, request); });
}

}  // namespace

TEST(ArbiterClient, NoDaemonAtThePathIsAnErrorNotAHang) {
  ClientOptions o{"/nonexistent/arbiter.sock", "", 1};
  const std::string why = exchange_error(o, "x");
  EXPECT_NE(why.find("cannot reach the arbiter"), std::string::npos) << why;
}

// RESIZE_ARBITER=tcp://HOST:PORT: the same frames over TCP (loopback only).
TEST(ArbiterClient, TcpCarriesTheSameFrames) {
  const int l = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ASSERT_EQ(::bind(l, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(l, 4), 0);
  ASSERT_EQ(::getsockname(l, reinterpret_cast<sockaddr*>(&a), &len), 0);
  const std::string where = "tcp://127.0.0.1:" + std::to_string(ntohs(a.sin_port));
  std::string got;
  std::thread t([&] {
    const int c = ::accept(l, nullptr, nullptr);
    if (c < 0) return;
    send_challenge(c);
    std::string in;
    while (read_frame(in).status == FrameRead::Status::Incomplete) {
      const std::string more = read_some(c);
      if (more.empty()) break;
      in += more;
    }
    got = read_frame(in).payload;
    const std::string out = frame("{\"ok\":true}");
    ::send(c, out.data(), out.size(), MSG_NOSIGNAL);
    ::close(c);
  });
  std::string seen;
  const std::string reply = exchange(ClientOptions{where, "", 5}, [&](const std::string& challenge) {
    seen = challenge;
    return std::string("a credential");
  });
  t.join();
  EXPECT_EQ(seen, kChallenge);  // the request is made for this connection's challenge
  EXPECT_EQ(got, "a credential");
  EXPECT_EQ(reply, "{\"ok\":true}");
  ::close(l);  // nobody listens there now: an error, not a hang
  const std::string why = exchange_error(ClientOptions{where, "", 1}, "x");
  EXPECT_NE(why.find("cannot reach the arbiter at " + where), std::string::npos) << why;
  EXPECT_THROW(exchange(ClientOptions{"tcp://127.0.0.1", "", 1}, "x"), Error);  // no port
}

TEST(ArbiterClient, ASilentDaemonTimesOut) {
  std::atomic<bool> release{false};
  FakeDaemon d([&](int c) {
    send_challenge(c);
    read_some(c);
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  });
  const std::string why = exchange_error(ClientOptions{d.path(), "", 0.3}, "request");
  EXPECT_NE(why.find("did not reply in time"), std::string::npos) << why;
  release = true;
  // Silent from the start: no challenge, nothing sent.
  std::atomic<bool> release2{false};
  std::string got;
  FakeDaemon quiet([&](int c) {
    while (!release2) {
      got += read_some_nowait(c);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  const std::string quiet_why = exchange_error(ClientOptions{quiet.path(), "", 0.3}, "request");
  EXPECT_NE(quiet_why.find("did not send its challenge in time"), std::string::npos) << quiet_why;
  release2 = true;
}

// Whoever holds the socket or the port without being the daemon (it down) and answers
// anything but a challenge first (a forged reply, garbage) gets nothing: the request
// is never sent (before the challenge, a relayed request acted).
TEST(ArbiterClient, NothingIsSentToAPeerWhoseFirstFrameIsNotAChallenge) {
  for (const std::string& first : {std::string("{\"ok\":true,\"plan\":\"acquire\"}"), std::string("garbage"),
                                  std::string("{\"v\":1,\"challenge\":\"0123456789abcdef0123456789abcdef\"}"),
                                  std::string("{\"v\":2,\"challenge\":\"0123\"}")}) {
    std::string got;
    {
      FakeDaemon d([&](int c) {
        const std::string f = frame(first);
        (void)!::send(c, f.data(), f.size(), MSG_NOSIGNAL);
        for (std::string more; !(more = read_some(c)).empty();) got += more;  // until the client closes
      });
      bool made = false;
      try {
        exchange(ClientOptions{d.path(), "", 5}, [&](const std::string&) {
          made = true;
          return std::string("the job's request");
        });
        ADD_FAILURE() << "no error for " << first;
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("is not an arbiter's challenge"), std::string::npos) << e.what();
      }
      EXPECT_FALSE(made) << first;
    }
    EXPECT_EQ(got, "") << "the client sent something to a peer that did not send a challenge: " << first;
  }
  // Closed before a challenge: an error naming it.
  FakeDaemon d([](int) {});
  const std::string why = exchange_error(ClientOptions{d.path(), "", 5}, "request");
  EXPECT_NE(why.find("without a challenge"), std::string::npos) << why;
}

TEST(ArbiterClient, ADaemonThatClosesOrSendsAnOversizedFrameIsAnError) {
  {
    FakeDaemon d([](int c) {
      send_challenge(c);
      read_some(c);
    });
    EXPECT_THROW(exchange(ClientOptions{d.path(), "", 5}, "request"), Error);
  }
  {
    FakeDaemon d([](int c) {
      send_challenge(c);
      read_some(c);
      const char huge[4] = {'\x7f', '\0', '\0', '\0'};
      (void)!::send(c, huge, 4, MSG_NOSIGNAL);
    });
    try {
      exchange(ClientOptions{d.path(), "", 5}, "request");
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("exceeds the limit"), std::string::npos) << e.what();
    }
  }
  {
    FakeDaemon d([](int c) {
      send_challenge(c);
      read_some(c);
      const std::string f = frame("{\"ok\":false,\"error\":\"refused: test\"}");
      (void)!::send(c, f.data(), f.size(), MSG_NOSIGNAL);
    });
    EXPECT_EQ(parse_reply(exchange(ClientOptions{d.path(), "", 5}, "request"), Request::Kind::Settle).error,
              "refused: test");
  }
}

TEST(ArbiterClient, AJobWhoseArbiterIsDownKeepsItsSizeSaysSoOnceAndAsksLater) {
  slurm::Options o;
  o.arbiter.socket = "/nonexistent/arbiter.sock";
  o.arbiter.timeout_s = 1;
  o.interval_s = 2;
  o.jitter = 0;
  double clock = 1000;
  o.clock = o.wall_clock = [&] { return clock; };
  int slurm_calls = 0;
  slurm::Runner run = [&](const slurm::Argv&) {
    ++slurm_calls;
    return slurm::Command{1, "not expected"};
  };
  slurm::JobAgent p(std::make_unique<slurm::Client>(run, "7"), o);
  const std::vector<std::string> ranks(2, "node1");
  slurm::Moment in;
  in.world_size = 2;
  in.rank_hosts = ranks;
  for (int k = 0; k < 6; ++k) {
    const slurm::Step d = p.decide(in);
    EXPECT_EQ(d.kind, slurm::Step::Kind::Stay) << d.reason;
    clock += 3;
  }
  const auto said = std::count_if(p.log().begin(), p.log().end(), [](const std::string& l) {
    return l.find("the arbiter does not answer") != std::string::npos;
  });
  EXPECT_EQ(said, 1);
  EXPECT_NE(p.log().front().find("keeps its size"), std::string::npos) << p.log().front();
  EXPECT_EQ(slurm_calls, 0);  // the job never falls back to asking Slurm itself
}

// The policy against a live daemon: run by arbiter_daemon_test.py as the owner of job 8
// (ARBITER_LIVE_SOCKET, ARBITER_LIVE_MUNGE set), skipped otherwise. The plan comes from the
// daemon's rules; a request about another user's job gets the daemon's refusal, said.
TEST(ArbiterLive, TheJobAgentAsksTheDaemonWithItsUsersCredential) {
  const char* sock = std::getenv("ARBITER_LIVE_SOCKET");
  const char* munge = std::getenv("ARBITER_LIVE_MUNGE");
  const char* user = std::getenv("ARBITER_LIVE_USER");
  if (!sock || !munge || !user) GTEST_SKIP() << "run by cluster.arbiter.daemon_live";
  const auto policy_for = [&](const std::string& job, double& clock) {
    slurm::Options o;
    o.arbiter.socket = sock;
    o.arbiter.munge_socket = munge;
    o.arbiter.user = user;
    o.interval_s = 2;
    o.jitter = 0;
    o.clock = o.wall_clock = [&clock] { return clock; };
    slurm::Runner none = [](const slurm::Argv&) { return slurm::Command{1, "not expected"}; };
    return std::make_unique<slurm::JobAgent>(std::make_unique<slurm::Client>(none, job), o);
  };
  const std::vector<std::string> ranks{"node3"};
  slurm::Moment in;
  in.world_size = 1;
  in.rank_hosts = ranks;
  double clock = 1000;
  auto mine = policy_for("8", clock);
  const slurm::Step d = mine->decide(in);
  EXPECT_EQ(d.kind, slurm::Step::Kind::Stay) << d.reason;
  EXPECT_NE(d.reason.find("slurm: no-"), std::string::npos) << d.reason;  // the daemon's rule (no-idle, no-payoff)
  for (const auto& l : mine->log()) EXPECT_EQ(l.find("does not answer"), std::string::npos) << l;
  auto theirs = policy_for("7", clock);
  theirs->decide(in);
  ASSERT_FALSE(theirs->log().empty());
  EXPECT_NE(theirs->log().back().find("does not own job 7"), std::string::npos) << theirs->log().back();
}

// A port or socket someone else answers on (the daemon down, its port taken): run by
// arbiter_daemon_test.py as uid A against uid B's fake arbiter (ARBITER_LIVE_FORGED), which
// answers every request with a plan to acquire node5, once as plain JSON and once in a
// MUNGE credential of its own uid, echoing the request's nonce. The job takes neither: it
// stays, runs no Slurm command, and says why.
TEST(ArbiterLive, AnAnswerNotFromTheArbitersUserGetsNothingDone) {
  const char* sock = std::getenv("ARBITER_LIVE_FORGED");
  const char* munge = std::getenv("ARBITER_LIVE_MUNGE");
  const char* user = std::getenv("ARBITER_LIVE_USER");
  if (!sock || !munge || !user) GTEST_SKIP() << "run by cluster.arbiter.daemon_live";
  slurm::Options o;
  o.arbiter.socket = sock;
  o.arbiter.munge_socket = munge;
  o.arbiter.user = user;
  o.interval_s = 2;
  o.jitter = 0;
  double clock = 1000;
  o.clock = o.wall_clock = [&clock] { return clock; };
  int commands = 0;
  slurm::Runner counted = [&](const slurm::Argv&) {
    ++commands;
    return slurm::Command{0, ""};
  };
  slurm::JobAgent agent(std::make_unique<slurm::Client>(counted, "8"), o);
  slurm::Moment in;
  in.world_size = 1;
  in.rank_hosts = {"node3"};
  const slurm::Step d = agent.decide(in);
  EXPECT_EQ(d.kind, slurm::Step::Kind::Stay) << d.reason;
  EXPECT_EQ(commands, 0) << "a Slurm command ran on a forged answer";
  ASSERT_FALSE(agent.log().empty());
  EXPECT_NE(agent.log().back().find("refused"), std::string::npos) << agent.log().back();
}
