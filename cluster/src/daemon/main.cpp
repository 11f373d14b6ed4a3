// SPDX-License-Identifier: BSD-3-Clause
// malleable-arbiterd: one arbiter per cluster for the malleable jobs under Slurm
// (docs/guide/arbiter.md). `--status SOCKET` asks a running one for its state.
#include <pwd.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "arbiter/client.hpp"
#include "arbiter/munge.hpp"
#include "slurm/number.hpp"
#include "daemon/check.hpp"
#include "daemon/options.hpp"
#include "daemon/server.hpp"

namespace {
volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

std::uint32_t uid_of(const std::string& user) {
  if (!user.empty() && user.find_first_not_of("0123456789") == std::string::npos) {
    const auto uid = cluster::slurm::whole_number(user, 0xfffffffeULL);
    if (!uid) throw cluster::Error("--slurm-user: '" + user + "' is not a uid");
    return static_cast<std::uint32_t>(*uid);
  }
  const passwd* p = ::getpwnam(user.c_str());
  if (!p) throw cluster::Error("--slurm-user: no user named '" + user + "'");
  return p->pw_uid;
}

// A user by name, or by uid when all digits (at most 9).
const passwd* user_entry(const std::string& u) {
  if (!u.empty() && u.size() <= 9 && u.find_first_not_of("0123456789") == std::string::npos)
    return ::getpwuid(static_cast<uid_t>(std::stoul(u)));
  return ::getpwnam(u.c_str());
}

// --check: the facts of this host (each command an argument vector, 20 s at most), judged
// by check_findings; exit 1 when a piece is missing.
int run_check(const cluster::arbiter::DaemonOptions& o) {
  using namespace cluster::arbiter;
  CheckFacts f;
  f.munge_socket = o.server.munge_socket;
  try {
    const Credential c = munge_decode_credential(munge_encode_credential("malleable-arbiterd --check", f.munge_socket), f.munge_socket);
    if (!c.ok) f.munge_error = "a credential made here was not read back: " + c.why;
  } catch (const std::exception& e) {
    f.munge_error = e.what();
  }
  f.user = o.status_user;
  if (const passwd* p = user_entry(o.status_user)) f.user = p->pw_name, f.user_uid = p->pw_uid;
  f.socket = o.server.socket, f.listen = o.server.listen;
  const std::string dir = f.socket.substr(0, f.socket.rfind('/'));
  f.socket_dir_exists = f.socket.empty() || ::access(dir.empty() ? "/" : dir.c_str(), F_OK) == 0;
  f.expansion = o.state.arbiter.expansion, f.extend_limits = o.state.extend_limits;
  f.slurm_user = o.slurm_user;
  cluster::slurm::RunOptions run;
  run.timeout_s = 20;
  const auto runner = cluster::slurm::process_runner(run);
  const cluster::slurm::Command config = runner({"scontrol", "show", "config"});
  f.config_status = config.status;
  f.config = config.status == 0 ? config.out : config.said();
  if (f.extend_limits) {
    const cluster::slurm::Command a = runner({"sacctmgr", "-n", "-P", "show", "user", f.user, "format=AdminLevel"});
    f.admin_status = a.status;
    f.admin_level = a.out.substr(0, a.out.find('\n'));
  }
  const std::vector<Finding> found = check_findings(f);
  std::cout << check_report(found);
  return missing_count(found) == 0 ? 0 : 1;
}
}  // namespace

int main(int argc, char** argv) {
  using namespace cluster::arbiter;
  const std::vector<std::string> args(argv + 1, argv + argc);
  DaemonOptions o;
  try {
    std::string text;
    if (const std::string path = config_path(args); !path.empty()) {
      std::ifstream f(path);
      if (!f) throw cluster::Error("cannot read the configuration file " + path);
      std::stringstream s;
      s << f.rdbuf();
      text = s.str();
    }
    o = parse_daemon_options(args, text);
  } catch (const cluster::Error& e) {
    std::cerr << "malleable-arbiterd: " << e.what() << "\n" << daemon_usage();
    return 2;
  }
  if (o.help) {
    std::cout << daemon_usage();
    return 0;
  }
  if (o.check) return run_check(o);
  try {
    if (!o.status_socket.empty()) {
      Request q;
      q.kind = Request::Kind::Status;
      const Reply r = ask(ClientOptions{o.status_socket, o.server.munge_socket, o.server.deadline_s, o.status_user}, q);
      if (!r.ok) {
        std::cerr << "malleable-arbiterd: " << r.error << "\n";
        return 1;
      }
      std::cout << r.status_json << "\n";
      return 0;
    }
    o.state.slurm_user = uid_of(o.slurm_user);
    for (const auto& op : o.operators) o.state.operators.insert(uid_of_user(op, "--operators"));
    std::signal(SIGTERM, on_signal);
    std::signal(SIGINT, on_signal);
    std::signal(SIGPIPE, SIG_IGN);
    // A Slurm command that hangs gets 20 s (then its process group is killed and the last
    // view stays); run as an argument vector, never through a shell.
    cluster::slurm::RunOptions run;
    run.timeout_s = 20;
    Server s(o.server, o.state, cluster::slurm::process_runner(run));
    s.run(&g_stop);
  } catch (const std::exception& e) {
    if (!o.status_socket.empty()) std::cerr << "malleable-arbiterd --status: " << e.what() << "\n";
    else log_line(std::string("stopping: ") + e.what());
    return 1;
  }
  return 0;
}
