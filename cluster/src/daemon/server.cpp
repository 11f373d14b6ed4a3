// SPDX-License-Identifier: BSD-3-Clause
// The arbiter daemon's shell (server.hpp).
#include "daemon/server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netdb.h>
#include <netinet/in.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <vector>

#include "daemon/conn_cap.hpp"
#include "arbiter/munge.hpp"

namespace cluster::arbiter {

namespace {
double wall() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}
double mono() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
// A reply in its frame. One too long for a frame (a client reads at most kMaxFrame) is
// answered with an error instead: never an exception out of the loop, which would stop the
// daemon for every client (seen: a status with many recent decisions).
std::string framed(const std::string& reply, Request::Kind kind) {
  try {
    return frame(reply);
  } catch (const Error& e) {
    log_line(std::string("a reply could not be sent: ") + e.what());
    return frame(encode_reply(Reply{false, "the reply (" + std::to_string(reply.size()) + " bytes) exceeds the frame limit", {}, {}, {}, {}}, kind));
  }
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
  bool waiting = false;  // authenticated, waiting for the first view
  Request q;
  std::uint32_t uid = 0;
  std::string client;  // the per-client cap's key (conn_cap.hpp)
};

struct Server::Refresh {
  slurm::Runner run;
  double started = 0;
  slurm::Command jobs, idle;
  bool ask_qos = false;  // sacctmgr too (ArbiterState::qos_due)
  slurm::Command qos;
  int rd = -1, wr = -1;
  ~Refresh() {
    if (rd >= 0) ::close(rd);
    if (wr >= 0) ::close(wr);
  }
};

namespace {
// A group's name or number to its gid; throws Error when there is no such group.
gid_t resolve_group(const std::string& g) {
  std::vector<char> buf(1 << 16);
  group gr{};
  group* found = nullptr;
  const int rc = ::getgrnam_r(g.c_str(), &gr, buf.data(), buf.size(), &found);
  if (rc == 0 && found) return found->gr_gid;
  char* end = nullptr;
  const unsigned long n = std::strtoul(g.c_str(), &end, 10);
  if (!g.empty() && *end == 0 && g[0] != '-' && n < 0xffffffffUL) return static_cast<gid_t>(n);
  throw Error("--socket-group: no group '" + g + "'" + (rc ? std::string(" (") + std::strerror(rc) + ")" : ""));
}

// The Unix socket: mode 0666 (MUNGE, not the file mode, decides who may ask what), or
// 0660 with `group` (a site that restricts who may reach the arbiter at all). A group that
// does not exist stops the start before anything is created or removed.
int listen_unix(const std::string& path, const std::string& group) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof addr.sun_path)
    throw Error("the socket path '" + path + "' is empty or too long");
  const bool grouped = !group.empty();
  const gid_t gid = grouped ? resolve_group(group) : 0;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  ::unlink(path.c_str());
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      (grouped && ::chown(path.c_str(), static_cast<uid_t>(-1), gid) != 0) ||
      ::chmod(path.c_str(), grouped ? 0660 : 0666) != 0 || ::listen(fd, 128) != 0) {
    std::string why = std::strerror(errno);
    if (grouped && errno == EPERM) why += " (the daemon's user must be a member of the group: SupplementaryGroups= in its unit)";
    if (fd >= 0) {
      ::close(fd);
      ::unlink(path.c_str());
    }
    throw Error("cannot listen on " + path + (grouped ? " with group " + group : std::string()) + ": " + why);
  }
  return fd;
}

