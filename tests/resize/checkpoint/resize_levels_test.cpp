// SPDX-License-Identifier: BSD-3-Clause
// The pure core of checkpoint levels (resize/src/checkpoint/levels/levels.hpp):
// partners, intervals, retention, the recovery choice, the level file's header and
// checksum, the mapped files' bookkeeping; and MappedFiles, the shell that maps the level
// files (no MPI call in it), on files in a temporary directory.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "checkpoint/levels/levels.hpp"
#include "checkpoint/levels/mapped_files.hpp"
#include "malleable/resize/types.hpp"

namespace lv = resize::levels;

TEST(Levels, PartnerRingOverNodes) {
  const auto p = lv::partner_nodes(3);
  EXPECT_EQ(p, (std::vector<int>{1, 2, 0}));
  EXPECT_EQ(lv::partner_nodes(1), (std::vector<int>{0}));
  for (int n = 2; n < 40; ++n) {
    const auto q = lv::partner_nodes(n);
    std::set<int> targets(q.begin(), q.end());
    EXPECT_EQ(static_cast<int>(targets.size()), n) << "a permutation: every node keeps exactly one node's copies";
    for (int k = 0; k < n; ++k) EXPECT_NE(q[k], k);
  }
}

TEST(Levels, PartnerOnAnotherSwitchWhenPossible) {
  // 6 nodes on 3 switches (interleaved numbering), 8 nodes on 3 uneven switches, ...
  for (const auto& sw : {std::vector<int>{0, 1, 2, 0, 1, 2}, std::vector<int>{0, 0, 0, 1, 1, 1, 2, 2},
                         std::vector<int>{3, 3, 1, 1}, std::vector<int>{0, 0, 1, 1, 1, 2}}) {
    const int n = static_cast<int>(sw.size());
    const auto p = lv::partner_nodes(n, sw);
    std::set<int> targets(p.begin(), p.end());
    EXPECT_EQ(static_cast<int>(targets.size()), n);
    for (int k = 0; k < n; ++k) EXPECT_NE(sw[k], sw[p[k]]) << "node " << k;
  }
  // More than half the nodes on one switch: another node at least, a ring still.
  const std::vector<int> sw{0, 0, 0, 1};
  const auto p = lv::partner_nodes(4, sw);
  std::set<int> targets(p.begin(), p.end());
  EXPECT_EQ(targets.size(), 4u);
  for (int k = 0; k < 4; ++k) EXPECT_NE(p[k], k);
  EXPECT_THROW(lv::partner_nodes(3, {0, 1}), resize::Error);
}

TEST(Levels, PartnerProcessesCoverEverySender) {
  // Every process of the source node is kept by exactly one process of the partner.
  for (int src = 1; src < 7; ++src)
    for (int dst = 1; dst < 7; ++dst) {
      std::vector<int> kept(static_cast<std::size_t>(src), 0);
      for (int me = 0; me < dst; ++me)
        for (int j : lv::kept_from(me, dst, src)) {
          ++kept[j];
          EXPECT_EQ(lv::partner_local(j, dst), me);
        }
      for (int j = 0; j < src; ++j) EXPECT_EQ(kept[j], 1) << src << " -> " << dst;
    }
}

TEST(Levels, NodeMap) {
  EXPECT_EQ(lv::parse_node_map("every=2", 5), (std::vector<int>{0, 0, 1, 1, 2}));
  EXPECT_EQ(lv::parse_node_map("0,0,1,2", 4), (std::vector<int>{0, 0, 1, 2}));
  EXPECT_THROW(lv::parse_node_map("0,1", 3), resize::Error);
  EXPECT_THROW(lv::parse_node_map("0,2", 2), resize::Error);
  EXPECT_THROW(lv::parse_node_map("0,x", 2), resize::Error);
  EXPECT_THROW(lv::parse_node_map("every=0", 2), resize::Error);
}

TEST(Levels, IntervalPerLevel) {
  // sqrt(2 C / rate): a cheap level at a high rate is frequent, a costly rare one is not.
  EXPECT_DOUBLE_EQ(lv::level_interval(0.5, 1.0 / 3600), std::sqrt(2 * 0.5 * 3600));
  EXPECT_LT(lv::level_interval(0.01, 1.0 / 3600), lv::level_interval(2.0, 1.0 / 3600));
  EXPECT_LT(lv::level_interval(0.5, 1.0 / 60), lv::level_interval(0.5, 1.0 / 3600));
  EXPECT_TRUE(std::isinf(lv::level_interval(1, 0)));
}

TEST(Levels, VersionsKept) {
  EXPECT_EQ(lv::versions_to_remove({4, 2, 8, 6}, 2), (std::vector<int>{2, 4}));
  EXPECT_TRUE(lv::versions_to_remove({4, 2}, 2).empty());
  EXPECT_TRUE(lv::versions_to_remove({4, 2, 1}, 0).empty());
}

