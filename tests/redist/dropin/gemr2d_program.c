/* SPDX-License-Identifier: BSD-3-Clause */
/* An ordinary ScaLAPACK program in C that knows nothing of malleable: it moves submatrices
 * between process grids with Cpdgemr2d and Cpzgemr2d (also Cpsgemr2d, Cpcgemr2d and the
 * Fortran pzgemr2d_, pcgemr2d_, so that with the Fortran program every entry point of the
 * drop-in is met; and pdgemr2d_ in CP2K's call shape: processes outside one grid pass its
 * DESC with all nine entries -1, ScaLAPACK reading only the context there), checks
 * every local element (inside and outside the copied region, and the padding below the
 * local rows) against a replica of the global matrices, and writes its local arrays bit for bit to <prefix>.<rank>.
 * The drop-in test runs it stock, relinked with libmalleable_redist_gemr2d and with it
 * preloaded, and compares the dumps. 4 processes.
 *
 * Usage: mpiexec -n 4 gemr2d_program <dump prefix> */
#include <mpi.h>
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
void Cpsgemr2d(int m, int n, float* a, int ia, int ja, int* desca, float* b, int ib, int jb, int* descb,
               int gcontext);
typedef struct {
  double r, i;
} dcomplex;
typedef struct {
  float r, i;
} scomplex;
void Cpzgemr2d(int m, int n, dcomplex* a, int ia, int ja, int* desca, dcomplex* b, int ib, int jb, int* descb,
               int gcontext);
void Cpcgemr2d(int m, int n, scomplex* a, int ia, int ja, int* desca, scomplex* b, int ib, int jb, int* descb,
               int gcontext);
void pdgemr2d_(int* m, int* n, double* a, int* ia, int* ja, int* desca, double* b, int* ib, int* jb, int* descb,
               int* gcontext);
void pzgemr2d_(int* m, int* n, dcomplex* a, int* ia, int* ja, int* desca, dcomplex* b, int* ib, int* jb, int* descb,
               int* gcontext);
void pcgemr2d_(int* m, int* n, scomplex* a, int* ia, int* ja, int* desca, scomplex* b, int* ib, int* jb, int* descb,
               int* gcontext);

static int me = 0, failures = 0, checked = 0;
static const double kPadding = -7.25e30; /* representable in float too */

/* A distributed matrix of double, float (esz = 8, 4; w = 1) or their complex (w = 2,
 * interleaved) with a replica of its global content on every process. */
typedef struct {
  int desc[9];
  int esz, w, myr, myc, nprow, npcol, lrows, lcols;
  unsigned char* local; /* lld x lcols x w elements, NULL outside the grid */
  double* global;       /* M x N x w, column-major; float matrices hold float values */
} Matrix;

/* Element e of the local array as the replica's type. */
static void put(const Matrix* x, size_t e, double v) {
  if (x->esz == 8) {
    memcpy(x->local + e * 8, &v, 8);
  } else {
    const float f = (float)v;
    memcpy(x->local + e * 4, &f, 4);
  }
}
static int same(const Matrix* x, size_t e, double v) {
  unsigned char want[8];
  if (x->esz == 8) {
    memcpy(want, &v, 8);
  } else {
    const float f = (float)v;
    memcpy(want, &f, 4);
  }
  return memcmp(x->local + e * (size_t)x->esz, want, (size_t)x->esz) == 0;
}
static double get(const Matrix* x, size_t e) {
  if (x->esz == 8) {
    double v;
    memcpy(&v, x->local + e * 8, 8);
    return v;
  }
  float f;
  memcpy(&f, x->local + e * 4, 4);
  return f;
}

static double value(int tag, int i, int j, int k) { /* every bit of the mantissa in use */
  return (double)(tag * 100003 + i * 1009 + j * 17 + k) / 7.0 + 1.0 / (1.0 + i + 3.0 * j);
}

/* lld_zero: LLD = local rows even when that is 0 (ScaLAPACK accepts it), else
 * max(1, local rows) plus a padding row on odd ranks. */
