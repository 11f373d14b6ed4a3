// SPDX-License-Identifier: BSD-3-Clause
// A user's program: state that cannot be recomputed, carried by newcomers.
// A matrix A of element type s, d, c or z grows every iteration k by k * W (W constant,
// marked constant so a background resize moves it while the old grid computes), and
// every process keeps a running sum S += sum(A) over the iterations. S is the program's
// own state: newcomers get it from the session's state hand-over (set_app_state), and
// they must neither refill A nor reset S. At the end every process's S is compared with
// the closed form: all values are small integers, so every type gives it exactly.
// Built against the installed package (tests/combinations/user/CMakeLists.txt).
//   mpiexec -n 4 user_cxx [--type s|d|c|z] [--schedule S] [--mover redist|pdgemr2d]
//                         [--background off|wait|continue] [--iters K] [-n N] [--grid PxQ]
//                         [--newcomer-mistake refill|forget]   (controls: the check must fail)
#include <mpi.h>

#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "malleable/resize/policy.hpp"
#include "malleable/resize/session.hpp"

namespace {

struct Options {
  std::string type = "d", schedule, mover = "redist", background = "off", grid = "2x2";
  std::string mistake;  // a control: newcomers "refill" A and W, or "forget" the sum
  int iters = 5, n = 48;
};

// Initial A and the constant W: small integers (imaginary parts for c and z).
double a0(int i, int j, int part) { return ((i + 2 * j + 3 * part) % 7) + 1; }
double w0(int i, int j, int part) { return ((3 * i + j + part) % 5) + 1; }

template <class T> struct Parts {
  static T make(double re, double) { return static_cast<T>(re); }
  static double re(T v) { return static_cast<double>(v); }
  static double im(T) { return 0; }
};
template <class R> struct Parts<std::complex<R>> {
  static std::complex<R> make(double re, double im) { return {static_cast<R>(re), static_cast<R>(im)}; }
  static double re(std::complex<R> v) { return v.real(); }
  static double im(std::complex<R> v) { return v.imag(); }
};

int usage(int rank, const std::string& what) {
  if (rank == 0) std::fprintf(stderr, "user_cxx: %s\n", what.c_str());
  return 2;
}

// Parses argv into o: -1 to run, else the exit status (2: a usage error, said on rank 0).
int parse(int argc, char** argv, Options& o, int rank) {
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    if (k + 1 >= argc) return usage(rank, "option " + a + " needs a value");
    const std::string v = argv[++k];
    if (a == "--type") o.type = v;
    else if (a == "--schedule") o.schedule = v;
    else if (a == "--mover") o.mover = v;
    else if (a == "--background") o.background = v;
    else if (a == "--iters") o.iters = std::atoi(v.c_str());
    else if (a == "-n") o.n = std::atoi(v.c_str());
    else if (a == "--grid") o.grid = v;
    else if (a == "--newcomer-mistake") o.mistake = v;
    else return usage(rank, "unknown option " + a);
  }
  if (o.type.size() != 1 || std::string("sdcz").find(o.type) == std::string::npos)
    return usage(rank, "--type " + o.type + ": the element type is one of s, d, c, z");
  if (o.background != "off" && o.background != "wait" && o.background != "continue")
    return usage(rank, "--background " + o.background + ": one of off, wait, continue");
  if (o.mover != "redist" && o.mover != "pdgemr2d")
    return usage(rank, "--mover " + o.mover + ": one of redist, pdgemr2d");
  if (o.iters < 1 || o.n < 1) return usage(rank, "--iters and -n must be at least 1");
  if (!o.mistake.empty() && o.mistake != "refill" && o.mistake != "forget")
    return usage(rank, "--newcomer-mistake " + o.mistake + ": refill or forget");
  return -1;
}

