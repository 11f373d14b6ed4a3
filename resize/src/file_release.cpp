// SPDX-License-Identifier: BSD-3-Clause
// Replacing and removing large files with the freeing of their blocks moved off the
// caller's path (file_release.hpp).
#include "file_release.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

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
      threads_.emplace_back([fd] { ::close(fd); });
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

}  // namespace resize::detail
