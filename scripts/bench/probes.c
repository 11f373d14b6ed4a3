/* SPDX-License-Identifier: BSD-3-Clause
 * The small C programs the bench scripts compile, one program per -DPROBE_<NAME> (each
 * section below is the program as its own file was; only the selected one is compiled):
 *   PROBE_BARE_JOIN        bare_join: a bare join of a separate mpiexec's processes (redist.sh bound, start-split)
 *   PROBE_CORE_RATE        core_rate: one core's DGEMM and DGETRF rates (scale_payoff.py; -lopenblas -llapacke)
 *   PROBE_FIRST_TOUCH      first_touch: the cost of fresh memory, page faults on a new array (resize.sh first-touch, prefault-ab)
 *   PROBE_MAP_FAULT        map_fault: a fresh read-only mapping of a memfd faulted, populated first, or kept (redist.sh mapped-bound)
 *   PROBE_NODE_COPY        node_copy: a node's copy bandwidth, STREAM's Copy on every rank (redist.sh bound, device16.sh respawn)
 *   PROBE_SPAWN_PINGPONG   spawn_pingpong: ping-pong between original and spawned processes; raw spawn + merge (redist.sh between-jobs, bound, start-split; resize.sh phases, spawn-addhost)
 *   PROBE_START_SPLIT      start_split: blacs-dyn's expansion alone, the job's first (redist.sh start-split; -ldl and a driver's libraries)
 *   e.g. mpicc -O2 -DPROBE_SPAWN_PINGPONG scripts/bench/probes.c -o spawn_pingpong
 */
