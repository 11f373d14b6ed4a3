// SPDX-License-Identifier: BSD-3-Clause
// The shared directory of the Slurm arbitration (issue 44 §1): the cached cluster view,
// the ledger and the decision logs as files, read and written under flock, each write
// a temporary file renamed into place (a reader never sees half a file).
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <fstream>
#include <sstream>

#include "policy/slurm_arbiter.hpp"

namespace resize::slurm {

namespace {

// flock on DIR/<name>.lock for the life of the object.
class Lock {
 public:
  Lock(const std::string& path) : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666)) {
    if (fd_ < 0) throw Error("slurm: cannot open the lock " + path + ": " + std::strerror(errno));
    while (::flock(fd_, LOCK_EX) != 0)
      if (errno != EINTR) {
        const int e = errno;
        ::close(fd_);
        throw Error("slurm: cannot lock " + path + ": " + std::strerror(e));
      }
  }
  ~Lock() { ::close(fd_); }
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;

 private:
  int fd_;
};

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_whole(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text;
    out.close();
    if (!out) throw Error("slurm: cannot write " + tmp);
  }
  ::chmod(tmp.c_str(), 0666);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw Error("slurm: cannot rename " + tmp + " to " + path + ": " + std::strerror(errno));
  }
}

void append(const std::string& path, const std::string& line) {
  std::ofstream out(path, std::ios::app);
  out << line << "\n";
  if (!out) throw Error("slurm: cannot append to " + path);
}

}  // namespace

SharedDir::SharedDir(std::string dir) : dir_(std::move(dir)) {
  std::error_code ec;
  std::filesystem::create_directories(dir_ + "/log", ec);
  if (ec || !std::filesystem::is_directory(dir_ + "/log"))
    throw Error("slurm: cannot create the shared directory " + dir_ + "/log: " + ec.message());
}

ClusterView SharedDir::view(const Runner& run, double now, double max_age_s, const std::string& job, bool& queried) {
  queried = false;
  const std::string path = dir_ + "/view";
  const auto cached = [&]() -> std::optional<ClusterView> {
    const std::string text = read_all(path);
    if (text.empty()) return std::nullopt;
    try {
      ClusterView v = parse_view(text);
      if (!view_stale(v.taken_at, now, max_age_s)) return v;
    } catch (const Error&) {
    }
    return std::nullopt;
  };
  if (auto v = cached()) return *v;
  Lock lock(path + ".lock");
  if (auto v = cached()) return *v;
  const Command jobs = run(kViewJobsCommand);
  if (jobs.status != 0) throw Error(std::string("reading the jobs failed (`") + kViewJobsCommand + "`: " + jobs.out + ")");
  const Command idle = run(kViewIdleCommand);
  if (idle.status != 0) throw Error(std::string("reading idle nodes failed (`") + kViewIdleCommand + "`: " + idle.out + ")");
  queried = true;
  ClusterView v = make_view(now, jobs.out, idle.out);
  write_whole(path, format_view(v));
  char t[32];
  std::snprintf(t, sizeof t, "%.3f", now);
  append(dir_ + "/queries.log", std::string(t) + " " + job);
  return v;
}

void SharedDir::update(const std::function<Ledger(const Ledger&)>& f) {
  const std::string path = dir_ + "/ledger";
  const auto read = [&] {
    try {
      return parse_ledger(read_all(path));
    } catch (const Error&) {
      return Ledger{};  // a damaged ledger starts over: entries are short-lived and rewritten
    }
  };
  // Most decisions change nothing (a job staying, nothing to bid for): decided on the
  // ledger as it is, without the lock (files are replaced whole, never half-written). A
  // decision that changes it is taken again under the lock on the ledger read there.
  const Ledger seen = read();
  if (f(seen).entries == seen.entries) return;
  Lock lock(path + ".lock");
  write_whole(path, format_ledger(f(read())));
}

void SharedDir::log(const std::string& job, const std::string& line) { append(dir_ + "/log/" + job + ".jsonl", line); }

}  // namespace resize::slurm