static Matrix make(int ctxt, int tag, int esz, int w, int m, int n, int mb, int nb, int rsrc, int csrc,
                   int lld_zero) {
  Matrix x;
  memset(&x, 0, sizeof x);
  x.esz = esz;
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
      for (int k = 0; k < w; ++k) {
        const double v = value(tag, i, j, k);
        x.global[((size_t)j * (size_t)m + (size_t)i) * (size_t)w + (size_t)k] = esz == 8 ? v : (double)(float)v;
      }
  if (in) {
    const size_t cnt = (size_t)(lld > 0 ? lld : 1) * (size_t)(x.lcols > 0 ? x.lcols : 1) * (size_t)w;
    x.local = malloc((size_t)esz * cnt);
    for (size_t e = 0; e < cnt; ++e) put(&x, e, kPadding);
    for (int jl = 1; jl <= x.lcols; ++jl)
      for (int il = 1; il <= x.lrows; ++il) {
        const int ig = indxl2g_(&il, &mb, &x.myr, &rsrc, &x.nprow) - 1;
        const int jg = indxl2g_(&jl, &nb, &x.myc, &csrc, &x.npcol) - 1;
        for (int k = 0; k < w; ++k)
          put(&x, ((size_t)(jl - 1) * (size_t)lld + (size_t)(il - 1)) * (size_t)w + (size_t)k,
              x.global[((size_t)jg * (size_t)m + (size_t)ig) * (size_t)w + (size_t)k]);
      }
  }
  return x;
}

#define D(x) ((double*)(x).local)
#define F(x) ((float*)(x).local)
#define Z(x) ((dcomplex*)(x).local)
#define C(x) ((scomplex*)(x).local)

/* The global effect of B(ib:, jb:) := A(ia:, ja:) on the replicas. */
static void copy_global(const Matrix* a, int ia, int ja, Matrix* b, int ib, int jb, int m, int n) {
  const int w = a->w;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i)
      for (int k = 0; k < w; ++k)
        b->global[((size_t)(jb - 1 + j) * (size_t)b->desc[2] + (size_t)(ib - 1 + i)) * (size_t)w + (size_t)k] =
            a->global[((size_t)(ja - 1 + j) * (size_t)a->desc[2] + (size_t)(ia - 1 + i)) * (size_t)w + (size_t)k];
}