#if defined(PROBE_BARE_JOIN)
/*
 * A bare join (the start bound a resize's join is set against; scripts/bench/redist.sh bound runs it):
 * a running job connects to processes of a separate mpiexec, as a resize's join does
 * through malleable-run's ompi-server, with nothing of the library's protocol.
 *   job PORTFILE REPS:  the running job. For each repetition r it waits for PORTFILE.r
 *       (polling every millisecond), MPI_Comm_connect's to the port written there,
 *       MPI_Intercomm_merge's, takes a barrier on the merged communicator, and rank 0
 *       prints "merged r SECONDS" (CLOCK_REALTIME, seconds since the epoch), then
 *       MPI_Comm_disconnect.
 *   launch PORTFILE.r:  a launch joining the job: MPI_Init, MPI_Open_port, the port
 *       written to PORTFILE.r (renamed into place), MPI_Comm_accept, merge, barrier,
 *       disconnect, finalize.
 * The caller takes the time before starting a launch's mpiexec; the job's "merged" line
 * minus it is the bare join: mpiexec's launch to the merged world.
 *   ompi-server --no-daemonize --report-uri uri &
 *   mpiexec --ompi-server file:uri -n 2 bare_join job /tmp/port 5 &
 *   mpiexec --ompi-server file:uri -n 2 bare_join launch /tmp/port.1
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_realtime(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int job(const char* portfile, int reps) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int r = 1; r <= reps; ++r) {
    char port[MPI_MAX_PORT_NAME] = "", path[4096];
    snprintf(path, sizeof path, "%s.%d", portfile, r);
    if (rank == 0) {
      FILE* f = NULL;
      for (long waited = 0; (f = fopen(path, "r")) == NULL; ++waited) {
        if (waited > 600000) {
          fprintf(stderr, "bare_join: no %s after 600 s\n", path);
          MPI_Abort(MPI_COMM_WORLD, 1);
        }
        usleep(1000);
      }
      if (!fgets(port, sizeof port, f)) port[0] = '\0';
      fclose(f);
      port[strcspn(port, "\n")] = '\0';
    }
    MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Comm inter, merged;
    MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
    MPI_Intercomm_merge(inter, 0, &merged);
    MPI_Barrier(merged);
    if (rank == 0) {
      printf("merged %d %.6f\n", r, now_realtime());
      fflush(stdout);
    }
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&inter);
  }
  return 0;
}

static int launch(const char* path) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char port[MPI_MAX_PORT_NAME] = "";
  if (rank == 0) {
    MPI_Open_port(MPI_INFO_NULL, port);
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE* f = fopen(tmp, "w");
    if (!f || fprintf(f, "%s\n", port) < 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
      fprintf(stderr, "bare_join: cannot write %s\n", path);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  MPI_Comm inter, merged;
  MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
  MPI_Intercomm_merge(inter, 1, &merged);
  MPI_Barrier(merged);
  MPI_Comm_free(&merged);
  MPI_Comm_disconnect(&inter);
  if (rank == 0) MPI_Close_port(port);
  return 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 2;
  if (argc == 4 && strcmp(argv[1], "job") == 0 && atoi(argv[3]) > 0)
    rc = job(argv[2], atoi(argv[3]));
  else if (argc == 3 && strcmp(argv[1], "launch") == 0)
    rc = launch(argv[2]);
  else
    fprintf(stderr, "usage: bare_join job PORTFILE REPS | bare_join launch PORTFILE.R\n");
  MPI_Finalize();
  return rc;
}
#elif defined(PROBE_CORE_RATE)
// One core's DGEMM and DGETRF rates (Gflop/s), for scale_payoff.py's iteration-time model
// (docs/measurements/scale.md, "Payoff at 1,024 -> 4,096"). OpenBLAS on one thread (the caller sets
// OPENBLAS_NUM_THREADS=1); best of `reps` runs at order n, timed in the process's CPU time
// (on a shared machine the wall clock counts other processes' turns on the core).
//   cc -O2 -DPROBE_CORE_RATE probes.c -o core_rate -lopenblas -llapacke && ./core_rate [n] [reps]
#include <cblas.h>
#include <lapacke.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);  // CPU time: a loaded machine shares the core
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 1500;
  const int reps = argc > 2 ? atoi(argv[2]) : 3;
  const size_t nn = (size_t)n * (size_t)n;
  double* a = malloc(nn * sizeof(double));
  double* b = malloc(nn * sizeof(double));
  double* c = malloc(nn * sizeof(double));
  double* lu = malloc(nn * sizeof(double));
  lapack_int* ipiv = malloc((size_t)n * sizeof(lapack_int));
  if (!a || !b || !c || !lu || !ipiv) return 1;
  unsigned s = 12345;
  for (size_t k = 0; k < nn; ++k) {
    s = s * 1103515245u + 12345u;
    a[k] = (double)(s >> 8) / 16777216.0 - 0.5;
    b[k] = a[k] * 0.5 + 0.25;
  }
  for (int i = 0; i < n; ++i) a[(size_t)i * n + i] += n;  // well conditioned for the LU
  double best_mm = 1e30, best_lu = 1e30;
  for (int r = 0; r < reps; ++r) {
    double t0 = now();
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0, c, n);
    double t1 = now();
    if (t1 - t0 < best_mm) best_mm = t1 - t0;
    memcpy(lu, a, nn * sizeof(double));
    t0 = now();
    if (LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, lu, n, ipiv) != 0) return 2;
    t1 = now();
    if (t1 - t0 < best_lu) best_lu = t1 - t0;
  }
  const double fn = (double)n;
  printf("n=%d dgemm_gflops=%.2f dgetrf_gflops=%.2f\n", n, 2.0 * fn * fn * fn / best_mm * 1e-9,
         2.0 / 3.0 * fn * fn * fn / best_lu * 1e-9);
  free(a); free(b); free(c); free(lu); free(ipiv);
  return 0;
}
#elif defined(PROBE_FIRST_TOUCH)
/*
 * The cost of fresh memory (scripts/bench/resize.sh first-touch): for each size and repetition,
 * one new anonymous array written whole (memset) four ways:
 *   small     4 KiB pages, the first write faults every page in;
 *   populate  madvise(MADV_POPULATE_WRITE) first (its time: populate_ms), then the write;
 *   huge      mapped at 2 MiB alignment, madvise(MADV_HUGEPAGE), then the write;
 *   warm      the huge array written a second time (pages already there);
 * and how much of the huge array the kernel gave as huge pages (AnonHugePages of
 * /proc/self/smaps_rollup). Before that, with a size in GiB as argument 3, that much
 * memory is written once and freed (warm_host: on a virtual machine whose host backs
 * guest memory at its first touch, this backs it). One line per measurement:
 *   kind <tab> MiB <tab> rep <tab> ms <tab> huge_MiB
 *   first_touch SIZES_MIB REPS [WARM_HOST_GIB] */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static long anon_huge_mib(void) { /* AnonHugePages of the process, MiB (-1: unknown) */
  FILE* f = fopen("/proc/self/smaps_rollup", "r");
  char line[256];
  long kb = -1;
  if (!f) return -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1) break;
  fclose(f);
  return kb < 0 ? -1 : kb / 1024;
}