// Retention over a job that went 4 -> 6 -> 4 processes on two nodes, keep = 2: node 0's
// directory after version 15 was written by the 4-process job again. Before, each process
// pruned only its own files of the current size: the 6-process files stayed forever.
TEST(Levels, RetentionAcrossWorldSizes) {
  const auto name = [](lv::Level k, int r, int p, int v) { return lv::level_file_name("app", k, r, p, v); };
  std::vector<std::string> dir;
  const std::vector<std::pair<int, int>> written = {{4, 3}, {4, 6}, {6, 9}, {6, 12}, {4, 15}};
  for (auto [p, v] : written)
    for (int r = 0; r < p / 2; ++r) {
      dir.push_back(name(lv::Level::Local, r, p, v));
      dir.push_back(name(lv::Level::Partner, r + p / 2, p, v));
    }
  dir.push_back(name(lv::Level::Local, 2, 6, 14) + ".tmp");  // a 6-process write cut off
  dir.push_back(name(lv::Level::Local, 1, 4, 15) + ".tmp");  // being renamed now
  dir.push_back("other.local.r0-4.v000003");                 // another program's
  dir.push_back("app-000015.h5");                            // not a level file
  const auto gone = lv::level_files_to_remove(dir, "app", 2, 4, 15);
  std::set<std::string> left(dir.begin(), dir.end());
  for (const auto& f : gone) EXPECT_EQ(left.erase(f), 1u) << f;
  // Kept: version 15 (4 processes) and 12 (6 processes), both levels; foreign names.
  std::set<std::string> want = {"other.local.r0-4.v000003", "app-000015.h5", name(lv::Level::Local, 1, 4, 15) + ".tmp"};
  for (auto [p, v] : std::vector<std::pair<int, int>>{{6, 12}, {4, 15}})
    for (int r = 0; r < p / 2; ++r) {
      want.insert(name(lv::Level::Local, r, p, v));
      want.insert(name(lv::Level::Partner, r + p / 2, p, v));
    }
  EXPECT_EQ(left, want);
}

TEST(Levels, RetentionKeepsNewestOfCurrentSizeFirstAndDropsTemporaries) {
  const auto name = [](int r, int p, int v) { return lv::level_file_name("app", lv::Level::Local, r, p, v); };
  // keep 1: only the version just written, even when an earlier size wrote the same iteration.
  EXPECT_EQ(lv::level_files_to_remove({name(0, 4, 6), name(0, 6, 6), name(0, 6, 3)}, "app", 1, 4, 6),
            (std::vector<std::string>{name(0, 6, 3), name(0, 6, 6)}));
  // keep 2 at one iteration: the current size's file is the newer of the two.
  EXPECT_EQ(lv::level_files_to_remove({name(0, 4, 6), name(0, 6, 6), name(0, 2, 6), name(0, 4, 9)}, "app", 2, 4, 9),
            (std::vector<std::string>{name(0, 2, 6), name(0, 6, 6)}));
  // keep 0 keeps every version; an interrupted write's file goes all the same.
  EXPECT_EQ(lv::level_files_to_remove({name(0, 4, 3), name(0, 4, 6), name(0, 4, 5) + ".tmp"}, "app", 0, 4, 6),
            (std::vector<std::string>{name(0, 4, 5) + ".tmp"}));
  // A temporary file never counts as a version: keep 2 keeps 6 and 3, not the cut-off 5.
  EXPECT_EQ(lv::level_files_to_remove({name(0, 4, 3), name(0, 4, 6), name(0, 4, 5) + ".tmp"}, "app", 2, 4, 6),
            (std::vector<std::string>{name(0, 4, 5) + ".tmp"}));
}

TEST(Levels, RecoveryNewestCompleteVersion) {
  // 6 old ranks on 3 nodes (2 each), node 2 (ranks 4, 5) lost; its partner copies are on
  // node 0. Version 6 is complete locally for 0-3 but rank 5's partner copy of 6 is gone:
  // version 4 is the newest complete one.
  std::vector<lv::Survived> s(6);
  for (int r = 0; r < 4; ++r) s[r].local = {4, 6};
  s[4].partner = {4, 6};
  s[5].partner = {4};
  auto c = lv::choose_version(s, {});
  EXPECT_EQ(c.version, 4);
  EXPECT_EQ(c.from_local, 4);
  EXPECT_EQ(c.from_partner, 2);
  EXPECT_EQ(c.from_global, 0);
  EXPECT_EQ(c.source[4], lv::Source::Partner);
  EXPECT_EQ(c.source[0], lv::Source::Local);
  // With rank 5's copy of 6 the newest is 6.
  s[5].partner = {4, 6};
  EXPECT_EQ(lv::choose_version(s, {}).version, 6);
  // A rank with both copies reads its own (local) one.
  s[0].partner = {4, 6};
  c = lv::choose_version(s, {6});
  EXPECT_EQ(c.source[0], lv::Source::Local);
  EXPECT_EQ(c.from_local, 4);
  // Two nodes lost: ranks 2-5 have nothing; only a global file completes a version.
  std::vector<lv::Survived> t(6);
  t[0].local = t[1].local = {4, 6};
  t[2].partner = t[3].partner = {4, 6};
  c = lv::choose_version(t, {2});
  EXPECT_EQ(c.version, 2);
  EXPECT_EQ(c.from_global, 6) << "version 2 exists only globally";
  c = lv::choose_version(t, {6, 2});
  EXPECT_EQ(c.version, 6);
  EXPECT_EQ(c.from_global, 2);
  EXPECT_EQ(c.source[4], lv::Source::Global);
  EXPECT_EQ(c.source[2], lv::Source::Partner);
  EXPECT_EQ(lv::choose_version(t, {}).version, -1);
}

