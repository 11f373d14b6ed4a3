// SPDX-License-Identifier: BSD-3-Clause
// After each resize, the free memory the C library holds is given back to the system
// (heap_trim.cpp). A spawn grows Open MPI's heap in the event loop on the spawning
// process (MPI_Testsome under the spawn's hand-shake, free lists in 4.2 MB steps); what
// it frees again stays in glibc's main arena, so a process that resizes many times holds
// more and more free heap. malloc_trim(0) returns the arena's free pages (the top of the
// heap and whole free pages inside it); what stays in use (the free lists themselves) it
// cannot (docs/measurements/endurance.md, "The heap given back after each resize"). Every process of the job calls it once a resize has concluded (the
// recording's conclude, blocking and background alike) and a newcomer once it has joined;
// RESIZE_HEAP_TRIM=off (config.hpp) turns it off. Only with glibc: elsewhere it does
// nothing and says so (called false).
#pragma once

namespace resize {
namespace detail {

// One trim: whether malloc_trim was called, whether it gave memory back (its return
// value) and how long it took (steady clock, seconds).
struct HeapTrim {
  bool called = false;
  bool released = false;
  double seconds = 0.0;
};

// malloc_trim(0) when `on` and the C library is glibc; otherwise nothing (called false).
HeapTrim trim_heap(bool on);

// The calls of malloc_trim this process made so far (trim_heap with `on`, under glibc):
// a test's check that each concluded resize called it once on every process.
long heap_trims_called();

}  // namespace detail
}  // namespace resize
