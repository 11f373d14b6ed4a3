// SPDX-License-Identifier: BSD-3-Clause
// Background resize, the pure part: completion choices, the message plan
// of a non-blocking move (bytes each way, every element once; the packing is redist's
// exchange, tested in tests/redist), checksums and the accounting of overlapped against
// stopped time.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <cmath>
#include <map>

#include "malleable_internal/wire.hpp"
#include "background/background_notice.hpp"
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
// Every rank's message plan: what a rank sends to a peer is what that peer plans to receive
// from it, and the bytes sent plus the bytes kept are the whole matrix, once. (The packing
// itself is redist's exchange, tested in tests/redist.)
void round_trip(const redist::Layout& a, const redist::Layout& b, int world) {
  std::map<std::pair<int, int>, std::int64_t> sent_to, received_from;
  std::int64_t sent = 0, received = 0, kept = 0;
  for (int r = 0; r < world; ++r) {
    const MessagePlan mp = plan_messages(a, b, world, r, sizeof(double));
    EXPECT_EQ(mp.plan.materialized_for, r);
    for (const auto& s : mp.sends) {
      EXPECT_EQ(mp.plan.transfers[s.transfer].dst, s.rank);
      EXPECT_EQ(mp.plan.transfers[s.transfer].elements() * 8, s.bytes);
      sent_to[{r, s.rank}] += s.bytes;
    }
    for (const auto& rv : mp.recvs) received_from[{rv.rank, r}] += rv.bytes;
    sent += mp.sent_bytes();
    received += mp.received_bytes();
    kept += mp.local_bytes;
  }
  EXPECT_EQ(sent_to, received_from);
  EXPECT_EQ(sent, received);
  EXPECT_EQ(sent + kept, a.m * a.n * 8);
}
}  // namespace

TEST(BackgroundMessages, ExpansionTwoByTwoToThreeByThreeMovesEveryByteOnce) {
  // Old ranks 0..3 keep their numbers in the grown world of 9 (blacs-dyn appends).
  round_trip(redist::Layout::block_cyclic(37, 29, 4, 3, 2, 2), redist::Layout::block_cyclic(37, 29, 4, 3, 3, 3), 9);
}

TEST(BackgroundMessages, ShrinkAndBlockDistributionMoveEveryByteOnce) {
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

namespace {
// The two notices of the tests below: a completed expansion's, of `state_bytes`, and a
// cancelled one's (superseded), each with its fields away from their defaults.
resize::detail::BackgroundNotice completed_notice(std::int64_t state_bytes) {
  resize::detail::BackgroundNotice done;
  done.kind = resize::detail::BackgroundNotice::Kind::Completed;
  done.iteration = 17;
  done.changed_matrix = 2;
  done.state_bytes = state_bytes;
  done.in_remap_point = true;
  return done;
}
resize::detail::BackgroundNotice cancelled_notice() {
  resize::detail::BackgroundNotice cancelled;
  cancelled.kind = resize::detail::BackgroundNotice::Kind::Cancelled;
  cancelled.iteration = 3;
  cancelled.old_size = 4;
  cancelled.any_posted = true;
  cancelled.cause = resize::detail::BackgroundNotice::Cause::Superseded;
  return cancelled;
}
}  // namespace

// The background expansion's end notice: both messages survive encode/decode field for
// field, and a notice of another version, kind or cause is refused, not misread.
TEST(BackgroundNotice, CompletedAndCancelledRoundTrip) {
  using resize::detail::BackgroundNotice;
  const BackgroundNotice done = completed_notice(std::int64_t{5} << 32);
  EXPECT_EQ(resize::detail::decode(resize::detail::encode(done)), done);
  BackgroundNotice cancelled = cancelled_notice();
  EXPECT_EQ(resize::detail::decode(resize::detail::encode(cancelled)), cancelled);
  cancelled.cause = BackgroundNotice::Cause::End;
  cancelled.any_posted = false;
  EXPECT_EQ(resize::detail::decode(resize::detail::encode(cancelled)), cancelled);
}

// The notice's bytes: a 16-byte header {magic, version, payload bytes}, then kind (4),
// iteration (4), changed matrix (4), state bytes (8), in remap point (1), old size (4),
// any posted (1), cause (4).
TEST(BackgroundNotice, OtherVersionKindOrCauseIsRefused) {
  using resize::detail::BackgroundNotice;
  const auto words = resize::detail::encode(BackgroundNotice{});
  ASSERT_EQ(words.size(), resize::detail::notice_bytes());
  ASSERT_EQ(words.size(), 16u + 30u);
  const auto refusal = [](const std::vector<char>& bytes) {
    try {
      resize::detail::decode(bytes);
    } catch (const resize::Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  auto v = words;
  v[4] = static_cast<char>(resize::detail::kNoticeVersion + 1);
  EXPECT_NE(refusal(v).find("background notice: version 3, this process reads version 2"), std::string::npos);
  EXPECT_NE(refusal(std::vector<char>(words.size(), 0)).find("background notice: not one"), std::string::npos)
      << "an all-zero buffer (nothing received) is no notice";
  auto k = words;
  k[16] = 0;
  EXPECT_NE(refusal(k).find("background notice: kind 0"), std::string::npos);
  auto c = words;
  c[42] = 7;
  EXPECT_NE(refusal(c).find("background notice: cause 7"), std::string::npos);
  auto s = words;
  const int minus_one = -1;
  std::memcpy(s.data() + 37, &minus_one, sizeof minus_one);
  EXPECT_NE(refusal(s).find("background notice: negative old world size -1"), std::string::npos);
  auto b = words;
  b[36] = 2;
  EXPECT_NE(refusal(b).find("background notice: a flag of value 2"), std::string::npos);
  for (std::size_t n = 0; n < words.size(); ++n)
    EXPECT_FALSE(refusal(std::vector<char>(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(n))).empty())
        << "cut to " << n << " bytes";
  auto more = words;
  more.push_back(0);
  EXPECT_NE(refusal(more).find("truncated or overlong"), std::string::npos);
  EXPECT_NO_THROW(resize::detail::decode(words));
}

// Both notices' bytes pinned: a change of the wire format shows here (and needs a new
// version), not as processes of one build that misread each other.
TEST(BackgroundNotice, GoldenBytes) {
  EXPECT_EQ(malleable::wire::hex(resize::detail::encode(completed_notice(300))),
            "4d58424e020000001e00000000000000"
            "0100000011000000020000002c0100000000000001000000000000000000");
  EXPECT_EQ(malleable::wire::hex(resize::detail::encode(cancelled_notice())),
            "4d58424e020000001e00000000000000"
            "020000000300000000000000000000000000000000040000000102000000");
}
