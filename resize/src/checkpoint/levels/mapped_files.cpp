// SPDX-License-Identifier: BSD-3-Clause
// The level files a process keeps mapped between checkpoints (levels/mapped_files.hpp):
// levels::MappedTable's bookkeeping over open, fallocate, mmap and rename. No MPI.
#include "checkpoint/levels/mapped_files.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

namespace resize::detail {

namespace lv = resize::levels;

namespace {

void release(std::vector<lv::MappedFile> files) {
  for (auto& f : files) {
    if (f.addr) ::munmap(f.addr, static_cast<std::size_t>(f.mapped));
    if (f.fd >= 0) ::close(f.fd);
  }
}

}  // namespace

void MappedFiles::set_capacity(std::size_t capacity) {
  if (capacity != table_.capacity()) release(table_.set_capacity(capacity));
}

void MappedFiles::renamed(const std::string& from, const std::string& to) { release(table_.rename(from, to)); }

void MappedFiles::forget(const std::string& path) {
  lv::MappedFile f;
  if (table_.take(path, f)) release({f});
}

void MappedFiles::clear() { release(table_.clear()); }

char* MappedFiles::open(const std::string& path, const std::string& recycle, std::size_t length, std::string& why) {
  why.clear();
  if (table_.capacity() == 0 || length == 0) return nullptr;
  lv::MappedFile f;
  bool have = false;
  if (!recycle.empty() && table_.take(recycle, f)) {
    // Still the file of that name (not replaced behind our back), renamed with its mapping.
    struct stat mine {}, named {};
    have = ::fstat(f.fd, &mine) == 0 && ::stat(recycle.c_str(), &named) == 0 && mine.st_ino == named.st_ino &&
           mine.st_dev == named.st_dev && std::rename(recycle.c_str(), path.c_str()) == 0;
    if (!have) release({f});
  }
  if (!have) {
    const bool reused = !recycle.empty() && std::rename(recycle.c_str(), path.c_str()) == 0;
    f = lv::MappedFile{};
    f.path = path;
    f.fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | (reused ? 0 : O_TRUNC), 0600);
    if (f.fd < 0) {
      why = "cannot create " + path + ": " + std::strerror(errno);
      return nullptr;
    }
    // size 0: allocate it all below (fallocate skips the pages a recycled file has).
  }
  f.path = path;
  const auto give_up = [&](int err) {  // err 0: no mapping here, the caller writes instead
    if (err) why = "cannot write " + path + ": " + std::strerror(err);
    release({f});
    if (err) ::unlink(path.c_str());
    return nullptr;
  };
  if (f.size < length) {
    const int err = ::fallocate(f.fd, 0, static_cast<off_t>(f.size), static_cast<off_t>(length - f.size)) == 0 ? 0 : errno;
    if (err == EOPNOTSUPP || err == ENOSYS) return give_up(0);
    if (err) return give_up(err);
  }
  if (f.size > length || (f.size == 0 && length > 0)) {  // shorter than before (or a recycled file's old tail)
    if (::ftruncate(f.fd, static_cast<off_t>(length)) != 0) return give_up(errno);
  }
  f.size = length;
  if (f.mapped < length) {
    if (f.addr) ::munmap(f.addr, static_cast<std::size_t>(f.mapped));
    f.addr = nullptr;
    f.mapped = 0;
    // MAP_POPULATE: the page table filled in one call, not one fault per page in the copy.
    void* p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, f.fd, 0);
    if (p == MAP_FAILED) return give_up(0);
    f.addr = p;
    f.mapped = length;
  }
  char* addr = static_cast<char*>(f.addr);
  release(table_.put(std::move(f)));  // capacity >= 1: `f` stays
  return addr;
}

}  // namespace resize::detail
