// SPDX-License-Identifier: BSD-3-Clause
// Pooled staging buffers for redist's packed transport (exec/exchange.cpp): kept between calls so
// that packing does not pay a page fault per fresh page every time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

namespace redist::detail {

// Staging buffers kept between calls (as COSTA's pooled pack buffers): fresh pages cost a
// page fault each on first touch, which on this VM made an 8 MiB buffer cost more than
// the copy into it. Thread-safe; at most kPoolKeepBytes are kept, the rest is freed, and
// each call trims what is kept to its memory budget (ExecOptions::memory_budget_bytes).
class BufferPool {
 public:
  static BufferPool& instance() {
    static BufferPool p;
    return p;
  }
  // A buffer of at least `bytes` whose capacity is at most `limit` (>= bytes): the
  // smallest kept one that qualifies, else a fresh one of exactly `bytes`. The caller
  // counts capacity() against its budget.
  std::vector<char> take(std::size_t bytes, std::size_t limit) {
    std::vector<char> v;
    {
      std::lock_guard<std::mutex> g(m_);
      std::size_t best = free_.size();
      for (std::size_t k = 0; k < free_.size(); ++k) {
        const std::size_t c = free_[k].capacity();
        if (c >= bytes && c <= limit && (best == free_.size() || c < free_[best].capacity())) best = k;
      }
      if (best < free_.size()) {
        v = std::move(free_[best]);
        free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(best));
        kept_ -= v.capacity();
      }
    }
    if (v.capacity() < bytes) v.reserve(bytes);
    v.resize(bytes);
    return v;
  }
  void give(std::vector<char>&& v) {
    std::lock_guard<std::mutex> g(m_);
    if (v.capacity() == 0 || kept_ + v.capacity() > kPoolKeepBytes) return;
    kept_ += v.capacity();
    free_.push_back(std::move(v));
  }
  // Frees kept buffers, largest first, until at most `bytes` are kept.
  void trim(std::size_t bytes) {
    std::lock_guard<std::mutex> g(m_);
    while (kept_ > bytes && !free_.empty()) {
      std::size_t big = 0;
      for (std::size_t k = 1; k < free_.size(); ++k)
        if (free_[k].capacity() > free_[big].capacity()) big = k;
      kept_ -= free_[big].capacity();
      free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(big));
    }
  }

 private:
  static constexpr std::size_t kPoolKeepBytes = std::size_t{128} << 20;
  std::mutex m_;
  std::vector<std::vector<char>> free_;
  std::size_t kept_ = 0;
};

}  // namespace redist::detail
