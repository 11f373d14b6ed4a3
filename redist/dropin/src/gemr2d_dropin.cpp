// SPDX-License-Identifier: BSD-3-Clause
// The PDGEMR2D drop-in ("as users of COSTA know it"): this library defines
// ScaLAPACK's own redistribution entry points, Fortran pxgemr2d_ and C Cpxgemr2d for
// x = s, d, c, z, with Debian libscalapack-openmpi's signatures (REDIST/SRC/p?gemr.c,
// 32-bit Int). Linked ahead of ScaLAPACK, or LD_PRELOADed, it takes their place in an
// unmodified program and serves each call with redist (redist.h's *_fstd entry points on
// the communicator of the BLACS context gctxt).
//
// Behaviour never gets worse than ScaLAPACK's: whatever redist does not take is handed to
// ScaLAPACK's own implementation, found with dlsym(RTLD_NEXT). That covers
//   - REDIST_GEMR2D=scalapack (forced),
//   - m <= 0 or n <= 0 (ScaLAPACK returns at once for 0 and has its own conduct for < 0),
//   - a gctxt that is not a grid on this process (no communicator to run redist on),
//   - every call redist refuses, e.g. LLD = 0 on a process holding no rows, which
//     ScaLAPACK accepts. redist's argument check is collective and leaves B untouched, so
//     all processes of gctxt refuse together and call ScaLAPACK together; ScaLAPACK then
//     either succeeds or reports the error its own way ("??MR2D:..." and exit(1)).
// The integer and trapezoidal variants (p?igemr2d, p?trmr2d) are not defined here, so
// ScaLAPACK's serve them directly.
//
// ScaLAPACK's pxgemr2d_ calls Cpxgemr2d through the PLT, i.e. back into this library
// while a call is being forwarded; a thread-local flag sends that inner call straight on.
#include <dlfcn.h>
#include <mpi.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "malleable/redist/blacs.hpp"
#include "malleable/redist/redist.h"
#include "malleable/redist/scalapack_api.h"
#include "config.hpp"

