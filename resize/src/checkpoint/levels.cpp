// SPDX-License-Identifier: BSD-3-Clause
// Checkpoint levels, the pure core (levels.hpp): partners, intervals, retention, the
// recovery choice and the level file's header.
#include "checkpoint/levels.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <set>

#include "malleable/resize/types.hpp"

namespace resize::levels {

std::vector<int> partner_nodes(int nodes, const std::vector<int>& switch_of_node) {
  if (nodes <= 0) throw Error("partner_nodes: " + std::to_string(nodes) + " nodes");
  if (!switch_of_node.empty() && static_cast<int>(switch_of_node.size()) != nodes)
    throw Error("partner_nodes: the switch map names " + std::to_string(switch_of_node.size()) + " nodes, the job has " +
                std::to_string(nodes));
  std::vector<int> order(static_cast<std::size_t>(nodes));
  std::iota(order.begin(), order.end(), 0);
  int largest = nodes;  // one switch
  if (!switch_of_node.empty()) {
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return switch_of_node[a] < switch_of_node[b]; });
    std::map<int, int> count;
    largest = 0;
    for (int s : switch_of_node) largest = std::max(largest, ++count[s]);
  }
  const int shift = 2 * largest <= nodes ? largest : 1;
  std::vector<int> partner(static_cast<std::size_t>(nodes));
  for (int k = 0; k < nodes; ++k) partner[order[k]] = order[(k + shift) % nodes];
  return partner;
}

std::vector<int> kept_from(int my_local, int my_size, int source_size) {
  std::vector<int> out;
  if (my_size <= 0 || my_local < 0 || my_local >= my_size) return out;
  for (int j = my_local; j < source_size; j += my_size) out.push_back(j);
  return out;
}

std::vector<int> parse_node_map(const std::string& text, int nprocs) {
  std::vector<int> map;
  const auto bad = [&](const std::string& why) {
    return Error("node map '" + text + "': " + why + " (expected every=K or one node index per rank, e.g. 0,0,1,1)");
  };
  if (text.rfind("every=", 0) == 0) {
    char* end = nullptr;
    const long k = std::strtol(text.c_str() + 6, &end, 10);
    if (*end || k <= 0) throw bad("K must be a positive integer");
    for (int r = 0; r < nprocs; ++r) map.push_back(static_cast<int>(r / k));
    return map;
  }
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, comma - pos);
    char* end = nullptr;
    const long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end || v < 0) throw bad("'" + item + "' is not a node index");
    map.push_back(static_cast<int>(v));
    pos = comma + 1;
  }
  if (static_cast<int>(map.size()) != nprocs)
    throw bad("names " + std::to_string(map.size()) + " ranks, the job has " + std::to_string(nprocs));
  // Node indices are 0..nodes-1 without gaps.
  std::set<int> nodes(map.begin(), map.end());
  if (*nodes.rbegin() != static_cast<int>(nodes.size()) - 1) throw bad("node indices must be 0..nodes-1 without gaps");
  return map;
}

const char* level_name(Level l) {
  switch (l) {
    case Level::Local: return "local";
    case Level::Partner: return "partner";
    case Level::Global: return "global";
  }
  return "?";
}

double level_interval(double cost_seconds, double failures_per_second) {
  if (!(failures_per_second > 0)) return std::numeric_limits<double>::infinity();
  return std::sqrt(2.0 * std::max(0.0, cost_seconds) / failures_per_second);
}

std::vector<int> versions_to_remove(std::vector<int> versions, int keep) {
  std::sort(versions.begin(), versions.end());
  versions.erase(std::unique(versions.begin(), versions.end()), versions.end());
  if (keep <= 0 || static_cast<int>(versions.size()) <= keep) return {};
  versions.resize(versions.size() - static_cast<std::size_t>(keep));
  return versions;
}

const char* source_name(Source s) {
  switch (s) {
    case Source::Local: return "local";
    case Source::Partner: return "partner";
    case Source::Global: return "global";
    case Source::Missing: return "missing";
  }
  return "?";
}

