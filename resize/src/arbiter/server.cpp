// SPDX-License-Identifier: BSD-3-Clause
// The arbiter daemon's shell (server.hpp).
#include "arbiter/server.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <vector>

#include "arbiter/munge_shell.hpp"

namespace resize::arbiter {

namespace {
double wall() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}
double mono() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
void write_all(int fd, const std::string& s, const std::string& path) {
  for (std::size_t done = 0; done < s.size();) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error("writing " + path + ": " + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
}
}  // namespace

void log_line(const std::string& line) {
  char ts[32];
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
  std::fprintf(stderr, "%s malleable-arbiterd: %s\n", ts, line.c_str());
  std::fflush(stderr);
}

struct Server::Conn {
  int fd = -1;
  double deadline = 0;
  std::string in, out;
  std::size_t sent = 0;
  bool replying = false;
};

Server::Server(ServerOptions o, StateOptions s, slurm::Runner run)
    : opt_(std::move(o)), state_(std::move(s)), run_(std::move(run)) {
  if (::mkdir(opt_.state_dir.c_str(), 0700) != 0 && errno != EEXIST)
    throw Error("cannot create the state directory " + opt_.state_dir + ": " + std::strerror(errno));
  std::ifstream j(journal_path());
  if (j) {
    std::stringstream text;
    text << j.rdbuf();
    state_.restore(text.str());  // a journal it cannot read stops the start: no silent loss of claims
    log_line("restored " + std::to_string(state_.ledger().entries.size()) + " ledger entries from " + journal_path());
  }
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (opt_.socket.empty() || opt_.socket.size() >= sizeof addr.sun_path)
    throw Error("the socket path '" + opt_.socket + "' is empty or too long");
  std::memcpy(addr.sun_path, opt_.socket.c_str(), opt_.socket.size() + 1);
  ::unlink(opt_.socket.c_str());
  listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::chmod(opt_.socket.c_str(), 0666) != 0 || ::listen(listen_fd_, 128) != 0)
    throw Error("cannot listen on " + opt_.socket + ": " + std::strerror(errno));
  log_line("listening on " + opt_.socket + ", state in " + opt_.state_dir);
}

