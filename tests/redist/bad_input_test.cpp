// SPDX-License-Identifier: BSD-3-Clause
// Bad and extreme input to the pure planning code and to the C API's local functions
//: seeded fuzzing, each bounded to a few seconds. Every input either works
// (and the plan is then checked) or fails with redist::Error and the right code; nothing
// crashes, wraps around or throws anything else.
#include <gtest/gtest.h>

#include <chrono>
#include <climits>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#include "malleable/redist/plan.hpp"
#include "malleable/redist/redist.h"

using redist::ErrorCode;
using redist::Layout;
using redist::Region;
using redist::ScheduleKind;

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kBudget = std::chrono::seconds(3);

// Values where 64-bit arithmetic on user input goes wrong.
std::int64_t extreme(std::mt19937_64& rng, std::int64_t small_extent) {
  static const std::int64_t edges[] = {0, 1, -1, 2, INT64_MAX, INT64_MAX - 1, INT64_MIN, INT64_MIN + 1,
                                       INT64_MAX / 2, INT64_MAX / 2 + 1, (std::int64_t{1} << 32), INT32_MAX};
  switch (rng() % 3) {
    case 0: return edges[rng() % (sizeof edges / sizeof edges[0])];
    case 1: return static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(small_extent + 3)) - 1;
    default: return static_cast<std::int64_t>(rng());
  }
}

bool fits(std::int64_t off, std::int64_t len, std::int64_t ext) {
  return off >= 0 && static_cast<__int128>(off) + len <= ext;
}

std::int64_t planned_elements(const redist::RedistPlan& p) {
  std::int64_t e = 0;
  for (const auto& t : p.transfers) e += t.elements();
  return e;
}

}  // namespace

// Class 1: a region whose ia + m overflows 64 bits used to pass the check and crash
// make_plan. The oracle computes "fits" in 128 bits.
TEST(BadInput, RegionArithmeticNeverOverflows) {
  std::mt19937_64 rng(14001);
  const Layout a = Layout::block_cyclic(37, 29, 4, 3, 2, 2);
  const Layout b = Layout::block_cyclic(41, 31, 5, 2, 1, 3, 0, 1, {3, 1, 0});
  const auto t0 = Clock::now();
  int cases = 0, accepted = 0;
  while (cases < 20000 && Clock::now() - t0 < kBudget) {
    ++cases;
    Region g{extreme(rng, 40), extreme(rng, 30), extreme(rng, 40), extreme(rng, 30), extreme(rng, 40), extreme(rng, 30)};
    const bool empty = g.m == 0 || g.n == 0;
    const bool ok = g.m >= 0 && g.n >= 0 &&
                    (empty || (fits(g.ia, g.m, a.m) && fits(g.ja, g.n, a.n) && fits(g.ib, g.m, b.m) && fits(g.jb, g.n, b.n)));
    try {
      const auto p = redist::make_plan(a, b, g, 4, static_cast<ScheduleKind>(rng() % 5));
      EXPECT_TRUE(ok) << "accepted m=" << g.m << " n=" << g.n << " ia=" << g.ia << " ja=" << g.ja << " ib=" << g.ib
                      << " jb=" << g.jb;
      EXPECT_EQ(planned_elements(p), empty ? 0 : g.m * g.n);
      ++accepted;
    } catch (const redist::Error& e) {
      EXPECT_FALSE(ok) << "rejected a valid region: " << e.what();
      EXPECT_EQ(e.code(), ErrorCode::RegionOutOfRange) << e.what();
    }
  }
  EXPECT_GT(accepted, 0);
  EXPECT_GT(cases, 1000);
}

