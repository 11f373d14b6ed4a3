// SPDX-License-Identifier: BSD-3-Clause
// Several matrices in one exchange (redist::Exchange, redistribute over a vector of items):
// matrices of different element types, shapes, block sizes and grids, checked element by
// element against the global matrix and bit for bit against the single-matrix path; one
// message per peer (not per matrix and peer); start/test/finish; the memory budget and a
// window of one; A of one matrix sharing storage with B of another; errors agreed on
// every rank; cancel() and destroying an unfinished exchange.
#include <gtest/gtest.h>
#include <mpi.h>

#include <complex>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "malleable/redist/node_map.hpp"
#include "malleable/redist/redistribute.hpp"
#include "mpi_common.hpp"

using namespace redist_test;
using redist::ExchangeItem;
using redist::Layout;
using redist::RedistPlan;
using redist::Region;
using redist::ScheduleKind;

namespace {

// Elements of this rank's B that differ from A moved over the region (sentinel outside).
template <class T>
int wrong(const Layout& lb, const LocalMatrix<T>& b, const Region& g) {
  if (!b.in_grid) return 0;
  int pr = 0, pc = 0;
  lb.coords_of(world_rank(), pr, pc);
  const auto ra = lb.row_axis(), ca = lb.col_axis();
  int bad = 0;
  for (std::int64_t jl = 0; jl < b.cols; ++jl)
    for (std::int64_t il = 0; il < b.ld; ++il) {
      T want = sentinel<T>();
      if (il < b.rows) {
        const std::int64_t i = ra.to_global(pr, il), j = ca.to_global(pc, jl);
        if (i >= g.ib && i < g.ib + g.m && j >= g.jb && j < g.jb + g.n) want = make<T>(i - g.ib + g.ia, j - g.jb + g.ja);
      }
      const T got = b.data[static_cast<std::size_t>(jl * b.ld + il)];
      bad += std::memcmp(&got, &want, sizeof(T)) != 0;
    }
  return bad;
}

int all_sum(int v) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return v;
}

template <class T>
T* data_or_null(LocalMatrix<T>& x) {
  return x.in_grid ? x.data.data() : nullptr;
}

// One matrix of a test: its layouts, region, arrays and plan.
template <class T>
struct Case {
  Layout la, lb;
  Region g;
  LocalMatrix<T> a, b;
  RedistPlan plan;
  Case(Layout la_, Layout lb_, Region g_, std::int64_t pad = 0)
      : la(std::move(la_)), lb(std::move(lb_)), g(g_),
        a(fill_local<T>(la, world_rank(), true, pad)), b(fill_local<T>(lb, world_rank(), false, 2 * pad)),
        plan(redist::make_plan(la, lb, g, world_size(), ScheduleKind::Default, world_rank())) {}
  ExchangeItem item() { return ExchangeItem::of<T>(plan, data_or_null(a), a.ld, data_or_null(b), b.ld); }
  void reset_b() { b = fill_local<T>(lb, world_rank(), false, b.ld - std::max<std::int64_t>(1, b.rows)); }
  int errors() const { return wrong(lb, b, g); }
};

// Four matrices of four element types, each with its own shape, blocks and grids (on 6
// ranks: 2x2 -> 3x2, a row of 6 -> 2x3 with permuted ranks, irregular blocks, a region).
struct Four {
  Case<double> d;
  Case<std::complex<float>> c;
  Case<float> s;
  Case<std::complex<double>> z;
  Four()
      : d(Layout::block_cyclic(37, 29, 4, 3, 2, 2), Layout::block_cyclic(37, 29, 5, 2, 3, 2), Region{37, 29, 0, 0, 0, 0}),
        c(Layout::block_cyclic(50, 13, 1, 1, 1, 6), Layout::block_cyclic(50, 13, 7, 7, 2, 3, 0, 0, {5, 3, 1, 4, 0, 2}),
          Region{50, 13, 0, 0, 0, 0}, 3),
        s(Layout::from_blocks({3, 1, 7, 2, 9}, {10, 2, 2, 6, 5, 11, 4}, 2, 3),
          Layout::block_cyclic(22, 40, 2, 9, 3, 1, 1, 0, {4, 2, 0}), Region{22, 40, 0, 0, 0, 0}),
        z(Layout::block_cyclic(30, 30, 4, 4, 3, 2), Layout::block_cyclic(26, 33, 3, 5, 2, 2, 1, 1),
          Region{17, 11, 5, 9, 6, 20}) {}
  std::vector<ExchangeItem> items() { return {d.item(), c.item(), s.item(), z.item()}; }
  int errors() const { return d.errors() + c.errors() + s.errors() + z.errors(); }
  void reset() {
    d.reset_b();
    c.reset_b();
    s.reset_b();
    z.reset_b();
  }
};

