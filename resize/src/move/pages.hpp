// SPDX-License-Identifier: BSD-3-Clause
// The new local arrays a move writes into, allocated so that the move pays no more than it
// must for memory nobody has touched yet. A newcomer has no array before the move and an
// old process's new array is new memory too: every page faults in on its first write.
// Zeroing the array before the move (std::vector's value initialisation) is a whole extra
// pass that takes those faults and then writes the array a second time; PageArray maps
// fresh anonymous pages (zero by the kernel, nothing written on allocation), so the move's
// own writes are the first touch. Measured on one node, PDGEMM N = 4,000 grown 1x2 -> 2x2
// (docs/measurements/results.md, "A resize against its limits"): the zeroing took 0.15 s of
// a 0.6 s move. Transparent huge pages (madvise) made it worse here, 0.85-1.0 s: with the
// system's defrag=madvise each 2 MiB fault compacts memory on a loaded machine; so none
// are asked for. Internal to the resize library.
#pragma once

#include <cstddef>
#include <utility>

namespace resize::detail {

// A zeroed array of `bytes` whose pages are not touched on allocation (from 1 MiB on: its
// own anonymous mapping; below: calloc). Throws std::bad_alloc.
class PageArray {
 public:
  PageArray() = default;
  explicit PageArray(std::size_t bytes);
  ~PageArray();
  PageArray(PageArray&& o) noexcept { swap(o); }
  PageArray& operator=(PageArray&& o) noexcept {
    PageArray(std::move(o)).swap(*this);
    return *this;
  }
  PageArray(const PageArray&) = delete;
  PageArray& operator=(const PageArray&) = delete;
  void swap(PageArray& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(bytes_, o.bytes_);
    std::swap(mapped_, o.mapped_);
  }
  void* data() const { return p_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0, mapped_ = 0;  // mapped_: the mapping's length (0: calloc'ed)
};

}  // namespace resize::detail
