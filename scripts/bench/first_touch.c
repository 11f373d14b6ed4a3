/* SPDX-License-Identifier: BSD-3-Clause
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