namespace {

lv::LevelHeader sample() {
  lv::LevelHeader h;
  h.program = "pdgemm";
  h.iteration = 12;
  h.rank = 3;
  h.nprocs = 6;
  h.node = 1;
  h.nprow = 2;
  h.npcol = 3;
  h.state = {'a', '\0', 'b'};
  lv::LevelMatrix a;
  a.global.name = "A";
  a.global.type = redist::Scalar::D;
  a.global.m = 10;
  a.global.n = 7;
  a.global.mb = 2;
  a.global.nb = 3;
  a.layout = redist::Layout::block_cyclic(10, 7, 2, 3, 2, 3);
  a.pr = 1;
  a.pc = 0;
  a.rows = 4;
  a.cols = 3;
  lv::LevelMatrix b = a;
  b.global.name = "Z";
  b.global.type = redist::Scalar::Z;
  b.global.layout = redist::Distribution::Extended;
  b.global.mb = b.global.nb = 0;
  b.global.row_blocks = {3, 3, 4};
  b.global.col_blocks = {7};
  b.layout = redist::Layout::from_blocks(redist::BlockSizes{3, 3, 4}, redist::BlockSizes{7}, 2, 3);
  b.rows = 3;
  b.cols = 7;
  h.matrices = {a, b};
  lv::lay_out_payload(h);
  return h;
}

}  // namespace

// The reader of each chosen copy: the old rank's own new rank when it is on the copy's node,
// else the least loaded process of that node.
TEST(Levels, ReadersAreTheOwnRankOnItsNode) {
  // Regrid onto the same 4 processes on 2 nodes, the copies listed round robin by
  // whichever process of the node: each process reads its own.
  EXPECT_EQ(lv::assign_readers({1, 1, 3, 2}, {0, 0, 1, 1}), (std::vector<int>{0, 1, 2, 3}));
  // Node 2 of 3 lost: old ranks 4 and 5's partner copies on node 0 (ranks 0 and 1 of the
  // 4 new processes): shared out, one each.
  EXPECT_EQ(lv::assign_readers({0, 1, 2, 3, 1, 0}, {0, 0, 1, 1}), (std::vector<int>{0, 1, 2, 3, 0, 1}));
  // Old rank 1 is now on another node than its copy: a process of the copy's node reads
  // it, the least loaded (rank 2 reads nothing of its own: no old rank 2).
  EXPECT_EQ(lv::assign_readers({0, 0}, {0, 1, 0}), (std::vector<int>{0, 2}));
  // A copy listed by nobody has no reader; more copies than processes: spread evenly.
  EXPECT_EQ(lv::assign_readers({-1, 0}, {0, 0}), (std::vector<int>{-1, 1}));
  EXPECT_EQ(lv::assign_readers({0, 0, 0, 0, 0}, {0, 0}), (std::vector<int>{0, 1, 0, 1, 0}));
  // Fewer new processes than old ranks, each node's copies read on that node only.
  const auto r = lv::assign_readers({0, 0, 1, 1, 1, 1}, {0, 1});
  EXPECT_EQ(r, (std::vector<int>{0, 0, 1, 1, 1, 1}));
}

TEST(Levels, HeaderRoundTrip) {
  auto h = sample();
  EXPECT_EQ(h.matrices[0].bytes, 4u * 3 * 8);
  EXPECT_EQ(h.matrices[1].offset, 96u);
  EXPECT_EQ(h.payload_bytes, 96u + 3 * 7 * 16);
  h.payload_checksum = 0x1234;
  const auto bytes = lv::encode_header(h);
  std::size_t used = 0;
  const auto g = lv::decode_header(bytes.data(), bytes.size(), used);
  EXPECT_EQ(used, bytes.size());
  EXPECT_EQ(g.program, "pdgemm");
  EXPECT_EQ(g.iteration, 12);
  EXPECT_EQ(g.rank, 3);
  EXPECT_EQ(g.node, 1);
  EXPECT_EQ(g.state, h.state);
  ASSERT_EQ(g.matrices.size(), 2u);
  EXPECT_EQ(g.matrices[1].global.row_blocks, (std::vector<std::int64_t>{3, 3, 4}));
  EXPECT_EQ(g.matrices[1].global.type, redist::Scalar::Z);
  EXPECT_EQ(g.matrices[0].pr, 1);
  EXPECT_EQ(g.payload_checksum, 0x1234u);
}

