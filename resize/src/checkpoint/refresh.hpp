// SPDX-License-Identifier: BSD-3-Clause
// The refresh (pure part): an expansion carried out by restart instead of by spawn once the
// job's processes have met many spawned ones. Open MPI 4.1 keeps state for every process
// ever spawned into a process's world (about 43 kB each with PMIx's hash store,
// docs/reference/blacs-dyn.md, "Memory over many resizes") and frees none of it while the
// process lives, so a job that grows and shrinks for days grows without bound. With
// RESIZE_REFRESH_AFTER=N the processes of one launch spawn at most N processes in place:
// the expansion that would take them past N is carried out by restart (a checkpoint, then
// malleable-run relaunches the job at the new size), which starts every process,
// and Open MPI's state, anew. The shell is Session::remap_or_restart
// (session/session_by_restart.cpp); the count is exec/executor.hpp's processes_spawned().
#pragma once

#include <optional>
#include <string>

namespace resize::detail {

// RESIZE_REFRESH_AFTER: the processes a launch may spawn in place (0: no refresh).
struct RefreshRule {
  int after = 0;
};

// RESIZE_REFRESH_AFTER's text: unset, empty, "off" or "0": no refresh; a whole number N
// >= 1. Throws Error naming the variable and its value otherwise.
RefreshRule parse_refresh_rule(const std::optional<std::string>& text);

// Whether an expansion that spawns `nnew` processes, in a launch whose processes have met
// `spawned` spawned ones so far (the most any of them has), is carried out by restart.
// False without a rule or without a process to spawn.
bool refresh_due(const RefreshRule& rule, int spawned, int nnew);

// The progress line's words: "this launch spawned 40 processes; 4 more would pass
// RESIZE_REFRESH_AFTER=42: the expansion by restart, which starts every process anew".
std::string describe_refresh(const RefreshRule& rule, int spawned, int nnew);

}  // namespace resize::detail
