// SPDX-License-Identifier: BSD-3-Clause
// The C API's side of background expansions (blacs_dyn_background_thread): the calling
// thread takes a BackgroundExpansion from the Runtime and gives it back. The C API and the
// BLACS entry points have no handle to pass, so the thread that took one is recorded with
// it here; each of their calls looks up the calling thread's and passes it to the Runtime
// explicitly (null on every other thread: the published world).
#ifndef BLACS_DYN_ENTRY_BACKGROUND_SEAT_HPP
#define BLACS_DYN_ENTRY_BACKGROUND_SEAT_HPP

#include <atomic>
#include <optional>
#include <thread>

#include "runtime/runtime.hpp"

namespace blacs_dyn {

// One background expansion at a time (Runtime::begin_background refuses a second), so one
// seat: the thread that holds it and the object, which only that thread reads or writes
// once it took it; every other thread compares the id alone.
namespace seat {
inline std::atomic<std::thread::id> holder{};
inline std::optional<BackgroundExpansion> held;
}  // namespace seat

// Runtime::begin_background for the calling thread (throws as it does: one at a time).
void take_background();
// Runtime::end_background, if the calling thread took one (else nothing).
void give_back_background();
// The background expansion the calling thread took, null if it took none. Inline: every
// call of the C API and of the BLACS set-up asks.
inline BackgroundExpansion* calling_thread_background() {
  return seat::holder.load() == std::this_thread::get_id() && seat::held ? &*seat::held : nullptr;
}

}  // namespace blacs_dyn
#endif
