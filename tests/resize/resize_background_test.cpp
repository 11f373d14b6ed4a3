// SPDX-License-Identifier: BSD-3-Clause
// Background resize, the pure part (issue 21 §1): completion choices, the message plan
// and packing of a non-blocking move checked against a global matrix, checksums and the
// accounting of overlapped against stopped time.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "background/background_plan.hpp"
#include "malleable/resize/types.hpp"

using namespace resize;

TEST(BackgroundMode, ParsesAndPrints) {
  EXPECT_EQ(parse_background("wait"), Background::Wait);
  EXPECT_EQ(parse_background("continue"), Background::Continue);
  EXPECT_EQ(parse_background("blocking"), Background::Off);
  EXPECT_EQ(to_string(Background::Continue), "continue");
  EXPECT_THROW(parse_background("sometimes"), Error);
}

TEST(BackgroundCompletion, WaitsForTheMinimumOverlapThenFollowsTheMode) {
  EXPECT_EQ(decide_completion(0, 1, true, Background::Wait, false), Completion::NotYet);
  EXPECT_EQ(decide_completion(1, 2, true, Background::Wait, false), Completion::NotYet);
  EXPECT_EQ(decide_completion(1, 1, true, Background::Wait, false), Completion::Complete);
  EXPECT_EQ(decide_completion(1, 1, false, Background::Wait, false), Completion::WaitThenComplete);
  EXPECT_EQ(decide_completion(1, 1, false, Background::Continue, false), Completion::Defer);
  // The job's end (or complete_resize) never defers, whatever the mode and overlap.
  EXPECT_EQ(decide_completion(0, 3, false, Background::Continue, true), Completion::WaitThenComplete);
  EXPECT_EQ(decide_completion(0, 3, true, Background::Continue, true), Completion::Complete);
}

TEST(BackgroundCompletion, BlockingReasonNamesWhyNotInTheBackground) {
  EXPECT_FALSE(blocking_reason(true, true, -1, 1, false).has_value());
  EXPECT_FALSE(blocking_reason(true, true, 5, 1, false).has_value());
  EXPECT_NE(blocking_reason(true, false, 5, 1, false)->find("constant"), std::string::npos);
  // Nothing constant, but an expansion whose spawn runs in the helper thread: background.
  EXPECT_FALSE(blocking_reason(true, false, 5, 1, false, true).has_value());
  EXPECT_TRUE(blocking_reason(true, false, 1, 1, false, true).has_value());  // no later point
  EXPECT_NE(blocking_reason(false, true, 5, 1, false)->find("regrid"), std::string::npos);
  EXPECT_NE(blocking_reason(true, true, 1, 1, false)->find("1 iteration(s) left"), std::string::npos);
  EXPECT_NE(blocking_reason(true, true, 9, 1, true)->find("powers"), std::string::npos);
  const auto msg = second_request_refusal("expand 3x3 -> 4x4", "expand 2x2 -> 3x3", 2);
  EXPECT_NE(msg.find("refused"), std::string::npos);
  EXPECT_NE(msg.find("since iteration 2"), std::string::npos);
}

