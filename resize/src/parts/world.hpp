// SPDX-License-Identifier: BSD-3-Clause
// The session's view of the process world, through blacs-dyn: grow by MPI_Comm_spawn,
// shrink through its communicator stack, hand state to newcomers. Internal to the MPI
// shell; the only file that calls blacs-dyn.
#pragma once

#include <mpi.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace resize::detail {

struct World {
  static std::string backend();
  static MPI_Comm comm();
  static bool is_new();
  static void clear_new();
  // Each returns 0 on success, else sets `err` (same result on every rank).
  static int expand(int nnew, const std::string& command, const std::vector<std::string>& args,
                    std::string& err);
  static int expand_schema(const std::string& path, std::string& err);
  // False, with the reason, when the job is known not to spawn (blacs_dyn_spawn_supported).
  static bool spawn_supported(std::string& why);
  // One spawn group per host, spawned at the same time (blacs_dyn_expand_hosts).
  // Open MPI's "env" key (newline-separated assignments) for the spawns of expand and
  // expand_hosts until set again ("": none); a respawn's (parts/respawn.cpp).
  static void set_spawn_env(const std::string& env);
  static int expand_hosts(const std::vector<std::pair<std::string, int>>& hosts,
                          const std::string& command, const std::vector<std::string>& args,
                          std::string& err);
  // Growing by joining (docs/guide/joining.md). World rank 0's view (local): whether the
  // job's launcher starts the launches the job orders, and the launches waiting to join
  // now (id, host, processes).
  static bool join_orders();
  struct Waiting {
    std::string launch, host;
    int procs = 0;
  };
  static std::vector<Waiting> join_waiting();
  // Collective: one launch per (host, count) ordered from the job's launcher, joined; or
  // the launches named (waiting ones). Same result on every rank.
  static int expand_join(const std::vector<std::pair<std::string, int>>& hosts, std::string& err);
  static int expand_join_launches(const std::vector<std::string>& launches, std::string& err);
  // Processes the expansions above spawned into this process's world since it started
  // (counted from the world's size before and after each one, whichever thread spawned).
  // Open MPI keeps state for each of them for this process's life: the refresh
  // (RESIZE_REFRESH_AFTER, checkpoint/refresh.hpp) counts them. A newcomer starts at 0.
  static int spawned();
  // Collective: the node of every rank of the current world (and, kept for
  // known_pids(), every rank's pid).
  static std::vector<std::string> hosts();
  // The last hosts() answer and the pids gathered with it (empty before the first call).
  static const std::vector<std::string>& known_hosts();
  static const std::vector<int>& known_pids();
  // Shrink to the world ranks in `keep` (in that order). `release` empty: back down the
  // stack when `keep` is exactly a lower level's processes, else a new
  // level of `keep`, whichever live processes they are. `release` given: give those nodes back whole
  // (blacs_dyn_release_hosts), which must leave exactly `keep`. `move` runs on every
  // member of the old world once the request is validated and before anybody leaves (the
  // redistribution); returning false cancels the shrink. A refused shrink changes nothing.
  static int shrink(const std::vector<int>& keep, const std::vector<std::string>& release,
                    const std::function<bool()>& move, bool& leaving, std::string& err);
  [[noreturn]] static void leave();
  // A respawn's last step (blacs_dyn_retire): the last expansion's processes replace the
  // world; `leaving` true on every other process (it must leave()). 0 or the error (the
  // same on every rank).
  static int retire(bool& leaving, std::string& err);
  // The launch (spawn group) of every rank of the current world: ranks of one launch
  // share Open MPI's shared memory. Local.
  static std::vector<int> rank_launches();
  // Background resizes: the calling thread expands in the background (blacs_dyn_background_thread):
  // its expansion stays pending, seen by it alone, until the main thread publishes it.
  static void background_thread(bool on);
  // Main thread: the pending world becomes the world (BLACS included); false if none.
  static bool publish_background();
  // `fn(user)` at the start of MPI_Finalize (nullptr: none).
  static void at_finalize(void (*fn)(void*), void* user);
  // World rank 0's bytes to every rank of the current world (newcomers included).
  static int share_state(std::vector<char>& bytes, std::string& err);
};

}  // namespace resize::detail
