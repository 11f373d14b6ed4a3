// SPDX-License-Identifier: BSD-3-Clause
// malleable-arbiterd's state directory (state_dir.hpp).
#include "daemon/state_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "malleable/cluster/error.hpp"

namespace cluster::arbiter {

namespace {
std::string mode_of(unsigned m) {
  char b[8];
  std::snprintf(b, sizeof b, "%04o", m & 07777);
  return b;
}
}  // namespace

StateDir::StateDir(std::string path) : path_(std::move(path)) {
  if (path_.empty()) throw Error("the state directory's path is empty");
  if (::mkdir(path_.c_str(), 0700) == 0) (void)::chmod(path_.c_str(), 0700);  // exact, whatever the umask
  else if (errno != EEXIST) throw Error("cannot create the state directory " + path_ + ": " + std::strerror(errno));
  fd_ = ::open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd_ < 0) {
    const int e = errno;
    throw Error("the state directory " + path_ + (e == ELOOP ? " is a symbolic link" : e == ENOTDIR ? " is not a directory" : "") +
                ": " + std::strerror(e));
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int e = errno;
    ::close(fd_);
    throw Error("cannot read the state directory " + path_ + ": " + std::strerror(e));
  }
  if (st.st_uid != ::geteuid()) {
    ::close(fd_);
    throw Error("the state directory " + path_ + " belongs to uid " + std::to_string(st.st_uid) + ", not to this daemon's uid " +
                std::to_string(::geteuid()) + ": another user could replace its files (make it the daemon's, mode 0700)");
  }
  if ((st.st_mode & 077) != 0) {
    if (::fchmod(fd_, 0700) != 0) {
      const int e = errno;
      ::close(fd_);
      throw Error("the state directory " + path_ + " is " + mode_of(st.st_mode) + " and cannot be narrowed: " + std::strerror(e));
    }
    narrowed_ = "the state directory " + path_ + " was " + mode_of(st.st_mode) + ": narrowed to 0700 (only the daemon writes it)";
  }
}

StateDir::~StateDir() {
  if (fd_ >= 0) ::close(fd_);
}

std::optional<std::string> StateDir::read_journal() const {
  const int fd = ::openat(fd_, "journal", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    throw Error(path_ + "/journal" + (errno == ELOOP ? " is a symbolic link: refused" : ": " + std::string(std::strerror(errno))));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(path_ + "/journal is not a regular file: refused");
  }
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      ::close(fd);
      throw Error("cannot read " + path_ + "/journal: " + std::strerror(e));
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > (256u << 20)) {
      ::close(fd);
      throw Error(path_ + "/journal is larger than 256 MiB: refused");
    }
  }
  ::close(fd);
  return text;
}

void StateDir::write_journal(const std::string& text) {
  const std::string tmp = path_ + "/journal.tmp";
  if (::unlinkat(fd_, "journal.tmp", 0) != 0 && errno != ENOENT)  // a leftover, or a link planted there
    throw Error("cannot remove " + tmp + ": " + std::strerror(errno));
  const int fd = ::openat(fd_, "journal.tmp", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) throw Error("cannot write " + tmp + ": " + std::strerror(errno));
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = errno;
      ::close(fd);
      throw Error("writing " + tmp + ": " + std::strerror(e));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const int e = errno;
    ::close(fd);
    throw Error("fsync " + tmp + ": " + std::strerror(e));
  }
  if (::close(fd) != 0) throw Error("closing " + tmp + ": " + std::strerror(errno));
  if (::renameat(fd_, "journal.tmp", fd_, "journal") != 0) throw Error("rename to " + path_ + "/journal: " + std::strerror(errno));
  (void)::fsync(fd_);
}

}  // namespace cluster::arbiter
