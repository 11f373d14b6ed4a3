// SPDX-License-Identifier: BSD-3-Clause
// Checkpoint core (checkpoint.hpp): hyperslab selections equal each process's local
// elements in pack order for block-cyclic, block and extended layouts; the checksum is
// independent of the layout; validation names what differs; when to checkpoint.
#include "checkpoint/file/format.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

namespace ck = resize::checkpoint;
using Pos = std::pair<std::int64_t, std::int64_t>;

// The elements a process's slabs select, in HDF5's order (row-major over the dataspace).
std::vector<Pos> selected(const std::vector<ck::Slab>& s) {
  std::vector<Pos> out;
  for (const auto& x : s)
    for (std::int64_t a = 0; a < x.row.count; ++a)
      for (std::int64_t b = 0; b < x.row.block; ++b)
        for (std::int64_t c = 0; c < x.col.count; ++c)
          for (std::int64_t d = 0; d < x.col.block; ++d)
            out.emplace_back(x.row.start + a * x.row.stride + b, x.col.start + c * x.col.stride + d);
  std::sort(out.begin(), out.end());
  return out;
}

// What pack() lays out: local rows x local columns, row-major, as global positions.
std::vector<Pos> packed_order(const redist::Layout& l, int pr, int pc) {
  std::vector<Pos> out;
  for (std::int64_t i = 0; i < l.local_rows(pr); ++i)
    for (std::int64_t j = 0; j < l.local_cols(pc); ++j) out.emplace_back(l.local_to_row(pr, i), l.local_to_col(pc, j));
  return out;
}

void expect_exact_cover(const redist::Layout& l) {
  std::int64_t total = 0;
  for (int pr = 0; pr < l.nprow; ++pr)
    for (int pc = 0; pc < l.npcol; ++pc) {
      const auto sel = selected(ck::slabs(l, pr, pc));
      const auto want = packed_order(l, pr, pc);
      EXPECT_EQ(sel, want) << "process (" << pr << "," << pc << ")";
      total += static_cast<std::int64_t>(sel.size());
    }
  EXPECT_EQ(total, l.m * l.n);
}

TEST(CheckpointSlabs, BlockCyclicSelectsExactlyTheLocalElementsInPackOrder) {
  expect_exact_cover(redist::Layout::block_cyclic(10, 7, 3, 2, 2, 3));
  expect_exact_cover(redist::Layout::block_cyclic(64, 64, 8, 8, 3, 3));
  expect_exact_cover(redist::Layout::block_cyclic(5, 9, 4, 4, 3, 2));  // processes with nothing
}

TEST(CheckpointSlabs, BlockCyclicNeedsAtMostTwoPiecesPerAxis) {
  const auto l = redist::Layout::block_cyclic(1000, 1000, 64, 64, 3, 3);
  for (int p = 0; p < 3; ++p) {
    EXPECT_LE(ck::cover(ck::runs(l.row_axis(), p)).size(), 2u);
    EXPECT_LE(ck::slabs(l, p, p).size(), 4u);
  }
}

TEST(CheckpointSlabs, BlockLayoutIsOneSlabPerProcess) {
  const auto l = redist::Layout::block_cyclic(100, 90, 34, 18, 3, 5);
  expect_exact_cover(l);
  EXPECT_EQ(ck::slabs(l, 1, 2).size(), 1u);
}

TEST(CheckpointSlabs, ExtendedLayoutsSelectExactly) {
  expect_exact_cover(redist::Layout::from_blocks({7, 3, 12}, {5, 1, 9, 4}, 3, 4));      // one block each
  expect_exact_cover(redist::Layout::from_blocks({2, 5, 1, 4, 4, 2}, {3, 3, 6, 1}, 2, 2));  // unequal, cyclic
  expect_exact_cover(redist::Layout::from_blocks({4, 4}, {8}, 3, 1));  // process row 2 holds nothing
}

