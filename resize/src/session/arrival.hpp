// SPDX-License-Identifier: BSD-3-Clause
// Internal: the arrival check at the start of every remap point. A process
// that skips a remap point (or is stuck or gone before it) would leave the others blocked
// for ever in the remap point's first collective, with no message: no resize has begun,
// so the resize watchdog is not armed. Instead every process first reports its arrival
// to world rank 0 with non-blocking messages, polled against a deadline; rank 0 names the
// ranks that did not arrive in time (or came to the remap point after another iteration)
// and ends the job with status 75, as the resize watchdog does. The deadline, the verdicts
// and the messages' codec are pure (handover.hpp, beside the session's other messages;
// unit-tested); the messages travel on a private duplicate of the world (arrival.cpp), so
// an application's wildcard receive on the world never takes them.
#pragma once

#include <mpi.h>

#include "session/handover.hpp"

namespace resize::detail {

// Every process of a new world, at the same collective call (detail::blacs_grid): keeps a
// private duplicate of `world` for the check (one per world; freed when replaced, never
// after MPI_Finalize).
void arrival_on_world(MPI_Comm world);

// Collective over `world` at a remap point after `iteration`: returns once every process
// of the world arrived at a remap point after the same iteration; otherwise prints
// "resize: FAILED - <verdict>. Ending the job." and ends the job (MPI_Abort, status 75).
void arrival_check(MPI_Comm world, int iteration, double seconds);

}  // namespace resize::detail
