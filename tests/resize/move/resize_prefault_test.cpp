// SPDX-License-Identifier: BSD-3-Clause
// The move's arrays staged ahead (resize/src/move/pages.hpp): the thread faults every
// page of each staged array in and leaves it zero, a task that throws ends the run, and a
// registered matrix's move takes a prestaged buffer only when its size is the one asked;
// the arrays a move replaced are handed over whole by every kind of storage and freed on
// the thread (release).
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <memory>
#include <new>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "move/pages.hpp"
#include "parts/registry.hpp"

namespace {

using resize::detail::ArrayFor;
using resize::detail::PageArray;
using resize::detail::Prefault;

// Pages of [p, p + bytes) resident in memory (mincore).
std::size_t resident_pages(const void* p, std::size_t bytes) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> v((bytes + page - 1) / page);
  EXPECT_EQ(mincore(const_cast<void*>(p), bytes, v.data()), 0);
  std::size_t n = 0;
  for (unsigned char c : v) n += c & 1;
  return n;
}

bool all_zero(const PageArray& a) {
  const auto* c = static_cast<const unsigned char*>(a.data());
  for (std::size_t k = 0; k < a.bytes(); ++k)
    if (c[k] != 0) return false;
  return true;
}

// Whether the mapping holding `p` was advised MADV_HUGEPAGE ("hg" in /proc/self/smaps).
bool advised_huge(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= at && at < hi;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return (line + " ").find(" hg ") != std::string::npos;
  }
  return false;
}

TEST(Prefault, FaultsEveryPageOfEachStagedArrayInAndLeavesItZero) {
  const std::size_t bytes = (std::size_t{3} << 20) + 5;  // its own mapping, a page partly used
  std::vector<PageArray> arrays(2);
  ASSERT_EQ(resident_pages(PageArray(bytes).data(), bytes), 0u);  // fresh pages: none resident
  Prefault pf;
  std::vector<Prefault::Task> tasks;
  for (auto& a : arrays)
    tasks.push_back([&a, bytes]() -> std::pair<void*, std::size_t> {
      a = PageArray(bytes);
      return {a.data(), a.bytes()};
    });
  pf.start(std::move(tasks));
  EXPECT_GE(pf.wait(), 0.0);
  EXPECT_FALSE(pf.running());
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  for (const auto& a : arrays) {
    ASSERT_NE(a.data(), nullptr);
    EXPECT_EQ(resident_pages(a.data(), bytes), (bytes + page - 1) / page);
    EXPECT_TRUE(all_zero(a));
  }
  EXPECT_GT(pf.take_seconds(), 0.0);
  EXPECT_EQ(pf.take_seconds(), 0.0);  // taken once
}

TEST(Prefault, PopulatingMakesEveryPageResidentAndWritesNothing) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t bytes = 64 * page;
  // Fresh anonymous pages: none resident before, all after, still zero.
  PageArray fresh((std::size_t{2} << 20) + 7);
  ASSERT_EQ(resident_pages(fresh.data(), fresh.bytes()), 0u);
  resize::detail::populate_pages(fresh.data(), fresh.bytes());
  EXPECT_EQ(resident_pages(fresh.data(), fresh.bytes()), (fresh.bytes() + page - 1) / page);
  EXPECT_TRUE(all_zero(fresh));
  // An array that starts and ends inside pages (whole pages around it are populated): its
  // bytes and its neighbours' unchanged.
  void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(m, MAP_FAILED);
  auto* c = static_cast<unsigned char*>(m);
  c[0] = 7;
  c[bytes - 1] = 9;
  c[100] = 3;
  resize::detail::populate_pages(c + 100, bytes - 200);
  EXPECT_EQ(resident_pages(m, bytes), bytes / page);
  EXPECT_EQ(c[0], 7);
  EXPECT_EQ(c[100], 3);
  EXPECT_EQ(c[bytes - 1], 9);
  EXPECT_EQ(c[page * 10], 0);
  munmap(m, bytes);
  EXPECT_TRUE(resize::detail::populate_pages(nullptr, 0));  // nothing to do
}

TEST(Prefault, ATaskThatThrowsEndsTheRun) {
  int ran = 0;
  Prefault pf;
  pf.start({[&]() -> std::pair<void*, std::size_t> {
              ++ran;
              return {nullptr, 0};
            },
            []() -> std::pair<void*, std::size_t> { throw std::bad_alloc(); },
            [&]() -> std::pair<void*, std::size_t> {
              ++ran;
              return {nullptr, 0};
            }});
  pf.wait();
  EXPECT_EQ(ran, 1);
}

