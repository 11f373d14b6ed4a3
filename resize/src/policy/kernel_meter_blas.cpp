// SPDX-License-Identifier: BSD-3-Clause
// BLAS interposers for the compute-only clock (kernel_meter.hpp), in their own library,
// libmalleable_resize_meter: linked (ahead of OpenBLAS) or preloaded only by programs that
// meter. Each forwards to the next definition in the lookup order and, while metering is
// on, adds the calling thread's CPU time to the counter.
#include <dlfcn.h>
#include <time.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>

#include "malleable/resize/kernel_meter.hpp"

namespace {
thread_local int t_depth = 0;  // a metered kernel calling another one is counted once

double thread_cpu() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

template <class F>
F next(const char* name) {
  void* p = dlsym(RTLD_NEXT, name);
  if (!p) {
    std::fprintf(stderr, "resize kernel meter: no %s after libmalleable_resize_meter in the link order\n", name);
    std::abort();
  }
  return reinterpret_cast<F>(p);
}

// Calls `real` with the arguments, measured when metering is on.
template <class F, class... A>
void metered(F real, A... a) {
  if (!resize::kernel_meter_enabled() || t_depth > 0) {
    real(a...);
    return;
  }
  ++t_depth;
  const double t0 = thread_cpu();
  real(a...);
  resize::kernel_meter_add(thread_cpu() - t0);
  --t_depth;
}
}  // namespace

// Fortran BLAS entry points, with the hidden character-length arguments gfortran passes
// (forwarded unchanged; callers that do not pass them leave values OpenBLAS ignores).
extern "C" {

using dgemm_t = void (*)(const char*, const char*, const int*, const int*, const int*, const double*,
                         const double*, const int*, const double*, const int*, const double*, double*,
                         const int*, std::size_t, std::size_t);
void dgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k, const double* alpha,
            const double* a, const int* lda, const double* b, const int* ldb, const double* beta, double* c,
            const int* ldc, std::size_t la, std::size_t lb) {
  static const dgemm_t real = next<dgemm_t>("dgemm_");
  metered(real, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, la, lb);
}

using dgemv_t = void (*)(const char*, const int*, const int*, const double*, const double*, const int*,
                         const double*, const int*, const double*, double*, const int*, std::size_t);
void dgemv_(const char* t, const int* m, const int* n, const double* alpha, const double* a, const int* lda,
            const double* x, const int* incx, const double* beta, double* y, const int* incy, std::size_t lt) {
  static const dgemv_t real = next<dgemv_t>("dgemv_");
  metered(real, t, m, n, alpha, a, lda, x, incx, beta, y, incy, lt);
}

using dtrsm_t = void (*)(const char*, const char*, const char*, const char*, const int*, const int*,
                         const double*, const double*, const int*, double*, const int*, std::size_t,
                         std::size_t, std::size_t, std::size_t);
void dtrsm_(const char* side, const char* uplo, const char* ta, const char* diag, const int* m, const int* n,
            const double* alpha, const double* a, const int* lda, double* b, const int* ldb, std::size_t l1,
            std::size_t l2, std::size_t l3, std::size_t l4) {
  static const dtrsm_t real = next<dtrsm_t>("dtrsm_");
  metered(real, side, uplo, ta, diag, m, n, alpha, a, lda, b, ldb, l1, l2, l3, l4);
}

}  // extern "C"
