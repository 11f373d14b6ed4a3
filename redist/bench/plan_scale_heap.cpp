// SPDX-License-Identifier: BSD-3-Clause
// Replaces the global operator new/delete to count live heap bytes (plan_scale_heap.hpp).
// Every block carries its size in a 16-byte header (keeping malloc's 16-byte alignment).
#include "plan_scale_heap.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace {
std::size_t g_live = 0, g_peak = 0;
constexpr std::size_t kHeader = 16;

void* counted_alloc(std::size_t n) {
  auto* p = static_cast<unsigned char*>(std::malloc(n + kHeader));
  if (p == nullptr) throw std::bad_alloc();
  std::memcpy(p, &n, sizeof n);
  g_live += n;
  g_peak = std::max(g_peak, g_live);
  return p + kHeader;
}
void counted_free(void* q) noexcept {
  if (q == nullptr) return;
  auto* p = static_cast<unsigned char*>(q) - kHeader;
  std::size_t n = 0;
  std::memcpy(&n, p, sizeof n);
  g_live -= n;
  std::free(p);
}
}  // namespace

namespace redist_heap {
std::size_t live() { return g_live; }
std::size_t peak() { return g_peak; }
void reset_peak() { g_peak = g_live; }
}  // namespace redist_heap

void* operator new(std::size_t n) { return counted_alloc(n); }
void* operator new[](std::size_t n) { return counted_alloc(n); }
void operator delete(void* p) noexcept { counted_free(p); }
void operator delete[](void* p) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t) noexcept { counted_free(p); }
