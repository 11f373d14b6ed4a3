// SPDX-License-Identifier: BSD-3-Clause
// The MPI execution layer of blacs-dyn: one Runtime per process holds the level stack
// (pure bookkeeping, level_stack.hpp), one communicator per level and the spawn links,
// and carries out expansions and the final release; the state hand-over, shrinks, the
// respawn's last step and a process's departure are types of their own (handover.hpp,
// shrink.hpp, retire.hpp, leave.hpp). Everything here touches MPI; the decisions come
// from LevelStack.
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
#include "malleable/blacs_dyn/error.hpp"
#include "runtime/join_dir.hpp"
#include "protocol/level_stack.hpp"
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

// A launch the job asks its launcher for (growing by joining): `procs` processes on
// `host` ("" where the launcher runs).
struct JoinOrder {
  std::string host;
  int procs = 0;
};

// One expansion by joining under way (runtime_join.cpp): the world grown so far.
struct JoinGrowing {
  MPI_Comm m = MPI_COMM_NULL;     // the world grown so far: the job's private world, then intermediates
  bool owned = false;             // m is an intermediate of this expansion (freed when replaced)
  MPI_Comm link = MPI_COMM_NULL;  // a process of a launch merged in this expansion: its link with rank 0
  std::string launch;             // ... and its launch
  std::vector<std::pair<join::JoinRequest, MPI_Comm>> merged;  // rank 0: merged launches, their links
  double wait_s = 0;              // rank 0: how long the launches may take to come
  double until = 0;               // rank 0: the end of the last hand-shake this expansion may hold
};

// What a process knows of growing by joining (runtime_join.cpp, runtime_joiner.cpp).
struct JoinSide {
  std::optional<join::JobDir> dir;  // BLACS_DYN_JOB_DIR: the job's directory
  join::JobRecord job;              // the job's record (world rank 0 of the job)
  std::string launch;               // a joined process: its launch's id
  std::string unsupported;          // why this job cannot be joined ("" when it can)
  join::Ticker ticker;              // job's rank 0: its heartbeat; a joined launch's rank 0: its lifeline
  int orders = 0;                   // launches ordered so far (their ids count them)
  std::string secret;               // the job's rank 0, while joining: DIR/secret
  std::vector<join::JoinRequest> waiting;  // rank 0: the launches of the last join_waiting answer
  join::JoinGuard guard;            // rank 0: failed hand-shakes, barred launches and peers, the back-off
  double proof_timeout = 5;         // rank 0, while joining: BLACS_DYN_JOIN_PROOF_TIMEOUT
};

// The communicators of one level of the world.
struct LevelComms {
  MPI_Comm world = MPI_COMM_NULL;  // what BLACS sees as the world
  bool owned = false;               // false for MPI_COMM_WORLD
  MPI_Comm priv = MPI_COMM_NULL;    // dup for the library's own messages
};

// A level a background expansion grew, not yet published.
struct PendingLevel {
  LevelComms lc;
  LevelStack stack;
  std::map<int, MPI_Comm> links;
};

// An expansion a background thread runs while the main thread keeps computing on the
// published world (docs/reference/blacs-dyn.md, "Expanding from a background thread").
// Runtime::begin_background makes it (one at a time); the thread that runs it passes it
// to every call whose answer is the grown world's (world, rank, size, hosts, rank_groups,
// share_state, the expansion), and those calls answer for its pending level once the
// expansion committed one; Runtime::end_background takes it back and keeps that level
// for publish_background. A call given none (nullptr) answers for the published world.
class BackgroundExpansion {
 public:
  BackgroundExpansion(BackgroundExpansion&&) = default;
  BackgroundExpansion& operator=(BackgroundExpansion&&) = default;
  bool has_pending() const { return pending_.has_value(); }

 private:
  friend class Runtime;
  BackgroundExpansion() = default;
  std::optional<PendingLevel> pending_;
};

class Expand;
class HandOver;
class Join;
class JoiningLaunch;
class Leave;
class Retire;
class Shrink;

// The state of the process's world and the operations' shared steps; the operations that
// own their own state are types of their own, friends that change this state: Expand
// (expand.hpp: expand by spawn), HandOver (handover.hpp: share_state), Shrink (shrink.hpp: to a level, to ranks, off nodes),
// Retire (retire.hpp: the respawn's last step), Leave (leave.hpp: exit or park),
// Join (join.hpp: growing by joining, the job's side), JoiningLaunch (joiner.hpp: a
// joining launch's side, at MPI_Init).
class Runtime {
  friend class Expand;
  friend class HandOver;
  friend class Join;
  friend class JoiningLaunch;
  friend class Leave;
  friend class Retire;
  friend class Shrink;

 public:
  static Runtime& get();

  // Initialises MPI if nobody did (as the stock blacs_pinfo does) and, in a process
  // spawned by an expansion, joins the merge. Idempotent.
  void ensure_init();
  bool active() const { return departure_ == Departure::Stay && !finalized_; }

