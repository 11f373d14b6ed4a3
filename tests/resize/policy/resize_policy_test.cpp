// SPDX-License-Identifier: BSD-3-Clause
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "malleable/resize/policy.hpp"

using namespace resize;

TEST(ScriptedPolicy, DecidesOnlyAtScheduledIterations) {
  ScriptedPolicy p(parse_schedule("3:expand:3x3:local2,6:shrink:2x2"));
  Metrics m;
  PolicyInput in{2, Grid{2, 2, {}}, 4, &m};
  EXPECT_EQ(p.decide(in).action, Action::None);
  in.iteration = 3;
  EXPECT_EQ(p.decide(in).action, Action::Expand);
  in.iteration = 6;
  EXPECT_EQ(p.decide(in).action, Action::Shrink);
}

namespace {
// A synthetic U-curve: t(P) = a/P + b*P, bottom at P = sqrt(a/b).
double u_curve(int p) { return 36.0 / p + 1.0 * p; }  // bottom at 6

// Drives a policy as the MPI shell would, applying its decisions instantly.
struct Simulation {
  Grid grid{1, 1, {}};
  Metrics metrics;
  int iteration = 0;
  std::vector<int> sizes;  // world size after each remap point
  void run(Policy& p, int iterations) {
    for (int k = 0; k < iterations; ++k) {
      ++iteration;
      const double t = u_curve(grid.size());
      metrics.add_iteration({iteration, grid.size(), grid.shape(), t, t});
      Decision d = p.decide(PolicyInput{iteration, grid, grid.size(), &metrics});
      if (d.action != Action::None) {
        ResizeRecord r;
        r.after_iteration = iteration;
        r.action = d.action;
        r.from_grid = grid.shape();
        const int from = grid.size();
        grid = d.nprow ? Grid{d.nprow, d.npcol, {}} : Grid{1, d.procs, {}};
        r.to_grid = grid.shape();
        metrics.add_resize(r);
        p.completed(d, from, true);
      }
      sizes.push_back(grid.size());
    }
  }
};
}  // namespace

TEST(SweetSpotPolicy, StopsAtTheBottomOfAUCurve) {
  auto sched = std::make_shared<PoolScheduler>(30);
  SweetSpotPolicy p(sched, SweetSpotPolicy::Options{});
  Simulation sim;
  sim.run(p, 60);
  // Ladder 1 -> 2 -> 4 (2x2) -> 6 (3x2) -> 9 (3x3): 9 is worse than 6, so back to 6.
  ASSERT_TRUE(p.sweet_spot().has_value());
  EXPECT_EQ(*p.sweet_spot(), 6);
  EXPECT_EQ(sim.grid.size(), 6);
  EXPECT_EQ(sim.sizes.back(), 6);
  // It tried 9 once and never went above it.
  int maxsize = 0;
  for (int s : sim.sizes) maxsize = std::max(maxsize, s);
  EXPECT_EQ(maxsize, 9);
  // The processes it tried and gave back are free again: 30 - (6 - 1).
  EXPECT_EQ(sched->free_processes(), 25);
}

TEST(SweetSpotPolicy, KeepsExpandingWhileTheCurveFalls) {
  auto sched = std::make_shared<PoolScheduler>(3);  // only enough for 1 -> 2 -> 4
  SweetSpotPolicy p(sched, SweetSpotPolicy::Options{});
  Simulation sim;
  sim.run(p, 30);
  EXPECT_EQ(sim.grid.size(), 4);
  EXPECT_FALSE(p.sweet_spot().has_value());  // still descending; no bottom seen
  EXPECT_EQ(sched->free_processes(), 0);
}

TEST(SweetSpotPolicy, ReleasesProcessesWhenTheSchedulerAsks) {
  auto sched = std::make_shared<PoolScheduler>(3);
  SweetSpotPolicy p(sched, SweetSpotPolicy::Options{});
  Simulation sim;
  sim.run(p, 20);
  ASSERT_EQ(sim.grid.size(), 4);
  sched->request_release(2);
  sim.run(p, 1);
  EXPECT_EQ(sim.grid.size(), 2);  // the largest measured size that frees 2
  EXPECT_EQ(sched->free_processes(), 2);
  sim.run(p, 5);
  EXPECT_LE(sim.grid.size(), 4);
}

// RESIZE_OFFER is read once, when the scheduler is made: a later change is not seen by
// it, only by a scheduler made after the change.
TEST(OfferFileScheduler, ReadsOfferAndReleaseFromTheEnvironmentOnceWhenMade) {
  setenv("RESIZE_OFFER", "offer=5", 1);
  OfferFileScheduler s("");
  EXPECT_EQ(s.expand_offer(4), 5);
  EXPECT_TRUE(s.confirm_expand(4, 2));
  EXPECT_EQ(s.expand_offer(6), 3);
  EXPECT_FALSE(s.confirm_expand(6, 4));
  EXPECT_EQ(s.shrink_request(6), 0);
  setenv("RESIZE_OFFER", "offer=0 release=2", 1);
  EXPECT_EQ(s.shrink_request(6), 0);  // made before the change
  EXPECT_EQ(s.expand_offer(6), 3);
  OfferFileScheduler later("");
  EXPECT_EQ(later.shrink_request(6), 2);
  later.released(2);
  EXPECT_EQ(later.shrink_request(4), 0);
  EXPECT_EQ(later.expand_offer(4), 2);  // the released two return to the pool
  setenv("RESIZE_OFFER", "offer=x", 1);
  OfferFileScheduler bad("");  // a bad offer is reported where it is used
  EXPECT_THROW(bad.expand_offer(4), Error);
  unsetenv("RESIZE_OFFER");
}

TEST(MakePolicy, RejectsUnknownNames) {
  EXPECT_EQ(make_policy("fixed", "", "")->name(), "fixed");
  EXPECT_EQ(make_policy("scripted", "3:expand:9", "")->name(), "scripted");
  EXPECT_THROW(make_policy("greedy", "", ""), Error);
}

TEST(MakePolicy, SlurmTakesOnlyAnIterationCount) {
  // (checked before the policy looks for Slurm: these fail the same inside or outside a job)
  for (const char* bad : {"iterations=", "iterations=x", "iterations=-3", "3:expand:9", "iterations=12345678901"}) {
    try {
      make_policy("slurm", bad, "");
      ADD_FAILURE() << bad << " was taken";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("the schedule must be empty or 'iterations=N'"), std::string::npos) << bad;
    }
  }
}
