// SPDX-License-Identifier: BSD-3-Clause
// Scripted resize schedules: "3:expand:9:local2,8:shrink:4" (the
// application is resized only at remap points). Pure parsing, no MPI.
//
// Grammar (entries separated by ',' ';' or newlines; '#' starts a comment):
//   ITER ':' ('expand'|'shrink') ':' TARGET [':' PLACEMENT] [':schema=' FILE] ['@' HOSTS]
//   TARGET    = PROCS | ROWS 'x' COLS          e.g. 9, 3x3, 2x3
//   PLACEMENT = global | local1 | local2 | optimal (default local2)
//   HOSTS     = HOST ['=' COUNT] ('+' HOST ['=' COUNT])*
// '@' HOSTS may end the TARGET or the PLACEMENT field. Expand: the new processes run on
// those nodes, COUNT of them on each (hosts without a count share the rest evenly), one
// spawn group per node: "3:expand:3x3:local2@node2", "4:expand:16@node2=6+node3". Shrink:
// the nodes to give back whole: "8:shrink:2x2@node2+node3".
// ITER is the number of completed iterations at the remap point (remap point k follows
// iteration k). A shrink target is a world size that the job had before (a stack level)
// or any smaller size.
#pragma once

#include <string>
#include <vector>

#include "malleable/resize/types.hpp"

namespace resize {

struct ScheduleEntry {
  int iteration = 0;
  Decision decision;
};

using Schedule = std::vector<ScheduleEntry>;

// Throws resize::Error naming the entry and field at fault.
Schedule parse_schedule(const std::string& text);
// A path to a file holding a schedule, or the schedule text itself.
Schedule load_schedule(const std::string& text_or_path);
std::string to_string(const ScheduleEntry& e);

}  // namespace resize