TEST(Prefault, TheMoveTakesAPrestagedBufferOfTheSizeItAsksOnly) {
  resize::Registered r;
  r.mat().type = resize::detail::Scalar::D;
  auto st = std::make_shared<resize::detail::MatrixState>();
  r.store = std::make_unique<resize::detail::OwnedStorage<double>>(st, resize::config::HugePages::Off);
  const auto [p, bytes] = r.prestage(1000);
  EXPECT_EQ(bytes, 1000 * sizeof(double));
  EXPECT_TRUE(r.holds_prestaged());
  EXPECT_EQ(r.stage(1000), p);  // taken as it is
  EXPECT_FALSE(r.holds_prestaged());
  r.prestage(1000);
  void* q = r.stage(999);  // another size: staged anew
  EXPECT_FALSE(r.holds_prestaged());
  EXPECT_NE(q, nullptr);
  r.prestage(10);
  r.unstage();
  EXPECT_FALSE(r.holds_prestaged());
}

TEST(Prefault, ReleaseFreesTheHeldArraysOnTheThreadAfterWhatItRuns) {
  std::atomic<int> order{0};
  int task_at = -1, freed_at = -1;
  std::thread::id freed_on;
  Prefault pf;
  pf.start({[&]() -> std::pair<void*, std::size_t> {
    task_at = order++;
    return {nullptr, 0};
  }});
  std::vector<std::shared_ptr<void>> held;
  for (int k = 0; k < 2; ++k)
    held.push_back(std::shared_ptr<void>(std::malloc(64), [&](void* p) {
      freed_at = order++;
      freed_on = std::this_thread::get_id();
      std::free(p);
    }));
  pf.release(std::move(held));
  pf.wait();
  EXPECT_EQ(task_at, 0);  // the staging run first, joined by release
  EXPECT_EQ(freed_at, 2);
  EXPECT_NE(freed_on, std::this_thread::get_id());
  pf.release({});  // nothing held: no thread
  EXPECT_FALSE(pf.running());
}

// commit_keeping: the staged buffer becomes the matrix's, the one it replaces comes back
// whole (its values intact) instead of being freed.
TEST(Prefault, EveryStorageHandsTheReplacedBufferOverWhole) {
  using namespace resize::detail;
  std::vector<double> app = {1, 2, 3};
  const double* before = app.data();
  VectorStorage<double> vs(app);
  static_cast<double*>(vs.stage(5))[4] = 7;
  auto old_v = vs.commit_keeping();
  ASSERT_NE(old_v, nullptr);
  EXPECT_EQ(app.size(), 5u);
  EXPECT_EQ(app[4], 7);
  const auto& kept = *static_cast<std::vector<double>*>(old_v.get());
  EXPECT_EQ(kept.data(), before);
  EXPECT_EQ(kept, (std::vector<double>{1, 2, 3}));

  double* c = nullptr;
  {
    MallocStorage<double> ms(&c);
    ms.reset(4, ArrayFor::Start);
    c[0] = 5;
    double* first = c;
    ms.stage(2);
    auto old_m = ms.commit_keeping();
    EXPECT_EQ(old_m.get(), first);
    EXPECT_EQ(static_cast<double*>(old_m.get())[0], 5);
    EXPECT_NE(c, first);
    ms.stage(3);
    EXPECT_NE(ms.commit_keeping(), nullptr);
  }
  EXPECT_EQ(c, nullptr);  // the session's buffer freed with it

  auto st = std::make_shared<MatrixState>();
  OwnedStorage<double> os(st, resize::config::HugePages::Off);
  EXPECT_EQ(os.commit_keeping(), nullptr);  // nothing held before: nothing handed over
  os.reset(std::size_t{1} << 18, ArrayFor::Start);  // 2 MiB: its own mapping
  static_cast<double*>(const_cast<void*>(os.data()))[9] = 4;
  const void* mapped = os.data();
  os.stage(10);
  auto old_o = os.commit_keeping();
  ASSERT_NE(old_o, nullptr);
  const auto& pages = *static_cast<PageArray*>(old_o.get());
  EXPECT_EQ(pages.data(), mapped);
  EXPECT_EQ(static_cast<const double*>(pages.data())[9], 4);
  EXPECT_EQ(st->data, os.data());
  EXPECT_EQ(st->elements, 10u);
}

