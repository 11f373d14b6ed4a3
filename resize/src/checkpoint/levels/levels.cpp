// SPDX-License-Identifier: BSD-3-Clause
// Checkpoint levels, the pure core (levels.hpp): partners, intervals, retention, the
// recovery choice and the level file's header.
#include "checkpoint/levels/levels.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <set>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

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

// ---- the level files a process keeps mapped ----------------------------------------

std::size_t mapped_capacity(int keep, std::size_t kept_copies) {
  return keep < 2 ? 0 : static_cast<std::size_t>(keep) * (1 + kept_copies);
}

std::vector<MappedFile> MappedTable::set_capacity(std::size_t capacity) {
  capacity_ = capacity;
  std::vector<MappedFile> out;
  while (files_.size() > capacity_) {
    const auto lru = std::min_element(files_.begin(), files_.end(),
                                      [](const MappedFile& x, const MappedFile& y) { return x.last_use < y.last_use; });
    out.push_back(std::move(*lru));
    files_.erase(lru);
  }
  return out;
}

bool MappedTable::take(const std::string& path, MappedFile& out) {
  const auto it = std::find_if(files_.begin(), files_.end(), [&](const MappedFile& f) { return f.path == path; });
  if (it == files_.end()) return false;
  out = std::move(*it);
  files_.erase(it);
  return true;
}

std::vector<MappedFile> MappedTable::put(MappedFile f) {
  std::vector<MappedFile> out;
  MappedFile same;
  if (take(f.path, same)) out.push_back(std::move(same));
  f.last_use = ++clock_;
  files_.push_back(std::move(f));
  for (auto& g : set_capacity(capacity_)) out.push_back(std::move(g));
  return out;
}

std::vector<MappedFile> MappedTable::rename(const std::string& from, const std::string& to) {
  std::vector<MappedFile> out;
  if (from == to) return out;
  MappedFile replaced;
  if (take(to, replaced)) out.push_back(std::move(replaced));
  for (auto& f : files_)
    if (f.path == from) f.path = to;
  return out;
}

std::vector<MappedFile> MappedTable::clear() {
  std::vector<MappedFile> out = std::move(files_);
  files_.clear();
  return out;
}

// ---- the file ------------------------------------------------------------------------

void lay_out_payload(LevelHeader& h) {
  std::uint64_t off = 0;
  for (auto& m : h.matrices) {
    m.offset = off;
    m.bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(0, m.rows)) *
              static_cast<std::uint64_t>(std::max<std::int64_t>(0, m.cols)) * redist::scalar_bytes(m.global.type);
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

// The lanes' keys (digits of pi, as in many hash functions' constants: any distinct
// values with mixed bits do).
constexpr std::uint64_t kKey[PayloadChecksum::kLanes] = {
    0x243f6a8885a308d3ull, 0x13198a2e03707344ull, 0xa4093822299f31d0ull, 0x082efa98ec4e6c89ull,
    0x452821e638d01377ull, 0xbe5466cf34e90c6cull, 0xc0ac29b7c97c50ddull, 0x3f84d5b5b5470917ull};

// `n` whole stripes from `src` into the lanes (and copied to `dst` if not null). The
// lanes are independent: vector registers hold them (x86-64: AVX2 when the processor has
// it, else SSE2, which every x86-64 has; a 32 x 32 -> 64-bit multiply per word); a portable
// loop gives the same values elsewhere.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

__attribute__((target("avx2"))) void stripes_avx2(std::uint64_t* a, std::uint64_t* b, unsigned char* dst,
                                                  const unsigned char* src, std::size_t n) {
  __m256i a0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a)),
          a1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + 4));
  __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b)),
          b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 4));
  const __m256i k0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kKey)),
                k1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kKey + 4));
  for (std::size_t s = 0; s < n; ++s) {
    const auto* in = reinterpret_cast<const __m256i*>(src + s * PayloadChecksum::kStripe);
    const __m256i w0 = _mm256_loadu_si256(in), w1 = _mm256_loadu_si256(in + 1);
    if (dst) {
      auto* out = reinterpret_cast<__m256i*>(dst + s * PayloadChecksum::kStripe);
      _mm256_storeu_si256(out, w0);
      _mm256_storeu_si256(out + 1, w1);
    }
    const __m256i x0 = _mm256_xor_si256(w0, k0), x1 = _mm256_xor_si256(w1, k1);
    a0 = _mm256_add_epi64(a0, _mm256_add_epi64(w0, _mm256_mul_epu32(x0, _mm256_srli_epi64(x0, 32))));
    a1 = _mm256_add_epi64(a1, _mm256_add_epi64(w1, _mm256_mul_epu32(x1, _mm256_srli_epi64(x1, 32))));
    b0 = _mm256_add_epi64(b0, a0);
    b1 = _mm256_add_epi64(b1, a1);
  }
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(a), a0);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(a + 4), a1);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(b), b0);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(b + 4), b1);
}

