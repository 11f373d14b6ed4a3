// Compute-only CPU time: the CPU seconds this process spends inside its local compute
// kernels, without the time it spends polling in MPI while it waits for others. On an
// oversubscribed host (9 ranks on 2 cores) a waiting rank busy-polls and its process CPU
// time keeps growing, so "max per-rank CPU time" over-states a dedicated-core iteration;
// the kernel time is the part that would be the same on a core of its own.
//
// The session library interposes the BLAS kernels PBLAS/ScaLAPACK call (dgemm_, dgemv_,
// dtrsm_ — resolved through it before OpenBLAS) and measures them with the thread CPU
// clock; an application that computes in its own loops adds their time itself.
#pragma once

namespace resize {

// Kernel CPU seconds accumulated by this process so far.
double kernel_cpu_seconds();
// Adds application-measured kernel time (e.g. a stencil update), in CPU seconds.
void kernel_meter_add(double seconds);

}  // namespace resize
