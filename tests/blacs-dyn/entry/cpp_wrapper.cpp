// SPDX-License-Identifier: BSD-3-Clause
// The C++ interface: World::expand / share / shrink_to_ranks throw blacs_dyn::Error on bad
// input, Grid owns its BLACS context, ShrinkHook sees the old world and the new ranks.
#include <mpi.h>

#include <cstdio>
#include <cstring>

#include "malleable/blacs_dyn/blacs_dyn.hpp"
#include "grid_check_util.hpp"

namespace {
bool g_ok = true;
void expect(bool cond, const char* what) {
  if (blacs_dyn::World::rank() == 0 || !cond) std::printf("%s: %s\n", cond ? "ok" : "FAILED", what);
  g_ok = g_ok && cond;
}
struct AppState {
  int iteration;
  int n;
  double tolerance;
};
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  using blacs_dyn::World;
  AppState st{};
  if (World::is_new()) {
    World::share(st);
    World::clear_new();
  } else {
    try {
      World::expand(1, "./definitely/not/here");
      expect(false, "expand of a missing program throws");
    } catch (const blacs_dyn::Error& e) {
      expect(e.code() == BLACS_DYN_ERR_SPAWN && std::strstr(e.what(), "not/here"),
             "expand of a missing program throws blacs_dyn::Error(BLACS_DYN_ERR_SPAWN)");
    }
    World::expand(2, argv[0]);
    st = AppState{42, 300, 1e-9};
    World::share(st);
  }
  expect(World::size() == 4 && st.iteration == 42 && st.n == 300, "world of 4, state shared");
  std::vector<std::byte> blob(World::rank() == 0 ? 1000 : 0, std::byte{7});
  World::share(blob);
  expect(blob.size() == 1000 && blob[999] == std::byte{7}, "variable-length state shared");
  {
    blacs_dyn::Grid g = blacs_dyn::Grid::square();
    expect(g.in_grid() && g.nprow() == 2 && g.npcol() == 2, "Grid::square is 2 x 2");
    blacs_dyn::Grid h(1, 3);
    expect(h.in_grid() == (World::rank() < 3), "a 1 x 3 grid leaves rank 3 out");
  }
  expect(blacs_dyn_test::pdgemm_on_world(32, 8).ok, "PDGEMM on the world of 4");
  int hook_calls = 0, hook_new_size = 0, hook_rank3 = 0;
  bool leaving = false;
  {
    blacs_dyn::ShrinkHook hook([&](MPI_Comm old_world, std::span<const int> new_rank, int new_size) {
      int n = 0;
      MPI_Comm_size(old_world, &n);
      ++hook_calls;
      hook_new_size = new_size;
      hook_rank3 = new_rank[3];
      return n == 4;
    });
    const int keep[] = {0, 1};
    leaving = World::shrink_to_ranks(keep);
  }
  if (leaving) World::leave();
  expect(hook_calls == 1 && hook_new_size == 2 && hook_rank3 == -1,
         "the shrink hook ran once with the new ranks");
  // {0, 1} are exactly level 0's members: the shrink pops back to it (the spawned pair exits).
  expect(World::size() == 2 && World::depth() == 1, "world of 2, popped back to level 0");
  if (World::rank() == 0) std::printf("%s\n", g_ok ? "PASS" : "FAIL");
  MPI_Finalize();
  return g_ok ? 0 : 1;
}
