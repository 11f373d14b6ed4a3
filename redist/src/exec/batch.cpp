// SPDX-License-Identifier: BSD-3-Clause
// Several matrices in one exchange (redistribute.hpp, Exchange and redistribute over
// items): the batch's arguments checked on this rank (every item's plan, element size,
// held arrays and buffers), the fingerprint every rank must agree on, then the batch
// handed to the one engine (exchange.cpp), which posts, packs, unpacks and copies.
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../mpi_guard.hpp"
#include "checks.hpp"
#include "exchange.hpp"
#include "malleable/redist/redistribute.hpp"

namespace redist {

using namespace exec;

struct Exchange::Impl {
  std::vector<ExchangeItem> items;  // a copy for the checks (the engine holds its own)
  ExecOptions opt;
  Agreement agreement;
  MPI_Comm comm;
  Engine engine;

  Impl(MPI_Comm c, std::vector<ExchangeItem> it, const ExecOptions& o, Agreement ag)
      : items(it), opt(o), agreement(ag), comm(c), engine(c, std::move(it), o, ag, Phases::AllAtOnce) {}

  LocalError check(int me, int nranks) const {
    for (std::size_t k = 0; k < items.size(); ++k) {
      const ExchangeItem& it = items[k];
      const std::string which = "item " + std::to_string(k) + ": ";
      if (!it.plan) return {ErrorCode::InvalidArgument, which + "plan is null"};
      if (it.elem_bytes != 4 && it.elem_bytes != 8 && it.elem_bytes != 16)
        return {ErrorCode::InvalidArgument,
                which + "elem_bytes = " + std::to_string(it.elem_bytes) + " is not 4, 8 or 16 (use ExchangeItem::of)"};
      const void* a = it.a;
      std::int64_t lda = it.lda;
      if (LocalError e = check_held(it, me, a, lda); !e.ok()) return {e.code, which + e.msg};
      LocalError e = check_buffers(*it.plan, me, nranks, a, lda, it.b, it.ldb, opt, it.elem_bytes);
      if (!e.ok()) return {e.code, which + e.msg};
      for (const auto& t : it.plan->transfers) {
        if (t.src != me && t.dst != me) continue;
        std::int64_t rows = 0;
        for (const auto& r : t.rows) rows += r.elements();
        if (rows > INT_MAX / static_cast<std::int64_t>(it.elem_bytes))
          return {ErrorCode::InvalidArgument, which + "a column of the transfer " + std::to_string(t.src) + " -> " +
                                                  std::to_string(t.dst) + " exceeds 2 GiB (one message)"};
      }
    }
    return {};
  }

  // An item whose A side lists this rank at several coordinates (RankMap::holding_several)
  // names each one's array in `held`; every coordinate of this rank once, each lda at
  // least its local rows. a/lda: what check_buffers checks for the first coordinate.
  static LocalError check_held(const ExchangeItem& it, int me, const void*& a, std::int64_t& lda) {
    const Layout& la = it.plan->a;
    if (it.held.empty() && !la.ranks.holds_several()) return {};
    std::vector<std::pair<int, int>> mine;
    for (int pr = 0; pr < la.nprow; ++pr)
      for (int pc = 0; pc < la.npcol; ++pc)
        if (la.rank_at(pr, pc) == me) mine.emplace_back(pr, pc);
    std::vector<std::pair<int, int>> named;
    for (const HeldArray& h : it.held) named.emplace_back(h.pr, h.pc);
    std::sort(named.begin(), named.end());
    if (named != mine)
      return {ErrorCode::InvalidArgument, "held names " + std::to_string(it.held.size()) +
                                              " coordinates of A, but A's ranks place this rank at " +
                                              std::to_string(mine.size()) + " (each must be named once)"};
    for (const HeldArray& h : it.held) {
      const std::string at = " at grid coordinate (" + std::to_string(h.pr) + "," + std::to_string(h.pc) + ")";
      if (h.lda < la.min_lld(h.pr))
        return {ErrorCode::LeadingDimension, "held lda = " + std::to_string(h.lda) +
                                                 " is less than max(1, local rows of A) = " +
                                                 std::to_string(la.min_lld(h.pr)) + at};
      if (!h.a && la.local_rows(h.pr) * la.local_cols(h.pc) > 0)
        return {ErrorCode::NullBuffer, "held a is null" + at};
    }
    a = it.held.empty() ? nullptr : it.held.front().a;
    lda = it.held.empty() ? 1 : it.held.front().lda;
    int pr = 0, pc = 0;
    if (la.coords_of(me, pr, pc))
      for (const HeldArray& h : it.held)
        if (h.pr == pr && h.pc == pc) a = h.a, lda = h.lda;
    return {};
  }

  std::uint64_t fingerprint() const {
    std::uint64_t h = 0x8A5CD789635D2DFFull * (items.size() + 1);
    for (const auto& it : items) {
      const std::uint64_t f = it.plan ? run_fingerprint(*it.plan, opt) : 0;
      h = (h ^ f ^ (it.elem_bytes * 0xFF51AFD7ED558CCDull)) * 0x100000001B3ull + 0x9E3779B97F4A7C15ull;
    }
    return h;
  }

  void start() {
    if (engine.started()) throw Error(ErrorCode::InvalidArgument, "redist: Exchange::start() called twice");
    detail::check_comm(comm, "comm");
    int me = 0, nranks = 0;
    detail::check_mpi(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
    detail::check_mpi(MPI_Comm_size(comm, &nranks), "MPI_Comm_size");
    const LocalError err = check(me, nranks);
    engine.start(err, fingerprint());
  }
};

Exchange::Exchange(MPI_Comm comm, std::vector<ExchangeItem> items, const ExecOptions& opt, Agreement agreement)
    : impl_(std::make_unique<Impl>(comm, std::move(items), opt, agreement)) {}
Exchange::~Exchange() = default;
Exchange::Exchange(Exchange&&) noexcept = default;
Exchange& Exchange::operator=(Exchange&&) noexcept = default;

void Exchange::start() { impl_->start(); }
bool Exchange::test() { return impl_->engine.test(); }
void Exchange::finish(ExecStats* stats) { impl_->engine.finish(stats); }
void Exchange::cancel() { impl_->engine.cancel(); }
bool Exchange::started() const { return impl_ && impl_->engine.started(); }
bool Exchange::finished() const { return impl_ && impl_->engine.finished(); }

void redistribute(MPI_Comm comm, const std::vector<ExchangeItem>& items, const ExecOptions& opt, ExecStats* stats) {
  // One matrix: a batch of one through its plan's steps (with the fused local copies and
  // split_wait_transfer), checked as redistribute(comm, plan, ...) checks it.
  if (items.size() == 1 && items[0].plan && !items[0].plan->a.ranks.holds_several() &&
      (items[0].elem_bytes == 4 || items[0].elem_bytes == 8 || items[0].elem_bytes == 16))
    return redistribute_item(comm, items[0], opt, stats);
  Exchange ex(comm, items, opt);
  ex.start();
  ex.finish(stats);
}

}  // namespace redist