// Class 1: sizes, block sizes and block lists near 2^63 are refused by name, never turned
// into negative extents, wrapped loops or bad_alloc.
TEST(BadInput, LayoutSizesNeverOverflowOrExhaustMemory) {
  std::mt19937_64 rng(14002);
  const auto t0 = Clock::now();
  int cases = 0;
  while (cases < 5000 && Clock::now() - t0 < kBudget) {
    ++cases;
    const std::int64_t m = extreme(rng, 50), n = extreme(rng, 50), mb = extreme(rng, 8), nb = extreme(rng, 8);
    try {
      const Layout l = Layout::block_cyclic(m, n, mb, nb, 2, 3);
      ASSERT_TRUE(m >= 0 && n >= 0 && mb > 0 && nb > 0);
      EXPECT_FALSE(__builtin_mul_overflow_p(m, n, std::int64_t{0}));
      std::int64_t rows = 0, cols = 0;
      for (int p = 0; p < 2; ++p) rows += l.local_rows(p);
      for (int p = 0; p < 3; ++p) cols += l.local_cols(p);
      EXPECT_EQ(rows, m);
      EXPECT_EQ(cols, n);
      EXPECT_LE(static_cast<std::int64_t>(l.row_blocks.size()), redist::kMaxBlocks);
    } catch (const redist::Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidLayout) << e.what();
    }
    // Explicit lists whose sum passes 2^63.
    std::vector<std::int64_t> rb{extreme(rng, 9), extreme(rng, 9), extreme(rng, 9)};
    try {
      const Layout l = Layout::from_blocks(rb, {3}, 1, 1);
      EXPECT_EQ(static_cast<__int128>(rb[0]) + rb[1] + rb[2], l.m);
    } catch (const redist::Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidLayout) << e.what();
    }
  }
  // The exact cases of the issue: m = n = 3e9 is plannable; 4e9 x 4e9 elements is not.
  const Layout big = Layout::block_cyclic(3000000000LL, 3000000000LL, 1 << 20, 1 << 20, 2, 2);
  const auto s = redist::plan_stats(big, Layout::block_cyclic(3000000000LL, 3000000000LL, 1 << 19, 1 << 19, 3, 3), 9);
  EXPECT_EQ(s.elements_total, 9000000000000000000LL);
  EXPECT_GT(s.elements_moved, 0);
  try {
    (void)Layout::block_cyclic(4000000000LL, 4000000000LL, 1 << 20, 1 << 20, 2, 2);
    ADD_FAILURE() << "4e9 x 4e9 accepted";
  } catch (const redist::Error& e) {
    EXPECT_NE(std::string(e.what()).find("overflows 64 bits"), std::string::npos) << e.what();
  }
  try {
    (void)Layout::block_cyclic(INT64_MAX / 4, 1, 1, 1, 1, 1);
    ADD_FAILURE() << "2^61 blocks accepted";
  } catch (const redist::Error& e) {
    EXPECT_NE(std::string(e.what()).find("blocks; a dimension may have at most"), std::string::npos) << e.what();
  }
}

// redist's error is the one form (malleable/error.hpp): code() the C API's value, one to one
// with the common code, the part redist; a message alone an invalid layout, as before.
TEST(BadInput, ErrorsAreTheOneForm) {
  for (int c = REDIST_SUCCESS; c <= REDIST_ERR_INVALID_ARGUMENT; ++c) {
    const redist::Error e(static_cast<ErrorCode>(c), "m");
    EXPECT_EQ(static_cast<int>(e.code()), c);
    EXPECT_EQ(e.part(), malleable::Part::Redist);
  }
  EXPECT_EQ(redist::Error(ErrorCode::InvalidArgument, "m").errc(), malleable::Errc::InvalidArgument);
  EXPECT_EQ(redist::Error("m").code(), ErrorCode::InvalidLayout);
  try {
    Layout::block_cyclic(10, 10, 0, 2, 1, 1);
    ADD_FAILURE() << "blocks of 0 rows were accepted";
  } catch (const malleable::Error& e) {
    EXPECT_EQ(e.part(), malleable::Part::Redist);
    EXPECT_EQ(e.errc(), malleable::Errc::Layout);
  }
}

// Class 4: any number that is not a schedule or a dimension is refused with its value.
TEST(BadInput, UnknownEnumerationValuesAreRejected) {
  std::mt19937 rng(14004);
  const Layout a = Layout::block_cyclic(20, 20, 3, 3, 2, 2);
  const Layout b = Layout::block_cyclic(20, 20, 4, 4, 1, 4);
  std::vector<int> values;
  for (int v = -4; v <= 9; ++v) values.push_back(v);
  for (int k = 0; k < 50; ++k) values.push_back(static_cast<int>(rng()));
  values.push_back(INT_MIN);
  values.push_back(INT_MAX);
  const std::vector<int> ranks{2, 0, 3, 1};
  redist_desc d{};
  d.ctxt = -1;
  d.nprow = 2;
  d.npcol = 2;
  d.m = 20;
  d.n = 17;
  d.mb = 3;
  d.nb = 5;
  d.lld = 12;
  d.ranks = ranks.data();
  for (int v : values) {
    const bool schedule_ok = v >= 0 && v <= 4;
    try {
      (void)redist::make_plan(a, b, Region::whole(a), 4, static_cast<ScheduleKind>(v));
      EXPECT_TRUE(schedule_ok) << "schedule " << v << " accepted";
    } catch (const redist::Error& e) {
      EXPECT_FALSE(schedule_ok) << e.what();
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find("schedule = " + std::to_string(v)), std::string::npos) << e.what();
    }
    const bool dim_ok = v == REDIST_ROWS || v == REDIST_COLS;
    std::int64_t count = -7, il = -7, ig = -7;
    int owner = -7;
    const int rcs[3] = {redist_numroc(&d, v, 1, &count), redist_g2l(&d, v, 5, &owner, &il),
                        redist_l2g(&d, v, 1, 1, &ig)};
    for (int rc : rcs) {
      if (dim_ok) {
        EXPECT_EQ(rc, REDIST_SUCCESS) << redist_error_message();
      } else {
        EXPECT_EQ(rc, REDIST_ERR_INVALID_ARGUMENT) << "dim " << v;
        EXPECT_NE(std::string(redist_error_message()).find("dim = " + std::to_string(v)), std::string::npos)
            << redist_error_message();
      }
    }
    if (dim_ok) {
      const Layout l = Layout::block_cyclic(20, 17, 3, 5, 2, 2);
      EXPECT_EQ(count, v == REDIST_ROWS ? l.local_rows(1) : l.local_cols(1));
    } else {
      EXPECT_EQ(count, -7);  // outputs untouched on error
      EXPECT_EQ(owner, -7);
    }
  }
  EXPECT_STREQ(redist_strerror(REDIST_ERR_INVALID_ARGUMENT), "invalid handle or enumeration value");
}

