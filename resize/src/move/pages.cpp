// SPDX-License-Identifier: BSD-3-Clause
// The move's new arrays (pages.hpp): PageArray (mmap and munmap), and Prefault (the
// thread and the page writes).
#include "move/pages.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <new>
#include <system_error>

namespace resize::detail {

namespace {
constexpr std::size_t kOwnMappingFrom = std::size_t{1} << 20;
}  // namespace

PageArray::PageArray(std::size_t bytes) : bytes_(bytes) {
  if (bytes < kOwnMappingFrom) {
    p_ = std::calloc(bytes > 0 ? bytes : 1, 1);
    if (!p_) throw std::bad_alloc();
    return;
  }
  void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) throw std::bad_alloc();
  p_ = m;
  mapped_ = bytes;
}

PageArray::~PageArray() {
  if (mapped_)
    munmap(p_, mapped_);
  else
    std::free(p_);
}

namespace {
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
}  // namespace

void touch_pages(void* p, std::size_t bytes) {
  if (!p || bytes == 0) return;
  static const std::size_t page = [] {
    const long s = sysconf(_SC_PAGESIZE);
    return s > 0 ? static_cast<std::size_t>(s) : std::size_t{4096};
  }();
  volatile unsigned char* c = static_cast<unsigned char*>(p);
  for (std::size_t off = 0; off < bytes; off += page) c[off] = 0;
  c[bytes - 1] = 0;
}

void Prefault::start(std::vector<Task> tasks) {
  wait();
  run_s_ = 0;
  t_ = std::thread([this, tasks = std::move(tasks)] {
    const double t0 = now();
    for (const Task& task : tasks) {
      try {
        const auto [p, bytes] = task();
        touch_pages(p, bytes);
      } catch (...) {
        break;
      }
    }
    run_s_ = now() - t0;
  });
}

void Prefault::release(std::vector<std::shared_ptr<void>> held) {
  if (held.empty()) return;
  wait();
  try {
    t_ = std::thread([held = std::move(held)]() mutable { held.clear(); });
  } catch (const std::system_error&) {
    // No thread: the arrays went with the lambda that was to free them, here.
  }
}

double Prefault::wait() {
  if (!t_.joinable()) return 0;
  const double t0 = now();
  t_.join();
  return now() - t0;
}

}  // namespace resize::detail
