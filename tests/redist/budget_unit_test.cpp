// SPDX-License-Identifier: BSD-3-Clause
// The pure parts of the executor's memory budget: the message sizes both ends derive
// from the options (exec/checks.hpp) and the staging pool's limits (staging_pool.hpp).
#include <gtest/gtest.h>

#include <cstdint>

#include "exec/checks.hpp"
#include "staging_pool.hpp"

using redist::ExecOptions;
using redist::exec::message_size;
using redist::detail::BufferPool;

TEST(RedistBudgetUnit, MessageSizeFollowsTheBudget) {
  ExecOptions o;
  o.memory_budget_bytes = 0;  // no limit: staging_bytes per message, never a datatype fallback
  EXPECT_EQ(message_size(o).cap, o.staging_bytes);
  EXPECT_EQ(message_size(o).max, INT64_MAX);
  o.memory_budget_bytes = 64 << 10;
  EXPECT_EQ(message_size(o).cap, 8 << 10);
  EXPECT_EQ(message_size(o).max, 16 << 10);
  o.memory_budget_bytes = std::int64_t{1} << 30;  // large: staging_bytes is the smaller
  EXPECT_EQ(message_size(o).cap, o.staging_bytes);
  EXPECT_EQ(message_size(o).max, std::int64_t{256} << 20);
  o.staging_bytes = 24;  // a tiny staging_bytes still bounds messages
  EXPECT_EQ(message_size(o).cap, 24);
}

// A kept buffer is reused only when its capacity is within the caller's limit; trim
// frees down to the bytes asked.
TEST(RedistBudgetUnit, PoolRespectsTheLimitAndTrims) {
  auto& pool = BufferPool::instance();
  pool.trim(0);
  std::vector<char> big(std::size_t{1} << 20);
  pool.give(std::move(big));
  auto small = pool.take(1000, 4096);  // the 1 MiB buffer is over the limit: a fresh one
  EXPECT_GE(small.size(), 1000u);
  EXPECT_LE(small.capacity(), 4096u);
  auto reused = pool.take(600000, std::size_t{2} << 20);  // within the limit: reused
  EXPECT_EQ(reused.capacity(), std::size_t{1} << 20);
  EXPECT_EQ(reused.size(), 600000u);
  pool.give(std::move(reused));
  pool.give(std::move(small));
  pool.trim(8192);  // the 1 MiB one goes, the small one stays
  auto again = pool.take(10, SIZE_MAX);
  EXPECT_LE(again.capacity(), 4096u);
  pool.trim(0);
  auto fresh = pool.take(100000, SIZE_MAX);
  EXPECT_LT(fresh.capacity(), std::size_t{1} << 20);
}