// Huge pages (RESIZE_HUGEPAGES): calloc below 1 MiB, whole small pages from there, and with
// the switch on whole 2 MiB pages from 4 MiB on; the footprint is what the mapping holds.
TEST(PageArrayTest, MappingPlanAndFootprint) {
  using resize::detail::footprint;
  using resize::detail::plan_mapping;
  constexpr std::size_t KiB = 1024, MiB = 1024 * KiB, page = 4 * KiB;
  for (bool huge : {false, true}) {
    EXPECT_EQ(plan_mapping(0, huge, page).length, 0u);
    EXPECT_EQ(plan_mapping(MiB - 1, huge, page).length, 0u);       // calloc
    EXPECT_EQ(footprint(MiB - 1, huge, page), MiB - 1);
    EXPECT_EQ(plan_mapping(MiB + 1, huge, page).length, MiB + page);  // below the huge threshold: small pages
    EXPECT_FALSE(plan_mapping(4 * MiB - 1, huge, page).huge);
    EXPECT_EQ(plan_mapping(SIZE_MAX - 10, huge, page).length, 0u);   // overflows: PageArray throws
  }
  EXPECT_FALSE(plan_mapping(4 * MiB, false, page).huge);
  EXPECT_EQ(plan_mapping(4 * MiB + 1, false, page).length, 4 * MiB + page);
  const auto h = plan_mapping(4 * MiB, true, page);
  EXPECT_TRUE(h.huge);
  EXPECT_EQ(h.length, 4 * MiB);
  EXPECT_EQ(plan_mapping(4 * MiB + 1, true, page).length, 6 * MiB);  // rounded up to 2 MiB
  EXPECT_EQ(footprint(5 * MiB + 3, true, page), 6 * MiB);
  EXPECT_EQ(footprint(5 * MiB + 3, false, page), 5 * MiB + page);
  EXPECT_FALSE(plan_mapping(8 * MiB, true, 2 * MiB).huge);  // pages that large already: nothing to ask
  EXPECT_THROW(PageArray(SIZE_MAX - 10), std::bad_alloc);
}

// RESIZE_HUGEPAGES by what an array serves: off none, on all, auto (the default) level
// recovery's only.
TEST(PageArrayTest, HugePagesForEachUse) {
  using resize::config::HugePages;
  using resize::detail::ArrayFor;
  using resize::detail::huge_pages_for;
  for (ArrayFor use : {ArrayFor::Start, ArrayFor::Move, ArrayFor::Recovery}) {
    EXPECT_FALSE(huge_pages_for(HugePages::Off, use));
    EXPECT_TRUE(huge_pages_for(HugePages::On, use));
  }
  EXPECT_FALSE(huge_pages_for(HugePages::Auto, ArrayFor::Start));
  EXPECT_FALSE(huge_pages_for(HugePages::Auto, ArrayFor::Move));
  EXPECT_TRUE(huge_pages_for(HugePages::Auto, ArrayFor::Recovery));
  EXPECT_EQ(resize::config::Session{}.hugepages, HugePages::Auto);
}

// Asked for huge pages, a large array starts on a 2 MiB boundary, is zero, and a storage
// whose moves take them counts the rounded length; one whose moves do not counts whole
// small pages. With auto, a recovery's buffer is on huge pages, a start's and a move's not.
TEST(PageArrayTest, HugeMappingAlignedZeroAndCounted) {
  using resize::config::HugePages;
  using resize::detail::MatrixState;
  using resize::detail::OwnedStorage;
  constexpr std::size_t MiB = std::size_t{1} << 20;
  {
    PageArray a(5 * MiB + 8, true);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.data()) % (2 * MiB), 0u);
    EXPECT_EQ(a.bytes(), 5 * MiB + 8);
    EXPECT_TRUE(all_zero(a));
    static_cast<unsigned char*>(a.data())[a.bytes() - 1] = 1;  // the whole length is writable
    PageArray small(3 * MiB, true);                             // below 4 MiB: small pages
    EXPECT_TRUE(all_zero(small));
    OwnedStorage<double> os(std::make_shared<MatrixState>(), HugePages::On);
    EXPECT_EQ(os.held_bytes(5 * MiB + 8), static_cast<std::int64_t>(6 * MiB));
    EXPECT_EQ(os.held_bytes(100), 100);
  }
  const auto page = static_cast<std::int64_t>(resize::detail::page_size());
  for (HugePages setting : {HugePages::Off, HugePages::Auto}) {
    OwnedStorage<double> os(std::make_shared<MatrixState>(), setting);
    EXPECT_EQ(os.held_bytes(5 * MiB + 8), static_cast<std::int64_t>(5 * MiB) + page);
  }
  // The kernel may place any large mapping on a 2 MiB boundary: the advice itself (smaps'
  // "hg") tells which buffers asked for huge pages.
  if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) != 0) GTEST_SKIP() << "no transparent huge pages";
  OwnedStorage<double> os(std::make_shared<MatrixState>(), HugePages::Auto);
  constexpr std::size_t n = 5 * MiB / sizeof(double);
  os.reset(n, ArrayFor::Recovery);
  EXPECT_TRUE(advised_huge(os.data()));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(os.data()) % (2 * MiB), 0u);
  EXPECT_FALSE(advised_huge(os.stage(n)));  // a move's
  os.reset(n, ArrayFor::Start);
  EXPECT_FALSE(advised_huge(os.data()));
  OwnedStorage<double> on(std::make_shared<MatrixState>(), HugePages::On);
  EXPECT_TRUE(advised_huge(on.stage(n)));
  on.reset(n, ArrayFor::Start);
  EXPECT_TRUE(advised_huge(on.data()));
}

}  // namespace
