// SPDX-License-Identifier: BSD-3-Clause
// The generation check's MPI side (docs/reference/apps.md, "The generations' reach under
// UCX"): the ping-pongs at an expansion by spawn whose numbers policy/generation_reach.hpp
// decides on. The PML Open MPI selected is blacs-dyn's probe (blacs_dyn::World::
// selected_pml, kept in SessionWorld::reach.pml). Internal to the session's MPI shell.
#pragma once

#include <string>

#include "common/config.hpp"
#include "malleable/resize/session_options.hpp"
#include "parts/session_parts.hpp"

namespace resize::detail {

// Collective over job.world, right after an expansion's state hand-over, on the old
// processes and the newcomers alike: world rank 0 ping-pongs (MPI_ERRORS_RETURN, each
// exchange bounded by `deadline_s`) with an original and with a newcomer on its node,
// decides (decide_reach), prints the verdict's line as "[app] ..." and every process
// records it in job.reach. No newcomer on rank 0's node: nothing decided (a later
// expansion checks). Unreachable: throws Error(the line) on every process.
// RESIZE_FAULT=generation-unreachable: the newcomer's pair addresses no process (MPI
// returns MPI_ERR_RANK), the test of that path.
inline constexpr double kReachDeadline = 10.0;  // seconds, for each pair's exchanges
void check_generations(SessionWorld& job, const SessionOptions& opt, const config::Text& fault, double deadline_s);

}  // namespace resize::detail