namespace {
double value(std::int64_t i, std::int64_t j) { return 1000.0 * static_cast<double>(i) + static_cast<double>(j); }

// The local column-major buffer of `rank` in layout l, filled from value(i, j).
std::vector<double> local_of(const redist::Layout& l, int rank, std::int64_t& ld) {
  int pr = -1, pc = -1;
  if (!l.coords_of(rank, pr, pc)) {
    ld = 1;
    return {};
  }
  const std::int64_t lr = l.local_rows(pr), lc = l.local_cols(pc);
  ld = std::max<std::int64_t>(1, lr);
  std::vector<double> v(static_cast<std::size_t>(lr * lc));
  for (std::int64_t jl = 0; jl < lc; ++jl)
    for (std::int64_t il = 0; il < lr; ++il)
      v[static_cast<std::size_t>(il + jl * ld)] = value(l.local_to_row(pr, il), l.local_to_col(pc, jl));
  return v;
}

// Every rank's messages packed from layout a and unpacked into layout b: b's buffers must
// equal the global matrix, and every byte sent is received once.
void round_trip(const redist::Layout& a, const redist::Layout& b, int world) {
  std::vector<std::vector<double>> src(static_cast<std::size_t>(world)), dst(src.size());
  std::vector<std::int64_t> lda(src.size()), ldb(src.size());
  for (int r = 0; r < world; ++r) {
    src[static_cast<std::size_t>(r)] = local_of(a, r, lda[static_cast<std::size_t>(r)]);
    dst[static_cast<std::size_t>(r)] = local_of(b, r, ldb[static_cast<std::size_t>(r)]);
    std::fill(dst[static_cast<std::size_t>(r)].begin(), dst[static_cast<std::size_t>(r)].end(), -1.0);
  }
  std::map<std::pair<int, int>, std::vector<char>> wire;
  std::int64_t sent = 0, received = 0;
  for (int r = 0; r < world; ++r) {
    const MessagePlan mp = plan_messages(a, b, world, r, sizeof(double));
    for (const auto& s : mp.sends) {
      pack_transfer(a, mp.plan.transfers[s.transfer], src[static_cast<std::size_t>(r)].data(),
                    lda[static_cast<std::size_t>(r)], sizeof(double), wire[{r, s.rank}]);
      EXPECT_EQ(static_cast<std::int64_t>(wire[{r, s.rank}].size()), s.bytes);
    }
    for (const auto& t : mp.plan.transfers)
      if (t.src == r && t.dst == r) {
        std::vector<char> tmp;
        pack_transfer(a, t, src[static_cast<std::size_t>(r)].data(), lda[static_cast<std::size_t>(r)], sizeof(double), tmp);
        unpack_transfer(b, t, tmp.data(), dst[static_cast<std::size_t>(r)].data(), ldb[static_cast<std::size_t>(r)],
                        sizeof(double));
      }
    sent += mp.sent_bytes();
  }
  for (int r = 0; r < world; ++r) {
    const MessagePlan mp = plan_messages(a, b, world, r, sizeof(double));
    for (const auto& rv : mp.recvs) {
      const auto& bytes = wire.at({rv.rank, r});
      ASSERT_EQ(static_cast<std::int64_t>(bytes.size()), rv.bytes);
      unpack_transfer(b, mp.plan.transfers[rv.transfer], bytes.data(), dst[static_cast<std::size_t>(r)].data(),
                      ldb[static_cast<std::size_t>(r)], sizeof(double));
    }
    received += mp.received_bytes();
  }
  EXPECT_EQ(sent, received);
  for (int r = 0; r < world; ++r) {
    std::int64_t ld = 1;
    const auto want = local_of(b, r, ld);
    EXPECT_EQ(dst[static_cast<std::size_t>(r)], want) << "rank " << r;
  }
}
}  // namespace

TEST(BackgroundMessages, ExpansionTwoByTwoToThreeByThreeArrivesWhole) {
  // Old ranks 0..3 keep their numbers in the grown world of 9 (blacs-dyn appends).
  round_trip(redist::Layout::block_cyclic(37, 29, 4, 3, 2, 2), redist::Layout::block_cyclic(37, 29, 4, 3, 3, 3), 9);
}

TEST(BackgroundMessages, ShrinkAndBlockDistributionArriveWhole) {
  // Shrink 3x3 -> 2x2 with one-block-per-process (Distribution::Block) layouts.
  round_trip(redist::Layout::block_cyclic(50, 41, 17, 14, 3, 3), redist::Layout::block_cyclic(50, 41, 25, 21, 2, 2), 9);
  // A placement that is not row-major, and runs crossing blocks of one owner (1 x n).
  round_trip(redist::Layout::block_cyclic(20, 33, 2, 5, 1, 3, 0, 0, {2, 0, 1}),
             redist::Layout::block_cyclic(20, 33, 3, 2, 2, 2, 0, 0, {3, 1, 0, 2}), 4);
}

TEST(BackgroundChecksum, ChangesWithOneBit) {
  std::vector<double> v(100, 1.5);
  const auto h = checksum(v.data(), v.size() * sizeof(double));
  EXPECT_EQ(h, checksum(v.data(), v.size() * sizeof(double)));
  v[57] = std::nextafter(1.5, 2.0);
  EXPECT_NE(h, checksum(v.data(), v.size() * sizeof(double)));
}

TEST(BackgroundClockTest, SplitsStoppedFromOverlappedAndMeasuresSlowdown) {
  BackgroundClock c;
  c.begun(10.0, 10.5, 2.0);  // the begin point stopped the job 0.5 s
  c.iteration(2.4);
  c.iteration(2.6);
  c.deferred();
  const auto s = c.complete(16.0, 0.3, 16.8);  // completion: 0.8 s, 0.3 s of it waiting
  EXPECT_DOUBLE_EQ(s.t_begin_stopped, 0.5);
  EXPECT_DOUBLE_EQ(s.t_overlapped, 5.5);
  EXPECT_NEAR(s.t_complete_stopped, 0.8, 1e-12);
  EXPECT_NEAR(s.t_stopped(), 1.3, 1e-12);
  EXPECT_DOUBLE_EQ(s.t_waited, 0.3);
  EXPECT_EQ(s.iterations, 2);
  EXPECT_EQ(s.deferred, 1);
  EXPECT_NEAR(s.slowdown(), 1.25, 1e-12);
  BackgroundClock none;
  none.begun(0, 1, -1);
  EXPECT_LT(none.complete(1, 0, 2).slowdown(), 0);
}