template <class T>
int run(int argc, char** argv, const Options& o) {
  resize::SessionOptions so;
  so.app = "user_cxx";
  so.policy = o.schedule.empty() ? resize::make_policy("fixed", "", "") : resize::make_policy("scripted", o.schedule, "");
  so.mover = resize::parse_mover(o.mover);
  so.background = resize::parse_background(o.background);
  so.total_iterations = o.iters;
  bool ok = false;
  {
    resize::Session s(argc, argv, std::move(so));
    auto a = s.register_matrix<T>("A", o.n, o.n, 8, 8);
    auto w = s.register_matrix<T>("W", o.n, o.n, 8, 8);
    s.mark_constant("W");
    double sum[2] = {0, 0};  // the running sum (re, im): this program's own state
    s.set_app_state([&] { return std::vector<char>(reinterpret_cast<char*>(sum), reinterpret_cast<char*>(sum) + sizeof sum); },
                    [&](const std::vector<char>& v) { std::memcpy(sum, v.data(), sizeof sum); });
    const auto x = o.grid.find('x');
    const bool newcomer = s.is_newcomer();  // asked before join()
    int it = newcomer ? s.join() : s.start(resize::Grid{std::atoi(o.grid.c_str()), std::atoi(o.grid.c_str() + x + 1), {}});
    if (newcomer && o.mistake == "forget") sum[0] = sum[1] = 0;  // a control: the check must fail
    if (!newcomer || o.mistake == "refill") {  // only the original processes create the data
      a.for_each_local([](int i, int j, T& v) { v = Parts<T>::make(a0(i, j, 0), a0(i, j, 1)); });
      w.for_each_local([](int i, int j, T& v) { v = Parts<T>::make(w0(i, j, 0), w0(i, j, 1)); });
    }
    while (it < o.iters) {
      s.begin_iteration();
      ++it;
      double local[2] = {0, 0}, total[2] = {0, 0};
      if (s.in_grid()) {
        T* ad = a.data();
        const T* wd = w.data();
        for (std::size_t k = 0; k < a.size(); ++k) ad[k] += static_cast<T>(it) * wd[k];
        a.for_each_local([&](int, int, T& v) { local[0] += Parts<T>::re(v); local[1] += Parts<T>::im(v); });
      }
      MPI_Allreduce(local, total, 2, MPI_DOUBLE, MPI_SUM, s.world());
      sum[0] += total[0];
      sum[1] += total[1];
      s.end_iteration();
      if (it < o.iters) s.remap_point();
    }
    s.cancel_resize();
    // The closed form: A_k = A0 + k(k+1)/2 W, S = sum_k sum(A_k).
    double ref[2] = {0, 0};
    for (int part = 0; part < 2; ++part) {
      double sa = 0, sw = 0;
      for (int i = 0; i < o.n; ++i)
        for (int j = 0; j < o.n; ++j) sa += a0(i, j, part), sw += w0(i, j, part);
      const bool cplx = o.type == "c" || o.type == "z";
      for (int k = 1; k <= o.iters; ++k) ref[part] += cplx || part == 0 ? sa + k * (k + 1) / 2.0 * sw : 0.0;
    }
    double err = std::abs(sum[0] - ref[0]) + std::abs(sum[1] - ref[1]), worst = 0;
    MPI_Allreduce(&err, &worst, 1, MPI_DOUBLE, MPI_MAX, s.world());
    ok = worst == 0 && it == o.iters;
    char msg[200];
    std::snprintf(msg, sizeof msg, "running sum after %d iterations: (%.1f, %.1f), expected (%.1f, %.1f) on every process: %s",
                  it, sum[0], sum[1], ref[0], ref[1], ok ? "OK" : "FAILED");
    s.set_result_check(ok, msg);
    std::printf("%s", s.summary().c_str());
    if (s.world_rank() == 0)
      std::printf("user_cxx: type %s, %d iterations, now on %s: %s\n", o.type.c_str(), it, s.grid().shape().c_str(), msg);
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  int rank = 0, provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int rc = parse(argc, argv, o, rank);
  if (rc < 0) {
    try {
      rc = o.type == "s" ? run<float>(argc, argv, o)
           : o.type == "d" ? run<double>(argc, argv, o)
           : o.type == "c" ? run<std::complex<float>>(argc, argv, o)
                           : run<std::complex<double>>(argc, argv, o);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "user_cxx (rank %d): error: %s\n", rank, e.what());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  MPI_Finalize();
  return rc;
}
