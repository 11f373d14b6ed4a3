// SPDX-License-Identifier: BSD-3-Clause
// The free heap given back after a resize (heap_trim.hpp): glibc's malloc_trim(0), timed.
#include "parts/heap_trim.hpp"

#include <atomic>
#include <chrono>
#include <cstdlib>  // the C library's macros (__GLIBC__)

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace resize {
namespace detail {

namespace {
std::atomic<long> trims{0};
}  // namespace

HeapTrim trim_heap(bool on) {
  HeapTrim t;
#if defined(__GLIBC__)
  if (!on) return t;
  const auto t0 = std::chrono::steady_clock::now();
  t.released = malloc_trim(0) == 1;
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  t.called = true;
  trims.fetch_add(1, std::memory_order_relaxed);
#else
  (void)on;
#endif
  return t;
}

long heap_trims_called() { return trims.load(std::memory_order_relaxed); }

}  // namespace detail
}  // namespace resize
