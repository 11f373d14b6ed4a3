// SPDX-License-Identifier: BSD-3-Clause
// When malleable-run trusts a job directory (trust.hpp).
#include "trust.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "failure.hpp"

namespace launcher {

namespace {

std::string octal(unsigned mode) {
  char b[8];
  std::snprintf(b, sizeof b, "%o", mode & 07777u);
  return b;
}

Inode inode_of(const struct stat& st) {
  Inode n;
  n.kind = S_ISDIR(st.st_mode)   ? Inode::Kind::Directory
           : S_ISREG(st.st_mode) ? Inode::Kind::File
           : S_ISLNK(st.st_mode) ? Inode::Kind::Link
                                 : Inode::Kind::Other;
  n.uid = st.st_uid;
  n.mode = st.st_mode & 07777u;
  return n;
}

const char* kind_word(Inode::Kind k) {
  switch (k) {
    case Inode::Kind::Directory: return "a directory";
    case Inode::Kind::File: return "a file";
    case Inode::Kind::Link: return "a symbolic link";
    default: return "no file or directory";
  }
}

constexpr unsigned kWriteOthers = S_IWGRP | S_IWOTH;

}  // namespace

std::string owner_mode(const Inode& n) { return "uid " + std::to_string(n.uid) + ", mode " + octal(n.mode); }

bool shared_parent(const Inode& n) { return (n.mode & kWriteOthers) != 0 && (n.mode & S_ISVTX) != 0; }

std::string parent_refusal(const std::string& path, const Inode& n, uid_t me) {
  if (n.kind != Inode::Kind::Directory)
    return "the job directory's parent " + path + " is " + kind_word(n.kind) + " (" + owner_mode(n) +
           "), not a folder: a job directory lies below folders only";
  if (n.uid != me && n.uid != 0)
    return "the job directory's parent " + path + " belongs to another user (" + owner_mode(n) +
           "), who could swap the job directory: put the job directory below a folder of yours (e.g. $HOME/jobs)";
  if ((n.mode & kWriteOthers) != 0 && (n.mode & S_ISVTX) == 0)
    return "the job directory's parent " + path + " is writable by others (" + owner_mode(n) +
           "), who could swap the job directory: use a folder others cannot write (chmod go-w " + path +
           ") or a sticky one such as /tmp";
  return {};
}

std::string job_dir_refusal(const std::string& path, const Inode& n, uid_t me, std::string_view option, bool shared) {
  const std::string opt(option);
  if (n.kind != Inode::Kind::Directory)
    return "the job directory " + path + " (" + opt + ") is " + kind_word(n.kind) + " (" + owner_mode(n) +
           "): give a directory that malleable-run --job-dir made";
  if (n.uid != me)
    return "the job directory " + path + " (" + opt + ") belongs to another user (" + owner_mode(n) + ")" +
           (shared ? " in a folder anyone can write" : "") +
           ": malleable-run runs only jobs of your own directories; give one that your malleable-run --job-dir made";
  if (n.mode != 0700)
    return "the job directory " + path + " (" + opt + ") must be yours with mode 700 (it is " + owner_mode(n) +
           "): chmod 700 " + path + ", or let malleable-run --job-dir make a new one";
  return {};
}

std::string file_refusal(const std::string& path, const Inode& n, uid_t me, bool secret) {
  if (n.kind != Inode::Kind::File)
    return path + " is " + kind_word(n.kind) + " (" + owner_mode(n) +
           "), not a plain file of the job directory: a link or another kind is never followed; remove it and start "
           "the job again (malleable-run --job-dir)";
  if (n.uid != me)
    return path + " belongs to another user (" + owner_mode(n) +
           "): the job directory holds only your own files; remove it and start the job again (malleable-run --job-dir)";
  if ((n.mode & kWriteOthers) != 0)
    return path + " is writable by others (" + owner_mode(n) + "): chmod go-w " + path +
           ", or start the job again (malleable-run --job-dir)";
  if (secret && (n.mode & 077u) != 0)
    return path + " is readable by others (" + owner_mode(n) + "): the secret must be 600; chmod 600 " + path +
           " and start the job again (its secret may be known: a new job directory is safer)";
  return {};
}

// Opens `real` (a real path) from "/", one component at a time relative to the last one,
// no link followed, each judged: every component a parent, the last one the job directory
// when `job_dir_last`. Returns its descriptor (O_RDONLY for the job directory, O_PATH for a
// parent); throws Failure(2, why).
int walk(const std::string& real, const std::string& given, uid_t me, std::string_view option, bool job_dir_last) {
  const std::string opt(option);
  int fd = ::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw Failure(2, std::string("cannot open /: ") + std::strerror(errno));
  struct stat st{};
  std::string at = "/";
  bool shared = false;
  auto fail = [&](const std::string& why) -> Failure {
    ::close(fd);
    return Failure(2, why);
  };
  if (::fstat(fd, &st) != 0) throw fail("cannot read " + at + ": " + std::strerror(errno));
  if (real == "/" && job_dir_last) throw fail(job_dir_refusal("/", inode_of(st), me, option, false));
  if (const std::string why = parent_refusal(at, inode_of(st), me); !why.empty()) throw fail(why);
  shared = shared_parent(inode_of(st));
  std::size_t from = 1;
  while (from < real.size()) {
    std::size_t slash = real.find('/', from);
    if (slash == std::string::npos) slash = real.size();
    const std::string name = real.substr(from, slash - from);
    from = slash + 1;
    const bool last = job_dir_last && slash >= real.size();
    at = real.substr(0, slash);
    if (name.empty() || name == "." || name == "..") throw fail("'" + given + "': its real path " + real + " is odd");
    // O_PATH needs no read permission on a parent (/home 0711); the job directory itself
    // is opened for reading (its listing). O_NOFOLLOW: a link put here since realpath()
    // is opened as the link itself (then refused), or refused outright.
    const int flags = (last ? O_RDONLY : O_PATH) | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    const int next = ::openat(fd, name.c_str(), flags);
    if (next < 0) {
      const int err = errno;
      struct stat lst{};
      if (::fstatat(fd, name.c_str(), &lst, AT_SYMLINK_NOFOLLOW) == 0) {  // why it cannot be opened, if it says
        const Inode n = inode_of(lst);
        const std::string why = last ? job_dir_refusal(at, n, me, option, shared) : parent_refusal(at, n, me);
        if (!why.empty()) throw fail(why);
      }
      throw fail("cannot open " + at + " (" + opt + "): " + std::strerror(err));
    }
    ::close(fd);
    fd = next;
    if (::fstat(fd, &st) != 0) throw fail("cannot read " + at + ": " + std::strerror(errno));
    const Inode n = inode_of(st);
    if (last) {
      if (const std::string why = job_dir_refusal(at, n, me, option, shared); !why.empty()) throw fail(why);
    } else {
      if (const std::string why = parent_refusal(at, n, me); !why.empty()) throw fail(why);
      shared = shared_parent(n);
    }
  }
  return fd;
}

TrustedDir TrustedDir::open(const std::string& given, std::string_view option, uid_t me) {
  const std::string opt(option);
  if (given.empty()) throw Failure(2, opt + " needs a directory");
  // Its real path (links in what the user gave are the user's word); the walk below then
  // trusts nothing it did not check, component by component, and follows no link.
  // A link in place of the job directory itself is refused (whoever made it chose the
  // directory); links above it are resolved and what they lead to is judged.
  struct stat gl{};
  std::string bare = given;
  while (bare.size() > 1 && bare.back() == '/') bare.pop_back();
  if (::lstat(bare.c_str(), &gl) == 0 && S_ISLNK(gl.st_mode))
    throw Failure(2, "the job directory " + bare + " (" + opt + ") is a symbolic link (" + owner_mode(inode_of(gl)) +
                         "): give the job directory itself, not a link to it");
  char buf[PATH_MAX];
  if (!::realpath(given.c_str(), buf))
    throw Failure(2, "'" + given + "' is no job directory (" + std::strerror(errno) +
                         "; malleable-run --job-dir makes one)");
  const std::string real = buf;
  return TrustedDir(walk(real, given, me, option, true), real, me);
}

void check_parents(const std::string& dir, uid_t me, std::string_view option) {
  char buf[PATH_MAX];
  if (!::realpath(dir.c_str(), buf)) throw Failure(2, "cannot read " + dir + ": " + std::strerror(errno));
  ::close(walk(buf, dir, me, option, false));
}

TrustedDir::TrustedDir(TrustedDir&& o) noexcept : fd_(o.fd_), path_(std::move(o.path_)), me_(o.me_) { o.fd_ = -1; }

TrustedDir& TrustedDir::operator=(TrustedDir&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    path_ = std::move(o.path_);
    me_ = o.me_;
    o.fd_ = -1;
  }
  return *this;
}

