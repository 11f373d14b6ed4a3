// SPDX-License-Identifier: BSD-3-Clause
// The remap point's arrival check, its pure part: the deadline and the
// messages that name the processes that did not arrive (resize/src/parts/handover.hpp; its MPI shell is in
// resize/src/parts/watchdog.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "malleable/resize/types.hpp"
#include "malleable_internal/wire.hpp"
#include "parts/handover.hpp"

using resize::detail::arrival_deadline;
using resize::detail::arrival_verdict;
using resize::detail::rank_list;
using resize::detail::root_missing;

// The deadline over emulated gaps (seconds between remap points, as the session measures
// them): the cap until two gaps were measured, then 3x the longest, at least the floor,
// at most the cap. Before, it was max(600, 3x longest): a skipped remap point in
// a run of 1 s iterations was named after 10 minutes.
TEST(Arrival, DeadlineIsAMultipleOfTheMeasuredGapWithinFloorAndCap) {
  using resize::detail::RemapTimeout;
  const RemapTimeout d;  // the defaults: 600:3:30
  EXPECT_EQ(arrival_deadline(d, 0, 0), 600);      // nothing measured yet: the cap
  EXPECT_EQ(arrival_deadline(d, 1, 2.0), 600);    // one gap (it holds the start): still the cap
  EXPECT_EQ(arrival_deadline(d, 2, 2.0), 30);     // 1-2 s iterations: the floor, well within a minute
  EXPECT_EQ(arrival_deadline(d, 5, 15.0), 45);    // 3 x 15 s
  EXPECT_EQ(arrival_deadline(d, 9, 250.0), 600);  // never above the cap
  EXPECT_EQ(arrival_deadline(d, 9, -1), 30);      // a clock step back counts as no time
  // A run of emulated gaps: the deadline at each remap point from the gaps before it.
  const double gaps[] = {4.0, 1.0, 1.2, 12.0, 1.1};
  const double want[] = {600, 600, 30, 30, 36};
  double longest = 0;
  for (int k = 0; k < 5; ++k) {
    EXPECT_EQ(arrival_deadline(d, k, longest), want[k]) << "remap point " << k;
    longest = std::max(longest, gaps[k]);
  }
  EXPECT_EQ(arrival_deadline({20, 3, 30}, 5, 1.0), 20);   // RESIZE_REMAP_TIMEOUT=20: 20 s at most
  EXPECT_EQ(arrival_deadline({600, 0, 30}, 5, 1.0), 600);  // factor 0: the fixed cap
  EXPECT_EQ(arrival_deadline({0, 3, 30}, 5, 1.0), 0);      // off
}

TEST(Arrival, TimeoutSettingParses) {
  using resize::detail::parse_remap_timeout;
  using resize::detail::RemapTimeout;
  const RemapTimeout d;
  const auto same = [](const RemapTimeout& a, double cap, double factor, double floor) {
    return a.cap == cap && a.factor == factor && a.floor == floor;
  };
  EXPECT_TRUE(same(parse_remap_timeout("20", d), 20, 3, 30));  // the cap binds: 20 s at most
  EXPECT_TRUE(same(parse_remap_timeout("20", {600, 3, 10}), 20, 3, 10));
  EXPECT_TRUE(same(parse_remap_timeout("120:4", d), 120, 4, 30));
  EXPECT_TRUE(same(parse_remap_timeout("120:4:5", d), 120, 4, 5));
  EXPECT_TRUE(same(parse_remap_timeout("0", d), 0, 3, 30));  // off, whatever the floor
  EXPECT_TRUE(same(parse_remap_timeout("600:0", d), 600, 0, 30));
  for (const char* bad : {"", "x", "-1", "10:", ":3", "600:3:30:1", "60:-2", "inf", "nan"}) {
    try {
      parse_remap_timeout(bad, d);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const resize::Error& e) {
      EXPECT_NE(std::string(e.what()).find("RESIZE_REMAP_TIMEOUT: expected CAP[:FACTOR[:FLOOR]]"), std::string::npos);
      EXPECT_NE(std::string(e.what()).find(std::string("got '") + bad + "'"), std::string::npos);
    }
  }
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
