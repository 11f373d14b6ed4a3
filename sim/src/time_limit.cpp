// SPDX-License-Identifier: BSD-3-Clause
// The time-limit rule is the cluster library's (cluster/src/arbitration/time_limit.cpp),
// one code with the arbiter daemon's; time_limit.hpp names it for the simulator.
#include "time_limit.hpp"
