// SPDX-License-Identifier: BSD-3-Clause
// Internal: the arrival check at the start of every remap point. A process
// that skips a remap point (or is stuck or gone before it) would leave the others blocked
// for ever in the remap point's first collective, with no message: no resize has begun,
// so the resize watchdog is not armed. Instead every process first reports its arrival
// to world rank 0 with non-blocking messages, polled against a deadline; rank 0 names the
// ranks that did not arrive in time (or came to the remap point after another iteration)
// and ends the job with status 75, as the resize watchdog does. The deadline, the verdicts
// and the messages' codec are pure (arrival_message.cpp, unit-tested); the messages travel on a private
// duplicate of the world (arrival.cpp), so an application's wildcard receive on the world
// never takes them.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace resize::detail {

// The deadline of a remap point's arrival check: `floor_seconds` (SessionOptions::
// remap_timeout, RESIZE_REMAP_TIMEOUT), or 3 times the longest time between two remap
// points so far (`longest_interval`), whichever is longer: a process off the grid
// arrives a whole iteration before the ones computing, legitimately.
double arrival_deadline(double floor_seconds, double longest_interval);
// "3", "1, 3" (world ranks, ascending as given).
std::string rank_list(const std::vector<int>& ranks);
// World rank 0's verdict once it stopped waiting: the ranks that did not arrive within
// `seconds` and the ranks that came after another iteration ({rank, iteration}); "" when
// every process arrived after `iteration`.
std::string arrival_verdict(int iteration, double seconds, const std::vector<int>& missing,
                            const std::vector<std::pair<int, int>>& elsewhere);
// A process other than world rank 0 that waited `seconds` for rank 0.
std::string root_missing(int iteration, double seconds);

// One message of the check (the job's codec, malleable_internal/wire.hpp, versioned), each
// with the iteration its sender is at: Here (rank 0 to every other process: rank 0 is at the
// remap point), Arrive (every other process to rank 0), Go (rank 0 to every other process:
// everybody arrived). Every message has arrival_message_bytes() bytes, so the receives are
// posted before the messages are sent.
struct ArrivalMessage {
  enum class Kind : int { Here = 1, Arrive = 2, Go = 3 };
  Kind kind = Kind::Here;
  int iteration = 0;
  bool operator==(const ArrivalMessage&) const = default;
};
std::vector<char> encode(const ArrivalMessage& m);
std::size_t arrival_message_bytes();
// The message in `bytes`, which must be of kind `expected`; throws resize::Error naming what
// differs (another kind of message or version, a truncated one, an unknown or unexpected kind).
ArrivalMessage decode_arrival(std::span<const char> bytes, ArrivalMessage::Kind expected);

// Every process of a new world, at the same collective call (detail::blacs_grid): keeps a
// private duplicate of `world` for the check (one per world; freed when replaced, never
// after MPI_Finalize).
void arrival_on_world(MPI_Comm world);

// Collective over `world` at a remap point after `iteration`: returns once every process
// of the world arrived at a remap point after the same iteration; otherwise prints
// "resize: FAILED - <verdict>. Ending the job." and ends the job (MPI_Abort, status 75).
void arrival_check(MPI_Comm world, int iteration, double seconds);

}  // namespace resize::detail
