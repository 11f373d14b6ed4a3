// SPDX-License-Identifier: BSD-3-Clause
// The move's new arrays (pages.hpp): PageArray (mmap and munmap), and Prefault (the
// thread and the pages populated).
#include "move/pages.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <system_error>

#include "malleable_internal/thread_name.hpp"

namespace resize::detail {

namespace {
std::size_t round_up(std::size_t n, std::size_t to) { return n > SIZE_MAX - (to - 1) ? 0 : (n + to - 1) / to * to; }
}  // namespace

std::size_t page_size() {
  static const std::size_t page = [] {
    const long s = sysconf(_SC_PAGESIZE);
    return s > 0 ? static_cast<std::size_t>(s) : std::size_t{4096};
  }();
  return page;
}

Mapping plan_mapping(std::size_t bytes, bool huge_pages, std::size_t page) {
  if (bytes < kOwnMappingFrom) return {};
  if (huge_pages && bytes >= kHugeFrom && page < kHugePage) return {round_up(bytes, kHugePage), true};
  return {round_up(bytes, page), false};
}

std::size_t footprint(std::size_t bytes, bool huge_pages, std::size_t page) {
  const Mapping m = plan_mapping(bytes, huge_pages, page);
  return m.length ? m.length : bytes;
}

namespace {
// A mapping of `length` bytes at an address that is a multiple of kHugePage: a larger
// mapping, its unaligned head and tail unmapped.
void* map_aligned(std::size_t length) {
  const std::size_t over = length + kHugePage;
  if (over < length) return MAP_FAILED;
  void* m = mmap(nullptr, over, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return m;
  const auto base = reinterpret_cast<std::uintptr_t>(m);
  const std::uintptr_t aligned = (base + kHugePage - 1) & ~(std::uintptr_t{kHugePage} - 1);
  const std::size_t head = aligned - base, tail = over - head - length;
  if (head) munmap(m, head);
  if (tail) munmap(reinterpret_cast<void*>(aligned + length), tail);
  return reinterpret_cast<void*>(aligned);
}
}  // namespace

PageArray::PageArray(std::size_t bytes, bool huge, const SharedAlloc* shared) : bytes_(bytes) {
  if (shared && shared->on()) {
    p_ = shared->alloc(bytes > 0 ? bytes : 1);
    if (!p_) throw std::bad_alloc();
    release_ = shared->release;
    return;
  }
  const Mapping plan = plan_mapping(bytes, huge, page_size());
  if (plan.length == 0) {
    if (bytes >= kOwnMappingFrom) throw std::bad_alloc();  // its length overflows
    p_ = std::calloc(bytes > 0 ? bytes : 1, 1);
    if (!p_) throw std::bad_alloc();
    return;
  }
  void* m = plan.huge ? map_aligned(plan.length)
                      : mmap(nullptr, plan.length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) throw std::bad_alloc();
  // A kernel without transparent huge pages refuses the advice: the array has small pages.
  if (plan.huge) (void)madvise(m, plan.length, MADV_HUGEPAGE);
  p_ = m;
  mapped_ = plan.length;
}

PageArray::~PageArray() {
  if (release_)
    release_(p_);
  else if (mapped_)
    munmap(p_, mapped_);
  else
    std::free(p_);
}

namespace {
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
}  // namespace

void touch_pages(void* p, std::size_t bytes) {
  if (!p || bytes == 0) return;
  const std::size_t page = page_size();
  volatile unsigned char* c = static_cast<unsigned char*>(p);
  for (std::size_t off = 0; off < bytes; off += page) c[off] = 0;
  c[bytes - 1] = 0;
}

bool populate_pages(void* p, std::size_t bytes) {
  if (!p || bytes == 0) return true;
#if defined(MADV_POPULATE_WRITE)
  // Whole pages around [p, p + bytes): the pages holding the array's first and last bytes
  // are mapped, and populating a page writes nothing into it.
  const std::size_t page = page_size();
  const auto begin = reinterpret_cast<std::uintptr_t>(p) & ~(std::uintptr_t{page} - 1);
  const auto end = reinterpret_cast<std::uintptr_t>(p) + bytes;
  if (madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE) == 0) return true;
#endif
  touch_pages(p, bytes);  // a kernel before 5.14 (EINVAL), or no such advice here
  return false;
}

void Prefault::start(std::vector<Task> tasks) {
  wait();
  run_s_ = 0;
  t_ = std::thread([this, tasks = std::move(tasks)] {
    malleable::name_this_thread("mall-prefault");
    const double t0 = now();
    for (const Task& task : tasks) {
      try {
        const auto [p, bytes] = task();
        populate_pages(p, bytes);
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
    t_ = std::thread([held = std::move(held)]() mutable {
      malleable::name_this_thread("mall-free");
      held.clear();
    });
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
