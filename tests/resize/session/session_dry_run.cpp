// SPDX-License-Identifier: BSD-3-Clause
// The dry run on 4 processes (2x2), a scripted expansion to 2x3 after iteration 2, two
// matrices (A: 40 x 40 doubles in 4 x 4 blocks; B: 30 x 20 floats, one block per process
// row/column):
//   api: Session::dry_run() at the remap point: its JSON (the same on every process) names
//        the expansion 2x2 -> 2x3, started by spawn, each matrix's layouts and bytes (kept +
//        moved = the matrix) and each phase's cost; the table says it; after it the grid,
//        the world, A's descriptor, buffer and every element are as before;
//   env:  RESIZE_DRY_RUN=1 with remap_point(): the remap points act on nothing (action
//        none, "dry run" in the result), the plan is printed (ctest matches it), the data
//        and the grid stay;
//   c:    resize_dry_run through the C API: a buffer too short is RESIZE_ERR_ARG naming
//        the size needed, a long enough one gets the JSON and the table; nothing moves.
// Prints PASS on world rank 0.
#include <mpi.h>

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

#include "malleable/resize/policy.hpp"
#include "malleable/resize/resize.h"
#include "malleable/resize/schedule.hpp"
#include "malleable/resize/session.hpp"
#include "session_test_util.hpp"

using session_test::value;