// The element type travels as its letter; a header sealed with a letter other than s, d,
// c, z (its checksum right) is refused by name once decoded, not read as some type.
TEST(Levels, AHeaderWithAnUnknownElementTypeIsRefused) {
  auto h = sample();
  h.matrices[1].global.type = static_cast<redist::Scalar>(9);  // encoded as '?'
  const auto bytes = lv::encode_header(h);
  std::size_t used = 0;
  try {
    (void)lv::decode_header(bytes.data(), bytes.size(), used);
    FAIL() << "a header with element type '?' was read";
  } catch (const resize::Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown element type '?'"), std::string::npos) << e.what();
  }
}

static std::string hex(const std::vector<char>& bytes) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (char c : bytes) {
    const auto u = static_cast<unsigned char>(c);
    s += d[u >> 4];
    s += d[u & 15];
  }
  return s;
}

// The level file's bytes do not change when its record's structs do: sample()'s header as
// the encoder wrote it before LevelMatrix held a checkpoint::MatrixInfo (format 3 and 2,
// payload checksum 0x1234), encoded again byte for byte and decoded field for field.
TEST(Levels, HeaderBytesAreThoseWrittenBefore) {
  const std::string golden3 =
      "4d414c4c564c0001f00100000000000003000000000000000600000000000000706467656d6d0c000000000000000300"
      "000000000000060000000000000001000000000000000200000000000000030000000000000003000000000000006100"
      "62020000000000000001000000000000004164000000000000000a000000000000000700000000000000020000000000"
      "000003000000000000000000000000000000000000000000000002000000000000000300000000000000000000000000"
      "000000000000000000000100000000000000000000000000000004000000000000000300000000000000000000000000"
      "0000600000000000000001000000000000005a7a000000000000000a0000000000000007000000000000000000000000"
      "000000000000000000000003000000000000000300000000000000030000000000000004000000000000000100000000"
      "000000070000000000000002000000000000000300000000000000000000000000000000000000000000000100000000"
      "00000000000000000000000300000000000000070000000000000060000000000000005001000000000000b001000000"
      "000000341200000000000035000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000d992b0684505fb7a";
  const std::string golden2 =
      "4d414c4c564c0001b30100000000000002000000000000000600000000000000706467656d6d0c000000000000000300"
      "000000000000060000000000000001000000000000000200000000000000030000000000000003000000000000006100"
      "62020000000000000001000000000000004164000000000000000a000000000000000700000000000000020000000000"
      "000003000000000000000000000000000000000000000000000002000000000000000300000000000000000000000000"
      "000000000000000000000100000000000000000000000000000004000000000000000300000000000000000000000000"
      "0000600000000000000001000000000000005a7a000000000000000a0000000000000007000000000000000000000000"
      "000000000000000000000003000000000000000300000000000000030000000000000004000000000000000100000000"
      "000000070000000000000002000000000000000300000000000000000000000000000000000000000000000100000000"
      "00000000000000000000000300000000000000070000000000000060000000000000005001000000000000b001000000"
      "00000034120000000000009f9dc6deb0226fce";
  auto h = sample();
  h.payload_checksum = 0x1234;
  EXPECT_EQ(hex(lv::encode_header(h)), golden3);
  h.format = 2;
  EXPECT_EQ(hex(lv::encode_header(h)), golden2);
  for (const auto* golden : {&golden3, &golden2}) {
    std::vector<char> bytes;
    for (std::size_t k = 0; k + 1 < golden->size(); k += 2)
      bytes.push_back(static_cast<char>(std::stoi(golden->substr(k, 2), nullptr, 16)));
    std::size_t used = 0;
    const auto g = lv::decode_header(bytes.data(), bytes.size(), used);
    EXPECT_EQ(used, bytes.size());
    EXPECT_EQ(g.format, golden == &golden3 ? 3 : 2);
    EXPECT_EQ(g.program, "pdgemm");
    EXPECT_EQ(g.iteration, 12);
    EXPECT_EQ(g.rank, 3);
    EXPECT_EQ(g.nprocs, 6);
    EXPECT_EQ(g.node, 1);
    EXPECT_EQ(g.nprow, 2);
    EXPECT_EQ(g.npcol, 3);
    EXPECT_EQ(g.state, h.state);
    EXPECT_EQ(g.payload_bytes, h.payload_bytes);
    EXPECT_EQ(g.payload_checksum, 0x1234u);
    ASSERT_EQ(g.matrices.size(), 2u);
    for (std::size_t k = 0; k < 2; ++k) {
      const auto &a = g.matrices[k], &b = h.matrices[k];
      EXPECT_EQ(a.global.name, b.global.name);
      EXPECT_EQ(a.global.type, b.global.type);
      EXPECT_EQ(a.global.m, b.global.m);
      EXPECT_EQ(a.global.n, b.global.n);
      EXPECT_EQ(a.global.mb, b.global.mb);
      EXPECT_EQ(a.global.nb, b.global.nb);
      EXPECT_EQ(a.global.row_blocks, b.global.row_blocks);
      EXPECT_EQ(a.global.col_blocks, b.global.col_blocks);
      EXPECT_EQ(a.global.layout, b.global.layout);
      EXPECT_EQ(a.global.checksum, 0u) << "not in the level file";
      EXPECT_EQ(a.layout, b.layout);
      EXPECT_EQ(a.pr, b.pr);
      EXPECT_EQ(a.pc, b.pc);
      EXPECT_EQ(a.rows, b.rows);
      EXPECT_EQ(a.cols, b.cols);
      EXPECT_EQ(a.offset, b.offset);
      EXPECT_EQ(a.bytes, b.bytes);
    }
  }
}

