// SPDX-License-Identifier: BSD-3-Clause
// Random pieces of layouts for redist's plan tests: a random rank list and a random split
// of a length into blocks. Header-only, tests only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

namespace redist_test {

// `count` distinct ranks of a communicator of `comm`, in random order.
inline std::vector<int> shuffled_ranks(std::mt19937& rng, int count, int comm) {
  std::vector<int> all(static_cast<std::size_t>(comm));
  std::iota(all.begin(), all.end(), 0);
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(static_cast<std::size_t>(count));
  return all;
}

// `total` split into blocks of 1..maxsize.
inline std::vector<std::int64_t> random_split(std::mt19937& rng, std::int64_t total, int maxsize) {
  std::vector<std::int64_t> b;
  while (total > 0) {
    const std::int64_t s = std::min<std::int64_t>(total, std::uniform_int_distribution<int>(1, maxsize)(rng));
    b.push_back(s);
    total -= s;
  }
  return b;
}

}  // namespace redist_test
