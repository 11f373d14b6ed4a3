// SPDX-License-Identifier: BSD-3-Clause
// The arbiter daemon's shell (server.hpp).
#include "daemon/server.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <vector>

#include "arbiter/munge.hpp"
#include "daemon/conn_cap.hpp"
#include "daemon/listen.hpp"
#include "daemon/state_dir.hpp"

namespace cluster::arbiter {

namespace {
double wall() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}
std::string seconds_text(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", s);
  return b;
}
double mono() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

// A reply sealed in a MUNGE credential of the daemon's uid (only `to` can decode it, once
// the request was authenticated: a reply holds that user's jobs) and framed; the job
// takes it only so (client.hpp). One too long for a frame is answered with an error
// instead: never an exception out of the loop (seen: a status with many recent
// decisions). Empty when munged cannot seal it: the connection is closed unanswered.
std::string Server::seal(const std::string& reply, Request::Kind kind, std::optional<std::uint32_t> to) {
  const auto sealed = [&](const std::string& json) { return frame(munge_encode_credential(json, opt_.munge_socket, 0, to)); };
  try {
    try {
      return sealed(reply);
    } catch (const Error& e) {
      if (std::string(e.what()).find("exceeds the limit") == std::string::npos) throw;
      log_line(std::string("a reply could not be sent: ") + e.what());
      Reply too_long{false, "the reply (" + std::to_string(reply.size()) + " bytes) exceeds the frame limit", {}, {}, {}, {}};
      return sealed(encode_reply(too_long, kind));
    }
  } catch (const std::exception& e) {
    if (mono() - seal_failed_said_ > 60) {
      seal_failed_said_ = mono();
      log_line(std::string("a reply could not be sealed (munged): ") + e.what() + "; its connection is closed unanswered");
    }
    return "";
  }
}

void log_line(const std::string& line) {
  char ts[32];
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
  // What others wrote (a request's key, Slurm's words) may hold line ends or a
  // terminal's escapes: each log line is one line, its control bytes as \xHH.
  std::fprintf(stderr, "%s malleable-arbiterd: %s\n", ts, slurm::escaped(line).c_str());
  std::fflush(stderr);
}

struct Server::Conn {
  int fd = -1;
  std::uint64_t id = 0;  // Admission's
  double accepted = 0;
  double deadline = 0;   // its first frame's, then (authenticated) its whole life's
  std::string in, out;
  std::size_t sent = 0;
  bool authenticated = false;
  bool replying = false;
  bool waiting = false;  // authenticated, waiting for the first view
  Request q;
  std::uint32_t uid = 0;
  Peer peer;  // who (listen.hpp); peer.address is the per-client cap's key
  std::string challenge;  // sent at accept; the request must name it (protocol.hpp)
};

struct Server::Refresh {
  slurm::Runner run;
  double started = 0;
  slurm::Command jobs, idle;
  bool ask_qos = false;  // sacctmgr too (ArbiterState::qos_due)
  slurm::Command qos;
  // --extend-limits: the TimeLimit raises due (ArbiterState::take_limit_updates), made
  // first, so that the view taken after them shows them; each with Slurm's answer.
  std::vector<std::pair<LimitUpdate, slurm::Command>> limits;
  // --extend-limits at a start: the jobs' records, batch scripts and sbatch lines
  // (ArbiterState::take_start_reads), read after the raises, before the view.
  std::vector<StartRead> starts;
  int rd = -1, wr = -1;
  ~Refresh() {
    if (rd >= 0) ::close(rd);
    if (wr >= 0) ::close(wr);
  }
};

Server::Server(ServerOptions o, StateOptions s, slurm::Runner run)
    : opt_(std::move(o)), state_(s), run_(std::move(run)), interval_s_(s.interval_s),
      per_client_(opt_.max_connections_per_uid) {
  state_dir_ = std::make_unique<StateDir>(opt_.state_dir);
  if (!state_dir_->narrowed().empty()) log_line(state_dir_->narrowed());
  if (const auto text = state_dir_->read_journal()) {
    state_.restore(*text);  // a journal it cannot read stops the start: no silent loss of claims
    log_line("restored " + std::to_string(state_.ledger().entries.size()) + " ledger entries from " + opt_.state_dir + "/journal");
  }
  limit_connections();
  const std::size_t unauth = opt_.max_unauthenticated > 0 ? std::min(opt_.max_unauthenticated, opt_.max_connections)
                                                          : std::max<std::size_t>(1, opt_.max_connections / 4 * 3);
  admission_ = Admission(opt_.max_connections, unauth, opt_.max_connections_per_uid);
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

// --max-connections within the open-file limit: the soft limit raised toward the hard one
// when it is lower than the connections need, else the connections lowered (said once).
// Without this an accept failing for want of descriptors left the listener readable and
// the loop spinning, the new connections waiting in the kernel's queue.
void Server::limit_connections() {
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) != 0) return;
  const rlim_t want = static_cast<rlim_t>(opt_.max_connections + kReservedFds);
  if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want && (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > rl.rlim_cur)) {
    rlimit raised = rl;
    raised.rlim_cur = rl.rlim_max == RLIM_INFINITY ? want : std::min(want, rl.rlim_max);
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) rl = raised;
  }
  const std::uint64_t nofile = rl.rlim_cur == RLIM_INFINITY ? ~0ULL : static_cast<std::uint64_t>(rl.rlim_cur);
  const std::size_t n = connections_within(opt_.max_connections, nofile);
  if (n == 0)
    throw Error("the open-file limit (RLIMIT_NOFILE) of " + std::to_string(nofile) + " descriptors leaves none for connections (" +
                std::to_string(kReservedFds) + " are kept for the daemon's own)");
  if (n < opt_.max_connections)
    log_line("--max-connections " + std::to_string(opt_.max_connections) + " lowered to " + std::to_string(n) +
             ": the open-file limit (RLIMIT_NOFILE) is " + std::to_string(nofile) + " descriptors, " +
             std::to_string(kReservedFds) + " kept for the daemon's own (LimitNOFILE= in its unit raises it)");
  opt_.max_connections = n;
}

