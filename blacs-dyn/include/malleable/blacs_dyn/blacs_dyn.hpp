// SPDX-License-Identifier: BSD-3-Clause
// C++ interface to blacs-dyn: exceptions instead of codes, a facade over the current
// world, and a BLACS grid that owns its context (RAII, like Elemental's Grid).
#ifndef BLACS_DYN_BLACS_DYN_HPP
#define BLACS_DYN_BLACS_DYN_HPP

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
}

namespace blacs_dyn {

inline void check(int rc) {
  if (rc != BLACS_DYN_OK)
    throw Error(rc, std::string(blacs_dyn_status_string(rc)) + ": " + blacs_dyn_last_error());
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
  // Rank 0's bytes reach every member, whatever their length.
  static void share(std::vector<std::byte>& bytes) {
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

// A BLACS grid on the current world (blacs_get(0, 0) + blacs_gridinit); the context is
// released with blacs_gridexit when the Grid goes away. Processes outside the grid get
// in_grid() == false.
class Grid {
 public:
  Grid(int nprow, int npcol, char order = 'R') {
    if (nprow < 1 || npcol < 1 || nprow * npcol > World::size())
      throw Error(BLACS_DYN_ERR_ARG, "grid " + std::to_string(nprow) + " x " + std::to_string(npcol) +
                                    " does not fit the world of " + std::to_string(World::size()));
    const char ord[2] = {order, '\0'};
    Cblacs_get(0, 0, &ctxt_);
    Cblacs_gridinit(&ctxt_, ord, nprow, npcol);
    Cblacs_gridinfo(ctxt_, &nprow_, &npcol_, &myrow_, &mycol_);
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
      myrow_ = o.myrow_;
      mycol_ = o.mycol_;
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

 private:
  void release() noexcept {
    if (in_grid()) Cblacs_gridexit(ctxt_);
    ctxt_ = -1;
  }
  int ctxt_ = -1, nprow_ = 0, npcol_ = 0, myrow_ = -1, mycol_ = -1;
};

}  // namespace blacs_dyn
#endif
