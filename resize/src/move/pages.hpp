// SPDX-License-Identifier: BSD-3-Clause
// The new local arrays a move writes into, allocated (PageArray) and faulted in ahead of the
// move (Prefault) so that the move pays no more than it must for memory nobody has touched
// yet. A newcomer has no array before the move and an
// old process's new array is new memory too: every page faults in on its first write.
// Zeroing the array before the move (std::vector's value initialisation) is a whole extra
// pass that takes those faults and then writes the array a second time; PageArray maps
// fresh anonymous pages (zero by the kernel, nothing written on allocation), so the move's
// own writes are the first touch. Measured on one node, PDGEMM N = 4,000 grown 1x2 -> 2x2
// (docs/measurements/resize.md, "A resize against its limits"): the zeroing took 0.15 s of
// a 0.6 s move.
// Huge pages (RESIZE_HUGEPAGES, config.hpp; by default, auto, for level recovery's new
// arrays only: huge_pages_for): from kHugeFrom on, a PageArray asked for them is mapped at 2 MiB alignment, its length rounded up to 2 MiB, and madvise(MADV_HUGEPAGE)
// asks for transparent huge pages: one fault per 2 MiB instead of 512. On memory the
// kernel has backed, a first write then costs 0.13-0.17x a 4 KiB one (128 MiB: 8.3 against
// 47.6 ms; scripts/bench/resize.sh first-touch, docs/data/first_touch/). On the virtual machine it
// was measured on, whose host takes freed guest memory back within seconds (free page
// reporting), a fresh process's first huge pages cost the host's fault instead, 3-6x a
// 4 KiB first touch: the one-node resize was slower with them (the newcomers' prefault
// beside their BLACS grids), level recovery 1.7-2.0x faster (docs/measurements/results.md,
// "Fresh memory and huge pages"): hence the default. An earlier reading, that compaction stalled the faults
// with defrag=madvise, did not hold: free 2 MiB blocks were plentiful throughout.
// Internal to the resize library.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "common/config.hpp"

