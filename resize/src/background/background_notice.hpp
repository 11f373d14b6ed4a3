// SPDX-License-Identifier: BSD-3-Clause
// What world rank 0 tells the newcomers of an expansion begun in the background when it
// ends, completed or cancelled: one typed message, sent as a fixed array of integers
// (encode/decode, versioned) in one broadcast on the background's communicator. Pure.
#pragma once

#include <array>
#include <cstdint>

namespace resize::detail {

struct BackgroundNotice {
  enum class Kind : long long { Completed = 1, Cancelled = 2 };
  // Why a background expansion was cancelled.
  enum class Cause : long long {
    Destroyed = 0,   // the session was destroyed or MPI_Finalize called
    End = 1,         // cancel_resize(): the job's end
    Superseded = 2,  // a shrink decided meanwhile
  };
  Kind kind = Kind::Completed;
  int iteration = 0;  // the iterations the old processes completed
  // Completed:
  int changed_matrix = 0;       // 1 + the index of a constant matrix that changed; 0: none
  std::int64_t state_bytes = 0; // the application state broadcast next (when none changed)
  bool in_remap_point = false;  // completed inside a remap point: the newcomers take part in the rest of it
  // Cancelled:
  int old_size = 0;         // the old world's size: the newcomers leave back to it
  bool any_posted = false;  // some old process posted its messages (they complete); else the newcomers withdraw their receives
  Cause cause = Cause::Destroyed;

  bool operator==(const BackgroundNotice&) const = default;
};

inline constexpr long long kNoticeVersion = 1;
inline constexpr int kNoticeSlots = 9;
using NoticeWords = std::array<long long, kNoticeSlots>;

NoticeWords encode(const BackgroundNotice& n);
// Throws resize::Error naming the slot at fault (another version, an unknown kind or
// cause, a negative size).
BackgroundNotice decode(const NoticeWords& w);

}  // namespace resize::detail
