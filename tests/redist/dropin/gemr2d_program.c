/* An ordinary ScaLAPACK program in C that knows nothing of malleable: it moves submatrices
 * between process grids with Cpdgemr2d and Cpzgemr2d, checks every local element (inside
 * and outside the copied region, and the padding below the local rows) against a replica
 * of the global matrices, and writes its local arrays bit for bit to <prefix>.<rank>.
 * The drop-in test runs it stock, relinked with libmalleable_redist_gemr2d and with it
 * preloaded, and compares the dumps. 4 processes.
 *
 * Usage: mpiexec -n 4 gemr2d_program <dump prefix> */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ScaLAPACK ships no C header: prototypes as a user writes them (REDIST/SRC/p?gemr.c). */
void Cblacs_get(int icontxt, int what, int* val);
void Cblacs_gridinit(int* icontxt, char* order, int nprow, int npcol);
void Cblacs_gridmap(int* icontxt, int* usermap, int ldumap, int nprow, int npcol);
void Cblacs_gridinfo(int icontxt, int* nprow, int* npcol, int* myprow, int* mypcol);
void Cblacs_gridexit(int icontxt);
void Cblacs_exit(int notdone);
int numroc_(int* n, int* nb, int* iproc, int* isrcproc, int* nprocs);
int indxl2g_(int* indxloc, int* nb, int* iproc, int* isrcproc, int* nprocs);
void Cpdgemr2d(int m, int n, double* a, int ia, int ja, int* desca, double* b, int ib, int jb, int* descb,
               int gcontext);
typedef struct {
  double r, i;
} dcomplex;
void Cpzgemr2d(int m, int n, dcomplex* a, int ia, int ja, int* desca, dcomplex* b, int ib, int jb, int* descb,
               int gcontext);

static int me = 0, failures = 0, checked = 0;
static const double kPadding = -7.25e300;

/* A distributed matrix of doubles (w = 1) or double complex (w = 2, interleaved) with a
 * replica of its global content on every process. */
typedef struct {
  int desc[9];
  int w, myr, myc, nprow, npcol, lrows, lcols;
  double* local; /* lld x lcols x w, NULL outside the grid */
  double* global; /* M x N x w, column-major */
} Matrix;

static double value(int tag, int i, int j, int k) { /* every bit of the mantissa in use */
  return (double)(tag * 100003 + i * 1009 + j * 17 + k) / 7.0 + 1.0 / (1.0 + i + 3.0 * j);
}

/* lld_zero: LLD = local rows even when that is 0 (ScaLAPACK accepts it), else
 * max(1, local rows) plus a padding row on odd ranks. */
static Matrix make(int ctxt, int tag, int w, int m, int n, int mb, int nb, int rsrc, int csrc, int lld_zero) {
  Matrix x;
  memset(&x, 0, sizeof x);
  x.w = w;
  Cblacs_gridinfo(ctxt, &x.nprow, &x.npcol, &x.myr, &x.myc);
  const int in = x.myr >= 0 && x.myc >= 0 && x.myr < x.nprow && x.myc < x.npcol;
  int lld = 0;
  if (in) {
    x.lrows = numroc_(&m, &mb, &x.myr, &rsrc, &x.nprow);
    x.lcols = numroc_(&n, &nb, &x.myc, &csrc, &x.npcol);
    lld = lld_zero ? x.lrows : (x.lrows > 1 ? x.lrows : 1) + me % 2;
  }
  const int d[9] = {1, in ? ctxt : -1, m, n, mb, nb, rsrc, csrc, lld};
  memcpy(x.desc, d, sizeof d);
  x.global = malloc(sizeof(double) * (size_t)m * (size_t)n * (size_t)w);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i)
      for (int k = 0; k < w; ++k) x.global[((size_t)j * (size_t)m + (size_t)i) * (size_t)w + (size_t)k] = value(tag, i, j, k);
  if (in) {
    const size_t cnt = (size_t)(lld > 0 ? lld : 1) * (size_t)(x.lcols > 0 ? x.lcols : 1) * (size_t)w;
    x.local = malloc(sizeof(double) * cnt);
    for (size_t e = 0; e < cnt; ++e) x.local[e] = kPadding;
    for (int jl = 1; jl <= x.lcols; ++jl)
      for (int il = 1; il <= x.lrows; ++il) {
        const int ig = indxl2g_(&il, &mb, &x.myr, &rsrc, &x.nprow) - 1;
        const int jg = indxl2g_(&jl, &nb, &x.myc, &csrc, &x.npcol) - 1;
        for (int k = 0; k < w; ++k)
          x.local[((size_t)(jl - 1) * (size_t)lld + (size_t)(il - 1)) * (size_t)w + (size_t)k] =
              x.global[((size_t)jg * (size_t)m + (size_t)ig) * (size_t)w + (size_t)k];
      }
  }
  return x;
}

