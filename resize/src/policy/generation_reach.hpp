// SPDX-License-Identifier: BSD-3-Clause
// Whether the generations of a job reach each other through shared memory (docs/reference/
// apps.md, "The generations' reach under UCX"). Open MPI's ob1 connects only the processes
// of one launch through shared memory; its UCX PML may or may not reach a spawned process
// that way. At the job's first expansion by spawn (parts/generation_check.cpp), world rank
// 0 ping-pongs with a newcomer on its node and with an original on its node; this file
// decides from those plain numbers and words the line rank 0 prints. Pure: no MPI.
#pragma once

#include <string>
#include <vector>

#include "common/config.hpp"
#include "malleable/resize/types.hpp"

namespace resize::detail {

// RESIZE_UCX_CHECK: auto (the default: only under Open MPI's UCX PML), on (under any PML)
// or off. Anything else: Error "RESIZE_UCX_CHECK must be auto, on or off, got '<text>'".
enum class ReachCheck { Auto, On, Off };
ReachCheck parse_reach_check(const config::Text& text);
// Whether an expansion by spawn checks: the setting, the selected PML's name ("ucx",
// "ob1", "" unknown) and whether an earlier expansion already decided.
bool reach_check_wanted(ReachCheck setting, const std::string& pml, bool decided);

// One ping-pong between two processes of the world: `reached` false when an MPI call
// returned an error or the exchange did not complete within its deadline (`error` says
// which). Seconds per one-way message of each size, the fastest of its rounds.
inline constexpr int kSmallBytes = 8;
inline constexpr int kMidBytes = 64 << 10;  // a 64 x 128 block of doubles, as PBLAS sends them
inline constexpr int kLargeBytes = 1 << 20;
struct PairTimes {
  bool measured = false;  // false: no such pair (no original beside rank 0 on its node)
  bool reached = false;
  double small_s = 0, mid_s = 0, large_s = 0;
  std::string error;
  int tcp = -1;  // a TCP connection joins the two after the exchange: 1 yes, 0 no, -1 not known
};

// Whether two processes' established TCP connections (each "LOCAL-REMOTE", addresses and
// ports as /proc/net/tcp writes them) include one between them: a connection of `a` whose
// reverse is one of `b`'s.
bool joined_by_tcp(const std::vector<std::string>& a, const std::vector<std::string>& b);

// At or above this ratio of the mixed pair's message time to the same-launch pair's (the
// geometric mean of the ratios at 8 B and at 64 KiB), the generations do not meet through
// shared memory. Measured on the shared 2-core machine of docs/measurements/respawn.md
// ("The generations' reach", docs/data/generation_check/run1.txt and run2.txt, 6 processes
// on 2 cores): a pair's 1 MiB bandwidth jumped between about 2 and 11 GB/s from run to run
// under every PML (the pair on one core or on two), so it decides nothing; the 8 B ratio
// does not see that but sees little of UCX's TCP; the 64 KiB ratio sees the transport and
// the placement. Their geometric mean at load 5-6: 2.03-5.31 under ob1 (TCP loopback),
// 2.00-4.34 under UCX with PMIx's hash store (UCX's TCP), 0.45-1.95 under
// BLACS_DYN_PML=ucx (shared memory); at load 7-10 the arms overlapped more (0.73-45.89,
// 2.49-4.01, 0.74-2.89). 2.0 separates every arm's median, not every run, hence the TCP
// witness (decide_reach) in front of it; a wrong verdict changes only the auto
// reconfiguration's factor, never a result.
inline constexpr double kSlowRatio = 2.0;
// Without an original beside rank 0 on its node: a same-launch pair's 8 B latency and
// 64 KiB message time on that machine (UCX and ob1's vader, the measurement above).
inline constexpr double kReferenceSmall = 5e-6, kReferenceMid = 15e-6;

enum class Reach { SharedMemory, Slow, Unreachable };
struct ReachVerdict {
  Reach reach = Reach::SharedMemory;
  double ratio = 1;          // the mixed pair's time over the same-launch one's: the geometric mean of 8 B and 64 KiB
  double factor = 1;         // a mixed pair's message time over a same-launch one's, for the model
  std::string line;          // one line for world rank 0: what was measured, what it means, what the job does
};
// `fresh`: rank 0 and an original on its node (measured false: the stored reference);
// `mixed`: rank 0 and a newcomer on its node; `pml`, `host`: named in the line.
// A TCP connection between the mixed pair (mixed.tcp == 1) makes it Slow whatever the
// times (ob1's and UCX's TCP are the ways not through shared memory on one node; through
// shared memory no connection joins the two: docs/measurements/respawn.md). Otherwise
// SharedMemory: ratio < kSlowRatio, factor 1 (a respawn gains nothing);
// Slow: factor = the ratio of the 64 KiB message times (at least 1), which the auto
// reconfiguration weighs instead of kMixedPairFactor; Unreachable: the mixed pair did not
// complete (the expansion cannot be used).
ReachVerdict decide_reach(const PairTimes& fresh, const PairTimes& mixed, const std::string& pml,
                          const std::string& host);

}  // namespace resize::detail
