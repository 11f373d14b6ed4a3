#include "world.hpp"

#include <cstdlib>
#include <cstring>

#include "malleable/blacs_dyn/blacs_dyn.h"

namespace resize::detail {

std::string World::backend() { return "blacs-dyn"; }
MPI_Comm World::comm() { return blacs_dyn_world(); }
bool World::is_new() { return blacs_dyn_is_new() != 0; }
void World::clear_new() { blacs_dyn_clear_new(); }

namespace {
int fail(int rc, std::string& err) {
  if (rc != BLACS_DYN_OK) err = std::string(blacs_dyn_status_string(rc)) + ": " + blacs_dyn_last_error();
  return rc;
}
}  // namespace

int World::expand(int nnew, const std::string& command, const std::vector<std::string>& args,
                  std::string& err) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  return fail(blacs_dyn_expand(nnew, command.c_str(), argv.data(), nullptr, MPI_INFO_NULL), err);
}

int World::expand_schema(const std::string& path, std::string& err) {
  return fail(blacs_dyn_expand_schema(path.c_str()), err);
}

int World::shrink(int keep, bool& leaving, std::string& err) {
  int leave = 0, rc = BLACS_DYN_OK, level = -1;
  for (int l = blacs_dyn_depth() - 2; l >= 0; --l) {
    int size = 0;
    if (blacs_dyn_level_size(l, &size) == BLACS_DYN_OK && size == keep) {
      level = l;
      break;
    }
  }
  if (level >= 0) {
    rc = blacs_dyn_shrink_to_level(level, &leave);
  } else {
    std::vector<int> ranks(static_cast<std::size_t>(keep));
    for (int i = 0; i < keep; ++i) ranks[static_cast<std::size_t>(i)] = i;
    rc = blacs_dyn_shrink_to_ranks(ranks.data(), keep, &leave);
  }
  leaving = leave != 0;
  return fail(rc, err);
}

void World::leave() {
  blacs_dyn_leave();
  std::abort();  // blacs_dyn_leave does not return
}

int World::share_state(std::vector<char>& bytes, std::string& err) {
  // Two hand-overs: the length, then the bytes (blacs_dyn_share_state needs a capacity).
  std::uint64_t n = bytes.size();
  std::size_t len = sizeof n;
  int rc = blacs_dyn_share_state(&n, &len, sizeof n);
  if (rc != BLACS_DYN_OK) return fail(rc, err);
  bytes.resize(n);
  len = n;
  return fail(blacs_dyn_share_state(bytes.data(), &len, n), err);
}


}  // namespace resize::detail