/* The global effect of B(ib:, jb:) := A(ia:, ja:) on the replicas. */
static void copy_global(const Matrix* a, int ia, int ja, Matrix* b, int ib, int jb, int m, int n) {
  const int w = a->w;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i)
      for (int k = 0; k < w; ++k)
        b->global[((size_t)(jb - 1 + j) * (size_t)b->desc[2] + (size_t)(ib - 1 + i)) * (size_t)w + (size_t)k] =
            a->global[((size_t)(ja - 1 + j) * (size_t)a->desc[2] + (size_t)(ia - 1 + i)) * (size_t)w + (size_t)k];
}

/* Every local element equals its global replica bit for bit; the padding is untouched. */
static void check(const Matrix* x, const char* what) {
  if (!x->local) return;
  const int m = x->desc[2], lld = x->desc[8], w = x->w;
  int mb = x->desc[4], nb = x->desc[5], rsrc = x->desc[6], csrc = x->desc[7];
  int myr = x->myr, myc = x->myc, nprow = x->nprow, npcol = x->npcol;
  int bad = 0;
  for (int jl = 1; jl <= x->lcols; ++jl) {
    const int jg = indxl2g_(&jl, &nb, &myc, &csrc, &npcol) - 1;
    for (int il = 1; il <= lld; ++il)
      for (int k = 0; k < w; ++k) {
        const double got = x->local[((size_t)(jl - 1) * (size_t)lld + (size_t)(il - 1)) * (size_t)w + (size_t)k];
        double want = kPadding;
        if (il <= x->lrows) {
          const int ig = indxl2g_(&il, &mb, &myr, &rsrc, &nprow) - 1;
          want = x->global[((size_t)jg * (size_t)m + (size_t)ig) * (size_t)w + (size_t)k];
        }
        ++checked;
        if (memcmp(&got, &want, sizeof got) != 0 && bad++ < 3)
          fprintf(stderr, "rank %d: %s: local (%d,%d)[%d] = %.17g, expected %.17g\n", me, what, il, jl, k, got, want);
      }
  }
  failures += bad;
}

