// SPDX-License-Identifier: BSD-3-Clause
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
//   mpicc -O2 spawn_pingpong.c -o spawn_pingpong
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