// The distinct peers this rank sends to plus those it receives from, over all items.
int peers(const std::vector<ExchangeItem>& items) {
  std::set<int> out, in;
  const int me = world_rank();
  for (const auto& it : items)
    for (const auto& t : it.plan->transfers) {
      if (t.src == me && t.dst != me) out.insert(t.dst);
      if (t.dst == me && t.src != me) in.insert(t.src);
    }
  return static_cast<int>(out.size() + in.size());
}

}  // namespace

// Every transfer by message (the test runs on one node: by default the node's transports
// take every transfer).
redist::ExecOptions by_message() {
  redist::ExecOptions opt;
  opt.node_window = false;
  opt.single_copy = redist::SingleCopy::Off;
  return opt;
}

TEST(Exchange, FourMatricesOfFourTypesInOneExchange) {
  Four f;
  const auto items = f.items();
  redist::ExecStats st;
  redist::redistribute(MPI_COMM_WORLD, items, by_message(), &st);
  EXPECT_EQ(all_sum(f.errors()), 0);
  // One message per peer and direction: every matrix's pieces for a peer travel together.
  EXPECT_EQ(st.messages, peers(items));
  EXPECT_LE(st.peak_bytes, redist::ExecOptions{}.memory_budget_bytes);
  // Bit for bit what the single-matrix path gives, matrix by matrix.
  Four one;
  redist::redistribute<double>(MPI_COMM_WORLD, one.d.plan, data_or_null(one.d.a), one.d.a.ld, data_or_null(one.d.b), one.d.b.ld);
  redist::redistribute<std::complex<float>>(MPI_COMM_WORLD, one.c.plan, data_or_null(one.c.a), one.c.a.ld,
                                            data_or_null(one.c.b), one.c.b.ld);
  redist::redistribute<float>(MPI_COMM_WORLD, one.s.plan, data_or_null(one.s.a), one.s.a.ld, data_or_null(one.s.b), one.s.b.ld);
  redist::redistribute<std::complex<double>>(MPI_COMM_WORLD, one.z.plan, data_or_null(one.z.a), one.z.a.ld,
                                             data_or_null(one.z.b), one.z.b.ld);
  EXPECT_EQ(one.d.b.data, f.d.b.data);
  EXPECT_EQ(one.c.b.data, f.c.b.data);
  EXPECT_EQ(one.s.b.data, f.s.b.data);
  EXPECT_EQ(one.z.b.data, f.z.b.data);
}

TEST(Exchange, OnNodeTransportsGiveTheSameResult) {
  // The ranks of one node: through the node window (packed into the sender's segment,
  // unpacked by the receiver), read in one copy (SingleCopy::On), or by message; the same
  // bits each way, B as the single-matrix path gives it, and no data message between two
  // ranks of the node where the node's transports are on.
  for (int mode = 0; mode < 3; ++mode) {
    Four f;
    redist::ExecOptions opt = mode == 0 ? by_message() : redist::ExecOptions{};
    if (mode == 2) opt.single_copy = redist::SingleCopy::On;
    redist::ExecStats st;
    redist::Exchange ex(MPI_COMM_WORLD, f.items(), opt);
    ex.start();
    while (!ex.test()) {
    }
    ex.finish(&st);
    EXPECT_EQ(all_sum(f.errors()), 0) << "mode " << mode;
    const std::int64_t window = all_sum(static_cast<int>(st.bytes_window)), single = all_sum(static_cast<int>(st.bytes_single_copy));
    const int messages = all_sum(static_cast<int>(st.messages));
    if (mode == 0) {
      EXPECT_EQ(window + single, 0);
      EXPECT_GT(messages, 0);
    } else if (redist::node_ranks(MPI_COMM_WORLD).size() == static_cast<std::size_t>(world_size())) {
      EXPECT_EQ(messages, 0) << "mode " << mode;
      if (mode == 1) {
        EXPECT_GT(window, 0);
      } else {
        EXPECT_GT(single, 0);
      }
    }
  }
}