static const size_t kHuge = (size_t)2 << 20;

static char* map_huge(size_t n, char** raw) {
  *raw = mmap(NULL, n + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (*raw == MAP_FAILED) return NULL;
  char* p = (char*)(((uintptr_t)*raw + kHuge - 1) & ~(uintptr_t)(kHuge - 1));
  madvise(p, n, MADV_HUGEPAGE);
  return p;
}

static void one(size_t mib, int rep) {
  const size_t n = mib << 20;
  char* p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) { perror("mmap"); exit(1); }
  double t = now_ms();
  memset(p, 1, n);
  printf("small\t%zu\t%d\t%.2f\t-\n", mib, rep, now_ms() - t);
  munmap(p, n);

  p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) { perror("mmap"); exit(1); }
  t = now_ms();
  const int r = madvise(p, n, MADV_POPULATE_WRITE);
  const double pop = now_ms() - t;
  t = now_ms();
  memset(p, 1, n);
  const double after = now_ms() - t;
  if (r == 0) {
    printf("populate_ms\t%zu\t%d\t%.2f\t-\n", mib, rep, pop);
    printf("populate\t%zu\t%d\t%.2f\t-\n", mib, rep, pop + after);
  }
  munmap(p, n);

  char* raw;
  p = map_huge(n, &raw);
  if (!p) { perror("mmap"); exit(1); }
  t = now_ms();
  memset(p, 1, n);
  const double huge = now_ms() - t;
  printf("huge\t%zu\t%d\t%.2f\t%ld\n", mib, rep, huge, anon_huge_mib());
  t = now_ms();
  memset(p, 2, n);
  printf("warm\t%zu\t%d\t%.2f\t-\n", mib, rep, now_ms() - t);
  munmap(raw, n + kHuge);
}

