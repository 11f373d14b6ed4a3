// SPDX-License-Identifier: BSD-3-Clause
// The arbiter daemon's shell: the Unix socket, one poll() loop over non-blocking
// connections (each with a deadline; at most max_connections at once; frames at most
// max_frame), MUNGE, Slurm's commands through a Runner, the journal on disk. A slow or
// silent client holds only its own connection until its deadline; nothing it does blocks
// another's request.
#pragma once

#include <csignal>
#include <cstddef>
#include <string>

#include "arbiter/state.hpp"

namespace resize::arbiter {

struct ServerOptions {
  std::string socket;        // the Unix socket the jobs connect to (mode 0666: MUNGE authenticates)
  std::string state_dir;     // DIR/journal (0600), written whole, fsynced and renamed
  std::string munge_socket;  // munged's socket (empty: libmunge's default)
  std::size_t max_connections = 256;
  double deadline_s = 5;     // a connection's whole life: request in, reply out
  std::size_t max_frame = kMaxFrame;
};

class Server {
 public:
  Server(ServerOptions o, StateOptions s, slurm::Runner run);  // loads DIR/journal; throws Error
  ~Server();
  // Serves until *stop is set (SIGTERM, SIGINT).
  void run(const volatile std::sig_atomic_t* stop);
  std::size_t slurm_queries() const { return queries_; }

 private:
  struct Conn;
  ServerOptions opt_;
  ArbiterState state_;
  slurm::Runner run_;
  int listen_fd_ = -1;
  std::size_t queries_ = 0;
  std::string journal_path() const { return opt_.state_dir + "/journal"; }
  void save_journal();
  void refresh_view(double now);
  std::string answer(const std::string& payload);
};

void log_line(const std::string& line);  // stderr with a time stamp (the journal of systemd)

}  // namespace resize::arbiter
