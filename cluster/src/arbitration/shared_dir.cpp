// SPDX-License-Identifier: BSD-3-Clause
// The shared directory of the Slurm arbitration: the cached cluster view,
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

#include "malleable/cluster/arbitration.hpp"

namespace cluster::slurm {

namespace {

// How files are made: their exact mode (fchmod: the umask neither widens nor narrows it)
// and, in a group directory, its group (gid < 0: leave it).
struct Files {
  unsigned mode;
  long gid;
};

// Opens (creating with f's mode) and, when this user owns it, sets the exact mode and
// group. Returns the descriptor; throws Error.
int open_file(const std::string& path, int flags, const Files& f) {
  const int fd = ::open(path.c_str(), flags | O_CREAT | O_CLOEXEC, f.mode);
  if (fd < 0) throw Error("slurm: cannot open " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) == 0 && st.st_uid == ::geteuid()) {
    if (f.gid >= 0 && st.st_gid != static_cast<gid_t>(f.gid)) (void)::fchown(fd, static_cast<uid_t>(-1), static_cast<gid_t>(f.gid));
    if ((st.st_mode & 07777) != f.mode) (void)::fchmod(fd, f.mode);
  }
  return fd;
}

// flock on DIR/<name>.lock for the life of the object.
class Lock {
 public:
  Lock(const std::string& path, const Files& f) : fd_(open_file(path, O_RDWR, f)) {
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

void write_fd(int fd, const std::string& text, const std::string& path) {
  for (std::size_t at = 0; at < text.size();) {
    const ssize_t n = ::write(fd, text.data() + at, text.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = errno;
      ::close(fd);
      throw Error("slurm: cannot write " + path + ": " + std::strerror(e));
    }
    at += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) throw Error("slurm: cannot write " + path + ": " + std::strerror(errno));
}

void write_whole(const std::string& path, const std::string& text, const Files& f) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  ::unlink(tmp.c_str());  // a leftover of a process with this pid: made anew, with f's mode
  write_fd(open_file(tmp, O_WRONLY | O_TRUNC | O_EXCL, f), text, tmp);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw Error("slurm: cannot rename " + tmp + " to " + path + ": " + std::strerror(errno));
  }
}

void append(const std::string& path, const std::string& line, const Files& f) {
  write_fd(open_file(path, O_WRONLY | O_APPEND, f), line + "\n", path);
}

// A directory: created with `mode` when missing (exact, whatever the umask); throws Error.
// narrow: an existing one of this user gets `mode` too.
void make_dir(const std::string& path, unsigned mode, bool narrow) {
  if (::mkdir(path.c_str(), mode) == 0) {
    if (::chmod(path.c_str(), mode) != 0)
      throw Error("slurm: cannot set the mode of " + path + ": " + std::strerror(errno));
    return;
  }
  if (errno != EEXIST) throw Error("slurm: cannot create the shared directory " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw Error("slurm: the shared directory " + path + " is not a directory");
  if (narrow && st.st_uid == ::geteuid() && (st.st_mode & 07777) != mode) (void)::chmod(path.c_str(), mode);
}

// Per-user: this user's files in `dir` with a wider mode than 0600 (an older version
// wrote every file 0666) are narrowed.
void narrow_files(const std::string& dir) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    struct stat st {};
    if (::lstat(e.path().c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
        (st.st_mode & 0177) != 0)
      (void)::chmod(e.path().c_str(), 0600);
  }
}

}  // namespace

const char* to_string(SharedAccess a) { return a == SharedAccess::Group ? "shared-group" : "per-user"; }

SharedDir::SharedDir(std::string dir, SharedAccess access)
    : dir_(std::move(dir)), access_(access), file_mode_(access == SharedAccess::Group ? 0660 : 0600) {
  if (dir_.empty()) throw Error("slurm: the shared directory's path is empty");
  // The parents as the umask makes them (the user's $HOME/.malleable/slurm, or what the
  // administrator prepared); the directory itself and DIR/log with the access's mode.
  const bool per_user = access_ == SharedAccess::PerUser;
  // Missing parents: per-user 0700 ($HOME/.malleable, .../slurm), else 0755 (the group
  // traverses them; nobody else writes there), whatever the umask.
  std::filesystem::path at;
  const std::filesystem::path parent = std::filesystem::path(dir_).parent_path();
  for (const auto& part : parent) {
    at /= part;
    if (at == at.root_path() || std::filesystem::exists(at)) continue;
    make_dir(at.string(), per_user ? 0700 : 0755, false);
  }
  make_dir(dir_, per_user ? 0700 : 02770, per_user);
  struct stat st {};
  if (::stat(dir_.c_str(), &st) != 0) throw Error("slurm: cannot read the shared directory " + dir_);
  if (!per_user) gid_ = static_cast<long>(st.st_gid);
  // DIR/log: per-user 0700; in a group directory 02770 in the directory's group.
  make_dir(dir_ + "/log", per_user ? 0700 : 02770, true);
  if (!per_user) {
    struct stat lg {};
    if (::stat((dir_ + "/log").c_str(), &lg) == 0 && lg.st_uid == ::geteuid() && lg.st_gid != st.st_gid)
      (void)::chown((dir_ + "/log").c_str(), static_cast<uid_t>(-1), st.st_gid);
  } else {
    narrow_files(dir_);
    narrow_files(dir_ + "/log");
  }
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
  const Files files{file_mode_, gid_};
  Lock lock(path + ".lock", files);
  if (auto v = cached()) return *v;
  const Command jobs = run(kViewJobsCommand);
  if (jobs.status != 0)
    throw Error("reading the jobs failed (`" + command_line(kViewJobsCommand) + "`: " + escaped(jobs.said().substr(0, 500)) + ")");
  const Command idle = run(kViewIdleCommand);
  if (idle.status != 0)
    throw Error("reading idle nodes failed (`" + command_line(kViewIdleCommand) + "`: " + escaped(idle.said().substr(0, 500)) + ")");
  queried = true;
  ClusterView v = make_view(now, jobs.out, idle.out);
  write_whole(path, format_view(v), files);
  char t[32];
  std::snprintf(t, sizeof t, "%.3f", now);
  append(dir_ + "/queries.log", std::string(t) + " " + job, files);
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
  const Files files{file_mode_, gid_};
  Lock lock(path + ".lock", files);
  write_whole(path, format_ledger(f(read())), files);
}

void SharedDir::log(const std::string& job, const std::string& line) {
  append(dir_ + "/log/" + job + ".jsonl", line, Files{file_mode_, gid_});
}

}  // namespace cluster::slurm
