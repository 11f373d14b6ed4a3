#include "world.hpp"

#include <cstdlib>
#include <cstring>

#include "blacs-dyn/blacs_dyn.h"

namespace resize::detail {

std::string World::backend() { return "blacs-dyn"; }
MPI_Comm World::comm() { return bdyn_world(); }
bool World::is_new() { return bdyn_is_new() != 0; }
void World::clear_new() { bdyn_clear_new(); }

namespace {
int fail(int rc, std::string& err) {
  if (rc != BDYN_OK) err = std::string(bdyn_status_string(rc)) + ": " + bdyn_last_error();
  return rc;
}
}  // namespace

int World::expand(int nnew, const std::string& command, const std::vector<std::string>& args,
                  std::string& err) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  return fail(bdyn_expand(nnew, command.c_str(), argv.data(), nullptr, MPI_INFO_NULL), err);
}

int World::expand_schema(const std::string& path, std::string& err) {
  return fail(bdyn_expand_schema(path.c_str()), err);
}

int World::shrink(int keep, bool& leaving, std::string& err) {
  int leave = 0, rc = BDYN_OK, level = -1;
  for (int l = bdyn_depth() - 2; l >= 0; --l) {
    int size = 0;
    if (bdyn_level_size(l, &size) == BDYN_OK && size == keep) {
      level = l;
      break;
    }
  }
  if (level >= 0) {
    rc = bdyn_shrink_to_level(level, &leave);
  } else {
    std::vector<int> ranks(static_cast<std::size_t>(keep));
    for (int i = 0; i < keep; ++i) ranks[static_cast<std::size_t>(i)] = i;
    rc = bdyn_shrink_to_ranks(ranks.data(), keep, &leave);
  }
  leaving = leave != 0;
  return fail(rc, err);
}

void World::leave() {
  bdyn_leave();
  std::abort();  // bdyn_leave does not return
}

int World::share_state(std::vector<char>& bytes, std::string& err) {
  // Two hand-overs: the length, then the bytes (bdyn_share_state needs a capacity).
  std::uint64_t n = bytes.size();
  std::size_t len = sizeof n;
  int rc = bdyn_share_state(&n, &len, sizeof n);
  if (rc != BDYN_OK) return fail(rc, err);
  bytes.resize(n);
  len = n;
  return fail(bdyn_share_state(bytes.data(), &len, n), err);
}


}  // namespace resize::detail