TEST(CheckpointPack, PackAndUnpackAreInverse) {
  const std::vector<double> local = {1, 2, 3, 0, 4, 5, 6, 0};  // 3 x 2, lld 4
  std::vector<double> packed(6), back(8, 0.0);
  ck::pack(local.data(), 4, 3, 2, packed.data());
  EXPECT_EQ(packed, (std::vector<double>{1, 4, 2, 5, 3, 6}));
  ck::unpack(packed.data(), 3, 2, back.data(), 4);
  for (int k : {0, 1, 2, 4, 5, 6}) EXPECT_EQ(back[k], local[k]);
  // Larger than a tile in both directions, with a leading dimension above the rows.
  const std::int64_t lr = 150, lc = 97, lld = 160;
  std::vector<double> big(static_cast<std::size_t>(lld * lc)), p(static_cast<std::size_t>(lr * lc)), b2(big.size(), -1.0);
  for (std::int64_t j = 0; j < lc; ++j)
    for (std::int64_t i = 0; i < lr; ++i) big[static_cast<std::size_t>(i + j * lld)] = static_cast<double>(i * 1000 + j);
  ck::pack(big.data(), lld, lr, lc, p.data());
  for (std::int64_t i = 0; i < lr; ++i)
    for (std::int64_t j = 0; j < lc; ++j) ASSERT_EQ(p[static_cast<std::size_t>(i * lc + j)], static_cast<double>(i * 1000 + j));
  ck::unpack(p.data(), lr, lc, b2.data(), lld);
  for (std::int64_t j = 0; j < lc; ++j)
    for (std::int64_t i = 0; i < lr; ++i) ASSERT_EQ(b2[static_cast<std::size_t>(i + j * lld)], big[static_cast<std::size_t>(i + j * lld)]);
}

template <class T, class H = ck::ChecksumV2>
std::uint64_t total_checksum(const redist::Layout& l, T (*value)(std::int64_t, std::int64_t), H h = {}) {
  std::uint64_t sum = 0;
  const auto ra = l.row_axis(), ca = l.col_axis();
  for (int pr = 0; pr < l.nprow; ++pr)
    for (int pc = 0; pc < l.npcol; ++pc) {
      const std::int64_t lr = l.local_rows(pr), lc = l.local_cols(pc), lld = std::max<std::int64_t>(1, lr);
      std::vector<T> buf(static_cast<std::size_t>(lld * std::max<std::int64_t>(lc, 1)));
      for (std::int64_t i = 0; i < lr; ++i)
        for (std::int64_t j = 0; j < lc; ++j) buf[i + j * lld] = value(l.local_to_row(pr, i), l.local_to_col(pc, j));
      sum += ck::local_checksum(buf.data(), lld, ra, pr, ca, pc, h);
    }
  return sum;
}

double dval(std::int64_t i, std::int64_t j) { return std::sin(0.1 * i + 0.37 * j); }
double dval_changed(std::int64_t i, std::int64_t j) { return i == 17 && j == 3 ? std::nextafter(dval(i, j), 2.0) : dval(i, j); }
double dval_swapped(std::int64_t i, std::int64_t j) { return dval(j, i); }
std::complex<float> zval(std::int64_t i, std::int64_t j) { return {float(i) * 0.5f, -float(j)}; }

template <class H>
void same_on_every_layout_and_changes_with_one_bit(H h) {
  const auto a = redist::Layout::block_cyclic(40, 30, 4, 3, 2, 2);
  const auto b = redist::Layout::block_cyclic(40, 30, 14, 10, 3, 3);
  const auto c = redist::Layout::from_blocks({11, 9, 20}, {6, 24}, 3, 2);
  const auto x = total_checksum<double>(a, dval, h);
  EXPECT_EQ(x, total_checksum<double>(b, dval, h));
  EXPECT_EQ(x, total_checksum<double>(c, dval, h));
  EXPECT_NE(x, total_checksum<double>(a, dval_changed, h));
  // Position matters: the same values elsewhere are another matrix.
  const auto sq = redist::Layout::block_cyclic(30, 30, 4, 3, 2, 2);
  EXPECT_NE(total_checksum<double>(sq, dval, h), total_checksum<double>(sq, dval_swapped, h));
  EXPECT_EQ(total_checksum<std::complex<float>>(a, zval, h), total_checksum<std::complex<float>>(c, zval, h));
}