RecoveryChoice choose_version(const std::vector<Survived>& ranks, const std::vector<int>& global_versions) {
  RecoveryChoice c;
  const auto has = [](const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); };
  std::set<int, std::greater<int>> candidates(global_versions.begin(), global_versions.end());
  for (const auto& r : ranks) {
    candidates.insert(r.local.begin(), r.local.end());
    candidates.insert(r.partner.begin(), r.partner.end());
  }
  for (int v : candidates) {
    std::vector<Source> src;
    src.reserve(ranks.size());
    bool complete = true;
    for (const auto& r : ranks) {
      if (has(r.local, v)) src.push_back(Source::Local);
      else if (has(r.partner, v)) src.push_back(Source::Partner);
      else if (has(global_versions, v)) src.push_back(Source::Global);
      else { complete = false; break; }
    }
    if (!complete) continue;
    c.version = v;
    c.source = std::move(src);
    for (Source s : c.source)
      (s == Source::Local ? c.from_local : s == Source::Partner ? c.from_partner : c.from_global)++;
    return c;
  }
  c.source.assign(ranks.size(), Source::Missing);
  return c;
}

std::vector<Segment> cut(const redist::Axis& old_axis, int p, const redist::Axis& new_axis) {
  std::vector<Segment> out;
  const int np = old_axis.nprocs();
  const std::size_t nb = old_axis.nblocks();
  // Blocks of process p: the first one it owns, then every np-th.
  std::size_t first = 0;
  while (first < nb && first < static_cast<std::size_t>(np) && old_axis.block_owner(first) != p) ++first;
  for (std::size_t b = first; b < nb; b += static_cast<std::size_t>(np)) {
    const std::int64_t s = old_axis.block_start(b), len = old_axis.block_size(b), ls = old_axis.block_local_start(b);
    for (std::int64_t i = s; i < s + len;) {
      const std::size_t q = new_axis.block_of(i);
      const std::int64_t end = std::min(s + len, new_axis.block_start(q) + new_axis.block_size(q));
      out.push_back({ls + (i - s), end - i, new_axis.to_local(i), new_axis.block_owner(q)});
      i = end;
    }
  }
  return out;
}

// ---- the file ------------------------------------------------------------------------

std::size_t element_size(char type) {
  switch (type) {
    case 's': return 4;
    case 'd': return 8;
    case 'c': return 8;
    case 'z': return 16;
  }
  throw Error(std::string("level file: unknown element type '") + type + "'");
}

void lay_out_payload(LevelHeader& h) {
  std::uint64_t off = 0;
  for (auto& m : h.matrices) {
    m.offset = off;
    m.bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(0, m.rows)) *
              static_cast<std::uint64_t>(std::max<std::int64_t>(0, m.cols)) * element_size(m.type);
    off += m.bytes;
  }
  h.payload_bytes = off;
}

namespace {

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

constexpr std::uint64_t kBase1 = 0x243f6a8885a308d3ull, kBase2 = 0x13198a2e03707344ull;
constexpr std::uint64_t kStep1 = 0x9e3779b97f4a7c15ull, kStep2 = 0xd1b54a32d192ed03ull;
// One word's term; the keys advance by constants, so the whole-word loop is a load, an
// xor, two multiply-adds and one multiply per word (mixing the index would cost more than
// the copy).
inline std::uint64_t term(std::uint64_t w, std::uint64_t i) {
  return (w ^ (kBase1 + i * kStep1)) * ((kBase2 + i * kStep2) | 1);
}

}  // namespace

void PayloadChecksum::update(const void* data, std::size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  // Finish a partial word first.
  while (fill_ && bytes) {
    word_ |= static_cast<std::uint64_t>(*p++) << (8 * fill_);
    --bytes;
    if (++fill_ == 8) {
      sum_ += term(word_, index_);
      ++index_;
      word_ = 0;
      fill_ = 0;
    }
  }
  std::uint64_t i = index_;
  std::uint64_t s = sum_;
  while (bytes >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    s += term(w, i);
    ++i;
    p += 8;
    bytes -= 8;
  }
  sum_ = s;
  index_ = i;
  while (bytes) {
    word_ |= static_cast<std::uint64_t>(*p++) << (8 * fill_);
    --bytes;
    ++fill_;
  }
}