// Format 3 pads the header so that the payload starts at a multiple of 64 bytes in the
// file (a mapped file's matrices are used where they lie); format 2 files, unpadded, are
// still read; a format this library does not know is refused by name.
TEST(Levels, HeaderPadsThePayloadToItsAlignment) {
  for (const std::string program : {"p", "pdgemm", "a-program-with-a-longer-name"}) {
    for (std::size_t state = 0; state < 70; state += 7) {
      auto h = sample();
      h.program = program;
      h.state.assign(state, 'x');
      const auto bytes = lv::encode_header(h);
      EXPECT_EQ(bytes.size() % lv::kLevelPayloadAlign, 0u) << program << " " << state;
      std::size_t used = 0;
      const auto g = lv::decode_header(bytes.data(), bytes.size(), used);
      EXPECT_EQ(used, bytes.size());
      EXPECT_EQ(g.format, lv::kLevelFormat);
      EXPECT_EQ(g.state, h.state);
      h.format = 2;
      const auto old = lv::encode_header(h);
      EXPECT_EQ(bytes.size(), old.size() + 8 + (64 - (old.size() + 8) % 64) % 64)
          << "format 2 is format 3 without the padding (its length field and bytes)";
      const auto o = lv::decode_header(old.data(), old.size(), used);
      EXPECT_EQ(used, old.size());
      EXPECT_EQ(o.format, 2);
      EXPECT_EQ(o.program, program);
      EXPECT_EQ(o.state, h.state);
      ASSERT_EQ(o.matrices.size(), 2u);
      EXPECT_EQ(o.matrices[1].offset, 96u);
    }
  }
  auto h = sample();
  for (int f : {1, 4}) {
    h.format = f;
    EXPECT_THROW(lv::encode_header(h), resize::Error) << f;
  }
  // A file of a later format: refused naming both.
  h.format = lv::kLevelFormat;
  auto bytes = lv::encode_header(h);
  bytes[lv::kLevelPrefix] = static_cast<char>(lv::kLevelFormat + 1);
  std::size_t used = 0;
  try {
    lv::decode_header(bytes.data(), bytes.size(), used);
    ADD_FAILURE() << "a later format was read";
  } catch (const resize::Error& e) {
    EXPECT_NE(std::string(e.what()).find("format 4, this library reads 2 to 3"), std::string::npos) << e.what();
  }
}

TEST(Levels, HeaderDamageIsRefused) {
  auto h = sample();
  const auto bytes = lv::encode_header(h);
  std::size_t used = 0;
  // Every single-byte change of the header is refused (magic, length, fields, checksum).
  for (std::size_t k = 0; k < bytes.size(); ++k) {
    auto bad = bytes;
    bad[k] = static_cast<char>(bad[k] ^ 0x10);
    EXPECT_THROW(lv::decode_header(bad.data(), bad.size(), used), resize::Error) << "byte " << k;
  }
  // Truncated anywhere.
  for (std::size_t k = 0; k < bytes.size(); k += 7)
    EXPECT_THROW(lv::decode_header(bytes.data(), k, used), resize::Error) << "length " << k;
}

