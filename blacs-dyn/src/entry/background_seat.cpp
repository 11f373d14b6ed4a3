// SPDX-License-Identifier: BSD-3-Clause
// Taking and giving back the one background expansion (background_seat.hpp).
#include "entry/background_seat.hpp"

#include <utility>

namespace blacs_dyn {

void take_background() {
  BackgroundExpansion bg = Runtime::get().begin_background();
  seat::held.emplace(std::move(bg));
  seat::holder.store(std::this_thread::get_id());
}

void give_back_background() {
  if (seat::holder.load() != std::this_thread::get_id() || !seat::held) return;
  seat::holder.store(std::thread::id());
  BackgroundExpansion bg = std::move(*seat::held);
  seat::held.reset();
  Runtime::get().end_background(std::move(bg));
}

}  // namespace blacs_dyn
