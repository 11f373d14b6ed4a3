// SPDX-License-Identifier: BSD-3-Clause
// Helpers shared by blacs-dyn's runtime_*.cpp: MPI error text and checks, agreement on
// errors, executable and capacity checks, info keys, host names.
#include "runtime/runtime_detail.hpp"


#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <csignal>
#include <sys/stat.h>

#include "malleable/blacs_dyn/error.hpp"
#include "malleable/blacs_dyn/mpi_flavour.hpp"
#include "protocol/schema.hpp"
#include "platform/blacs_glue.hpp"
#include "malleable_internal/collective.hpp"


namespace blacs_dyn::detail {


std::string mpi_error_text(int rc) {
  char buf[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, buf, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(rc);
  return std::string(buf, static_cast<std::size_t>(len));
}


void sleep_for(long ns) {
  timespec ts{ns / 1000000000L, ns % 1000000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Every rank learns the first error any rank met, with the same code and message, so
// collective calls fail identically everywhere and the world stays unchanged.
void agree(MPI_Comm comm, const std::optional<Error>& local, const BackgroundExpansion* bg) {
  // A background thread tests and sleeps, 50 us doubling to 5 ms, while ranks that spawn
  // nothing wait here for the spawners (seconds), rather than spin beside the compute;
  // other threads wait in MPI_Wait.
  const auto wait = [bg](MPI_Request& req) {
    if (!bg) {
      check(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait (agree)");
      return;
    }
    long nap = 50000;
    for (int flag = 0;;) {
      check(MPI_Test(&req, &flag, MPI_STATUS_IGNORE), "MPI_Test (agree)");
      if (flag) break;
      sleep_for(nap);
      nap = std::min(5000000L, nap * 2);
    }
  };
  const auto failure = malleable::collective::lowest_failure(comm, local.has_value(), local ? local->code() : 0,
                                                             local ? local->what() : std::string(), wait,
                                                             [](int rc, const char* what) { check(rc, what); });
  if (failure) throw Error(failure->code, failure->text);
}

bool is_executable_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

// Open MPI 4.1 aborts the whole job when asked to spawn a program it cannot execute,
// so rank 0 looks for it first, the way the launcher will (wdir, then PATH).
void check_executable(const std::string& cmd, const std::string& wdir) {
  if (cmd.empty()) throw Error(BLACS_DYN_ERR_ARG, "command is empty");
  if (cmd.find('/') != std::string::npos) {
    const std::string p = (cmd[0] != '/' && !wdir.empty()) ? wdir + "/" + cmd : cmd;
    if (!is_executable_file(p))
      throw Error(BLACS_DYN_ERR_SPAWN, "cannot spawn '" + cmd + "': " + p +
                                      " does not exist or is not an executable file");
    return;
  }
  std::stringstream ss(read_config().path.value_or(""));
  std::string dir;
  while (std::getline(ss, dir, ':'))
    if (!dir.empty() && is_executable_file(dir + "/" + cmd)) return;
  throw Error(BLACS_DYN_ERR_SPAWN, "cannot spawn '" + cmd + "': not found in PATH");
}

// Checked before spawning because Open MPI 4.1.4 handles a refused spawn badly: in a
// collective spawn the other ranks stay blocked, and even after a refused spawn over
// MPI_COMM_SELF (which returns MPI_ERR_SPAWN cleanly and leaves the world usable)
// mpiexec never exits at the end of the job. BLACS_DYN_SLOT_CHECK=0 skips the check.
void check_capacity(int alive, int nnew) {
  long cap = LONG_MAX;
  std::string why;
  const Config env = read_config();
  if (const Text& m = env.max_procs; m && !m->empty()) {
    char* end = nullptr;
    const long v = std::strtol(m->c_str(), &end, 10);
    if (*end != '\0' || v < 1)
      throw Error(BLACS_DYN_ERR_ARG, "BLACS_DYN_MAX_PROCS must be a positive integer, got '" + *m + "'");
    cap = v;
    why = "BLACS_DYN_MAX_PROCS=" + std::to_string(v);
  }
  if (env.slot_check && !env.oversubscribe) {
    int* usize = nullptr;
    int flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &usize, &flag);
    if (flag && usize && *usize > 0 && *usize < cap) {
      cap = *usize;
      why = "MPI_UNIVERSE_SIZE=" + std::to_string(*usize) +
            " slots and oversubscription is off (OMPI_MCA_rmaps_base_oversubscribe)";
    }
  }
  if (static_cast<long>(alive) + nnew > cap)
    throw Error(BLACS_DYN_ERR_SPAWN, "too many processes: " + std::to_string(alive) +
                                    " running + " + std::to_string(nnew) + " new exceeds " +
                                    std::to_string(cap) + " (" + why + ")");
}

std::string library_version() {
  char buf[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  if (MPI_Get_library_version(buf, &len) != MPI_SUCCESS) return {};
  return std::string(buf, static_cast<std::size_t>(len));
}

std::string info_get(MPI_Info info, const char* key) {
  if (info == MPI_INFO_NULL) return {};
  int len = 0, flag = 0;
  MPI_Info_get_valuelen(info, key, &len, &flag);
  if (!flag) return {};
  std::string v(static_cast<std::size_t>(len) + 1, '\0');
  MPI_Info_get(info, key, len + 1, v.data(), &flag);
  v.resize(static_cast<std::size_t>(len));
  return v;
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

std::uint64_t fingerprint(const ShrinkPlan& plan) {
  std::uint64_t h = 1469598103934665603ull ^ static_cast<std::uint64_t>(plan.pop_to + 7);
  for (ProcId p : plan.new_members) h = (h ^ static_cast<std::uint64_t>(p + 1)) * 1099511628211ull;
  return h & 0x7fffffffffffffffull;
}

// The processor name (node) of every rank of `comm`, in rank order.
std::vector<std::string> gather_processor_names(MPI_Comm comm) {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  check(MPI_Get_processor_name(name, &len), "MPI_Get_processor_name");
  int n = 0;
  MPI_Comm_size(comm, &n);
  std::vector<char> all(static_cast<std::size_t>(n) * MPI_MAX_PROCESSOR_NAME);
  check(MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME,
                      MPI_CHAR, comm),
        "MPI_Allgather (processor names)");
  std::vector<std::string> out;
  for (int r = 0; r < n; ++r) {
    const char* p = all.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME;
    out.emplace_back(p, strnlen(p, MPI_MAX_PROCESSOR_NAME));
  }
  return out;
}

}  // namespace blacs_dyn::detail