// The per-client cap's key of an accepted connection: "uid N" (SO_PEERCRED) on the Unix
// socket, "address A" over TCP, "unknown" when neither can be read (one shared count).
std::string client_key(int fd, bool unix_socket) {
  if (unix_socket) {
    ucred cr{};
    socklen_t len = sizeof cr;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0) return "uid " + std::to_string(cr.uid);
    return "unknown";
  }
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  char host[INET6_ADDRSTRLEN] = {0};
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return "unknown";
  if (ss.ss_family == AF_INET)
    ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&ss)->sin_addr, host, sizeof host);
  else if (ss.ss_family == AF_INET6)
    ::inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&ss)->sin6_addr, host, sizeof host);
  return host[0] ? "address " + std::string(host) : "unknown";
}
// HOST:PORT; "*" binds every address (IPv6 and IPv4 on one socket where the host has IPv6).
int listen_tcp(const std::string& text, std::string& bound) {
  const HostPort hp = parse_host_port(text, true);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* res = nullptr;
  const std::string port = std::to_string(hp.port);
  if (const int e = ::getaddrinfo(hp.host.empty() ? nullptr : hp.host.c_str(), port.c_str(), &hints, &res); e != 0)
    throw Error("cannot listen on " + text + ": " + ::gai_strerror(e));
  std::vector<addrinfo*> order;
  for (addrinfo* a = res; a; a = a->ai_next) order.push_back(a);
  if (hp.host.empty())  // the IPv6 wildcard first: it takes IPv4 too
    std::stable_sort(order.begin(), order.end(), [](addrinfo* x, addrinfo* y) {
      return (x->ai_family == AF_INET6) > (y->ai_family == AF_INET6);
    });
  std::string why = "no address";
  int fd = -1;
  for (addrinfo* a : order) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      why = std::strerror(errno);
      continue;
    }
    const int one = 1, zero = 0;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (a->ai_family == AF_INET6 && hp.host.empty()) ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 128) == 0) break;
    why = std::strerror(errno);
    ::close(fd);
    fd = -1;
  }
  ::freeaddrinfo(res);
  if (fd < 0) throw Error("cannot listen on " + text + ": " + why);
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  char host[NI_MAXHOST] = "?", serv[NI_MAXSERV] = "?";
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) == 0)
    ::getnameinfo(reinterpret_cast<sockaddr*>(&ss), len, host, sizeof host, serv, sizeof serv, NI_NUMERICHOST | NI_NUMERICSERV);
  HostPort b{host, static_cast<std::uint16_t>(std::atoi(serv))};
  bound = to_string(b);
  return fd;
}
}  // namespace

Server::Server(ServerOptions o, StateOptions s, slurm::Runner run)
    : opt_(std::move(o)), state_(s), run_(std::move(run)), interval_s_(s.interval_s),
      per_client_(opt_.max_connections_per_uid) {
  if (::mkdir(opt_.state_dir.c_str(), 0700) != 0 && errno != EEXIST)
    throw Error("cannot create the state directory " + opt_.state_dir + ": " + std::strerror(errno));
  std::ifstream j(journal_path());
  if (j) {
    std::stringstream text;
    text << j.rdbuf();
    state_.restore(text.str());  // a journal it cannot read stops the start: no silent loss of claims
    log_line("restored " + std::to_string(state_.ledger().entries.size()) + " ledger entries from " + journal_path());
  }
  listen_fds_.push_back(listen_unix(opt_.socket, opt_.socket_group));
  std::string where = opt_.socket + (opt_.socket_group.empty() ? " (0666)" : " (0660, group " + opt_.socket_group + ")");
  if (!opt_.listen.empty()) {
    std::string bound;
    try {
      listen_fds_.push_back(listen_tcp(opt_.listen, bound));
    } catch (...) {
      ::close(listen_fds_[0]);
      throw;
    }
    where += " and tcp://" + bound;
  }
  log_line("listening on " + where + ", state in " + opt_.state_dir);
}

