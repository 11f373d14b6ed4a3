// SPDX-License-Identifier: BSD-3-Clause
// Growing by joining, the files (docs/reference/blacs-dyn.md, "Growing by joining"): the
// job's private directory and what lives in it, read and written safely (no link
// followed, 0600 files in 0700 folders of the job's user, bounded reads, atomic writes),
// and a thread that ticks (the heartbeats). The records' formats and checks are
// join_protocol.hpp's; here only the file system. The names are the shared layout's
// (malleable_internal/job_dir_layout.hpp, which the launcher and the expander jobs use too).
//
//   DIR/secret            random, made by the launcher or the job's rank 0 (0600)
//   DIR/job               the job's record (JobRecord), written by its rank 0 at start
//   DIR/alive             the job's heartbeat (its mtime), touched by rank 0 every second
//   DIR/join/<id>.req     a launch waiting to join (JoinRequest); its mtime is its heartbeat
//   DIR/join/<id>.answer  the job's refusal of a launch it never connected to
//   DIR/join.log          every launch joined, refused or sent away, one line each
//   DIR/orders/<id>       a launch the job asks its launcher for ("host H", "procs K")
//   DIR/orders/<id>.cancel  ... and calls off
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "protocol/join_protocol.hpp"

namespace blacs_dyn::join {

// This process's executable, its real path.
std::string program_path();
// `bytes` random bytes (getrandom) as lower-case hex.
std::string random_hex(std::size_t bytes);

class JobDir {
 public:
  explicit JobDir(std::string dir) : dir_(std::move(dir)) {}
  const std::string& path() const { return dir_; }

  // Job side. The directory (made if missing, its parent must exist) and its join/ and
  // orders/ folders are this user's and closed to others (0700), else Error; the secret
  // exists (made if missing).
  void prepare() const;
  std::string read_secret() const;
  void write_job(const JobRecord& r) const;
  void touch_alive() const;
  struct Seen {
    std::string launch;                // from the file name
    std::optional<JoinRequest> req;    // parsed, or
    std::string error;                 // why not (the job refuses it)
    RequestFile file;
  };
  // The requests in join/ (at most 256 are read; a name that is no launch id is skipped).
  std::vector<Seen> scan() const;
  void answer(const std::string& launch, const std::string& text) const;
  void log(const std::string& line) const;
  void order(const std::string& launch, const std::string& host, int procs) const;
  void cancel_order(const std::string& launch) const;

  // Joiner side.
  JobRecord read_job() const;
  double alive_age() const;  // seconds since the job's heartbeat; +inf when there is none
  void write_request(const JoinRequest& r) const;
  void touch_request(const std::string& launch) const;
  void remove_request(const std::string& launch) const;
  std::optional<std::string> read_answer(const std::string& launch) const;

 private:
  std::string at(std::string_view name) const { return dir_ + "/" + std::string(name); }
  std::string dir_;
};

// Calls `tick()` every `period` seconds on a thread of its own (no MPI there) until
// stopped; stop() joins it. A tick returning false ends the thread.
class Ticker {
 public:
  Ticker() = default;
  Ticker(const Ticker&) = delete;
  Ticker& operator=(const Ticker&) = delete;
  ~Ticker() { stop(); }
  void start(double period, std::function<bool()> tick);
  void stop();
  bool running() const { return thread_.joinable(); }

 private:
  std::thread thread_;
  std::atomic<bool> stop_{false};
};

}  // namespace blacs_dyn::join