int main(int argc, char** argv) {
  if (argc < 3) { fprintf(stderr, "usage: first_touch SIZES_MIB(comma) REPS [WARM_HOST_GIB]\n"); return 2; }
  const int reps = atoi(argv[2]);
  if (argc > 3 && atof(argv[3]) > 0) {
    const size_t n = (size_t)(atof(argv[3]) * 1073741824.0);
    char* raw;
    char* p = map_huge(n, &raw);
    if (!p) { perror("mmap"); return 1; }
    const double t = now_ms();
    memset(p, 1, n);
    printf("warm_host\t%zu\t0\t%.2f\t%ld\n", n >> 20, now_ms() - t, anon_huge_mib());
    munmap(raw, n + kHuge);
  }
  for (int rep = 1; rep <= reps; ++rep) {
    char sizes[256];
    snprintf(sizes, sizeof sizes, "%s", argv[1]);
    for (char* s = strtok(sizes, ","); s; s = strtok(NULL, ",")) one((size_t)atol(s), rep);
  }
  fflush(stdout);
  return 0;
}
#elif defined(PROBE_NODE_COPY)
/*
 * A node's copy bandwidth, STREAM's Copy kernel on every rank at once (the bound
 * scripts/bench/device16.sh respawn sets redist's bytes moved per second against): each
 * rank copies its own array of MIB MiB of doubles into another (c[j] = a[j], both arrays
 * written first, so no page is faulted in while timed), REPS times; a repetition's time
 * is rank 0's from one barrier to the next (all ranks' copies, as they overlapped). One line per repetition, then the best:
 *   rep <tab> R <tab> seconds <tab> copied_Bps
 *   best <tab> ranks N <tab> MiB per rank M <tab> copied_Bps B <tab> stream_Bps 2B
 * copied_Bps: bytes copied per second over the ranks (each byte read once, written once);
 * stream_Bps: STREAM's convention, read and written bytes counted (twice that).
 *   mpiexec -n 16 node_copy [MIB per rank, default 256] [REPS, default 10]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void copy(double* restrict c, const double* restrict a, size_t n) {
  for (size_t j = 0; j < n; ++j) c[j] = a[j];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long mib = argc > 1 ? strtol(argv[1], NULL, 10) : 256;
  const long reps = argc > 2 ? strtol(argv[2], NULL, 10) : 10;
  if (mib < 1 || mib > 65536 || reps < 1 || reps > 10000) {
    if (rank == 0) fprintf(stderr, "usage: node_copy [MiB per rank 1-65536] [reps 1-10000]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const size_t n = (size_t)mib * 1048576 / sizeof(double);
  double* a = malloc(n * sizeof(double));
  double* c = malloc(n * sizeof(double));
  if (!a || !c) {
    fprintf(stderr, "node_copy: rank %d: no memory for 2 x %ld MiB\n", rank, mib);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (size_t j = 0; j < n; ++j) a[j] = (double)j, c[j] = 0;
  double best = 0;
  for (long r = 0; r < reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    copy(c, a, n);
    MPI_Barrier(MPI_COMM_WORLD);
    const double slowest = MPI_Wtime() - t0;
    if (rank == 0) {
      const double bps = (double)size * (double)n * sizeof(double) / slowest;
      printf("rep\t%ld\t%.6f\t%.4g\n", r + 1, slowest, bps);
      if (bps > best) best = bps;
    }
  }
  double check = c[n / 2] == (double)(n / 2) ? 1 : 0, all = 0;
  MPI_Reduce(&check, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    if (all != size) fprintf(stderr, "node_copy: copies differ on %d ranks\n", size - (int)all);
    printf("best\tranks %d\tMiB per rank %ld\tcopied_Bps %.4g\tstream_Bps %.4g\n", size, mib, best, 2 * best);
  }
  free(a);
  free(c);
  MPI_Finalize();
  return all == size || rank != 0 ? 0 : 1;
}
#elif defined(PROBE_SPAWN_PINGPONG)
// Ping-pong between two original processes and between an original and a process it
// spawned (MPI_Comm_spawn + MPI_Intercomm_merge), all on one node: what MPI's transport
// between jobs costs a resize (docs/measurements/results.md, "Between jobs on one node").
// Started with 2 processes; rank 0 of the originals spawns 1 newcomer. In the merged
// communicator ranks 0 and 1 are the originals, rank 2 the newcomer. For each message
// size the pair (0,1) then the pair (0,2) exchange `reps` round trips (best round trip
// of several batches); the third process waits in MPI_Ibarrier, sleeping between tests,
// so it does not take a core from the pair.
// Output: one line per (pair, size): pair bytes latency_us bandwidth_GBps.
// With "spawn K REPS [HOST]" instead: raw MPI_Comm_spawn of K processes (onto HOST if given,
// info key "host") + MPI_Intercomm_merge, everybody done (a barrier on the merged
// communicator), then MPI_Comm_disconnect; REPS times after one warm-up, printed by rank 0
// as "raw_spawn_merge_ms K MEDIAN FIRST": the median of the REPS, then the warm-up (the
// job's first spawn). Linked with a driver's libraries (resize.sh phases builds it so too),
// the newcomers load and initialise what a driver's newcomers do (blacs-dyn's MPI_Init
// included) and only then merge: the same start-up without the library's protocol.
//   mpicc -O2 -DPROBE_SPAWN_PINGPONG probes.c -o spawn_pingpong
//   mpiexec -n 2 ./spawn_pingpong [reps]
//   mpiexec -n 2 ./spawn_pingpong spawn 2 5 [host [add-host]]
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// A barrier that sleeps between tests (every rank uses it: MPI_Ibarrier matches only
// MPI_Ibarrier, never MPI_Barrier).
static void idle_barrier(MPI_Comm comm) {
  MPI_Request req;
  int done = 0;
  MPI_Ibarrier(comm, &req);
  const struct timespec nap = {0, 200000};
  while (!done) {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (!done) nanosleep(&nap, NULL);
  }
}

// Best round trip (seconds) of `batches` batches of `reps` round trips between a and b.
static double pingpong(MPI_Comm comm, int me, int a, int b, char* buf, int bytes, int reps) {
  const int batches = 5;
  double best = 1e30;
  for (int k = 0; k < batches; ++k) {
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    for (int r = 0; r < reps; ++r) {
      if (me == a) {
        MPI_Send(buf, bytes, MPI_BYTE, b, 1, comm);
        MPI_Recv(buf, bytes, MPI_BYTE, b, 2, comm, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(buf, bytes, MPI_BYTE, a, 1, comm, MPI_STATUS_IGNORE);
        MPI_Send(buf, bytes, MPI_BYTE, a, 2, comm);
      }
    }
    double t = (MPI_Wtime() - t0) / reps;
    if (t < best) best = t;
  }
  return best;
}

static void run_pair(MPI_Comm comm, int me, int a, int b, const char* name, int reps) {
  static const int sizes[] = {8, 1 << 20, 2 << 20, 4 << 20, 8 << 20};
  const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
  char* buf = malloc((size_t)(8 << 20));
  memset(buf, 1, (size_t)(8 << 20));
  for (int s = 0; s < nsizes; ++s) {
    const int bytes = sizes[s];
    const int n = bytes <= 8 ? reps * 20 : reps;
    double rt = 0.0;
    if (me == a || me == b) {
      MPI_Comm pair;
      MPI_Comm_split(comm, 0, me, &pair);
      int pme;
      MPI_Comm_rank(pair, &pme);
      rt = pingpong(pair, pme, 0, 1, buf, bytes, n);
      MPI_Comm_free(&pair);
    } else {
      MPI_Comm pair;
      MPI_Comm_split(comm, MPI_UNDEFINED, me, &pair);
    }
    if (me == a)
      printf("%s %d %.3f %.3f\n", name, bytes, rt / 2 * 1e6, bytes <= 8 ? 0.0 : 2.0 * bytes / rt / 1e9);
    fflush(stdout);
    idle_barrier(comm);  // nonblocking on every rank: a blocking barrier would not match it
  }
  free(buf);
}

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

// Raw spawn + merge, timed on the parents; the children only merge, wait and disconnect.
static int raw_spawn(int argc, char** argv, MPI_Comm parent) {
  if (parent != MPI_COMM_NULL) {
    MPI_Comm all;
    MPI_Intercomm_merge(parent, 1, &all);
    MPI_Barrier(all);
    MPI_Comm_free(&all);
    MPI_Comm_disconnect(&parent);
    MPI_Finalize();
    return 0;
  }
  const int k = argc > 2 ? atoi(argv[2]) : 2, reps = argc > 3 ? atoi(argv[3]) : 5;
  MPI_Info info = MPI_INFO_NULL;
  if (argc > 4) {
    MPI_Info_create(&info);
    MPI_Info_set(info, "host", argv[4]);
    // "add-host" as blacs-dyn's per-host spawn sets it: the host joins the launcher's pool
    // (its daemon started then) when the job was not started on it.
    if (argc > 5 && strcmp(argv[5], "add-host") == 0) MPI_Info_set(info, "add-host", argv[4]);
  }
  char* args[] = {"spawn", NULL};
  double t[64];
  int me;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  for (int r = 0; r <= reps && r < 64; ++r) {
    MPI_Comm inter, all;
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    MPI_Comm_spawn(argv[0], args, k, info, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
    MPI_Intercomm_merge(inter, 0, &all);
    MPI_Barrier(all);
    t[r] = MPI_Wtime() - t0;
    MPI_Comm_free(&all);
    MPI_Comm_disconnect(&inter);
  }
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  const int n = reps < 63 ? reps : 63;
  qsort(t + 1, (size_t)n, sizeof t[0], by_value);  // t[0] is the warm-up
  // The median of the repetitions after the warm-up, then the first spawn of the job (the
  // warm-up: what a resize, the job's first spawn, pays).
  if (me == 0)
    printf("raw_spawn_merge_ms %d %.1f %.1f\n", k, 1e3 * (n % 2 ? t[1 + n / 2] : 0.5 * (t[n / 2] + t[1 + n / 2])),
           1e3 * t[0]);
  MPI_Finalize();
  return 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc > 1 && strcmp(argv[1], "spawn") == 0) {
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    return raw_spawn(argc, argv, parent);
  }
  int reps = argc > 1 ? atoi(argv[1]) : 20;
  MPI_Comm parent, inter, all;
  MPI_Comm_get_parent(&parent);
  if (parent == MPI_COMM_NULL) {
    char* args[] = {argv[1] ? argv[1] : "20", NULL};
    MPI_Comm_spawn(argv[0], args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
    MPI_Intercomm_merge(inter, 0, &all);
  } else {
    inter = parent;
    MPI_Intercomm_merge(inter, 1, &all);
  }
  int me, np;
  MPI_Comm_rank(all, &me);
  MPI_Comm_size(all, &np);
  if (np != 3) {
    if (me == 0) fprintf(stderr, "spawn_pingpong: start with 2 processes (got %d after spawn)\n", np);
    MPI_Abort(all, 2);
  }
  if (me == 0) printf("# pair bytes latency_us bandwidth_GBps\n");
  run_pair(all, me, 0, 1, "original-original", reps);
  run_pair(all, me, 0, 2, "original-newcomer", reps);
  MPI_Comm_free(&all);
  MPI_Comm_disconnect(&inter);
  MPI_Finalize();
  return 0;
}
#elif defined(PROBE_START_SPLIT)
/*
 * blacs-dyn's expansion alone, the job's first (scripts/bench/redist.sh start-split runs it):
 * the step between a raw MPI_Comm_spawn + merge of the same program linked with a driver's
 * libraries (spawn_pingpong's spawn mode, above) and a driver's resize. Started with P
 * processes, the job barriers, world rank 0 takes the time, every process calls
 * blacs_dyn_expand(K, this program) (rank 0 spawns over MPI_COMM_SELF, the newcomers check
 * in from their MPI_Init, both merges, the private dup, the host list, BLACS's world), then
 * a barrier on the grown world; rank 0 prints "expand_ms K MS" (the interval a resize's
 * t_spawn_s covers, from its call of blacs_dyn_expand to the grown world). The newcomers
 * take the barrier and finalize. blacs-dyn's symbols are looked up at run time, so the
 * program links like spawn_pingpong (libmalleable_blacs_dyn ahead of ScaLAPACK):
 *   mpicc -O2 -DPROBE_START_SPLIT probes.c -o start_split <the driver's libraries> -ldl
 *   mpiexec -n 2 ./start_split 2
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*expand_t)(int, const char*, char* const[], const char*, MPI_Info);
typedef MPI_Comm (*world_t)(void);
typedef int (*is_new_t)(void);

static void* need(const char* name) {
  void* f = dlsym(RTLD_DEFAULT, name);
  if (!f) {
    fprintf(stderr, "start_split: %s not found: link libmalleable_blacs_dyn\n", name);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return f;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const expand_t expand = (expand_t)need("blacs_dyn_expand");
  const world_t world = (world_t)need("blacs_dyn_world");
  const is_new_t is_new = (is_new_t)need("blacs_dyn_is_new");
  if (is_new()) {
    MPI_Barrier(world());
    MPI_Finalize();
    return 0;
  }
  const int k = argc > 1 ? atoi(argv[1]) : 2;
  int me = 0;
  MPI_Barrier(world());
  MPI_Comm_rank(world(), &me);
  const double t0 = MPI_Wtime();
  char* args[] = {argc > 1 ? argv[1] : "2", NULL};
  const int rc = expand(k, argv[0], args, NULL, MPI_INFO_NULL);
  if (rc != 0) {
    fprintf(stderr, "start_split: blacs_dyn_expand failed (%d)\n", rc);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Barrier(world());
  const double t = MPI_Wtime() - t0;
  if (me == 0) printf("expand_ms %d %.1f\n", k, 1e3 * t);
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
#elif defined(PROBE_MAP_FAULT)
/*
 * What a fresh mapping of another process's array costs its reader (docs/reference/mapped-arrays.md):
 * a memfd of MIB MiB (filled, as redist_alloc's segment is) is mapped read-only a second time
 * (as a receiver maps a sender's array through /proc/<pid>/fd: the same pages) and copied out
 * whole, each repetition in four ways, interleaved:
 *   fault     mmap, memcpy out of it (its pages faulted in as they are read), munmap;
 *   madvise   mmap, madvise(MADV_POPULATE_READ) on all of it, memcpy, munmap;
 *   populate  mmap with MAP_POPULATE, memcpy, munmap;
 *   kept      memcpy out of one mapping made (and read) before the repetitions.
 * Prints per way the best and median of REPS totals (map, populate, copy, unmap) and of the
 * copy alone, and the 1-minute load average before and after.
 *   map_fault [MIB] [REPS]      (defaults 128 and 7)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

static double mono(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double load1(void) {
  double l = -1;
  FILE* f = fopen("/proc/loadavg", "r");
  if (f) {
    if (fscanf(f, "%lf", &l) != 1) l = -1;
    fclose(f);
  }
  return l;
}

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* One repetition of way w (0-3): the total and, in *copy, the memcpy alone; -1 on failure. */
static double one(int w, int fd, size_t n, const char* kept, char* dst, double* copy) {
  const double t0 = mono();
  const char* r = kept;
  if (w < 3) {
    void* m = mmap(NULL, n, PROT_READ, MAP_SHARED | (w == 2 ? MAP_POPULATE : 0), fd, 0);
    if (m == MAP_FAILED) return -1;
    r = m;
    if (w == 1 && madvise(m, n, MADV_POPULATE_READ) != 0) {
      munmap(m, n);
      return -1;
    }
  }
  const double t1 = mono();
  memcpy(dst, r, n);
  *copy = mono() - t1;
  if (w < 3) munmap((void*)r, n);
  return mono() - t0;
}