std::uint64_t PayloadChecksum::value() const {
  std::uint64_t s = sum_;
  if (fill_) s += term(word_, index_);
  return mix(s ^ (index_ * 8 + fill_));  // the length too
}

namespace {

struct Writer {
  std::vector<char> out;
  void u64(std::uint64_t v) {
    for (int k = 0; k < 8; ++k) out.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
  }
  void i64(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
  void str(const std::string& s) {
    u64(s.size());
    out.insert(out.end(), s.begin(), s.end());
  }
  void list(const std::vector<std::int64_t>& v) {
    u64(v.size());
    for (auto x : v) i64(x);
  }
};

struct Reader {
  const char* p;
  std::size_t n, at = 0;
  std::uint64_t u64() {
    if (n - at < 8) throw Error("level file: the header is truncated");
    std::uint64_t v = 0;
    for (int k = 0; k < 8; ++k) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[at + k])) << (8 * k);
    at += 8;
    return v;
  }
  std::int64_t i64() { return static_cast<std::int64_t>(u64()); }
  int i32() { return static_cast<int>(i64()); }
  std::size_t count(std::size_t each) {
    const std::uint64_t c = u64();
    if (c > (n - at) / std::max<std::size_t>(1, each)) throw Error("level file: the header is truncated or damaged");
    return static_cast<std::size_t>(c);
  }
  std::string str() {
    const std::size_t c = count(1);
    std::string s(p + at, c);
    at += c;
    return s;
  }
  std::vector<std::int64_t> list() {
    const std::size_t c = count(8);
    std::vector<std::int64_t> v(c);
    for (auto& x : v) x = i64();
    return v;
  }
};

constexpr char kMagic[8] = {'M', 'A', 'L', 'L', 'V', 'L', '\0', '\1'};

}  // namespace

std::vector<char> encode_header(const LevelHeader& h) {
  Writer w;
  w.i64(h.format);
  w.str(h.program);
  w.i64(h.iteration);
  w.i64(h.rank);
  w.i64(h.nprocs);
  w.i64(h.node);
  w.i64(h.nprow);
  w.i64(h.npcol);
  w.str(std::string(h.state.begin(), h.state.end()));
  w.u64(h.matrices.size());
  for (const auto& m : h.matrices) {
    w.str(m.name);
    w.i64(m.type);
    w.i64(m.m);
    w.i64(m.n);
    w.i64(m.mb);
    w.i64(m.nb);
    w.list(m.row_blocks);
    w.list(m.col_blocks);
    for (int x : {m.nprow, m.npcol, m.rsrc, m.csrc, m.pr, m.pc}) w.i64(x);
    w.i64(m.rows);
    w.i64(m.cols);
    w.u64(m.offset);
    w.u64(m.bytes);
  }
  w.u64(h.payload_bytes);
  w.u64(h.payload_checksum);
  // The header's own checksum, so that a damaged header is told apart from damaged data.
  PayloadChecksum hc;
  hc.update(w.out.data(), w.out.size());
  w.u64(hc.value());
  std::vector<char> file(kMagic, kMagic + 8);
  Writer len;
  len.u64(w.out.size());
  file.insert(file.end(), len.out.begin(), len.out.end());
  file.insert(file.end(), w.out.begin(), w.out.end());
  return file;
}

