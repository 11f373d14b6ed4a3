// SPDX-License-Identifier: BSD-3-Clause
// The session's test-only fault injection reads RESIZE_FAULT in one place (fault.hpp):
// each fault is recognised by its exact name, the pause takes its seconds, nothing else
// (another fault's name, a prefix, the driver's own pause-in-iteration) arms a fault.
#include <gtest/gtest.h>

#include "common/fault.hpp"

using resize::detail::fault::parse;
using resize::detail::fault::Point;
using resize::detail::fault::release_file;

TEST(Fault, EachFaultIsArmedByItsOwnNameOnly) {
  EXPECT_EQ(parse("kill-newcomer", Point::KillNewcomer), 0);
  EXPECT_EQ(parse("stall-newcomer", Point::StallNewcomer), 0);
  EXPECT_EQ(parse("hold-background", Point::HoldBackground), 0);
  EXPECT_EQ(parse("kill-newcomer-background", Point::KillNewcomerBackground), 0);
  // kill-newcomer is a prefix of kill-newcomer-background: neither arms the other.
  EXPECT_FALSE(parse("kill-newcomer-background", Point::KillNewcomer));
  EXPECT_FALSE(parse("kill-newcomer", Point::KillNewcomerBackground));
  EXPECT_FALSE(parse("stall-newcomer", Point::KillNewcomer));
  EXPECT_FALSE(parse("", Point::HoldBackground));
  EXPECT_FALSE(parse("hold-background:3", Point::HoldBackground));
}

TEST(Fault, ThePauseInTheRedistributionTakesItsSeconds) {
  EXPECT_EQ(parse("pause-in-redistribution", Point::PauseInRedistribution), 10);
  EXPECT_EQ(parse("pause-in-redistribution:20", Point::PauseInRedistribution), 20);
  EXPECT_EQ(parse("pause-in-redistribution:0", Point::PauseInRedistribution), 0);
  EXPECT_FALSE(parse("pause-in-redistributionX", Point::PauseInRedistribution));
  EXPECT_FALSE(parse("pause-in-iteration:13:20", Point::PauseInRedistribution));  // the driver's own hook
  EXPECT_FALSE(parse("pause-in-redistribution:20", Point::KillNewcomer));
}

TEST(Fault, NoMemoryInTheMoveTakesTheMatrix) {
  EXPECT_EQ(parse("no-memory-in-move", Point::NoMemoryInMove), 0);
  EXPECT_EQ(parse("no-memory-in-move:2", Point::NoMemoryInMove), 2);
  EXPECT_FALSE(parse("no-memory-in-moveX", Point::NoMemoryInMove));
  EXPECT_FALSE(parse("no-memory-in-move:2", Point::PauseInRedistribution));
  EXPECT_FALSE(parse("pause-in-redistribution", Point::NoMemoryInMove));
}

// A pause that ends when a file appears: the file is the text after the last ':' when it
// is an absolute path; the seconds still parse (the cap).
TEST(Fault, APauseMayEndWhenItsReleaseFileAppears) {
  EXPECT_EQ(parse("pause-in-redistribution:120:/tmp/t/go", Point::PauseInRedistribution), 120);
  EXPECT_EQ(release_file("pause-in-redistribution:120:/tmp/t/go"), "/tmp/t/go");
  EXPECT_EQ(release_file("pause-in-iteration:13:120:/tmp/t/go"), "/tmp/t/go");
  EXPECT_EQ(release_file("pause-in-iteration:13:20"), "");
  EXPECT_EQ(release_file("pause-in-redistribution:20"), "");
  EXPECT_EQ(release_file("pause-in-redistribution"), "");
  EXPECT_EQ(release_file("pause-in-iteration:13:20:relative/go"), "");
  EXPECT_EQ(release_file("pause-in-iteration:13:20:"), "");
}