/* The same through a temporary, for A and B the same matrix with overlapping regions. */
static void copy_global_aliased(Matrix* x, int ia, int ja, int ib, int jb, int m, int n) {
  const int w = x->w, ld = x->desc[2];
  double* tmp = malloc(sizeof(double) * (size_t)m * (size_t)n * (size_t)w);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i)
      for (int k = 0; k < w; ++k)
        tmp[((size_t)j * (size_t)m + (size_t)i) * (size_t)w + (size_t)k] =
            x->global[((size_t)(ja - 1 + j) * (size_t)ld + (size_t)(ia - 1 + i)) * (size_t)w + (size_t)k];
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i)
      for (int k = 0; k < w; ++k)
        x->global[((size_t)(jb - 1 + j) * (size_t)ld + (size_t)(ib - 1 + i)) * (size_t)w + (size_t)k] =
            tmp[((size_t)j * (size_t)m + (size_t)i) * (size_t)w + (size_t)k];
  free(tmp);
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
        const size_t el = ((size_t)(jl - 1) * (size_t)lld + (size_t)(il - 1)) * (size_t)w + (size_t)k;
        double want = kPadding;
        if (il <= x->lrows) {
          const int ig = indxl2g_(&il, &mb, &myr, &rsrc, &nprow) - 1;
          want = x->global[((size_t)jg * (size_t)m + (size_t)ig) * (size_t)w + (size_t)k];
        }
        ++checked;
        if (!same(x, el, want) && bad++ < 3)
          fprintf(stderr, "rank %d: %s: local (%d,%d)[%d] = %.17g, expected %.17g\n", me, what, il, jl, k,
                  get(x, el), want);
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
    for (int k = x->esz - 1; k >= 0; --k) fprintf(f, "%02x", x->local[e * (size_t)x->esz + (size_t)k]);
    fprintf(f, "\n");
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
   * 2,0,3, 4x1 on ranks 1,3,0,2, 1x1 on rank 2, 1x2 on ranks 2,0, 2x1 on ranks 3,1. */
  int sys = 0, g22 = 0, g13 = 0, g31 = 0, g41 = 0, g11 = 0, g12 = 0, g21 = 0;
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
  int map11[1] = {2};
  g11 = sys;
  Cblacs_gridmap(&g11, map11, 1, 1, 1);
  int map12[2] = {2, 0}, map21[2] = {3, 1};
  g12 = sys;
  Cblacs_gridmap(&g12, map12, 1, 1, 2);
  g21 = sys;
  Cblacs_gridmap(&g21, map21, 2, 2, 1);

  char path[4096];
  snprintf(path, sizeof path, "%s.%d", argv[1], me);
  FILE* out = fopen(path, "w");
  if (!out) {
    fprintf(stderr, "rank %d: cannot write %s\n", me, path);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  /* Double: 2x2 -> 1x3 -> 3x1 -> 4x1 (LLD = 0 on the process without rows) -> 2x2. */
  Matrix a = make(g22, 1, 8, 1, 37, 29, 4, 3, 1, 1, 0);
  Matrix b = make(g13, 2, 8, 1, 41, 33, 5, 2, 0, 2, 0);
  Matrix c = make(g31, 3, 8, 1, 35, 31, 3, 7, 2, 0, 0);
  Matrix d = make(g41, 4, 8, 1, 6, 20, 2, 5, 1, 0, 1);
  Matrix e = make(g22, 5, 8, 1, 6, 20, 1, 1, 0, 0, 0);
  Cpdgemr2d(30, 25, D(a), 3, 2, a.desc, D(b), 5, 4, b.desc, g22);
  copy_global(&a, 3, 2, &b, 5, 4, 30, 25);
  check(&b, "A(3:32,2:26) -> B(5:34,4:28) on 1x3");
  Cpdgemr2d(29, 24, D(b), 6, 5, b.desc, D(c), 2, 1, c.desc, g22);
  copy_global(&b, 6, 5, &c, 2, 1, 29, 24);
  check(&c, "B -> C on 3x1");
  Cpdgemr2d(5, 18, D(c), 10, 3, c.desc, D(d), 2, 2, d.desc, g22);
  copy_global(&c, 10, 3, &d, 2, 2, 5, 18);
  check(&d, "C -> D on 4x1 (LLD 0 where no rows)");
  Cpdgemr2d(6, 20, D(d), 1, 1, d.desc, D(e), 1, 1, e.desc, g22);
  copy_global(&d, 1, 1, &e, 1, 1, 6, 20);
  check(&e, "D -> E on 2x2, whole matrix");
  check(&a, "A unchanged");

  /* Double complex: 1x3 -> 2x2 (C) -> 4x1 (C) -> 3x1 (Fortran interface). */
  Matrix z1 = make(g13, 6, 8, 2, 23, 19, 4, 4, 0, 1, 0);
  Matrix z2 = make(g22, 7, 8, 2, 25, 21, 3, 5, 1, 0, 0);
  Matrix z3 = make(g41, 8, 8, 2, 30, 18, 6, 2, 3, 0, 0);
  Matrix z4 = make(g31, 9, 8, 2, 16, 22, 5, 3, 0, 0, 0);
  Cpzgemr2d(20, 17, Z(z1), 2, 3, z1.desc, Z(z2), 4, 2, z2.desc, g22);
  copy_global(&z1, 2, 3, &z2, 4, 2, 20, 17);
  check(&z2, "Z1 -> Z2 on 2x2");
  Cpzgemr2d(21, 15, Z(z2), 3, 2, z2.desc, Z(z3), 7, 4, z3.desc, g22);
  copy_global(&z2, 3, 2, &z3, 7, 4, 21, 15);
  check(&z3, "Z2 -> Z3 on 4x1");
  {
    int m = 14, n = 13, ia = 9, ja = 5, ib = 3, jb = 8, gc = g22;
    pzgemr2d_(&m, &n, Z(z3), &ia, &ja, z3.desc, Z(z4), &ib, &jb, z4.desc, &gc);
    copy_global(&z3, ia, ja, &z4, ib, jb, m, n);
    check(&z4, "Z3 -> Z4 on 3x1 (pzgemr2d_)");
  }

  /* Single: 3x1 -> 1x3 (Cpsgemr2d); single complex: 2x2 -> 4x1 (pcgemr2d_) -> 1x3. */
  Matrix s1 = make(g31, 10, 4, 1, 19, 26, 2, 4, 1, 0, 0);
  Matrix s2 = make(g13, 11, 4, 1, 21, 24, 6, 3, 0, 1, 0);
  Cpsgemr2d(17, 22, F(s1), 3, 5, s1.desc, F(s2), 2, 3, s2.desc, g22);
  copy_global(&s1, 3, 5, &s2, 2, 3, 17, 22);
  check(&s2, "S1 -> S2 on 1x3 (Cpsgemr2d)");
  Matrix c1 = make(g22, 12, 4, 2, 27, 15, 3, 2, 0, 1, 0);
  Matrix c2 = make(g41, 13, 4, 2, 24, 17, 4, 4, 2, 0, 0);
  Matrix c3 = make(g13, 14, 4, 2, 20, 20, 7, 1, 0, 2, 0);
  {
    int m = 22, n = 12, ia = 4, ja = 3, ib = 2, jb = 6, gc = g22;
    pcgemr2d_(&m, &n, C(c1), &ia, &ja, c1.desc, C(c2), &ib, &jb, c2.desc, &gc);
    copy_global(&c1, ia, ja, &c2, ib, jb, m, n);
    check(&c2, "C1 -> C2 on 4x1 (pcgemr2d_)");
  }
  Cpcgemr2d(18, 16, C(c2), 5, 2, c2.desc, C(c3), 1, 3, c3.desc, g22);
  copy_global(&c2, 5, 2, &c3, 1, 3, 18, 16);
  check(&c3, "C2 -> C3 on 1x3 (Cpcgemr2d)");

  /* Aliased: one 16 x 6 array on one process, X(:,2:6) := X(:,1:5), then rows up
   * X(1:13,1:6) := X(4:16,1:6). PDGEMR2D reads A before B is written there; the drop-in
   * must give the same bits (it stages A when their storage overlaps). */
  Matrix x = make(g11, 15, 8, 1, 16, 6, 4, 2, 0, 0, 0);
  if (x.local) {
    Cpdgemr2d(16, 5, D(x), 1, 1, x.desc, D(x), 1, 2, x.desc, g11);
    Cpdgemr2d(13, 6, D(x), 4, 1, x.desc, D(x), 1, 1, x.desc, g11);
  }
  copy_global_aliased(&x, 1, 1, 1, 2, 16, 5);
  copy_global_aliased(&x, 4, 1, 1, 1, 13, 6);
  check(&x, "X(:,2:6) := X(:,1:5), X(1:13,:) := X(4:16,:) on one process (aliased)");

  /* CP2K's ELPA path (cp_fm_redistribute_start and _end) through PDGEMR2D: the whole
   * matrix from the grid of every process to a smaller grid (1x2 on ranks 2,0), and back
   * from a smaller grid (2x1 on ranks 3,1; here a submatrix) to the 2x2 grid. A process
   * outside the smaller grid passes that DESC with all nine entries -1 and no array:
   * ScaLAPACK reads only DESC(CTXT_) there, and the drop-in must serve the call too. */
  Matrix p1 = make(g22, 16, 8, 1, 26, 23, 3, 4, 1, 0, 0);
  Matrix p2 = make(g12, 17, 8, 1, 26, 23, 5, 5, 0, 1, 0);
  Matrix p3 = make(g21, 18, 8, 1, 25, 24, 4, 4, 1, 0, 0);
  Matrix p4 = make(g22, 19, 8, 1, 27, 22, 2, 3, 0, 1, 0);
  {
    int outside[9] = {-1, -1, -1, -1, -1, -1, -1, -1, -1};
    int m = 26, n = 23, one = 1, gc = g22;
    pdgemr2d_(&m, &n, D(p1), &one, &one, p1.desc, D(p2), &one, &one, p2.local ? p2.desc : outside, &gc);
    copy_global(&p1, 1, 1, &p2, 1, 1, m, n);
    check(&p2, "P1 -> P2 on 1x2 of 2 ranks, DESCB all -1 elsewhere (pdgemr2d_, CP2K)");
    int m2 = 22, n2 = 20, ia = 3, ja = 2, ib = 4, jb = 3;
    pdgemr2d_(&m2, &n2, D(p3), &ia, &ja, p3.local ? p3.desc : outside, D(p4), &ib, &jb, p4.desc, &gc);
    copy_global(&p3, ia, ja, &p4, ib, jb, m2, n2);
    check(&p4, "P3 on 2x1 of 2 ranks, DESCA all -1 elsewhere -> P4 on 2x2 (pdgemr2d_, CP2K)");
    for (int k = 0; k < 9; ++k)
      if (outside[k] != -1) {
        fprintf(stderr, "rank %d: the all -1 DESC was written: entry %d is %d\n", me, k + 1, outside[k]);
        ++failures;
      }
    check(&p1, "P1 unchanged");
    check(&p3, "P3 unchanged");
  }

  const Matrix* all[] = {&a, &b, &c, &d, &e, &z1, &z2, &z3, &z4, &s1, &s2, &c1, &c2, &c3, &x, &p1, &p2, &p3, &p4};
  const char* names[] = {"A",  "B",  "C",  "D",  "E",  "Z1", "Z2", "Z3", "Z4", "S1",
                         "S2", "C1", "C2", "C3", "X",  "P1", "P2", "P3", "P4"};
  const int nmat = (int)(sizeof all / sizeof all[0]);
  for (int k = 0; k < nmat; ++k) dump(out, all[k], names[k]);
  fclose(out);

  int total = 0, total_checked = 0;
  MPI_Reduce(&failures, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&checked, &total_checked, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (me == 0) printf("gemr2d_program: %d local elements checked, %d wrong\n", total_checked, total);
  for (int k = 0; k < nmat; ++k) {
    free(all[k]->local);
    free(all[k]->global);
  }
  const int grids[] = {g22, g13, g31, g41, g11, g12, g21};
  for (int k = 0; k < 7; ++k) {
    int r = -1, c2 = -1, pr = -1, pc = -1;
    Cblacs_gridinfo(grids[k], &r, &c2, &pr, &pc);
    if (pr >= 0) Cblacs_gridexit(grids[k]);
  }
  Cblacs_exit(1);
  MPI_Finalize();
  return total > 0 || failures > 0 ? 1 : 0;
}
