// SPDX-License-Identifier: BSD-3-Clause
// One background expansion at a time (Runtime::begin_background refuses a second), so one
// seat: the thread that holds it and the object, which only that thread reads or writes
// once it took it; every other thread compares the id alone.
#include "shell/background_seat.hpp"

#include <atomic>
#include <optional>
#include <thread>
#include <utility>

#include "runtime/runtime.hpp"

namespace blacs_dyn {

namespace {
std::atomic<std::thread::id> g_holder{};
std::optional<BackgroundExpansion> g_held;
}  // namespace

void take_background() {
  BackgroundExpansion bg = Runtime::get().begin_background();
  g_held.emplace(std::move(bg));
  g_holder.store(std::this_thread::get_id());
}

void give_back_background() {
  if (g_holder.load() != std::this_thread::get_id() || !g_held) return;
  g_holder.store(std::thread::id());
  BackgroundExpansion bg = std::move(*g_held);
  g_held.reset();
  Runtime::get().end_background(std::move(bg));
}

BackgroundExpansion* calling_thread_background() {
  return g_holder.load() == std::this_thread::get_id() && g_held ? &*g_held : nullptr;
}

}  // namespace blacs_dyn