TEST(Exchange, SmallBudgetsAndAWindowOfOneGiveTheSameResult) {
  for (std::int64_t budget : {std::int64_t{4096}, std::int64_t{8192}, std::int64_t{0}})
    for (int window : {1, 2, 64}) {
      Four f;
      redist::ExecOptions opt = by_message();
      opt.memory_budget_bytes = budget;
      opt.max_outstanding = window;
      opt.staging_bytes = budget == 0 ? 300 : opt.staging_bytes;  // many messages either way
      redist::ExecStats st;
      redist::redistribute(MPI_COMM_WORLD, f.items(), opt, &st);
      EXPECT_EQ(all_sum(f.errors()), 0) << "budget " << budget << " window " << window;
      EXPECT_LE(st.max_in_flight, window);
      EXPECT_GT(all_sum(static_cast<int>(st.messages)), all_sum(peers(f.items()))) << "small messages: several rounds";
    }
}

TEST(Exchange, DatatypePackedAndAutoGiveTheSameResult) {
  // Datatype: each peer's pieces of all four matrices as one MPI datatype in place;
  // Packed: staged; Auto: per peer (long pieces in place). One message per peer each way.
  for (auto tr : {redist::Transport::Datatype, redist::Transport::Packed, redist::Transport::Auto})
    for (std::int64_t budget : {std::int64_t{0}, std::int64_t{4096}}) {
      Four f;
      redist::ExecOptions opt;
      opt.transport = tr;
      opt.memory_budget_bytes = budget;
      redist::ExecStats st;
      redist::redistribute(MPI_COMM_WORLD, f.items(), opt, &st);
      EXPECT_EQ(all_sum(f.errors()), 0) << static_cast<int>(tr) << " budget " << budget;
      if (tr == redist::Transport::Datatype) {
        EXPECT_EQ(st.messages, peers(f.items()));  // whatever the budget: nothing is staged
      }
    }
}

TEST(Exchange, WindowOfOneWithLargeMessagesDoesNotDeadlock) {
  // Every rank exchanges with every other (a row of 6 -> a column of 6) in messages far
  // above the eager limit, one message in flight per direction: only the shared posting
  // order ((dst - src) mod P both ways) lets the sends find their receives posted; any
  // other order waits in a cycle (and the test times out).
  for (auto tr : {redist::Transport::Packed, redist::Transport::Datatype}) {
    Case<double> c(Layout::block_cyclic(300, 300, 50, 50, 1, 6), Layout::block_cyclic(300, 300, 50, 50, 6, 1),
                   Region{300, 300, 0, 0, 0, 0});
    Case<float> d(Layout::block_cyclic(200, 240, 40, 40, 1, 6), Layout::block_cyclic(200, 240, 40, 40, 6, 1),
                  Region{200, 240, 0, 0, 0, 0});
    redist::ExecOptions opt;
    opt.transport = tr;
    opt.max_outstanding = 1;
    opt.memory_budget_bytes = 0;
    opt.wait = redist::WaitMode::Sleep;
    redist::redistribute(MPI_COMM_WORLD, {c.item(), d.item()}, opt);
    EXPECT_EQ(all_sum(c.errors() + d.errors()), 0);
  }
}