namespace {

std::uint64_t checksum_of(const void* p, std::size_t n) {
  lv::PayloadChecksum c;
  c.update(p, n);
  return c.value();
}

// The definition in levels.hpp written out plainly, one word at a time (the library's
// vector code must give the same values).
std::uint64_t reference_checksum(const unsigned char* p, std::size_t n) {
  constexpr std::uint64_t key[8] = {0x243f6a8885a308d3ull, 0x13198a2e03707344ull, 0xa4093822299f31d0ull,
                                    0x082efa98ec4e6c89ull, 0x452821e638d01377ull, 0xbe5466cf34e90c6cull,
                                    0xc0ac29b7c97c50ddull, 0x3f84d5b5b5470917ull};
  const auto mix = [](std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  };
  std::uint64_t a[8] = {}, b[8] = {};
  for (std::size_t s = 0; s * 64 < n; ++s)
    for (std::size_t j = 0; j < 8; ++j) {
      std::uint64_t w = 0;
      for (std::size_t k = 0; k < 8; ++k)
        if (s * 64 + j * 8 + k < n) w |= static_cast<std::uint64_t>(p[s * 64 + j * 8 + k]) << (8 * k);
      const std::uint64_t x = w ^ key[j];
      a[j] += w + (x & 0xffffffffu) * (x >> 32);
      b[j] += a[j];
    }
  std::uint64_t h = mix(n);
  for (std::size_t j = 0; j < 8; ++j) h = mix(mix(h ^ a[j]) ^ b[j]);
  return h;
}

}  // namespace

TEST(Levels, PayloadChecksumIsItsDefinition) {
  std::vector<unsigned char> data(5000);
  for (std::size_t k = 0; k < data.size(); ++k) data[k] = static_cast<unsigned char>((k * 131 + 17) ^ (k >> 7));
  for (std::size_t n : {0u, 1u, 8u, 63u, 64u, 65u, 640u, 1000u, 4999u, 5000u})
    EXPECT_EQ(checksum_of(data.data(), n), reference_checksum(data.data(), n)) << n;
}

TEST(Levels, PayloadChecksum) {
  std::vector<unsigned char> data(1000);
  for (std::size_t k = 0; k < data.size(); ++k) data[k] = static_cast<unsigned char>(k * 31 + 7);
  const std::uint64_t whole = checksum_of(data.data(), data.size());
  // Any split gives the same value, by update and by copy (which copies the bytes too).
  for (std::size_t cut : {1u, 3u, 8u, 13u, 63u, 64u, 65u, 500u, 999u}) {
    lv::PayloadChecksum parts, copied;
    parts.update(data.data(), cut);
    parts.update(data.data() + cut, data.size() - cut);
    EXPECT_EQ(parts.value(), whole) << cut;
    std::vector<unsigned char> out(data.size());
    copied.copy(out.data(), data.data(), cut);
    copied.copy(out.data() + cut, data.data() + cut, 7 % (data.size() - cut));
    const std::size_t done = cut + 7 % (data.size() - cut);
    copied.copy(out.data() + done, data.data() + done, data.size() - done);
    EXPECT_EQ(copied.value(), whole) << cut;
    EXPECT_EQ(out, data) << cut;
  }
  // Any single bit, a swap of two words, a shorter length, trailing zeros: another value.
  for (std::size_t k = 0; k < data.size(); k += 37)
    for (int bit : {0, 5, 7}) {
      auto bad = data;
      bad[k] ^= static_cast<unsigned char>(1 << bit);
      EXPECT_NE(checksum_of(bad.data(), bad.size()), whole) << k << " bit " << bit;
    }
  auto swapped = data;
  std::swap_ranges(swapped.begin(), swapped.begin() + 8, swapped.begin() + 8);
  EXPECT_NE(checksum_of(swapped.data(), swapped.size()), whole);
  EXPECT_NE(checksum_of(data.data(), data.size() - 1), whole);
  auto longer = data;
  longer.push_back(0);
  EXPECT_NE(checksum_of(longer.data(), longer.size()), whole);
}

TEST(Levels, PayloadChecksumSeesSwapsAndSigns) {
  // Doubles as a matrix holds them: swapping two words of the same lane (a multiple of 8
  // words apart), of two lanes, two whole stripes, or x and -x (words differing only in the
  // sign bit) at any distance changes the value; so does flipping any single bit.
  std::vector<double> v(4096);
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = 1.0 + static_cast<double>(k % 97) * 0.25;
  v[100] = 3.5;
  v[108] = -3.5;
  v[2148] = -3.5;
  const std::uint64_t whole = checksum_of(v.data(), v.size() * 8);
  const auto differs_after_swap = [&](std::size_t i, std::size_t j) {
    auto w = v;
    std::swap(w[i], w[j]);
    return checksum_of(w.data(), w.size() * 8) != whole;
  };
  for (std::size_t d : {1u, 3u, 8u, 16u, 64u, 512u, 2048u, 4000u})
    for (std::size_t i : {0u, 5u, 90u})
      if (i + d < v.size() && v[i] != v[i + d]) {
        EXPECT_TRUE(differs_after_swap(i, i + d)) << i << " <-> " << i + d;
      }
  EXPECT_TRUE(differs_after_swap(100, 108));   // x, -x in one lane, 1 stripe apart
  EXPECT_TRUE(differs_after_swap(100, 2148));  // 256 stripes apart
  auto stripes = v;
  std::swap_ranges(stripes.begin() + 8, stripes.begin() + 16, stripes.begin() + 24);
  EXPECT_NE(checksum_of(stripes.data(), stripes.size() * 8), whole);
  // Every bit of a few words (all 64 positions of a double: sign, exponent, mantissa).
  for (std::size_t k : {0u, 7u, 1000u, 4095u})
    for (int bit = 0; bit < 64; ++bit) {
      auto w = v;
      std::uint64_t u;
      std::memcpy(&u, &w[k], 8);
      u ^= std::uint64_t{1} << bit;
      std::memcpy(&w[k], &u, 8);
      EXPECT_NE(checksum_of(w.data(), w.size() * 8), whole) << k << " bit " << bit;
    }
  // Zeros are data too: an all-zero payload differs from a longer all-zero one.
  std::vector<char> z(640, 0);
  EXPECT_NE(checksum_of(z.data(), 640), checksum_of(z.data(), 576));
}