int main(int argc, char** argv) {
  const long mib = argc > 1 ? strtol(argv[1], NULL, 10) : 128;
  const int reps = argc > 2 ? atoi(argv[2]) : 7;
  if (mib < 1 || mib > 65536 || reps < 1 || reps > 1000) {
    fprintf(stderr, "usage: map_fault [MIB 1-65536] [REPS 1-1000]\n");
    return 2;
  }
  const size_t n = (size_t)mib << 20;
  const int fd = memfd_create("map_fault", MFD_CLOEXEC);
  if (fd < 0 || posix_fallocate(fd, 0, (off_t)n) != 0) return perror("memfd"), 1;
  char* w = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
  char* dst = malloc(n);
  char* kept = mmap(NULL, n, PROT_READ, MAP_SHARED, fd, 0);
  if (w == MAP_FAILED || kept == MAP_FAILED || !dst) return perror("map"), 1;
  memset(w, 1, n);
  memset(dst, 0, n);
  memcpy(dst, kept, n);  /* the kept mapping read once: its pages mapped */
  static const char* name[4] = {"fault", "madvise", "populate", "kept"};
  double* tot = calloc((size_t)reps * 4, sizeof(double));
  double* cp = calloc((size_t)reps * 4, sizeof(double));
  const double before = load1();
  for (int r = 0; r < reps; ++r)
    for (int k = 0; k < 4; ++k) {
      const int way = (k + r) % 4;  /* the order rotates */
      tot[way * reps + r] = one(way, fd, n, kept, dst, &cp[way * reps + r]);
      if (tot[way * reps + r] < 0) return fprintf(stderr, "map_fault: %s failed\n", name[way]), 1;
    }
  printf("map_fault: %ld MiB, %d repetitions, load1 %.2f before, %.2f after\n", mib, reps, before, load1());
  printf("| way | total best s | total median s | copy best s | copy median s |\n|---|---|---|---|---|\n");
  for (int k = 0; k < 4; ++k) {
    qsort(tot + k * reps, (size_t)reps, sizeof(double), by_value);
    qsort(cp + k * reps, (size_t)reps, sizeof(double), by_value);
    printf("| %s | %.4f | %.4f | %.4f | %.4f |\n", name[k], tot[k * reps], tot[k * reps + reps / 2], cp[k * reps],
           cp[k * reps + reps / 2]);
  }
  return 0;
}
#else
#error "probes.c: compile with one of -DPROBE_BARE_JOIN, -DPROBE_CORE_RATE, -DPROBE_FIRST_TOUCH, -DPROBE_MAP_FAULT, -DPROBE_NODE_COPY, -DPROBE_SPAWN_PINGPONG, -DPROBE_START_SPLIT"
#endif
