// BLAS interposers for the compute-only clock (apps/kernel_meter.hpp). Each forwards to
// the next definition in the lookup order (OpenBLAS) and adds its thread CPU time.
#include "malleable/resize/kernel_meter.hpp"

#include <dlfcn.h>
#include <time.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>

namespace resize {
namespace {
double g_kernel = 0.0;
int g_depth = 0;  // a metered kernel calling another one is counted once

double thread_cpu() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

template <class F>
F next(const char* name) {
  void* p = dlsym(RTLD_NEXT, name);
  if (!p) {
    std::fprintf(stderr, "resize kernel meter: no %s after libmalleable_resize in the link order\n", name);
    std::abort();
  }
  return reinterpret_cast<F>(p);
}

struct Scope {
  double t0;
  Scope() : t0(g_depth++ == 0 ? thread_cpu() : 0.0) {}
  ~Scope() {
    if (--g_depth == 0) g_kernel += thread_cpu() - t0;
  }
};
}  // namespace

double kernel_cpu_seconds() { return g_kernel; }
void kernel_meter_add(double seconds) { g_kernel += seconds; }

}  // namespace resize

// Fortran BLAS entry points, with the hidden character-length arguments gfortran passes
// (forwarded unchanged; callers that do not pass them leave values OpenBLAS ignores).
extern "C" {

using dgemm_t = void (*)(const char*, const char*, const int*, const int*, const int*, const double*,
                         const double*, const int*, const double*, const int*, const double*, double*,
                         const int*, std::size_t, std::size_t);
void dgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k, const double* alpha,
            const double* a, const int* lda, const double* b, const int* ldb, const double* beta, double* c,
            const int* ldc, std::size_t la, std::size_t lb) {
  static const dgemm_t real = resize::next<dgemm_t>("dgemm_");
  resize::Scope s;
  real(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, la, lb);
}

using dgemv_t = void (*)(const char*, const int*, const int*, const double*, const double*, const int*,
                         const double*, const int*, const double*, double*, const int*, std::size_t);
void dgemv_(const char* t, const int* m, const int* n, const double* alpha, const double* a, const int* lda,
            const double* x, const int* incx, const double* beta, double* y, const int* incy, std::size_t lt) {
  static const dgemv_t real = resize::next<dgemv_t>("dgemv_");
  resize::Scope s;
  real(t, m, n, alpha, a, lda, x, incx, beta, y, incy, lt);
}

using dtrsm_t = void (*)(const char*, const char*, const char*, const char*, const int*, const int*,
                         const double*, const double*, const int*, double*, const int*, std::size_t,
                         std::size_t, std::size_t, std::size_t);
void dtrsm_(const char* side, const char* uplo, const char* ta, const char* diag, const int* m, const int* n,
            const double* alpha, const double* a, const int* lda, double* b, const int* ldb, std::size_t l1,
            std::size_t l2, std::size_t l3, std::size_t l4) {
  static const dtrsm_t real = resize::next<dtrsm_t>("dtrsm_");
  resize::Scope s;
  real(side, uplo, ta, diag, m, n, alpha, a, lda, b, ldb, l1, l2, l3, l4);
}

}  // extern "C"
