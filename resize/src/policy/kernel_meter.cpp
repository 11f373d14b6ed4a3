// SPDX-License-Identifier: BSD-3-Clause
// The compute-only clock's counter and switch (kernel_meter.hpp). The BLAS interposers that
// feed it live in libmalleable_resize_meter (kernel_meter_blas.cpp), linked only by
// programs that meter.
#include "malleable/resize/kernel_meter.hpp"
#include "common/config.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace resize {
namespace {
std::atomic<long long> g_nanos{0};
std::atomic<bool> g_on{config::read().policy.meter_kernels};
}  // namespace

double kernel_cpu_seconds() { return 1e-9 * static_cast<double>(g_nanos.load(std::memory_order_relaxed)); }
void kernel_meter_add(double seconds) {
  if (g_on.load(std::memory_order_relaxed))
    g_nanos.fetch_add(static_cast<long long>(seconds * 1e9), std::memory_order_relaxed);
}
void kernel_meter_enable(bool on) { g_on.store(on, std::memory_order_relaxed); }
bool kernel_meter_enabled() { return g_on.load(std::memory_order_relaxed); }

}  // namespace resize
