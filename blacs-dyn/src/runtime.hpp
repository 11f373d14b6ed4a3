// SPDX-License-Identifier: BSD-3-Clause
// The MPI execution layer of blacs-dyn: one Runtime per process holds the level stack
// (pure bookkeeping, level_stack.hpp), one communicator per level and the spawn links,
// and carries out expansions, shrinks, parking and the final release. Everything here
// touches MPI; the decisions come from LevelStack.
#ifndef BLACS_DYN_RUNTIME_HPP
#define BLACS_DYN_RUNTIME_HPP

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "malleable/blacs_dyn/blacs_dyn.h"
#include "level_stack.hpp"
#include "malleable_internal/watchdog.hpp"

namespace blacs_dyn {
namespace detail {
class PhaseTrace;
}
using malleable::watchdog::PhaseWatchdog;
using malleable::watchdog::WatchdogScope;
using malleable::watchdog::host_name;
// The line blacs-dyn's watchdog prints when a phase's deadline passes.
std::string watchdog_report(const PhaseWatchdog::Status& s);

// One spawn group of an expansion: `count` processes on `host` ("" = where the launcher
// puts them, or as the request's `hosts` list says).
struct GroupRequest {
  std::string host;
  int count = 0;
};

struct SpawnRequest {
  std::string command;
  std::vector<std::string> args;
  int nnew = 0;
  std::string hosts;  // comma-separated, may be empty (one group spread over them)
  std::string wdir;   // may be empty
  MPI_Info info = MPI_INFO_NULL;
  // Several groups, spawned at the same time by different ranks (one per node, so each
  // node's processes can later leave together); empty = one group of `nnew`.
  std::vector<GroupRequest> groups;
  // An argument error the API layer found on this rank: the expansion fails on every
  // rank with it (nothing is spawned).
  std::string invalid;
  bool per_host = false;  // set internally: one group of a per-host expansion
};

class Runtime {
 public:
  static Runtime& get();

  // Initialises MPI if nobody did (as the stock blacs_pinfo does) and, in a process
  // spawned by an expansion, joins the merge. Idempotent.
  void ensure_init();
  bool active() const { return departure_ == Departure::Stay && !finalized_; }

  MPI_Comm world() const;  // the current world (MPI_COMM_WORLD until the first change)
  int rank() const;
  int size() const;
  const LevelStack& stack() const { return *stack_; }
  ProcId me() const { return me_; }
  bool is_new() const { return is_new_; }
  void clear_new() { is_new_ = false; }
  Departure departure() const { return departure_; }

  // Collective over the current world; root-significant arguments as MPI_Comm_spawn.
  void expand(const SpawnRequest& req);
  // Returns false if `missing_ok` and the schema file does not exist (nothing done).
  bool expand_schema(const char* path, bool missing_ok);
  // Return true on processes that leave (they must call leave()).
  bool shrink_to_level(int level);
  bool shrink_to_ranks(std::span<const int> keep);
  // `invalid`: an argument error found on this rank, reported on every rank.
  bool release_hosts(const std::vector<std::string>& hosts, const std::string& invalid = {});
  // Collective: the node of every rank of the current world (MPI_Get_processor_name),
  // also recorded in the stack.
  std::vector<std::string> gather_hosts();
  [[noreturn]] void leave();
  void share_state(void* buf, std::size_t* len, std::size_t cap);
  void set_shrink_hook(blacs_dyn_shrink_hook hook, void* user) {
    shrink_hook_ = {hook, user};
  }

  // Background expansions: a thread marked as the background thread
  // (set_background_thread(true), one at a time) may expand while the main thread keeps
  // computing on the published world; its expansion is *pending*: that thread (and only
  // it) sees the grown world (world(), rank(), size(), the private dup, the hosts), while
  // everybody else, the BLACS entry points and BLACS's globals keep the old one until the
  // main thread publishes it (publish_background). Nothing the two threads share is
  // written while the background thread runs: the stack is copied under stack_mutex_
  // (note_grid may write it from the main thread), the new level goes to pending_, and
  // blacs_sync_world (which reallocates BLACS's request buffers) waits for publishing.
  void set_background_thread(bool on);
  // Main thread, after the background thread ended: the pending level becomes the world.
  // Returns false if there was none.
  bool publish_background();
  // Called at the start of MPI_Finalize, before anything is released (the resize session
  // cancels a background resize still under way there, so its newcomers do not wait).
  void set_finalize_hook(void (*fn)(void*), void* user) {
    finalize_hook_ = fn;
    finalize_hook_user_ = user;
  }
  void run_finalize_hook() {
    if (auto* f = finalize_hook_) {
      finalize_hook_ = nullptr;
      f(finalize_hook_user_);
    }
  }

