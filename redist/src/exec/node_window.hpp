// SPDX-License-Identifier: BSD-3-Clause
// A node-shared staging window (ExecOptions::node_window; docs/redist.md, "A node-shared
// staging window"): the ranks of one node allocate one shared window per call
// (MPI_Win_allocate_shared), a sender packs each transfer to a rank of its node into its
// own segment, tells the receiver where (one 8-byte message), and the receiver unpacks
// straight from that memory into B and says it is done: two copies of each byte (pack,
// unpack) and no message of data, instead of pack -> MPI -> unpack. The window (class
// NodeWindow) is the MPI shell; the step (WindowStep) packs and unpacks with the pure
// kernels of local_copy.hpp. Internal to redist.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "../mpi_guard.hpp"
#include "local_copy.hpp"
#include "waiting.hpp"

namespace redist::exec {

// Whether this build can share memory between the ranks of a node (not under SimGrid's
// SMPI, whose ranks are threads of one simulated process).
bool node_window_supported();

// The most bytes rank `me` sends to other ranks of its node (`node`: sorted ranks) in one
// step of p: the segment it needs. Pure.
std::int64_t window_need(const RedistPlan& p, int me, const std::vector<int>& node, std::size_t esize);

struct WindowCache;

// The shared window one call uses, over the ranks of `comm` on this node (`node`: their
// ranks in comm, sorted, from node_ranks). Collective over those ranks: each passes the
// bytes it will stage at once (window_need) and its limit; every segment gets the node's
// largest need, and when that is 0 or above the node's smallest limit there is no window
// (usable() false on every rank of the node; the transfers go by message). The window is
// kept on `comm` between calls (fresh shared pages cost a page fault each: 32 MiB took
// 80 ms to pack the first time here against 9 ms into warm memory) and made anew only when
// a call needs more, or less than a quarter of what is kept; it is freed with `comm` or at
// MPI_Finalize. Memory: one segment per rank of the node, at most the limit.
class NodeWindow {
 public:
  NodeWindow(MPI_Comm comm, const std::vector<int>& node, std::int64_t need, std::int64_t limit);
  NodeWindow(const NodeWindow&) = delete;
  NodeWindow& operator=(const NodeWindow&) = delete;
  bool usable() const { return usable_; }
  bool on_node(int rank) const;   // a rank of comm on this node
  char* mine() const;             // this rank's segment
  const char* of(int rank) const;  // the segment of a rank on this node
  std::int64_t segment_bytes() const;
  void sync() const;

 private:
  const std::vector<int>& node_;
  WindowCache* c_ = nullptr;
  bool usable_ = false;
};

// One step's transfers between ranks of one node through the window: begin() packs every
// send into this rank's segment (one after another) and tells each receiver its offset;
// end() unpacks each receive as its offset arrives, says done, and waits until every
// receiver of this rank's sends has said done (the segment is then free for the next step
// or call). Memory: O(this step's window transfers).
template <class T>
class WindowStep {
 public:
  struct Env {
    MPI_Comm comm = MPI_COMM_NULL;
    const NodeWindow* win = nullptr;
    const Side* sa = nullptr;
    const Side* sb = nullptr;
    const T* a = nullptr;
    T* b = nullptr;
    bool sleep = false;
    int sleep_us = 20;
  };
  struct Moved {
    std::int64_t sent = 0, received = 0;  // bytes
    double pack_s = 0, unpack_s = 0;
  };
  static constexpr int kWhereTag = 0x5ED6, kDoneTag = 0x5ED7;

  WindowStep(const Env& env, std::vector<const Transfer*> out, std::vector<const Transfer*> in)
      : env_(env), out_(std::move(out)), in_(std::move(in)) {}

  void begin() {
    using detail::check_mpi;
    where_in_.assign(in_.size(), 0);
    where_out_.assign(out_.size(), 0);
    req_in_.assign(in_.size(), MPI_REQUEST_NULL);
    req_out_.assign(2 * out_.size(), MPI_REQUEST_NULL);
    for (std::size_t k = 0; k < in_.size(); ++k)
      check_mpi(MPI_Irecv(&where_in_[k], 1, MPI_INT64_T, in_[k]->src, kWhereTag, env_.comm, &req_in_[k]),
                "MPI_Irecv (window)");
    const double t0 = MPI_Wtime();
    std::int64_t at = 0;  // bytes into this rank's segment
    for (std::size_t k = 0; k < out_.size(); ++k) {
      const Walk w(*env_.sa, *out_[k]);
      pack_columns<T>(w, packed_runs(w.rows), env_.a, env_.sa->ld, 0, w.ncols,
                      reinterpret_cast<T*>(env_.win->mine() + at));
      where_out_[k] = at;
      at += w.ncols * w.rows_per_col * static_cast<std::int64_t>(sizeof(T));
      moved_.sent += w.ncols * w.rows_per_col * static_cast<std::int64_t>(sizeof(T));
      env_.win->sync();  // the packed bytes before the word that they are there
      check_mpi(MPI_Isend(&where_out_[k], 1, MPI_INT64_T, out_[k]->dst, kWhereTag, env_.comm, &req_out_[2 * k]),
                "MPI_Isend (window)");
      check_mpi(MPI_Irecv(nullptr, 0, MPI_BYTE, out_[k]->dst, kDoneTag, env_.comm, &req_out_[2 * k + 1]),
                "MPI_Irecv (window done)");
    }
    moved_.pack_s = MPI_Wtime() - t0;
  }

  Moved end() {
    using detail::check_mpi;
    std::vector<MPI_Request> said(in_.size(), MPI_REQUEST_NULL);
    std::vector<int> done;
    std::size_t left = in_.size();
    while (left > 0) {
      wait_some(req_in_, done, env_.sleep, env_.sleep_us, "MPI_Waitsome (window)");
      for (int k : done) {
        const auto q = static_cast<std::size_t>(k);
        const Transfer& t = *in_[q];
        const double t0 = MPI_Wtime();
        env_.win->sync();  // the sender's packed bytes are visible
        const Walk w(*env_.sb, t);
        const T* src = reinterpret_cast<const T*>(env_.win->of(t.src) + where_in_[q]);
        unpack_columns<T>(w, packed_runs(w.rows), src, 0, w.ncols, env_.b, env_.sb->ld);
        moved_.unpack_s += MPI_Wtime() - t0;
        moved_.received += w.ncols * w.rows_per_col * static_cast<std::int64_t>(sizeof(T));
        check_mpi(MPI_Isend(nullptr, 0, MPI_BYTE, t.src, kDoneTag, env_.comm, &said[q]), "MPI_Isend (window done)");
        --left;
      }
    }
    wait_all(req_out_, env_.sleep, env_.sleep_us, "MPI_Waitall (window)");
    wait_all(said, env_.sleep, env_.sleep_us, "MPI_Waitall (window done)");
    return moved_;
  }

 private:
  Env env_;
  std::vector<const Transfer*> out_, in_;
  std::vector<std::int64_t> where_in_, where_out_;
  std::vector<MPI_Request> req_in_, req_out_;
  Moved moved_;
};

}  // namespace redist::exec
