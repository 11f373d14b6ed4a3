// SPDX-License-Identifier: BSD-3-Clause
// C++ interface to blacs-dyn: exceptions instead of codes, a facade over the current
// world, and a BLACS grid that owns its context (RAII, like Elemental's Grid).
#ifndef BLACS_DYN_BLACS_DYN_HPP
#define BLACS_DYN_BLACS_DYN_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "malleable/blacs_dyn/blacs_dyn.h"
#include "malleable/blacs_dyn/error.hpp"

extern "C" {
void Cblacs_get(int icontxt, int what, int* val);
void Cblacs_gridinit(int* icontxt, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int icontxt, int* nprow, int* npcol, int* myprow, int* mypcol);
void Cblacs_gridexit(int icontxt);
void Cblacs_gridmap(int* icontxt, int* usermap, int ldumap, int nprow, int npcol);
int Csys2blacs_handle(MPI_Comm comm);
void Cfree_blacs_system_handle(int bhandle);
}

namespace blacs_dyn {

// The error the C call raised, again: its code (the status) and its message
// (blacs_dyn_last_error()) as blacs-dyn raised them.
inline void check(int rc) {
  if (rc != BLACS_DYN_OK) throw Error(rc, blacs_dyn_last_error());
}

// "<status>: <message>", how a refused change is told in one line (a resize's record),
// except an MPI that cannot spawn, whose message names itself ("spawn not supported by
// this MPI (MPICH 4.0.2): ...").
inline std::string describe(const Error& e) {
  if (e.code() == BLACS_DYN_ERR_UNSUPPORTED) return e.what();
  return std::string(blacs_dyn_status_string(e.code())) + ": " + e.what();
}

// The current world and the collective operations on it. All members of the world
// must call the collective ones (expand*, shrink*, share).
class World {
 public:
  static MPI_Comm comm() { return blacs_dyn_world(); }
  static int rank() { return blacs_dyn_rank(); }
  static int size() { return blacs_dyn_size(); }
  static int depth() { return blacs_dyn_depth(); }
  static int joined_level() { return blacs_dyn_joined_level(); }
  static bool is_new() { return blacs_dyn_is_new() != 0; }
  static void clear_new() { blacs_dyn_clear_new(); }
  static int level_size(int level) {
    int n = 0;
    check(blacs_dyn_level_size(level, &n));
    return n;
  }

