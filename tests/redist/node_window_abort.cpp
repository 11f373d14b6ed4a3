// SPDX-License-Identifier: BSD-3-Clause
// An aborted run with the node window on (node_window_abort.sh): every rank redistributes
// through its shared-memory segment, then rank 0 calls MPI_Abort while the others wait in a
// barrier, so no rank reaches MPI_Finalize. The script then checks /dev/shm for names left.
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <vector>

#include "malleable/redist/redistribute.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, P = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const auto a = redist::Layout::block_cyclic(600, 600, 16, 16, 1, P);
  const auto b = redist::Layout::block_cyclic(600, 600, 16, 16, P, 1);
  std::vector<double> A(static_cast<std::size_t>(600 * a.local_cols(me)), 1.0), B(static_cast<std::size_t>(b.local_rows(me) * 600));
  redist::ExecStats st;
  redist::redistribute<double>(MPI_COMM_WORLD, a, A.data(), 600, b, B.data(), b.local_rows(me), redist::ScheduleKind::Default,
                               redist::ExecOptions{}, &st);
  long long w = st.bytes_window, all = 0;
  MPI_Allreduce(&w, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  // Every rank's pid: its segments' names hold it (/malleable-redist.PID....), so the
  // script looks for this run's names only, not another job's that exist for a moment.
  long pid = static_cast<long>(::getpid());
  std::vector<long> pids(static_cast<std::size_t>(P));
  MPI_Gather(&pid, 1, MPI_LONG, pids.data(), 1, MPI_LONG, 0, MPI_COMM_WORLD);
  if (me == 0) {
    std::printf("bytes through windows: %lld\npids:", all);
    for (const long p : pids) std::printf(" %ld", p);
    std::printf("\n");
  }
  std::fflush(stdout);
  if (me == 0) MPI_Abort(MPI_COMM_WORLD, 3);
  MPI_Barrier(MPI_COMM_WORLD);  // never passes: rank 0 aborts the job
  MPI_Finalize();
  return 0;
}
