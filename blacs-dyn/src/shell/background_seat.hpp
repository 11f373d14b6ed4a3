// SPDX-License-Identifier: BSD-3-Clause
// The C API's side of background expansions (blacs_dyn_background_thread): the calling
// thread takes a BackgroundExpansion from the Runtime and gives it back. The C API and the
// BLACS entry points have no handle to pass, so the thread that took one is recorded with
// it here; each of their calls looks up the calling thread's and passes it to the Runtime
// explicitly (null on every other thread: the published world).
#ifndef BLACS_DYN_SHELL_BACKGROUND_SEAT_HPP
#define BLACS_DYN_SHELL_BACKGROUND_SEAT_HPP

namespace blacs_dyn {
class BackgroundExpansion;

// Runtime::begin_background for the calling thread (throws as it does: one at a time).
void take_background();
// Runtime::end_background, if the calling thread took one (else nothing).
void give_back_background();
// The background expansion the calling thread took, null if it took none.
BackgroundExpansion* calling_thread_background();
}  // namespace blacs_dyn
#endif
