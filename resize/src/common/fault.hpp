// SPDX-License-Identifier: BSD-3-Clause
// Test-only fault injection of the session, in one place: RESIZE_FAULT names one fault
// (docs/guide/errors.md, "Fault injection"); the session reads it once, at its start
// (config::Session::fault), and hands that text to these functions. Not for production
// runs. The checkpoint writer's own faults (MALLEABLE_CHECKPOINT_FAULT) are
// file/write.cpp's, which is the only reader of that variable.
// Only in test builds: MALL_TEST_HOOKS (the CMake option of that name, on where the tests
// are built) compiles them in; without it no fault is ever armed, the functions below
// are empty inline ones and fault.cpp is empty: nothing acts on RESIZE_FAULT (config.cpp
// still reads it into config::Session::fault, which nothing asks).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "common/config.hpp"

namespace resize::detail::fault {

enum class Point {
  PauseInRedistribution,   // pause-in-redistribution[:S]: every process sleeps S s (10) after the first matrix moved
  KillNewcomer,            // kill-newcomer: the last newcomer dies after the state hand-over
  StallNewcomer,           // stall-newcomer: the last newcomer stops answering there
  HoldBackground,          // hold-background: the background helper thread waits for the main thread
  KillNewcomerBackground,  // kill-newcomer-background: the last newcomer dies in the background phase
  NoMemoryInMove,          // no-memory-in-move[:K]: world rank 1 cannot allocate the K-th (0) buffer a move stages
  GenerationUnreachable,   // generation-unreachable: the generation check's newcomer pair addresses no process
};

#ifdef MALL_TEST_HOOKS
// A pause may end early, when a file appears: pause-in-iteration:K:S:FILE and
// pause-in-redistribution:S:FILE (FILE an absolute path) hold every process until FILE
// exists, S seconds at most, so that a test acts on a paused job and then lets it go on,
// whatever the load: what it does lands inside the pause by construction, not by a margin.
// Pure: the release file a fault's text names ("" none: the pause is S seconds).
std::string release_file(std::string_view value);

// Pure: whether `value` (RESIZE_FAULT's text) names the fault at `p`, and its argument
// (the pause's seconds, default 10; the matrix of no-memory-in-move, default 0; 0 for the
// others). nullopt: not this fault.
std::optional<int> parse(std::string_view value, Point p);

// The fault at `p` if `fault` (RESIZE_FAULT as the session read it at its start,
// config::Session::fault) names it.
std::optional<int> armed(const config::Text& fault, Point p);

// RESIZE_FAULT=pause-in-iteration:K:S[:FILE]: every process of a session sleeps S s in
// iteration K (or until FILE exists, S s at most), before the iteration completes
// (Session::end_iteration; `iteration` is the one ending), so that a test kills a process
// at a known point; world rank 0 says "<app>: fault injection - every process pauses S s
// in iteration K" first (with FILE: "... until FILE exists").
void pause_in_iteration(const config::Text& fault, int iteration, bool world_rank0, std::string_view app);

// Carries out the fault at `p` when `fault` arms it and `here` (the process it targets):
// says so on stderr (`what` names the moment), then pauses, stalls or kills the process.
void inject(const config::Text& fault, Point p, bool here, int world_rank, std::string_view what);

// The elements the move stages for the k-th matrix of an exchange on world rank
// `world_rank`: `elements`, or 2^62 (a buffer no process can allocate) where
// no-memory-in-move:K targets it (K == k, world rank 1).
std::size_t staged_elements(const config::Text& fault, std::size_t k, int world_rank, std::size_t elements);

#else  // a build without the hooks: nothing is ever armed
inline std::optional<int> armed(const config::Text&, Point) { return std::nullopt; }
inline void pause_in_iteration(const config::Text&, int, bool, std::string_view) {}
inline void inject(const config::Text&, Point, bool, int, std::string_view) {}
inline std::size_t staged_elements(const config::Text&, std::size_t, int, std::size_t elements) { return elements; }
#endif

}  // namespace resize::detail::fault