TEST(CheckpointChecksum, SameOnEveryLayoutAndChangesWithOneBit) {
  same_on_every_layout_and_changes_with_one_bit(ck::ChecksumV1{});
  same_on_every_layout_and_changes_with_one_bit(ck::ChecksumV2{});
}

// Version 1 files keep verifying: its local_checksum is the sum of element_hash (the
// version 1 formula, ElementHashIsTheVersion1Formula), and the two versions differ.
TEST(CheckpointChecksum, Version1SumsElementHashAndVersion2IsAnotherFunction) {
  const auto l = redist::Layout::block_cyclic(23, 17, 4, 3, 2, 2);
  std::uint64_t v1 = 0;
  for (std::int64_t i = 0; i < 23; ++i)
    for (std::int64_t j = 0; j < 17; ++j) v1 += ck::element_hash(i, j, ck::value_bits(dval(i, j)));
  EXPECT_EQ(total_checksum<double>(l, dval, ck::ChecksumV1{}), v1);
  EXPECT_NE(total_checksum<double>(l, dval, ck::ChecksumV2{}), v1);
  EXPECT_EQ(ck::by_checksum(1, [](auto h) { return std::is_same_v<decltype(h), ck::ChecksumV1>; }), true);
  EXPECT_EQ(ck::by_checksum(2, [](auto h) { return std::is_same_v<decltype(h), ck::ChecksumV2>; }), true);
}

// Any change of one element changes the version 2 sum (an odd multiplier is a bijection
// mod 2^64): every bit of one element flipped in turn, at a few positions.
TEST(CheckpointChecksum, Version2ChangesWithEveryBitOfAnyElement) {
  const auto l = redist::Layout::block_cyclic(9, 7, 2, 3, 2, 2);
  const auto base = total_checksum<double>(l, dval);
  for (auto [i, j] : {std::pair<std::int64_t, std::int64_t>{0, 0}, {8, 6}, {4, 3}})
    for (int bit = 0; bit < 64; ++bit) {
      const std::uint64_t before = ck::value_bits(dval(i, j)), after = before ^ (1ull << bit);
      const auto ri = ck::ChecksumV2::row(i), cj = ck::ChecksumV2::col(j);
      EXPECT_NE(base - ck::ChecksumV2::term(ri, cj, before) + ck::ChecksumV2::term(ri, cj, after), base) << bit;
    }
}

ck::MatrixInfo info(const char* name, redist::Scalar type, std::int64_t m, std::int64_t n) {
  ck::MatrixInfo i;
  i.name = name;
  i.type = type;
  i.m = m;
  i.n = n;
  return i;
}

ck::Header header() {
  ck::Header h;
  h.program = "pdgemm";
  h.iteration = 4;
  h.matrices = {info("A", redist::Scalar::D, 600, 600), info("B", redist::Scalar::D, 600, 600)};
  return h;
}
ck::Expected expected() {
  return {"pdgemm", {info("A", redist::Scalar::D, 600, 600), info("B", redist::Scalar::D, 600, 600)}};
}

