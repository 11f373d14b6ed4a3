// SPDX-License-Identifier: BSD-3-Clause
// Issue 35, the pure core of checkpoint levels (resize/src/checkpoint/levels.hpp):
// partners, intervals, retention, the recovery choice and the level file's header.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>

#include "checkpoint/levels.hpp"
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
  a.name = "A";
  a.type = 'd';
  a.m = 10;
  a.n = 7;
  a.mb = 2;
  a.nb = 3;
  a.nprow = 2;
  a.npcol = 3;
  a.pr = 1;
  a.pc = 0;
  a.rows = 4;
  a.cols = 3;
  lv::LevelMatrix b = a;
  b.name = "Z";
  b.type = 'z';
  b.mb = b.nb = 0;
  b.row_blocks = {3, 3, 4};
  b.col_blocks = {7};
  b.rows = 3;
  b.cols = 7;
  h.matrices = {a, b};
  lv::lay_out_payload(h);
  return h;
}

}  // namespace

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
  EXPECT_EQ(g.matrices[1].row_blocks, (std::vector<std::int64_t>{3, 3, 4}));
  EXPECT_EQ(g.matrices[1].type, 'z');
  EXPECT_EQ(g.matrices[0].pr, 1);
  EXPECT_EQ(g.payload_checksum, 0x1234u);
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

TEST(Levels, PayloadChecksum) {
  std::vector<unsigned char> data(1000);
  for (std::size_t k = 0; k < data.size(); ++k) data[k] = static_cast<unsigned char>(k * 31 + 7);
  lv::PayloadChecksum whole;
  whole.update(data.data(), data.size());
  // Any split gives the same value.
  for (std::size_t cut : {1u, 3u, 8u, 13u, 500u, 999u}) {
    lv::PayloadChecksum parts;
    parts.update(data.data(), cut);
    parts.update(data.data() + cut, data.size() - cut);
    EXPECT_EQ(parts.value(), whole.value()) << cut;
  }
  // Any single bit, a swap of two words, a shorter length: another value.
  for (std::size_t k = 0; k < data.size(); k += 37) {
    auto bad = data;
    bad[k] ^= 1;
    lv::PayloadChecksum c;
    c.update(bad.data(), bad.size());
    EXPECT_NE(c.value(), whole.value()) << k;
  }
  auto swapped = data;
  std::swap_ranges(swapped.begin(), swapped.begin() + 8, swapped.begin() + 8);
  lv::PayloadChecksum c1, c2;
  c1.update(swapped.data(), swapped.size());
  EXPECT_NE(c1.value(), whole.value());
  c2.update(data.data(), data.size() - 1);
  EXPECT_NE(c2.value(), whole.value());
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

TEST(Levels, CutAlongTheNewLayout) {
  // Old and new axes of many shapes (uniform, lists, other process counts and sources):
  // the segments tile each old process's local indices in order, and every index lands
  // at the owner and local index the new axis gives it.
  const std::vector<std::pair<redist::BlockSizes, std::pair<int, int>>> olds = {
      {redist::BlockSizes::uniform(50, 3), {3, 0}}, {redist::BlockSizes::uniform(50, 7), {2, 1}},
      {redist::BlockSizes({5, 1, 9, 20, 2, 13}), {3, 2}}, {redist::BlockSizes::uniform(50, 50), {1, 0}}};
  const std::vector<std::pair<redist::BlockSizes, std::pair<int, int>>> news = {
      {redist::BlockSizes::uniform(50, 4), {2, 0}}, {redist::BlockSizes::uniform(50, 3), {5, 3}},
      {redist::BlockSizes({10, 10, 30}), {3, 0}}, {redist::BlockSizes::uniform(50, 1), {4, 1}}};
  for (const auto& [ob, og] : olds)
    for (const auto& [nb, ng] : news) {
      const redist::Axis o(ob, og.first, og.second), n(nb, ng.first, ng.second);
      for (int p = 0; p < og.first; ++p) {
        std::int64_t next = 0;
        for (const auto& s : lv::cut(o, p, n)) {
          EXPECT_EQ(s.old_local, next);
          EXPECT_GT(s.len, 0);
          for (std::int64_t k = 0; k < s.len; ++k) {
            const std::int64_t i = o.to_global(p, s.old_local + k);
            EXPECT_EQ(n.owner(i), s.owner) << "global " << i;
            EXPECT_EQ(n.to_local(i), s.new_local + k) << "global " << i;
          }
          next += s.len;
        }
        EXPECT_EQ(next, o.local_count(p)) << "process " << p;
      }
    }
}