LevelHeader decode_header(const char* data, std::size_t size, std::size_t& consumed) {
  if (size < kLevelPrefix) throw Error("level file: truncated (" + std::to_string(size) + " bytes)");
  if (std::memcmp(data, kMagic, 8) != 0) throw Error("level file: not a malleable level file (bad magic)");
  Reader pre{data + 8, 8};
  const std::uint64_t len = pre.u64();
  if (len < 16 || len > size - kLevelPrefix) throw Error("level file: the header is truncated");
  PayloadChecksum hc;
  hc.update(data + kLevelPrefix, static_cast<std::size_t>(len) - 8);
  Reader r{data + kLevelPrefix, static_cast<std::size_t>(len)};
  LevelHeader h;
  h.format = r.i32();
  if (h.format != kLevelFormat)
    throw Error("level file: format " + std::to_string(h.format) + ", this library reads " +
                std::to_string(kLevelFormat));
  h.program = r.str();
  h.iteration = r.i32();
  h.rank = r.i32();
  h.nprocs = r.i32();
  h.node = r.i32();
  h.nprow = r.i32();
  h.npcol = r.i32();
  const std::string st = r.str();
  h.state.assign(st.begin(), st.end());
  const std::size_t nm = r.count(16);
  for (std::size_t k = 0; k < nm; ++k) {
    LevelMatrix m;
    m.name = r.str();
    m.type = static_cast<char>(r.i64());
    m.m = r.i64();
    m.n = r.i64();
    m.mb = r.i64();
    m.nb = r.i64();
    m.row_blocks = r.list();
    m.col_blocks = r.list();
    m.nprow = r.i32();
    m.npcol = r.i32();
    m.rsrc = r.i32();
    m.csrc = r.i32();
    m.pr = r.i32();
    m.pc = r.i32();
    m.rows = r.i64();
    m.cols = r.i64();
    m.offset = r.u64();
    m.bytes = r.u64();
    h.matrices.push_back(std::move(m));
  }
  h.payload_bytes = r.u64();
  h.payload_checksum = r.u64();
  if (r.u64() != hc.value()) throw Error("level file: the header's checksum does not match (damaged header)");
  std::uint64_t end = 0;
  for (const auto& m : h.matrices) {
    element_size(m.type);
    if (m.offset != end || m.bytes != static_cast<std::uint64_t>(std::max<std::int64_t>(0, m.rows)) *
                                           static_cast<std::uint64_t>(std::max<std::int64_t>(0, m.cols)) *
                                           element_size(m.type))
      throw Error("level file: matrix '" + m.name + "' has an inconsistent payload extent");
    end += m.bytes;
  }
  if (end != h.payload_bytes) throw Error("level file: the payload size does not match its matrices");
  consumed = kLevelPrefix + static_cast<std::size_t>(len);
  return h;
}

std::string level_file_name(const std::string& program, Level kind, int rank, int nprocs, int iteration) {
  char v[32];
  std::snprintf(v, sizeof v, "%06d", iteration);
  return program + "." + level_name(kind) + ".r" + std::to_string(rank) + "-" + std::to_string(nprocs) + ".v" + v;
}

bool parse_level_file_name(const std::string& name, const std::string& program, LevelName& out) {
  if (name.size() <= program.size() + 1 || name.compare(0, program.size() + 1, program + ".") != 0) return false;
  std::string rest = name.substr(program.size() + 1);
  LevelName n;
  if (rest.rfind("local.r", 0) == 0) {
    n.kind = Level::Local;
    rest = rest.substr(7);
  } else if (rest.rfind("partner.r", 0) == 0) {
    n.kind = Level::Partner;
    rest = rest.substr(9);
  } else {
    return false;
  }
  const std::size_t dash = rest.find('-'), dot = rest.find(".v");
  if (dash == std::string::npos || dot == std::string::npos || dash == 0 || dot <= dash + 1) return false;
  const std::string r = rest.substr(0, dash), p = rest.substr(dash + 1, dot - dash - 1), v = rest.substr(dot + 2);
  if (v.size() < 6) return false;
  for (const std::string* x : {&r, &p, &v}) {
    if (x->size() > 9) return false;
    for (char c : *x)
      if (c < '0' || c > '9') return false;
  }
  n.rank = std::stoi(r);
  n.nprocs = std::stoi(p);
  n.iteration = std::stoi(v);
  if (n.rank >= n.nprocs) return false;
  out = n;
  return true;
}

}  // namespace resize::levels
