// SPDX-License-Identifier: BSD-3-Clause
// The cache behind a matrix handle's index maps (detail::MatrixState::map, matrix.hpp):
// an IndexMap kept while its key (grid, this process's place, block or block sizes'
// version) stays the same. Pure (unit-tested).
#pragma once

#include <cstdint>

#include "malleable/resize/matrix.hpp"

namespace resize::detail {

// An IndexMap kept while its key stays the same: get() rebuilds it (build()) only when
// the key changed, so a query after the first costs a key compare. Pure (unit-tested).
class CachedMap {
 public:
  template <class Build>
  const IndexMap& get(const MapKey& k, Build&& build) {
    if (!(k == key_)) {
      map_ = build();
      key_ = k;
      ++builds_;
    }
    return map_;
  }
  std::uint64_t builds() const { return builds_; }  // how many times get() built the map

 private:
  MapKey key_;
  IndexMap map_;
  std::uint64_t builds_ = 0;
};

}  // namespace resize::detail