TEST(Exchange, StartTestFinish) {
  Four f;
  redist::Exchange ex(MPI_COMM_WORLD, f.items());
  EXPECT_FALSE(ex.started());
  ex.start();
  EXPECT_TRUE(ex.started());
  // test() never blocks: every rank tests until its part is done (each one's progress
  // needs only the others' posting, done in start()).
  int tests = 0;
  while (!ex.test()) ++tests;
  EXPECT_TRUE(ex.finished());
  EXPECT_EQ(all_sum(f.errors()), 0);
  redist::ExecStats st;
  ex.finish(&st);  // already done: the figures only
  EXPECT_GT(st.bytes_received + st.bytes_local, 0);
  EXPECT_THROW(ex.start(), redist::Error);
}

TEST(Exchange, LocalAgreementMovesTheSame) {
  Four f;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  {
    redist::Exchange ex(comm, f.items(), {}, redist::Agreement::Local);
    ex.start();
    ex.finish();
  }
  MPI_Comm_free(&comm);
  EXPECT_EQ(all_sum(f.errors()), 0);
}

TEST(Exchange, OneMatrixAIsAnothersB) {
  // Two matrices X and Y in one array per rank: X := Y and Y := X in one exchange (the
  // first item's B is the second's A and the other way round). The result is as if every
  // A were read before any B is written: the two swap.
  const Layout la = Layout::block_cyclic(23, 17, 3, 2, 2, 3), lb = Layout::block_cyclic(23, 17, 2, 4, 3, 2);
  const int me = world_rank();
  const std::int64_t span = std::max(fill_local<double>(la, me, false).data.size(), fill_local<double>(lb, me, false).data.size());
  std::vector<double> buf(static_cast<std::size_t>(2 * span), sentinel<double>());
  auto xa = fill_local<double>(la, me, true);  // X's values: make(i, j)
  LocalMatrix<double> ya = xa;                 // Y's: make(i, j) + 1
  for (auto& v : ya.data) v += 1;
  std::copy(xa.data.begin(), xa.data.end(), buf.begin());
  std::copy(ya.data.begin(), ya.data.end(), buf.begin() + span);
  const RedistPlan p = redist::make_plan(la, lb, Region::whole(la), world_size(), ScheduleKind::Default, me);
  double* x = buf.data();
  double* y = buf.data() + span;
  const std::int64_t ldb = std::max<std::int64_t>(1, fill_local<double>(lb, me, false).rows);
  redist::ExecStats st;
  redist::redistribute(MPI_COMM_WORLD, {ExchangeItem::of<double>(p, y, xa.ld, x, ldb), ExchangeItem::of<double>(p, x, xa.ld, y, ldb)},
                       {}, &st);
  auto xb = fill_local<double>(lb, me, true);  // what X's place must hold now: Y's values
  int bad = 0;
  for (std::size_t k = 0; k < xb.data.size(); ++k) {
    const bool pad = xb.rows == 0 || static_cast<std::int64_t>(k % static_cast<std::size_t>(xb.ld)) >= xb.rows;
    if (pad) continue;
    bad += buf[k] != xb.data[k] + 1;                       // X's place: Y
    bad += buf[static_cast<std::size_t>(span) + k] != xb.data[k];  // Y's place: X
  }
  EXPECT_EQ(all_sum(bad), 0);
  if (xa.in_grid && !xa.data.empty()) {
    EXPECT_GT(st.bytes_staged, 0);
  }
}

