// SPDX-License-Identifier: BSD-3-Clause
// The job directory of growing by joining (docs/guide/joining.md), defined once: the names
// of its files and folders, the names a launch id and a host may have, and the command
// line of a launch that joins the job (the launcher's --join). Shared by the launcher
// (launcher/, malleable-run --job-dir and --join), the job's side (blacs-dyn's join_dir)
// and the expander jobs (cluster's expanders.cpp, which submits that command line).
// Header-only and pure: names and strings, no file is touched here.
//
//   DIR/secret              random, made by the launcher or the job's rank 0 (0600)
//   DIR/job                 the job's record, written by its rank 0 at start
//   DIR/alive               the job's heartbeat (its mtime)
//   DIR/command             the job's program and arguments, NUL-separated
//   DIR/environment         NAME=VALUE, NUL-separated: the launcher's settings for expanders
//   DIR/server.uri          the ompi-server's URI (Open MPI connects launches through it)
//   DIR/join.log            every launch joined, refused or sent away, one line each
//   DIR/join/<id>.req       a launch waiting to join; DIR/join/<id>.answer the job's refusal
//   DIR/join/<id>.log       what the launcher's launch <id> printed
//   DIR/orders/<id>         a launch the job asks its launcher for ("host H", "procs K")
//   DIR/orders/<id>.cancel  ... called off; .started (the launch's process group), .done
//   DIR/expanders/<J>.out   an expander job's output (sbatch --output=DIR/expanders/%j.out)
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace malleable::job_dir {

inline constexpr std::string_view kSecret = "secret";
inline constexpr std::string_view kJob = "job";
inline constexpr std::string_view kAlive = "alive";
inline constexpr std::string_view kCommand = "command";
inline constexpr std::string_view kEnvironment = "environment";
inline constexpr std::string_view kServerUri = "server.uri";
inline constexpr std::string_view kJoinLog = "join.log";
inline constexpr std::string_view kJoin = "join";
inline constexpr std::string_view kOrders = "orders";
inline constexpr std::string_view kExpanders = "expanders";
// Suffixes of a launch's files in join/ and orders/.
inline constexpr std::string_view kRequest = ".req";
inline constexpr std::string_view kAnswer = ".answer";
inline constexpr std::string_view kLaunchLog = ".log";
inline constexpr std::string_view kCancel = ".cancel";
inline constexpr std::string_view kStarted = ".started";
inline constexpr std::string_view kDone = ".done";
// An order's lines: "host H" and "procs K".
inline constexpr std::string_view kOrderHost = "host";
inline constexpr std::string_view kOrderProcs = "procs";

inline std::string path(const std::string& dir, std::string_view name) { return dir + "/" + std::string(name); }
inline std::string join_file(const std::string& dir, const std::string& id, std::string_view suffix) {
  return dir + "/" + std::string(kJoin) + "/" + id + std::string(suffix);
}
inline std::string order_file(const std::string& dir, const std::string& id, std::string_view suffix = {}) {
  return dir + "/" + std::string(kOrders) + "/" + id + std::string(suffix);
}
// sbatch's --output pattern of an expander job (%j: its job id).
inline std::string expander_output(const std::string& dir) { return dir + "/" + std::string(kExpanders) + "/%j.out"; }

// A launch id: [A-Za-z0-9_][A-Za-z0-9._-]{0,63} (a file name in join/ and orders/).
inline bool valid_launch_id(std::string_view s) {
  if (s.empty() || s.size() > 64 || s[0] == '.' || s[0] == '-') return false;
  for (const char c : s) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}
// One host name: [A-Za-z0-9][A-Za-z0-9._-]{0,253}.
inline bool valid_host(std::string_view s) {
  if (s.empty() || s.size() > 254 || s[0] == '.' || s[0] == '_' || s[0] == '-') return false;
  for (const char c : s) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// The launcher's options of a launch that joins a job.
inline constexpr std::string_view kOptJoin = "--join";
inline constexpr std::string_view kOptHost = "--host";
inline constexpr std::string_view kOptId = "--id";
inline constexpr std::string_view kOptProcs = "-n";
inline constexpr std::string_view kOptAtStart = "--at-start";
inline constexpr std::string_view kOptWhileJob = "--while-job";

// What a joining launch is: the job's directory, its host (empty: the launcher's own),
// its id, its processes, whether it is one of the job's start, the Slurm job it lives in.
struct JoinLaunch {
  std::string dir;
  std::string host;
  std::string id;
  int procs = 1;
  bool at_start = false;
  std::string while_job;
};
// `launcher --join DIR [--host H] --id ID -n K [--at-start] [--while-job J]`, argv.
inline std::vector<std::string> join_argv(const std::string& launcher, const JoinLaunch& l) {
  std::vector<std::string> a{launcher, std::string(kOptJoin), l.dir};
  if (!l.host.empty()) a.insert(a.end(), {std::string(kOptHost), l.host});
  a.insert(a.end(), {std::string(kOptId), l.id, std::string(kOptProcs), std::to_string(l.procs)});
  if (l.at_start) a.emplace_back(kOptAtStart);
  if (!l.while_job.empty()) a.insert(a.end(), {std::string(kOptWhileJob), l.while_job});
  return a;
}

// A word as a POSIX shell reads it back: as it is when it holds only [A-Za-z0-9,._+:@%/=-]
// (and is not empty), else in single quotes ('\'' for a quote inside).
inline std::string shell_word(std::string_view w) {
  bool plain = !w.empty();
  for (const char c : w) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    std::string_view(",._+:@%/=-").find(c) != std::string_view::npos;
    plain = plain && ok;
  }
  if (plain) return std::string(w);
  std::string out = "'";
  for (const char c : w) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// An expander job's batch script (sbatch --wrap: sbatch takes no program for one, only a
// script): "exec" and the joining launch's argv, each word quoted for Slurm's /bin/sh, which
// then runs the launcher in its place. The words are checked before (expander_submit_argv).
inline std::string join_wrap(const std::string& launcher, const JoinLaunch& l) {
  std::string out = "exec";
  for (const auto& w : join_argv(launcher, l)) {
    out += ' ';
    out += shell_word(w);
  }
  return out;
}

}  // namespace malleable::job_dir