// Class 1 and 5 in the index functions: extreme indices are refused naming the argument.
TEST(BadInput, IndexFunctionsRefuseExtremeIndices) {
  redist_desc d{};
  const std::vector<int> ranks{0, 1, 2};
  d.ctxt = -1;
  d.nprow = 1;
  d.npcol = 3;
  d.m = 10;
  d.n = 10;
  d.mb = d.nb = 2;
  d.lld = 10;
  d.ranks = ranks.data();
  std::int64_t out = 0;
  int p = 0;
  for (std::int64_t v : {std::int64_t{0}, std::int64_t{-1}, INT64_MIN, INT64_MAX, std::int64_t{11}}) {
    EXPECT_EQ(redist_g2l(&d, REDIST_COLS, v, &p, &out), REDIST_ERR_REGION);
    EXPECT_NE(std::string(redist_error_message()).find("ig = " + std::to_string(v)), std::string::npos);
    EXPECT_EQ(redist_l2g(&d, REDIST_COLS, 1, v, &out), REDIST_ERR_REGION);
    EXPECT_NE(std::string(redist_error_message()).find("il = " + std::to_string(v)), std::string::npos);
  }
  EXPECT_EQ(redist_numroc(&d, REDIST_COLS, 3, &out), REDIST_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(redist_error_message()).find("iproc = 3"), std::string::npos) << redist_error_message();
}

// Class 7 ("nothing to do"): an empty region moves nothing and its offsets are not
// examined, whichever of m and n is zero (PDGEMR2D returns before looking at anything).
TEST(BadInput, EmptyRegionOffsetsAreNotExamined) {
  std::mt19937_64 rng(14007);
  const Layout a = Layout::block_cyclic(12, 9, 2, 2, 2, 1);
  const Layout b = Layout::block_cyclic(12, 9, 3, 3, 1, 2);
  for (int k = 0; k < 2000; ++k) {
    Region g{0, extreme(rng, 9), extreme(rng, 12), extreme(rng, 9), extreme(rng, 12), extreme(rng, 9)};
    if (k % 2) std::swap(g.m, g.n);
    if (g.m < 0 || g.n < 0) {
      EXPECT_THROW(redist::make_plan(a, b, g, 2), redist::Error);
      continue;
    }
    const auto p = redist::make_plan(a, b, g, 2, ScheduleKind::Matching);
    EXPECT_TRUE(p.transfers.empty());
    EXPECT_EQ(p.stats.elements_total, 0);
  }
  // Not empty: a negative offset is an error whichever dimension it is in.
  for (Region g : {Region{0 + 1, 1, -1, 0, 0, 0}, Region{1, 1, 0, 0, 0, -1}}) {
    try {
      (void)redist::make_plan(a, b, g, 2);
      ADD_FAILURE() << "negative offset accepted";
    } catch (const redist::Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::RegionOutOfRange);
    }
  }
}

