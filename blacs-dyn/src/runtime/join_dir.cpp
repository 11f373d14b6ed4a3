// SPDX-License-Identifier: BSD-3-Clause
// Growing by joining, the files of the job's directory (join_dir.hpp).
#include "runtime/join_dir.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>
#include <ctime>
#include <limits>

#include "malleable/blacs_dyn/error.hpp"
#include "malleable_internal/job_dir_layout.hpp"

namespace blacs_dyn::join {

namespace jd = malleable::job_dir;

namespace {

constexpr std::size_t kMaxFile = 16384;

[[noreturn]] void fail(const std::string& what, int err = errno) {
  throw Error(BLACS_DYN_ERR_JOIN, what + ": " + std::strerror(err));
}

double mtime_age(const struct stat& st) {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<double>(now.tv_sec - st.st_mtim.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec - st.st_mtim.tv_nsec);
}

// A folder of this user closed to others, made if missing.
void private_dir(const std::string& d) {
  if (::mkdir(d.c_str(), 0700) != 0 && errno != EEXIST) fail("cannot make the job directory '" + d + "'");
  struct stat st{};
  if (::lstat(d.c_str(), &st) != 0) fail("cannot read '" + d + "'");
  if (!S_ISDIR(st.st_mode)) throw Error(BLACS_DYN_ERR_JOIN, "'" + d + "' is not a directory");
  if (st.st_uid != ::geteuid())
    throw Error(BLACS_DYN_ERR_JOIN, "'" + d + "' belongs to uid " + std::to_string(st.st_uid) + ", not to this job's uid " +
                                        std::to_string(::geteuid()));
  if (st.st_mode & 077) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    throw Error(BLACS_DYN_ERR_JOIN, "'" + d + "' is open to other users (mode " + mode + "; chmod 700 it)");
  }
}

// The bytes of a file of this user closed to others (no link followed), at most kMaxFile.
std::string read_private(const std::string& p, struct stat* out = nullptr) {
  const int fd = ::open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) fail("cannot read '" + p + "'");
  struct stat st{};
  ::fstat(fd, &st);
  std::string s;
  char buf[4096];
  ssize_t n = 0;
  while (s.size() <= kMaxFile && (n = ::read(fd, buf, sizeof buf)) > 0) s.append(buf, static_cast<std::size_t>(n));
  const int err = errno;
  ::close(fd);
  if (n < 0) fail("cannot read '" + p + "'", err);
  if (s.size() > kMaxFile) throw Error(BLACS_DYN_ERR_JOIN, "'" + p + "' is larger than " + std::to_string(kMaxFile) + " bytes");
  if (out) *out = st;
  return s;
}

// Writes `text` to `p` atomically (a new 0600 file renamed over it).
void write_private(const std::string& p, const std::string& text, bool keep_existing = false) {
  const std::string tmp = p + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) fail("cannot write '" + tmp + "'");
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int err = errno;
  ::close(fd);
  if (!ok) {
    ::unlink(tmp.c_str());
    fail("cannot write '" + tmp + "'", err);
  }
  // keep_existing: only if there is none yet (link fails on an existing name).
  const int rc = keep_existing ? ::link(tmp.c_str(), p.c_str()) : ::rename(tmp.c_str(), p.c_str());
  const int lerr = errno;
  if (keep_existing) ::unlink(tmp.c_str());
  if (rc != 0 && !(keep_existing && lerr == EEXIST)) {
    ::unlink(tmp.c_str());
    fail("cannot write '" + p + "'", lerr);
  }
}

void touch(const std::string& p) { ::utimensat(AT_FDCWD, p.c_str(), nullptr, AT_SYMLINK_NOFOLLOW); }

}  // namespace

std::string program_path() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "?";
  buf[n] = '\0';
  char real[PATH_MAX];
  return ::realpath(buf, real) ? std::string(real) : std::string(buf);
}

std::string random_hex(std::size_t bytes) {
  std::string raw(bytes, '\0');
  std::size_t got = 0;
  while (got < bytes) {
    const ssize_t n = ::getrandom(raw.data() + got, bytes - got, 0);
    if (n < 0 && errno != EINTR) fail("getrandom");
    if (n > 0) got += static_cast<std::size_t>(n);
  }
  return malleable::wire::hex(std::span<const char>(raw.data(), raw.size()));
}

void JobDir::prepare() const {
  private_dir(dir_);
  private_dir(at(jd::kJoin));
  private_dir(at(jd::kOrders));
  write_private(at(jd::kSecret), random_hex(32) + "\n", true);
  read_secret();  // this user's, closed to others
}

