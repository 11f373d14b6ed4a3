// SPDX-License-Identifier: BSD-3-Clause
// Heap counting for one program (redist_plan_scale_bench and redist's rank-map unit test):
// plan_scale_heap.cpp replaces the global operator new/delete and keeps the bytes live and
// the peak since the last reset. Link that file into a program to count its heap; only one
// such replacement may be in a program.
#pragma once

#include <cstddef>

namespace redist_heap {

std::size_t live();  // bytes allocated by operator new and not yet freed
std::size_t peak();  // most bytes live since reset_peak()
void reset_peak();   // peak := live

// Peak bytes `work()` allocated beyond those live before it, its result kept until the
// peak is read (the result's own heap counts).
template <class F>
std::size_t peak_of(F&& work) {
  const std::size_t before = live();
  reset_peak();
  [[maybe_unused]] const auto kept = work();
  return peak() - before;
}

}  // namespace redist_heap