void stripes_sse2(std::uint64_t* a, std::uint64_t* b, unsigned char* dst, const unsigned char* src, std::size_t n) {
  __m128i la[4], lb[4], k[4];
  for (int j = 0; j < 4; ++j) {
    la[j] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + 2 * j));
    lb[j] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 2 * j));
    k[j] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kKey + 2 * j));
  }
  for (std::size_t s = 0; s < n; ++s) {
    const auto* in = reinterpret_cast<const __m128i*>(src + s * PayloadChecksum::kStripe);
    auto* out = reinterpret_cast<__m128i*>(dst + s * PayloadChecksum::kStripe);
    for (int j = 0; j < 4; ++j) {
      const __m128i w = _mm_loadu_si128(in + j);
      if (dst) _mm_storeu_si128(out + j, w);
      const __m128i x = _mm_xor_si128(w, k[j]);
      la[j] = _mm_add_epi64(la[j], _mm_add_epi64(w, _mm_mul_epu32(x, _mm_srli_epi64(x, 32))));
      lb[j] = _mm_add_epi64(lb[j], la[j]);
    }
  }
  for (int j = 0; j < 4; ++j) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(a + 2 * j), la[j]);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(b + 2 * j), lb[j]);
  }
}

using StripesFn = void (*)(std::uint64_t*, std::uint64_t*, unsigned char*, const unsigned char*, std::size_t);
StripesFn pick_stripes() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") ? stripes_avx2 : stripes_sse2;
}
const StripesFn stripes_fast = pick_stripes();

#else

void stripes_portable(std::uint64_t* a, std::uint64_t* b, unsigned char* dst, const unsigned char* src,
                      std::size_t n) {
  constexpr std::size_t L = PayloadChecksum::kLanes;
  for (std::size_t s = 0; s < n; ++s) {
    std::uint64_t w[L];
    std::memcpy(w, src + s * PayloadChecksum::kStripe, PayloadChecksum::kStripe);
    if (dst) std::memcpy(dst + s * PayloadChecksum::kStripe, w, PayloadChecksum::kStripe);
    for (std::size_t j = 0; j < L; ++j) {
      const std::uint64_t x = w[j] ^ kKey[j];
      a[j] += w[j] + (x & 0xffffffffu) * (x >> 32);
      b[j] += a[j];
    }
  }
}
void (*const stripes_fast)(std::uint64_t*, std::uint64_t*, unsigned char*, const unsigned char*,
                           std::size_t) = stripes_portable;

#endif

void sum_stripes(std::uint64_t* a, std::uint64_t* b, const unsigned char* src, std::size_t n) {
  stripes_fast(a, b, nullptr, src, n);
}
void copy_stripes(std::uint64_t* a, std::uint64_t* b, unsigned char* dst, const unsigned char* src, std::size_t n) {
  stripes_fast(a, b, dst, src, n);
}

}  // namespace

void PayloadChecksum::take(void* dst, const unsigned char* p, std::size_t bytes) {
  auto* out = static_cast<unsigned char*>(dst);
  const auto stripe = [&](const unsigned char* q) { sum_stripes(a_, b_, q, 1); };
  // Finish a stripe begun.
  std::size_t fill = static_cast<std::size_t>(bytes_ % kStripe);
  bytes_ += bytes;
  if (fill) {
    const std::size_t k = std::min(bytes, kStripe - fill);
    std::memcpy(tail_ + fill, p, k);
    if (out) {
      std::memcpy(out, p, k);
      out += k;
    }
    p += k;
    bytes -= k;
    fill += k;
    if (fill < kStripe) return;
    stripe(tail_);
  }
  const std::size_t whole = bytes / kStripe;
  if (out) {
    copy_stripes(a_, b_, out, p, whole);
    out += whole * kStripe;
  } else {
    sum_stripes(a_, b_, p, whole);
  }
  p += whole * kStripe;
  bytes -= whole * kStripe;
  if (bytes) {
    std::memcpy(tail_, p, bytes);
    if (out) std::memcpy(out, p, bytes);
  }
}

void PayloadChecksum::update(const void* data, std::size_t bytes) {
  take(nullptr, static_cast<const unsigned char*>(data), bytes);
}

void PayloadChecksum::copy(void* dst, const void* src, std::size_t bytes) {
  take(dst, static_cast<const unsigned char*>(src), bytes);
}