  static void expand(int nnew, const std::string& command,
                     const std::vector<std::string>& args = {}, const std::string& hosts = {},
                     MPI_Info info = MPI_INFO_NULL) {
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    check(blacs_dyn_expand(nnew, command.c_str(), argv.data(), hosts.empty() ? nullptr : hosts.c_str(),
                      info));
  }
  // One spawn group per host, spawned at the same time (blacs_dyn_expand_hosts).
  static void expand_hosts(const std::vector<std::pair<std::string, int>>& hosts_and_counts,
                           const std::string& command, const std::vector<std::string>& args = {},
                           MPI_Info info = MPI_INFO_NULL) {
    std::vector<const char*> hosts;
    std::vector<int> counts;
    for (const auto& [h, c] : hosts_and_counts) {
      hosts.push_back(h.c_str());
      counts.push_back(c);
    }
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    check(blacs_dyn_expand_hosts(static_cast<int>(hosts.size()), hosts.data(), counts.data(),
                                 command.c_str(), argv.data(), info));
  }
  // Collective: the node of every rank.
  static std::vector<std::string> hosts() {
    constexpr int stride = MPI_MAX_PROCESSOR_NAME;
    std::vector<char> buf(static_cast<std::size_t>(size()) * stride);
    check(blacs_dyn_hosts(buf.data(), stride));
    std::vector<std::string> out;
    for (int r = 0; r < size(); ++r) out.emplace_back(buf.data() + static_cast<std::size_t>(r) * stride);
    return out;
  }
  // Gives whole nodes back; true on processes that leave (they must call leave()).
  static bool release_hosts(const std::vector<std::string>& hosts) {
    std::vector<const char*> h;
    for (const auto& s : hosts) h.push_back(s.c_str());
    int leaving = 0;
    check(blacs_dyn_release_hosts(static_cast<int>(h.size()), h.data(), &leaving));
    return leaving != 0;
  }
  // False once this job is known not to spawn (a spawn failed the way an MPI without
  // dynamic processes fails, or BLACS_DYN_SPAWN=off), with the reason; the same on every
  // rank. Expansions are refused up front then (docs/guide/mpi-flavours.md).
  static bool spawn_supported() { return blacs_dyn_spawn_supported() != 0; }
  static std::string spawn_unsupported_reason() { return blacs_dyn_spawn_unsupported_reason(); }
  // Open MPI's selected point-to-point layer ("ucx", "ob1", "cm"; "" under another MPI or
  // where it cannot be found). Local; after MPI_Init.
  static std::string selected_pml() {
    char name[64] = "";
    check(blacs_dyn_selected_pml(name, sizeof name));
    return name;
  }
  // Growing by joining (docs/guide/joining.md). Collective: whether this job can.
  static bool join_supported() { return blacs_dyn_join_supported() != 0; }
  static std::string join_unsupported_reason() { return blacs_dyn_join_unsupported_reason(); }
  // Whether the job's launcher starts the launches the job orders (expand_join_hosts can
  // be used). Local; exact on world rank 0.
  static bool join_can_order() { return blacs_dyn_join_can_order() != 0; }
  // A launch waiting to join (world rank 0's view, no communication).
  struct WaitingLaunch {
    std::string id, host;
    int procs = 0;
  };
  static std::vector<WaitingLaunch> join_waiting() {
    int n = 0, procs = 0;
    check(blacs_dyn_join_waiting(&n, &procs));
    std::vector<WaitingLaunch> out;
    for (int i = 0; i < n; ++i) {
      char id[80] = "", host[MPI_MAX_PROCESSOR_NAME] = "";
      int p = 0;
      check(blacs_dyn_join_waiting_launch(i, id, sizeof id, host, sizeof host, &p));
      out.push_back({id, host, p});
    }
    return out;
  }
  // Collective: the named launches join (all or nothing), waiting at most wait_seconds
  // (<= 0: the join timeout); with no names, every launch ready now.
  static void expand_join(const std::vector<std::string>& launches, double wait_seconds = 0) {
    std::vector<const char*> ids;
    for (const auto& l : launches) ids.push_back(l.c_str());
    check(launches.empty() ? blacs_dyn_expand_join(0, nullptr, wait_seconds)
                           : blacs_dyn_expand_join(static_cast<int>(ids.size()), ids.data(), wait_seconds));
  }
  // Collective: one launch per (host, count) ordered from the job's launcher, joined.
  static void expand_join_hosts(const std::vector<std::pair<std::string, int>>& hosts_and_counts,
                                double wait_seconds = 0) {
    std::vector<const char*> hosts;
    std::vector<int> counts;
    for (const auto& [h, c] : hosts_and_counts) {
      hosts.push_back(h.c_str());
      counts.push_back(c);
    }
    check(blacs_dyn_expand_join_hosts(static_cast<int>(hosts.size()), hosts.data(), counts.data(), wait_seconds));
  }
  // This process's launch if it joined one ("" otherwise).
  static std::string launch_id() {
    char id[80] = "";
    check(blacs_dyn_launch_id(id, sizeof id));
    return id;
  }
  static void expand_schema(const std::string& path = {}) {
    check(blacs_dyn_expand_schema(path.empty() ? nullptr : path.c_str()));
  }

  // True on processes that are not in the new world: they must call leave().
  static bool shrink_to_level(int level) {
    int leaving = 0;
    check(blacs_dyn_shrink_to_level(level, &leaving));
    return leaving != 0;
  }
  static bool shrink_to_ranks(std::span<const int> keep) {
    int leaving = 0;
    check(blacs_dyn_shrink_to_ranks(keep.data(), static_cast<int>(keep.size()), &leaving));
    return leaving != 0;
  }
  // A respawn's last step (blacs_dyn_retire): the last expansion's processes replace the
  // world; true on every other process (it must call leave()).
  static bool retire() {
    int leaving = 0;
    check(blacs_dyn_retire(&leaving));
    return leaving != 0;
  }
  // The spawn group (launch) of every rank of the current world: ranks of one group share
  // an MPI_COMM_WORLD (and Open MPI's shared memory). Local.
  static std::vector<int> rank_groups() {
    std::vector<int> g(static_cast<std::size_t>(std::max(1, size())), 0);
    check(blacs_dyn_rank_groups(g.data(), static_cast<int>(g.size())));
    return g;
  }
  [[noreturn]] static void leave() {
    blacs_dyn_leave();
    throw Error(BLACS_DYN_ERR_STATE, blacs_dyn_last_error());
  }

  // Rank 0's value reaches every member (the join protocol's hand-over).
  template <class T>
    requires std::is_trivially_copyable_v<T>
  static void share(T& value) {
    std::size_t len = sizeof(T);
    check(blacs_dyn_share_state(&value, &len, sizeof(T)));
  }
  // Background expansions (blacs_dyn_background_thread): the calling thread's expansions
  // stay pending, seen by it alone, until the main thread publishes them (true if one was
  // pending).
  static void background_thread(bool on) { check(blacs_dyn_background_thread(on ? 1 : 0)); }
  static bool publish_background() {
    int published = 0;
    check(blacs_dyn_publish_background(&published));
    return published != 0;
  }
  // `fn(user)` at the start of MPI_Finalize (nullptr: none; one hook).
  static void set_finalize_hook(void (*fn)(void*), void* user) { check(blacs_dyn_set_finalize_hook(fn, user)); }

