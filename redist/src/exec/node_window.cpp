// SPDX-License-Identifier: BSD-3-Clause
// The shell of the node-shared staging window (node_window.hpp): the window kept on the
// caller's communicator between calls.
#include "node_window.hpp"

#include <algorithm>
#include <vector>

namespace redist::exec {

using detail::check_mpi;

bool node_window_supported() {
#if defined(SMPI_SHARED_MALLOC)
  return false;
#else
  return true;
#endif
}

std::int64_t window_need(const RedistPlan& p, int me, const std::vector<int>& node, std::size_t esize) {
  std::int64_t most = 0;
  for (const auto& step : p.steps) {
    std::int64_t bytes = 0;
    for (int k : step) {
      const Transfer& t = p.transfers[static_cast<std::size_t>(k)];
      if (t.src == me && t.dst != me && std::binary_search(node.begin(), node.end(), t.dst))
        bytes += t.elements() * static_cast<std::int64_t>(esize);
    }
    most = std::max(most, bytes);
  }
  return most;
}

// What a communicator keeps: the node's communicator (a group of the caller's) and the
// window with this rank's view of every segment.
struct WindowCache {
  MPI_Comm ncomm = MPI_COMM_NULL;
  MPI_Win win = MPI_WIN_NULL;
  std::int64_t seg = 0;
  std::vector<char*> base;  // per rank of the node, in node order
  bool released = false;
  void free_window() {
    if (win == MPI_WIN_NULL) return;
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    seg = 0;
    base.clear();
  }
  void release() {  // collective over the node
    free_window();
    if (ncomm != MPI_COMM_NULL) MPI_Comm_free(&ncomm);
    released = true;
  }
};

namespace {

// Caches not yet released. At MPI_Finalize (a delete callback on MPI_COMM_SELF, whose
// attributes MPI deletes first) they are only marked released, without an MPI call: freeing
// a window is collective over its node, and a rank that finalizes must not wait there for
// ranks that go on (a shrink's leaving processes) or free windows in another order. MPI
// cleans up its own segments at exit.
std::vector<WindowCache*>& live() {
  static std::vector<WindowCache*> v;
  return v;
}

void forget(WindowCache* c) {
  auto& v = live();
  v.erase(std::remove(v.begin(), v.end(), c), v.end());
}

int cache_keyval() {
  static const int key = [] {
    int k = MPI_KEYVAL_INVALID;
    auto del = [](MPI_Comm, int, void* v, void*) -> int {
      auto* c = static_cast<WindowCache*>(v);
      if (!c->released) c->release();
      forget(c);
      delete c;
      return MPI_SUCCESS;
    };
    check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del, &k, nullptr), "MPI_Comm_create_keyval");
    int s = MPI_KEYVAL_INVALID;
    auto at_finalize = [](MPI_Comm, int, void*, void*) -> int {
      for (WindowCache* c : live()) c->released = true;
      live().clear();
      return MPI_SUCCESS;
    };
    check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &s, nullptr), "MPI_Comm_create_keyval");
    check_mpi(MPI_Comm_set_attr(MPI_COMM_SELF, s, nullptr), "MPI_Comm_set_attr");
    return k;
  }();
  return key;
}

WindowCache& cache_of(MPI_Comm comm, const std::vector<int>& node) {
  const int key = cache_keyval();
  void* v = nullptr;
  int found = 0;
  check_mpi(MPI_Comm_get_attr(comm, key, &v, &found), "MPI_Comm_get_attr");
  if (found && v && !static_cast<WindowCache*>(v)->released) return *static_cast<WindowCache*>(v);
  auto* c = new WindowCache;
  MPI_Group all = MPI_GROUP_NULL, mine = MPI_GROUP_NULL;
  check_mpi(MPI_Comm_group(comm, &all), "MPI_Comm_group");
  check_mpi(MPI_Group_incl(all, static_cast<int>(node.size()), node.data(), &mine), "MPI_Group_incl");
  const int rc = MPI_Comm_create_group(comm, mine, 0x5ED5, &c->ncomm);
  MPI_Group_free(&mine);
  MPI_Group_free(&all);
  if (rc != MPI_SUCCESS) delete c;
  check_mpi(rc, "MPI_Comm_create_group (node)");
  check_mpi(MPI_Comm_set_errhandler(c->ncomm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  live().push_back(c);
  check_mpi(MPI_Comm_set_attr(comm, key, c), "MPI_Comm_set_attr");
  return *c;
}

void allocate(WindowCache& c, std::int64_t bytes, std::size_t nranks) {
  MPI_Info info = MPI_INFO_NULL;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  char* mine = nullptr;
  const int rc = MPI_Win_allocate_shared(static_cast<MPI_Aint>(bytes), 1, info, c.ncomm, &mine, &c.win);
  MPI_Info_free(&info);
  check_mpi(rc, "MPI_Win_allocate_shared");
  c.seg = bytes;
  c.base.resize(nranks);
  for (std::size_t k = 0; k < nranks; ++k) {
    MPI_Aint size = 0;
    int disp = 0;
    check_mpi(MPI_Win_shared_query(c.win, static_cast<int>(k), &size, &disp, &c.base[k]), "MPI_Win_shared_query");
  }
  check_mpi(MPI_Win_lock_all(MPI_MODE_NOCHECK, c.win), "MPI_Win_lock_all");
}

}  // namespace

NodeWindow::NodeWindow(MPI_Comm comm, const std::vector<int>& node, std::int64_t need, std::int64_t limit)
    : node_(node) {
  if (node.size() < 2) return;  // alone on the node (every rank of it sees the same size)
  c_ = &cache_of(comm, node);
  std::int64_t v[2] = {need, -limit}, r[2] = {0, 0};
  check_mpi(MPI_Allreduce(v, r, 2, MPI_INT64_T, MPI_MAX, c_->ncomm), "MPI_Allreduce (window size)");
  const std::int64_t most = r[0], least_limit = -r[1];
  if (most <= 0) return;  // nothing to stage: the kept window stays
  if (most > least_limit) {  // too large for the budget: none, and nothing kept above it
    if (c_->seg > least_limit) c_->free_window();
    return;
  }
  if (c_->seg < most || c_->seg / 4 > most || c_->seg > least_limit) {
    c_->free_window();
    allocate(*c_, most, node.size());
  }
  usable_ = true;
}

bool NodeWindow::on_node(int rank) const { return std::binary_search(node_.begin(), node_.end(), rank); }

char* NodeWindow::mine() const {
  int me = 0;
  MPI_Comm_rank(c_->ncomm, &me);
  return c_->base[static_cast<std::size_t>(me)];
}

const char* NodeWindow::of(int rank) const {
  const auto k = static_cast<std::size_t>(std::lower_bound(node_.begin(), node_.end(), rank) - node_.begin());
  return c_->base[k];
}

std::int64_t NodeWindow::segment_bytes() const { return c_->seg; }

void NodeWindow::sync() const { check_mpi(MPI_Win_sync(c_->win), "MPI_Win_sync"); }

}  // namespace redist::exec
