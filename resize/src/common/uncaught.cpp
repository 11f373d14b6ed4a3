// SPDX-License-Identifier: BSD-3-Clause
// An uncaught resize::Error ends the job with one message. Most of the
// session's refusals (a malformed schedule, a restart file that does not fit) are thrown
// alike on every process; left uncaught, each process's std::terminate aborted and Open
// MPI printed one backtrace per process. The library's terminate handler, installed when
// it is loaded, catches only resize::Error: world rank 0 of the job mpiexec started says
// "<program>: error: <what> (an uncaught resize::Error ...)" and ends the job with
// MPI_Abort (status 2); the other processes wait 3 s for that end and say their own error
// only if it has not come (their error was theirs alone). Anything else goes to the
// handler installed before (the default: abort). A program that catches resize::Error
// (docs/guide/porting.md, "Errors") never gets here.
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <thread>

#include "malleable/resize/types.hpp"

namespace {

std::terminate_handler g_previous = nullptr;

[[noreturn]] void on_terminate() {
  if (std::exception_ptr ep = std::current_exception()) {
    try {
      std::rethrow_exception(ep);
    } catch (const resize::Error& e) {
      int up = 0, down = 0;
      MPI_Initialized(&up);
      MPI_Finalized(&down);
      char name[256] = "program";
      if (const ssize_t n = ::readlink("/proc/self/exe", name, sizeof name - 1); n > 0) name[n] = '\0';
      const char* base = name;
      for (const char* p = name; *p; ++p)
        if (*p == '/') base = p + 1;
      if (up && !down) {
        int rank = 0;
        MPI_Comm parent = MPI_COMM_NULL;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_get_parent(&parent);
        const bool first = rank == 0 && parent == MPI_COMM_NULL;
        if (!first) std::this_thread::sleep_for(std::chrono::seconds(3));  // rank 0's abort ends us first
        std::fprintf(stderr, "%s: error%s: %s (an uncaught resize::Error; catch it where the session is set up, "
                     "docs/guide/porting.md \"Errors\")\n", base, first ? "" : " on this process", e.what());
        std::fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 2);
        std::_Exit(2);
      }
      std::fprintf(stderr, "%s: error: %s (an uncaught resize::Error)\n", base, e.what());
      std::fflush(stderr);
      std::_Exit(2);
    } catch (...) {
    }
  }
  if (g_previous) g_previous();
  std::abort();
}

struct Install {
  Install() { g_previous = std::set_terminate(on_terminate); }
} g_install;

}  // namespace