  // Rank 0's bytes reach every member, whatever their length (std::byte, char, ...): the
  // length first, then the bytes.
  template <class B>
    requires(sizeof(B) == 1 && std::is_trivially_copyable_v<B>)
  static void share(std::vector<B>& bytes) {
    std::uint64_t n = bytes.size();
    share(n);
    bytes.resize(static_cast<std::size_t>(n));
    std::size_t len = bytes.size();
    check(blacs_dyn_share_state(bytes.data(), &len, bytes.size()));
  }
};

// Runs `fn` on every member of the old world inside each shrink, before anybody leaves
// (the place to move data off leaving processes); restores the previous hook on
// destruction. A throwing or false-returning fn cancels the shrink.
class ShrinkHook {
 public:
  using Fn = std::function<bool(MPI_Comm old_world, std::span<const int> new_rank, int new_size)>;
  explicit ShrinkHook(Fn fn) : fn_(std::move(fn)) { blacs_dyn_set_shrink_hook(&trampoline, this); }
  ~ShrinkHook() { blacs_dyn_set_shrink_hook(nullptr, nullptr); }
  ShrinkHook(const ShrinkHook&) = delete;
  ShrinkHook& operator=(const ShrinkHook&) = delete;

 private:
  static int trampoline(MPI_Comm old_world, const int* new_rank, int old_size, int new_size,
                        void* user) {
    try {
      auto* self = static_cast<ShrinkHook*>(user);
      return self->fn_(old_world,
                       std::span<const int>(new_rank, static_cast<std::size_t>(old_size)),
                       new_size)
                 ? 0
                 : 1;
    } catch (...) {
      return 1;
    }
  }
  Fn fn_;
};

// A BLACS grid that owns its context (released with blacs_gridexit when the Grid goes
// away). Two ways to make one, both collective over the communicator's processes:
//   Grid(nprow, npcol, order): on the current world, ranks in row ('R') or column ('C')
//     order (blacs_get(0, 0) + blacs_gridinit);
//   Grid(comm, nprow, npcol, ranks): on any communicator, process (pr, pc) is rank
//     ranks[pr * npcol + pc] of `comm` (Csys2blacs_handle + blacs_gridmap over that map).
// Processes outside the grid get in_grid() == false and context() == -1. The release is
// safe late: a Grid destroyed after MPI_Finalize, or after blacs_exit freed every context
// (whose number a later grid may then reuse), calls nothing in BLACS or MPI.
class Grid {
 public:
  // No grid: context() -1, in_grid() false (a place to move a grid into).
  Grid() = default;
  Grid(int nprow, int npcol, char order = 'R') {
    if (nprow < 1 || npcol < 1 || nprow * npcol > World::size())
      throw Error(BLACS_DYN_ERR_ARG, "grid " + std::to_string(nprow) + " x " + std::to_string(npcol) +
                                    " does not fit the world of " + std::to_string(World::size()));
    const char ord[2] = {order, '\0'};
    const bool by_column = order == 'C' || order == 'c';
    ranks_.resize(static_cast<std::size_t>(nprow) * static_cast<std::size_t>(npcol));
    for (int i = 0; i < nprow; ++i)
      for (int j = 0; j < npcol; ++j) ranks_[static_cast<std::size_t>(i * npcol + j)] = by_column ? j * nprow + i : i * npcol + j;
    exits_ = blacs_dyn_blacs_exits();
    Cblacs_get(0, 0, &ctxt_);
    Cblacs_gridinit(&ctxt_, ord, nprow, npcol);
    Cblacs_gridinfo(ctxt_, &nprow_, &npcol_, &myrow_, &mycol_);
    nprow_ = nprow;
    npcol_ = npcol;
    if (myrow_ < 0 || myrow_ >= nprow) ctxt_ = myrow_ = mycol_ = -1;
  }
  // Every process of `comm` calls it with the same arguments. `ranks` holds nprow * npcol
  // distinct ranks of `comm` (row-major); anything else throws Error(BLACS_DYN_ERR_ARG)
  // before BLACS is called. O(size of comm) time and memory.
  Grid(MPI_Comm comm, int nprow, int npcol, std::span<const int> ranks) {
    int size = 0;
    MPI_Comm_size(comm, &size);
    check_map(size, nprow, npcol, ranks);
    ranks_.assign(ranks.begin(), ranks.end());
    // BLACS' usermap is column-major with leading dimension nprow: usermap[i + j * nprow].
    std::vector<int> usermap(ranks_.size());
    for (int i = 0; i < nprow; ++i)
      for (int j = 0; j < npcol; ++j)
        usermap[static_cast<std::size_t>(i + j * nprow)] = ranks_[static_cast<std::size_t>(i * npcol + j)];
    exits_ = blacs_dyn_blacs_exits();
    const int sys = Csys2blacs_handle(comm);
    int ctxt = sys;
    Cblacs_gridmap(&ctxt, usermap.data(), nprow, nprow, npcol);
    // The grid has communicators of its own now; the system handle is not needed any more
    // (one handle per communicator is shared by every grid made from it).
    Cfree_blacs_system_handle(sys);
    nprow_ = nprow;
    npcol_ = npcol;
    int nr = 0, nc = 0;
    Cblacs_gridinfo(ctxt, &nr, &nc, &myrow_, &mycol_);
    if (myrow_ < 0 || myrow_ >= nprow) {
      myrow_ = mycol_ = -1;
    } else {
      ctxt_ = ctxt;
    }
  }
  // The most square grid over the whole world.
  static Grid square() {
    const int np = World::size();
    int p = 1;
    for (int d = 1; d * d <= np; ++d)
      if (np % d == 0) p = d;
    return Grid(p, np / p);
  }
  ~Grid() { release(); }
  Grid(Grid&& o) noexcept { *this = std::move(o); }
  Grid& operator=(Grid&& o) noexcept {
    if (this != &o) {
      release();
      ctxt_ = std::exchange(o.ctxt_, -1);
      nprow_ = o.nprow_;
      npcol_ = o.npcol_;
      myrow_ = std::exchange(o.myrow_, -1);
      mycol_ = std::exchange(o.mycol_, -1);
      exits_ = o.exits_;
      ranks_ = std::move(o.ranks_);
    }
    return *this;
  }
  Grid(const Grid&) = delete;
  Grid& operator=(const Grid&) = delete;