Server::~Server() {
  for (const int fd : listen_fds_) ::close(fd);
  // A view still being taken at the stop: its thread owns what it touches (refresh_'s
  // copy), and the process is ending.
  if (refresh_thread_.joinable()) refresh_thread_.detach();
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
// slurmctld's load (two commands: squeue, whose uid= field gives the owners, and sinfo), and sacctmgr's QOS table with a view at most once per
// qos_interval_s (slurmdbd's load: one query). Taken on a thread of its own: a slow
// slurmctld or slurmdbd (each command up to its timeout) holds no request; they are
// answered from the last view.
void Server::start_refresh(double now) {
  if (refresh_ || !state_.view_stale(now) || now - last_attempt_ < interval_s_) return;
  auto r = std::make_shared<Refresh>();
  int p[2];
  if (::pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) {
    log_line(std::string("asking Slurm failed (the last view stays): pipe: ") + std::strerror(errno));
    return;
  }
  r->rd = p[0];
  r->wr = p[1];
  r->run = run_;
  r->started = now;
  r->ask_qos = state_.qos_due(now);
  last_attempt_ = now;
  ++queries_;
  refresh_ = r;
  refresh_thread_ = std::thread([r] {
    r->jobs = r->run(slurm::kViewJobsCommand);
    r->idle = r->run(slurm::kViewIdleCommand);
    if (r->ask_qos) r->qos = r->run(slurm::kQosCommand);  // last: squeue and sinfo answer as of taken_at however slow slurmdbd is
    const char done = 1;
    while (::write(r->wr, &done, 1) < 0 && errno == EINTR) {
    }
  });
}

void Server::finish_refresh() {
  refresh_thread_.join();
  const std::shared_ptr<Refresh> r = std::move(refresh_);
  refresh_.reset();
  if (r->ask_qos)  // whatever squeue did: the QOS table is slurmdbd's
    if (const std::string line = state_.set_qos(r->qos, r->started); !line.empty()) log_line(line);
  try {
    if (r->jobs.status != 0 || r->idle.status != 0)
      throw Error("a Slurm command failed: " + (r->jobs.status != 0 ? r->jobs.said() : r->idle.said()).substr(0, 300));
    slurm::ClusterView v = slurm::make_view(r->started, r->jobs.out, r->idle.out);
    std::map<std::string, std::uint32_t> owners = owners_of(v.jobs);  // the view's own squeue (uid=)
    state_.set_view(std::move(v), std::move(owners));
  } catch (const Error& e) {
    log_line(std::string("asking Slurm failed (the last view stays): ") + e.what());
  }
}

// A frame's payload: false and the refusal's reply, or true and the request with the
// credential's uid. Every refusal logged with the uid.
bool Server::authenticate(const std::string& payload, Request& q, std::uint32_t& uid, std::string& refused) {
  const double now = wall();
  const Credential c = munge_decode_credential(payload, opt_.munge_socket);
  const std::string who = c.uid ? "uid " + std::to_string(*c.uid) : "unknown uid";
  Reply r;
  if (!c.ok) {
    r.error = "refused: credential: " + c.why;
    log_line("refused " + who + ": credential: " + c.why);
    state_.note_refusal(c.uid.value_or(0xffffffffu), "credential: " + c.why, now);
    refused = encode_reply(r, Request::Kind::Status);
    return false;
  }
  try {
    q = parse_request(c.payload);
  } catch (const Error& e) {
    r.error = std::string("refused: bad request: ") + e.what();
    log_line("refused " + who + ": bad request: " + e.what());
    state_.note_refusal(*c.uid, std::string("bad request: ") + e.what(), now);
    refused = encode_reply(r, Request::Kind::Status);
    return false;
  }
  uid = *c.uid;
  return true;
}

// An authenticated request against the view at hand, the reply's JSON out.
std::string Server::decide(const Request& q, std::uint32_t uid) {
  const double now = wall();
  bool changed = false;
  const Reply r = state_.handle(q, uid, now, changed);
  if (!r.ok && r.error.rfind("refused", 0) == 0) log_line("uid " + std::to_string(uid) + " " + r.error);
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

// The new connections of listener `l`: each admitted under the total cap and its client's
// (conn_cap.hpp), else closed at once.
void Server::accept_from(std::size_t l, std::vector<Conn>& conns, double now) {
  for (int fd; (fd = ::accept4(listen_fds_[l], nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0;) {
    if (conns.size() >= opt_.max_connections) {
      ::close(fd);
      if (turned_away_++ % 100 == 0)
        log_line("turned connections away: " + std::to_string(opt_.max_connections) + " are open");
      continue;
    }
    std::string key = client_key(fd, l == 0);
    bool say = false;
    if (!per_client_.admit(key, wall(), &say)) {
      ::close(fd);
      if (say)
        log_line("turned connections of " + key + " away: " + std::to_string(opt_.max_connections_per_uid) +
                 " are open (--max-connections-per-uid; at most one line per client and minute)");
      continue;
    }
    conns.push_back(Conn{fd, now + opt_.deadline_s, {}, {}, 0, false, false, {}, 0, std::move(key)});
  }
  state_.set_turned_away(per_client_.refused(), turned_away_);
}

void Server::run(const volatile std::sig_atomic_t* stop) {
  std::vector<Conn> conns;
  while (!*stop) {
    std::vector<pollfd> fds;
    for (const int fd : listen_fds_) fds.push_back({fd, POLLIN, 0});
    const std::size_t refresh_at = fds.size();
    if (refresh_) fds.push_back({refresh_->rd, POLLIN, 0});
    const std::size_t base = fds.size();
    double next = mono() + 1;
    for (const Conn& c : conns) {
      fds.push_back({c.fd, static_cast<short>(c.waiting ? 0 : c.replying ? POLLOUT : POLLIN), 0});
      next = std::min(next, c.deadline);
    }
    const int n = ::poll(fds.data(), fds.size(), std::max(0, static_cast<int>((next - mono()) * 1000) + 1));
    if (n < 0 && errno != EINTR) throw Error(std::string("poll: ") + std::strerror(errno));
    const double now = mono();
    if (refresh_ && (fds[refresh_at].revents & (POLLIN | POLLHUP | POLLERR))) {
      finish_refresh();
      for (Conn& c : conns)
        if (c.waiting) {
          c.out = framed(decide(c.q, c.uid), c.q.kind);
          c.waiting = false;
          c.replying = true;
        }
    }
    for (std::size_t i = 0; i < conns.size(); ++i) {
      Conn& c = conns[i];
      const short ev = fds[base + i].revents;
      bool done = false;
      if (c.waiting) {
        done = (ev & (POLLHUP | POLLERR)) != 0;  // gone while it waited for the first view
      } else if (c.replying && (ev & (POLLOUT | POLLERR | POLLHUP))) {
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
            c.out = framed(encode_reply(Reply{false, "refused: " + f.why, {}, {}, {}, {}}, Request::Kind::Status),
                           Request::Kind::Status);
            c.replying = true;
          } else if (f.status == FrameRead::Status::Complete) {
            std::string refused;
            if (!authenticate(f.payload, c.q, c.uid, refused)) {
              c.out = framed(refused, Request::Kind::Status);
              c.replying = true;
            } else {
              start_refresh(wall());
              if (refresh_ && !state_.has_view()) {
                c.waiting = true;  // the first view is being taken: answered when it is there
              } else {
                c.out = framed(decide(c.q, c.uid), c.q.kind);  // the last view, even while a new one is taken
                c.replying = true;
              }
            }
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
        per_client_.release(c.client);
      }
    }
    std::erase_if(conns, [](const Conn& c) { return c.fd < 0; });
    for (std::size_t l = 0; l < listen_fds_.size(); ++l)
      if (fds[l].revents & POLLIN) accept_from(l, conns, now);
  }
  for (Conn& c : conns) ::close(c.fd);
  try {
    save_journal();  // the refusals since the last change (state.hpp, handle)
  } catch (const Error& e) {
    log_line(std::string("the journal could not be written at the stop: ") + e.what());
  }
  log_line("stopped");
}

}  // namespace cluster::arbiter