  // The current world (MPI_COMM_WORLD until the first change); given the background
  // expansion the caller runs, its pending level once it has one.
  MPI_Comm world(const BackgroundExpansion* bg = nullptr) const;
  int rank(const BackgroundExpansion* bg = nullptr) const;
  int size(const BackgroundExpansion* bg = nullptr) const;
  const LevelStack& stack() const { return *stack_; }
  ProcId me() const { return me_; }
  bool is_new() const { return is_new_; }
  void clear_new() { is_new_ = false; }
  Departure departure() const { return departure_; }

  // Collective: the node of every rank of the current world (MPI_Get_processor_name),
  // also recorded in the stack.
  std::vector<std::string> gather_hosts(BackgroundExpansion* bg = nullptr);
  // The spawn group of every rank of the current world (processes of one group share an
  // MPI_COMM_WORLD: one launch). Local.
  std::vector<int> rank_groups(const BackgroundExpansion* bg = nullptr) const;
  void set_shrink_hook(blacs_dyn_shrink_hook hook, void* user) {
    shrink_hook_ = {hook, user};
  }

  // Background expansions (BackgroundExpansion above): the thread that will expand while
  // the main thread keeps computing on the published world takes one (one at a time) and
  // passes it to its calls; its expansion is *pending*: the calls given it (and only
  // those) see the grown world (world(), rank(), size(), the private dup, the hosts), while
  // every other call, the BLACS entry points and BLACS's globals keep the old one until the
  // main thread publishes it (publish_background). Nothing the two threads share is
  // written while the background thread runs: the stack is copied under stack_mutex_
  // (note_grid may write it from the main thread), the new level goes to the
  // BackgroundExpansion, and blacs_sync_world (which reallocates BLACS's request buffers)
  // waits for publishing.
  BackgroundExpansion begin_background();
  // The background thread, done: its pending level (if any) waits for publish_background.
  void end_background(BackgroundExpansion bg);
  // Main thread, after the background thread ended: the pending level becomes the world.
  // Returns false if there was none.
  bool publish_background();
  // Called at the start of MPI_Finalize, before anything is released (the resize session
  // cancels a background resize still under way there, so its newcomers do not wait).
  void set_finalize_hook(void (*fn)(void*), void* user) {
    finalize_hook_.fn = fn;
    finalize_hook_.user = user;
  }
  void run_finalize_hook() {
    if (auto* f = finalize_hook_.fn) {
      finalize_hook_.fn = nullptr;
      f(finalize_hook_.user);
    }
  }

  // Growing by joining (Join, join.hpp). The launches of the last join_waiting answer.
  const std::vector<join::JoinRequest>& waiting() const { return join_.waiting; }
  // Why this job cannot grow by joining ("" when it can): no job directory, an MPI
  // without ports, ... The same on every rank once a collective join call ran.
  const std::string& join_unsupported_reason() const { return join_.unsupported; }
  // This process's launch if it joined one ("" otherwise).
  const std::string& launch() const { return join_.launch; }

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
  void install_newcomer(MPI_Comm merged, int level, MPI_Comm link);
  // The grown world installed (or left pending for the main thread): the last step of
  // every expansion, spawned or joined.
  void commit_level(MPI_Comm merged, LevelStack next, std::map<int, MPI_Comm> new_links, detail::PhaseTrace& trace,
                    BackgroundExpansion* bg);
  // `bg`: the background expansion the caller runs (it may change the world meanwhile).
  void require_active(const char* what, const BackgroundExpansion* bg = nullptr) const;
  // Private dup of the current world (`bg`'s pending one) for our own traffic.
  MPI_Comm priv(const BackgroundExpansion* bg = nullptr) const;
  // Into the stack `bg` sees (its pending one, else the published one).
  void record_hosts(const std::vector<std::string>& by_rank, BackgroundExpansion* bg = nullptr);
  void free_all_comms();

  static void free_level(LevelComms& c);
  // The level `bg` sees: its pending one if it has one, else the published top.
  const LevelComms& top(const BackgroundExpansion* bg) const {
    return bg && bg->pending_ ? bg->pending_->lc : comms_.back();
  }
  // A level grown in the background, handed back by end_background, not yet published.
  std::optional<PendingLevel> pending_;
  std::atomic<bool> background_running_{false};
  mutable std::mutex stack_mutex_;
  struct FinalizeHook {
    void (*fn)(void*) = nullptr;
    void* user = nullptr;
  } finalize_hook_;

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
  JoinSide join_;

 public:
  std::string who() const;  // "world rank 3 (process 3)" (or the newcomer's name before it joined)
  // "world rank 3 (process 3) on host vm, in phase '...'": where an MPI error happened.
  std::string where() const;
};

// The last failed call's error on this thread, in the one form (its code, part and
// message as raised); null before the first.
void set_last_error(const malleable::Error& e);
const malleable::Error* last_error();
double join_timeout_seconds();
// BLACS_DYN_JOIN_PROOF_TIMEOUT (default 5): the seconds a launch the job connected to has
// to prove itself (its challenges and hellos); a bad value is an Error (BLACS_DYN_ERR_ARG).
double join_proof_timeout_seconds();
// Called just before PMPI_Init*: selects PMIx's "hash" data store for this process (see
// runtime.cpp) unless the user chose one.
void prepare_mpi_init();

}  // namespace blacs_dyn
#endif