TEST(CheckpointValidate, AcceptsTheSameRegistrationAndNamesTheFirstDifference) {
  EXPECT_EQ(ck::mismatch("f.h5", header(), expected()), "");
  auto w = expected();
  w.program = "life";
  EXPECT_EQ(ck::mismatch("f.h5", header(), w), "checkpoint f.h5: written by program 'pdgemm', this is 'life'");
  w = expected();
  w.matrices[1].n = 601;
  EXPECT_EQ(ck::mismatch("f.h5", header(), w),
            "checkpoint f.h5: matrix 'B' is 600 x 600 in the file, this program registered 600 x 601");
  w = expected();
  w.matrices[0].type = redist::Scalar::Z;
  EXPECT_EQ(ck::mismatch("f.h5", header(), w),
            "checkpoint f.h5: matrix 'A' holds double (d) in the file, this program registered complex double (z)");
  w = expected();
  w.matrices.pop_back();
  EXPECT_EQ(ck::mismatch("f.h5", header(), w),
            "checkpoint f.h5: holds 2 matrices [A, B], this program registered 1 [A]");
  w = expected();
  w.matrices[1].name = "C";
  EXPECT_EQ(ck::mismatch("f.h5", header(), w), "checkpoint f.h5: matrix 2 is 'B' in the file, this program registered 'C'");
  auto h = header();
  h.version = 7;
  EXPECT_EQ(ck::mismatch("f.h5", h, expected()), "checkpoint f.h5: format version 7, this library reads versions 1 to 2");
  h.version = 1;  // the previous format is read
  EXPECT_EQ(ck::mismatch("f.h5", h, expected()), "");
  h.version = 0;
  EXPECT_EQ(ck::mismatch("f.h5", h, expected()), "checkpoint f.h5: format version 0, this library reads versions 1 to 2");
}