namespace resize::detail {

// What a new local array of the session serves: a start's first layout (start, a restart
// from a global checkpoint), a move (a resize's, the background resize's, staged ahead or
// not), or level recovery (restart_from_levels: its start's arrays, into which the loaded
// copies are redistributed).
enum class ArrayFor { Start, Move, Recovery };
// Whether that array asks for huge pages under RESIZE_HUGEPAGES (pure: unit-tested). Auto:
// level recovery's arrays only. Its processes are fresh and have no prefault thread, and
// in every paired round it was 1.7-2.0x faster with them; a one-node resize was slower
// (newcomers' prefault beside their BLACS grids; docs/measurements/results.md, "Fresh
// memory and huge pages").
constexpr bool huge_pages_for(config::HugePages setting, ArrayFor use) {
  return setting == config::HugePages::On || (setting == config::HugePages::Auto && use == ArrayFor::Recovery);
}

// How an array of `bytes` is mapped (pure: the unit tests check it). Below kOwnMappingFrom:
// calloc (length 0). From there: its own anonymous mapping of whole pages; with huge pages
// asked for and from kHugeFrom on, at 2 MiB alignment and whole 2 MiB pages. `length` is
// what the array holds of the address space and, once written, of memory: the bytes the
// move's accounting counts (footprint).
inline constexpr std::size_t kOwnMappingFrom = std::size_t{1} << 20;
inline constexpr std::size_t kHugePage = std::size_t{2} << 20;
inline constexpr std::size_t kHugeFrom = std::size_t{4} << 20;
struct Mapping {
  std::size_t length = 0;  // 0: calloc
  bool huge = false;       // 2 MiB aligned, madvise(MADV_HUGEPAGE)
};
Mapping plan_mapping(std::size_t bytes, bool huge_pages, std::size_t page);
// The bytes an array of `bytes` holds once written (calloc: `bytes`).
std::size_t footprint(std::size_t bytes, bool huge_pages, std::size_t page);

// The system's page size (4 KiB where sysconf does not say).
std::size_t page_size();

// Where the session's own arrays come from under RESIZE_MAPPED_ARRAYS=on: redist's mapped
// arrays (redist_alloc/redist_free: zeroed, in segments the node's other ranks map, so a
// move's receivers copy straight out of them; docs/reference/mapped-arrays.md). Named by
// the session (session_matrix.cpp, session_c.cpp), so this core stays free of MPI.
struct SharedAlloc {
  void* (*alloc)(std::size_t) = nullptr;
  void (*release)(void*) = nullptr;
  bool on() const { return alloc && release; }
};

// A zeroed array of `bytes` whose pages are not touched on allocation (plan_mapping: from
// 1 MiB on its own anonymous mapping, from 4 MiB on with huge pages when `huge` asks for
// them; below: calloc); with `shared` on, from shared->alloc instead (no huge pages: its
// pages are reserved and mapped at allocation). Throws std::bad_alloc.
class PageArray {
 public:
  PageArray() = default;
  explicit PageArray(std::size_t bytes, bool huge = false, const SharedAlloc* shared = nullptr);
  ~PageArray();
  PageArray(PageArray&& o) noexcept { swap(o); }
  PageArray& operator=(PageArray&& o) noexcept {
    PageArray(std::move(o)).swap(*this);
    return *this;
  }
  PageArray(const PageArray&) = delete;
  PageArray& operator=(const PageArray&) = delete;
  void swap(PageArray& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(bytes_, o.bytes_);
    std::swap(mapped_, o.mapped_);
    std::swap(release_, o.release_);
  }
  void* data() const { return p_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0, mapped_ = 0;  // mapped_: the mapping's length (0: calloc'ed)
  void (*release_)(void*) = nullptr;    // a SharedAlloc's array: freed by it
};

// The new local arrays of a move, allocated and faulted in ahead of it, while the process
// would otherwise wait. Every new local array of a move is memory nobody has written
// (PageArray, above): its first write takes one page fault per 4 KiB page, 16,384 for 64 MB, and
// in the move that cost lands on the unpack and the local copies. An old process of an
// expansion knows its new local sizes as soon as the target grid is chosen, and then waits
// in MPI_Comm_spawn for hundreds of milliseconds: a thread stages its new arrays and
// writes one zero per page of them meanwhile (they are zero already: the writes fault the
// pages in and change nothing; an extended-descriptor matrix waits for the hand-over, whose
// state its block sizes may need). A newcomer does the same from the hand-over on, beside
// the host exchange, the BLACS grids and the planning. The move then takes each staged array
// whose size is the one it needs (Registered::stage) and writes warm pages. The thread's
// time is in the record (MovePhases::prefault_s), the move's wait for it in stage_s.
// The thread calls no MPI and touches only the arrays it stages; wait() joins it before
// anything else reads or replaces them.
// After the move the same thread frees the arrays it replaced (release): their pages go
// back to the system while the process goes on (31 of a 112 ms move for PDGEMM N = 4,000
// on one node was that freeing). Each array is handed over whole (Storage::commit_keeping):
// no matrix, application or checkpoint refers to it any more, so nothing races with the
// thread; the next start(), wait() or the destructor joins it.
class Prefault {
 public:
  // Allocates one array and returns it with its length in bytes (nullptr: nothing to touch).
  using Task = std::function<std::pair<void*, std::size_t>()>;
  Prefault() = default;
  ~Prefault() { wait(); }
  Prefault(const Prefault&) = delete;
  Prefault& operator=(const Prefault&) = delete;
  // Runs the tasks in order on a thread, each array's pages populated after its task;
  // a task that throws ends the run (the arrays after it are staged by the move itself).
  void start(std::vector<Task> tasks);
  // Frees `held` (old local arrays no one refers to) on the thread, after whatever it runs
  // now. Its time is not the prefault's (take_seconds): the move is over by then.
  void release(std::vector<std::shared_ptr<void>> held);
  // Joins the thread; the seconds this call waited (0 when none runs).
  double wait();
  // The thread's own time (seconds) of the last run, once (0 after it was taken): joins it.
  double take_seconds() {
    wait();
    const double s = run_s_;
    run_s_ = 0;
    return s;
  }
  bool running() const { return t_.joinable(); }

 private:
  std::thread t_;
  double run_s_ = 0;
};

// Writes one zero to every page of [p, p + bytes): the pages of a zeroed array faulted in.
void touch_pages(void* p, std::size_t bytes);
// The same in one call where the kernel can (madvise(MADV_POPULATE_WRITE), Linux 5.14 on:
// the pages populated writable without a fault each, 0.82x the writes for 128 MiB here,
// docs/data/first_touch/); true when it did, else (false) by touch_pages.
bool populate_pages(void* p, std::size_t bytes);

}  // namespace resize::detail