Server::~Server() {
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

void Server::save_journal() {
  const std::string path = journal_path(), tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw Error("cannot write " + tmp + ": " + std::strerror(errno));
  try {
    write_all(fd, state_.journal(), tmp);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) throw Error("fsync " + tmp + ": " + std::strerror(errno));
  if (::rename(tmp.c_str(), path.c_str()) != 0) throw Error("rename to " + path + ": " + std::strerror(errno));
  const int dir = ::open(opt_.state_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

// At most one view per interval, whatever the number of jobs and requests: the bound on
// slurmctld's load (three commands).
void Server::refresh_view(double now) {
  if (!state_.view_stale(now)) return;
  ++queries_;
  const slurm::Command jobs = run_(slurm::kViewJobsCommand);
  const slurm::Command idle = run_(slurm::kViewIdleCommand);
  const slurm::Command owners = run_(kOwnersCommand);
  try {
    if (jobs.status != 0 || idle.status != 0 || owners.status != 0)
      throw Error("a Slurm command failed: " + slurm::trim(jobs.out + idle.out + owners.out).substr(0, 300));
    state_.set_view(slurm::make_view(now, jobs.out, idle.out), parse_owners(owners.out));
  } catch (const Error& e) {
    log_line(std::string("asking Slurm failed (the last view stays): ") + e.what());
  }
}

// A frame's payload in, the reply's JSON out; every refusal logged with the uid.
std::string Server::answer(const std::string& payload) {
  const double now = wall();
  const Credential c = munge_decode_credential(payload, opt_.munge_socket);
  const std::string who = c.uid ? "uid " + std::to_string(*c.uid) : "unknown uid";
  Reply r;
  if (!c.ok) {
    r.error = "refused: credential: " + c.why;
    log_line("refused " + who + ": credential: " + c.why);
    state_.note_refusal(c.uid.value_or(0xffffffffu), "credential: " + c.why, now);
    return encode_reply(r, Request::Kind::Status);
  }
  Request q;
  try {
    q = parse_request(c.payload);
  } catch (const Error& e) {
    r.error = std::string("refused: bad request: ") + e.what();
    log_line("refused " + who + ": bad request: " + e.what());
    state_.note_refusal(*c.uid, std::string("bad request: ") + e.what(), now);
    return encode_reply(r, Request::Kind::Status);
  }
  refresh_view(now);
  bool changed = false;
  r = state_.handle(q, *c.uid, now, changed);
  if (!r.ok && r.error.rfind("refused", 0) == 0) log_line(who + " " + r.error);
  if (changed) {
    try {
      save_journal();
    } catch (const Error& e) {
      // Nothing is promised that the journal does not hold.
      log_line(std::string("the journal could not be written: ") + e.what());
      return encode_reply(Reply{false, std::string("the arbiter cannot keep its state: ") + e.what(), {}, {}, {}, {}},
                          q.kind);
    }
  }
  return encode_reply(r, q.kind);
}

void Server::run(const volatile std::sig_atomic_t* stop) {
  std::vector<Conn> conns;
  std::size_t turned_away = 0;
  while (!*stop) {
    std::vector<pollfd> fds{{listen_fd_, POLLIN, 0}};
    double next = mono() + 1;
    for (const Conn& c : conns) {
      fds.push_back({c.fd, static_cast<short>(c.replying ? POLLOUT : POLLIN), 0});
      next = std::min(next, c.deadline);
    }
    const int n = ::poll(fds.data(), fds.size(), std::max(0, static_cast<int>((next - mono()) * 1000) + 1));
    if (n < 0 && errno != EINTR) throw Error(std::string("poll: ") + std::strerror(errno));
    const double now = mono();
    for (std::size_t i = 0; i < conns.size(); ++i) {
      Conn& c = conns[i];
      const short ev = fds[i + 1].revents;
      bool done = false;
      if (c.replying && (ev & (POLLOUT | POLLERR | POLLHUP))) {
        const ssize_t k = ::send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL);
        if (k > 0) c.sent += static_cast<std::size_t>(k);
        done = (k < 0 && errno != EAGAIN && errno != EINTR) || c.sent == c.out.size();
      } else if (!c.replying && (ev & (POLLIN | POLLERR | POLLHUP))) {
        char buf[8192];
        const ssize_t k = ::recv(c.fd, buf, sizeof buf, 0);
        if (k > 0) {
          c.in.append(buf, static_cast<std::size_t>(k));
          const FrameRead f = read_frame(c.in, opt_.max_frame);
          if (f.status == FrameRead::Status::Refused) {
            log_line("refused a connection: " + f.why);
            c.out = frame(encode_reply(Reply{false, "refused: " + f.why, {}, {}, {}, {}}, Request::Kind::Status));
            c.replying = true;
          } else if (f.status == FrameRead::Status::Complete) {
            c.out = frame(answer(f.payload));
            c.replying = true;
          }
        } else {
          done = k == 0 || (errno != EAGAIN && errno != EINTR);  // closed before a whole frame: truncated
        }
      }
      if (!done && now > c.deadline) {
        log_line("closed a connection silent past its deadline (" + std::to_string(opt_.deadline_s) + " s)");
        done = true;
      }
      if (done) {
        ::close(c.fd);
        c.fd = -1;
      }
    }
    std::erase_if(conns, [](const Conn& c) { return c.fd < 0; });
    if (fds[0].revents & POLLIN) {
      for (int fd; (fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0;) {
        if (conns.size() >= opt_.max_connections) {
          ::close(fd);
          if (turned_away++ % 100 == 0)
            log_line("turned connections away: " + std::to_string(opt_.max_connections) + " are open");
          continue;
        }
        conns.push_back(Conn{fd, now + opt_.deadline_s, {}, {}, 0, false});
      }
    }
  }
  for (Conn& c : conns) ::close(c.fd);
  log_line("stopped");
}

}  // namespace resize::arbiter
