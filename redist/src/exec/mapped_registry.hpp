// SPDX-License-Identifier: BSD-3-Clause
// The pure part of mapped arrays (redist_alloc, malleable/redist/mapped.h): a process's
// registry of the address ranges it allocated in shareable segments, each with the segment
// that holds it, and the span of a transfer's pieces in a local array (what must lie in
// one registered range for a node peer to copy the pieces straight out of it). No MPI, no
// system call; unit-tested in tests/redist/mapped_registry_test.cpp. Internal to redist.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "local_copy.hpp"

namespace redist::exec {

// One registered range: `bytes` at address `begin`, lying at `offset` bytes into the data
// of the segment (descriptor `fd`, generation `gen`, `seg_bytes` of data) that holds it.
struct MappedRange {
  std::uintptr_t begin = 0;
  std::int64_t bytes = 0;
  std::int64_t fd = -1, gen = 0, seg_bytes = 0, offset = 0;
};

// Where an address lies: its range's segment and the address's offset into its data.
struct MappedAt {
  std::int64_t fd = -1, gen = 0, seg_bytes = 0, offset = 0;
};

// Sorted, disjoint ranges; O(log n) lookup, O(n) insert and remove (n: this process's own
// live allocations, a handful). Not thread-safe: the caller holds a lock.
class MappedRegistry {
 public:
  // False (nothing registered) when the range is empty, wraps around, or overlaps one.
  bool add(const MappedRange& r) {
    if (r.bytes <= 0 || r.begin > UINTPTR_MAX - static_cast<std::uintptr_t>(r.bytes)) return false;
    const auto it = std::lower_bound(r_.begin(), r_.end(), r.begin, [](const MappedRange& x, std::uintptr_t b) {
      return x.begin < b;
    });
    if (it != r_.end() && it->begin < end_of(r)) return false;
    if (it != r_.begin() && end_of(*std::prev(it)) > r.begin) return false;
    r_.insert(it, r);
    return true;
  }
  // The range that starts exactly at `begin`, taken out; nullopt when none does.
  std::optional<MappedRange> remove(std::uintptr_t begin) {
    const auto it = at_or_before(begin);
    if (it == r_.end() || it->begin != begin) return std::nullopt;
    const MappedRange r = *it;
    r_.erase(it);
    return r;
  }
  // Where [p, p + len) lies when one registered range holds all of it (len >= 1).
  std::optional<MappedAt> find(std::uintptr_t p, std::int64_t len) const {
    if (len <= 0) return std::nullopt;
    const auto it = at_or_before(p);
    if (it == r_.end()) return std::nullopt;
    const std::uintptr_t into = p - it->begin;
    if (into >= static_cast<std::uintptr_t>(it->bytes) ||
        static_cast<std::uintptr_t>(len) > static_cast<std::uintptr_t>(it->bytes) - into)
      return std::nullopt;
    return MappedAt{it->fd, it->gen, it->seg_bytes, it->offset + static_cast<std::int64_t>(into)};
  }
  std::size_t size() const { return r_.size(); }
  std::int64_t bytes() const {
    std::int64_t b = 0;
    for (const auto& r : r_) b += r.bytes;
    return b;
  }

 private:
  static std::uintptr_t end_of(const MappedRange& r) { return r.begin + static_cast<std::uintptr_t>(r.bytes); }
  // The last range starting at or before p, or end().
  std::vector<MappedRange>::const_iterator at_or_before(std::uintptr_t p) const {
    auto it = std::upper_bound(r_.begin(), r_.end(), p, [](std::uintptr_t b, const MappedRange& x) { return b < x.begin; });
    return it == r_.begin() ? r_.end() : std::prev(it);
  }
  std::vector<MappedRange>::iterator at_or_before(std::uintptr_t p) {
    auto it = std::upper_bound(r_.begin(), r_.end(), p, [](std::uintptr_t b, const MappedRange& x) { return b < x.begin; });
    return it == r_.begin() ? r_.end() : std::prev(it);
  }
  std::vector<MappedRange> r_;
};

// The last index of a side's local runs (-1 when they are empty).
inline std::int64_t last_local(const std::vector<LocalRun>& runs) {
  std::int64_t last = -1;
  for (const auto& r : runs)
    if (r.len > 0 && r.count > 0) last = std::max(last, r.start + (r.count - 1) * r.stride + r.len - 1);
  return last;
}

// The elements from a local array's start to one past the last element of the walk's
// pieces in it (leading dimension ld): the span a peer's copy reads. 0 when empty.
inline std::int64_t walk_span(const Walk& w, std::int64_t ld) {
  const std::int64_t row = last_local(w.rows), col = last_local(w.cols);
  return row < 0 || col < 0 ? 0 : col * ld + row + 1;
}

}  // namespace redist::exec
