// SPDX-License-Identifier: BSD-3-Clause
// The generation check's decision (resize/src/policy/generation_reach.hpp): the setting,
// when an expansion checks, the verdict from plain ping-pong times (through shared
// memory, reaching but not through it, not reaching) with its line, and the measured
// factor in the merge-or-respawn model (policy/reconfigure.hpp). Pure, no MPI.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "policy/generation_reach.hpp"
#include "policy/reconfigure.hpp"

namespace {

using resize::Error;
using namespace resize::detail;

PairTimes pair(double small_us, double mid_us, double gbs) {
  PairTimes p;
  p.measured = p.reached = true;
  p.small_s = small_us * 1e-6;
  p.mid_s = mid_us * 1e-6;
  p.large_s = kLargeBytes / (gbs * 1e9);
  return p;
}

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

TEST(GenerationReach, Setting) {
  EXPECT_EQ(parse_reach_check(std::nullopt), ReachCheck::Auto);
  EXPECT_EQ(parse_reach_check(std::string("")), ReachCheck::Auto);
  EXPECT_EQ(parse_reach_check(std::string("auto")), ReachCheck::Auto);
  EXPECT_EQ(parse_reach_check(std::string("on")), ReachCheck::On);
  EXPECT_EQ(parse_reach_check(std::string("off")), ReachCheck::Off);
  try {
    parse_reach_check(std::string("yes"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "RESIZE_UCX_CHECK must be auto, on or off, got 'yes'");
  }
}

TEST(GenerationReach, WhenAnExpansionChecks) {
  EXPECT_TRUE(reach_check_wanted(ReachCheck::Auto, "ucx", false));
  EXPECT_FALSE(reach_check_wanted(ReachCheck::Auto, "ob1", false));  // ob1: the constant is its measure
  EXPECT_FALSE(reach_check_wanted(ReachCheck::Auto, "", false));     // not known: not Open MPI's UCX
  EXPECT_TRUE(reach_check_wanted(ReachCheck::On, "ob1", false));
  EXPECT_FALSE(reach_check_wanted(ReachCheck::Off, "ucx", false));
  EXPECT_FALSE(reach_check_wanted(ReachCheck::Auto, "ucx", true));  // decided at an earlier expansion
  EXPECT_FALSE(reach_check_wanted(ReachCheck::On, "ucx", true));
}

// UCX through shared memory (numbers of docs/data/generation_check/run.txt): factor 1.
TEST(GenerationReach, SharedMemory) {
  const ReachVerdict v = decide_reach(pair(3.3, 35.7, 2.0), pair(3.2, 10.1, 11.4), "ucx", "vm");
  EXPECT_EQ(v.reach, Reach::SharedMemory);
  EXPECT_DOUBLE_EQ(v.factor, 1.0);
  EXPECT_NEAR(v.ratio, std::sqrt(3.2 / 3.3 * (10.1 / 35.7)), 1e-12);
  EXPECT_EQ(v.line.rfind("generation check (PML ucx, node vm): an original and a newcomer 8 B 3.2 us", 0), 0u) << v.line;
  EXPECT_TRUE(has(v.line, "two originals 8 B 3.3 us")) << v.line;
  EXPECT_TRUE(has(v.line, "through shared memory; the auto reconfiguration counts mixed pairs as fast")) << v.line;
}

// ob1's generations over TCP loopback: slow, the 64 KiB ratio is the model's factor.
TEST(GenerationReach, ReachesButSlowly) {
  const ReachVerdict v = decide_reach(pair(6.0, 12.8, 11.9), pair(21.9, 62.8, 3.2), "ob1", "vm");
  EXPECT_EQ(v.reach, Reach::Slow);
  EXPECT_NEAR(v.factor, 62.8 / 12.8, 1e-9);
  EXPECT_TRUE(has(v.line, "but not through shared memory; the auto reconfiguration weighs mixed pairs at the measured 4.91x"))
      << v.line;
  // At the threshold (the geometric mean of the two ratios): slow; just below: shared memory.
  EXPECT_EQ(decide_reach(pair(2, 10, 1), pair(2 * kSlowRatio, 10 * kSlowRatio, 1), "ucx", "n").reach, Reach::Slow);
  EXPECT_EQ(decide_reach(pair(2, 10, 1), pair(2, 10 * kSlowRatio * kSlowRatio, 1), "ucx", "n").reach, Reach::Slow);
  EXPECT_EQ(decide_reach(pair(2, 10, 1), pair(2 * kSlowRatio * 0.99, 10 * kSlowRatio * 0.99, 1), "ucx", "n").reach,
            Reach::SharedMemory);
  // UCX over TCP (PMIx's hash store) with little latency to show (1.50x, 4.36x): slow.
  EXPECT_EQ(decide_reach(pair(4.0, 14.0, 9.0), pair(6.0, 61.0, 4.0), "ucx", "vm").reach, Reach::Slow);
  // Through shared memory, the newcomer's pair on one core (1.00x, 3.20x): shared memory.
  EXPECT_EQ(decide_reach(pair(3.3, 10.7, 11.9), pair(3.3, 34.1, 2.0), "ucx", "vm").reach, Reach::SharedMemory);
  // Slow on latency but no slower on 64 KiB: the factor is at least 1.
  EXPECT_DOUBLE_EQ(decide_reach(pair(2, 30, 1), pair(10, 20, 1), "ucx", "n").factor, 1.0);
}

// A TCP connection between the pair says "not through shared memory" whatever the times
// (run 2 of docs/data/generation_check: ob1 once read 0.73 under load); none says nothing
// against slow times.
TEST(GenerationReach, TcpWitness) {
  PairTimes mixed = pair(3.0, 11.0, 9);
  mixed.tcp = 1;
  const ReachVerdict v = decide_reach(pair(3.0, 12.0, 9), mixed, "ob1", "vm");
  EXPECT_EQ(v.reach, Reach::Slow);
  EXPECT_DOUBLE_EQ(v.factor, 1.0);
  EXPECT_TRUE(has(v.line, "(a TCP connection joins them, times 1.00x at 8 B")) << v.line;
  EXPECT_TRUE(has(v.line, "< 2.0): they reach each other, but not through shared memory")) << v.line;
  mixed.tcp = 0;
  EXPECT_EQ(decide_reach(pair(3.0, 12.0, 9), mixed, "ucx", "vm").reach, Reach::SharedMemory);
  EXPECT_TRUE(has(decide_reach(pair(3.0, 12.0, 9), mixed, "ucx", "vm").line, "(no TCP connection joins them, "));
  PairTimes slow = pair(30, 120, 1);
  slow.tcp = 0;
  EXPECT_EQ(decide_reach(pair(3.0, 12.0, 9), slow, "ucx", "vm").reach, Reach::Slow);
}

TEST(GenerationReach, JoinedByTcp) {
  const std::vector<std::string> a = {"0100007F:A000-0100007F:B000", "0100007F:C000-0100007F:0050"};
  EXPECT_TRUE(joined_by_tcp(a, {"0100007F:B000-0100007F:A000"}));
  EXPECT_FALSE(joined_by_tcp(a, {"0100007F:A000-0100007F:B000"}));  // the same end, not its reverse
  EXPECT_FALSE(joined_by_tcp(a, {"0100007F:0050-0100007F:D000"}));  // both talk to a third
  EXPECT_FALSE(joined_by_tcp(a, {}));
  EXPECT_FALSE(joined_by_tcp({"no dash"}, {"dash no"}));
}

// No original beside rank 0: the stored reference.
TEST(GenerationReach, StoredReference) {
  PairTimes none;
  const ReachVerdict fast = decide_reach(none, pair(4.0, 12.0, 11), "ucx", "vm");
  EXPECT_EQ(fast.reach, Reach::SharedMemory);
  EXPECT_TRUE(has(fast.line, "a stored same-launch reference")) << fast.line;
  const ReachVerdict slow = decide_reach(none, pair(25.0, 60.0, 3), "ucx", "vm");
  EXPECT_EQ(slow.reach, Reach::Slow);
  EXPECT_NEAR(slow.factor, 60.0e-6 / kReferenceMid, 1e-9);
  // An original pair that failed is no reference either.
  PairTimes failed = pair(1, 1, 1);
  failed.reached = false;
  EXPECT_TRUE(has(decide_reach(failed, pair(4.0, 12.0, 11), "ucx", "vm").line, "stored same-launch reference"));
}

TEST(GenerationReach, Unreachable) {
  PairTimes cut;
  cut.measured = true;
  cut.error = "MPI_Isend: MPI_ERR_RANK: invalid rank";
  const ReachVerdict v = decide_reach(pair(3, 10, 10), cut, "ucx", "vm");
  EXPECT_EQ(v.reach, Reach::Unreachable);
  EXPECT_DOUBLE_EQ(v.factor, 0.0);
  EXPECT_TRUE(has(v.line, "do not reach each other (MPI_Isend: MPI_ERR_RANK: invalid rank)")) << v.line;
  EXPECT_TRUE(has(v.line, "every process stops")) << v.line;
  EXPECT_TRUE(has(v.line, "RESIZE_UCX_CHECK=off")) << v.line;
  // A pair that "completed" with no time is not a measure: unreachable, never a division by 0.
  PairTimes zero = pair(0, 0, 1);
  EXPECT_EQ(decide_reach(pair(3, 10, 10), zero, "", "").reach, Reach::Unreachable);
  EXPECT_TRUE(has(decide_reach(pair(3, 10, 10), zero, "", "").line, "(PML unknown, node unknown)"));
}

// The model weighs the measured factor in place of kMixedPairFactor: a factor of 1 never
// respawns, a large one respawns where the constant would merge.
TEST(GenerationReach, FactorInTheModel) {
  ReconfigureInput in;
  in.remaining = 10;
  in.iteration_s = 1;
  in.comm_share = 0.5;
  in.mixed_merge = 0.5;
  in.extra_spawn_s = 3;
  EXPECT_FALSE(choose_reconfiguration(in).respawn);  // the constant: 10 * 0.5 * 0.5 * 0.94 = 2.35 s < 3 s
  in.pair_factor = 4.9;
  in.pair_factor_measured = true;
  const ReconfigureChoice c = choose_reconfiguration(in);
  EXPECT_TRUE(c.respawn) << c.why;
  EXPECT_TRUE(has(c.why, "mixed pairs 4.90x measured")) << c.why;
  in.pair_factor = 1;
  EXPECT_FALSE(choose_reconfiguration(in).respawn);
  EXPECT_DOUBLE_EQ(choose_reconfiguration(in).gain_s, 0.0);
}

}  // namespace
