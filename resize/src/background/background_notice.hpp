// SPDX-License-Identifier: BSD-3-Clause
// What world rank 0 tells the newcomers of an expansion begun in the background when it
// ends, completed or cancelled: one typed message (the job's codec,
// malleable_internal/wire.hpp, versioned), of a fixed size so the newcomers can post its
// broadcast on the background's communicator before it is sent. Pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace resize::detail {

struct BackgroundNotice {
  enum class Kind : int { Completed = 1, Cancelled = 2 };
  // Why a background expansion was cancelled.
  enum class Cause : int {
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

inline constexpr std::uint32_t kNoticeVersion = 2;  // 2: the job's codec (was 9 integers)

// Every notice has notice_bytes() bytes.
std::vector<char> encode(const BackgroundNotice& n);
std::size_t notice_bytes();
// Throws resize::Error naming the field at fault (another kind of message or version,
// a truncated one, an unknown kind or cause, a negative size).
BackgroundNotice decode(std::span<const char> bytes);

}  // namespace resize::detail