std::string JobDir::read_secret() const {
  struct stat st{};
  std::string s = read_private(at(jd::kSecret), &st);
  if (st.st_uid != ::geteuid() || (st.st_mode & 077))
    throw Error(BLACS_DYN_ERR_JOIN, "'" + at(jd::kSecret) + "' must be this user's and closed to others (0600)");
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  if (s.size() < 16) throw Error(BLACS_DYN_ERR_JOIN, "'" + at(jd::kSecret) + "' holds fewer than 16 characters");
  return s;
}

void JobDir::write_job(const JobRecord& r) const { write_private(at(jd::kJob), format(r)); }

void JobDir::touch_alive() const {
  if (::utimensat(AT_FDCWD, at(jd::kAlive).c_str(), nullptr, AT_SYMLINK_NOFOLLOW) != 0) write_private(at(jd::kAlive), "");
}

std::vector<JobDir::Seen> JobDir::scan() const {
  std::vector<Seen> out;
  DIR* d = ::opendir(at(jd::kJoin).c_str());
  if (!d) fail("cannot read '" + at(jd::kJoin) + "'");
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    const std::size_t n = jd::kRequest.size();
    if (name.size() <= n || name.compare(name.size() - n, n, jd::kRequest) != 0) continue;
    const std::string id = name.substr(0, name.size() - n);
    if (!valid_launch_id(id)) continue;
    if (out.size() >= 256) break;
    Seen s;
    s.launch = id;
    const std::string p = jd::join_file(dir_, name, {});
    struct stat st{};
    if (::lstat(p.c_str(), &st) != 0) continue;  // withdrawn meanwhile
    s.file = RequestFile{st.st_uid, static_cast<unsigned>(st.st_mode & 07777), S_ISREG(st.st_mode), mtime_age(st)};
    try {
      if (s.file.regular) s.req = parse_request(read_private(p), p);
      else s.error = p + ": not a regular file";
    } catch (const std::exception& ex) {
      s.error = ex.what();
    }
    if (s.req && s.req->launch != id) {
      s.error = p + ": it names launch '" + s.req->launch + "'";
      s.req.reset();
    }
    out.push_back(std::move(s));
  }
  ::closedir(d);
  return out;
}

void JobDir::answer(const std::string& launch, const std::string& text) const {
  write_private(jd::join_file(dir_, launch, jd::kAnswer), text + "\n");
}

void JobDir::log(const std::string& line) const {
  const int fd = ::open(at(jd::kJoinLog).c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return;
  char stamp[40];
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ ", &tm);
  const std::string l = stamp + line + "\n";
  [[maybe_unused]] const ssize_t n = ::write(fd, l.data(), l.size());
  ::close(fd);
}

void JobDir::order(const std::string& launch, const std::string& host, int procs) const {
  write_private(jd::order_file(dir_, launch), std::string(jd::kOrderHost) + " " + host + "\n" + std::string(jd::kOrderProcs) + " " + std::to_string(procs) + "\n");
}

void JobDir::cancel_order(const std::string& launch) const { write_private(jd::order_file(dir_, launch, jd::kCancel), "cancel\n"); }

JobRecord JobDir::read_job() const { return parse_job_record(read_private(at(jd::kJob)), at(jd::kJob)); }

double JobDir::alive_age() const {
  struct stat st{};
  if (::stat(at(jd::kAlive).c_str(), &st) != 0) return std::numeric_limits<double>::infinity();
  return mtime_age(st);
}

void JobDir::write_request(const JoinRequest& r) const { write_private(jd::join_file(dir_, r.launch, jd::kRequest), format(r)); }
void JobDir::touch_request(const std::string& launch) const { touch(jd::join_file(dir_, launch, jd::kRequest)); }
void JobDir::remove_request(const std::string& launch) const { ::unlink(jd::join_file(dir_, launch, jd::kRequest).c_str()); }

std::optional<std::string> JobDir::read_answer(const std::string& launch) const {
  const std::string p = jd::join_file(dir_, launch, jd::kAnswer);
  if (::access(p.c_str(), F_OK) != 0) return std::nullopt;
  try {
    std::string s = read_private(p);
    while (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
  } catch (const std::exception& e) {
    return std::string(e.what());
  }
}

void Ticker::start(double period, std::function<bool()> tick) {
  stop();
  stop_ = false;
  thread_ = std::thread([this, period, tick = std::move(tick)] {
    const auto step = std::chrono::duration<double>(period);
    while (!stop_) {
      if (!tick()) return;
      const auto until = std::chrono::steady_clock::now() + step;
      while (!stop_ && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
}

void Ticker::stop() {
  stop_ = true;
  if (thread_.joinable()) {
    if (thread_.get_id() == std::this_thread::get_id()) thread_.detach();
    else thread_.join();
  }
}

}  // namespace blacs_dyn::join
