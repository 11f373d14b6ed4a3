// SPDX-License-Identifier: BSD-3-Clause
// malleable-run's files (files.hpp).
#include "files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core.hpp"
#include "malleable_internal/job_dir_layout.hpp"

namespace launcher {

namespace jd = malleable::job_dir;

std::string real_path(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

std::vector<std::string> list_dir(const std::string& dir, std::size_t most) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (const dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (n == "." || n == "..") continue;
    if (out.size() >= most) break;
    out.push_back(n);
  }
  ::closedir(d);
  return out;
}

std::optional<std::string> read_file(const std::string& p, std::size_t most) {
  const int fd = ::open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return std::nullopt;
  }
  std::string s;
  char buf[8192];
  while (s.size() < most) {
    const ssize_t n = ::read(fd, buf, std::min(sizeof buf, most - s.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    s.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return s;
}

bool write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

void write_private(const std::string& p, const std::string& data) {
  const std::string tmp = p + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) throw Failure(2, "cannot write " + p + ": " + std::strerror(errno));
  bool ok = write_all(fd, data);
  int err = errno;
  if (ok && ::fsync(fd) != 0 && errno != EINVAL) ok = false, err = errno;
  if (::close(fd) != 0 && ok) ok = false, err = errno;
  if (ok && ::rename(tmp.c_str(), p.c_str()) != 0) ok = false, err = errno;
  if (!ok) {
    ::unlink(tmp.c_str());
    throw Failure(2, "cannot write " + p + ": " + std::strerror(err));
  }
}

std::vector<std::string> nul_words_of(const std::string& s) {
  std::vector<std::string> out;
  std::size_t from = 0;
  while (from < s.size()) {
    std::size_t z = s.find('\0', from);
    if (z == std::string::npos) z = s.size();
    out.push_back(s.substr(from, z - from));
    from = z + 1;
  }
  return out;
}


std::string nul_words(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += w + '\0';
  return out;
}

bool exists(const std::string& p) {
  struct stat st{};
  return ::lstat(p.c_str(), &st) == 0;
}

bool non_empty(const std::string& p) {
  struct stat st{};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

namespace {

std::string random_hex(std::size_t bytes) {
  std::string raw(bytes, '\0');
  std::size_t got = 0;
  while (got < bytes) {
    const ssize_t n = ::getrandom(raw.data() + got, bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Failure(2, std::string("cannot read random bytes: ") + std::strerror(errno));
    got += static_cast<std::size_t>(n);
  }
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (const char c : raw) {
    out += hex[(static_cast<unsigned char>(c) >> 4) & 15];
    out += hex[static_cast<unsigned char>(c) & 15];
  }
  return out;
}

void remove_matching(const std::string& dir, const std::string& suffix) {
  for (const auto& n : list_dir(dir))
    if (suffix.empty() || (n.size() >= suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0))
      ::unlink((dir + "/" + n).c_str());
}

}  // namespace

TrustedDir prepare_job_dir(const std::string& given) {
  // mkdir -p -m 700: the missing parents 0755 (never writable by others), the directory
  // 0700. What was there already is then judged as a whole (trust.hpp): in a folder others
  // may write (sticky, /tmp) only a directory of this user's is taken, which no other uid
  // can make or replace there.
  // Nothing is made below a folder that cannot be trusted: the deepest one that exists is
  // judged first, then the missing ones are made (each then judged again by the walk).
  std::string above = given;
  if (above.empty() || above[0] != '/') {
    char cwd[PATH_MAX];
    if (!::getcwd(cwd, sizeof cwd)) throw Failure(2, std::string("cannot read the current folder: ") + std::strerror(errno));
    above = std::string(cwd) + "/" + above;
  }
  do {
    while (above.size() > 1 && above.back() == '/') above.pop_back();
    const std::size_t slash = above.rfind('/');
    above = slash == 0 || slash == std::string::npos ? "/" : above.substr(0, slash);
  } while (above != "/" && !exists(above));
  check_parents(above, ::getuid(), "--job-dir");
  for (std::size_t k = given.find('/', 1); k != std::string::npos; k = given.find('/', k + 1))
    ::mkdir(given.substr(0, k).c_str(), 0755);
  if (::mkdir(given.c_str(), 0700) != 0 && errno != EEXIST)
    throw Failure(2, "cannot make the job directory '" + given + "': " + std::strerror(errno));
  TrustedDir dir = TrustedDir::open(given, "--job-dir", ::getuid());
  const std::string& p = dir.path();
  for (const auto sub : {jd::kJoin, jd::kOrders, jd::kExpanders}) {
    if (::mkdirat(dir.fd(), std::string(sub).c_str(), 0700) != 0 && errno != EEXIST)
      throw Failure(2, "cannot make " + jd::path(p, sub) + ": " + std::strerror(errno));
    if (const std::string why = dir.subdir_refusal(sub); !why.empty()) throw Failure(2, why);
  }
  remove_matching(jd::path(p, jd::kOrders), "");
  remove_matching(jd::path(p, jd::kJoin), std::string(jd::kRequest));
  remove_matching(jd::path(p, jd::kJoin), std::string(jd::kAnswer));
  const auto secret = dir.read(jd::kSecret, 4096, true);
  if (!secret || secret->empty()) {
    try {
      write_private(jd::path(p, jd::kSecret), random_hex(32));
    } catch (const Failure&) {
      throw Failure(2, "cannot write " + jd::path(p, jd::kSecret));
    }
  }
  return dir;
}

void write_command(const std::string& dir, const std::vector<std::string>& program) {
  std::vector<std::string> words = program;
  if (!words.empty() && words[0].find('/') != std::string::npos) {
    const std::string r = real_path(words[0]);
    if (!r.empty()) words[0] = r;
  }
  write_private(jd::path(dir, jd::kCommand), nul_words(words));
}

void write_environment(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& env) {
  std::vector<std::string> words;
  for (const auto& [k, v] : env)
    if (saved_variable(k)) words.push_back(k + "=" + v);
  write_private(jd::path(dir, jd::kEnvironment), nul_words(words));
}

}  // namespace launcher