TEST(Exchange, BadInputFailsOnEveryRankBeforeAnythingMoves) {
  Four f;
  auto items = f.items();
  // The last rank that receives anything of item 2 passes a null B.
  int mine = 0;
  for (const auto& t : f.s.plan.transfers) mine = mine || (t.dst == world_rank());
  int last = mine ? world_rank() : -1;
  MPI_Allreduce(MPI_IN_PLACE, &last, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (world_rank() == last) items[2].b = nullptr;
  std::string msg;
  try {
    redist::redistribute(MPI_COMM_WORLD, items);
  } catch (const redist::Error& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("item 2: b is null"), std::string::npos) << msg;
  EXPECT_NE(msg.find("rank " + std::to_string(last)), std::string::npos) << msg;
  // The same message everywhere, and no B touched (the check precedes every message).
  int len = static_cast<int>(msg.size()), lo = len, hi = len;
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(lo, hi);
  Four untouched;
  EXPECT_EQ(f.d.b.data, untouched.d.b.data);
  EXPECT_EQ(f.z.b.data, untouched.z.b.data);
  // Ranks passing different lists (one rank one item fewer): Inconsistent on every rank.
  auto fewer = f.items();
  if (world_rank() == 1) fewer.pop_back();
  try {
    redist::redistribute(MPI_COMM_WORLD, fewer);
    ADD_FAILURE() << "different item lists were accepted";
  } catch (const redist::Error& e) {
    EXPECT_EQ(e.code(), redist::ErrorCode::Inconsistent) << e.what();
  }
  // An element size that is no element type.
  auto odd = f.items();
  odd[0].elem_bytes = 3;
  EXPECT_THROW(redist::redistribute(MPI_COMM_WORLD, odd), redist::Error);
}

TEST(Exchange, CancelWithdrawsReceivesWhoseSendersNeverStart) {
  // Ranks 0-2 hold A, ranks 3-5 only B: the receivers start (Local), the senders never
  // do; the receivers cancel and nothing hangs.
  const Layout la = Layout::block_cyclic(20, 20, 3, 3, 1, 3), lb = Layout::block_cyclic(20, 20, 2, 2, 1, 3, 0, 0, {3, 4, 5});
  Case<double> c(la, lb, Region::whole(la));
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  if (world_rank() >= 3) {
    redist::Exchange ex(comm, {c.item()}, {}, redist::Agreement::Local);
    ex.start();
    EXPECT_FALSE(ex.test());
    ex.cancel();
    EXPECT_THROW(ex.finish(), redist::Error);
  }
  MPI_Barrier(comm);
  // The same exchange afterwards, everyone taking part, on the same communicator.
  c.reset_b();
  {
    redist::Exchange ex(comm, {c.item()}, {}, redist::Agreement::Local);
    ex.start();
    ex.finish();
  }
  MPI_Comm_free(&comm);
  EXPECT_EQ(all_sum(c.errors()), 0);
}

TEST(Exchange, DestroyingAStartedExchangeCompletesIt) {
  Four f;
  {
    redist::ExecOptions opt;
    opt.memory_budget_bytes = 4096;  // many rounds left after start()
    redist::Exchange ex(MPI_COMM_WORLD, f.items(), opt);
    ex.start();
  }  // destroyed unfinished on every rank: its messages complete, nothing is left posted
  f.reset();
  redist::redistribute(MPI_COMM_WORLD, f.items());
  EXPECT_EQ(all_sum(f.errors()), 0);
}

namespace {

// Rank r's local arrays of every coordinate a holding-several layout places it at, filled
// from the global matrix as fill_local does for one coordinate.
template <class T>
struct Held {
  std::vector<std::vector<T>> arrays;
  std::vector<redist::HeldArray> held;
  explicit Held(const Layout& la) {
    const auto ra = la.row_axis(), ca = la.col_axis();
    for (int pr = 0; pr < la.nprow; ++pr)
      for (int pc = 0; pc < la.npcol; ++pc) {
        if (la.rank_at(pr, pc) != world_rank()) continue;
        const std::int64_t rows = la.local_rows(pr), cols = la.local_cols(pc), ld = std::max<std::int64_t>(1, rows) + 1;
        auto& a = arrays.emplace_back(static_cast<std::size_t>(ld * std::max<std::int64_t>(1, cols)), sentinel<T>());
        for (std::int64_t jl = 0; jl < cols; ++jl)
          for (std::int64_t il = 0; il < rows; ++il)
            a[static_cast<std::size_t>(jl * ld + il)] = make<T>(ra.to_global(pr, il), ca.to_global(pc, jl));
        held.push_back({pr, pc, a.data(), ld});
      }
  }
};

}  // namespace

TEST(Exchange, RanksHoldingSeveralCoordinatesOfAMoveEveryOne) {
  // A 3x3 grid's nine local arrays held by five of the six ranks (rank 3 holds three, rank
  // 4 none), as level recovery holds the old processes' copies, onto 2x3 and 3x2 grids: one
  // exchange of two items of two element types, and one item alone (which the blocking
  // form must not hand to the single-plan executor).
  const auto several = redist::RankMap::holding_several({0, 0, 1, 2, 5, 5, 3, 3, 3});
  const Layout la = Layout::block_cyclic(41, 35, 4, 3, 3, 3, 1, 0, several);
  const Layout la2 = Layout::from_blocks({5, 9, 2, 11, 3}, {7, 1, 12, 4}, 3, 3, 0, 2, several);
  const Layout lb = Layout::block_cyclic(41, 35, 5, 2, 2, 3), lb2 = Layout::block_cyclic(30, 24, 3, 5, 3, 2, 0, 0, {5, 4, 3, 2, 1, 0});
  // Every transport (mode 0: by message, 1: the node window, 2: single copy): each send
  // from its held coordinate's array.
  for (int mode = 0; mode < 3; ++mode)
    for (int together = 0; together < 2; ++together) {
      Held<double> h(la);
      Held<std::complex<float>> h2(la2);
      auto b = fill_local<double>(lb, world_rank(), false, 1);
      auto b2 = fill_local<std::complex<float>>(lb2, world_rank(), false, 0);
      const RedistPlan p = redist::make_plan(la, lb, Region::whole(la), world_size(), ScheduleKind::Default, world_rank());
      const RedistPlan p2 = redist::make_plan(la2, lb2, Region::whole(la2), world_size(), ScheduleKind::Default, world_rank());
      ExchangeItem i1{&p, nullptr, 1, data_or_null(b), b.ld, sizeof(double), h.held};
      ExchangeItem i2{&p2, nullptr, 1, data_or_null(b2), b2.ld, sizeof(std::complex<float>), h2.held};
      redist::ExecOptions opt;
      opt.node_window = mode == 1;
      opt.single_copy = mode == 2 ? redist::SingleCopy::On : redist::SingleCopy::Off;
      redist::ExecStats st, st2;
      if (together) {
        redist::redistribute(MPI_COMM_WORLD, {i1, i2}, opt, &st);
      } else {
        redist::redistribute(MPI_COMM_WORLD, {i1}, opt, &st);
        redist::redistribute(MPI_COMM_WORLD, {i2}, opt, &st2);
      }
      EXPECT_EQ(all_sum(wrong(lb, b, Region::whole(lb)) + wrong(lb2, b2, Region::whole(lb2))), 0) << mode << together;
      const int window = all_sum(static_cast<int>(st.bytes_window + st2.bytes_window));
      const int single = all_sum(static_cast<int>(st.bytes_single_copy + st2.bytes_single_copy));
      if (redist::node_ranks(MPI_COMM_WORLD).size() == static_cast<std::size_t>(world_size())) {
        EXPECT_EQ(window > 0, mode == 1) << together;
        EXPECT_EQ(single > 0, mode == 2) << together;
      }
    }
  // A coordinate left out: the same error on every rank, B untouched.
  Held<double> h(la);
  auto b = fill_local<double>(lb, world_rank(), false, 1);
  const auto before = b.data;
  const RedistPlan p = redist::make_plan(la, lb, Region::whole(la), world_size(), ScheduleKind::Default, world_rank());
  if (world_rank() == 3) h.held.pop_back();
  std::string msg;
  try {
    redist::redistribute(MPI_COMM_WORLD, {ExchangeItem{&p, nullptr, 1, data_or_null(b), b.ld, sizeof(double), h.held}});
  } catch (const redist::Error& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("rank 3: item 0: held names 2 coordinates of A, but A's ranks place this rank at 3"), std::string::npos) << msg;
  EXPECT_EQ(b.data, before);
  // Only A may hold several: a B of such ranks is refused when planned.
  try {
    (void)redist::make_plan(lb, la, Region::whole(lb), world_size(), ScheduleKind::Default, world_rank());
    ADD_FAILURE() << "a B holding several coordinates was planned";
  } catch (const redist::Error& e) {
    EXPECT_NE(std::string(e.what()).find("only A's may"), std::string::npos) << e.what();
  }
}