Server::~Server() {
  for (const int fd : listen_fds_) ::close(fd);
  // A view still being taken at the stop: its thread owns what it touches (refresh_'s
  // copy), and the process is ending.
  if (refresh_thread_.joinable()) refresh_thread_.detach();
}

void Server::save_journal() { state_dir_->write_journal(state_.journal()); }

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
  for (auto& u : state_.take_limit_updates()) r->limits.emplace_back(std::move(u), slurm::Command{});
  for (auto& job : state_.take_start_reads()) r->starts.push_back(StartRead{std::move(job), {}, {}, {}});
  last_attempt_ = now;
  refresh_ = r;
  refresh_thread_ = std::thread([r] {
    try {  // nothing leaves this thread: an exception here would end the process
      for (auto& [u, answer] : r->limits) answer = r->run(u.argv);
      for (auto& s : r->starts) {
        s.record = r->run(start_record_command(s.job));
        s.script = r->run(start_script_command(s.job));
        s.submit = r->run(start_submit_command(s.job));
      }
      r->jobs = r->run(slurm::kViewJobsCommand);
      r->idle = r->run(slurm::kViewIdleCommand);
      if (r->ask_qos) r->qos = r->run(slurm::kQosCommand);  // last: squeue and sinfo answer as of taken_at however slow slurmdbd is
    } catch (const std::exception& e) {
      r->jobs.status = -1;
      r->jobs.err = std::string("running Slurm's commands failed: ") + e.what();
    } catch (...) {
      r->jobs.status = -1;
      r->jobs.err = "running Slurm's commands failed";
    }
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
  bool changed = false;
  if (!r->limits.empty())
    for (const auto& line : state_.limit_updates_done(r->limits, r->started, changed)) log_line(line);
  try {
    if (r->jobs.status != 0 || r->idle.status != 0)
      throw Error("a Slurm command failed: " + (r->jobs.status != 0 ? r->jobs.said() : r->idle.said()).substr(0, 300));
    slurm::ClusterView v = slurm::make_view(r->started, r->jobs.out, r->idle.out);
    std::map<std::string, std::uint32_t> owners = owners_of(v.jobs);  // the view's own squeue (uid=)
    if (!v.unreadable.empty())
      log_line(std::to_string(v.unreadable.size()) + " job(s) of the view cannot be read (no part in any decision); the first: job " +
               v.unreadable.begin()->first + ": " + v.unreadable.begin()->second);
    state_.set_view(std::move(v), std::move(owners));
  } catch (const std::exception& e) {  // whatever Slurm printed: the last view stays, the daemon goes on
    log_line(std::string("asking Slurm failed (the last view stays): ") + e.what());
  }
  bool judged = false;  // the starts against the new view's followed jobs
  if (!r->starts.empty())
    for (const auto& line : state_.start_reads_done(r->starts, r->started, judged)) log_line(line);
  if (changed || judged) {
    try {
      save_journal();
    } catch (const std::exception& e) {
      log_line(std::string("the journal could not be written after a time-limit raise: ") + e.what());
    }
  }
}

// A frame's payload: false and the refusal's reply, or true and the request with the
// credential's uid. Every refusal logged with the uid (unknown before the credential is
// decoded).
bool Server::authenticate(const std::string& payload, const std::string& challenge, Request& q, std::uint32_t& uid,
                          std::string& refused) {
  const double now = wall();
  Credential c;
  std::string who = "unknown uid";
  Reply r;
  const auto refuse = [&](const std::string& why) {
    r.error = "refused: " + why;
    log_line("refused " + who + ": " + why);
    state_.note_refusal(c.uid.value_or(ArbiterState::kUnknownUid), why, now);
    refused = encode_reply(r, Request::Kind::Status);
    return false;
  };
  // Exactly the credential, nothing after it (munged would ignore what follows): refused
  // before it is decoded (protocol.hpp, credential_text).
  std::string text;
  try {
    text = credential_text(payload);
  } catch (const Error& e) {
    return refuse(e.what());
  }
  c = munge_decode_credential(text, opt_.munge_socket);
  if (c.uid) who = "uid " + std::to_string(*c.uid);
  if (!c.ok) return refuse("credential: " + c.why);
  // Only this daemon's uid could read the request: one any uid can decode was readable by
  // whoever held the socket or the port on its way (protocol.hpp).
  const auto self = static_cast<std::uint32_t>(::geteuid());
  if (c.only_uid != self)
    return refuse("credential: readable by " +
                  (c.only_uid ? "uid " + std::to_string(*c.only_uid) : std::string("any uid")) +
                  ", not restricted to the arbiter's uid " + std::to_string(self) +
                  " (a client older than this arbiter, or RESIZE_ARBITER_USER names another user)");
  try {
    q = parse_request(c.payload);
  } catch (const Error& e) {
    return refuse(std::string("bad request: ") + e.what());
  }
  // Made for another connection: recorded elsewhere (a port or socket taken while the
  // daemon was down) and relayed here, or replayed.
  if (q.challenge != challenge)
    return refuse("the request names another connection's challenge: made for another connection (relayed or replayed), "
                  "not acted on");
  uid = *c.uid;
  return true;
}

// An authenticated request against the view at hand, the reply's JSON out. Whatever goes
// wrong while it is handled is this request's refusal (logged), never the daemon's end.
std::string Server::decide(const Request& q, std::uint32_t uid) {
  try {
    return decide_or_throw(q, uid);
  } catch (const std::exception& e) {
    log_line("uid " + std::to_string(uid) + ": " + to_string(q.kind) + " failed: " + e.what());
    Reply failed{false, std::string("the arbiter failed on this request: ") + e.what(), {}, {}, {}, {}};
    failed.nonce = q.nonce;
    return encode_reply(failed, q.kind);
  }
}

std::string Server::decide_or_throw(const Request& q, std::uint32_t uid) {
  const double now = wall();
  bool changed = false;
  Reply r = state_.handle(q, uid, now, changed);
  r.nonce = q.nonce;  // the job takes only the reply to its own request
  if (!r.ok && r.error.rfind("refused", 0) == 0) log_line("uid " + std::to_string(uid) + " " + r.error);
  if (changed) {
    try {
      save_journal();
    } catch (const std::exception& e) {
      // Nothing is promised that the journal does not hold.
      log_line(std::string("the journal could not be written: ") + e.what());
      Reply failed{false, std::string("the arbiter cannot keep its state: ") + e.what(), {}, {}, {}, {}};
      failed.nonce = q.nonce;
      return encode_reply(failed, q.kind);
    }
  }
  return encode_reply(r, q.kind);
}

// Connections the daemon closed, by reason: the first logged at once, then at most one
// line a minute with the counts since.
void Server::note_closed(const std::string& why, double now) {
  ++closed_[why];
  if (now - closed_said_ < 60) return;
  std::string line;
  for (const auto& [w, n] : closed_) line += (line.empty() ? "" : "; ") + std::to_string(n) + " " + w;
  log_line("closed connection(s): " + line + (closed_said_ > -1e299 ? " (in the last minute)" : ""));
  closed_.clear();
  closed_said_ = now;
}

// The new connections of listener `l`: each admitted under its client's cap (conn_cap.hpp:
// a uid on the Unix socket, an address over TCP) and by Admission (the unauthenticated
// pool and the total; a full one closes the oldest unauthenticated connection of the peer
// group holding the most), else closed at once. An accept that fails for want of
// descriptors or memory rests the listeners a moment (their connections wait in the
// kernel's queue) instead of spinning on a listener that stays readable.
void Server::accept_from(std::size_t l, std::vector<Conn>& conns, double now) {
  for (;;) {
    const int fd = ::accept4(listen_fds_[l], nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        accept_paused_until_ = now + 0.2;
        if (now - accept_failed_said_ > 60) {
          accept_failed_said_ = now;
          log_line(std::string("accepting a connection failed (") + std::strerror(errno) + "): new connections wait a moment");
        }
      }
      break;
    }
    Peer peer = peer_of(fd, l == 0);
    bool say = false;
    if (!per_client_.admit(peer.address, wall(), &say)) {
      ::close(fd);
      if (say)
        log_line("turned connections of " + peer.address + " away: " + std::to_string(opt_.max_connections_per_uid) +
                 " are open (--max-connections-per-uid; at most one line per client and minute)");
      continue;
    }
    const std::uint64_t id = next_id_++;
    const Admission::Arrival a = admission_.arrive(id, peer, now);
    if (a.evict != 0)
      for (Conn& c : conns)
        if (c.id == a.evict && c.fd >= 0) {
          ::close(c.fd);
          c.fd = -1;
          per_client_.release(c.peer.address);
          note_closed("unauthenticated, to make room (of " + c.peer.group + ")", now);
        }
    if (!a.admit) {
      ::close(fd);
      per_client_.release(peer.address);
      note_closed("turned away at accept: all " + std::to_string(opt_.max_connections) + " are authenticated requests", now);
      continue;
    }
    Conn c;
    c.fd = fd;
    c.id = id;
    c.accepted = now;
    c.deadline = now + std::min(opt_.first_frame_s, opt_.deadline_s);
    c.peer = std::move(peer);
    if (send_challenge(c, now)) conns.push_back(std::move(c));
  }
  report_connections();
}

