// SPDX-License-Identifier: BSD-3-Clause
// The session's own arrays from a SharedAlloc (RESIZE_MAPPED_ARRAYS: redist's mapped arrays,
// here a counting stand-in, as the pure core links no MPI): every buffer of a Matrix<T>'s
// storage and of the C/Fortran storage, staged ones included, comes from it and goes back
// to it, zeroed; the replaced buffer handed over is freed by it; held_bytes counts the
// segment's whole pages. Without it the storages map as before (huge pages by the setting).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>

#include "move/pages.hpp"
#include "parts/storage.hpp"

namespace {

std::set<void*>& live() {
  static std::set<void*> s;
  return s;
}
int allocs = 0, frees = 0;

void* counted_alloc(std::size_t bytes) {
  void* p = std::calloc(bytes, 1);
  live().insert(p);
  ++allocs;
  return p;
}
void counted_free(void* p) {
  EXPECT_EQ(live().erase(p), 1u) << "freed a buffer the SharedAlloc did not give";
  ++frees;
  std::free(p);
}
const resize::detail::SharedAlloc kCounted{&counted_alloc, &counted_free};

}  // namespace

TEST(SharedAllocTest, OwnedStorageTakesEveryArrayFromItAndGivesItBack) {
  using namespace resize::detail;
  allocs = frees = 0;
  {
    auto st = std::make_shared<MatrixState>();
    OwnedStorage<double> os(st, resize::config::HugePages::On, kCounted);
    os.reset(std::size_t{1} << 20, ArrayFor::Start);  // 8 MiB: huge pages without the SharedAlloc
    EXPECT_EQ(live().count(const_cast<void*>(os.data())), 1u);
    static_cast<double*>(const_cast<void*>(os.data()))[3] = 2;
    auto* staged = static_cast<double*>(os.stage(100));
    EXPECT_EQ(live().count(staged), 1u);
    EXPECT_EQ(staged[99], 0.0);
    auto old = os.commit_keeping();
    ASSERT_NE(old, nullptr);
    EXPECT_EQ(allocs, 2);
    EXPECT_EQ(frees, 0);
    old.reset();  // the replaced array, freed by the SharedAlloc
    EXPECT_EQ(frees, 1);
    EXPECT_EQ(st->data, staged);
    // A segment: the bytes rounded to 64, a 64-byte header, whole pages.
    const auto page = static_cast<std::int64_t>(page_size());
    EXPECT_EQ(os.held_bytes(1000), (1024 + 64 + page - 1) / page * page);
    EXPECT_EQ(os.held_bytes(page - 64), page);
    EXPECT_EQ(os.held_bytes(page - 63), 2 * page);
    os.stage(5);
    os.unstage();
    EXPECT_EQ(frees, 2);
  }
  EXPECT_EQ(allocs, 3);  // the start's array, two staged ones
  EXPECT_EQ(frees, 3);
  EXPECT_TRUE(live().empty());
}

TEST(SharedAllocTest, MallocStorageTakesEveryBufferFromItAndGivesItBack) {
  using namespace resize::detail;
  allocs = frees = 0;
  double* c = nullptr;
  {
    MallocStorage<double> ms(&c, kCounted);
    ms.reset(4, ArrayFor::Start);
    EXPECT_EQ(live().count(c), 1u);
    c[0] = 5;
    ms.stage(2);
    auto old = ms.commit_keeping();
    EXPECT_EQ(static_cast<double*>(old.get())[0], 5);
    EXPECT_EQ(live().count(c), 1u);
    old.reset();
    EXPECT_EQ(frees, 1);
    ms.stage(3);
    ms.unstage();
    ms.clear();
    EXPECT_EQ(c, nullptr);
    ms.reset(0, ArrayFor::Start);  // at least one element
    EXPECT_EQ(live().count(c), 1u);
  }
  EXPECT_EQ(c, nullptr);
  EXPECT_EQ(allocs, 4);
  EXPECT_EQ(frees, 4);
  EXPECT_TRUE(live().empty());
}

TEST(SharedAllocTest, WithoutItTheArraysMapAsBefore) {
  using namespace resize::detail;
  allocs = frees = 0;
  auto st = std::make_shared<MatrixState>();
  OwnedStorage<double> os(st, resize::config::HugePages::On, SharedAlloc{});
  os.reset(std::size_t{1} << 20, ArrayFor::Start);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(os.data()) % kHugePage, 0u);  // huge pages kept
  EXPECT_EQ(os.held_bytes(std::int64_t{5} << 20), std::int64_t{6} << 20);
  EXPECT_EQ(allocs, 0);
  EXPECT_FALSE(SharedAlloc{}.on());
  EXPECT_FALSE((SharedAlloc{&counted_alloc, nullptr}.on()));
}
