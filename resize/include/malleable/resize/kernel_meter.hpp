// SPDX-License-Identifier: BSD-3-Clause
// Compute-only CPU time: the CPU seconds this process spends inside its local compute
// kernels, without the time it spends polling in MPI while it waits for others. On an
// oversubscribed host (9 ranks on 2 cores) a waiting rank busy-polls and its process CPU
// time keeps growing, so "max per-rank CPU time" over-states a dedicated-core iteration;
// the kernel time is the part that would be the same on a core of its own.
//
// Opt-in: the BLAS kernels PBLAS/ScaLAPACK call (dgemm_, dgemv_, dtrsm_) are
// measured only in programs that link libmalleable_resize_meter (target
// malleable::resize_meter; the drivers do) or preload it, and only while metering is on:
// RESIZE_METER_KERNELS=1 in the environment, or kernel_meter_enable(true) (the drivers'
// --meter-kernels). Off, a metered kernel costs one relaxed atomic load more than stock;
// a program that does not link the meter library is not touched at all. Thread-safe.
#pragma once

namespace resize {

// Kernel CPU seconds accumulated by this process so far (0 while metering was off).
double kernel_cpu_seconds();
// Adds application-measured kernel time (e.g. a stencil update), in CPU seconds; ignored
// while metering is off.
void kernel_meter_add(double seconds);
// Turns metering on or off; whether it is on (the environment's RESIZE_METER_KERNELS=1
// turns it on at start-up).
void kernel_meter_enable(bool on);
bool kernel_meter_enabled();

}  // namespace resize
