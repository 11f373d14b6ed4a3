// SPDX-License-Identifier: BSD-3-Clause
// Waiting and MPI quirks (waiting.hpp).
#include "waiting.hpp"

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

#include <sched.h>

#include "../mpi_guard.hpp"
#include "malleable/redist/node_map.hpp"

namespace redist::exec {

using detail::check_mpi;

namespace {

// Whether ranks of `comm` on this node so far outnumber the CPUs this process may run on
// that spinning waiters starve the ranks doing the copies.
// The answer is kept on the caller's communicator (an attribute of a private keyval; each
// call works on a fresh duplicate, which does not inherit it): the node map is a collective
// (it was MPI_Comm_split_type, which under MPICH with oversubscribed, busy-polling ranks
// cost ~0.7 s per call here, more than the redistribution itself; docs/guide/mpi-flavours.md).
// Every rank of `comm` asks at the same calls, so all find the attribute or none does.
int oversubscribed_keyval() {
  static const int kv = [] {
    int k = MPI_KEYVAL_INVALID;
    check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k, nullptr),
              "MPI_Comm_create_keyval");
    return k;
  }();
  return kv;
}

bool oversubscribed_uncached(MPI_Comm user_comm) {
  const int local = static_cast<int>(node_ranks(user_comm).size());  // by host name (node_map.hpp)
  cpu_set_t set;
  CPU_ZERO(&set);
  int cpus = 0;
  if (sched_getaffinity(0, sizeof set, &set) == 0) cpus = CPU_COUNT(&set);
  if (cpus <= 0) cpus = static_cast<int>(std::thread::hardware_concurrency());
  // Measured on a 2-CPU node (docs/reference/redist.md): with 9 or 16 ranks (4.5, 8 per CPU)
  // spinning was faster, with 25 (12.5 per CPU) sleeping was 2-4x faster. That is Open MPI
  // with mpi_yield_when_idle; MPICH's waiters spin without yielding, and with 9 ranks on 2
  // CPUs sleeping was already 1.5-3x faster than spinning (docs/guide/mpi-flavours.md), so under
  // MPICH (asked of the library, not assumed) any oversubscription sleeps.
  const int ranks_per_cpu_to_sleep = mpi_is_mpich() ? 1 : 8;
  return cpus > 0 && local > ranks_per_cpu_to_sleep * cpus;
}

}  // namespace

// MPI_Get_library_version names MPICH (or a derivative: Intel MPI, MVAPICH).
bool mpi_is_mpich() {
  static const bool mpich = [] {
    char v[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int len = 0;
    if (MPI_Get_library_version(v, &len) != MPI_SUCCESS) return false;
    const std::string s(v, static_cast<std::size_t>(len));
    return s.find("MPICH") != std::string::npos || s.find("Intel(R) MPI") != std::string::npos ||
           s.find("MVAPICH") != std::string::npos;
  }();
  return mpich;
}

bool oversubscribed(MPI_Comm user_comm, MPI_Comm /*comm*/) {
  void* cached = nullptr;
  int flag = 0;
  check_mpi(MPI_Comm_get_attr(user_comm, oversubscribed_keyval(), &cached, &flag), "MPI_Comm_get_attr");
  if (flag) return reinterpret_cast<std::intptr_t>(cached) == 2;
  const bool over = oversubscribed_uncached(user_comm);
  check_mpi(MPI_Comm_set_attr(user_comm, oversubscribed_keyval(), reinterpret_cast<void*>(std::intptr_t{over ? 2 : 1})),
            "MPI_Comm_set_attr");
  return over;
}

void wait_all(std::vector<MPI_Request>& req, bool sleep, int sleep_us, const char* what) {
  if (req.empty()) return;
  if (!sleep) {
    check_mpi(MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE), what);
    return;
  }
  for (;;) {
    int done = 0;
    check_mpi(MPI_Testall(static_cast<int>(req.size()), req.data(), &done, MPI_STATUSES_IGNORE), what);
    if (done) return;
    std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
  }
}

void wait_some(std::vector<MPI_Request>& req, std::vector<int>& done, bool sleep, int sleep_us, const char* what) {
  done.resize(req.size());
  int n = 0;
  for (;;) {
    if (sleep)
      check_mpi(MPI_Testsome(static_cast<int>(req.size()), req.data(), &n, done.data(), MPI_STATUSES_IGNORE), what);
    else
      check_mpi(MPI_Waitsome(static_cast<int>(req.size()), req.data(), &n, done.data(), MPI_STATUSES_IGNORE), what);
    if (n == MPI_UNDEFINED) n = 0;
    if (n > 0 || !sleep) break;
    std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
  }
  done.resize(static_cast<std::size_t>(n));
}

}  // namespace redist::exec