// The connection's challenge, at once (a few dozen bytes into an empty socket buffer: all
// sent, or the client is gone). False: the connection is closed and forgotten.
bool Server::send_challenge(Conn& c, double now) {
  std::string hello;
  try {
    c.challenge = random_hex128();
    hello = frame(encode_challenge(c.challenge));
  } catch (const std::exception& e) {
    log_line(std::string("a connection's challenge could not be made: ") + e.what());
  }
  const ssize_t k = hello.empty() ? -1 : ::send(c.fd, hello.data(), hello.size(), MSG_NOSIGNAL);
  if (k == static_cast<ssize_t>(hello.size())) return true;
  ::close(c.fd);
  c.fd = -1;
  per_client_.release(c.peer.address);
  admission_.gone(c.id);
  note_closed("gone before its challenge was sent", now);
  return false;
}

void Server::report_connections() {
  ArbiterState::Connections n;
  n.over_client_cap = per_client_.refused();
  n.over_total_cap = admission_.turned_away();
  n.evicted = admission_.evicted();
  n.first_frame_late = first_frame_late_;
  n.over_uid_cap = admission_.over_uid_cap();
  state_.set_connections(n);
}

// Connection c's event: reads its frame, answers, sends the reply. True when it is done.
bool Server::serve(Conn& c, short ev) {
  if (c.waiting) return (ev & (POLLHUP | POLLERR)) != 0;  // gone while it waited for the first view
  if (c.replying) {
    if (!(ev & (POLLOUT | POLLERR | POLLHUP))) return false;
    const ssize_t k = ::send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL);
    if (k > 0) c.sent += static_cast<std::size_t>(k);
    return (k < 0 && errno != EAGAIN && errno != EINTR) || c.sent == c.out.size();
  }
  if (!(ev & (POLLIN | POLLERR | POLLHUP))) return false;
  char buf[8192];
  const ssize_t k = ::recv(c.fd, buf, sizeof buf, 0);
  if (k <= 0) return k == 0 || (errno != EAGAIN && errno != EINTR);  // closed before a whole frame: truncated
  c.in.append(buf, static_cast<std::size_t>(k));
  const FrameRead f = read_frame(c.in, opt_.max_frame);
  if (f.status == FrameRead::Status::Refused) {
    log_line("refused a connection: " + f.why);
    c.out = seal(encode_reply(Reply{false, "refused: " + f.why, {}, {}, {}, {}}, Request::Kind::Status), Request::Kind::Status, {});
    c.replying = true;
    admission_.answering(c.id);
  } else if (f.status == FrameRead::Status::Complete) {
    std::string refused;
    if (!authenticate(f.payload, c.challenge, c.q, c.uid, refused)) {
      c.out = seal(refused, Request::Kind::Status, {});
      c.replying = true;
      admission_.answering(c.id);
    } else if (!admission_.authenticated(c.id, c.uid)) {
      const std::string why = "refused: uid " + std::to_string(c.uid) + " has " + std::to_string(opt_.max_connections_per_uid) +
                              " requests in flight already (--max-connections-per-uid)";
      note_closed("request(s) of uid " + std::to_string(c.uid) + " refused over --max-connections-per-uid", mono());
      Reply r{false, why, {}, {}, {}, {}};
      r.nonce = c.q.nonce;
      c.out = seal(encode_reply(r, c.q.kind), c.q.kind, c.uid);
      c.replying = true;
      admission_.answering(c.id);
      report_connections();
    } else {
      c.authenticated = true;
      c.deadline = c.accepted + opt_.deadline_s;  // its whole life from here
      start_refresh(wall());
      if (refresh_ && !state_.has_view()) {
        c.waiting = true;  // the first view is being taken: answered when it is there
      } else {
        c.out = seal(decide(c.q, c.uid), c.q.kind, c.uid);  // the last view, even while a new one is taken
        c.replying = true;
      }
    }
  }
  return false;
}

