// SPDX-License-Identifier: BSD-3-Clause
// The arbiter daemon's shell: the Unix socket and an optional TCP listener (the same
// frames, MUNGE checks, deadlines and cap), one poll() loop over non-blocking connections
// (each with a deadline, a short one for its first frame; at most max_connections at
// once, the unauthenticated ones in a pool of their own where a flood pushes out only its
// own: Admission, conn_cap.hpp; frames at most max_frame),
// MUNGE, Slurm's commands through a Runner, the journal on disk. A slow or silent client
// holds only its own connection until its deadline; nothing it does blocks another's
// request. Slurm is asked on a thread of its own: while a view is being taken, requests
// are answered from the last one (only before the first view do they wait for it, up to
// their deadline).
#pragma once

#include <csignal>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "daemon/conn_cap.hpp"
#include "daemon/state.hpp"

namespace cluster::arbiter {

struct ServerOptions {
  std::string socket;        // the Unix socket the jobs connect to (mode 0666: MUNGE authenticates)
  std::string listen;        // HOST:PORT of a TCP listener (empty: none; parse_host_port)
  std::string state_dir;     // DIR/journal (0600), written whole, fsynced and renamed
  std::string munge_socket;  // munged's socket (empty: libmunge's default)
  std::size_t max_connections = 256;
  // At most this many open at once per client: a Unix-socket client's uid (SO_PEERCRED at
  // accept), a TCP client's peer address; and at most this many authenticated requests in
  // flight per uid. Root and SlurmUser are capped too.
  std::size_t max_connections_per_uid = 8;
  // Connections that have not yet sent a whole first frame (whose credential is not yet
  // read): at most this many (0: three quarters of max_connections), each closed past
  // first_frame_s; when they are all taken the oldest of the peer group holding the most
  // is closed to make room (Admission, conn_cap.hpp).
  std::size_t max_unauthenticated = 0;
  double first_frame_s = 2;
  std::string socket_group;  // the Unix socket 0660 with this group (empty: 0666)
  double deadline_s = 5;     // a connection's whole life: request in, reply out
  std::size_t max_frame = kMaxFrame;
};

class StateDir;

class Server {
 public:
  Server(ServerOptions o, StateOptions s, slurm::Runner run);  // loads DIR/journal; throws Error
  ~Server();
  // Serves until *stop is set (SIGTERM, SIGINT).
  void run(const volatile std::sig_atomic_t* stop);

 private:
  struct Conn;
  struct Refresh;  // a view being taken on its thread
  ServerOptions opt_;
  ArbiterState state_;
  slurm::Runner run_;
  std::vector<int> listen_fds_;
  std::shared_ptr<Refresh> refresh_;  // in flight, else null
  std::thread refresh_thread_;
  double interval_s_ = 2;
  double last_attempt_ = -1e300;
  ConnCap per_client_{8};         // set from opt_ in the constructor
  Admission admission_{256, 128, 8};  // set from opt_ once max_connections is known
  std::uint64_t next_id_ = 1;
  // Connections closed by the daemon (past a deadline, to make room), logged at most once
  // a minute with their counts: a flood writes a line a minute, not a line each.
  std::map<std::string, std::size_t> closed_;
  double closed_said_ = -1e300;
  void note_closed(const std::string& why, double now);
  std::size_t first_frame_late_ = 0;
  void report_connections();  // the counts to the state (status)
  void accept_from(std::size_t listener, std::vector<Conn>& conns, double now);
  bool send_challenge(Conn& c, double now);
  std::unique_ptr<StateDir> state_dir_;  // DIR/journal (state_dir.hpp)
  void save_journal();
  void limit_connections();   // --max-connections within RLIMIT_NOFILE (said when lowered)
  double accept_paused_until_ = 0;  // an accept failed for want of descriptors: listeners rest until then
  void start_refresh(double now);  // at most one in flight, one attempt per interval
  void finish_refresh();           // its pipe is readable: the new view (or the last stays)
  // A frame's payload: a refusal's reply, or the request and its uid to decide.
  // `challenge`: the connection's (the request must name it).
  bool authenticate(const std::string& payload, const std::string& challenge, Request& q, std::uint32_t& uid,
                    std::string& refused);
  std::string decide(const Request& q, std::uint32_t uid);  // never throws: a failure is its reply
  std::string decide_or_throw(const Request& q, std::uint32_t uid);
  bool serve(Conn& c, short events);  // one connection's event; true when it is done
  // serve(), and past its deadline (or failed) the connection is done too: true, said why.
  bool serve_in_time(Conn& c, short events, double now);
  void close_conn(Conn& c);  // its descriptor closed, its places in the caps given back
  void answer_waiting(std::vector<Conn>& conns);  // the new view is there: the requests that waited for it
  std::string seal(const std::string& reply, Request::Kind kind, std::optional<std::uint32_t> to);
  double seal_failed_said_ = -1e300;
  double accept_failed_said_ = -1e300;
};

void log_line(const std::string& line);  // stderr with a time stamp (the journal of systemd)

}  // namespace cluster::arbiter
