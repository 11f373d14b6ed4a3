// SPDX-License-Identifier: BSD-3-Clause
// RESIZE_FAULT: the session's test-only fault injection (fault.hpp); empty in a build
// without MALL_TEST_HOOKS (fault.hpp's inline no-ops stand in).
#include "common/fault.hpp"
#ifdef MALL_TEST_HOOKS
#include "common/config.hpp"

#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace resize::detail::fault {

namespace {
std::string_view name_of(Point p) {
  switch (p) {
    case Point::PauseInRedistribution: return "pause-in-redistribution";
    case Point::KillNewcomer: return "kill-newcomer";
    case Point::StallNewcomer: return "stall-newcomer";
    case Point::HoldBackground: return "hold-background";
    case Point::KillNewcomerBackground: return "kill-newcomer-background";
    case Point::NoMemoryInMove: return "no-memory-in-move";
    case Point::GenerationUnreachable: return "generation-unreachable";
  }
  return {};
}
}  // namespace

std::optional<int> parse(std::string_view value, Point p) {
  const std::string_view name = name_of(p);
  if (value == name) return p == Point::PauseInRedistribution ? 10 : 0;
  const bool takes_argument = p == Point::PauseInRedistribution || p == Point::NoMemoryInMove;
  if (!takes_argument || value.substr(0, name.size()) != name || value.size() <= name.size() ||
      value[name.size()] != ':')
    return std::nullopt;
  return std::atoi(std::string(value.substr(name.size() + 1)).c_str());
}

std::optional<int> armed(const config::Text& fault, Point p) { return fault ? parse(*fault, p) : std::nullopt; }

std::string release_file(std::string_view value) {
  const auto colon = value.rfind(':');
  if (colon == std::string_view::npos || colon + 1 >= value.size() || value[colon + 1] != '/') return {};
  return std::string(value.substr(colon + 1));
}

namespace {
// S seconds, or until `release` exists (S at most).
void hold(int seconds, const std::string& release) {
  if (seconds <= 0) return;
  if (release.empty()) {
    ::sleep(static_cast<unsigned>(seconds));
    return;
  }
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (::access(release.c_str(), F_OK) != 0 && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

std::string until_text(const std::string& release) { return release.empty() ? "" : " until " + release + " exists"; }
}  // namespace

void pause_in_iteration(const config::Text& v, int iteration, bool world_rank0, std::string_view app) {
  int k = 0, s = 0;
  if (!v || std::sscanf(v->c_str(), "pause-in-iteration:%d:%d", &k, &s) != 2 || k != iteration) return;
  const std::string release = release_file(*v);
  if (world_rank0) {
    std::fprintf(stderr, "%.*s: fault injection - every process pauses %d s in iteration %d%s\n",
                 static_cast<int>(app.size()), app.data(), s, k, until_text(release).c_str());
    std::fflush(stderr);
  }
  hold(s, release);
}

void inject(const config::Text& fault, Point p, bool here, int world_rank, std::string_view what) {
  const auto arg = armed(fault, p);
  if (!arg || !here) return;
  switch (p) {
    case Point::PauseInRedistribution:
      if (world_rank == 0) {
        std::fprintf(stderr, "resize: fault injection - every process pauses %d s %.*s%s\n", *arg,
                     static_cast<int>(what.size()), what.data(), until_text(release_file(*fault)).c_str());
        std::fflush(stderr);
      }
      hold(*arg, release_file(*fault));
      return;
    case Point::StallNewcomer:
      std::fprintf(stderr, "resize: fault injection - newcomer (pid %d) stalls %.*s\n", getpid(), static_cast<int>(what.size()),
                   what.data());
      std::fflush(stderr);
      for (;;) pause();
    case Point::KillNewcomer:
    case Point::KillNewcomerBackground:
      std::fprintf(stderr, "resize: fault injection - newcomer (pid %d) kills itself %.*s\n", getpid(),
                   static_cast<int>(what.size()), what.data());
      std::fflush(stderr);
      raise(SIGKILL);
      return;
    case Point::HoldBackground:
    case Point::NoMemoryInMove:
    case Point::GenerationUnreachable:
      return;  // conditions their code asks with armed(), not actions
  }
}

std::size_t staged_elements(const config::Text& fault, std::size_t k, int world_rank, std::size_t elements) {
  const std::optional<int> no_memory = armed(fault, Point::NoMemoryInMove);
  const bool faulted = no_memory && *no_memory == static_cast<int>(k) && world_rank == 1;
  return faulted ? std::size_t{1} << 62 : elements;
}

}  // namespace resize::detail::fault
#endif  // MALL_TEST_HOOKS