void Server::answer_waiting(std::vector<Conn>& conns) {
  for (Conn& c : conns)
    if (c.waiting) {
      c.out = seal(decide(c.q, c.uid), c.q.kind, c.uid);
      c.waiting = false;
      c.replying = true;
    }
}

bool Server::serve_in_time(Conn& c, short events, double now) {
  try {
    if (serve(c, events)) return true;
  } catch (const std::exception& e) {  // this connection's end, not the daemon's
    log_line(std::string("a connection failed: ") + e.what());
    return true;
  }
  if (now <= c.deadline) return false;
  if (!c.authenticated && !c.replying) {
    ++first_frame_late_;
    note_closed("without a whole first frame within " + seconds_text(std::min(opt_.first_frame_s, opt_.deadline_s)) +
                    " s (--first-frame-deadline)",
                now);
  } else {
    note_closed("past the " + seconds_text(opt_.deadline_s) + "-s deadline (--deadline)", now);
  }
  return true;
}

void Server::close_conn(Conn& c) {
  ::close(c.fd);
  c.fd = -1;
  per_client_.release(c.peer.address);
  admission_.gone(c.id);
}

void Server::run(const volatile std::sig_atomic_t* stop) {
  std::vector<Conn> conns;
  while (!*stop) {
    const bool accepting = mono() >= accept_paused_until_;
    std::vector<pollfd> fds;
    for (const int fd : listen_fds_) fds.push_back({fd, static_cast<short>(accepting ? POLLIN : 0), 0});
    const std::size_t refresh_at = fds.size();
    if (refresh_) fds.push_back({refresh_->rd, POLLIN, 0});
    const std::size_t base = fds.size();
    double next = accepting ? mono() + 1 : accept_paused_until_;
    for (const Conn& c : conns) {
      fds.push_back({c.fd, static_cast<short>(c.waiting ? 0 : c.replying ? POLLOUT : POLLIN), 0});
      next = std::min(next, c.deadline);
    }
    const int n = ::poll(fds.data(), fds.size(), std::max(0, static_cast<int>((next - mono()) * 1000) + 1));
    if (n < 0 && errno != EINTR) {  // never seen; not a reason to stop serving
      log_line(std::string("poll failed: ") + std::strerror(errno));
      ::usleep(100000);
      continue;
    }
    const double now = mono();
    if (refresh_ && (fds[refresh_at].revents & (POLLIN | POLLHUP | POLLERR))) {
      finish_refresh();
      answer_waiting(conns);
    }
    for (std::size_t i = 0; i < conns.size(); ++i)
      if (serve_in_time(conns[i], n > 0 ? fds[base + i].revents : 0, now)) close_conn(conns[i]);
    std::erase_if(conns, [](const Conn& c) { return c.fd < 0; });
    for (std::size_t l = 0; l < listen_fds_.size(); ++l)
      if (accepting && (fds[l].revents & POLLIN)) accept_from(l, conns, now);
    std::erase_if(conns, [](const Conn& c) { return c.fd < 0; });  // those closed to make room
  }
  for (Conn& c : conns) ::close(c.fd);
  try {
    save_journal();  // the refusals since the last change (state.hpp, handle)
  } catch (const std::exception& e) {
    log_line(std::string("the journal could not be written at the stop: ") + e.what());
  }
  log_line("stopped");
}

}  // namespace cluster::arbiter