  int context() const { return ctxt_; }
  int nprow() const { return nprow_; }
  int npcol() const { return npcol_; }
  int myrow() const { return myrow_; }
  int mycol() const { return mycol_; }
  bool in_grid() const { return ctxt_ >= 0 && myrow_ >= 0 && myrow_ < nprow_; }
  // The rank (of the communicator the grid was made on) at (pr, pc) is
  // ranks()[pr * npcol() + pc]; empty for a default-constructed Grid.
  const std::vector<int>& ranks() const { return ranks_; }

  // Exits the context now (blacs_gridexit) unless MPI is finalized or blacs_exit has run
  // since the grid was made (the context is gone then); afterwards context() is -1 and
  // in_grid() false, the shape and ranks() stay. Not collective. Safe to call twice.
  void release() noexcept {
    if (ctxt_ >= 0 && context_alive()) Cblacs_gridexit(ctxt_);
    ctxt_ = myrow_ = mycol_ = -1;
  }

 private:
  bool context_alive() const noexcept {
    int finalized = 0;
    MPI_Finalized(&finalized);
    return !finalized && blacs_dyn_blacs_exits() == exits_ && blacs_dyn_context_live(ctxt_) != 0;
  }
  static void check_map(int comm_size, int nprow, int npcol, std::span<const int> ranks) {
    const auto bad = [&](const std::string& why) {
      return Error(BLACS_DYN_ERR_ARG, "grid " + std::to_string(nprow) + " x " + std::to_string(npcol) + ": " + why);
    };
    if (nprow < 1 || npcol < 1 || static_cast<long long>(nprow) * npcol > comm_size)
      throw bad("does not fit a communicator of " + std::to_string(comm_size));
    if (ranks.size() != static_cast<std::size_t>(nprow) * static_cast<std::size_t>(npcol))
      throw bad("the rank map has " + std::to_string(ranks.size()) + " entries");
    std::vector<bool> seen(static_cast<std::size_t>(comm_size), false);
    for (const int r : ranks) {
      if (r < 0 || r >= comm_size || seen[static_cast<std::size_t>(r)])
        throw bad("rank " + std::to_string(r) + " in the map is " + (r < 0 || r >= comm_size ? "outside the communicator of " + std::to_string(comm_size) : std::string("there twice")));
      seen[static_cast<std::size_t>(r)] = true;
    }
  }
  int ctxt_ = -1, nprow_ = 0, npcol_ = 0, myrow_ = -1, mycol_ = -1;
  int exits_ = 0;  // blacs_dyn_blacs_exits() when the context was made
  std::vector<int> ranks_;
};

}  // namespace blacs_dyn
#endif
