// SPDX-License-Identifier: BSD-3-Clause
// malleable-arbiterd's options, pure (options.hpp).
#include "daemon/options.hpp"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "slurm/text.hpp"

namespace cluster::arbiter {

namespace {
double seconds(const std::string& key, const std::string& v, double lo, double hi) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end || !std::isfinite(x) || x < lo || x > hi)
    throw Error("--" + key + " must be a number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got '" + v + "'");
  return x;
}
void set(DaemonOptions& o, const std::string& key, const std::string& v) {
  if (key == "socket") o.server.socket = v;
  else if (key == "listen") {
    (void)parse_host_port(v, true);  // checked here, bound by the shell
    o.server.listen = v;
  } else if (key == "state-dir") o.server.state_dir = v;
  else if (key == "munge-socket") o.server.munge_socket = v;
  else if (key == "interval") o.state.interval_s = seconds(key, v, 0.1, 3600);
  else if (key == "qos-interval") o.state.qos_interval_s = seconds(key, v, 0, 86400);
  else if (key == "slurm-user") o.slurm_user = v;
  else if (key == "operators") {
    o.operators.clear();
    std::istringstream in(v);
    for (std::string u; std::getline(in, u, ',');)
      if (!slurm::trim(u).empty()) o.operators.push_back(slurm::trim(u));
  }
  else if (key == "max-connections") o.server.max_connections = static_cast<std::size_t>(seconds(key, v, 1, 65536));
  else if (key == "max-connections-per-uid")
    o.server.max_connections_per_uid = static_cast<std::size_t>(seconds(key, v, 1, 65536));
  else if (key == "socket-group") {
    if (v.empty()) throw Error("--socket-group needs a group name or gid");
    o.server.socket_group = v;
  } else if (key == "deadline") o.server.deadline_s = seconds(key, v, 0.1, 600);
  else if (key == "first-frame-deadline") o.server.first_frame_s = seconds(key, v, 0.05, 600);
  else if (key == "max-unauthenticated")
    o.server.max_unauthenticated = static_cast<std::size_t>(seconds(key, v, 0, 65536));
  else if (key == "max-frame") o.server.max_frame = static_cast<std::size_t>(seconds(key, v, 1024, 16 << 20));
  else if (key == "bid-window") o.state.arbiter.bid_window_s = seconds(key, v, 0, 3600);
  else if (key == "recent") o.state.recent = static_cast<std::size_t>(seconds(key, v, 1, 100000));
  else if (key == "expansion") {
    if (v != "on" && v != "off") throw Error("--expansion must be on or off, got '" + v + "'");
    o.state.arbiter.expansion = v == "on";
  } else if (key == "extend-limits") {
    if (v != "on" && v != "off") throw Error("--extend-limits must be on or off, got '" + v + "'");
    o.state.extend_limits = v == "on";
  } else if (key == "config") o.config = v;
  else if (key == "status") o.status_socket = v;
  else if (key == "arbiter-user") {
    if (v.empty()) throw Error("--arbiter-user needs a user's name or a uid");
    o.status_user = v;
  }
  else throw Error("unknown option --" + key);
}
}  // namespace

std::string config_path(const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--config" && i + 1 < args.size()) return args[i + 1];
    if (args[i].rfind("--config=", 0) == 0) return args[i].substr(9);
  }
  return "";
}

DaemonOptions parse_daemon_options(const std::vector<std::string>& args, const std::string& config_text) {
  DaemonOptions o;
  o.server.socket = "/run/malleable-arbiter/socket";
  o.server.state_dir = "/var/lib/malleable-arbiter";
  std::istringstream in(config_text);
  int no = 0;
  for (std::string line; std::getline(in, line);) {
    ++no;
    const std::string t = slurm::trim(line.substr(0, line.find('#')));
    if (t.empty()) continue;
    const auto eq = t.find('=');
    if (eq == std::string::npos) throw Error("configuration line " + std::to_string(no) + ": expected 'key = value'");
    const std::string key = slurm::trim(t.substr(0, eq));
    if (key == "config" || key == "status" || key == "arbiter-user") throw Error("configuration line " + std::to_string(no) + ": '" + key + "' is an option of the command line only");
    try {
      set(o, key, slurm::trim(t.substr(eq + 1)));
    } catch (const Error& e) {
      throw Error("configuration line " + std::to_string(no) + ": " + e.what());
    }
  }
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      o.help = true;
      continue;
    }
    if (a == "--check") {
      o.check = true;
      continue;
    }
    if (a.rfind("--", 0) != 0) throw Error("unexpected argument '" + a + "'");
    const auto eq = a.find('=');
    if (eq != std::string::npos) {
      set(o, a.substr(2, eq - 2), a.substr(eq + 1));
    } else {
      if (i + 1 >= args.size()) throw Error(a + " needs a value");
      set(o, a.substr(2), args[++i]);
    }
  }
  return o;
}

std::string daemon_usage() {
  return "usage: malleable-arbiterd [--config FILE] [--socket PATH] [--listen HOST:PORT]\n"
         "                          [--state-dir DIR] [--interval S] [--qos-interval S]\n"
         "                          [--munge-socket PATH] [--slurm-user NAME|UID] [--max-connections N]\n"
         "                          [--max-connections-per-uid N] [--max-unauthenticated N] [--socket-group GROUP]\n"
         "                          [--deadline S] [--first-frame-deadline S] [--max-frame BYTES]\n"
         "                          [--bid-window S] [--recent N] [--operators USER,...]\n"
         "                          [--expansion on|off] [--extend-limits on|off]\n"
         "       malleable-arbiterd --status SOCKET [--munge-socket PATH] [--arbiter-user NAME|UID]\n"
         "       malleable-arbiterd --check [--config FILE] [--arbiter-user NAME|UID]\n"
         "One arbiter per cluster for malleable jobs under Slurm (docs/guide/arbiter.md).\n"
         "--check: proves on this host what the path of a job to the arbiter needs (MUNGE, the\n"
         "  daemon's user and uid, its listeners, Slurm's client, expansion, accounting, SlurmUser,\n"
         "  the operator level extend-limits needs), names each missing piece with its fix and\n"
         "  what to check by hand on the nodes; exit 1 when a piece is missing.\n"
         "--max-connections-per-uid N: open connections per local uid (per address over TCP), and\n"
         "  authenticated requests in flight per uid; default 8.\n"
         "--first-frame-deadline S: a connection's whole first frame within S seconds (default 2);\n"
         "--max-unauthenticated N: at most N connections without one (default: three quarters of\n"
         "  --max-connections); when they are all taken, the oldest of the uid or subnet holding\n"
         "  the most is closed to make room.\n"
         "--qos-interval S: sacctmgr's QOS table asked at most once per S seconds (default 60;\n"
         "  0: never, no QOS limit applied).\n"
         "--socket-group GROUP: the socket 0660 with this group; without it 0666 (MUNGE\n"
         "  authenticates every request either way).\n"
         "--operators USER,...: names or uids whose --status shows every job (as root's and\n"
         "  SlurmUser's do); everyone else's shows its own jobs only.\n"
         "--extend-limits on|off: a job of the recipe that gives nodes back by the arbiter's\n"
         "  decision, or that Slurm started below the top of its node range (once per start),\n"
         "  gets its TimeLimit raised in Slurm by the simulator's rule, within a cap\n"
         "  (default off: the daemon's user must first be a Slurm operator, AdminLevel=Operator).\n"
         "--arbiter-user NAME|UID: with --status, the user the daemon runs as (its reply is taken\n"
         "  only in that user's MUNGE credential; default malleable-arbiter).\n";
}

}  // namespace cluster::arbiter