TEST(Levels, FileNames) {
  EXPECT_EQ(lv::level_file_name("life", lv::Level::Partner, 5, 6, 12), "life.partner.r5-6.v000012");
  lv::LevelName n;
  EXPECT_TRUE(lv::parse_level_file_name("life.local.r17-20.v000040", "life", n));
  EXPECT_EQ(n.kind, lv::Level::Local);
  EXPECT_EQ(n.rank, 17);
  EXPECT_EQ(n.nprocs, 20);
  EXPECT_EQ(n.iteration, 40);
  EXPECT_TRUE(lv::parse_level_file_name("life.partner.r0-1.v1234567", "life", n));
  EXPECT_EQ(n.kind, lv::Level::Partner);
  EXPECT_EQ(n.iteration, 1234567);
  EXPECT_FALSE(lv::parse_level_file_name("life.local.r17-20.v000040.tmp", "life", n));
  EXPECT_FALSE(lv::parse_level_file_name("lifex.local.r17-20.v000040", "life", n));
  EXPECT_FALSE(lv::parse_level_file_name("life.local.r-20.v000040", "life", n));
  EXPECT_FALSE(lv::parse_level_file_name("life.local.r20-20.v000040", "life", n));
  EXPECT_FALSE(lv::parse_level_file_name("life.local.r2.v000040", "life", n));
  EXPECT_FALSE(lv::parse_level_file_name("life.global.r1-2.v000040", "life", n));
}

namespace {

lv::MappedFile mapped(const std::string& path, int fd) {
  lv::MappedFile f;
  f.path = path;
  f.fd = fd;
  return f;
}

std::vector<std::string> paths(const std::vector<lv::MappedFile>& v) {
  std::vector<std::string> out;
  for (const auto& f : v) out.push_back(f.path);
  return out;
}

}  // namespace

TEST(Levels, MappedCapacityIsKeepPerFileKept) {
  EXPECT_EQ(lv::mapped_capacity(2, 0), 2u);  // one node's own local file, 2 versions
  EXPECT_EQ(lv::mapped_capacity(2, 1), 4u);  // and one partner copy kept
  EXPECT_EQ(lv::mapped_capacity(3, 2), 9u);
  EXPECT_EQ(lv::mapped_capacity(1, 1), 0u);  // nothing is overwritten in place
  EXPECT_EQ(lv::mapped_capacity(0, 1), 0u);  // keep all: nothing either
}

TEST(Levels, MappedTableKeepsTheMostRecentlyUsed) {
  lv::MappedTable t;
  EXPECT_TRUE(t.set_capacity(2).empty());
  EXPECT_TRUE(t.put(mapped("a", 3)).empty());
  EXPECT_TRUE(t.put(mapped("b", 4)).empty());
  // Used again (taken and put back): "a" is now newer than "b", so "b" goes for "c".
  lv::MappedFile f;
  ASSERT_TRUE(t.take("a", f));
  EXPECT_EQ(f.fd, 3);
  EXPECT_FALSE(t.take("a", f));
  f.path = "a2";
  EXPECT_TRUE(t.put(f).empty());
  EXPECT_EQ(paths(t.put(mapped("c", 5))), (std::vector<std::string>{"b"}));
  EXPECT_EQ(t.size(), 2u);
  // The same name put again displaces the older entry.
  EXPECT_EQ(paths(t.put(mapped("c", 6))), (std::vector<std::string>{"c"}));
  ASSERT_TRUE(t.take("c", f));
  EXPECT_EQ(f.fd, 6);
  t.put(f);
  // Renamed over an existing name: that entry is returned (its file was replaced).
  EXPECT_EQ(paths(t.rename("c", "a2")), (std::vector<std::string>{"a2"}));
  ASSERT_TRUE(t.take("a2", f));
  EXPECT_EQ(f.fd, 6);
  EXPECT_FALSE(t.take("c", f));
  EXPECT_TRUE(t.rename("nothing", "x").empty());
  // A smaller capacity drops the least recently used; capacity 0 keeps nothing.
  t.put(mapped("d", 7));
  t.put(mapped("e", 8));
  t.put(mapped("f", 9));
  EXPECT_EQ(paths(t.set_capacity(1)), (std::vector<std::string>{"e"}));
  EXPECT_EQ(paths(t.set_capacity(0)), (std::vector<std::string>{"f"}));
  EXPECT_EQ(paths(t.put(mapped("g", 10))), (std::vector<std::string>{"g"}));
  t.set_capacity(3);
  t.put(mapped("h", 11));
  t.put(mapped("i", 12));
  EXPECT_EQ(paths(t.clear()), (std::vector<std::string>{"h", "i"}));
  EXPECT_EQ(t.size(), 0u);
}

