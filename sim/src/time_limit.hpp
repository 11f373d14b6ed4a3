// SPDX-License-Identifier: BSD-3-Clause
// The time-limit rule, pure: one code with the arbiter daemon's. It lives in the cluster
// library (malleable/cluster/time_limit.hpp, cluster/src/arbitration/time_limit.cpp); the
// simulator names it here: a job's predicted end against its limit (EndPrediction,
// keeps_limit), the fewest nodes that keep it (fewest_within), and the limit that follows
// the size (extend_with_size, RunOptions::limit_follows_size), which the arbiter applies to
// a real give-back with `--extend-limits on` (limits::raise_for_give_back), and the limit of a
// job started below its request (limit_at_start, Cluster::limit_on), which the arbiter
// applies to a job Slurm started below the top of its range (limits::raise_at_start).
#pragma once

#include "malleable/cluster/time_limit.hpp"

namespace clustersim {

using cluster::limits::EndPrediction;
using cluster::limits::extend_with_size;
using cluster::limits::fewest_within;
using cluster::limits::keeps_limit;
using cluster::limits::limit_at_start;
using cluster::limits::kNoLimit;
using cluster::limits::LimitExtension;
using cluster::limits::LimitVerdict;

}  // namespace clustersim
