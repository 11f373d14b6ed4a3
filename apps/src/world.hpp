// The session's view of the process world, through blacs-dyn: grow by MPI_Comm_spawn,
// shrink through its communicator stack, hand state to newcomers. Internal to the MPI
// shell; the only file that calls blacs-dyn.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace resize::detail {

struct World {
  static std::string backend();
  static MPI_Comm comm();
  static bool is_new();
  static void clear_new();
  // Each returns 0 on success, else sets `err` (same result on every rank).
  static int expand(int nnew, const std::string& command, const std::vector<std::string>& args,
                    std::string& err);
  static int expand_schema(const std::string& path, std::string& err);
  // Keep world ranks 0..keep-1: back down the stack when a level has exactly that size
  // (seed 002 §3.3.5), else a new level of the first `keep` ranks.
  static int shrink(int keep, bool& leaving, std::string& err);
  [[noreturn]] static void leave();
  // World rank 0's bytes to every rank of the current world (newcomers included).
  static int share_state(std::vector<char>& bytes, std::string& err);
};

}  // namespace resize::detail
