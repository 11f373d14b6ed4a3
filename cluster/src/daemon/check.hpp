// SPDX-License-Identifier: BSD-3-Clause
// malleable-arbiterd --check, pure: what the daemon's host says about the path a job of the
// recipe takes to the arbiter (MUNGE, the daemon's user, its listeners, the Slurm settings
// the path needs), judged piece by piece, each missing piece named with its fix. main.cpp
// gathers the facts (a MUNGE credential made and read back, getpwnam, `scontrol show
// config`, sacctmgr) as argument vectors; what Slurm prints is read here with bounds.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cluster::arbiter {

// What the host said; each command's output as text, its status apart.
struct CheckFacts {
  std::string munge_socket;         // the socket asked (empty: libmunge's default)
  std::string munge_error;          // empty: a credential was made and read back
  std::string user;                 // the daemon's user (--arbiter-user)
  std::optional<unsigned> user_uid; // getpwnam's answer; none: no such user
  std::string socket, listen;       // the listeners configured
  bool socket_dir_exists = false;   // the socket's folder exists (or none configured)
  bool expansion = true, extend_limits = false;  // the daemon's options
  std::string slurm_user;           // --slurm-user as configured
  int config_status = -1;           // `scontrol show config`: its status and output
  std::string config;
  int admin_status = -1;            // `sacctmgr -n -P show user USER format=AdminLevel` (with extend-limits)
  std::string admin_level;
};

struct Finding {
  enum class Kind { Ok, Missing, ByHand } kind = Kind::Ok;
  std::string what;  // the piece and what was seen
  std::string fix;   // Missing: what to do
};

// The value of KEY in `scontrol show config`'s "Key = Value" lines (first 1 MiB, lines of
// at most 64 KiB), trimmed; nullopt when no line names it.
std::optional<std::string> slurm_config_value(const std::string& config, const std::string& key);
// Every piece, in the order an admin sets them up: MUNGE, the user, the listeners, Slurm's
// client and settings; then what cannot be checked from this host (ByHand).
std::vector<Finding> check_findings(const CheckFacts& f);
// The report: "ok       ...", "MISSING  ..." with an indented "fix: ..." line, "by hand  ...",
// and a last line counting what is missing.
std::string check_report(const std::vector<Finding>& findings);
int missing_count(const std::vector<Finding>& findings);

}  // namespace cluster::arbiter
