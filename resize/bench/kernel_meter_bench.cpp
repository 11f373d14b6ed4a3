// SPDX-License-Identifier: BSD-3-Clause
// What kernel metering costs a small BLAS call: a 4x4 dgemm_ through OpenBLAS
// directly (stock), through libmalleable_resize_meter with metering off, and with it on,
// interleaved in rounds, best round of each, in ns per call.
//   kernel_meter_bench [calls per round = 200000] [rounds = 5]
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "malleable/resize/kernel_meter.hpp"

extern "C" void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*,
                       const int*, const double*, const int*, const double*, double*, const int*, std::size_t,
                       std::size_t);
using dgemm_t = decltype(&dgemm_);

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::atoi(argv[1]) : 200000, rounds = argc > 2 ? std::atoi(argv[2]) : 5;
  void* lib = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  const auto stock = lib ? reinterpret_cast<dgemm_t>(dlsym(lib, "dgemm_")) : nullptr;
  if (!stock) {
    std::fprintf(stderr, "kernel_meter_bench: cannot load OpenBLAS's dgemm_ (%s)\n", dlerror());
    return 1;
  }
  const int n = 4;
  const double one = 1.0, zero = 0.0;
  std::vector<double> a(16, 0.5), b(16, 0.25), c(16, 0.0);
  const auto time_ns = [&](dgemm_t f) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) f("N", "N", &n, &n, &n, &one, a.data(), &n, b.data(), &n, &zero, c.data(), &n, 1, 1);
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / calls;
  };
  double best_stock = 1e30, best_off = 1e30, best_on = 1e30;
  for (int r = 0; r < rounds; ++r) {
    best_stock = std::min(best_stock, time_ns(stock));
    resize::kernel_meter_enable(false);
    best_off = std::min(best_off, time_ns(&dgemm_));
    resize::kernel_meter_enable(true);
    best_on = std::min(best_on, time_ns(&dgemm_));
  }
  std::printf("# 4x4 dgemm_, %d calls x %d rounds, best round, ns per call\n", calls, rounds);
  std::printf("%-22s %8.1f\n%-22s %8.1f  (%.2fx stock)\n%-22s %8.1f  (%.2fx stock)\n", "stock OpenBLAS", best_stock,
              "meter linked, off", best_off, best_off / best_stock, "meter on", best_on, best_on / best_stock);
  std::printf("# kernel seconds counted while on: %.3f\n", resize::kernel_cpu_seconds());
  return resize::kernel_cpu_seconds() > 0 ? 0 : 1;
}