  // BLACS glue.
  void note_blacs_exit() { exited_since_change_ = true; }
  bool exited_since_change() const { return exited_since_change_; }
  void note_grid(MPI_Comm comm, int nprow, int npcol);
  // Called from our MPI_Finalize before PMPI_Finalize: releases parked processes and
  // disconnects the spawn links, so the whole job finalizes together.
  void before_finalize();
  // After PMPI_Finalize: the end-of-job watchdog is off (the program may go on without MPI).
  void after_finalize() { dog_.disarm(); }

  // Why this job cannot spawn ("" while it can): BLACS_DYN_SPAWN=off, or the reason of an
  // earlier spawn failure classified as "not supported" (mpi_flavour.hpp). Same on all ranks.
  const std::string& spawn_unsupported_reason();

  // A newcomer, before PMPI_Init: its MPI_Init and join must end within the join timeout
  // (a sibling killed during the spawn leaves the others blocked in MPI_Init for ever).
  void watch_newcomer_init();

 private:
  Runtime() = default;
  void join_as_child(MPI_Comm link, const char* token);
  void require_active(const char* what) const;
  void shrink(const ShrinkPlan& plan);
  void sync_blacs();
  MPI_Comm priv() const;  // private dup of the current world for our own traffic
  MPI_Comm spawn_and_handshake(const SpawnRequest& req, int level);
  void check_expansion(const SpawnRequest& request, const LevelStack& cur, int total);
  void finish_expansion(MPI_Comm w, const LevelStack& cur, const SpawnRequest& req, const std::vector<int>& spawner,
                        std::vector<MPI_Comm>& links, detail::PhaseTrace& trace);
  // Joins the spawned groups to the world one after the other (each spawning parent
  // bridges its group in) and hands every group's spawn link over to rank 0.
  MPI_Comm merge_groups(MPI_Comm world, const std::vector<int>& spawner, int my_group,
                        std::vector<MPI_Comm>& links, const std::vector<int>& first_rank);
  void share_request(SpawnRequest& req, MPI_Comm w) const;
  void record_hosts(const std::vector<std::string>& by_rank);
  void free_all_comms();
  [[noreturn]] void exit_process();
  [[noreturn]] void park();

  struct LevelComms {
    MPI_Comm world = MPI_COMM_NULL;  // what BLACS sees as the world
    bool owned = false;               // false for MPI_COMM_WORLD
    MPI_Comm priv = MPI_COMM_NULL;    // dup for the library's own messages
  };
  // An expansion made by the background thread, not yet published.
  struct Pending {
    LevelComms lc;
    LevelStack stack;
    std::map<int, MPI_Comm> links;
  };
  bool sees_pending() const;  // this thread is the background thread and a level is pending
  LevelStack& view_stack() { return sees_pending() ? pending_->stack : *stack_; }
  const LevelComms& top() const { return sees_pending() ? pending_->lc : comms_.back(); }
  std::optional<Pending> pending_;
  std::atomic<bool> background_running_{false};
  mutable std::mutex stack_mutex_;
  void (*finalize_hook_)(void*) = nullptr;
  void* finalize_hook_user_ = nullptr;

  bool initialized_ = false;
  bool finalized_ = false;
  bool dynamic_ = false;  // an expansion or shrink happened, or this process was spawned
  bool blacs_interposed_ = false;
  std::string spawn_unsupported_;
  std::optional<LevelStack> stack_;
  std::vector<LevelComms> comms_;
  ProcId me_ = -1;
  MPI_Comm link_ = MPI_COMM_NULL;         // spawned process: intercomm with the spawning root
  std::map<int, MPI_Comm> group_links_;   // rank 0: spawn group (level) -> intercomm
  bool is_new_ = false;
  bool exited_since_change_ = false;
  Departure departure_ = Departure::Stay;
  // The application's shrink hook and its argument (blacs_dyn_set_shrink_hook).
  struct ShrinkHook {
    blacs_dyn_shrink_hook fn = nullptr;
    void* user = nullptr;
  } shrink_hook_;
  PhaseWatchdog dog_{watchdog_report};

 public:
  std::string who() const;  // "world rank 3 (process 3)" (or the newcomer's name before it joined)
  // "world rank 3 (process 3) on host vm, in phase '...'": where an MPI error happened.
  std::string where() const;
};

// The message of the last failed call on this thread.
void set_last_error(const std::string& msg);
const std::string& last_error();
double join_timeout_seconds();
// Called just before PMPI_Init*: selects PMIx's "hash" data store for this process (see
// runtime.cpp) unless the user chose one.
void prepare_mpi_init();

}  // namespace blacs_dyn
#endif
