// SPDX-License-Identifier: BSD-3-Clause
// The on-node transports of an exchange (on_node.hpp): per item one single-copy step and
// one node-window step, over one node window for the whole exchange.
#include "on_node.hpp"

#include <algorithm>
#include <complex>

#include "malleable/redist/node_map.hpp"
#include "mapped.hpp"
#include "mapped_registry.hpp"
#include "node_window.hpp"
#include "segment_store.hpp"
#include "single_copy.hpp"

namespace redist::exec {

Route Routing::route(const Transfer& t, int me, std::size_t elem_bytes, const SendFrom& from) const {
  const int peer = t.src == me ? t.dst : t.src;
  if (!node || peer == me || !std::binary_search(node->begin(), node->end(), peer)) return Route::Message;
  if (reads && reads_in_place(t, elem_bytes, mode, transport)) return Route::SingleCopy;
  if (!window || transport != Transport::Auto || !std::binary_search(window_ranks.begin(), window_ranks.end(), peer))
    return Route::Message;
  if (t.src != me || !from.a || !from.sa) return Route::Window;
  if (mapped && mapped_source(t, elem_bytes, from)) return Route::MappedRead;
  if (huge && column_bytes(t, elem_bytes) >= kHugeReadMinPieceBytes) {  // the cheap bound first
    const Walk w(*from.sa, t);
    // the pieces (pure) before the pages (huge_source asks the kernel)
    if (reads_huge(w.rows, elem_bytes, mode, transport, true) && huge_source(w, elem_bytes, from)) return Route::HugeRead;
  }
  return Route::Window;
}

bool Routing::may_read_huge(const Transfer& t, std::size_t elem_bytes) const {
  return huge && column_bytes(t, elem_bytes) >= kHugeReadMinPieceBytes;
}

bool huge_source(const Walk& w, std::size_t elem_bytes, const SendFrom& from) {
  auto first_local = [](const std::vector<LocalRun>& runs) {
    std::int64_t first = -1;
    for (const auto& r : runs)
      if (r.len > 0 && r.count > 0) first = first < 0 ? r.start : std::min(first, r.start);
    return first;
  };
  const std::int64_t row = first_local(w.rows), col = first_local(w.cols);
  if (row < 0 || col < 0) return false;
  const auto eb = static_cast<std::int64_t>(elem_bytes);
  const std::int64_t first = (col * from.sa->ld + row) * eb, span = walk_span(w, from.sa->ld) * eb;
  return span > first && huge_paged(static_cast<const char*>(from.a) + first, span - first);
}

bool mapped_source(const Transfer& t, std::size_t elem_bytes, const SendFrom& from) {
  if (!any_mapped()) return false;
  const std::int64_t span = walk_span(Walk(*from.sa, t), from.sa->ld) * static_cast<std::int64_t>(elem_bytes);
  return span > 0 && find_mapped(from.a, span).has_value();
}

std::vector<int> joined_by_window(const std::vector<int>& node, const std::vector<int>* job, int me) {
  std::vector<int> out;
  for (int r : node)
    if (r == me || !job || !std::binary_search(job->begin(), job->end(), r)) out.push_back(r);
  return out;
}

Routing make_routing(MPI_Comm user_comm, const ExecOptions& opt, bool collective) {
  Routing r;
  r.mode = opt.single_copy;
  r.transport = opt.transport;
  // Single copy applies when forced (On, any transport) or chosen per transfer (Auto,
  // under Transport::Auto); the node window under Transport::Auto.
  r.reads = single_copy_supported() &&
            (opt.single_copy == SingleCopy::On || (opt.single_copy == SingleCopy::Auto && opt.transport == Transport::Auto));
  r.window = opt.node_window && opt.transport == Transport::Auto && node_window_supported();
  r.mapped = r.window && opt.mapped_read;
  r.huge = r.window && r.reads && opt.single_copy == SingleCopy::Auto;
  if (collective && (r.reads || r.window)) r.node = &node_ranks(user_comm);
  if (r.node && r.window) {
    int me = 0;
    MPI_Comm_rank(user_comm, &me);
    r.window_ranks = joined_by_window(*r.node, opt.window_pairs == WindowPairs::OtherJobs ? &job_ranks(user_comm) : nullptr, me);
  }
  return r;
}

namespace {

struct WindowMoved {
  std::int64_t sent = 0, received = 0, window = 0, mapped = 0, single = 0;
  double pack_s = 0, unpack_s = 0;
};

// A node-window step of elements of `eb` bytes, its element type erased: the kernels move
// bytes, so float serves 4-byte elements, double 8 (complex<float> too), complex<double> 16.
struct ErasedWindowStep {
  std::function<void()> begin;
  std::function<WindowMoved()> end;
};

template <class E>
ErasedWindowStep window_step(MPI_Comm comm, const NodeWindow* win, const ItemArrays& x, bool sleep, int sleep_us,
                             std::vector<const Transfer*> out, std::vector<const Transfer*> in,
                             std::vector<SendFrom> from) {
  using Step = WindowStep<E>;
  const typename Step::Env env{comm, win, x.sa, x.sb, static_cast<const E*>(x.a), static_cast<E*>(x.b), sleep, sleep_us};
  auto step = std::make_shared<Step>(env, std::move(out), std::move(in), std::move(from));
  return {[step] { step->begin(); },
          [step] {
            const auto m = step->end();  // the step moves itself into the window's pending list
            return WindowMoved{m.sent, m.received, m.window, m.mapped, m.single, m.pack_s, m.unpack_s};
          }};
}

MPI_Datatype element_type(std::size_t eb) { return eb == 4 ? MPI_FLOAT : eb == 8 ? MPI_DOUBLE : MPI_C_DOUBLE_COMPLEX; }

}  // namespace

struct OnNode::Item {
  std::size_t index = 0;
  ItemArrays x;
  std::vector<const Transfer*> read_out, read_in, win_out, win_in;
  std::vector<SendFrom> read_from, win_from;  // per send
  std::optional<SingleCopyStep> one;
  std::optional<ErasedWindowStep> shared;
};

struct OnNode::Window {
  std::optional<NodeWindow> win;
};

OnNode::OnNode(MPI_Comm comm, MPI_Comm user_comm, const std::vector<int>* node, const ExecOptions& opt, bool sleep)
    : comm_(comm), user_comm_(user_comm), node_(node), opt_(opt), sleep_(sleep), win_(std::make_unique<Window>()) {}

OnNode::~OnNode() = default;

void OnNode::add(std::size_t item, const ItemArrays& arrays, const Transfer* t, bool send, Route r, SendFrom from) {
  if (items_.empty() || items_.back()->index != item) {
    items_.push_back(std::make_unique<Item>());
    items_.back()->index = item;
    items_.back()->x = arrays;
  }
  Item& it = *items_.back();
  if (!from.a && !from.sa) from = SendFrom{arrays.sa, arrays.a};
  from.mapped = r == Route::MappedRead;
  from.huge = r == Route::HugeRead;
  if (r == Route::SingleCopy)
    (send ? it.read_out : it.read_in).push_back(t);
  else
    (send ? it.win_out : it.win_in).push_back(t);
  if (send) (r == Route::SingleCopy ? it.read_from : it.win_from).push_back(from);
}

std::int64_t OnNode::segment_bytes() const { return win_->win ? win_->win->segment_bytes() : 0; }

void OnNode::begin() {
  std::int64_t need = 0;
  bool any_window = false;
  for (const auto& it : items_) {
    std::int64_t bytes = 0;
    for (std::size_t k = 0; k < it->win_out.size(); ++k)
      if (!it->win_from[k].mapped && !it->win_from[k].huge) bytes += it->win_out[k]->elements() * static_cast<std::int64_t>(it->x.elem_bytes);
    need += (bytes + NodeWindow::kStepAlign - 1) / NodeWindow::kStepAlign * NodeWindow::kStepAlign;
    any_window = any_window || !it->win_out.empty() || !it->win_in.empty();
  }
  if (any_window && !win_->win) {
    if (need_ < 0) need_ = need;
    open_window();
  }
  for (auto& it : items_) {
    const ItemArrays& x = it->x;
    if (!it->read_out.empty() || !it->read_in.empty()) {
      it->one.emplace(SingleCopyStep::Env{comm_, element_type(x.elem_bytes), x.elem_bytes, x.sa, x.sb, x.a, x.b, sleep_,
                                          opt_.sleep_us, opt_.mapped_read && node_window_supported()},
                      std::move(it->read_out), std::move(it->read_in), std::move(it->read_from));
      it->one->begin();
    }
    if (!it->win_out.empty() || !it->win_in.empty()) {
      const NodeWindow* w = &*win_->win;
      auto make = [&](auto e) {
        using E = decltype(e);
        return window_step<E>(comm_, w, x, sleep_, opt_.sleep_us, std::move(it->win_out), std::move(it->win_in),
                              std::move(it->win_from));
      };
      it->shared = x.elem_bytes == 4 ? make(float{}) : x.elem_bytes == 8 ? make(double{}) : make(std::complex<double>{});
      it->shared->begin();
    }
  }
}

void OnNode::end(ExecStats& st) {
  for (auto& it : items_) {
    if (it->shared) {
      const WindowMoved m = it->shared->end();
      st.bytes_sent += m.sent;
      st.bytes_received += m.received;
      st.bytes_window += m.window;
      st.bytes_mapped += m.mapped;
      st.bytes_single_copy += m.single;
      st.pack_s += m.pack_s;
      st.unpack_s += m.unpack_s;
      it->shared.reset();
    }
    if (it->one) {
      const auto m = it->one->end();
      st.bytes_sent += m.sent;
      st.bytes_received += m.received;
      st.bytes_single_copy += m.single;
      st.bytes_mapped += m.mapped;
      it->one.reset();
    }
  }
  items_.clear();
}

void OnNode::open_window() {
  if (win_->win) return;
  // Without wrap (several items in one phase): all of the exchange's window sends fit at
  // once or none goes through this rank's segment (each then goes by message, which its
  // receiver learns in the step's word). With wrap (one item a phase, a plan's steps): a
  // step that does not fit starts the segment again once the earlier steps are released.
  const std::int64_t limit = opt_.memory_budget_bytes > 0 ? opt_.memory_budget_bytes / 2 : INT64_MAX / 4;
  const std::int64_t need = std::max<std::int64_t>(0, need_);
  win_->win.emplace(user_comm_, *node_, wrap_ || need <= limit ? need : 0, limit);
}

void OnNode::close() {
  if (win_->win) {
    win_->win->finish();  // the window steps' last words and messages
    win_->win.reset();
  }
  if (!opt_.mapped_keep) drop_peer_arrays();  // every mapped read is done: no freed array of a peer kept alive here
}

std::int64_t OnNode::reader_bytes() { return SingleCopyStep::kReaderBytes; }

std::int64_t OnNode::bytes_held() const {
  std::int64_t b = 0;
  for (const auto& it : items_)
    if (it->one) b += it->one->bytes_held() + SingleCopyStep::kReaderBytes;
  return b;
}

}  // namespace redist::exec