std::uint64_t PayloadChecksum::value() const {
  std::uint64_t a[kLanes], b[kLanes];
  std::memcpy(a, a_, sizeof a);
  std::memcpy(b, b_, sizeof b);
  if (const std::size_t fill = static_cast<std::size_t>(bytes_ % kStripe)) {  // the tail, zero-padded
    unsigned char last[kStripe] = {};
    std::memcpy(last, tail_, fill);
    sum_stripes(a, b, last, 1);
  }
  std::uint64_t h = mix(bytes_);  // the length too
  for (std::size_t j = 0; j < kLanes; ++j) h = mix(mix(h ^ a[j]) ^ b[j]);
  return h;
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
    const auto& g = m.global;  // its layout kind and checksum are not in the level file
    w.str(g.name);
    w.i64(redist::scalar_letter(g.type));  // the letter's code
    w.i64(g.m);
    w.i64(g.n);
    w.i64(g.mb);
    w.i64(g.nb);
    w.list(g.row_blocks);
    w.list(g.col_blocks);
    const auto& L = m.layout;
    for (int x : {L.nprow, L.npcol, L.rsrc, L.csrc, m.pr, m.pc}) w.i64(x);
    w.i64(m.rows);
    w.i64(m.cols);
    w.u64(m.offset);
    w.u64(m.bytes);
  }
  w.u64(h.payload_bytes);
  w.u64(h.payload_checksum);
  if (h.format < kLevelFormatOldest || h.format > kLevelFormat)
    throw Error("level file: cannot write format " + std::to_string(h.format));
  if (h.format >= 3) {  // the padding: prefix + fields + its length + itself + the checksum
    const std::size_t end = kLevelPrefix + w.out.size() + 8 + 8;
    w.str(std::string((kLevelPayloadAlign - end % kLevelPayloadAlign) % kLevelPayloadAlign, '\0'));
  }
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

namespace {

// One matrix's record of the header; its element type's letter in `letter` (decoded once
// the header's checksum held).
LevelMatrix read_matrix(Reader& r, char& letter) {
  LevelMatrix m;
  auto& g = m.global;
  g.name = r.str();
  letter = static_cast<char>(r.i64());
  g.m = r.i64();
  g.n = r.i64();
  g.mb = r.i64();
  g.nb = r.i64();
  g.row_blocks = r.list();
  g.col_blocks = r.list();
  g.layout = g.mb > 0 ? redist::Distribution::BlockCyclic : redist::Distribution::Extended;
  auto& L = m.layout;  // not validated here: the header's checksum is checked after
  for (int* x : {&L.nprow, &L.npcol, &L.rsrc, &L.csrc, &m.pr, &m.pc}) *x = r.i32();
  L.m = g.m;
  L.n = g.n;
  L.row_blocks = g.mb > 0 ? redist::BlockSizes::uniform(g.m, g.mb) : redist::BlockSizes(g.row_blocks);
  L.col_blocks = g.nb > 0 ? redist::BlockSizes::uniform(g.n, g.nb) : redist::BlockSizes(g.col_blocks);
  m.rows = r.i64();
  m.cols = r.i64();
  m.offset = r.u64();
  m.bytes = r.u64();
  return m;
}

// The matrices' payloads follow one another and fill the payload exactly.
void check_payload_extents(const LevelHeader& h) {
  std::uint64_t end = 0;
  for (const auto& m : h.matrices) {
    if (m.offset != end || m.bytes != static_cast<std::uint64_t>(std::max<std::int64_t>(0, m.rows)) *
                                           static_cast<std::uint64_t>(std::max<std::int64_t>(0, m.cols)) *
                                           redist::scalar_bytes(m.global.type))
      throw Error("level file: matrix '" + m.global.name + "' has an inconsistent payload extent");
    end += m.bytes;
  }
  if (end != h.payload_bytes) throw Error("level file: the payload size does not match its matrices");
}

}  // namespace

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
  if (h.format < kLevelFormatOldest || h.format > kLevelFormat)
    throw Error("level file: format " + std::to_string(h.format) + ", this library reads " +
                std::to_string(kLevelFormatOldest) + " to " + std::to_string(kLevelFormat));
  h.program = r.str();
  for (int* x : {&h.iteration, &h.rank, &h.nprocs, &h.node, &h.nprow, &h.npcol}) *x = r.i32();
  const std::string st = r.str();
  h.state.assign(st.begin(), st.end());
  const std::size_t nm = r.count(16);
  std::vector<char> letters(nm);
  for (std::size_t k = 0; k < nm; ++k) h.matrices.push_back(read_matrix(r, letters[k]));
  h.payload_bytes = r.u64();
  h.payload_checksum = r.u64();
  if (h.format >= 3) r.str();  // the padding that aligns the payload
  if (r.u64() != hc.value()) throw Error("level file: the header's checksum does not match (damaged header)");
  for (std::size_t k = 0; k < nm; ++k)
    if (!redist::scalar_from_letter(letters[k], h.matrices[k].global.type))
      throw Error(std::string("level file: unknown element type '") + letters[k] + "'");
  check_payload_extents(h);
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
