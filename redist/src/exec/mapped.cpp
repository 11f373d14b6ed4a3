// SPDX-License-Identifier: BSD-3-Clause
// Mapped arrays (malleable/redist/mapped.h): redist_alloc makes a segment of the node
// window's store (segment_store.hpp, make_array_segment) and registers its range; the exchange asks
// find_mapped whether a send's source lies in one.
#include "mapped.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "malleable/redist/mapped.h"
#include "mapped_registry.hpp"

namespace redist::exec {

namespace {

struct Arrays {
  std::mutex lock;
  MappedRegistry registry;  // this process's own allocations
  std::int64_t token = 0;   // this process's token (from its first segment)
  std::atomic<std::size_t> count{0};
};

Arrays& arrays() {
  static Arrays a;
  return a;
}

void say_once(const std::string& why) {
  static std::atomic<bool> said{false};
  if (said.exchange(true)) return;
  std::fprintf(stderr, "malleable redist: mapped arrays unavailable on pid %ld (%s); redist_alloc gives ordinary memory\n",
               static_cast<long>(getpid()), why.c_str());
}

}  // namespace

std::optional<MappedSource> find_mapped(const void* p, std::int64_t bytes) {
  Arrays& a = arrays();
  if (!p || a.count.load(std::memory_order_acquire) == 0) return std::nullopt;
  const std::lock_guard<std::mutex> g(a.lock);
  const auto at = a.registry.find(reinterpret_cast<std::uintptr_t>(p), bytes);
  if (!at) return std::nullopt;
  return MappedSource{SegmentId{static_cast<std::int64_t>(getpid()), at->fd, at->gen, a.token, at->seg_bytes}, at->offset};
}

void say_mapped_refused(int err) {
  static std::atomic<bool> said{false};
  if (said.exchange(true)) return;
  std::fprintf(stderr,
               "malleable redist: a peer's mapped array could not be mapped on pid %ld (%s); those transfers go by "
               "message\n",
               static_cast<long>(getpid()), std::strerror(err));
}

bool any_mapped() { return arrays().count.load(std::memory_order_acquire) > 0; }

}  // namespace redist::exec

extern "C" void* redist_alloc(size_t bytes) {
  using namespace redist::exec;
  const std::size_t want = (bytes == 0 ? 1 : bytes);
  if (want > static_cast<std::size_t>(INT64_MAX / 2)) return nullptr;
  const auto rounded = static_cast<std::int64_t>((want + 63) / 64 * 64);
  std::string why = "not supported by this build";
  auto seg = node_window_supported() ? make_array_segment(rounded, &why) : std::nullopt;
  if (seg) {
    Arrays& a = arrays();
    const std::lock_guard<std::mutex> g(a.lock);
    a.token = seg->id.token;
    if (a.registry.add(MappedRange{reinterpret_cast<std::uintptr_t>(seg->data), rounded, seg->id.fd, seg->id.gen,
                                   seg->id.bytes, 0})) {
      a.count.fetch_add(1, std::memory_order_release);
      return seg->data;
    }
    drop_array_segment(*seg);  // cannot happen (a fresh mapping overlaps none of ours)
    why = "a new segment overlaps a registered one";
  }
  say_once(why);
  return std::calloc(want, 1);
}

extern "C" void redist_free(void* p) {
  using namespace redist::exec;
  if (!p) return;
  Arrays& a = arrays();
  std::optional<MappedRange> r;
  {
    const std::lock_guard<std::mutex> g(a.lock);
    r = a.registry.remove(reinterpret_cast<std::uintptr_t>(p));
    if (r) a.count.fetch_sub(1, std::memory_order_release);
  }
  if (!r) {
    std::free(p);
    return;
  }
  drop_array_segment(OwnSegment{static_cast<char*>(p), SegmentId{static_cast<std::int64_t>(getpid()), r->fd, r->gen,
                                                                  a.token, r->seg_bytes}});
}

extern "C" int redist_is_mapped(const void* p, size_t bytes) {
  if (bytes > static_cast<size_t>(INT64_MAX)) return 0;
  return redist::exec::find_mapped(p, static_cast<std::int64_t>(bytes == 0 ? 1 : bytes)) ? 1 : 0;
}