// Class 8: processes outside the grid (ctxt -1) get a valid "not in this grid" descriptor,
// whatever they pass for the lists; an empty dimension needs no list and no block size.
TEST(BadInput, DescInitBlocksOutsideGridAndEmptyDimensions) {
  redist_desc d;
  const std::int64_t rb[2] = {3, 4};
  EXPECT_EQ(redist_desc_init_blocks(&d, -1, 2, rb, 0, nullptr, 0, 0, 1), REDIST_SUCCESS) << redist_error_message();
  EXPECT_EQ(d.ctxt, -1);
  EXPECT_EQ(redist_desc_init_blocks(&d, -1, 5, nullptr, 7, nullptr, 0, 0, 0), REDIST_SUCCESS) << redist_error_message();
  EXPECT_EQ(d.ctxt, -1);
  EXPECT_EQ(d.nrow_blocks, 0);
  EXPECT_EQ(redist_desc_init_blocks(&d, -2, 0, nullptr, 0, nullptr, 0, 0, 1), REDIST_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(redist_error_message()).find("ctxt = -2"), std::string::npos);
  // Outside the grid there is no local part to ask about.
  EXPECT_EQ(redist_desc_init_blocks(&d, -1, 2, rb, 0, nullptr, 0, 0, 1), REDIST_SUCCESS);
  std::int64_t c = 0;
  EXPECT_EQ(redist_numroc(&d, REDIST_ROWS, 0, &c), REDIST_ERR_NOT_IN_GRID);
  // An empty dimension described by a NULL list and no block size.
  const std::vector<int> ranks{1, 0};
  redist_desc e{};
  e.ctxt = -1;
  e.nprow = 1;
  e.npcol = 2;
  e.m = 0;
  e.n = 7;
  e.nb = 2;
  e.lld = 1;
  e.ranks = ranks.data();
  EXPECT_EQ(redist_numroc(&e, REDIST_ROWS, 0, &c), REDIST_SUCCESS) << redist_error_message();
  EXPECT_EQ(c, 0);
  EXPECT_EQ(redist_numroc(&e, REDIST_COLS, 1, &c), REDIST_SUCCESS) << redist_error_message();
  EXPECT_EQ(c, 3);
}

// Class 9: ScaLAPACK's rule for a 9-integer DESC on a process outside its grid (PDGEMR2D):
// DESC(CTXT_) = -1 and nothing else is read. CP2K's ELPA path passes all nine entries -1
// there; the conversion checked DTYPE_ first and the drop-in declined the call.
// A DESC with any other context is still validated in full.
TEST(BadInput, ScalapackDescOutsideGridReadsOnlyTheContext) {
  const int cp2k[9] = {-1, -1, -1, -1, -1, -1, -1, -1, -1};
  EXPECT_TRUE(redist::desc_outside_grid(cp2k));
  std::mt19937_64 rng(94);
  for (int t = 0; t < 1000; ++t) {
    int garbage[9];
    for (int& v : garbage) v = static_cast<int>(rng());
    garbage[1] = -1;
    ASSERT_TRUE(redist::desc_outside_grid(garbage)) << "DTYPE_ " << garbage[0];
  }
  // Through the C API (no BLACS call for context -1): a clean "not in this grid"
  // descriptor, none of the eight other entries copied into it.
  for (const int fill : {-1, 0x5a5a5a5a}) {
    int desc[9];
    for (int& v : desc) v = fill;
    desc[1] = -1;
    redist_desc d;
    std::memset(&d, 0x77, sizeof d);
    ASSERT_EQ(redist_desc_from_scalapack(&d, desc), REDIST_SUCCESS) << redist_error_message();
    EXPECT_EQ(d.ctxt, -1);
    EXPECT_EQ(d.m, 0);
    EXPECT_EQ(d.n, 0);
    EXPECT_EQ(d.lld, 0);
    EXPECT_EQ(d.nprow, 0);
    EXPECT_EQ(d.ranks, nullptr);
    EXPECT_EQ(d.row_blocks, nullptr);
  }
  // A valid context (here 0; DTYPE_ is examined before the BLACS are asked) with DTYPE_ -1
  // or 2 is refused as before, with the same message; the descriptor is left "not in this
  // grid". Any other context than -1 (e.g. -2) is not "outside": DTYPE_ is examined.
  for (const int dtype : {-1, 2, 0}) {
    for (const int ctxt : {0, 5, -2}) {
      const int desc[9] = {dtype, ctxt, 10, 10, 2, 2, 0, 0, 10};
      const std::string want = "DESC(DTYPE_) = " + std::to_string(dtype) + " is not 1";
      try {
        (void)redist::desc_outside_grid(desc);
        ADD_FAILURE() << "DTYPE_ " << dtype << " with CTXT_ " << ctxt << " accepted";
      } catch (const redist::Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::InvalidLayout);
        EXPECT_EQ(std::string(e.what()), want);
      }
      redist_desc d;
      std::memset(&d, 0x77, sizeof d);
      EXPECT_EQ(redist_desc_from_scalapack(&d, desc), REDIST_ERR_INVALID_LAYOUT);
      EXPECT_EQ(std::string(redist_error_message()), want);
      EXPECT_EQ(d.ctxt, -1);
    }
  }
  const int good[9] = {1, 3, 10, 10, 2, 2, 0, 0, 10};
  EXPECT_FALSE(redist::desc_outside_grid(good));
}
