/* SPDX-License-Identifier: BSD-3-Clause */
/* Mapped arrays: memory for a local array that the other ranks of its node can map, so a
 * redistribution copies the pieces they receive from it straight out of it into their own
 * arrays, one copy at memory speed (no packing, no unpacking, no kernel copy;
 * docs/reference/mapped-arrays.md). Any local array of A passed to redist may live here; the
 * library finds it by its address. */
#ifndef REDIST_MAPPED_H
#define REDIST_MAPPED_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* At least `bytes` zeroed bytes, 64-byte aligned, in a shareable segment of their own
 * (memfd_create) registered with this process. Where no such segment can be had (no memfd,
 * not Linux, SimGrid, MALLEABLE_REDIST_FAULT=shm-unavailable) ordinary zeroed memory, and
 * the reason is said once on stderr: redistributions then copy it as any other array.
 * NULL only when no memory at all can be had. Thread-safe. */
void* redist_alloc(size_t bytes);

/* Frees what redist_alloc returned (NULL: nothing). A pointer redist_alloc did not return
 * is passed to free(). A peer that mapped the array may keep its pages alive until it maps
 * a newer one or finalizes. Thread-safe. */
void redist_free(void* p);

/* 1 when [p, p + bytes) lies in one array of redist_alloc's shareable segments, else 0. */
int redist_is_mapped(const void* p, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