namespace {

using redist::dropin::Config;
using redist::dropin::config;

const char* schedule_name(int s) {
  switch (s) {
    case REDIST_CATERPILLAR: return "caterpillar";
    case REDIST_CIRCULANT: return "circulant";
    case REDIST_MATCHING: return "matching";
    case REDIST_ALLATONCE: return "allatonce";
    default: return "default";
  }
}

// The entry points, for the once-per-process report and the forwarding table.
enum Entry { kPs, kPd, kPc, kPz, kCps, kCpd, kCpc, kCpz, kEntries };
constexpr std::array<const char*, kEntries> kNames{"psgemr2d_", "pdgemr2d_", "pcgemr2d_", "pzgemr2d_",
                                                   "Cpsgemr2d", "Cpdgemr2d", "Cpcgemr2d", "Cpzgemr2d"};

enum Outcome { kServed, kForced, kForwarded, kOutcomes };
std::array<std::array<std::atomic<bool>, kOutcomes>, kEntries> g_reported{};
std::atomic<bool> g_bad_value_reported{false};

int world_rank() {
  int init = 0, fin = 0, r = -1;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

// One line on stderr the first time an entry point meets an outcome on this process, so a
// user sees which implementation serves the program without a line per call.
void report(Entry e, Outcome o, const std::string& why) {
  const Config& c = config();
  if (!c.bad_value.empty() && !g_bad_value_reported.exchange(true))
    std::fprintf(stderr, "redist_gemr2d: REDIST_GEMR2D=%s is not one of redist, scalapack, caterpillar, circulant, "
                         "matching, allatonce; using redist's default\n", c.bad_value.c_str());
  if (!c.verbose || g_reported[e][o].exchange(true)) return;
  const int r = world_rank();
  switch (o) {
    case kServed:
      std::fprintf(stderr, "redist_gemr2d: rank %d: %s served by malleable redist (schedule %s)\n", r, kNames[e],
                   schedule_name(c.schedule));
      break;
    case kForced:
      std::fprintf(stderr, "redist_gemr2d: rank %d: %s served by ScaLAPACK (REDIST_GEMR2D=scalapack)\n", r, kNames[e]);
      break;
    default:
      std::fprintf(stderr, "redist_gemr2d: rank %d: %s forwarded to ScaLAPACK: %s\n", r, kNames[e], why.c_str());
  }
  std::fflush(stderr);
}

// ScaLAPACK's definition of an entry point: the next object after this one in the lookup
// order (ScaLAPACK itself when this library is linked ahead of it or preloaded).
void* original(Entry e) {
  static std::array<std::atomic<void*>, kEntries> cache{};
  void* p = cache[e].load(std::memory_order_acquire);
  if (p) return p;
  p = dlsym(RTLD_NEXT, kNames[e]);
  if (!p) {
    const char* err = dlerror();
    std::fprintf(stderr, "redist_gemr2d: ScaLAPACK's %s not found after libmalleable_redist_gemr2d (%s); "
                         "link ScaLAPACK after the drop-in\n", kNames[e], err ? err : "no such symbol");
    std::abort();
  }
  cache[e].store(p, std::memory_order_release);
  return p;
}

thread_local bool t_forwarding = false;

// Runs ScaLAPACK's implementation with inner calls into this library passed straight on.
template <class Fn, class... Args>
void forward(Entry e, Args... args) {
  const bool outer = !t_forwarding;
  t_forwarding = true;
  reinterpret_cast<Fn*>(original(e))(args...);
  if (outer) t_forwarding = false;
}

// One element type: redist's entry point with standard DESCs on a Fortran communicator.
template <class T>
using FstdFn = int(int64_t, int64_t, const T*, int64_t, int64_t, const int*, T*, int64_t, int64_t, const int*,
                   MPI_Fint, int);

// Serves B(ib:, jb:) := A(ia:, ja:) with redist when it can. Returns false, with the reason
// in *why, when the call is ScaLAPACK's to make; then B has not been touched.
template <class T>
bool serve_with_redist(FstdFn<T>* fn, int m, int n, const T* a, int ia, int ja, const int* desca, T* b, int ib,
                       int jb, const int* descb, int gctxt, std::string* why) {
  if (m <= 0 || n <= 0) {
    *why = "m = " + std::to_string(m) + ", n = " + std::to_string(n) + " (nothing for redist to move)";
    return false;
  }
  int nprow = -1, npcol = -1, myr = -1, myc = -1;
  Cblacs_gridinfo(gctxt, &nprow, &npcol, &myr, &myc);
  if (nprow < 1 || npcol < 1 || myr < 0 || myc < 0) {
    *why = "gctxt = " + std::to_string(gctxt) + " is not a BLACS grid on this process";
    return false;
  }
  MPI_Comm comm = MPI_COMM_NULL;
  try {
    comm = redist::blacs_grid_comm(gctxt);
  } catch (const std::exception& e) {
    *why = e.what();
    return false;
  }
  const int rc = fn(m, n, a, ia, ja, desca, b, ib, jb, descb, MPI_Comm_c2f(comm), config().schedule);
  if (rc == REDIST_SUCCESS) return true;
  *why = std::string("redist declined: ") + redist_error_message();
  return false;
}

// The common path of all eight entry points. `scalapack` calls the original with the
// caller's own arguments (so a Fortran call is forwarded as a Fortran call).
template <class T, class Forward>
void gemr2d(Entry e, FstdFn<T>* fn, int m, int n, const T* a, int ia, int ja, const int* desca, T* b, int ib, int jb,
            const int* descb, int gctxt, Forward&& scalapack) {
  if (t_forwarding) {  // ScaLAPACK's Fortran wrapper calling its C routine
    scalapack();
    return;
  }
  if (config().force_scalapack) {
    report(e, kForced, "");
    scalapack();
    return;
  }
  std::string why;
  if (serve_with_redist<T>(fn, m, n, a, ia, ja, desca, b, ib, jb, descb, gctxt, &why)) {
    report(e, kServed, "");
    return;
  }
  report(e, kForwarded, why);
  scalapack();
}

// redist's complex entry points take void*; these adapters give them a typed shape.
struct Complex8 {
  float re, im;
};
struct Complex16 {
  double re, im;
};
int fstd_c(int64_t m, int64_t n, const Complex8* a, int64_t ia, int64_t ja, const int* desca, Complex8* b, int64_t ib,
           int64_t jb, const int* descb, MPI_Fint comm, int schedule) {
  return redist_pcgemr2d_fstd(m, n, a, ia, ja, desca, b, ib, jb, descb, comm, schedule);
}
int fstd_z(int64_t m, int64_t n, const Complex16* a, int64_t ia, int64_t ja, const int* desca, Complex16* b,
           int64_t ib, int64_t jb, const int* descb, MPI_Fint comm, int schedule) {
  return redist_pzgemr2d_fstd(m, n, a, ia, ja, desca, b, ib, jb, descb, comm, schedule);
}

template <class T>
using CFn = void(int, int, const T*, int, int, const int*, T*, int, int, const int*, int);
template <class T>
using FFn = void(const int*, const int*, const T*, const int*, const int*, const int*, T*, const int*, const int*,
                 const int*, const int*);

template <class T>
void c_entry(Entry e, FstdFn<T>* fn, int m, int n, const T* a, int ia, int ja, const int* desca, T* b, int ib, int jb,
             const int* descb, int gctxt) {
  gemr2d<T>(e, fn, m, n, a, ia, ja, desca, b, ib, jb, descb, gctxt,
            [&] { forward<CFn<T>>(e, m, n, a, ia, ja, desca, b, ib, jb, descb, gctxt); });
}

template <class T>
void f_entry(Entry e, FstdFn<T>* fn, const int* m, const int* n, const T* a, const int* ia, const int* ja,
             const int* desca, T* b, const int* ib, const int* jb, const int* descb, const int* gctxt) {
  gemr2d<T>(e, fn, *m, *n, a, *ia, *ja, desca, b, *ib, *jb, descb, *gctxt,
            [&] { forward<FFn<T>>(e, m, n, a, ia, ja, desca, b, ib, jb, descb, gctxt); });
}

}  // namespace

extern "C" {

// C interface, as REDIST/SRC/p?gemr.c defines it (the project's scalapack_api.h declares
// the d/s/c/z forms with these exact types).
void Cpsgemr2d(int m, int n, const float* a, int ia, int ja, const int* desca, float* b, int ib, int jb,
               const int* descb, int gctxt) {
  c_entry<float>(kCps, redist_psgemr2d_fstd, m, n, a, ia, ja, desca, b, ib, jb, descb, gctxt);
}
void Cpdgemr2d(int m, int n, const double* a, int ia, int ja, const int* desca, double* b, int ib, int jb,
               const int* descb, int gctxt) {
  c_entry<double>(kCpd, redist_pdgemr2d_fstd, m, n, a, ia, ja, desca, b, ib, jb, descb, gctxt);
}
void Cpcgemr2d(int m, int n, const void* a, int ia, int ja, const int* desca, void* b, int ib, int jb,
               const int* descb, int gctxt) {
  c_entry<Complex8>(kCpc, fstd_c, m, n, static_cast<const Complex8*>(a), ia, ja, desca, static_cast<Complex8*>(b), ib,
                    jb, descb, gctxt);
}
void Cpzgemr2d(int m, int n, const void* a, int ia, int ja, const int* desca, void* b, int ib, int jb,
               const int* descb, int gctxt) {
  c_entry<Complex16>(kCpz, fstd_z, m, n, static_cast<const Complex16*>(a), ia, ja, desca, static_cast<Complex16*>(b),
                     ib, jb, descb, gctxt);
}

// Fortran interface: every argument by reference, trailing underscore (gfortran).
void psgemr2d_(const int* m, const int* n, const float* a, const int* ia, const int* ja, const int* desca, float* b,
               const int* ib, const int* jb, const int* descb, const int* gctxt) {
  f_entry<float>(kPs, redist_psgemr2d_fstd, m, n, a, ia, ja, desca, b, ib, jb, descb, gctxt);
}
void pdgemr2d_(const int* m, const int* n, const double* a, const int* ia, const int* ja, const int* desca, double* b,
               const int* ib, const int* jb, const int* descb, const int* gctxt) {
  f_entry<double>(kPd, redist_pdgemr2d_fstd, m, n, a, ia, ja, desca, b, ib, jb, descb, gctxt);
}
void pcgemr2d_(const int* m, const int* n, const void* a, const int* ia, const int* ja, const int* desca, void* b,
               const int* ib, const int* jb, const int* descb, const int* gctxt) {
  f_entry<Complex8>(kPc, fstd_c, m, n, static_cast<const Complex8*>(a), ia, ja, desca, static_cast<Complex8*>(b), ib,
                    jb, descb, gctxt);
}
void pzgemr2d_(const int* m, const int* n, const void* a, const int* ia, const int* ja, const int* desca, void* b,
               const int* ib, const int* jb, const int* descb, const int* gctxt) {
  f_entry<Complex16>(kPz, fstd_z, m, n, static_cast<const Complex16*>(a), ia, ja, desca, static_cast<Complex16*>(b),
                     ib, jb, descb, gctxt);
}

}  // extern "C"
