// SPDX-License-Identifier: BSD-3-Clause
// The refresh's rule (checkpoint/refresh.hpp): RESIZE_REFRESH_AFTER's text, when an
// expansion is carried out by restart, and the progress line's words.
#include "checkpoint/refresh.hpp"

#include <gtest/gtest.h>

#include <string>

#include "malleable/resize/types.hpp"

using resize::detail::describe_refresh;
using resize::detail::parse_refresh_rule;
using resize::detail::refresh_due;
using resize::detail::RefreshRule;

TEST(Refresh, UnsetEmptyOffAndZeroMeanNoRefresh) {
  EXPECT_EQ(parse_refresh_rule(std::nullopt).after, 0);
  EXPECT_EQ(parse_refresh_rule(std::string()).after, 0);
  EXPECT_EQ(parse_refresh_rule(std::string("off")).after, 0);
  EXPECT_EQ(parse_refresh_rule(std::string("0")).after, 0);
  EXPECT_EQ(parse_refresh_rule(std::string("64")).after, 64);
  EXPECT_EQ(parse_refresh_rule(std::string("1")).after, 1);
}

TEST(Refresh, BadTextNamesTheVariableAndTheValue) {
  for (const char* bad : {"-3", "ten", "4.5", " 8", "8 ", "on", "99999999999", "1e3"}) {
    try {
      parse_refresh_rule(std::string(bad));
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const resize::Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("RESIZE_REFRESH_AFTER"), std::string::npos) << what;
      EXPECT_NE(what.find(std::string("'") + bad + "'"), std::string::npos) << what;
    }
  }
}

TEST(Refresh, DueOnceTheExpansionWouldPassTheRule) {
  const RefreshRule r{40};
  EXPECT_FALSE(refresh_due(r, 0, 2));
  EXPECT_FALSE(refresh_due(r, 38, 2));  // exactly 40: still in place
  EXPECT_TRUE(refresh_due(r, 39, 2));   // 41 would pass it
  EXPECT_TRUE(refresh_due(r, 40, 1));
  EXPECT_FALSE(refresh_due(r, 40, 0));  // nothing to spawn (the world holds the processes)
  // An expansion larger than the rule by itself: by restart from the first one.
  EXPECT_TRUE(refresh_due(RefreshRule{1}, 0, 2));
  // No rule: never, however many were spawned.
  EXPECT_FALSE(refresh_due(RefreshRule{}, 1 << 30, 1 << 30));
  // No overflow near INT_MAX.
  EXPECT_TRUE(refresh_due(RefreshRule{2147483647}, 2147483647, 1));
}

TEST(Refresh, DescribeNamesTheCountsAndTheRule) {
  EXPECT_EQ(describe_refresh(RefreshRule{42}, 40, 4),
            "this launch spawned 40 processes; 4 more would pass RESIZE_REFRESH_AFTER=42: the expansion by restart, "
            "which starts every process anew");
}