// The files spell the element type as ScaLAPACK's letter and the layout kind as a name;
// both are decoded into the libraries' one enums at the file's boundary, anything else
// refused with the place it was read from.
TEST(CheckpointRecord, TypeLettersAndKindNamesDecodeToTheOneEnums) {
  EXPECT_EQ(ck::parse_type_letter('s', "f: "), redist::Scalar::S);
  EXPECT_EQ(ck::parse_type_letter('z', "f: "), redist::Scalar::Z);
  for (redist::Distribution k : {redist::Distribution::BlockCyclic, redist::Distribution::Block, redist::Distribution::Extended})
    EXPECT_EQ(ck::parse_layout_kind(ck::to_string(k)), k);
  EXPECT_STREQ(ck::to_string(redist::Distribution::BlockCyclic), "block-cyclic");
  const auto message = [](auto&& f) {
    try {
      f();
    } catch (const resize::Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(message([] { ck::parse_type_letter('q', "checkpoint f.h5: matrix 'A': "); }),
            "checkpoint f.h5: matrix 'A': unknown element type 'q' (expected s, d, c or z)");
  EXPECT_EQ(message([] { ck::parse_type_letter('\0', "w: "); }), "w: unknown element type of code 0 (expected s, d, c or z)");
  EXPECT_EQ(message([] { ck::parse_layout_kind("cyclic"); }),
            "checkpoint: unknown layout kind 'cyclic' (expected block-cyclic, block or extended)");
}

TEST(CheckpointWhen, ParsesDurationsAndIntervals) {
  EXPECT_DOUBLE_EQ(ck::parse_duration("6h"), 21600);
  EXPECT_DOUBLE_EQ(ck::parse_duration("1.5m"), 90);
  EXPECT_DOUBLE_EQ(ck::parse_duration("45"), 45);
  EXPECT_THROW(ck::parse_duration("6x"), resize::Error);
  EXPECT_THROW(ck::parse_duration("-1s"), resize::Error);
  EXPECT_EQ(ck::parse_every("5").kind, ck::Every::Kind::Iterations);
  EXPECT_EQ(ck::parse_every("30s").seconds, 30);
  EXPECT_EQ(ck::parse_every("").kind, ck::Every::Kind::Never);
  EXPECT_THROW(ck::parse_every("0"), resize::Error);
  EXPECT_THROW(ck::parse_every("auto"), resize::Error);  // no MTBF
  EXPECT_EQ(ck::parse_every("auto", 3600).kind, ck::Every::Kind::Auto);
}

TEST(CheckpointWhen, YoungDalyIntervalAndTheRule) {
  EXPECT_NEAR(ck::young_daly_interval(60, 21600), std::sqrt(2.0 * 60 * 21600), 1e-9);  // ~1610 s
  const auto every3 = ck::parse_every("3");
  EXPECT_FALSE(ck::due(every3, 2, 100, 1));
  EXPECT_TRUE(ck::due(every3, 3, 0, 1));
  EXPECT_TRUE(ck::due(every3, 1, 0, 1, /*requested=*/true));
  const auto t = ck::parse_every("10s");
  EXPECT_FALSE(ck::due(t, 1, 9.9, 1));
  EXPECT_TRUE(ck::due(t, 1, 10, 1));
  const auto a = ck::parse_every("auto", 50.0);  // interval sqrt(2 * 1 * 50) = 10 s
  EXPECT_TRUE(ck::due(a, 1, 0, -1));             // cost not measured yet
  EXPECT_FALSE(ck::due(a, 2, 9.9, 1.0));
  EXPECT_TRUE(ck::due(a, 2, 10.0, 1.0));
  EXPECT_FALSE(ck::due(ck::Every{}, 5, 1e9, 1));
}

TEST(CheckpointFiles, NamesAndKeepsTheNewest) {
  EXPECT_EQ(ck::file_name("/d", "life", 12), "/d/life-000012.h5");
  EXPECT_EQ(ck::iteration_of("/d/life-000012.h5"), 12);
  EXPECT_EQ(ck::iteration_of("/d/life-000012.h5.tmp"), -1);
  EXPECT_EQ(ck::iteration_of("life-hetero-000003.h5"), 3);
  const std::vector<std::string> v = {"d/a-000002.h5", "d/a-000010.h5", "d/a-000004.h5", "d/a-000006.h5"};
  EXPECT_EQ(ck::to_remove(v, 2), (std::vector<std::string>{"d/a-000004.h5", "d/a-000002.h5"}));
  EXPECT_TRUE(ck::to_remove(v, 4).empty());
  EXPECT_TRUE(ck::to_remove(v, 0).empty());
}

}  // namespace

namespace {
std::uint64_t splitmix_finaliser(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}
}  // namespace

// The checksum stored in files of format version 1 must stay the same function of (i, j,
// bits) when its computation is rearranged, or older checkpoints would fail verification.
TEST(CheckpointChecksum, ElementHashIsTheVersion1Formula) {
  for (std::int64_t i : {0, 1, 63, 4000, 123457})
    for (std::int64_t j : {0, 2, 64, 3999})
      for (std::uint64_t bits : {0ull, 0x3FF0000000000000ull, 0xDEADBEEFull}) {
        const std::uint64_t v1 = splitmix_finaliser(
            splitmix_finaliser(static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull ^
                               splitmix_finaliser(static_cast<std::uint64_t>(j) + 0x632BE59BD9B4E019ull)) ^
            bits);
        EXPECT_EQ(ck::element_hash(i, j, bits), v1) << i << "," << j;
      }
}

// The version 2 term must stay this function of (i, j, bits), or version 2 files written
// by this release would fail verification in the next.
TEST(CheckpointChecksum, Version2TermIsItsFormula) {
  for (std::int64_t i : {0, 1, 63, 4000, 123457})
    for (std::int64_t j : {0, 2, 64, 3999})
      for (std::uint64_t bits : {0ull, 0x3FF0000000000000ull, 0xDEADBEEFull}) {
        const std::uint64_t want =
            (bits ^ static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull) *
            (splitmix_finaliser(static_cast<std::uint64_t>(j) + 0x632BE59BD9B4E019ull) | 1u);
        EXPECT_EQ(ck::ChecksumV2::term(ck::ChecksumV2::row(i), ck::ChecksumV2::col(j), bits), want) << i << "," << j;
      }
}

TEST(CheckpointIo, ChunkIsTheBlockWhenBlocksAreLargeEnoughAndUniform) {
  ck::MatrixInfo m;
  m.m = 4000;
  m.n = 3000;
  m.mb = m.nb = 64;
  EXPECT_EQ(ck::chunk_shape(m, 8), (std::pair<std::int64_t, std::int64_t>{64, 64}));  // 32 KiB blocks
  m.mb = m.nb = 16;
  EXPECT_EQ(ck::chunk_shape(m, 8), (std::pair<std::int64_t, std::int64_t>{0, 0}));  // 2 KiB: contiguous
  m.mb = 5000;  // a block layout on one process row: cut to the matrix
  m.nb = 1500;
  EXPECT_EQ(ck::chunk_shape(m, 8), (std::pair<std::int64_t, std::int64_t>{4000, 1500}));
  m.m = m.n = m.mb = m.nb = 10;  // a tiny matrix is one chunk
  EXPECT_EQ(ck::chunk_shape(m, 8), (std::pair<std::int64_t, std::int64_t>{10, 10}));
  m.m = m.n = m.mb = m.nb = 20000;  // 3.2 GB: over the chunk cap
  EXPECT_EQ(ck::chunk_shape(m, 8), (std::pair<std::int64_t, std::int64_t>{0, 0}));
  m.m = m.n = 4000;
  m.mb = m.nb = 64;
  m.layout = redist::Distribution::Extended;  // blocks of many sizes: contiguous
  EXPECT_EQ(ck::chunk_shape(m, 8), (std::pair<std::int64_t, std::int64_t>{0, 0}));
}

TEST(CheckpointIo, PerBlockIoForBlocksOfEightKibOrMore) {
  EXPECT_TRUE(ck::per_block_io(redist::Layout::block_cyclic(4000, 4000, 64, 64, 2, 2), 8));
  EXPECT_FALSE(ck::per_block_io(redist::Layout::block_cyclic(4000, 4000, 16, 16, 2, 2), 8));
  EXPECT_TRUE(ck::per_block_io(redist::Layout::block_cyclic(4000, 4000, 16, 16, 2, 2), 32));
  EXPECT_TRUE(ck::per_block_io(redist::Layout::block_cyclic(100, 100, 50, 50, 2, 2), 8));
}

// The fused copy + checksum of one block (the per-block checkpoint path) lays a block out
// row-major with the chunk's row stride and sums the same contributions as local_checksum:
// summed over every block of every process it is the matrix checksum; unpack_hashed is
// its inverse and sums the same.
template <class H>
void pack_hashed_is_pack_plus_the_checksum(H h) {
  const auto l = redist::Layout::block_cyclic(37, 29, 8, 6, 2, 3);
  const auto ra = l.row_axis(), ca = l.col_axis();
  const std::int64_t ld_chunk = 7;  // wider than a block: padding columns stay untouched
  std::uint64_t packed_sum = 0, unpacked_sum = 0;
  for (int pr = 0; pr < l.nprow; ++pr)
    for (int pc = 0; pc < l.npcol; ++pc) {
      const std::int64_t lr = l.local_rows(pr), lc = l.local_cols(pc), lld = lr + 3;
      std::vector<double> local(static_cast<std::size_t>(lld * lc), -1.0), back(local.size(), 0.0);
      for (std::int64_t i = 0; i < lr; ++i)
        for (std::int64_t j = 0; j < lc; ++j) local[i + j * lld] = dval(l.local_to_row(pr, i), l.local_to_col(pc, j));
      for (std::size_t bj = 0; bj < ca.nblocks(); ++bj) {
        if (ca.block_owner(bj) != pc) continue;
        for (std::size_t bi = 0; bi < ra.nblocks(); ++bi) {
          if (ra.block_owner(bi) != pr) continue;
          const std::int64_t br = ra.block_size(bi), bc = ca.block_size(bj), li = ra.block_local_start(bi),
                             lj = ca.block_local_start(bj), gi = ra.block_start(bi), gj = ca.block_start(bj);
          std::vector<double> chunk(static_cast<std::size_t>(br * ld_chunk), 42.0);
          packed_sum += ck::pack_hashed(local.data() + li + lj * lld, lld, br, bc, chunk.data(), ld_chunk, gi, gj, h);
          for (std::int64_t i = 0; i < br; ++i)
            for (std::int64_t j = 0; j < ld_chunk; ++j)
              ASSERT_EQ(chunk[static_cast<std::size_t>(i * ld_chunk + j)], j < bc ? dval(gi + i, gj + j) : 42.0);
          unpacked_sum += ck::unpack_hashed(chunk.data(), ld_chunk, br, bc, back.data() + li + lj * lld, lld, gi, gj, h);
        }
      }
      for (std::int64_t i = 0; i < lr; ++i)
        for (std::int64_t j = 0; j < lc; ++j) ASSERT_EQ(back[i + j * lld], local[i + j * lld]);
    }
  EXPECT_EQ(packed_sum, total_checksum<double>(l, dval, h));
  EXPECT_EQ(unpacked_sum, packed_sum);
  // blocks larger than one tile of the fused loops
  const auto big = redist::Layout::block_cyclic(150, 140, 150, 140, 1, 1);
  std::vector<double> a(150 * 140), out(150 * 140);
  for (std::int64_t i = 0; i < 150; ++i)
    for (std::int64_t j = 0; j < 140; ++j) a[i + j * 150] = dval(i, j);
  EXPECT_EQ(ck::pack_hashed(a.data(), 150, 150, 140, out.data(), 140, 0, 0, h), total_checksum<double>(big, dval, h));
  EXPECT_EQ(out[5 * 140 + 77], dval(5, 77));
}

TEST(CheckpointPack, PackHashedIsPackPlusTheChecksumBlockByBlock) {
  pack_hashed_is_pack_plus_the_checksum(ck::ChecksumV1{});
  pack_hashed_is_pack_plus_the_checksum(ck::ChecksumV2{});
}

TEST(CheckpointIo, BlocksAreChunksOnlyWhenEveryBlockFillsOneChunk) {
  EXPECT_TRUE(ck::blocks_are_chunks(redist::Layout::block_cyclic(4000, 3000, 64, 64, 2, 2), 64, 64));
  EXPECT_TRUE(ck::blocks_are_chunks(redist::Layout::block_cyclic(4000, 3000, 64, 64, 3, 3), 64, 64));  // another grid
  EXPECT_FALSE(ck::blocks_are_chunks(redist::Layout::block_cyclic(4000, 3000, 64, 64, 2, 2), 64, 32));   // cuts chunks
  EXPECT_FALSE(ck::blocks_are_chunks(redist::Layout::block_cyclic(4000, 3000, 32, 64, 2, 2), 64, 64));   // half chunks
  EXPECT_FALSE(ck::blocks_are_chunks(redist::Layout::block_cyclic(4000, 3000, 64, 64, 2, 2), 0, 64));    // not chunked
  EXPECT_TRUE(ck::blocks_are_chunks(redist::Layout::from_blocks({20, 20, 10}, {30, 30}, 3, 2), 20, 30));  // short last
  EXPECT_FALSE(ck::blocks_are_chunks(redist::Layout::from_blocks({11, 9, 20}, {6, 24}, 3, 2), 11, 24));  // short inside
}

// The room checked before a checkpoint is made: at least every byte of data
// (a chunked dataset's edge chunks whole), the state and the text, plus metadata; not
// wildly more (the check must not refuse a file that fits).
TEST(CheckpointFiles, FileBytesBoundCoversTheDataAndLittleMore) {
  using namespace resize::checkpoint;
  Header h;
  h.program = "pdgemm";
  h.resize_history = std::string(1000, 'x');
  MatrixInfo a;
  a.name = "A";
  a.m = 240;
  a.n = 200;
  MatrixInfo b = a;
  b.name = "B";
  b.m = 100;
  h.matrices = {a, b};
  // A contiguous, B chunked 64 x 64: 2 x 4 chunks of 64 x 64 doubles (edges whole).
  const std::uint64_t data = 240ull * 200 * 8 + 128ull * 256 * 8;
  const auto bound = file_bytes_bound(h, {8, 8}, {{0, 0}, {64, 64}}, 5000);
  EXPECT_GE(bound, data + 5000 + 1000 + 6);
  EXPECT_LE(bound, data + 5000 + 1000 + (std::uint64_t{128} << 10));
  // Complex double, one 8 KiB-per-element-byte block: twice the bytes of a double matrix.
  EXPECT_GT(file_bytes_bound(h, {16, 16}, {{0, 0}, {64, 64}}, 0), file_bytes_bound(h, {8, 8}, {{0, 0}, {64, 64}}, 0) + data / 2);
}
