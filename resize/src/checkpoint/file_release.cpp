// SPDX-License-Identifier: BSD-3-Clause
// Replacing and removing large files with the freeing of their blocks moved off the
// caller's path (file_release.hpp).
#include "checkpoint/file_release.hpp"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

#include "malleable_internal/thread_name.hpp"

namespace resize::detail {

namespace {

// The background closes: one thread per handed-over descriptor, joined by the next
// hand-over, by wait_for_released_files() and at exit (a static's destructor), so no
// thread outlives the program's end and at most a few are alive at once.
class Releaser {
 public:
  ~Releaser() { wait(); }
  void close_later(int fd) {
    std::lock_guard<std::mutex> lock(m_);
    for (auto& t : threads_) t.join();
    threads_.clear();
    try {
      threads_.emplace_back([fd] {
        malleable::name_this_thread("mall-close");
        ::close(fd);
      });
    } catch (...) {  // no thread to be had: free in the caller, as plain unlink would
      ::close(fd);
    }
  }
  void wait() {
    std::lock_guard<std::mutex> lock(m_);
    for (auto& t : threads_) t.join();
    threads_.clear();
  }

 private:
  std::mutex m_;
  std::vector<std::thread> threads_;
};

Releaser& releaser() {
  static Releaser r;
  return r;
}

// A read-only descriptor on the file at `path`, or -1 if there is none (or it cannot be
// opened: then the caller's rename or unlink frees it in place, as without this module).
int hold(const std::string& path) { return ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW); }

void let_go(int fd) {
  if (fd >= 0) releaser().close_later(fd);
}

}  // namespace

int replace_file(const std::string& from, const std::string& to) {
  const int fd = hold(to);
  if (std::rename(from.c_str(), to.c_str()) != 0) {
    const int e = errno;
    if (fd >= 0) ::close(fd);  // nothing was replaced: closing frees nothing
    return e;
  }
  let_go(fd);
  return 0;
}

int remove_file(const std::string& path) {
  const int fd = hold(path);
  if (::unlink(path.c_str()) != 0) {
    const int e = errno;
    if (fd >= 0) ::close(fd);
    return e;
  }
  let_go(fd);
  return 0;
}

void wait_for_released_files() { releaser().wait(); }

int check_room(const std::string& probe, std::uint64_t bytes, std::uint64_t* free_bytes) {
  const std::size_t slash = probe.find_last_of('/');
  const std::string dir = slash == std::string::npos ? std::string(1, '.') : probe.substr(0, slash + 1);
  struct statvfs v {};
  const bool have_free = ::statvfs(dir.c_str(), &v) == 0;
  const std::uint64_t avail = have_free ? static_cast<std::uint64_t>(v.f_bavail) * v.f_frsize : 0;
  if (free_bytes) *free_bytes = avail;
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return errno;
  int e = bytes ? ::fallocate(fd, 0, 0, static_cast<off_t>(bytes)) == 0 ? 0 : errno : 0;
  ::close(fd);
  // The last reference goes with the name: its blocks are freed in this call.
  ::unlink(probe.c_str());
  if (e == EOPNOTSUPP || e == ENOSYS || e == EINVAL) e = have_free && avail < bytes ? ENOSPC : 0;
  return e;
}

int sync_path(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  const int e = ::fsync(fd) == 0 ? 0 : errno;
  ::close(fd);
  return e;
}

}  // namespace resize::detail
