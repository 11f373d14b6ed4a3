// SPDX-License-Identifier: BSD-3-Clause
// PageArray (pages.hpp): mmap and munmap.
#include "move/pages.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

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

}  // namespace resize::detail
