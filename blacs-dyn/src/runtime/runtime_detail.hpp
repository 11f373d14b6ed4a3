// SPDX-License-Identifier: BSD-3-Clause
// Internal to blacs-dyn's MPI execution layer: the tags and codes of the library's own
// messages and the small helpers the runtime_*.cpp files share.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "malleable/blacs_dyn/error.hpp"
#include "platform/config.hpp"
#include "protocol/level_stack.hpp"

namespace blacs_dyn {
class BackgroundExpansion;
}

namespace blacs_dyn::detail {


// Tags of the library's own messages. They travel on private communicators (dups of
// the world) or on the spawn links, never on a communicator the application uses.
inline constexpr int kTagHello = 0x4b01;    // newcomer -> spawning root: "I am here" (pid)
inline constexpr int kTagGo = 0x4b02;       // spawning root -> newcomer: go/abort + stack
inline constexpr int kTagRelease = 0x4b03;  // rank 0 -> parked process: exit or finalize
inline constexpr int kTagIcc = 0x4b04;      // MPI_Intercomm_create between world and newcomers
inline constexpr int kTagJoinHello = 0x4b05;   // joining process -> job's rank 0: hello (its proof, who it is)
inline constexpr int kTagJoinAnswer = 0x4b06;  // job's rank 0 -> joining process: refuse/prepare/cancel/commit
inline constexpr int kTagJoinAck = 0x4b07;     // joining process -> job's rank 0: prepared, ready to merge
inline constexpr int kTagJoinChallenge = 0x4b08;  // joining process -> job's rank 0: its nonce, first thing
inline constexpr int kTagMerge = 0x5000;    // + group index: bridging spawn group i into the world
inline constexpr int kTagHandover = 0x6000; // + group index: rank 0 takes over group i's link

inline constexpr const char* kJoinEnv = "BLACS_DYN_JOIN";


std::string mpi_error_text(int rc);
// An MPI error (the library's communicators return errors: MPI_ERRORS_RETURN) names the
// call, the process, its host and the phase under way.
void check(int rc, const char* what);
void sleep_for(long ns);
double now();
// Every rank learns the first error any rank met, with the same code and message, so
// collective calls fail identically everywhere and the world stays unchanged. Given the
// background expansion the caller runs (`bg`), its waits for other ranks sleep instead of
// spinning in MPI (the compute owns the cores).
void agree(MPI_Comm comm, const std::optional<Error>& local, const BackgroundExpansion* bg = nullptr);
bool is_executable_file(const std::string& p);
// Open MPI 4.1 aborts the whole job when asked to spawn a program it cannot execute,
// so rank 0 looks for it first, the way the launcher will (wdir, then PATH).
void check_executable(const std::string& cmd, const std::string& wdir);
// Checked before spawning because Open MPI 4.1.4 handles a refused spawn badly: in a
// collective spawn the other ranks stay blocked, and even after a refused spawn over
// MPI_COMM_SELF (which returns MPI_ERR_SPAWN cleanly and leaves the world usable)
// mpiexec never exits at the end of the job. BLACS_DYN_SLOT_CHECK=0 skips the check.
void check_capacity(int alive, int nnew);
std::string library_version();
std::string info_get(MPI_Info info, const char* key);
std::string seconds_text(double s);
std::uint64_t fingerprint(const ShrinkPlan& plan);
// The processor name (node) of every rank of `comm`, in rank order.
std::vector<std::string> gather_processor_names(MPI_Comm comm);
// Joins the spawned groups to the world one after the other (each spawning parent
// bridges its group in) and hands every group's spawn link over to rank 0
// (runtime_expand.cpp). `my_group`: a newcomer's group (-1 in the world that spawned).
MPI_Comm merge_groups(MPI_Comm world, const std::vector<int>& spawner, int my_group, std::vector<MPI_Comm>& links,
                      const std::vector<int>& first_rank);

// BLACS_DYN_TRACE=1: rank 0 of an expansion prints the time of each phase on stderr.
class PhaseTrace {
 public:
  explicit PhaseTrace(bool on) : on_(on && read_config().trace), t_(now()) {}
  void mark(const char* phase) {
    if (!on_) return;
    const double t = now();
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    std::fprintf(stderr, "blacs-dyn trace: %-28s %8.2f ms (at %ld.%03ld)\n", phase, 1e3 * (t - t_),
                 static_cast<long>(ts.tv_sec), ts.tv_nsec / 1000000);
    t_ = t;
  }

 private:
  bool on_;
  double t_;
};

}  // namespace blacs_dyn::detail
