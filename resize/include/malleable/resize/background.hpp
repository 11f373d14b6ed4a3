// SPDX-License-Identifier: BSD-3-Clause
// Background resizes: what a remap point does with a resize (SessionOptions::background,
// Session::set_background; docs/reference/apps.md, "Background resizes").
#pragma once

#include <string>

namespace resize {

// What a remap point does with a resize and whether a later one waits for the background.
enum class Background {
  Off,       // every resize is blocking (the default)
  Wait,      // begin in the background; the completing remap point waits for the rest
  Continue,  // begin in the background; a completing remap point whose background part is
             // not done lets the old grid keep iterating and tries again at the next one
};
std::string to_string(Background b);
// "off", "wait", "continue" (also "blocking" = off); throws resize::Error otherwise.
Background parse_background(const std::string& s);

}  // namespace resize