static void dump(FILE* f, const Matrix* x, const char* what) {
  fprintf(f, "%s desc", what);
  for (int k = 0; k < 9; ++k) fprintf(f, " %d", x->desc[k]);
  fprintf(f, "\n");
  if (!x->local) return;
  const size_t cnt = (size_t)x->desc[8] * (size_t)x->lcols * (size_t)x->w;
  for (size_t e = 0; e < cnt; ++e) {
    uint64_t bits;
    memcpy(&bits, &x->local[e], sizeof bits);
    fprintf(f, "%016llx\n", (unsigned long long)bits);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int np = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (np != 4 || argc != 2) {
    if (me == 0) fprintf(stderr, "usage: mpiexec -n 4 %s <dump prefix>\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  /* Grids: 2x2 (also the context spanning everyone), 1x3 on ranks 3,1,2, 3x1 on ranks
   * 2,0,3, 4x1 on ranks 1,3,0,2. */
  int sys = 0, g22 = 0, g13 = 0, g31 = 0, g41 = 0;
  Cblacs_get(-1, 0, &sys);
  g22 = sys;
  Cblacs_gridinit(&g22, "Row", 2, 2);
  int map13[3] = {3, 1, 2}, map31[3] = {2, 0, 3}, map41[4] = {1, 3, 0, 2};
  g13 = sys;
  Cblacs_gridmap(&g13, map13, 1, 1, 3);
  g31 = sys;
  Cblacs_gridmap(&g31, map31, 3, 3, 1);
  g41 = sys;
  Cblacs_gridmap(&g41, map41, 4, 4, 1);

  char path[4096];
  snprintf(path, sizeof path, "%s.%d", argv[1], me);
  FILE* out = fopen(path, "w");
  if (!out) {
    fprintf(stderr, "rank %d: cannot write %s\n", me, path);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  /* Double: 2x2 -> 1x3 -> 3x1 -> 4x1 (LLD = 0 on the process without rows) -> 2x2. */
  Matrix a = make(g22, 1, 1, 37, 29, 4, 3, 1, 1, 0);
  Matrix b = make(g13, 2, 1, 41, 33, 5, 2, 0, 2, 0);
  Matrix c = make(g31, 3, 1, 35, 31, 3, 7, 2, 0, 0);
  Matrix d = make(g41, 4, 1, 6, 20, 2, 5, 1, 0, 1);
  Matrix e = make(g22, 5, 1, 6, 20, 1, 1, 0, 0, 0);
  Cpdgemr2d(30, 25, a.local, 3, 2, a.desc, b.local, 5, 4, b.desc, g22);
  copy_global(&a, 3, 2, &b, 5, 4, 30, 25);
  check(&b, "A(3:32,2:26) -> B(5:34,4:28) on 1x3");
  Cpdgemr2d(29, 24, b.local, 6, 5, b.desc, c.local, 2, 1, c.desc, g22);
  copy_global(&b, 6, 5, &c, 2, 1, 29, 24);
  check(&c, "B -> C on 3x1");
  Cpdgemr2d(5, 18, c.local, 10, 3, c.desc, d.local, 2, 2, d.desc, g22);
  copy_global(&c, 10, 3, &d, 2, 2, 5, 18);
  check(&d, "C -> D on 4x1 (LLD 0 where no rows)");
  Cpdgemr2d(6, 20, d.local, 1, 1, d.desc, e.local, 1, 1, e.desc, g22);
  copy_global(&d, 1, 1, &e, 1, 1, 6, 20);
  check(&e, "D -> E on 2x2, whole matrix");
  check(&a, "A unchanged");

  /* Double complex: 1x3 -> 2x2 -> 4x1. */
  Matrix z1 = make(g13, 6, 2, 23, 19, 4, 4, 0, 1, 0);
  Matrix z2 = make(g22, 7, 2, 25, 21, 3, 5, 1, 0, 0);
  Matrix z3 = make(g41, 8, 2, 30, 18, 6, 2, 3, 0, 0);
  Cpzgemr2d(20, 17, (dcomplex*)z1.local, 2, 3, z1.desc, (dcomplex*)z2.local, 4, 2, z2.desc, g22);
  copy_global(&z1, 2, 3, &z2, 4, 2, 20, 17);
  check(&z2, "Z1 -> Z2 on 2x2");
  Cpzgemr2d(21, 15, (dcomplex*)z2.local, 3, 2, z2.desc, (dcomplex*)z3.local, 7, 4, z3.desc, g22);
  copy_global(&z2, 3, 2, &z3, 7, 4, 21, 15);
  check(&z3, "Z2 -> Z3 on 4x1");

  const Matrix* all[] = {&a, &b, &c, &d, &e, &z1, &z2, &z3};
  const char* names[] = {"A", "B", "C", "D", "E", "Z1", "Z2", "Z3"};
  for (int k = 0; k < 8; ++k) dump(out, all[k], names[k]);
  fclose(out);

  int total = 0, total_checked = 0;
  MPI_Reduce(&failures, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&checked, &total_checked, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (me == 0) printf("gemr2d_program: %d local elements checked, %d wrong\n", total_checked, total);
  for (int k = 0; k < 8; ++k) {
    free(all[k]->local);
    free(all[k]->global);
  }
  const int grids[] = {g22, g13, g31, g41};
  for (int k = 0; k < 4; ++k) {
    int r = -1, c2 = -1, pr = -1, pc = -1;
    Cblacs_gridinfo(grids[k], &r, &c2, &pr, &pc);
    if (pr >= 0) Cblacs_gridexit(grids[k]);
  }
  Cblacs_exit(1);
  MPI_Finalize();
  return total > 0 || failures > 0 ? 1 : 0;
}