// ---- MappedFiles (the shell of the mapped level files; no MPI call in it) -------------

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

ino_t inode_of(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

struct TempDir {
  std::string path;
  TempDir() {
    static int count = 0;
    path = (std::filesystem::temp_directory_path() /
            ("malleable-mapped-" + std::to_string(::getpid()) + "-" + std::to_string(count++)))
               .string();
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

}  // namespace

TEST(LevelsShell, MappedFileIsWrittenAndReusedInPlace) {
  TempDir d;
  resize::detail::MappedFiles m;
  m.set_capacity(2);
  std::string why;
  // A new file, exactly the length asked for, its bytes those copied into the mapping.
  char* p = m.open(d.path + "/a.tmp", "", 10000, why);
  ASSERT_TRUE(p) << why;
  std::memset(p, 'x', 10000);
  EXPECT_EQ(slurp(d.path + "/a.tmp"), std::string(10000, 'x'));
  ASSERT_EQ(std::rename((d.path + "/a.tmp").c_str(), (d.path + "/a").c_str()), 0);
  m.renamed(d.path + "/a.tmp", d.path + "/a");
  const ino_t a = inode_of(d.path + "/a");
  // Recycled: renamed to the new name, the same file (inode) and the same mapping, shorter.
  char* q = m.open(d.path + "/b.tmp", d.path + "/a", 6000, why);
  ASSERT_TRUE(q) << why;
  EXPECT_EQ(q, p);
  EXPECT_FALSE(std::filesystem::exists(d.path + "/a"));
  EXPECT_EQ(inode_of(d.path + "/b.tmp"), a);
  std::memset(q, 'y', 6000);
  EXPECT_EQ(slurp(d.path + "/b.tmp"), std::string(6000, 'y'));
  // Longer again: still the same file, every byte there.
  char* r = m.open(d.path + "/c.tmp", d.path + "/b.tmp", 20000, why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(inode_of(d.path + "/c.tmp"), a);
  std::memset(r, 'z', 20000);
  EXPECT_EQ(slurp(d.path + "/c.tmp"), std::string(20000, 'z'));
  EXPECT_EQ(m.size(), 1u);
}

TEST(LevelsShell, MappedFileReplacedBehindItsBackIsNotWrittenThrough) {
  TempDir d;
  resize::detail::MappedFiles m;
  m.set_capacity(2);
  std::string why;
  char* p = m.open(d.path + "/a", "", 4096, why);
  ASSERT_TRUE(p) << why;
  std::memset(p, 'x', 4096);
  // Someone else puts another file under that name.
  ASSERT_EQ(std::rename((d.path + "/a").c_str(), (d.path + "/old").c_str()), 0);
  { std::ofstream(d.path + "/a") << "someone else's"; }
  const ino_t theirs = inode_of(d.path + "/a");
  char* q = m.open(d.path + "/b", d.path + "/a", 4096, why);
  ASSERT_TRUE(q) << why;
  std::memset(q, 'y', 4096);
  // Their file (renamed to b) got the new bytes; the file this process had mapped did not.
  EXPECT_EQ(inode_of(d.path + "/b"), theirs);
  EXPECT_EQ(slurp(d.path + "/b"), std::string(4096, 'y'));
  EXPECT_EQ(slurp(d.path + "/old"), std::string(4096, 'x'));
}

TEST(LevelsShell, NoMappingWithoutCapacityAndErrorsSaySo) {
  TempDir d;
  resize::detail::MappedFiles m;
  std::string why;
  EXPECT_EQ(m.open(d.path + "/a", "", 100, why), nullptr);  // capacity 0: the caller writes
  EXPECT_TRUE(why.empty());
  m.set_capacity(1);
  EXPECT_EQ(m.open(d.path + "/no/such/dir/a", "", 100, why), nullptr);
  EXPECT_NE(why.find("cannot create"), std::string::npos) << why;
  // Forgotten: the mapping goes, the file stays as it was written.
  char* p = m.open(d.path + "/a", "", 100, why);
  ASSERT_TRUE(p) << why;
  std::memset(p, 'k', 100);
  m.forget(d.path + "/a");
  EXPECT_EQ(m.size(), 0u);
  EXPECT_EQ(slurp(d.path + "/a"), std::string(100, 'k'));
}
