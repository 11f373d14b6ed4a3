// SPDX-License-Identifier: BSD-3-Clause
// malleable-arbiterd's options, pure: the command line over the configuration file
// (/etc/malleable/arbiterd.conf: "key = value" lines, '#' comments, the same names as the
// long options without "--").
#pragma once

#include <string>
#include <vector>

#include "daemon/server.hpp"

namespace cluster::arbiter {

struct DaemonOptions {
  ServerOptions server;
  StateOptions state;
  std::string slurm_user = "slurm";  // a name or a uid; resolved by the shell
  std::vector<std::string> operators; // --operators: names or uids whose status shows every job
  std::string config;                // the file read (empty: none)
  std::string status_socket;         // --status SOCKET: print the daemon's state and exit
  std::string status_user = slurm::kDefaultArbiterUser;  // --arbiter-user: whose replies --status takes
  bool help = false;
  bool check = false;  // --check: prove the path on this host (daemon/check.hpp) and exit
};

// `args` without the program's name; `config_text` the file's text when --config (or the
// default file) was read. Throws Error naming the option or line at fault.
DaemonOptions parse_daemon_options(const std::vector<std::string>& args, const std::string& config_text);
// --config's value in `args` (empty: none given).
std::string config_path(const std::vector<std::string>& args);
std::string daemon_usage();

}  // namespace cluster::arbiter
