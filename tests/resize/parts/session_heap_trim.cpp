// SPDX-License-Identifier: BSD-3-Clause
// The free heap given back after each resize (resize/src/parts/heap_trim.hpp): on 4
// processes, 2x2, a blocking expansion to 2x3, a blocking shrink back, a regrid to 1x4,
// then an expansion to 1x6 and a shrink to 2x2 begun in the background (a constant
// matrix, Background::Wait) and completed by complete_resize(). After each resize every
// process of the job has called malloc_trim exactly once more (a newcomer: once, when it
// joined); beginning a resize in the background calls it not; world rank 0's record of
// each resize holds the trim's time (other.heap_trim_s >= 0). With "off"
// (RESIZE_HEAP_TRIM=off, set before the session reads it; the spawned copies get the same
// argument) nobody calls it and the records say -1. Counts, not times: nothing here
// depends on the machine's speed. Prints PASS on world rank 0.
//   mpiexec -n 4 session_heap_trim [off]
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "malleable/resize/session.hpp"
#include "parts/heap_trim.hpp"
#include "session_test_util.hpp"

namespace {

using resize::detail::heap_trims_called;

struct Check {
  resize::Session& s;
  bool on;
  long long faults = 0;  // this process's, in the phase under way

  void fault(const std::string& what) {
    ++faults;
    std::fprintf(stderr, "session_heap_trim: world rank %d: %s\n", s.world_rank(), what.c_str());
  }
  // This process's trims since `before`: one after a resize (none with "off").
  void trims(long before, long expected_on, const std::string& what) {
    const long got = heap_trims_called() - before, want = on ? expected_on : 0;
    if (got != want)
      fault(what + ": " + std::to_string(got) + " heap trims, expected " + std::to_string(want));
  }
  // Rank 0: the newest record is `count`-th and holds the trim's time (-1 with "off").
  void record(std::size_t count, const std::string& what) {
    if (s.world_rank() != 0) return;
    const auto& rs = s.metrics().resizes();
    if (rs.size() != count) return fault(what + ": " + std::to_string(rs.size()) + " records, expected " +
                                         std::to_string(count));
    const double t = rs.back().other.heap_trim_s;
    if (on ? t < 0 : t != -1) fault(what + ": the record's heap_trim_s is " + std::to_string(t) + (on ? ", not a time" : ", not -1"));
  }
  // Every process of the job, after a phase (before any of them can leave in the next
  // one): any fault ends the job.
  void phase_done(const std::string& phase) {
    session_test::all_right(s, faults, "session_heap_trim", phase, "faults", nullptr);
    faults = 0;
  }
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const bool off = argc > 1 && std::strcmp(argv[1], "off") == 0;
  if (off) setenv("RESIZE_HEAP_TRIM", "off", 1);
#if defined(__GLIBC__)
  const bool on = !off;
#else
  const bool on = false;  // no malloc_trim to call: none is counted, the records say -1
#endif
  {
    resize::SessionOptions o = session_test::quiet_options();
    o.app = "session_heap_trim";
    o.resize_timeout = 120;
    resize::Session s(argc, argv, std::move(o));
    auto a = s.register_matrix<double>("A", 40, 40, 4, 4);
    auto c = s.register_matrix<double>("C", 40, 40, 4, 4);
    s.mark_constant("C");  // what a background resize moves while the old grid computes
    int step = 0;          // the resizes begun so far, handed to newcomers
    s.set_app_state([&] { return std::vector<char>(reinterpret_cast<const char*>(&step),
                                                   reinterpret_cast<const char*>(&step) + sizeof step); },
                    [&](const std::vector<char>& b) {
                      if (b.size() == sizeof step) std::memcpy(&step, b.data(), sizeof step);
                    });
    Check chk{s, on};
    const auto reached = [&](const resize::RemapResult& r, int procs, const char* what) {
      session_test::reached(s, r, procs, "session_heap_trim", what);
    };
    const auto in_background = [&](const resize::RemapResult& begun, const char* what) {
      if (!s.resize_in_background()) chk.fault(std::string(what) + " did not begin in the background: " + begun.message);
    };
    if (s.is_newcomer()) {
      const long before = heap_trims_called();
      s.join();
      chk.trims(before, 1, "a newcomer's join");
    } else {
      s.start(resize::Grid{2, 2, {}});
    }
    if (step < 1) {  // the originals: a blocking expansion (its newcomers join above)
      step = 1;
      const long before = heap_trims_called();
      reached(s.resize_now(session_test::decision(resize::Action::Expand, 6, 2, 3)), 6, "the blocking expansion");
      chk.trims(before, 1, "the blocking expansion");
      chk.record(1, "the blocking expansion");
    }
    if (step < 3) {  // the originals and the first newcomers: a blocking shrink, a regrid
      chk.phase_done("the blocking expansion");
      step = 2;
      long before = heap_trims_called();
      reached(s.resize_now(session_test::decision(resize::Action::Shrink, 4, 2, 2)), 4, "the blocking shrink");
      chk.trims(before, 1, "the blocking shrink");
      chk.record(2, "the blocking shrink");
      chk.phase_done("the blocking shrink");
      before = heap_trims_called();
      reached(s.resize_now(session_test::decision(resize::Action::Regrid, 0, 1, 4)), 4, "the regrid");
      chk.trims(before, 1, "the regrid");
      chk.record(3, "the regrid");
      chk.phase_done("the regrid");
      // An expansion begun in the background: no trim until it completes.
      s.set_background(resize::Background::Wait, 1);
      step = 3;
      before = heap_trims_called();
      in_background(s.resize_now(session_test::decision(resize::Action::Expand, 6, 1, 6)), "the expansion");
      chk.trims(before, 0, "the background expansion's beginning");
      reached(s.complete_resize(), 6, "the background expansion");
      chk.trims(before, 1, "the background expansion");
      chk.record(4, "the background expansion");
    }
    // Everybody (the originals and the background expansion's newcomers): a shrink begun
    // in the background, completed.
    chk.phase_done("the background expansion");
    step = 4;
    const long before = heap_trims_called();
    in_background(s.resize_now(session_test::decision(resize::Action::Shrink, 4, 2, 2)), "the shrink");
    chk.trims(before, 0, "the background shrink's beginning");
    reached(s.complete_resize(), 4, "the background shrink");
    chk.trims(before, 1, "the background shrink");
    chk.record(5, "the background shrink");
    chk.phase_done("the background shrink");
  }
  return session_test::verdict(true, {});
}
