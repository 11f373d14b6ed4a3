// SPDX-License-Identifier: BSD-3-Clause
// malleable-run's readers of what others wrote, fed random bytes (seeded, bounded): none
// crashes, hangs or grows without bound, and what each accepts keeps its promises.
#include <gtest/gtest.h>

#include <random>

#include "cli.hpp"
#include "core.hpp"
#include "malleable_internal/job_dir_layout.hpp"

namespace launcher {
namespace {

std::string random_text(std::mt19937& g, std::size_t most) {
  static const std::string alphabet = "0123456789 x\n-,hostsnewallocationspawn-fallback:()*levelsRUNNING\t\x01\xff";
  std::uniform_int_distribution<std::size_t> len(0, most), pick(0, alphabet.size() - 1), raw(0, 255), coin(0, 3);
  std::string s;
  const std::size_t n = len(g);
  for (std::size_t i = 0; i < n; ++i) s += coin(g) == 0 ? static_cast<char>(raw(g)) : alphabet[pick(g)];
  return s;
}

TEST(LauncherFuzz, ReadersOfRandomBytes) {
  std::mt19937 g(20261127);
  for (int k = 0; k < 20000; ++k) {
    const std::string s = random_text(g, k % 10 == 0 ? 2000 : 80);
    std::string why;
    if (const auto n = parse_next(s, &why)) {
      EXPECT_GE(n->p, 1);
      EXPECT_GE(n->q, 1);
      EXPECT_LE(static_cast<long>(n->p) * n->q, 999999);
      if (!n->hosts.empty()) {
        EXPECT_TRUE(host_list(n->hosts));
      }
    } else {
      EXPECT_FALSE(why.empty());
    }
    if (const auto l = host_list(s)) {
      for (const auto& h : *l) EXPECT_TRUE(malleable::job_dir::valid_host(h)) << h;
    }
    const Order o = parse_order(s);
    if (o.valid()) {
      EXPECT_TRUE(o.host.empty() || malleable::job_dir::valid_host(o.host));
    }
    if (const auto r = parse_resume(s)) {
      EXPECT_GE(r->p * r->q, 1);
    }
    std::string shown;
    if (while_job_state(first_line(s), &shown) == JobState::Gone) {
      EXPECT_LE(shown.size(), 200u);
    }
    for (const auto& w : split_words(s)) EXPECT_EQ(w.find_first_of(" \t\n"), std::string::npos);
    EXPECT_LE(lost_line(s, "n1").size(), s.size());
    const Parsed p = parse_options(split_words(s));
    EXPECT_TRUE(p.options || p.status == 0 || p.status == 2);
  }
}

TEST(LauncherFuzz, BannerFilterKeepsEveryOtherByte) {
  std::mt19937 g(77);
  const std::string rule(45, '-');
  for (int k = 0; k < 3000; ++k) {
    std::string in;
    std::uniform_int_distribution<int> pick(0, 5);
    for (int i = 0; i < 30; ++i) {
      switch (pick(g)) {
        case 0: in += rule + "\n"; break;
        case 1: in += "terminated normally, but\n"; break;
        default: in += random_text(g, 30) + "\n"; break;
      }
    }
    BannerFilter f;
    std::string out;
    std::uniform_int_distribution<std::size_t> cut(1, 50);
    for (std::size_t at = 0; at < in.size();) {
      const std::size_t n = std::min(cut(g), in.size() - at);
      out += f.feed(in.substr(at, n));
      at += n;
    }
    out += f.finish();
    EXPECT_LE(out.size(), in.size() + 1);
    // only banner blocks are dropped: with no banner words the output is the input
    if (in.find("terminated normally, but") == std::string::npos && in.find("exited with non-zero status") == std::string::npos) {
      EXPECT_EQ(out, in);
    }
  }
}

}  // namespace
}  // namespace launcher