TrustedDir::~TrustedDir() {
  if (fd_ >= 0) ::close(fd_);
}

std::optional<std::string> TrustedDir::read(std::string_view name, std::size_t most, bool secret) const {
  const std::string n(name), shown = path_ + "/" + n;
  if (n.empty() || n.find('/') != std::string::npos) throw Failure(2, "'" + n + "' is no file name of a job directory");
  const int fd = ::openat(fd_, n.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) return std::nullopt;
    struct stat lst{};
    if (::fstatat(fd_, n.c_str(), &lst, AT_SYMLINK_NOFOLLOW) == 0)
      if (const std::string why = file_refusal(shown, inode_of(lst), me_, secret); !why.empty()) throw Failure(2, why);
    throw Failure(2, "cannot read " + shown + ": " + std::strerror(err));
  }
  struct stat st{};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    throw Failure(2, "cannot read " + shown + ": " + std::strerror(err));
  }
  if (const std::string why = file_refusal(shown, inode_of(st), me_, secret); !why.empty()) {
    ::close(fd);
    throw Failure(2, why);
  }
  std::string s;
  char buf[8192];
  while (s.size() < most) {
    const ssize_t got = ::read(fd, buf, std::min(sizeof buf, most - s.size()));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int err = errno;
      ::close(fd);
      throw Failure(2, "cannot read " + shown + ": " + std::strerror(err));
    }
    if (got == 0) break;
    s.append(buf, static_cast<std::size_t>(got));
  }
  ::close(fd);
  return s;
}

bool TrustedDir::has(std::string_view name) const {
  struct stat st{};
  return ::fstatat(fd_, std::string(name).c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
}

std::string TrustedDir::subdir_refusal(std::string_view name) const {
  const std::string shown = path_ + "/" + std::string(name);
  struct stat st{};
  if (::fstatat(fd_, std::string(name).c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return "cannot read " + shown + ": " + std::strerror(errno);
  const Inode n = inode_of(st);
  if (n.kind != Inode::Kind::Directory)
    return shown + " is " + kind_word(n.kind) + " (" + owner_mode(n) + "), not a folder of the job directory: remove it";
  if (n.uid != me_) return shown + " belongs to another user (" + owner_mode(n) + "): remove it";
  if ((n.mode & kWriteOthers) != 0) return shown + " is writable by others (" + owner_mode(n) + "): chmod go-w " + shown;
  return {};
}

}  // namespace launcher
