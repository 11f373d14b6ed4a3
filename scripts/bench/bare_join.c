/* SPDX-License-Identifier: BSD-3-Clause
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
