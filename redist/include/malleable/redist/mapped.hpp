// SPDX-License-Identifier: BSD-3-Clause
// Mapped arrays from C++ (mapped.h): an owning, move-only array of T in memory that the
// other ranks of its node can map, so a redistribution copies straight out of it.
#pragma once

#include <cstddef>
#include <new>
#include <utility>

#include "malleable/redist/mapped.h"

namespace redist {

// n zeroed elements of a trivially copyable T from redist_alloc, freed by redist_free.
// Throws std::bad_alloc when no memory can be had.
template <class T>
class MappedArray {
 public:
  MappedArray() = default;
  explicit MappedArray(std::size_t n) : n_(n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_alloc();
    p_ = static_cast<T*>(redist_alloc(n * sizeof(T)));
    if (!p_) throw std::bad_alloc();
  }
  ~MappedArray() { redist_free(p_); }
  MappedArray(MappedArray&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  MappedArray& operator=(MappedArray&& o) noexcept {
    if (this != &o) {
      redist_free(p_);
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }
  MappedArray(const MappedArray&) = delete;
  MappedArray& operator=(const MappedArray&) = delete;
  T* data() { return p_; }
  const T* data() const { return p_; }
  std::size_t size() const { return n_; }
  T& operator[](std::size_t i) { return p_[i]; }
  const T& operator[](std::size_t i) const { return p_[i]; }
  // Whether peers can map it (false: the ordinary memory of the fallback).
  bool shareable() const { return p_ && redist_is_mapped(p_, n_ * sizeof(T)) == 1; }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace redist