namespace {

constexpr int kN = 40, kNb = 4;

// A's elements on this process against their global indices (fill: write them); the
// faults over the world.
long long sweep_a(const resize::Session& s, std::vector<double>& a, const int* da, bool fill) {
  long long bad = 0;
  const resize::Grid& g = s.grid();
  if (s.in_grid()) {
    for (int jl = 0, j = 0; j < kN; ++j) {
      if ((j / kNb) % g.npcol != s.mycol()) continue;
      for (int il = 0, i = 0; i < kN; ++i) {
        if ((i / kNb) % g.nprow != s.myrow()) continue;
        double& x = a[static_cast<std::size_t>(il) + static_cast<std::size_t>(jl) * da[8]];
        if (fill) x = value(i, j);
        else bad += x != value(i, j);
        ++il;
      }
      ++jl;
    }
  }
  long long tot = 0;
  MPI_Allreduce(&bad, &tot, 1, MPI_LONG_LONG, MPI_SUM, s.world());
  return tot;
}

// The plan's JSON as the expansion 2x2 -> 2x3 of A and B; "" when right, else what is not.
std::string check_plan(const std::string& text) {
  const auto j = nlohmann::json::parse(text);
  std::string bad;
  const auto want = [&](bool c, const std::string& what) {
    if (!c) bad += what + "; ";
  };
  want(j["schema"] == "malleable.plan/1" && j["dry_run"] == true, "schema/dry_run");
  want(j["action"] == "expand" && j["refused"].is_null(), "action expand, not refused");
  want(j["from"]["grid"] == "2x2" && j["to"]["grid"] == "2x3" && j["to"]["procs"] == 6, "grids 2x2 -> 2x3");
  want(j["mechanism"] == "spawn", "mechanism spawn");
  want(j["how"] == "merge" || j["how"] == "respawn", "how merge or respawn");
  want(j["matrices"].size() == 2, "two matrices");
  if (j["matrices"].size() == 2) {
    const auto& a = j["matrices"][0];
    const auto& b = j["matrices"][1];
    want(a["name"] == "A" && a["bytes"] == kN * kN * 8 && a["from"]["grid"] == "2x2" && a["to"]["grid"] == "2x3" &&
             a["from"]["mb"] == kNb,
         "A's layouts and bytes");
    want(b["name"] == "B" && b["bytes"] == 30 * 20 * 4 && b["to"]["mb"] == 15 && b["to"]["nb"] == 7, "B's layouts and bytes");
    for (const auto& m : j["matrices"])
      want(m["bytes"].get<long long>() == m["bytes_kept"].get<long long>() + m["bytes_moved"].get<long long>(),
           "kept + moved = bytes");
  }
  want(j["cost"]["start_s"].is_number() && j["cost"]["redistribute_s"].is_number() && j["cost"]["total_s"].is_number(),
       "phase costs");
  return bad;
}

// Every process's copy of `text` equal to world rank 0's.
bool same_everywhere(const std::string& text, MPI_Comm comm) {
  long long len = static_cast<long long>(text.size()), lo = 0, hi = 0;
  MPI_Allreduce(&len, &lo, 1, MPI_LONG_LONG, MPI_MIN, comm);
  MPI_Allreduce(&len, &hi, 1, MPI_LONG_LONG, MPI_MAX, comm);
  return lo == hi;
}

// The C++ session through two remap points; `api`: Session::dry_run at the second, else
// remap_point under RESIZE_DRY_RUN=1.
bool run_session(int argc, char** argv, bool api, std::string& log) {
  resize::SessionOptions o = session_test::quiet_options();
  o.policy = std::make_unique<resize::ScriptedPolicy>(resize::parse_schedule("2:expand:2x3"));
  resize::Session s(argc, argv, std::move(o));
  int da[9] = {}, db[9] = {};
  std::vector<double> a;
  std::vector<float> b;
  s.register_matrix("A", kN, kN, kNb, kNb, resize::Distribution::BlockCyclic, da, a);
  s.register_matrix("B", 30, 20, 1, 1, resize::Distribution::Block, db, b);
  s.start(resize::Grid{2, 2, {}});
  sweep_a(s, a, da, true);
  const std::vector<int> da_before(da, da + 9);
  const double* a_before = a.data();
  bool ok = true;
  for (int it = 0; it < 3; ++it) {
    s.begin_iteration();
    s.end_iteration();
    if (api && s.iteration() == 2) {
      const resize::Session::DryRun r = s.dry_run();
      const std::string bad = check_plan(r.json);
      if (!bad.empty()) log += "plan: " + bad + "\n" + r.json + "\n";
      if (r.table.find("dry run: expand 2x2 -> 2x3") == std::string::npos) log += "table: " + r.table + "\n";
      ok = ok && bad.empty() && r.table.find("dry run: expand 2x2 -> 2x3") != std::string::npos &&
           same_everywhere(r.json, s.world());
      continue;
    }
    const resize::RemapResult r = s.remap_point();
    if (r.action != resize::Action::None || !r.ok || (!api && s.iteration() == 2 && r.message.find("dry run") == std::string::npos)) {
      log += "remap after " + std::to_string(s.iteration()) + ": " + resize::to_string(r.action) + " " + r.message + "\n";
      ok = false;
    }
  }
  const bool same = s.grid().shape() == "2x2" && s.world_size() == 4 && std::vector<int>(da, da + 9) == da_before &&
                    a.data() == a_before && sweep_a(s, a, da, false) == 0;
  if (!same) log += "the grid, A's descriptor, buffer or elements changed\n";
  return ok && same;
}

// The C API: resize_dry_run with a short and a long enough buffer.
bool run_c(int argc, char** argv, std::string& log) {
  resize_session* s = nullptr;
  if (resize_create(argc, argv, "dry_run_c", "scripted", "2:expand:2x3", &s) != RESIZE_OK) {
    log += std::string("resize_create: ") + resize_last_error() + "\n";
    return false;
  }
  int desc[9] = {};
  double* a = nullptr;
  bool ok = resize_register(s, "A", kN, kN, kNb, kNb, RESIZE_DIST_BLOCK_CYCLIC, desc, &a) == RESIZE_OK &&
            resize_start(s, 2, 2) == RESIZE_OK;
  const std::vector<int> before(desc, desc + 9);
  char tiny[8];
  const int short_rc = resize_dry_run(s, tiny, sizeof tiny, nullptr, 0);
  const std::string msg = resize_last_error();
  if (short_rc != RESIZE_ERR_ARG || msg.find("needs a buffer of") == std::string::npos) {
    log += "short buffer: rc " + std::to_string(short_rc) + " " + msg + "\n";
    ok = false;
  }
  std::vector<char> json(1 << 16), table(1 << 14);
  if (resize_dry_run(s, json.data(), json.size(), table.data(), table.size()) != RESIZE_OK) {
    log += std::string("resize_dry_run: ") + resize_last_error() + "\n";
    ok = false;
  } else {
    const auto j = nlohmann::json::parse(std::string(json.data()));
    ok = ok && j["schema"] == "malleable.plan/1" && std::string(table.data()).find("dry run:") == 0;
  }
  int ctxt = 0, nprow = 0, npcol = 0, myrow = 0, mycol = 0;
  resize_grid(s, &ctxt, &nprow, &npcol, &myrow, &mycol);
  ok = ok && nprow == 2 && npcol == 2 && std::vector<int>(desc, desc + 9) == before;
  resize_destroy(s);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::string mode = argc > 1 ? argv[1] : "api";
  std::string log;
  bool ok = false;
  try {
    ok = mode == "c" ? run_c(argc, argv, log) : run_session(argc, argv, mode == "api", log);
  } catch (const std::exception& e) {
    log += std::string("threw: ") + e.what() + "\n";
  }
  return session_test::verdict(ok, log);
}
