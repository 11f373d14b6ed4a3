// SPDX-License-Identifier: BSD-3-Clause
// Extended descriptor: validation, generalised numroc and index maps.
#include "malleable/redist/layout.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

namespace redist {
namespace {

[[noreturn]] void fail(const std::string& msg) { throw Error(ErrorCode::InvalidLayout, msg); }

BlockSizes uniform_blocks(std::int64_t total, std::int64_t b, const char* name) {
  const char* extent = name[0] == 'm' ? "m" : "n";
  if (total < 0) fail(std::string(extent) + " = " + std::to_string(total) + " is negative");
  if (b <= 0) fail(std::string(name) + " = " + std::to_string(b) + " must be positive");
  // total / b rounded up without forming total + b - 1, which overflows near INT64_MAX.
  const std::int64_t count = total / b + (total % b != 0 ? 1 : 0);
  if (count > kMaxBlocks)
    fail(std::string(extent) + " = " + std::to_string(total) + " in blocks of " + name + " = " + std::to_string(b) +
         " makes " + std::to_string(count) + " blocks; a dimension may have at most " + std::to_string(kMaxBlocks));
  return BlockSizes::uniform(total, b);
}

constexpr std::uint64_t kFnvBasis = 1469598103934665603ull;
void fnv_mix(std::uint64_t& h, std::int64_t v) {
  for (int k = 0; k < 8; ++k) {
    h ^= static_cast<std::uint64_t>(v >> (8 * k)) & 0xffu;
    h *= 1099511628211ull;
  }
}

std::int64_t grid_size(int nprow, int npcol) {
  return static_cast<std::int64_t>(nprow) * static_cast<std::int64_t>(npcol);
}

bool uniform_dim(const BlockSizes& b) { return b.is_uniform(); }

// Closed-form ScaLAPACK index maps for a uniform dimension (the NUMROC / INDXG2P family,
// written from their definitions, not copied).
struct Uniform {
  std::int64_t nb, extent;
  int np, src;
  std::int64_t count(int p) const {
    const std::int64_t nblocks = extent / nb + (extent % nb != 0 ? 1 : 0);  // no extent + nb - 1: it overflows
    const int d = ((p - src) % np + np) % np;  // p's first block index
    if (d >= nblocks) return 0;
    const std::int64_t mine = (nblocks - 1 - d) / np + 1;  // blocks k = d + t*np
    const std::int64_t last = d + (mine - 1) * np;
    // (nblocks - 1) * nb < extent, so nothing here can overflow even near INT64_MAX.
    const std::int64_t last_size = extent - (nblocks - 1) * nb;  // the possibly short last block
    return (mine - 1) * nb + (last == nblocks - 1 ? last_size : nb);
  }
  int owner(std::int64_t i) const { return static_cast<int>((src + i / nb) % np); }
  std::int64_t local(std::int64_t i) const { return (i / nb) / np * nb + i % nb; }
  std::int64_t global(int p, std::int64_t il) const {
    const int d = ((p - src) % np + np) % np;
    return ((il / nb) * np + d) * nb + il % nb;
  }
};

Uniform uniform_of(const BlockSizes& b, std::int64_t extent, int np, int src) {
  return Uniform{b.empty() ? 1 : b[0], extent, np, src};
}

// Sum of block sizes; a sum past 2^63-1 is an error, not a wrapped negative extent.
std::int64_t checked_sum(const BlockSizes& b, const char* name) {
  if (b.compact()) {  // ceil(extent / b) blocks: they sum to the extent by construction
    std::int64_t sum = 0;
    if (!b.empty() && (__builtin_mul_overflow(static_cast<std::int64_t>(b.size() - 1), b[0], &sum) ||
                       __builtin_add_overflow(sum, b.back(), &sum)))
      fail(std::string(name) + " sum past 2^63-1");
    return sum;
  }
  std::int64_t sum = 0;
  for (std::size_t k = 0; k < b.size(); ++k)
    if (__builtin_add_overflow(sum, b[k], &sum))
      fail(std::string(name) + " sum past 2^63-1 at " + name + "[" + std::to_string(k) + "] = " + std::to_string(b[k]));
  return sum;
}

void check_index(std::int64_t i, std::int64_t extent, const char* what) {
  if (i < 0 || i >= extent)
    fail(std::string(what) + " = " + std::to_string(i) + " is outside [0, " +
         std::to_string(extent) + ")");
}

}  // namespace

// An explicit rank list with what validation, look-ups and fingerprints need, computed
// once: immutable, shared by every copy of the RankMap.
struct RankMap::List {
  std::vector<int> r;
  std::vector<std::pair<int, int>> by_rank;  // (rank, index), sorted: the inverse map
  int min = 0, max = -1;
  bool has_dup = false;
  int dup = 0;                // the smallest rank listed twice
  bool several = false;       // RankMap::holding_several: a rank may be listed more than once
  bool row_iota = false;      // r[k] == r[0] + k: row-major from r[0]
  int col_nprow = 0;          // > 0: column-major from r[0] with this many process rows
  std::uint64_t hash = kFnvBasis;
};

RankMap::RankMap(std::vector<int> list) {
  if (list.empty()) return;
  auto l = std::make_shared<List>();
  l->r = std::move(list);
  const std::vector<int>& r = l->r;
  const std::size_t P = r.size();
  l->by_rank.reserve(P);
  for (std::size_t k = 0; k < P; ++k) {
    l->by_rank.emplace_back(r[k], static_cast<int>(k));
    fnv_mix(l->hash, r[k]);
  }
  std::sort(l->by_rank.begin(), l->by_rank.end());
  l->min = l->by_rank.front().first;
  l->max = l->by_rank.back().first;
  for (std::size_t k = 1; k < P; ++k)
    if (l->by_rank[k].first == l->by_rank[k - 1].first) {
      l->has_dup = true;
      l->dup = l->by_rank[k].first;
      break;
    }
  l->row_iota = true;
  for (std::size_t k = 0; k < P && l->row_iota; ++k)
    l->row_iota = static_cast<std::int64_t>(r[k]) == static_cast<std::int64_t>(r[0]) + static_cast<std::int64_t>(k);
  if (!l->row_iota && P > 1) {
    // Column-major from r[0]: r[1] - r[0] is the number of process rows.
    const std::int64_t nr = static_cast<std::int64_t>(r[1]) - r[0];
    if (nr > 1 && static_cast<std::int64_t>(P) % nr == 0) {
      const auto nc = static_cast<std::int64_t>(P) / nr;
      bool col = true;
      for (std::size_t k = 0; k < P && col; ++k) {
        const auto pr = static_cast<std::int64_t>(k) / nc, pc = static_cast<std::int64_t>(k) % nc;
        col = r[k] == r[0] + pc * nr + pr;
      }
      if (col) l->col_nprow = static_cast<int>(nr);
    }
  }
  list_ = std::move(l);
}

RankMap RankMap::holding_several(std::vector<int> list) {
  RankMap m(std::move(list));
  if (m.list_) {
    auto l = std::make_shared<List>(*m.list_);
    l->several = true;
    fnv_mix(l->hash, 0x5E7E);
    m.list_ = std::move(l);
  }
  return m;
}

bool RankMap::holds_several() const { return list_ && list_->several; }

const std::vector<int>& RankMap::list() const {
  static const std::vector<int> none;
  return list_ ? list_->r : none;
}

int RankMap::list_at(std::size_t k) const { return list_->r[k]; }

bool RankMap::find(int rank, int nprow, int npcol, int& pr, int& pc) const {
  if (list_) {
    const auto& v = list_->by_rank;
    const auto it = std::lower_bound(v.begin(), v.end(), std::make_pair(rank, INT32_MIN));
    if (it == v.end() || it->first != rank || npcol <= 0) return false;
    pr = it->second / npcol;
    pc = it->second % npcol;
    return true;
  }
  const std::int64_t k = static_cast<std::int64_t>(rank) - base_;
  if (nprow <= 0 || npcol <= 0 || k < 0 || k >= grid_size(nprow, npcol)) return false;
  if (order_ == Order::Row) {
    pr = static_cast<int>(k / npcol);
    pc = static_cast<int>(k % npcol);
  } else {
    pc = static_cast<int>(k / nprow);
    pr = static_cast<int>(k % nprow);
  }
  return true;
}

std::vector<int> RankMap::to_vector(int nprow, int npcol) const {
  if (list_) return list_->r;
  std::vector<int> v(static_cast<std::size_t>(std::max<std::int64_t>(0, grid_size(nprow, npcol))));
  for (int pr = 0; pr < nprow; ++pr)
    for (int pc = 0; pc < npcol; ++pc) v[static_cast<std::size_t>(pr) * npcol + pc] = at(pr, pc, nprow, npcol);
  return v;
}

void RankMap::validate(int nprow, int npcol) const {
  const std::int64_t np = grid_size(nprow, npcol);
  if (!list_) {
    if (base_ < 0) fail("ranks start at " + std::to_string(base_) + "; ranks must be non-negative");
    if (np - 1 > INT32_MAX - static_cast<std::int64_t>(base_))
      fail("ranks from " + std::to_string(base_) + " for nprow*npcol = " + std::to_string(np) +
           " processes pass the largest int");
    return;
  }
  if (static_cast<std::int64_t>(list_->r.size()) != np)
    fail("ranks has " + std::to_string(list_->r.size()) + " entries but nprow*npcol = " + std::to_string(np));
  if (list_->min < 0) fail("ranks contains " + std::to_string(list_->min) + "; ranks must be non-negative");
  if (list_->has_dup && !list_->several) fail("ranks contains rank " + std::to_string(list_->dup) + " twice");
}

int RankMap::max_rank(int nprow, int npcol) const {
  if (list_) return list_->max;
  return static_cast<int>(base_ + grid_size(nprow, npcol) - 1);
}

RankMap RankMap::canonical(int nprow, int npcol) const {
  if (!list_) {
    if (order_ == Order::Column && (nprow == 1 || npcol == 1)) return row_major(base_);
    return *this;
  }
  if (static_cast<std::int64_t>(list_->r.size()) != grid_size(nprow, npcol)) return *this;  // invalid: kept to be named
  // A holding_several map stays a list even when it lists each rank once in order: the
  // executors read its arrays from ExchangeItem::held, not from `a`.
  if (list_->several) return *this;
  if (list_->row_iota) return row_major(list_->r[0]);
  if (list_->col_nprow == nprow) return column_major(list_->r[0]);
  return *this;
}

bool RankMap::equal(const RankMap& o, int nprow, int npcol) const {
  const RankMap x = canonical(nprow, npcol), y = o.canonical(nprow, npcol);
  if (x.list_ && y.list_) return x.list_ == y.list_ || x.list_->r == y.list_->r;
  if (x.list_ || y.list_) return false;
  return x.order_ == y.order_ && x.base_ == y.base_;
}

std::uint64_t RankMap::hash(int nprow, int npcol) const {
  const RankMap c = canonical(nprow, npcol);
  std::uint64_t h = kFnvBasis;
  if (c.list_) {
    fnv_mix(h, 2);
    fnv_mix(h, static_cast<std::int64_t>(c.list_->hash));
  } else {
    fnv_mix(h, c.order_ == Order::Row ? 0 : 1);
    fnv_mix(h, c.base_);
  }
  return h;
}

Axis::Axis(const BlockSizes& blocks, int nprocs, int src) : np_(nprocs), src_(src) {
  if (np_ <= 0) fail("nprocs = " + std::to_string(np_) + " must be positive");
  if (src_ < 0 || src_ >= np_) fail("src = " + std::to_string(src_) + " is outside [0, " + std::to_string(np_) + ")");
  if (!blocks.empty() && (blocks.compact() || blocks.is_uniform())) {
    // Closed forms: every block but the last has blocks[0] elements, the last no more.
    const std::size_t last = blocks.size() - 1;
    std::int64_t body = 0;
    if (blocks[0] <= 0) fail("blocks[0] = " + std::to_string(blocks[0]) + " must be positive");
    if (blocks.back() <= 0)
      fail("blocks[" + std::to_string(last) + "] = " + std::to_string(blocks.back()) + " must be positive");
    if (__builtin_mul_overflow(static_cast<std::int64_t>(last), blocks[0], &body) ||
        __builtin_add_overflow(body, blocks.back(), &extent_))
      fail("blocks[" + std::to_string(last) + "] = " + std::to_string(blocks.back()) +
           " makes the extent overflow 64 bits");
    nb_ = blocks[0];
    count_ = blocks.size();
    return;
  }
  sizes_ = blocks.to_vector();
  std::int64_t total = 0;
  for (std::size_t k = 0; k < sizes_.size(); ++k)
    if (sizes_[k] <= 0 || __builtin_add_overflow(total, sizes_[k], &total))
      fail("blocks[" + std::to_string(k) + "] = " + std::to_string(sizes_[k]) +
           (sizes_[k] <= 0 ? " must be positive" : " makes the extent overflow 64 bits"));
  start_.resize(sizes_.size() + 1);
  local_start_.resize(sizes_.size());
  local_count_.assign(static_cast<std::size_t>(np_), 0);
  start_[0] = 0;
  for (std::size_t k = 0; k < sizes_.size(); ++k) {
    start_[k + 1] = start_[k] + sizes_[k];
    const auto p = static_cast<std::size_t>(block_owner(k));
    local_start_[k] = local_count_[p];
    local_count_[p] += sizes_[k];
  }
}

std::int64_t Axis::local_count(int p) const {
  return nb_ > 0 ? Uniform{nb_, extent_, np_, src_}.count(p) : local_count_[static_cast<std::size_t>(p)];
}

std::size_t Axis::block_of(std::int64_t i) const {
  check_index(i, extent(), "global index");
  if (nb_ > 0) return static_cast<std::size_t>(i / nb_);
  auto it = std::upper_bound(start_.begin(), start_.end(), i);
  return static_cast<std::size_t>(it - start_.begin()) - 1;
}

std::int64_t Axis::to_local(std::int64_t i) const {
  if (nb_ > 0) {
    check_index(i, extent_, "global index");
    return Uniform{nb_, extent_, np_, src_}.local(i);
  }
  const std::size_t k = block_of(i);
  return local_start_[k] + (i - start_[k]);
}

std::int64_t Axis::to_global(int p, std::int64_t il) const {
  if (p < 0 || p >= np_) fail("process " + std::to_string(p) + " is outside [0, " + std::to_string(np_) + ")");
  check_index(il, local_count(p), "local index");
  if (nb_ > 0) return Uniform{nb_, extent_, np_, src_}.global(p, il);
  // p owns blocks d, d+np, d+2np, ...; their local starts increase, so bisect over them.
  const std::size_t d = static_cast<std::size_t>(((p - src_) % np_ + np_) % np_);
  const std::size_t cnt = (sizes_.size() - d + np_ - 1) / static_cast<std::size_t>(np_);
  std::size_t lo = 0, hi = cnt;  // find last t with local_start_[d+t*np] <= il
  while (hi - lo > 1) {
    const std::size_t mid = (lo + hi) / 2;
    if (local_start_[d + mid * np_] <= il) lo = mid; else hi = mid;
  }
  const std::size_t k = d + lo * static_cast<std::size_t>(np_);
  return start_[k] + (il - local_start_[k]);
}

BlockSizes BlockSizes::uniform(std::int64_t extent, std::int64_t b) {
  BlockSizes s;
  if (b <= 0 || extent < 0) {  // not a uniform division: keep it as a list for validation to name
    s.list_ = {b};
    return s;
  }
  s.compact_ = true;
  s.b_ = b;
  s.extent_ = extent;
  s.count_ = extent / b + (extent % b != 0 ? 1 : 0);
  return s;
}

std::vector<std::int64_t> BlockSizes::to_vector() const {
  if (!compact_) return list_;
  std::vector<std::int64_t> v(size());
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = (*this)[k];
  return v;
}

bool BlockSizes::is_uniform() const {
  if (compact_) return true;
  if (list_.size() <= 1) return true;
  for (std::size_t k = 1; k + 1 < list_.size(); ++k)
    if (list_[k] != list_[0]) return false;
  return list_.back() <= list_[0];
}

bool operator==(const BlockSizes& x, const BlockSizes& y) {
  if (x.compact_ && y.compact_) return x.b_ == y.b_ && x.extent_ == y.extent_;
  if (!x.compact_ && !y.compact_) return x.list_ == y.list_;
  if (x.size() != y.size()) return false;
  for (std::size_t k = 0; k < x.size(); ++k)
    if (x[k] != y[k]) return false;
  return true;
}

Layout Layout::block_cyclic(std::int64_t m, std::int64_t n, std::int64_t mb, std::int64_t nb,
                            int nprow, int npcol, int rsrc, int csrc, RankMap ranks) {
  Layout l;
  l.m = m;
  l.n = n;
  l.row_blocks = uniform_blocks(m, mb, "mb");
  l.col_blocks = uniform_blocks(n, nb, "nb");
  l.nprow = nprow;
  l.npcol = npcol;
  l.rsrc = rsrc;
  l.csrc = csrc;
  l.ranks = ranks.canonical(nprow, npcol);
  l.validate();
  return l;
}

Layout Layout::from_blocks(BlockSizes row_blocks, BlockSizes col_blocks, int nprow, int npcol, int rsrc, int csrc, RankMap ranks) {
  Layout l;
  l.m = checked_sum(row_blocks, "row_blocks");
  l.n = checked_sum(col_blocks, "col_blocks");
  l.row_blocks = std::move(row_blocks);
  l.col_blocks = std::move(col_blocks);
  l.nprow = nprow;
  l.npcol = npcol;
  l.rsrc = rsrc;
  l.csrc = csrc;
  l.ranks = ranks.canonical(nprow, npcol);
  l.validate();
  return l;
}

Layout Layout::from_desc(const int desc[9], int nprow, int npcol, RankMap ranks) {
  if (desc[0] != 1) fail("DESC(DTYPE_) = " + std::to_string(desc[0]) + " is not 1 (dense block-cyclic)");
  return block_cyclic(desc[2], desc[3], desc[4], desc[5], nprow, npcol, desc[6], desc[7],
                      std::move(ranks));
}

bool desc_outside_grid(const int desc[9]) {
  if (desc[1] == -1) return true;  // CTXT_ -1: nothing else of the DESC is examined
  if (desc[0] != 1) fail("DESC(DTYPE_) = " + std::to_string(desc[0]) + " is not 1");
  return false;
}

std::array<int, 9> Layout::to_desc(int ctxt, int lld) const {
  if (!uniform())
    fail("layout has non-uniform block sizes; a ScaLAPACK DESC cannot describe it");
  auto narrow = [](std::int64_t v, const char* what) {
    if (v > INT32_MAX) fail(std::string(what) + " = " + std::to_string(v) + " does not fit a DESC int");
    return static_cast<int>(v);
  };
  const int mb = row_blocks.empty() ? 1 : narrow(row_blocks[0], "mb");
  const int nb = col_blocks.empty() ? 1 : narrow(col_blocks[0], "nb");
  return {1, ctxt, narrow(m, "m"), narrow(n, "n"), mb, nb, rsrc, csrc, lld};
}

void Layout::validate() const {
  if (nprow <= 0) fail("nprow = " + std::to_string(nprow) + " must be positive");
  if (npcol <= 0) fail("npcol = " + std::to_string(npcol) + " must be positive");
  if (rsrc < 0 || rsrc >= nprow)
    fail("rsrc = " + std::to_string(rsrc) + " is outside [0, nprow=" + std::to_string(nprow) + ")");
  if (csrc < 0 || csrc >= npcol)
    fail("csrc = " + std::to_string(csrc) + " is outside [0, npcol=" + std::to_string(npcol) + ")");
  if (m < 0) fail("m = " + std::to_string(m) + " is negative");
  if (n < 0) fail("n = " + std::to_string(n) + " is negative");
  auto check_blocks = [](const BlockSizes& b, std::int64_t total, const char* name, const char* tot) {
    if (static_cast<std::int64_t>(b.size()) > kMaxBlocks)
      fail(std::string(name) + " has " + std::to_string(b.size()) + " blocks; a dimension may have at most " +
           std::to_string(kMaxBlocks));
    std::int64_t sum = 0;
    if (b.compact()) {  // the same checks in closed form: only the first and last sizes differ
      if (!b.empty() && b[0] <= 0)
        fail(std::string(name) + "[0] = " + std::to_string(b[0]) + " must be positive");
      sum = checked_sum(b, name);
      if (sum != total)
        fail(std::string(name) + " sum to " + std::to_string(sum) + " but " + tot + " = " + std::to_string(total));
      return;
    }
    for (std::size_t k = 0; k < b.size(); ++k) {
      if (b[k] <= 0)
        fail(std::string(name) + "[" + std::to_string(k) + "] = " + std::to_string(b[k]) +
             " must be positive");
      if (__builtin_add_overflow(sum, b[k], &sum))
        fail(std::string(name) + " sum past 2^63-1 at " + name + "[" + std::to_string(k) + "] = " +
             std::to_string(b[k]));
    }
    if (sum != total)
      fail(std::string(name) + " sum to " + std::to_string(sum) + " but " + tot + " = " +
           std::to_string(total));
  };
  // Element counts (m*n, and every product of row and column counts in a plan) must fit
  // 64 bits; the plan's arithmetic relies on it.
  std::int64_t elements = 0;
  if (__builtin_mul_overflow(m, n, &elements))
    fail("m x n = " + std::to_string(m) + " x " + std::to_string(n) + " elements overflows 64 bits");
  check_blocks(row_blocks, m, "row_blocks", "m");
  check_blocks(col_blocks, n, "col_blocks", "n");
  ranks.validate(nprow, npcol);  // O(1): an explicit list's facts were computed once
}

std::int64_t Layout::local_rows(int pr) const {
  if (pr < 0 || pr >= nprow) fail("process row " + std::to_string(pr) + " is outside [0, nprow=" + std::to_string(nprow) + ")");
  if (uniform()) return uniform_of(row_blocks, m, nprow, rsrc).count(pr);
  return row_axis().local_count(pr);
}
std::int64_t Layout::local_cols(int pc) const {
  if (pc < 0 || pc >= npcol) fail("process column " + std::to_string(pc) + " is outside [0, npcol=" + std::to_string(npcol) + ")");
  if (uniform()) return uniform_of(col_blocks, n, npcol, csrc).count(pc);
  return col_axis().local_count(pc);
}
int Layout::row_owner(std::int64_t i) const {
  check_index(i, m, "row");
  return uniform() ? uniform_of(row_blocks, m, nprow, rsrc).owner(i) : row_axis().owner(i);
}
std::int64_t Layout::row_to_local(std::int64_t i) const {
  check_index(i, m, "row");
  return uniform() ? uniform_of(row_blocks, m, nprow, rsrc).local(i) : row_axis().to_local(i);
}
int Layout::col_owner(std::int64_t j) const {
  check_index(j, n, "column");
  return uniform() ? uniform_of(col_blocks, n, npcol, csrc).owner(j) : col_axis().owner(j);
}
std::int64_t Layout::col_to_local(std::int64_t j) const {
  check_index(j, n, "column");
  return uniform() ? uniform_of(col_blocks, n, npcol, csrc).local(j) : col_axis().to_local(j);
}
std::int64_t Layout::local_to_row(int pr, std::int64_t il) const {
  check_index(il, local_rows(pr), "local row");
  return uniform() ? uniform_of(row_blocks, m, nprow, rsrc).global(pr, il) : row_axis().to_global(pr, il);
}
std::int64_t Layout::local_to_col(int pc, std::int64_t jl) const {
  check_index(jl, local_cols(pc), "local column");
  return uniform() ? uniform_of(col_blocks, n, npcol, csrc).global(pc, jl) : col_axis().to_global(pc, jl);
}

bool Layout::uniform() const { return uniform_dim(row_blocks) && uniform_dim(col_blocks); }

std::int64_t Layout::min_lld(int pr) const { return std::max<std::int64_t>(1, local_rows(pr)); }

bool operator==(const Layout& x, const Layout& y) {
  return x.m == y.m && x.n == y.n && x.row_blocks == y.row_blocks && x.col_blocks == y.col_blocks &&
         x.nprow == y.nprow && x.npcol == y.npcol && x.rsrc == y.rsrc && x.csrc == y.csrc &&
         x.ranks.equal(y.ranks, x.nprow, x.npcol);
}

std::vector<std::int64_t> proportional_blocks(std::int64_t total, const std::vector<double>& weights) {
  if (weights.empty()) fail("weights is empty");
  double sum = 0;
  for (std::size_t k = 0; k < weights.size(); ++k) {
    if (!(weights[k] > 0) || !std::isfinite(weights[k]))
      fail("weights[" + std::to_string(k) + "] = " + std::to_string(weights[k]) + " must be positive");
    sum += weights[k];
  }
  const auto parts = static_cast<std::int64_t>(weights.size());
  if (total < parts)
    fail("total = " + std::to_string(total) + " is smaller than the " + std::to_string(parts) +
         " parts; every block needs at least one row/column");
  // One unit to each part first so no block is empty, the rest by largest remainder.
  const std::int64_t rest = total - parts;
  std::vector<std::int64_t> out(weights.size(), 1);
  std::vector<std::pair<double, std::size_t>> rem;
  std::int64_t given = 0;
  for (std::size_t k = 0; k < weights.size(); ++k) {
    const double exact = static_cast<double>(rest) * weights[k] / sum;
    const auto fl = static_cast<std::int64_t>(std::floor(exact));
    out[k] += fl;
    given += fl;
    rem.emplace_back(exact - static_cast<double>(fl), k);
  }
  std::stable_sort(rem.begin(), rem.end(), [](auto& x, auto& y) { return x.first > y.first; });
  for (std::size_t t = 0; given < rest; ++t, ++given) out[rem[t % rem.size()].second] += 1;
  return out;
}

}  // namespace redist
