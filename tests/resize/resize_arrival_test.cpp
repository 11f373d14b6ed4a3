// SPDX-License-Identifier: BSD-3-Clause
// The remap point's arrival check, its pure part: the deadline and the
// messages that name the processes that did not arrive (resize/src/session/handover.hpp; its MPI shell is in
// resize/src/session/watchdog.cpp).
#include <gtest/gtest.h>

#include "malleable/resize/types.hpp"
#include "malleable_internal/wire.hpp"
#include "session/handover.hpp"

using resize::detail::arrival_deadline;
using resize::detail::arrival_verdict;
using resize::detail::rank_list;
using resize::detail::root_missing;

TEST(Arrival, DeadlineIsTheFloorOrThreeTimesTheLongestGap) {
  EXPECT_EQ(arrival_deadline(600, 0), 600);
  EXPECT_EQ(arrival_deadline(600, 150), 600);
  EXPECT_EQ(arrival_deadline(600, 250), 750);   // iterations of 250 s: a rank off the grid waits one
  EXPECT_EQ(arrival_deadline(3, 0.002), 3);
  EXPECT_EQ(arrival_deadline(3, -1), 3);        // no gap measured yet
}

TEST(Arrival, EveryoneThereIsNoVerdict) { EXPECT_EQ(arrival_verdict(7, 600, {}, {}), ""); }

TEST(Arrival, TheMissingRanksAreNamed) {
  EXPECT_EQ(rank_list({3}), "3");
  EXPECT_EQ(rank_list({1, 3, 5}), "1, 3, 5");
  const std::string one = arrival_verdict(2, 3, {3}, {});
  EXPECT_EQ(one.rfind("remap point after iteration 2: world rank 3 did not arrive within 3 s (", 0), 0u) << one;
  const std::string two = arrival_verdict(9, 600, {1, 3}, {});
  EXPECT_EQ(two.rfind("remap point after iteration 9: world ranks 1, 3 did not arrive within 600 s", 0), 0u) << two;
  EXPECT_NE(two.find("every process must call remap_point() after the same iterations"), std::string::npos);
}

TEST(Arrival, ARankAtAnotherRemapPointIsNamedWithItsIteration) {
  const std::string v = arrival_verdict(2, 3, {}, {{3, 3}, {5, 4}});
  EXPECT_EQ(v.rfind("remap point after iteration 2: world rank 3 did not arrive: it came to the remap point after "
                    "iteration 3; world rank 5 did not arrive: it came to the remap point after iteration 4 (",
                    0),
            0u)
      << v;
}

TEST(Arrival, RankZeroMissingIsNamedByTheOthers) {
  EXPECT_EQ(root_missing(4, 600).rfind("remap point after iteration 4: world rank 0 did not arrive within 600 s (", 0),
            0u);
}

namespace {
using resize::detail::ArrivalMessage;

std::string refusal(const std::vector<char>& bytes, ArrivalMessage::Kind k) {
  try {
    resize::detail::decode_arrival(bytes, k);
  } catch (const resize::Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

// Each of the three messages survives its round trip and has the fixed size the receives
// are posted with.
TEST(ArrivalMessages, RoundTripAtAFixedSize) {
  using K = ArrivalMessage::Kind;
  for (const ArrivalMessage m : {ArrivalMessage{K::Here, 0}, ArrivalMessage{K::Arrive, 41}, ArrivalMessage{K::Go, -1}}) {
    const auto bytes = resize::detail::encode(m);
    EXPECT_EQ(bytes.size(), resize::detail::arrival_message_bytes());
    EXPECT_EQ(resize::detail::decode_arrival(bytes, m.kind), m);
  }
}

// The bytes: header {magic "MXAR", version 1, 8 payload bytes}, then the kind and the iteration.
TEST(ArrivalMessages, GoldenBytes) {
  using K = ArrivalMessage::Kind;
  EXPECT_EQ(malleable::wire::hex(resize::detail::encode(ArrivalMessage{K::Here, 7})),
            "4d584152" "01000000" "0800000000000000" "01000000" "07000000");
  EXPECT_EQ(malleable::wire::hex(resize::detail::encode(ArrivalMessage{K::Arrive, 258})),
            "4d584152" "01000000" "0800000000000000" "02000000" "02010000");
  EXPECT_EQ(malleable::wire::hex(resize::detail::encode(ArrivalMessage{K::Go, 7})),
            "4d584152" "01000000" "0800000000000000" "03000000" "07000000");
}

// A message of another kind than the tag expects, an unknown kind, another version, a
// truncated or overlong one: refused, naming the message.
TEST(ArrivalMessages, RefusesWhatItCannotRead) {
  using K = ArrivalMessage::Kind;
  const auto go = resize::detail::encode(ArrivalMessage{K::Go, 7});
  EXPECT_EQ(refusal(go, K::Here), "arrival message: kind 3 where kind 1 was expected");
  auto bad = go;
  bad[16] = 9;
  EXPECT_EQ(refusal(bad, K::Go), "arrival message: kind 9 (valid: 1..3)");
  bad = go;
  bad[4] = 2;
  EXPECT_EQ(refusal(bad, K::Go).rfind("arrival message: version 2, this process reads version 1", 0), 0u);
  for (std::size_t n = 0; n < go.size(); ++n)
    EXPECT_EQ(refusal(std::vector<char>(go.begin(), go.begin() + static_cast<std::ptrdiff_t>(n)), K::Go)
                  .rfind("arrival message: ", 0),
              0u)
        << n;
  bad = go;
  bad.push_back(0);
  EXPECT_NE(refusal(bad, K::Go).find("truncated or overlong"), std::string::npos);
}
