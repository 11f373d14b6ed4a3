// SPDX-License-Identifier: BSD-3-Clause
// Pooled staging buffers for redist's packed transport (execute.cpp): kept between calls so
// that packing does not pay a page fault per fresh page every time.
#pragma once

#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

namespace redist::detail {

// Staging buffers kept between calls (as COSTA's pooled pack buffers): fresh pages cost a
// page fault each on first touch, which on this VM made an 8 MiB buffer cost more than
// the copy into it. Thread-safe; at most kPoolKeepBytes are kept, the rest is freed.
class BufferPool {
 public:
  static BufferPool& instance() {
    static BufferPool p;
    return p;
  }
  std::vector<char> take(std::size_t bytes) {
    std::lock_guard<std::mutex> g(m_);
    std::size_t best = free_.size();
    for (std::size_t k = 0; k < free_.size(); ++k)
      if (free_[k].size() >= bytes && (best == free_.size() || free_[k].size() < free_[best].size())) best = k;
    std::vector<char> v;
    if (best < free_.size()) {
      v = std::move(free_[best]);
      free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(best));
      kept_ -= v.size();
    }
    if (v.size() < bytes) v.resize(bytes);
    return v;
  }
  void give(std::vector<char>&& v) {
    std::lock_guard<std::mutex> g(m_);
    if (v.empty() || kept_ + v.size() > kPoolKeepBytes) return;
    kept_ += v.size();
    free_.push_back(std::move(v));
  }

 private:
  static constexpr std::size_t kPoolKeepBytes = std::size_t{128} << 20;
  std::mutex m_;
  std::vector<std::vector<char>> free_;
  std::size_t kept_ = 0;
};

// A pooled staging buffer of n elements of T, returned to the pool when it goes.
template <class T>
class Staging {
 public:
  explicit Staging(std::size_t n) : bytes_(BufferPool::instance().take(n * sizeof(T))) {}
  ~Staging() { BufferPool::instance().give(std::move(bytes_)); }
  Staging(Staging&&) noexcept = default;
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;
  Staging& operator=(Staging&&) = delete;
  T* data() { return reinterpret_cast<T*>(bytes_.data()); }

 private:
  std::vector<char> bytes_;
};

}  // namespace redist::detail
